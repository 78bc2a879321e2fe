// allocsim: the command line (DESIGN.md §7).
//
//   allocsim run SCENARIO [--seed S] [--executions N] [--max-steps K] [--mutant M]...
//   allocsim replay SCENARIO --seed E [--max-steps K] [--mutant M]...
//   allocsim list barriers|invariants|mutants|ops|strategies
//
// Exit codes: run: 0 when the scenario met its expectation, 1 when not. replay: 1 when the execution
// violates an invariant, 0 when not. All: 2 usage or input error, 3 internal error.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/harness/catalog.h"
#include "backend/harness/runner.h"
#include "backend/harness/scenario.h"
#include "backend/mutants.h"
#include "tools/allocsim/report.h"

namespace po = boost::program_options;
using namespace allocsim;

namespace {

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2, kExitInternal = 3;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kTopHelp = R"(allocsim: a deterministic concurrency simulator for the GPU allocation protocol.

usage:
  allocsim run SCENARIO [options]        explore interleavings; judge against the scenario's expect
  allocsim replay SCENARIO --seed E      re-run one execution exactly and print its trace
  allocsim list barriers|invariants|mutants|ops|strategies
  allocsim --version

Run `allocsim run --help` or `allocsim replay --help` for their options.

exit codes: 0 ok / expectation met; 1 expectation not met (run) or violation (replay);
            2 usage or input error; 3 internal error.
)";

uint64_t parse_u64(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) b += 2, base = 16;
  auto [p, ec] = std::from_chars(b, e, v, base);
  if (text.empty() || ec != std::errc() || p != e)
    throw UsageError(fmt::format("{}: expected an unsigned integer, got \"{}\"", flag, text));
  if (v < lo || v > hi) throw UsageError(fmt::format("{}: expected {} to {}, got {}", flag, lo, hi, v));
  return v;
}

struct Common {
  std::string scenario;
  std::string seed = "0";
  std::string executions = "1000";
  std::string max_steps = "10000";
  std::string strategy = "random";
  std::vector<std::string> mutants;
  bool stop_on_first = false;
};

po::options_description common_options(Common& c, bool run) {
  po::options_description d(run ? "run options" : "replay options");
  d.add_options()("help,h", "show this help");
  d.add_options()("seed", po::value(&c.seed)->default_value("0"),
                  run ? "run seed S: execution 0 uses S, execution i uses the i-th SplitMix64 output of S"
                      : "the execution seed to replay (as printed by run)");
  if (run) {
    d.add_options()("executions,n", po::value(&c.executions)->default_value("1000"), "number of executions");
    d.add_options()("strategy", po::value(&c.strategy)->default_value("random"), "scheduling strategy: random");
    d.add_options()("stop-on-first", po::bool_switch(&c.stop_on_first), "stop at the first violating execution");
  }
  d.add_options()("max-steps", po::value(&c.max_steps)->default_value("10000"),
                  "steps per execution before steps-bounded fires");
  d.add_options()("mutant", po::value(&c.mutants)->composing(),
                  "switch on a protocol mutant (repeatable; see `allocsim list mutants`)");
  return d;
}

Common parse_common(const std::string& cmd, int argc, char** argv, bool run) {
  Common c;
  po::options_description d = common_options(c, run);
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&c.scenario));
  po::options_description all;
  all.add(d).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    std::cout << fmt::format("usage: allocsim {} SCENARIO [options]\n\n", cmd) << d;
    if (run)
      std::cout << "\nexamples:\n"
                   "  allocsim run scenarios/alloc-004-simultaneous-claim.json --executions 10000\n"
                   "  allocsim run scenarios/alloc-004-simultaneous-claim.json --mutant client-side-claim\n";
    else
      std::cout << "\nexample:\n  allocsim replay scenarios/mutants/client-side-claim.json --seed 17\n";
    std::exit(kExitOk);
  }
  if (c.scenario.empty()) throw UsageError("missing SCENARIO (a scenario file, see scenarios/)");
  for (const auto& m : c.mutants)
    if (!backend::mutant_by_name(m))
      throw UsageError(fmt::format("--mutant: unknown mutant \"{}\" (see `allocsim list mutants`)", m));
  if (c.strategy != "random") throw UsageError(fmt::format("--strategy: unknown strategy \"{}\" (available: random)", c.strategy));
  return c;
}

harness::RunConfig to_config(const Common& c, bool run) {
  harness::RunConfig cfg;
  cfg.strategy = c.strategy;
  cfg.seed = parse_u64("--seed", c.seed, 0, UINT64_MAX);
  cfg.executions = run ? parse_u64("--executions", c.executions, 1, 1'000'000'000'000ull) : 1;
  cfg.max_steps = parse_u64("--max-steps", c.max_steps, 1, 100'000'000);
  cfg.mutants = c.mutants;
  cfg.stop_at_first_violation = c.stop_on_first;
  return cfg;
}

std::vector<std::string> actor_names(const harness::Scenario& sc) {
  std::vector<std::string> out;
  for (const auto& a : sc.actors) out.push_back(a.name);
  return out;
}

std::string replay_command(const Common& c, uint64_t seed, const harness::RunConfig& cfg) {
  std::string cmd = fmt::format("allocsim replay {} --seed {}", cli::shell_quote(c.scenario), seed);
  for (const auto& m : c.mutants) cmd += " --mutant " + m;
  if (cfg.max_steps != 10000) cmd += fmt::format(" --max-steps {}", cfg.max_steps);
  return cmd;
}

