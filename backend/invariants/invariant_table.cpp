// The invariant table (invariant_table.h): the rows of the families and the engine-level findings' rows (which sim/
// reports without a check), in their check order; and from them the names the scenario language accepts.
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
      {"no-deadlock", 11, "ALLOC-013", "some actor can always run while any is unfinished", nullptr, false, {}, 0, false, nullptr,
       "engine: while some actor is unfinished, some actor can run"},
      {"steps-bounded", 12, "ALLOC-013", "an execution ends within its step limit (--max-steps)", nullptr, false, {}, 0, false, nullptr,
       "engine: an execution ends within its step limit"},
      {"actor-exception", 13, "-", "no actor ends with an unexpected exception", nullptr, false, {}, 0, false, nullptr,
       "engine: no actor ends by an unexpected exception"},
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
    // In check order; each number from 0 up once, so that a row placed by mistake is found here, not in a verdict.
    std::stable_sort(rows.begin(), rows.end(),
                     [](const InvariantSpec& a, const InvariantSpec& b) { return a.order < b.order; });
    for (size_t i = 0; i + 1 < rows.size(); ++i)
      if (rows[i].order == rows[i + 1].order)
        throw std::logic_error(fmt::format("invariants {} and {} both have order {} (the next free number is {})",
                                           rows[i].name, rows[i + 1].name, rows[i].order, rows.size() - 1));
    for (size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].order != int(i))
        throw std::logic_error(
            fmt::format("invariant {} has order {}, where {} was expected", rows[i].name, rows[i].order, i));
      for (size_t j = 0; j < i; ++j)
        if (std::string_view(rows[j].name) == rows[i].name)
          throw std::logic_error(fmt::format("invariant {} has two rows", rows[i].name));
    }
    return rows;
  }();
  return k;
}

// Declared by the scenario language (backend/scenario/invariant_names.h), which names what the families check: the
// rows are the one place a name is written.
const std::vector<const char*>& invariant_names() {
  static const std::vector<const char*> k = [] {
    std::vector<const char*> names;
    for (const InvariantSpec& row : invariant_table()) names.push_back(row.name);
    return names;
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
