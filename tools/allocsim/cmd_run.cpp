// allocsim run SCENARIO: explore interleavings and judge the scenario against its expect.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fmt/format.h>

#include <iostream>

#include "backend/harness/catalog.h"
#include "backend/mutants.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"

namespace allocsim::cli {

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
  std::cout << "outcomes:\n" << outcome_table(rep);
  std::string reached;
  for (const auto& b : rep.reached) reached += (reached.empty() ? "" : ", ") + b;
  std::cout << "barriers reached: " << (reached.empty() ? "none" : reached) << "\n";
  if (rep.summary.first) {
    const auto& f = *rep.summary.first;
    std::cout << fmt::format("\nfirst violating execution: #{} (execution seed {})\n", f.index, f.seed);
    std::cout << violation_report(f.result, actor_names(sc));
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

}  // namespace allocsim::cli
