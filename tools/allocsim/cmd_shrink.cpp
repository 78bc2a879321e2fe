// allocsim shrink TRACE.json [-o MIN.json]: replays a trace file, shrinks its violation (campaign::shrink_to_trace,
// sim/campaign/minimal_trace.h) and writes the minimal trace, keeping the input's raw sizes when it was itself shrunk.
// Exit 1 with a minimal trace written, 0 when the trace violates nothing, 4 when it does not replay, 2 on usage.
#include <fmt/format.h>

#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/minimal_trace.h"
#include "sim/campaign/trace_replay.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/trace_report.h"

namespace allocsim::cli {

int cmd_shrink(int argc, char** argv) {
  std::string input, output;
  TraceFlags tf;
  po::options_description d("shrink options");
  d.add_options()("help,h", "show this help");
  d.add_options()("output,o", po::value(&output),
                  "write the minimal trace here (default: the input's name with .min.trace.json)");
  d.add_options()("shrink-budget", po::value(&tf.shrink_budget)->default_value("60"),
                  "stop early after this many seconds (and say so); 0 = no time limit");
  d.add_options()("shrink-runs", po::value(&tf.shrink_runs)->default_value("200000"),
                  "at most this many candidate executions: the deterministic bound");
  d.add_options()("perfetto", po::value(&tf.perfetto), "also write the minimal trace as Chrome trace-event JSON");
  std::string check_invariants;
  d.add_options()("check-invariants", po::value(&check_invariants)->default_value("incremental"),
                  "incremental | full: how invariants are checked after a step (same results either way)");
  po::options_description hidden;
  hidden.add_options()("trace", po::value(&input));
  const char* usage = "allocsim shrink TRACE.json [-o MIN.json] [options]";
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "trace", 1, usage);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << d;
    return kExitOk;
  }
  if (input.empty()) throw UsageError("missing TRACE.json (a trace file written by allocsim run)");
  set_check_invariants(check_invariants);
  check_output_dir("-o", output);
  check_output_dir("--perfetto", tf.perfetto);
  const campaign::Trace t = campaign::load_trace(harness::backend_system(), input);
  const campaign::ShrinkOptions so = shrink_options(tf, t.max_steps);
  const campaign::TraceReplay rr = campaign::replay_trace(t);
  if (rr.divergence) {
    print_divergence(fmt::format("allocsim shrink {}", input), *rr.divergence);
    return kExitDiverged;
  }
  if (!rr.result.violation) {
    std::cout << fmt::format("allocsim shrink {}: the trace violates no invariant; nothing to shrink\n", input);
    return kExitOk;
  }
  if (output.empty()) {
    std::string stem = input;
    for (const char* suffix : {".trace.json", ".json"})
      if (stem.ends_with(suffix)) {
        stem.resize(stem.size() - std::string_view(suffix).size());
        break;
      }
    output = stem + ".min.trace.json";
  }
  campaign::Trace m = campaign::shrink_to_trace(harness::backend_system(), t.scenario, rr.result, so).trace;
  // Sizes before shrinking are those of the original run when the input was itself shrunk, else the input's as its
  // file gives them; the counts are this shrink's.
  const campaign::ShrinkInfo counts = *m.shrink;
  m.shrink = t.shrink ? *t.shrink
                      : campaign::ShrinkInfo{t.steps.size(), t.scenario->actor_names().size(), t.scenario->op_count(),
                                             t.preemptions};
  m.shrink->runs = counts.runs;
  m.shrink->budget_exhausted = counts.budget_exhausted;
  m.shrink->out_of_time = counts.out_of_time;
  m.shrink->preemptions_minimal = counts.preemptions_minimal;
  m.tool_version = ALLOCSIM_VERSION;
  m.scenario_path = t.scenario_path;
  m.scenario_digest = t.scenario_digest;
  m.strategy = t.strategy;
  m.seed = t.seed;
  m.execution_seed = t.execution_seed;
  m.max_steps = t.max_steps;
  std::cout << fmt::format("allocsim shrink {}:\n", input) << explain_trace(m);
  try {
    write_outputs(m, output, tf.perfetto, "replay minimal");
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitFailed;
}

}  // namespace allocsim::cli
