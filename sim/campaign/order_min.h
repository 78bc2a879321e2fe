// A trace as an `order` block (docs/DESIGN.md §2, "Order"; `allocsim trace order FILE`): the constraints that force a
// trace's violation, for pasting into a scenario file, and for the explain and corpus lanes to reuse.
//
// full_pin(): one constraint per pair of consecutive steps of different actors, [step k-1, step k], keyed
// by the trace's labels (ACTOR:POINT#N, sim/order.h). Under it every choice has one eligible actor, so it
// leaves exactly the trace's schedule (draws apart: an order cannot pin a fault choice).
// minimal_order(): starts from the full pin and, constraint by constraint in trace order, drops one when an
// exhaustive DPOR run of the trace's embedded scenario under the remaining constraints still has every
// execution violate the trace's invariant, none of them order-blocked (a dead end the order leaves open is
// one a strategy can walk into).
// Each check is bounded by a budget of executions; a check over budget keeps the constraint. The
// scenario's own `order` is replaced by the candidate order in these runs (a wrapper world), so the result
// is what forces the violation by itself.
// Determinism: a pure function of the trace and the budget (DPOR is deterministic; no clock).
// Errors: a trace without a violation or without steps: std::invalid_argument.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/campaign/trace_file.h"
#include "sim/order.h"

namespace allocsim::campaign {

/// The full pin of `t` (see above). REQUIRES: t's step actors are actors of t.scenario.
sim::OrderSpec full_pin(const Trace& t);

struct MinimalOrder {
  sim::OrderSpec order;      // the constraints kept, in trace order
  bool forces = false;       // the full pin itself forces the violation (false: draws decide it too)
  size_t full_pin = 0;       // constraints in the full pin
  uint64_t checks = 0;       // DPOR runs
  uint64_t executions = 0;   // executions over all checks
  uint64_t over_budget = 0;  // checks that hit the budget (their constraint was kept)
};

/// See the file comment. `budget`: executions per check (>= 1).
MinimalOrder minimal_order(const Trace& t, uint64_t budget = 2000);

/// Whether `order` alone (the scenario's own order replaced) forces a violation of `invariant`: DPOR explores
/// `compiled` under it, within `budget` executions, exhaustively, and every execution violates `invariant`
/// with none order-blocked. Then every strategy's first execution violates it: DPOR covers every
/// Mazurkiewicz trace, each of them violates, and no strategy can walk into a dead end the order leaves.
struct ForceCheck {
  bool forces = false;
  bool over_budget = false;
  uint64_t executions = 0;
};
ForceCheck order_forces(const Compiled& compiled, const sim::OrderSpec& order, const std::string& invariant,
                        uint64_t max_steps, uint64_t budget);

/// The order block that reproduces `r`'s violation, added to the `order` of `subject`'s file (the union is
/// what is checked), in the first execution under every strategy (order_forces). `how`: "pairs" when
/// `candidate` (an explanation's racing
/// pairs, labels of `subject`) forces it; else "minimised": the full pin of `r` forces it and `order` is that
/// pin minimised (minimal_order's rule); else "none": not even the full pin does, `order` is empty and
/// `needs` says what else decides it (fault draws, which an order cannot pin, or the check's budget).
/// `r` is an execution of `subject` (compiled without extra mutants) that violates; nothing when it does not.
struct Pin {
  std::vector<std::pair<std::string, std::string>> order;
  std::string how;  // "pairs" | "minimised" | "none"; empty when `r` violates nothing
  std::string needs;
  uint64_t checks = 0, executions = 0;
};
Pin pin_violation(const Subject& subject, const sim::ExecutionResult& r,
                  const std::vector<std::pair<std::string, std::string>>& candidate, uint64_t max_steps,
                  uint64_t budget = 2000);

/// Explores `compiled` (whose actors are `actors`, by id) under the `order` block `block` alone (the
/// scenario's own order replaced) with DPOR, at most `budget` executions: the first execution that
/// violates an invariant, else the first one the order did not block; nullopt when `block` does not parse
/// against `actors` (an actor renamed or removed) or every execution was order-blocked. The corpus re-finds
/// the entry of a changed scenario with it (corpus.h).
std::optional<sim::ExecutionResult> run_order_block(const Compiled& compiled, const std::vector<std::string>& actors,
                                                    const nlohmann::json& block, uint64_t max_steps,
                                                    uint64_t budget = 2000);

}  // namespace allocsim::campaign
