// The op-level executions of a scenario and the set of their results (docs/DESIGN.md §5, "Op atomicity";
// backend/world/op_results.h says what an op-level execution and a result are).
//
// Contract: op_level_results() compiles the scenario with the same mutants, with every op's calls as single steps
// (CompiledScenario::atomic_ops), no invariant and no `order`, and explores it exhaustively with DPOR, up to
// `bound` executions. It is judged when the whole tree was explored and every execution ran to its end; otherwise
// `note` says why not (too many executions, or an op-level execution that ended in an engine finding: a deadlock, an
// op that never returns, an exception). Deterministic: a pure function of its arguments, and so kept: the results of
// the last kCachedScenarios (scenario, mutants, bound) computed (first in, first out) are shared by every later compile
// of them, in every thread (a run, its recheck, each sweep unit, each test that compiles the same file again); two
// threads that compile one scenario at once may both explore it, and get equal results.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/world/op_results.h"

namespace allocsim::harness {

std::shared_ptr<const OpLevelResults> op_level_results(const Scenario& scenario,
                                                       const std::vector<std::string>& extra_mutants, uint64_t bound);

}  // namespace allocsim::harness
