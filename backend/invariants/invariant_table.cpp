// The invariant table (invariant_table.h): the names in check order (backend/scenario/invariant_names.h) joined to
// the rows of the families, and the engine-level findings' rows, which sim/ reports without a check.
#include "backend/invariants/invariant_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "backend/invariants/atomicity.h"
#include "backend/invariants/audit.h"
#include "backend/invariants/capacity.h"
#include "backend/invariants/client.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/healing.h"
#include "backend/invariants/histories.h"
#include "backend/invariants/ownership.h"
#include "backend/scenario/invariant_names.h"

namespace allocsim::harness {

namespace {

std::vector<InvariantSpec> engine_findings() {
  // clang-format off
  return {
      {"no-deadlock", "ALLOC-013", "some actor can always run while any is unfinished", nullptr, false, {}, 0, false, nullptr},
      {"steps-bounded", "ALLOC-013", "an execution ends within its step limit (--max-steps)", nullptr, false, {}, 0, false, nullptr},
      {"actor-exception", "-", "no actor ends with an unexpected exception", nullptr, false, {}, 0, false, nullptr},
  };
  // clang-format on
}

bool checks(const CompiledScenario& c, std::string_view invariant) {
  for (size_t i : c.invariants)
    if (invariant == invariant_table()[i].name) return true;
  return false;
}

}  // namespace

const std::vector<InvariantSpec>& invariant_table() {
  static const std::vector<InvariantSpec> k = [] {
    std::vector<InvariantSpec> rows;
    for (std::vector<InvariantSpec> family :
         {ownership_invariants(), geometry_invariants(), capacity_invariants(), client_invariants(), audit_invariants(),
          history_invariants(), healing_invariants(), atomicity_invariants(), engine_findings()})
      rows.insert(rows.end(), family.begin(), family.end());
    // One row per name, in the names' order; a row no name lists, or a name without a row, is a mistake.
    std::vector<InvariantSpec> out;
    for (const char* name : invariant_names()) {
      const auto row = std::find_if(rows.begin(), rows.end(),
                                    [&](const InvariantSpec& r) { return std::string_view(r.name) == name; });
      if (row == rows.end()) throw std::logic_error(fmt::format("invariant {} has no row in any family", name));
      out.push_back(*row);
    }
    if (out.size() != rows.size())
      throw std::logic_error("an invariant row whose name is not in invariant_names(), or a name with two rows");
    return out;
  }();
  return k;
}

void set_invariants(CompiledScenario& c, std::vector<size_t> rows) {
  const auto& cat = invariant_table();
  c.invariants = std::move(rows);
  c.step_rows.clear();
  for (const size_t i : c.invariants)
    if (cat[i].check != nullptr && !cat[i].quiescent_only)
      c.step_rows.push_back(
          {cat[i].incremental ? cat[i].incremental : cat[i].check, cat[i].reads_kinds, cat[i].per_node});
  c.records_geometry_writes = checks(c, "no-apply-under-later-workload") || checks(c, "geometry-converges");
  c.records_bound_workloads = checks(c, "bound-workload-covered");
  c.records_histories = checks(c, "no-lost-update") || checks(c, "write-advances-version");
}

}  // namespace allocsim::harness
