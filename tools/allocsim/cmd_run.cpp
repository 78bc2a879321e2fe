// allocsim run SCENARIO: explore interleavings and judge the scenario against its expect.
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <chrono>
#include <cstdio>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "backend/invariants/invariant_table.h"
#include "backend/model/mutants.h"
#include "backend/system/backend_world.h"
#include "backend/system/record.h"
#include "backend/system/system.h"
#include "backend/world/actor_symmetry.h"
#include "sim/campaign/corpus.h"
#include "sim/campaign/run.h"
#include "sim/campaign/trace_file.h"
#include "sim/interrupt.h"
#include "sim/schedule.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"
#include "tools/allocsim/run_html.h"

namespace allocsim::cli {

using support::count_of;

namespace {

/// What the strategy adds to the summary: exhaustion and traces (exhaustive), PCT's bounds (calibrated).
void print_strategy_lines(const harness::Scenario& sc, const campaign::ExploreConfig& cfg,
                          const sim::StrategyCaps& caps, const campaign::RunReport& rep) {
  const std::string interrupted =
      rep.summary.interrupted
          ? fmt::format("  interrupted: not exhausted ({}; the results cover the {} that ran)",
                        sim::signal_name(sim::interrupt_signal()), count_of(rep.summary.executions, "execution"))
          : "";
  if (!interrupted.empty() && !caps.exhaustive) std::cout << interrupted << "\n";
  if (caps.exhaustive) {
    const bool stopped_early = cfg.stop_at_first_violation && rep.summary.first && !rep.exhausted;
    std::cout << (rep.exhausted
                      ? fmt::format("  exhaustive: all {} explored", count_of(rep.summary.executions, "execution"))
                  : !interrupted.empty() ? interrupted
                  : stopped_early        ? std::string("  stopped at the first violation (--stop-on-first)")
                                  : std::string("  stopped at the --executions limit: the tree is not exhausted"));
    std::cout << fmt::format(" (reduction {}{})\n", rep.reduction,
                             cfg.preemption_bound ? fmt::format(", preemption bound {}", *cfg.preemption_bound) : "");
    if (rep.distinct_traces) {
      // Past TraceSample's capacity the count is an estimate from a hash sample (sim/trace_sample.h).
      const unsigned level = rep.distinct_traces_sample_level;
      // Under state caching an execution is a path that reached its end: the traces among them are not the program's.
      std::cout << fmt::format("  distinct Mazurkiewicz traces{}: {}{} ({:.2f} executions per trace{}{})\n",
                               rep.states ? " among the executions (state caching cut the other paths)" : "",
                               level ? "about " : "", *rep.distinct_traces,
                               double(rep.summary.executions) / double(std::max<uint64_t>(1, *rep.distinct_traces)),
                               level
                                   ? fmt::format("; estimated from a 1-in-{} hash sample of them", uint64_t{1} << level)
                                   : "",
                               !rep.summary.abandoned ? ""
                               : rep.states           ? fmt::format("; {} abandoned unfinished, counted below",
                                                                    count_of(rep.summary.abandoned, "prefix", "prefixes"))
                                                      : fmt::format("; {} sleep-set blocked, abandoned unfinished",
                                                                    count_of(rep.summary.abandoned, "prefix", "prefixes")));
    }
    if (rep.states) {
      const sim::StateCacheStats& s = *rep.states;
      const auto size = [](size_t bytes) {
        return bytes < (size_t{1} << 20) ? fmt::format("{:.1f} KiB", double(bytes) / 1024)
                                         : fmt::format("{:.1f} MiB", double(bytes) / double(1 << 20));
      };
      std::cout << fmt::format(
          "  states: {} visited, {} stored{}; {} cut at a visited state, {} sleep-set blocked\n"
          "  state table: {} of {}{}; fingerprint collision probability {:.2g}\n",
          s.states, s.distinct, s.table_full ? "" : " (every distinct one)", count_of(s.pruned, "path"),
          count_of(s.sleep_blocked, "path"), size(s.table_bytes), size(s.table_max_bytes),
          s.table_full ? " (full: later states were explored without being stored)" : "", s.collision_probability);
      if (rep.reduction == "symmetry") {
        const harness::ActorSymmetry sym = harness::find_interchangeable(sc);
        if (!sym.classes.empty()) {
          std::cout << fmt::format(
              "  symmetry: states are taken up to renaming interchangeable actors ({} of the "
              "visited under a renaming); an actor's outcomes stand for its class's\n",
              s.renamed);
          for (const auto& cls : sym.classes) {
            std::vector<std::string> names;
            for (const sim::ActorId a : cls) names.push_back(sc.actors[a].name);
            std::cout << fmt::format("    interchangeable: {}\n", fmt::join(names, ", "));
          }
        } else {
          std::cout << "  symmetry: no interchangeable actors here (docs/DESIGN.md §2 \"Symmetry\"), so this is "
                       "--reduction states:\n";
        }
        for (const std::string& why : sym.unpaired) std::cout << "    " << why << "\n";
      }
    }
  }
  if (rep.pct) {
    const auto& p = *rep.pct;
    std::cout << fmt::format("  pct depth {}: k = {} (calibration execution), n = {}\n", p.depth,
                             count_of(p.steps, "step"), count_of(p.actors, "actor"));
    std::cout << fmt::format("  per execution, a depth-{} bug is hit with probability >= 1/(n*k^(d-1)) = {:.3g}\n",
                             p.depth, p.per_execution);
    std::cout << fmt::format(
        "  chance such a bug is still missed after {}: <= {:.3g} (fault choices are "
        "outside this bound)\n",
        count_of(rep.summary.executions, "execution"), p.miss);
    std::cout << fmt::format("  coverage: {} across actors\n", count_of(rep.pair_coverage, "ordered point pair"));
  }
}

/// What the scenario's `order` did (printed only when it has one): how many executions it blocked, and
/// whether it left a single schedule.
void print_order_lines(const harness::Scenario& sc, const campaign::RunReport& rep) {
  std::cout << fmt::format("  order: {}; {} order-blocked\n", count_of(sc.order.constraints.size(), "constraint"),
                           count_of(rep.summary.order_blocked_executions, "execution"));
  for (const size_t c : rep.order_inert) {
    const sim::OrderConstraint& oc = sc.order.constraints[c];
    // Of the executions run: a sampled run may simply not have met the step (RunReport::order_inert).
    std::cout << fmt::format("  order: constraint {} did nothing in these {}: none reached {}\n", oc.text(),
                             count_of(rep.summary.executions, "execution"), oc.after.text());
  }
  if (!rep.summary.single_schedule) return;
  // The one schedule may itself end order-blocked (a constraint whose X never comes): then no schedule
  // satisfies the order, which the run's last line explains; "leaves one schedule" would read as a pass.
  // Blocked before any step: the very first choice had no eligible actor (a cycle through the actors' own
  // order of points, which the load-time check cannot see), so "every choice had one" would be vacuous. The
  // steps the execution then ran out without the order (DESIGN.md §2) do not count as choices.
  const auto& block = rep.summary.first_order_block;
  if (rep.summary.order_blocked_executions == rep.summary.executions && block && block->step == 0)
    std::cout << "  order: no actor may take a first step, so the order leaves no schedule: stopped after one "
                 "execution\n";
  else if (rep.summary.order_blocked_executions == rep.summary.executions)
    std::cout << "  order: every choice had one eligible actor, and that one schedule ends order-blocked: stopped "
                 "after it\n";
  else
    std::cout << "  order: every choice had one eligible actor, so the order leaves one schedule: stopped after it\n";
}

/// A second run of an execution differed (`--check-determinism`).
void print_nondeterminism(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                          const campaign::RunReport& rep) {
  const auto& d = *rep.divergence;
  // An execution seed identifies the execution only where `replay --seed` reproduces it (the strategy table's
  // replays_by_seed); elsewhere it would be a number that replays something else.
  const bool by_seed = cfg.spec().caps.replays_by_seed;
  std::cout << fmt::format(
      "allocsim run {}: {}\nNONDETERMINISM: execution #{}{} ran differently "
      "the second time, from its recorded schedule ({} of {} differed)\n  {}\n",
      c.scenario, sc.name, d.index, by_seed ? fmt::format(" (execution seed {})", d.seed) : "",
      rep.divergent_executions, count_of(rep.summary.executions, "execution"), d.where.to_string());
  if (by_seed) std::cout << "replay: " << replay_command(c, d.seed, cfg) << "\n";
}

/// The run's summary: counts, violations, the strategy's lines, outcomes and barriers reached.
void print_summary(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const campaign::RunReport& rep) {
  const sim::StrategyCaps caps = cfg.spec().caps;
  std::string mut;
  for (const auto& m : c.flags.mutants()) mut += ", mutant " + m;  // its own clause: not part of the seed
  // An exhaustive strategy takes no seed (--seed is refused): none is printed for it.
  std::cout << fmt::format("allocsim run {}: {} (strategy {}{}{})\n", c.scenario, sc.name, cfg.strategy,
                           caps.seeded ? fmt::format(", seed {}", cfg.seed) : "", mut);
  std::cout << fmt::format("  {}, {}, {} violating\n", count_of(rep.summary.executions, "execution"),
                           count_of(rep.summary.steps, "step"), rep.summary.violating_executions);
  if (cfg.check_determinism)
    std::cout << fmt::format("  determinism: {} of {} re-run from their recorded schedules, identical\n",
                             rep.rechecked_executions, count_of(rep.summary.executions, "execution"));
  for (const auto& [inv, n] : rep.summary.violations_by_invariant)
    std::cout << fmt::format("  {}: {}\n", inv, count_of(n, "execution"));
  for (const std::string& note : rep.notes) std::cout << fmt::format("  note: {}\n", note);
  if (!sc.order.empty()) print_order_lines(sc, rep);
  print_strategy_lines(sc, cfg, caps, rep);
  std::cout << "outcomes:\n" << outcome_table(rep);
  std::string reached;
  for (const auto& b : rep.reached) reached += (reached.empty() ? "" : ", ") + b;
  std::cout << "barriers reached: " << (reached.empty() ? "none" : reached) << "\n";
}

/// The progress line on stderr (a terminal only). Wall-clock time paces it; it never reaches a decision or
/// stdout.
std::function<void(uint64_t, uint64_t)> progress_line(uint64_t executions) {
  const auto t0 = std::chrono::steady_clock::now();
  return [executions, t0, last = t0](uint64_t done, uint64_t violating) mutable {
    if (done % 256 != 0 && done != executions) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::milliseconds(200) && done != executions) return;
    last = now;
    const double secs = std::chrono::duration<double>(now - t0).count();
    const double rate = secs > 0 ? double(done) / secs : 0;
    const double eta = rate > 0 ? double(executions - done) / rate : 0;
    std::fprintf(stderr, "\r%llu/%llu executions, %.0f/s, %llu violating, ETA %.0fs   ", (unsigned long long)done,
                 (unsigned long long)executions, rate, (unsigned long long)violating, eta);
  };
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Common c = parse_common("run", argc, argv, true);
  check_shrink_flags(c.flags);
  campaign::ExploreConfig cfg = to_config(c, true);
  const sim::StrategyCaps caps = cfg.spec().caps;
  campaign::RunHooks hooks;
  harness::Scenario sc = harness::load_scenario(c.scenario);
  add_order_flags(sc, cfg);
  const bool tty = isatty(STDERR_FILENO);
  if (tty) hooks.progress = progress_line(cfg.executions);
  // --fingerprints: collected in memory (about 45 bytes per execution) and written in one atomic rename
  // at the end, so an interrupted or failed run never leaves a partial file that a comparison would trust.
  std::string fingerprint_lines;
  if (!c.fingerprints.empty()) {  // its directory was checked by parse_common
    hooks.on_fingerprint = [&](uint64_t index, uint64_t seed, uint64_t fp) {
      fingerprint_lines += fmt::format("{} {} {:016x}\n", index, seed, fp);
    };
  }
  std::string record_lines;  // --record: like --fingerprints, written in one atomic rename at the end
  if (!c.record.empty())
    hooks.on_execution = [&](uint64_t index, const sim::World& w, const sim::ExecutionResult& res) {
      // The worlds of a backend scenario are BackendWorlds (backend/system/backend_world.h).
      record_lines += harness::record_execution(index, static_cast<const harness::BackendWorld&>(w), res).dump() + "\n";
    };
  // The regression corpus first (trace_cli.cpp): a stored violation that still breaks counts as found on
  // execution 0 and is judged with the exploration's own (only the verdict changes; counts print as explored).
  const campaign::SubjectPtr plain = harness::subject_of(sc);
  const std::vector<campaign::EntryReplay> corpus = replay_corpus_first(c, cfg, *plain);
  campaign::RunReport rep = campaign::run(*harness::subject_of(sc), cfg, hooks);
  campaign::judge_with_corpus(corpus, *plain, rep);
  // Interrupted (sim/interrupt.h): report what ran and write the files below, but do not start a shrink the
  // user has just asked not to wait for; the raw violating execution is printed and written instead.
  if (rep.summary.interrupted) c.trace.no_shrink = true;
  if (!c.record.empty()) {
    try {
      campaign::write_file_atomically(c.record, record_lines);
    } catch (const campaign::OutputError& e) {
      throw UsageError(fmt::format("--record: {}", e.what()));
    }
  }
  if (tty) std::fprintf(stderr, "\r%*s\r", 70, "");
  if (!c.fingerprints.empty()) {
    try {
      campaign::write_file_atomically(c.fingerprints, fingerprint_lines);
    } catch (const campaign::OutputError& e) {
      throw UsageError(fmt::format("--fingerprints: {}", e.what()));
    }
  }
  if (rep.divergence) {  // nondeterminism invalidates every other result of the run: reported alone
    print_nondeterminism(c, cfg, sc, rep);
    return kExitDiverged;
  }
  print_summary(c, cfg, sc, rep);
  std::optional<campaign::Trace> shown;  // the trace printed, for --report-html
  if (rep.summary.first) {
    const auto& f = *rep.summary.first;
    // The replay lines below reproduce the execution as found; a user who replays them and sees more steps than
    // the minimal trace printed further down should know why (the shrunk trace has its own replay line).
    // The execution seed only where `replay --seed` reproduces the execution (pct's and dfs's seeds do not);
    // the fingerprint is the one its replay lines print (the minimal trace below has its own).
    std::cout << fmt::format("\nfirst violating execution: #{} ({}{} as found, fingerprint {:016x}{})\n", f.index,
                             caps.replays_by_seed ? fmt::format("execution seed {}, ", f.seed) : "",
                             count_of(f.result.steps.size(), "step"), f.result.fingerprint(),
                             c.trace.no_shrink ? "" : "; the replay lines give it unshrunk");
    // Shrinking prints the minimal trace instead; the raw execution stays one replay line away.
    if (c.trace.no_shrink) std::cout << violation_report(f.result, actor_names(sc));
    if (caps.replays_by_seed) {
      std::cout << "replay: " << replay_command(c, f.seed, cfg) << "\n";
    } else {
      // `replay --seed` re-runs a random execution; a dfs or pct execution is identified by its schedule, in the
      // form `replay --schedule` reads (sim/schedule.h).
      std::cout << "schedule: " << sim::format_schedule(f.result.schedule, actor_names(sc)) << "\n";
    }
    campaign::Trace t;
    if (const int rc = report_finding(c, cfg, sc, f, &t); rc != kExitOk) return rc;  // trace_cli.cpp
    shown = std::move(t);
  }
  if (const int rc = write_run_html(c, cfg, sc, rep, shown); rc != kExitOk) return rc;  // run_html.cpp
  if (const int rc = write_run_json(c, cfg, sc, rep); rc != kExitOk) return rc;
  if (rep.summary.interrupted) {
    // The expectation is over the whole budget (every execution, the tree exhausted): a run cut short neither
    // meets nor refutes it. What ran is summarised above; main exits 128 + the signal.
    std::cout << fmt::format("\nexpectation not judged: interrupted by {} after {} of {}\n",
                             sim::signal_name(sim::interrupt_signal()), rep.summary.executions,
                             count_of(cfg.executions, "execution"));
    for (const auto& u : rep.unmet) std::cout << "  - so far: " << u << "\n";
    return kExitFailed;
  }
  // Every execution order-blocked: the scenario's premise did not hold in any of them. Each still ran out and
  // was judged (docs/DESIGN.md §2), so what else it broke is listed with it, as sweep lists it.
  const bool unsatisfied = rep.summary.executions > 0 && rep.summary.order_blocked_executions == rep.summary.executions;
  if (unsatisfied) {
    std::cout << "\nexpectation NOT met:\n  - no execution satisfies `order`: "
              << rep.summary.first_order_block->message << "\n";
    for (const auto& u : rep.unmet) std::cout << "  - " << u << "\n";
    return kExitFailed;
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
