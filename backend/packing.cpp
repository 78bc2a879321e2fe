// Exhaustive per-host packing (seed `pack_whole_devices`, memory_backend.py lines 530-561).
#include "backend/packing.h"

#include <algorithm>

namespace allocsim::backend {

std::optional<OrderedMap<std::string, std::string>> pack_whole_devices(
    const std::vector<std::pair<std::string, int>>& requests, const OrderedMap<std::string, int>& free,
    const OrderedMap<std::string, std::set<std::string>>* eligible) {
  OrderedMap<std::string, int> remaining = free;
  std::vector<std::pair<std::string, int>> order = requests;
  // Python's sorted(key=-count) is stable: equal counts keep request order.
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  // The seed re-sorts `remaining` at every level; its keys never change, so once is the same order.
  std::vector<std::string> hosts;
  for (const auto& [host, units] : remaining) hosts.push_back(host);
  std::sort(hosts.begin(), hosts.end());
  // `if eligible` in the seed: an empty mapping narrows nothing.
  const bool narrowing = eligible != nullptr && !eligible->empty();
  OrderedMap<std::string, std::string> assignment;

  auto place = [&](auto&& self, size_t i) -> bool {
    if (i == order.size()) return true;
    const auto& [workload, count] = order[i];
    const std::set<std::string>* allowed = narrowing ? find_in(*eligible, workload) : nullptr;
    for (const std::string& host : hosts) {
      if (allowed != nullptr && allowed->count(host) == 0) continue;
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
  if (!place(place, 0)) return std::nullopt;
  return assignment;
}

}  // namespace allocsim::backend
