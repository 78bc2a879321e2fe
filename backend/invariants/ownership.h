// The ownership family of invariants (docs/DESIGN.md §5): who holds what. A node that live claims cover is
// their one owner's, a device is granted to one live claim, a reserve with a stale generation writes nothing, a
// rollback or release removes only its own owner stamp, and a flow that released what it claimed, or was
// recovered, leaves no owner stamp, claim or map entry behind.
//
// Contract: like check.h says of every check: each reads a world after a step and returns its first violation
// (nullopt when it holds). The rows are this family's part of the invariant table (invariant_table.h).
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's rows of the invariant table, each with its check below.
std::vector<InvariantSpec> ownership_invariants();

std::optional<sim::Violation> check_single_ownership(const CheckContext& c);
std::optional<sim::Violation> check_no_double_grant(const CheckContext& c);
std::optional<sim::Violation> check_stale_plan_writes_nothing(const CheckContext& c);
std::optional<sim::Violation> check_rollback_keeps_newer_owner(const CheckContext& c);
std::optional<sim::Violation> check_quiescent_clean(const CheckContext& c);
/// recovery-converges (ALLOC-033): right after a `recover` op of flow F completed (every claim found was
/// released, or none was found), F owns no node, no claim of F remains, no map entry of F remains, and
/// every node no claim covers has no restore record and is back on its recorded config. A cleanup that
/// cannot converge (an owner stamp with no claim to release it) is a finding about upstream.
std::optional<sim::Violation> check_recovery_converges(const CheckContext& c);

}  // namespace allocsim::harness
