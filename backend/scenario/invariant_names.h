// The invariant names of scenario files (docs/DESIGN.md §5): what `invariants` and `expect.violation` may name,
// in the fixed order the invariants are checked. The order is part of every verdict (an execution ends at the
// first violation found), so a new name goes last unless the verdicts of the corpus may change.
//
// Each name's row (the upstream case it guards, what holds, its check) is in its family's file under
// backend/invariants/, which invariants/invariant_table.cpp joins to this list; the engine-level findings
// (no-deadlock, steps-bounded, actor-exception) are sim/'s and have rows without a check.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allocsim::harness {

/// Every invariant and engine-level finding, in check order.
const std::vector<const char*>& invariant_names();

bool is_invariant(std::string_view name);

/// Every name of invariant_names() but those in `left_out`, in check order (a scenario's `{"all_except": [...]}`).
std::vector<std::string> invariants_except(const std::vector<std::string>& left_out);

}  // namespace allocsim::harness
