// Exhaustive per-host packing (upstream `pack_whole_devices`, memory_backend.py lines 530-561).
#include "backend/model/packing.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string_view>

namespace allocsim::backend {
namespace {

// Upstream's `place` recursion over `order`, hosts in `hosts` order. `allowed(workload, host)` is the
// `eligible` narrowing (always true without one). Assignment keys are put and popped as upstream's dict.
// A host's units left are `remaining[slot]`, its slot found once (sorted_hosts) instead of at every try.
template <class Key, class Host, class Allowed>
bool place_all(const std::vector<std::pair<Key, int>>& order, const std::vector<std::pair<Host, uint32_t>>& hosts,
               std::vector<int>& remaining, OrderedMap<Key, Host>& assignment, const Allowed& allowed) {
  auto place = [&](auto&& self, size_t i) -> bool {
    if (i == order.size()) return true;
    const auto& [workload, count] = order[i];
    for (const auto& [host, slot] : hosts) {
      if (!allowed(workload, host)) continue;
      int& left = remaining[slot];
      if (left < count) continue;
      left -= count;
      put_in(assignment, workload, host);
      if (self(self, i + 1)) return true;
      remaining[slot] += count;
      erase_in(assignment, workload);
    }
    return false;
  };
  return place(place, 0);
}

// `free`'s hosts in name order (upstream's `sorted(remaining)`; it re-sorts at every level, but the keys never
// change, so once is the same order), each with the slot of its units in `remaining`: its first entry's, as
// upstream's dict (and find_in) would have it should a name repeat.
template <class Host, class Free>
void sorted_hosts(const Free& free, std::vector<std::pair<Host, uint32_t>>& hosts, std::vector<int>& remaining) {
  hosts.clear();
  remaining.clear();
  for (const auto& [host, units] : free) {
    hosts.emplace_back(host, static_cast<uint32_t>(remaining.size()));
    remaining.push_back(units);
  }
  std::sort(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) {
    const int c = std::string_view(a.first).compare(b.first);  // one comparison of the names, not pair's two
    return c != 0 ? c < 0 : a.second < b.second;
  });
  for (size_t i = 1; i < hosts.size(); ++i)
    if (hosts[i].first == hosts[i - 1].first) hosts[i].second = hosts[i - 1].second;
}

// The same order from ranks the caller knows (distinct names): a placement by rank, no name compared.
void ranked_hosts(const OrderedMap<std::string_view, int>& free, const std::vector<uint32_t>& rank, PackScratch& s) {
  constexpr uint32_t kNone = UINT32_MAX;
  s.remaining.clear();
  uint32_t top = 0;
  for (size_t i = 0; i < free.size(); ++i) {
    s.remaining.push_back(free[i].second);
    top = std::max(top, rank[i] + 1);
  }
  s.by_rank.assign(top, kNone);
  for (size_t i = 0; i < free.size(); ++i) {
    assert(s.by_rank[rank[i]] == kNone && "pack_whole_devices_into: two entries share a rank");
    s.by_rank[rank[i]] = static_cast<uint32_t>(i);
  }
  s.hosts.clear();
  for (const uint32_t i : s.by_rank)
    if (i != kNone) s.hosts.emplace_back(free[i].first, i);
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
  std::vector<std::pair<std::string, int>> order = requests;
  widest_first(order);
  std::vector<std::pair<std::string, uint32_t>> hosts;
  std::vector<int> remaining;
  sorted_hosts(free, hosts, remaining);
  // `if eligible` in upstream: an empty mapping narrows nothing.
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
                             const OrderedMap<std::string_view, int>& free, const std::vector<uint32_t>& rank,
                             PackScratch& scratch, OrderedMap<std::string_view, std::string_view>& out) {
  assert(rank.size() == free.size());
  if (requests.size() == 1) {
    // place_all with one request takes the first host in name order that has the units: one pass over the ranks
    // finds it without ordering every host (the usual plan, one whole-device workload, over many nodes).
    const auto& [workload, count] = requests[0];
    uint32_t best = UINT32_MAX;
    size_t at = 0;
    for (size_t i = 0; i < free.size(); ++i)
      if (free[i].second >= count && rank[i] < best) {
        best = rank[i];
        at = i;
      }
    out.clear();
    if (best == UINT32_MAX) return false;
    out.emplace_back(workload, free[at].first);
    return true;
  }
  ranked_hosts(free, rank, scratch);
  scratch.order.assign(requests.begin(), requests.end());
  widest_first(scratch.order);
  out.clear();
  const auto any_host = [](std::string_view, std::string_view) { return true; };
  if (place_all(scratch.order, scratch.hosts, scratch.remaining, out, any_host)) return true;
  out.clear();
  return false;
}

}  // namespace allocsim::backend
