// The invariant table (docs/DESIGN.md §5): every invariant with a one-line description for `allocsim list`, its
// full description for the docs, its place in the check order, its check and what the check reads (a row: family.h
// InvariantSpec). Each family's file holds its rows and checks (ownership, geometry, capacity, client, audit,
// histories, healing, atomicity); invariant_table.cpp joins them in order and gives the scenario language its names
// (backend/scenario/invariant_names.h).
//
// Adding an invariant: its row and check function in its family's file, with the next free `order` (the table says
// which when a number is wrong), and a scenario that fires it. `tools/dev.sh schema` then writes the name into the
// JSON Schema's invariant_name enum and the row into docs/DESIGN.md §5's table; the suite fails while either lags.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "backend/invariants/family.h"
#include "backend/world/compiled_scenario.h"
#include "sim/world.h"

namespace allocsim::harness {

/// Every invariant and engine-level finding, in the fixed order they are checked (InvariantSpec::order).
const std::vector<InvariantSpec>& invariant_table();

/// Sets `c.invariants` (indices into invariant_table(), ascending) and, from them, `c.step_rows` and the two
/// records_ flags (compiled_scenario.h). The adapter's compile() calls it; tests narrow a scenario's checks with it.
void set_invariants(CompiledScenario& c, std::vector<size_t> rows);

}  // namespace allocsim::harness
