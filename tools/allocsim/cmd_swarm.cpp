// allocsim swarm: generated scenarios (issue 15). Generates scenarios from a seed (backend/harness/swarm_gen.h),
// explores each under a budget of executions, shrinks and deduplicates the violations, and writes each distinct
// finding to --out as a scenario file with expect.violation and its minimal trace, plus summary.json
// (backend/harness/swarm_campaign.h). The budgets are counts (scenarios, executions), never seconds: the
// same flags give the same findings on any machine. Exit 0: no finding; 1: findings written; 2: usage.
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "backend/harness/catalog.h"
#include "backend/harness/swarm_campaign.h"
#include "backend/harness/swarm_gen.h"
#include "backend/mutants.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

namespace {

struct SwarmFlags {
  std::string seed = "1", scenarios, budget, per_scenario = "200", shrink_runs = "5000", jobs = "1", shard, out,
              generate;
  std::vector<std::string> mutants, until;
};

po::options_description swarm_options(SwarmFlags& f) {
  po::options_description d("swarm options");
  d.add_options()("help,h", "show this help");
  d.add_options()("seed", po::value(&f.seed)->default_value("1"),
                  "the run's seed: scenario i is generated from "
                  "execution_seed(seed, i)");
  d.add_options()("scenarios", po::value(&f.scenarios), "generate and explore this many scenarios (default 100)");
  d.add_options()("budget-executions", po::value(&f.budget),
                  "instead of --scenarios: go on until this many executions have run (deterministic)");
  d.add_options()("per-scenario", po::value(&f.per_scenario)->default_value("200"),
                  "executions per scenario: exhaustive DPOR when the estimated tree is that small, else half PCT, "
                  "half random");
  d.add_options()("shrink-runs", po::value(&f.shrink_runs)->default_value("5000"),
                  "candidate executions per shrink (the deterministic bound)");
  d.add_options()("mutant", po::value(&f.mutants)->composing(),
                  "switch this catalogue mutant on in every "
                  "scenario (repeatable; `allocsim list mutants`)");
  d.add_options()("until", po::value(&f.until)->composing(),
                  "stop after the first scenario whose finding violates this invariant (repeatable)");
  d.add_options()("jobs,j", po::value(&f.jobs)->default_value("1"), "threads (results do not depend on it)");
  d.add_options()("shard", po::value(&f.shard), "K/N: run only scenarios i with i % N == K-1");
  d.add_options()("out", po::value(&f.out), "directory for the findings and summary.json (created)");
  d.add_options()("generate", po::value(&f.generate),
                  "print the scenario generated from this generator seed (as a finding's description names it) "
                  "and exit");
  return d;
}

harness::SwarmOptions to_options(const SwarmFlags& f) {
  harness::SwarmOptions o;
  o.seed = parse_u64("--seed", f.seed, 0, UINT64_MAX);
  if (!f.scenarios.empty() && !f.budget.empty())
    throw UsageError("--scenarios and --budget-executions: give one of them");
  if (!f.scenarios.empty()) o.scenarios = parse_u64("--scenarios", f.scenarios, 1, 100'000'000);
  if (!f.budget.empty()) o.budget_executions = parse_u64("--budget-executions", f.budget, 1, 1'000'000'000'000ull);
  o.per_scenario = parse_u64("--per-scenario", f.per_scenario, 1, 100'000'000);
  o.shrink_runs = parse_u64("--shrink-runs", f.shrink_runs, 1, 1'000'000'000);
  o.jobs = static_cast<unsigned>(parse_u64("--jobs", f.jobs, 1, 256));
  for (const auto& m : f.mutants)
    if (!backend::mutant_by_name(m))
      throw UsageError(fmt::format("--mutant: unknown mutant \"{}\" (allocsim list mutants)", m));
  for (const auto& i : f.until)
    if (!harness::is_invariant(i))
      throw UsageError(fmt::format("--until: unknown invariant \"{}\" (allocsim list invariants)", i));
  o.mutants = f.mutants;
  o.until = f.until;
  if (!f.shard.empty()) {
    const size_t slash = f.shard.find('/');
    if (slash == std::string::npos) throw UsageError("--shard: expected K/N, e.g. 1/4");
    o.shard_count = parse_u64("--shard", f.shard.substr(slash + 1), 1, 1'000'000);
    o.shard_index = parse_u64("--shard", f.shard.substr(0, slash), 1, o.shard_count) - 1;
  }
  return o;
}

void print_summary(const harness::SwarmOptions& o, const harness::SwarmReport& r, const std::string& out) {
  std::string mut;
  for (const auto& m : o.mutants) mut += " +" + m;
  std::cout << fmt::format("allocsim swarm --seed {}{}: {} scenarios ({} by DPOR, {} exhausted), {} executions\n",
                           o.seed, mut, r.scenarios, r.dpor_scenarios, r.dpor_exhausted, r.executions);
  std::cout << fmt::format("  {} scenarios violated an invariant; {} distinct findings (dedup {:.1f}:1)\n",
                           r.violations, r.findings.size(),
                           r.findings.empty() ? 0.0 : double(r.violations) / double(r.findings.size()));
  if (r.stopped_by_until) std::cout << "  stopped: --until invariant found\n";
  if (r.interrupted) std::cout << "  interrupted: the findings cover the scenarios that ran\n";
  if (r.findings.empty()) return;
  std::cout << fmt::format("\n{:>5}  {:>11}  {:>6}  {:<44}  {}\n", "count", "first(#i)", "ops", "file", "signature");
  for (const auto& f : r.findings)
    std::cout << fmt::format("{:>5}  {:>11}  {:>6}  {:<44}  {}\n", f.count, fmt::format("#{}", f.first_index), f.ops,
                             f.slug + ".json", f.signature);
  std::cout << fmt::format("\nwritten: {}/<file> and its .trace.json, {}/summary.json\n", out, out);
  std::cout << fmt::format("replay one: allocsim replay {}/{}.trace.json\n", out, r.findings.front().slug);
}

}  // namespace

int cmd_swarm(int argc, char** argv) {
  SwarmFlags f;
  const po::options_description d = swarm_options(f);
  std::vector<std::string> positional;  // none accepted
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positional));
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "positional", 0);
  if (vm.count("help")) {
    std::cout << "usage: allocsim swarm [--seed S] [--scenarios N | --budget-executions E] [--mutant M]... "
                 "[--jobs K] [--shard K/N] --out DIR\n       allocsim swarm --generate SEED\n\n"
              << d;
    return kExitOk;
  }
  if (!f.generate.empty()) {
    std::cout << harness::generate_scenario(parse_u64("--generate", f.generate, 0, UINT64_MAX)).dump(2) << "\n";
    return kExitOk;
  }
  const harness::SwarmOptions o = to_options(f);
  if (f.out.empty()) throw UsageError("--out: missing (the directory for findings and summary.json)");
  std::error_code ec;
  std::filesystem::create_directories(f.out, ec);
  if (ec) throw UsageError(fmt::format("--out: cannot create {}: {}", f.out, ec.message()));
  check_output_dir("--out", (std::filesystem::path(f.out) / "summary.json").string());
  // Wall clock only for the rate line on stderr; it decides nothing and reaches no file.
  const auto t0 = std::chrono::steady_clock::now();
  const bool tty = isatty(STDERR_FILENO);
  harness::SwarmReport r = harness::run_swarm(o, [&](const harness::SwarmReport& now) {
    if (!tty) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "\rswarm: %llu scenarios, %llu executions, %zu findings, %.1f scenarios/s   ",
                 (unsigned long long)now.scenarios, (unsigned long long)now.executions, now.findings.size(),
                 s > 0 ? double(now.scenarios) / s : 0.0);
  });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "%sswarm: %llu scenarios, %llu executions in %.1f s: %.2f scenarios/s, %.0f executions/s\n",
               tty ? "\r" : "", (unsigned long long)r.scenarios, (unsigned long long)r.executions, secs,
               secs > 0 ? double(r.scenarios) / secs : 0.0, secs > 0 ? double(r.executions) / secs : 0.0);
  for (auto& fi : r.findings) fi.trace.tool_version = ALLOCSIM_VERSION;
  try {
    harness::write_swarm(o, r, f.out);
  } catch (const campaign::OutputError& e) {
    throw UsageError(fmt::format("--out: {}", e.what()));
  }
  print_summary(o, r, f.out);
  return r.findings.empty() ? kExitOk : kExitFailed;
}

}  // namespace allocsim::cli