int cmd_run(int argc, char** argv) {
  Common c = parse_common("run", argc, argv, true);
  harness::RunConfig cfg = to_config(c, true);
  harness::Scenario sc = harness::load_scenario(c.scenario);
  const bool tty = isatty(STDERR_FILENO);
  // Wall-clock time is used for the progress line only; it never reaches a decision or stdout.
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  if (tty)
    cfg.progress = [&](uint64_t done, uint64_t violating) {
      if (done % 256 != 0 && done != cfg.executions) return;
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(200) && done != cfg.executions) return;
      last = now;
      const double secs = std::chrono::duration<double>(now - t0).count();
      const double rate = secs > 0 ? double(done) / secs : 0;
      const double eta = rate > 0 ? double(cfg.executions - done) / rate : 0;
      std::fprintf(stderr, "\r%llu/%llu executions, %.0f/s, %llu violating, ETA %.0fs   ",
                   (unsigned long long)done, (unsigned long long)cfg.executions, rate, (unsigned long long)violating, eta);
    };
  harness::ScenarioReport rep = harness::run_scenario(sc, cfg);
  if (tty) std::fprintf(stderr, "\r%*s\r", 70, "");

  std::string mut;
  for (const auto& m : c.mutants) mut += " +" + m;
  std::cout << fmt::format("allocsim run {}: {} (strategy {}, seed {}{})\n", c.scenario, sc.name, cfg.strategy,
                           cfg.seed, mut);
  std::cout << fmt::format("  {} executions, {} steps, {} violating\n", rep.summary.executions, rep.summary.steps,
                           rep.summary.violating_executions);
  for (const auto& [inv, n] : rep.summary.violations_by_invariant)
    std::cout << fmt::format("  {}: {} execution(s)\n", inv, n);
  std::cout << "outcomes:\n" << cli::outcome_table(rep);
  std::string reached;
  for (const auto& b : rep.reached) reached += (reached.empty() ? "" : ", ") + b;
  std::cout << "barriers reached: " << (reached.empty() ? "none" : reached) << "\n";
  if (rep.summary.first) {
    const auto& f = *rep.summary.first;
    std::cout << fmt::format("\nfirst violating execution: #{} (execution seed {})\n", f.index, f.seed);
    std::cout << cli::violation_report(f.result, actor_names(sc));
    std::cout << "replay: " << replay_command(c, f.seed, cfg) << "\n";
  }
  if (rep.met) {
    std::cout << (sc.expect.pass ? "\nexpectation met: no violation\n"
                                 : "\nexpectation met: the expected violation was found\n");
    return kExitOk;
  }
  std::cout << "\nexpectation NOT met:\n";
  for (const auto& u : rep.unmet) std::cout << "  - " << u << "\n";
  return kExitFailed;
}

int cmd_replay(int argc, char** argv) {
  Common c = parse_common("replay", argc, argv, false);
  harness::RunConfig cfg = to_config(c, false);
  harness::Scenario sc = harness::load_scenario(c.scenario);
  sim::ExecutionResult r = harness::replay_seed(sc, cfg, cfg.seed);
  std::cout << fmt::format("allocsim replay {} --seed {}: {} steps, {} preemptions, fingerprint {:016x}\n",
                           c.scenario, cfg.seed, r.steps.size(), r.preemptions, r.fingerprint());
  if (r.violation) {
    std::cout << cli::violation_report(r, actor_names(sc));
    return kExitFailed;
  }
  std::cout << cli::trace_table(r, actor_names(sc)) << "no violation\n";
  return kExitOk;
}

int cmd_list(int argc, char** argv) {
  if (argc != 2) throw UsageError("usage: allocsim list barriers|invariants|mutants|ops|strategies");
  const std::string what = argv[1];
  if (what == "barriers") {
    for (const auto& b : harness::barrier_catalog()) std::cout << fmt::format("{:<22} {}\n", b.name, b.description);
  } else if (what == "invariants") {
    for (const auto& i : harness::invariant_catalog())
      std::cout << fmt::format("{:<33} {}\n", i.name, i.description);
  } else if (what == "mutants") {
    for (const auto& m : backend::mutant_catalog())
      std::cout << fmt::format("{:<26} {:<10} {}\n", m.name, m.alloc_case, m.description);
  } else if (what == "ops") {
    for (const char* op : harness::op_names()) std::cout << op << "\n";
  } else if (what == "strategies") {
    std::cout << fmt::format("{:<10} {}\n", "random", "a uniformly random runnable actor at every choice (seeded)");
  } else {
    throw UsageError(fmt::format("list: unknown list \"{}\" (barriers, invariants, mutants, ops, strategies)", what));
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) {
      std::cerr << kTopHelp;
      return kExitUsage;
    }
    const std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
      std::cout << kTopHelp;
      return kExitOk;
    }
    if (cmd == "--version") {
      std::cout << "allocsim " << ALLOCSIM_VERSION << "\n";
      return kExitOk;
    }
    if (cmd == "run") return cmd_run(argc - 1, argv + 1);
    if (cmd == "replay") return cmd_replay(argc - 1, argv + 1);
    if (cmd == "list") return cmd_list(argc - 1, argv + 1);
    throw UsageError(fmt::format("unknown command \"{}\" (run, replay, list; see allocsim --help)", cmd));
  } catch (const UsageError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const harness::ScenarioError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "allocsim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
