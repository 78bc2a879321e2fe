// Human-readable reports for the allocsim command line: run summaries, violations with their trace table
// and the exact command that replays them. No addresses, no wall-clock values: output is a function of
// the scenario, the flags and the seed.
#pragma once

#include <string>
#include <vector>

#include "sim/campaign/config.h"
#include "sim/campaign/run.h"
#include "sim/engine.h"
#include "sim/world.h"

namespace allocsim::cli {

/// The trace as a table: step, actor, kind, the call or barrier, details; preemptions marked with '*'.
std::string trace_table(const sim::ExecutionResult& r, const std::vector<std::string>& actor_names);

/// The violation, its state, and the trace table.
std::string violation_report(const sim::ExecutionResult& r, const std::vector<std::string>& actor_names);

/// Per actor and op: outcome counts across executions.
std::string outcome_table(const campaign::RunReport& report);

/// Shell-quotes `s` when it needs quoting (for replay lines that paste back as they are).
using campaign::shell_quote;

}  // namespace allocsim::cli
