// Flag parsing shared by the commands.
#include <unistd.h>

#include <fmt/format.h>
#include <charconv>
#include <filesystem>

#include <iostream>

#include "backend/harness/catalog.h"
#include "backend/mutants.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"

namespace allocsim::cli {

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

po::variables_map parse_options(int argc, char** argv, const po::options_description& visible,
                                const po::options_description& hidden, const char* positional, int max) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add(positional, max);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

po::options_description common_options(Common& c, bool run) {
  po::options_description d(run ? "run options" : "replay options");
  d.add_options()("help,h", "show this help");
  d.add_options()("seed", po::value(&c.seed)->default_value("0"),
                  run ? "run seed S: execution 0 uses S, execution i uses the i-th SplitMix64 output of S"
                      : "the execution seed to replay (as printed by run)");
  if (run) {
    d.add_options()("executions,n", po::value(&c.executions)->default_value("1000"),
                    "number of executions (with dfs: an upper bound; the run says whether the tree was exhausted)");
    d.add_options()("strategy", po::value(&c.strategy)->default_value(c.strategy),
                    fmt::format("scheduling strategy: {} (see `allocsim list strategies`)", sim::strategy_names(" | "))
                        .c_str());
    d.add_options()("preemption-bound", po::value(&c.preemption_bound),
                    "dfs: only schedules with at most K preemptions, 0 first, then 1, ... (CHESS); uses plain DFS, "
                    "since DPOR under a bound is unsound (Coons et al., OOPSLA 2013)");
    d.add_options()("reduction", po::value(&c.reduction),
                    "dfs: none | dpor (source-set DPOR with sleep sets; the default when unbounded, refused with "
                    "--preemption-bound)");
    d.add_options()("depth", po::value(&c.depth)->default_value("3"),
                    "pct: bug depth d (d-1 priority change points over k steps, k from a calibration execution)");
    d.add_options()("stop-on-first", po::bool_switch(&c.stop_on_first), "stop at the first violating execution");
    d.add_options()("check-determinism", po::bool_switch(&c.check_determinism),
                    "run every execution a second time from its recorded schedule and compare the steps; a "
                    "difference exits 4 and names the first differing step");
    d.add_options()("fingerprints", po::value(&c.fingerprints),
                    "write one line per execution to FILE: index, execution seed, fingerprint (hex); the file "
                    "appears only when the run completes");
    d.add_options()("record", po::value(&c.record),
                    "write one JSON line per execution to FILE: the comparable record tools/differential/ checks "
                    "against the seed (backend/harness/record.h); the file appears only when the run completes");
  }
  d.add_options()("max-steps", po::value(&c.max_steps),
                  "steps per execution before steps-bounded fires (default: the scenario's max_steps, else 10000; "
                  "given, it overrides the scenario's)");
  d.add_options()("mutant", po::value(&c.mutants)->composing(),
                  "switch on a protocol mutant (repeatable; see `allocsim list mutants`)");
  d.add(trace_options(c.trace, run));
  return d;
}

void check_output_dir(const char* flag, const std::string& path) {
  if (path.empty()) return;
  const auto dir = std::filesystem::path(path).parent_path();
  const std::string d = dir.empty() ? "." : dir.string();
  if (!std::filesystem::is_directory(d) || ::access(d.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: directory {} does not exist or is not writable", flag, path, d));
}

Common parse_common(const std::string& cmd, int argc, char** argv, bool run) {
  Common c;
  po::options_description d = common_options(c, run);
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&c.scenario));
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "scenario", 1);
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
  check_output_dir("--trace-out", c.trace.trace_out);
  check_output_dir("--perfetto", c.trace.perfetto);
  check_output_dir("--fingerprints", c.fingerprints);
  check_output_dir("--record", c.record);
  for (const auto& m : c.mutants)
    if (!backend::mutant_by_name(m))
      throw UsageError(fmt::format("--mutant: unknown mutant \"{}\" (see `allocsim list mutants`)", m));
  to_config(c, run);  // the flags' values and the strategy's (registry) checks, before anything runs
  return c;
}

harness::RunConfig to_config(const Common& c, bool run) {
  harness::RunConfig cfg;
  cfg.strategy = c.strategy;
  if (!c.preemption_bound.empty())
    cfg.preemption_bound = static_cast<uint32_t>(parse_u64("--preemption-bound", c.preemption_bound, 0, 1000));
  cfg.reduction = c.reduction;
  cfg.pct_depth = static_cast<uint32_t>(parse_u64("--depth", c.depth, 1, 1000));
  cfg.seed = parse_u64("--seed", c.seed, 0, UINT64_MAX);
  cfg.executions = run ? parse_u64("--executions", c.executions, 1, 1'000'000'000'000ull) : 1;
  if (!c.max_steps.empty()) cfg.max_steps = parse_u64("--max-steps", c.max_steps, 1, 100'000'000);
  cfg.mutants = c.mutants;
  cfg.stop_at_first_violation = c.stop_on_first;
  cfg.check_determinism = c.check_determinism;
  try {
    cfg.validate();
  } catch (const campaign::ConfigError& e) {
    throw UsageError(e.what());
  }
  return cfg;
}

std::vector<std::string> actor_names(const harness::Scenario& sc) {
  std::vector<std::string> out;
  for (const auto& a : sc.actors) out.push_back(a.name);
  return out;
}

std::string replay_command(const Common& c, uint64_t seed, const harness::RunConfig& cfg) {
  return cfg.replay_line(c.scenario, campaign::ReplayTarget{.seed = seed, .schedule = {}});
}

}  // namespace allocsim::cli
