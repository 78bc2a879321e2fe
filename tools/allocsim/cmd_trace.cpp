// allocsim trace explain TRACE.json and allocsim trace order TRACE.json: what a recorded violation depends on,
// and the smallest order block that pins it (sim/campaign/explain.h, order_min.h).
#include <fmt/format.h>

#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/order_min.h"
#include "sim/campaign/trace_replay.h"
#include "sim/support/json_reader.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/trace_cli.h"
#include "tools/allocsim/trace_report.h"

namespace allocsim::cli {

namespace po = boost::program_options;

namespace {

const char* const kTraceExplainUsage = "allocsim trace explain TRACE.json [--write]";
const char* const kTraceOrderUsage = "allocsim trace order TRACE.json [--full | --budget N]";

}  // namespace

int cmd_trace_explain(int argc, char** argv) {
  std::string input;
  FlagValues v;
  po::options_description d("trace explain options");
  declare_flags(d, v, Cmd::trace_explain);
  po::options_description hidden;
  hidden.add_options()("trace", po::value(&input));
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "trace", 1, kTraceExplainUsage);
  if (vm.count("help")) {
    std::cout << "usage: " << kTraceExplainUsage
              << "\n\n"
                 "Which steps the violation depends on, which pair of steps races (checked by running it the\n"
                 "other way round) and the order block that pins it.\n\n"
              << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (input.empty()) throw UsageError("missing TRACE.json (a trace file written by allocsim run)");
  check_flag_pairs(v);
  campaign::Trace t = campaign::load_trace(harness::backend_system(), input);
  const campaign::TraceReplay rr = campaign::replay_trace(t);
  if (rr.divergence) {
    print_divergence(fmt::format("allocsim trace explain {}", input), *rr.divergence);
    return kExitDiverged;
  }
  t.explanation = campaign::explain(*t.scenario, rr.result.schedule, t.max_steps);
  if (!t.explanation && rr.result.violation) {
    std::cout << fmt::format(
        "allocsim trace explain {}: the trace violates {}, but its {} are more than {} explains "
        "(the analysis is quadratic in the steps); shrink it first\n",
        input, rr.result.violation->invariant, support::count_of(rr.result.steps.size(), "step"),
        campaign::kMaxExplainSteps);
    return kExitOk;
  }
  if (!t.explanation) {
    std::cout << fmt::format("allocsim trace explain {}: the trace violates no invariant; nothing to explain\n", input);
    return kExitOk;
  }
  std::cout << fmt::format("allocsim trace explain {}:\n", input) << explain_trace(t);
  if (v.is_on("write")) {
    const std::string text = campaign::trace_to_text(t);
    std::string before;
    try {
      before = support::read_text(input);
    } catch (const std::exception&) {
      before.clear();  // unreadable now: written below, which names the problem if there is one
    }
    if (text == before) {
      std::cout << fmt::format("explanation unchanged: {} (already stored)\n", input);
      return kExitOk;
    }
    try {
      campaign::write_file_atomically(input, text);
    } catch (const campaign::OutputError& e) {
      std::cerr << "allocsim: " << e.what() << "\n";
      return kExitUsage;
    }
    std::cout << fmt::format("explanation written: {}\n", input);
  }
  return kExitOk;
}

namespace {

/// `"order": [...]`, one constraint a line: paste-able at a scenario's top level.
std::string order_snippet(const sim::OrderSpec& order) {
  std::string out = "\"order\": [";
  for (size_t i = 0; i < order.constraints.size(); ++i)
    out += fmt::format("{}\n  {}", i ? "," : "", order.constraints[i].text());
  return out + (order.empty() ? "]\n" : "\n]\n");
}

}  // namespace

int cmd_trace(int argc, char** argv) {
  std::string action, input;
  FlagValues v;
  po::options_description d("trace order options");
  declare_flags(d, v, Cmd::trace_order);
  po::options_description hidden;
  hidden.add_options()("action", po::value(&action))("trace", po::value(&input));
  po::positional_options_description pos;
  pos.add("action", 1).add("trace", 1);
  const po::variables_map vm = parse_options(argc, argv, d, hidden, pos, kTraceOrderUsage);
  if (vm.count("help") && action == "order") {
    std::cout << "usage: " << kTraceOrderUsage
              << "\n\n"
                 "prints the `order` block that forces the trace's violation (README: Pinning an interleaving)\n\n"
              << d;
    return kExitOk;
  }
  if (vm.count("help")) {  // `allocsim trace --help`: every subcommand (`trace explain` is dispatched by main)
    std::cout << "usage: " << kTraceExplainUsage
              << "\n         why it broke: the racing pair, the causal slice, an order block\n"
                 "       "
              << kTraceOrderUsage
              << "\n         print the `order` block that forces the trace's violation\n\n"
                 "Run `allocsim trace explain --help` or `allocsim trace order --help` for its options.\n";
    return kExitOk;
  }
  note_given(vm, v);
  if (action.empty()) throw UsageError("trace: missing action (expected: explain, order; see allocsim trace --help)");
  if (action != "order")
    throw UsageError(fmt::format("trace: unknown action \"{}\"{} (expected: explain, order)", action,
                                 did_you_mean(action, {"explain", "order"})));
  if (input.empty()) throw UsageError("missing TRACE.json (a trace file written by allocsim run)");
  check_flag_pairs(v);
  const uint64_t per_check = v.count("budget");
  const campaign::Trace t = campaign::load_trace(harness::backend_system(), input);
  if (!t.violation) {
    std::cerr << fmt::format("allocsim trace order {}: the trace has no violation to force\n", input);
    return kExitFailed;
  }
  if (t.steps.empty()) {  // broken at the start state: every execution of this trace's scenario breaks it
    std::cout << order_snippet(campaign::full_pin(t));
    std::cerr << fmt::format(
        "allocsim trace order {}: {} breaks with no step taken (the start state), so every execution of the "
        "trace's scenario breaks it: the empty order forces it (a file with ops that can repair that state may "
        "need one: `run` prints it as the order block for the file you ran)\n",
        input, t.violation->invariant);
    return kExitOk;
  }
  if (v.is_on("full")) {
    std::cout << order_snippet(campaign::full_pin(t));
    return kExitOk;
  }
  const campaign::MinimalOrder m = campaign::minimal_order(t, per_check);
  if (!m.forces) {
    std::cout << order_snippet(m.order);
    std::cerr << fmt::format(
        "allocsim trace order {}: even the full pin ({}) does not force {} in every execution: "
        "fault choices (draws) decide it too, and an order cannot pin them\n",
        input, support::count_of(m.full_pin, "constraint"), t.violation->invariant);
    return kExitFailed;
  }
  std::cout << order_snippet(m.order);
  std::cerr << fmt::format("allocsim trace order {}: {} of the full pin's {} {} {} ({}, {}{})\n", input,
                           m.order.constraints.size(), support::count_of(m.full_pin, "constraint"),
                           m.order.constraints.size() == 1 ? "forces" : "force", t.violation->invariant,
                           support::count_of(m.checks, "DPOR check"), support::count_of(m.executions, "execution"),
                           m.over_budget ? fmt::format(", {} over the budget of {}: their constraints kept",
                                                       m.over_budget, per_check)
                                         : "");
  return kExitOk;
}

}  // namespace allocsim::cli
