// The trace-file side of the command line: flags for trace output, shrinking and schedule replay, what
// `run` does with a violating execution (print the raw seed, shrink, print and write the minimal trace),
// `replay TRACE.json`, `replay SCENARIO --schedule S`, and the `shrink` command.
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "backend/harness/runner.h"
#include "backend/harness/scenario.h"
#include "sim/campaign/trace_file.h"
#include "sim/explorer.h"

namespace allocsim::cli {

struct Common;

/// Flags of the trace work (run: --trace-out, --no-trace, --no-shrink, --shrink-budget, --shrink-runs,
/// --perfetto; replay: --schedule, --perfetto). Strings are validated by to_shrink_options() and friends.
struct TraceFlags {
  std::string trace_out;               // run: where the trace goes ("" = <scenario-name>.seed-<seed>.trace.json)
  bool no_trace = false;               // run: write no trace file
  bool no_shrink = false;              // run: print and write the raw execution
  std::string shrink_budget = "60";    // seconds of wall clock (only to stop early)
  std::string shrink_runs = "200000";  // candidate executions (deterministic bound)
  std::string perfetto;                // Chrome trace-event JSON of the printed trace
  std::string schedule;                // replay: a v1 schedule string (sim/schedule.h)
};

/// The options above, for `run` (run = true) or `replay`.
boost::program_options::options_description trace_options(TraceFlags& f, bool run);

/// After `run` found `finding`: prints the raw replay line first (unless it was already printed), shrinks
/// unless --no-shrink, prints the trace (explain_trace), writes the trace file and the Perfetto file.
/// Returns kExitOk, or kExitUsage when an output file cannot be written.
int report_finding(const Common& c, const harness::RunConfig& cfg, const harness::Scenario& sc,
                   const sim::Finding& finding);

/// `allocsim replay TRACE.json`: exit 1 when the violation reproduces, 0 when the trace had none and none
/// happened, 4 on divergence (printing the first differing step), 2 for an unreadable trace.
int replay_trace_file(const Common& c);

/// `allocsim replay SCENARIO --schedule S`: like --seed, with the schedule given; 4 when the schedule
/// cannot be followed.
int replay_schedule(const Common& c, const harness::RunConfig& cfg, const harness::Scenario& sc);

/// `allocsim shrink TRACE.json [-o MIN.json]`.
int cmd_shrink(int argc, char** argv);

/// `allocsim trace order TRACE.json [--full] [--budget N]`: the trace's violation as an `order` block
/// (campaign::minimal_order, sim/campaign/order_min.h) on stdout; exit 1 when no order forces it.
int cmd_trace(int argc, char** argv);

}  // namespace allocsim::cli
