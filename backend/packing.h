// Exhaustive per-host packing of whole-device requests (seed `pack_whole_devices`).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/contract.h"

namespace allocsim::backend {

/// Each request (workload, count) needs `count` whole devices on one host. Requests are tried widest
/// first (stable), hosts in name order (the seed's `sorted(remaining)`), with backtracking. `eligible`
/// narrows the hosts a workload may take; a workload absent from it may take any host.
/// Returns workload -> host in placement order, or nullopt when no assignment exists.
/// Cost: exponential in the number of requests; callers keep inventories small (the seed's own note).
std::optional<OrderedMap<std::string, std::string>> pack_whole_devices(
    const std::vector<std::pair<std::string, int>>& requests, const OrderedMap<std::string, int>& free,
    const OrderedMap<std::string, std::set<std::string>>* eligible = nullptr);

/// The working storage of pack_whole_devices_into, kept by its caller across calls: once its vectors have
/// grown to a scenario's size, a packing allocates nothing (issue 16). What it keeps between calls is the last
/// host order (`sorted`), reused only for hosts named exactly as then, in the same order.
struct PackScratch {
  struct SortMemo {
    std::vector<std::string> names;  // the last call's `free` keys, in its order
    std::vector<uint32_t> order;     // the entries of `free` in name order
  };
  SortMemo sorted;
  std::vector<int> remaining;  // units left, per entry of `free`
  std::vector<std::pair<std::string_view, int>> order;
  std::vector<std::pair<std::string_view, uint32_t>> hosts;  // free's hosts by name, each with its `remaining` slot
};

/// pack_whole_devices() without its allocations: true and the assignment in `out` (its storage reused, views of
/// `requests`' workloads and `free`'s hosts, valid while those live), or false and `out` empty.
bool pack_whole_devices_into(const std::vector<std::pair<std::string_view, int>>& requests,
                             const OrderedMap<std::string, int>& free, PackScratch& scratch,
                             OrderedMap<std::string_view, std::string_view>& out);

}  // namespace allocsim::backend
