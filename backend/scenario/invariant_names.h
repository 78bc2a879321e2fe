// The invariant names of scenario files (docs/DESIGN.md §5): what `invariants` and `expect.violation` may name,
// in the fixed order the invariants are checked. The order is part of every verdict (an execution ends at the
// first violation found).
//
// The names are the rows': each invariant's row (its name, its place in the order, the upstream case it guards, what
// holds, its check) is in its family's file under backend/invariants/, and invariant_names() is defined there, by
// the invariant table (invariants/invariant_table.cpp), so that a name is written once. The scenario language only
// declares it, as it declares the op rows' functions (op_syntax.h): a call to a higher room, through a header of its
// own. A new row takes the next free place in the order, so that no older invariant's first violation changes. The engine-level findings
// (no-deadlock, steps-bounded, actor-exception) are sim/'s and have rows without a check.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allocsim::harness {

/// Every invariant and engine-level finding, in check order. Defined by the invariant table
/// (backend/invariants/invariant_table.cpp).
const std::vector<const char*>& invariant_names();

bool is_invariant(std::string_view name);

/// Every name of invariant_names() but those in `left_out`, in check order (a scenario's `{"all_except": [...]}`).
std::vector<std::string> invariants_except(const std::vector<std::string>& left_out);

}  // namespace allocsim::harness
