// MIG geometry: the independent oracle (backend/CONTRACT.md §3, upstream backends/memory/mig_geometry.py), extended
// with NVIDIA's further published products (backend/CONTRACT.md §3 "Further products").
//
// Contract: pure functions over static tables; no allocation of global state at run time.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/contract.h"

namespace allocsim::backend {

/// One GPU-instance profile. Starts are in memory-slice units.
struct MigProfile {
  std::string name;  // e.g. "1g.10gb"
  int compute_slices;
  int memory_slices;
  int memory_gib;
  int max_instances;
  std::vector<int> starts;
};

/// A card family. For upstream's three families `key` is the substring matched against the product string;
/// for the further products it names the family and find_family lists the product strings that select it.
struct MigFamily {
  std::string key;  // e.g. "A100-SXM4-80GB"; named in the unknown-profile problem
  int compute_slices;
  int memory_slices;
  int memory_gib;
  std::vector<MigProfile> profiles;
};

/// The family for a product string, or nullptr. Upstream's keys (A100-SXM4-80GB, H100-80GB,
/// RTX-PRO-6000-Blackwell) match as substrings, first match in upstream's order, so upstream's oracle
/// answers are unchanged; the further products (A100 40GB SXM4/PCIe, A100-80GB-PCIe, A30, H100 NVL, H200)
/// match the GPU Feature Discovery product labels listed in backend/CONTRACT.md §3.
const MigFamily* find_family(std::string_view product);

/// Every known family, in matching order.
const std::vector<MigFamily>& mig_families();

/// Smallest profile holding `gib`: among profiles with memory >= gib, minimum by (memory, compute).
/// nullptr when the product has no family or nothing is large enough (backend/CONTRACT.md §3); otherwise a
/// profile of the static tables (mig_families()), valid for the program's life.
const MigProfile* smallest_profile(std::string_view product, double gib);

/// Problems with placing `layout` (profile name -> count) on one card of `product`; empty = OK.
/// Rules and wording exactly as backend/CONTRACT.md §3 (no family; unknown profiles; GiB/compute/memory-slice
/// totals; per-profile max; then exhaustive non-overlapping placement).
std::vector<std::string> check_layout(std::string_view product, const OrderedMap<std::string, int>& layout);

/// check_layout's rules 2-4 against a given family (check_layout = find_family + this). Exposed because no
/// layout of the shipped tables passes the totals and caps yet fails placement, so only a hand-made family
/// can exercise the placement search and its "no legal non-overlapping placement" problem.
std::vector<std::string> check_family_layout(const MigFamily& family, const OrderedMap<std::string, int>& layout);

}  // namespace allocsim::backend
