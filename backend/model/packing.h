// Exhaustive per-host packing of whole-device requests (upstream `pack_whole_devices`).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/model/contract.h"

namespace allocsim::backend {

/// Each request (workload, count) needs `count` whole devices on one host. Requests are tried widest
/// first (stable), hosts in name order (upstream's `sorted(remaining)`), with backtracking. `eligible`
/// narrows the hosts a workload may take; a workload absent from it may take any host.
/// Returns workload -> host in placement order, or nullopt when no assignment exists.
/// Cost: exponential in the number of requests; callers keep inventories small (upstream's own note).
std::optional<OrderedMap<std::string, std::string>> pack_whole_devices(
    const std::vector<std::pair<std::string, int>>& requests, const OrderedMap<std::string, int>& free,
    const OrderedMap<std::string, std::set<std::string>>* eligible = nullptr);

/// The working storage of pack_whole_devices_into, kept by its caller across calls: once its vectors have
/// grown to a scenario's size, a packing allocates nothing (docs/DESIGN.md §5, "Storage reused across executions").
/// Nothing in it outlives a call's answer.
struct PackScratch {
  std::vector<uint32_t> by_rank;  // entry of `free` per rank, kNone where no entry has that rank
  std::vector<int> remaining;     // units left, per entry of `free`
  std::vector<std::pair<std::string_view, int>> order;
  std::vector<std::pair<std::string_view, uint32_t>> hosts;  // free's hosts by name, each with its `remaining` slot
};

/// pack_whole_devices() without its allocations and without sorting names: true and the assignment in `out` (its
/// storage reused, views of `requests`' workloads and `free`'s hosts, valid while those live), or false and `out`
/// empty. `rank[i]` places free[i] in name order: rank[i] < rank[j] exactly when free[i]'s name sorts before
/// free[j]'s (plan_into reads it off its node index, built once per device list).
/// REQUIRES: free's names are distinct (a dict's keys), rank.size() == free.size(), ranks distinct.
bool pack_whole_devices_into(const std::vector<std::pair<std::string_view, int>>& requests,
                             const OrderedMap<std::string_view, int>& free, const std::vector<uint32_t>& rank,
                             PackScratch& scratch, OrderedMap<std::string_view, std::string_view>& out);

}  // namespace allocsim::backend
