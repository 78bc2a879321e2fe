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
  std::string input;
  FlagValues v;
  po::options_description d("shrink options");
  declare_flags(d, v, Cmd::shrink);
  po::options_description hidden;
  hidden.add_options()("trace", po::value(&input));
  const char* usage = "allocsim shrink TRACE.json [-o MIN.json] [options]";
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "trace", 1, usage);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (input.empty()) throw UsageError("missing TRACE.json (a trace file written by allocsim run)");
  check_flag_pairs(v);
  set_check_invariants(v.value("check-invariants"));
  std::string output = v.value("output");
  check_output_dir("-o", output);
  check_output_dir("--perfetto", v.value("perfetto"));
  const campaign::Trace t = campaign::load_trace(harness::backend_system(), input);
  const campaign::ShrinkOptions so = shrink_options(v, t.max_steps);
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
    write_outputs(m, output, v.value("perfetto"), "replay minimal");
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitFailed;
}

}  // namespace allocsim::cli
