// Exhaustive per-host packing (seed `pack_whole_devices`, memory_backend.py lines 530-561).
#include "backend/packing.h"

#include <algorithm>
#include <string_view>

namespace allocsim::backend {
namespace {

// The seed's `place` recursion over `order`, hosts in `hosts` order. `allowed(workload, host)` is the
// `eligible` narrowing (always true without one). Assignment keys are put and popped as the seed's dict.
template <class Key, class Host, class Allowed>
bool place_all(const std::vector<std::pair<Key, int>>& order, const std::vector<Host>& hosts,
               OrderedMap<Host, int>& remaining, OrderedMap<Key, Host>& assignment, const Allowed& allowed) {
  auto place = [&](auto&& self, size_t i) -> bool {
    if (i == order.size()) return true;
    const auto& [workload, count] = order[i];
    for (const Host& host : hosts) {
      if (!allowed(workload, host)) continue;
      int& left = *find_in(remaining, host);
      if (left < count) continue;
      left -= count;
      put_in(assignment, workload, host);
      if (self(self, i + 1)) return true;
      *find_in(remaining, host) += count;
      erase_in(assignment, workload);
    }
    return false;
  };
  return place(place, 0);
}

// Python's sorted(key=-count) is stable: equal counts keep request order. An insertion sort, not
// std::stable_sort: that one takes a heap buffer per call, and request lists are a handful long.
template <class Key>
void widest_first(std::vector<std::pair<Key, int>>& order) {
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0 && order[j - 1].second < order[j].second; --j) std::swap(order[j - 1], order[j]);
}

}  // namespace

std::optional<OrderedMap<std::string, std::string>> pack_whole_devices(
    const std::vector<std::pair<std::string, int>>& requests, const OrderedMap<std::string, int>& free,
    const OrderedMap<std::string, std::set<std::string>>* eligible) {
  OrderedMap<std::string, int> remaining = free;
  std::vector<std::pair<std::string, int>> order = requests;
  widest_first(order);
  // The seed re-sorts `remaining` at every level; its keys never change, so once is the same order.
  std::vector<std::string> hosts;
  for (const auto& [host, units] : remaining) hosts.push_back(host);
  std::sort(hosts.begin(), hosts.end());
  // `if eligible` in the seed: an empty mapping narrows nothing.
  const bool narrowing = eligible != nullptr && !eligible->empty();
  OrderedMap<std::string, std::string> assignment;
  const auto allowed = [&](const std::string& workload, const std::string& host) {
    const std::set<std::string>* hosts_of = narrowing ? find_in(*eligible, workload) : nullptr;
    return hosts_of == nullptr || hosts_of->count(host) != 0;
  };
  if (!place_all(order, hosts, remaining, assignment, allowed)) return std::nullopt;
  return assignment;
}

bool pack_whole_devices_into(const std::vector<std::pair<std::string_view, int>>& requests,
                             const OrderedMap<std::string, int>& free, PackScratch& scratch,
                             OrderedMap<std::string_view, std::string_view>& out) {
  scratch.remaining.clear();
  scratch.hosts.clear();
  for (const auto& [host, units] : free) {
    scratch.remaining.emplace_back(host, units);
    scratch.hosts.emplace_back(host);
  }
  std::sort(scratch.hosts.begin(), scratch.hosts.end());
  scratch.order.assign(requests.begin(), requests.end());
  widest_first(scratch.order);
  out.clear();
  const auto any_host = [](std::string_view, std::string_view) { return true; };
  if (place_all(scratch.order, scratch.hosts, scratch.remaining, out, any_host)) return true;
  out.clear();
  return false;
}

}  // namespace allocsim::backend
