// The atomicity family of invariants (docs/DESIGN.md §5, "Op atomicity"): what Lincheck asks of a concurrent data
// structure, asked of the protocol's ops. ops-atomic holds when the execution's result (op_results.h: every op's
// outcome and the observable final state) is one that some op-level execution of the same scenario gives, an
// execution in which no op's calls interleave with another's. It names nothing a race must break; it asks whether
// the interleaving inside the ops was visible at all.
//
// Contract: like check.h says of every check: it reads a world at quiescence and returns its first violation (nullopt
// when it holds). It holds wherever the scenario's op-level executions were not judged (OpLevelResults::note).
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's rows of the invariant table, each with its check below.
std::vector<InvariantSpec> atomicity_invariants();

/// ops-atomic, at quiescence: the result is in the compiled scenario's op-level results. The message gives how many
/// op-level results there are and the nearest one's witness (the op-level schedule that gave it); the state block
/// starts with `result:` and shows, line by line, what differs from the nearest (`-` this execution, `+` the witness).
std::optional<sim::Violation> check_ops_atomic(const CheckContext& c);

}  // namespace allocsim::harness
