// allocsim run's trace and corpus output, and replay of trace files and schedules; `shrink` is cmd_shrink.cpp, the
// trace subcommands (explain, order) are in cmd_trace.cpp.
#include "tools/allocsim/trace_cli.h"

#include <fmt/format.h>

#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/corpus.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/minimal_trace.h"
#include "sim/campaign/order_min.h"
#include "sim/campaign/trace_replay.h"
#include "sim/schedule.h"
#include "sim/support/json_reader.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/replay_epilogue.h"
#include "tools/allocsim/report.h"
#include "tools/allocsim/trace_report.h"

namespace allocsim::cli {

namespace po = boost::program_options;

TraceFlags trace_flags(const FlagValues& v) {
  TraceFlags f;
  f.trace_out = v.value("trace-out");
  f.no_trace = v.is_on("no-trace");
  f.corpus = v.value("corpus");
  f.no_corpus = v.is_on("no-corpus");
  f.no_shrink = v.is_on("no-shrink");
  f.perfetto = v.value("perfetto");
  f.schedule = v.value("schedule");
  f.report_html = v.value("report-html");
  f.report_json = v.value("report-json");
  return f;
}

harness::Scenario with_mutants(const harness::Scenario& sc, const std::vector<std::string>& extra) {
  harness::Scenario out = sc;
  for (const auto& m : extra)
    if (std::find(out.mutants.begin(), out.mutants.end(), m) == out.mutants.end()) out.mutants.push_back(m);
  return out;
}

campaign::ShrinkOptions shrink_options(const FlagValues& v, std::optional<uint64_t> max_steps) {
  campaign::ShrinkOptions o;
  o.max_seconds = static_cast<double>(v.count("shrink-budget"));
  o.max_runs = v.count("shrink-runs");
  o.max_steps = max_steps;
  return o;
}

void check_shrink_flags(const FlagValues& v) { (void)shrink_options(v, std::nullopt); }

void write_outputs(const campaign::Trace& t, const std::string& trace_path, const std::string& perfetto,
                   const char* replay_label) {
  if (!trace_path.empty()) {
    campaign::write_file_atomically(trace_path, campaign::trace_to_text(t));
    std::cout << fmt::format("trace written: {}\n{}: allocsim replay {}\n", trace_path, replay_label,
                             shell_quote(trace_path));
  }
  if (!perfetto.empty()) {
    campaign::write_file_atomically(perfetto, perfetto_json(t));
    std::cout << fmt::format("perfetto trace written: {} (open in ui.perfetto.dev or chrome://tracing)\n", perfetto);
  }
}

namespace {

/// Where the trace of `run` goes: --trace-out, else (a minimal trace) the corpus, under the key of the run's
/// extra mutants and, for a steps-bounded violation, its --max-steps when that is not the scenario's own
/// (campaign::entry_key, foreign_bound). Prints what it did.
void store_trace(const Common& c, const campaign::Subject& full, const campaign::ExploreConfig& cfg,
                 const campaign::Trace& t) {
  const TraceFlags& tf = c.trace;
  const char* label = tf.no_shrink ? "replay trace" : "replay minimal";
  if (tf.no_trace) {
    if (!tf.no_shrink) std::cout << "minimal trace not written (--no-trace)\n";
  } else if (!tf.trace_out.empty()) {
    write_outputs(t, tf.trace_out, "", label);
  } else if (tf.no_shrink) {
    std::cout << "trace not written (a raw trace is not kept in the corpus; --trace-out FILE writes it)\n";
  } else if (tf.no_corpus) {
    std::cout << "minimal trace not written (--no-corpus; --trace-out FILE writes it)\n";
  } else if (corpus_for(c).empty()) {  // an installed example scenario (campaign::installed_example)
    std::cout << "minimal trace not written (an installed example scenario keeps no corpus beside it; --corpus "
                 "DIR or --trace-out FILE writes it)\n";
  } else if (!t.violation) {  // the corpus keeps violations; a trace that lost its violation is none
    std::cout << "minimal trace not stored in the corpus: it records no violation (--trace-out FILE writes it)\n";
  } else {
    const std::string dir = corpus_for(c);
    campaign::Stored s;
    try {
      s = campaign::store_entry(dir, t,
                                campaign::entry_key(c.scenario, c.flags.mutants(), t.violation->invariant,
                                                    campaign::foreign_bound(full, cfg.max_steps)));
    } catch (const campaign::CorpusError& e) {
      throw campaign::OutputError(e.what());
    }
    std::cout << fmt::format("{}: {}\n{}: allocsim replay {}\n",
                             s.written ? "trace stored in the corpus" : "trace already in the corpus", s.path, label,
                             shell_quote(s.path));
  }
  write_outputs(t, "", tf.perfetto, label);
}

}  // namespace

void print_divergence(const std::string& what, const sim::Divergence& d) {
  std::cout << fmt::format("{}: replay diverged at step {} ({})\n", what, d.step, d.label);
  std::cout << fmt::format("  the trace expected: {}\n  the program did:    {}\n", d.expected, d.actual);
  std::cout << "  the scenario or the backend changed since the trace was recorded (or the program is not "
               "deterministic); record a new trace with `allocsim run`\n";
}

int report_finding(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const sim::Finding& f, campaign::Trace* shown) {
  const TraceFlags& tf = c.trace;
  const campaign::SubjectPtr full = harness::subject_of(with_mutants(sc, c.flags.mutants()));
  const uint64_t max_steps = full->max_steps(cfg.max_steps);
  std::cout << "replay by schedule: "
            << cfg.replay_line(c.scenario, {.seed = std::nullopt,
                                            .schedule = sim::format_schedule(f.result.schedule, full->actor_names())})
            << "\n";
  std::cout.flush();  // the raw execution is safe on the terminal before shrinking starts
  campaign::Trace t;
  if (tf.no_shrink) {
    t = campaign::make_trace(full, f.result, campaign::state_before_last_step(*full, f.result, max_steps));
  } else {
    const campaign::ShrinkOptions so = shrink_options(c.flags, max_steps);
    std::cout << fmt::format("\nshrinking (at most {}{})...\n", support::count_of(so.max_runs, "candidate run"),
                             so.max_seconds > 0 ? fmt::format(", {} s", so.max_seconds) : "");
    std::cout.flush();
    t = campaign::shrink_to_trace(harness::backend_system(), full, f.result, so).trace;
    std::cout << explain_trace(t);
    // The block printed above pins the violation in the minimal trace's scenario; the user pastes into the
    // file they ran, whose other actors and ops may open dead ends: check it there, and pin the raw execution
    // when it does not hold.
    if (t.explanation) {
      const campaign::Pin p = campaign::pin_violation(*full, f.result, t.explanation->order, max_steps);
      // (the file's check starts from the printed block, so a block that holds there comes back as "pairs")
      if (p.order == t.explanation->order && p.needs == t.explanation->needs &&
          (p.how == "none") == (t.explanation->pin == "none")) {
        // Say what "the same" is: no block was printed when none pins it or none is needed.
        const char* same = t.explanation->pin == "none"   ? "none pins it there either"
                           : t.explanation->order.empty() ? "none needed there either"
                                                          : "the one above";
        std::cout << fmt::format("order block for {}: {} (checked there too)\n", c.scenario, same);
      } else
        std::cout << "for the file you ran: "
                  << order_block_text(p.order, p.how, p.needs, c.scenario, !t.explanation->pairs.empty());
    }
  }
  t.tool_version = ALLOCSIM_VERSION;
  t.scenario_path = c.scenario;
  t.scenario_digest = sc.digest;
  t.strategy = cfg.strategy;
  t.seed = cfg.seed;
  if (cfg.spec().caps.replays_by_seed) t.execution_seed = f.seed;
  t.max_steps = max_steps;
  if (shown) *shown = t;
  try {
    store_trace(c, *full, cfg, t);
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

std::string corpus_for(const Common& c) {
  if (c.trace.no_corpus) return "";
  // An installed scenario's folder (a system folder, maybe read-only) gets no default corpus: README
  // "Installing". --corpus DIR still names one.
  if (c.trace.corpus.empty() && campaign::installed_example(c.scenario)) return "";
  return campaign::corpus_dir(c.scenario, c.trace.corpus);
}

std::vector<campaign::EntryReplay> replay_corpus_first(const Common& c, const campaign::ExploreConfig& cfg,
                                                       const campaign::Subject& plain) {
  const std::string dir = corpus_for(c);
  if (dir.empty()) return {};
  std::vector<campaign::EntryReplay> out;
  try {
    out = campaign::replay_corpus(harness::backend_system(), dir, plain, c.flags.mutants(), cfg.max_steps);
  } catch (const campaign::CorpusError& e) {
    throw UsageError(fmt::format("--corpus: {}", e.what()));
  }
  if (!out.empty())
    std::cout << fmt::format("{} (from {})\n", campaign::replay_summary(out), dir) << campaign::replay_lines(out, "  ")
              << "\n";
  return out;
}

int replay_trace_file(const Common& c) {
  if (!c.flags.mutants().empty())
    throw UsageError("--mutant: a trace file embeds its scenario and mutants; replay it as it is");
  // Refused rather than ignored: the trace's embedded scenario fixes its order and step limit too.
  for (const auto& [flag, what] : {std::pair{"order", "order"}, std::pair{"max-steps", "step limit"}})
    if (c.flags.given.count(flag))
      throw UsageError(
          fmt::format("--{}: a trace file embeds its scenario, its {} included; replay it as it is", flag, what));
  const campaign::Trace t = campaign::load_trace(harness::backend_system(), c.scenario);
  const campaign::TraceReplay rr = campaign::replay_trace(t);
  if (rr.divergence) {
    print_divergence(fmt::format("allocsim replay {}", c.scenario), *rr.divergence);
    return kExitDiverged;
  }
  campaign::Trace now = campaign::make_trace(t.scenario, rr.result, rr.state_before);
  now.shrink = t.shrink;
  now.explanation = t.explanation;
  std::cout << fmt::format("allocsim replay {}: {}, {}, fingerprint {}\n", shell_quote(c.scenario),
                           support::count_of(now.steps.size(), "step"),
                           support::count_of(now.preemptions, "preemption"), now.fingerprint);
  std::cout << explain_trace(now);
  try {
    write_outputs(now, "", c.trace.perfetto, "");
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return rr.result.violation ? kExitFailed : kExitOk;
}

int write_replay_perfetto(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                          const sim::ExecutionResult& r) {
  if (c.trace.perfetto.empty()) return kExitOk;
  const campaign::SubjectPtr full = harness::subject_of(with_mutants(sc, c.flags.mutants()));
  const uint64_t max_steps = full->max_steps(cfg.max_steps);
  const campaign::Trace t = campaign::make_trace(full, r, campaign::state_before_last_step(*full, r, max_steps));
  try {
    write_outputs(t, "", c.trace.perfetto, "");
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

int print_replayed(const campaign::Subject& full, const sim::ExecutionResult& r, uint64_t max_steps,
                   const std::string& record) {
  const Replayed after = replay_epilogue(full, r, max_steps, !record.empty());
  const bool write = !record.empty() && !after.record.empty();
  if (write) {
    try {
      campaign::write_file_atomically(record, after.record);
    } catch (const campaign::OutputError& e) {
      std::cerr << "allocsim: " << e.what() << "\n";
      return kExitUsage;
    }
  }
  if (r.violation)
    std::cout << violation_report(r, full.actor_names());
  else
    std::cout << trace_table(r, full.actor_names());
  std::cout << after.text;
  if (write) std::cout << fmt::format("record written: {}\n", record);
  if (!record.empty() && !write) {
    std::cerr << fmt::format("allocsim: --record {}: not written: the execution did not run the same way again\n",
                             record);
    return kExitDiverged;
  }
  if (r.violation) return kExitFailed;
  std::cout << "no violation\n";
  return kExitOk;
}

int replay_schedule(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc) {
  const campaign::SubjectPtr full = harness::subject_of(with_mutants(sc, c.flags.mutants()));
  std::vector<sim::Choice> schedule;
  try {
    schedule = sim::parse_schedule(c.trace.schedule, full->actor_names());
  } catch (const sim::ScheduleError& e) {
    throw UsageError(fmt::format("--schedule: {}", e.what()));
  }
  const uint64_t max_steps = full->max_steps(cfg.max_steps);
  const campaign::StrictReplay sr = campaign::replay_strict(*full, schedule, max_steps);
  // The header is the replay line the run printed (campaign::ExploreConfig::replay_line: quoted, with mutants,
  // --max-steps and --order), so the command part pastes back into a shell and replays this execution.
  const std::string line =
      cfg.replay_line(c.scenario, campaign::ReplayTarget{.seed = std::nullopt, .schedule = c.trace.schedule});
  const sim::ExecutionResult& r = sr.result;
  if (sr.divergence) {
    // Only the prefix that followed the schedule is this schedule's execution: the header counts it, the
    // table shows it, and nothing after the divergence is printed as if it had been replayed.
    const uint64_t step = std::min<uint64_t>(sr.divergence->step, r.steps.size());
    sim::ExecutionResult prefix;
    prefix.steps.assign(r.steps.begin(), r.steps.begin() + static_cast<std::ptrdiff_t>(step));
    std::cout << fmt::format("{}: diverged at step {} ({} replayed)\n", line, step, support::count_of(step, "step"));
    std::cout << fmt::format("  why: {}\n", sr.divergence->actual);
    if (!sc.order.empty())
      std::cout << fmt::format(
          "  the scenario has an `order` ({}): an actor it holds back is not runnable, so a schedule "
          "that breaks the order cannot be replayed\n",
          support::count_of(sc.order.constraints.size(), "constraint"));
    std::cout << "replayed prefix:\n" << trace_table(prefix, full->actor_names());
    return kExitDiverged;
  }
  std::cout << fmt::format("{}: {}, {}, fingerprint {:016x}\n", line, support::count_of(r.steps.size(), "step"),
                           support::count_of(r.preemptions, "preemption"), r.fingerprint());
  if (const int code = write_replay_perfetto(c, cfg, sc, r); code != kExitOk) return code;
  return print_replayed(*full, r, max_steps, c.record);
}

}  // namespace allocsim::cli
