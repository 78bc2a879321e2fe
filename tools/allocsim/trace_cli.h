// The trace-file side of the command line: flags for trace output, shrinking and schedule replay, what
// `run` does with a violating execution (print the raw seed, shrink, print and write the minimal trace),
// `replay TRACE.json` and `replay SCENARIO --schedule S`; the `shrink` command (cmd_shrink.cpp) shares its
// shrink flags and trace outputs.
#pragma once

#include <boost/program_options.hpp>
#include <string>

#include "backend/scenario/scenario.h"
#include "sim/campaign/config.h"
#include "sim/campaign/corpus.h"
#include "sim/campaign/shrink.h"
#include "sim/campaign/trace_file.h"
#include "sim/divergence.h"
#include "sim/explorer.h"

namespace allocsim::cli {

struct Common;
struct FlagValues;  // flag_table.h

/// Flags of the trace work (run: --trace-out, --no-trace, --corpus, --no-corpus, --no-shrink, --perfetto, --report-html,
/// --report-json; replay: --schedule, --perfetto), read from the command's flags (trace_flags). The shrink flags
/// are read by shrink_options().
struct TraceFlags {
  std::string trace_out;    // run: where the trace goes ("" = the corpus, sim/campaign/corpus.h)
  bool no_trace = false;    // run: write no trace file
  std::string corpus;       // run: the corpus folder ("" = .allocsim/corpus beside the scenario)
  bool no_corpus = false;   // run: neither replay nor store corpus entries
  bool no_shrink = false;   // run: print and write the raw execution
  std::string perfetto;     // Chrome trace-event JSON of the printed trace
  std::string schedule;     // replay: a v1 schedule string (sim/schedule.h)
  std::string report_html;  // run: the HTML report (sim/campaign/report_html.h)
  std::string report_json;  // run: the JSON report (run_html.h)
};

/// The trace flags of `v` (run's or replay's). An empty value never gets here (parse_options refuses it).
TraceFlags trace_flags(const FlagValues& v);

/// --shrink-budget and --shrink-runs of `v` (run's or shrink's) as campaign::ShrinkOptions, with the step bound the
/// shrunk execution ran under. Throws UsageError naming the flag.
campaign::ShrinkOptions shrink_options(const FlagValues& v, std::optional<uint64_t> max_steps);

/// Checks --shrink-budget and --shrink-runs; throws UsageError naming the flag. `run` calls it before it
/// explores, so that a bad value is refused before anything runs or is written (not at shrink time).
void check_shrink_flags(const FlagValues& v);

/// After `run` found `finding`: prints the raw replay line first (unless it was already printed), shrinks
/// unless --no-shrink, prints the trace (explain_trace), writes the trace file and the Perfetto file. The
/// shrunk trace goes to --trace-out when given, else into the corpus (corpus_for(); one entry per violation,
/// never written twice); a raw trace (--no-shrink, an interrupted run) only to --trace-out.
/// Returns kExitOk, or kExitUsage when an output file cannot be written.
/// `shown`, when given, receives the trace printed (and written): the HTML report's.
int report_finding(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const sim::Finding& finding, campaign::Trace* shown = nullptr);

/// The corpus folder of `run` (--corpus, else beside the scenario), or "" with --no-corpus and, without
/// --corpus, for an installed example scenario (campaign::installed_example).
std::string corpus_for(const Common& c);

/// `run`: replays the scenario's corpus entries (none with --no-corpus) before exploring, prints them (nothing
/// when there are none) and returns them. `plain` is the scenario as loaded (the run's --mutant flags are
/// added to it).
std::vector<campaign::EntryReplay> replay_corpus_first(const Common& c, const campaign::ExploreConfig& cfg,
                                                       const campaign::Subject& plain);

/// `allocsim replay TRACE.json`: exit 1 when the violation reproduces, 0 when the trace had none and none
/// happened, 4 on divergence (printing the first differing step), 2 for an unreadable trace.
int replay_trace_file(const Common& c);

/// `allocsim replay SCENARIO --schedule S`: like --seed, with the schedule given; 4 when the schedule
/// cannot be followed.
int replay_schedule(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc);
/// --perfetto of a replayed execution `r` of `sc` (replay by seed or by schedule): writes the file and prints
/// its line. Returns kExitOk, or kExitUsage (after the message) when it cannot be written.
int write_replay_perfetto(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                          const sim::ExecutionResult& r);
/// `sc` with the `extra` mutants of the command line added to its own (each once): the scenario an execution
/// with those flags ran in.
harness::Scenario with_mutants(const harness::Scenario& sc, const std::vector<std::string>& extra);
/// Prints a replayed execution `r` of `full` after its header: the violation report, or the table and "no
/// violation", each with the actors' op outcomes and the final state (replay_epilogue.h); with `record` (the
/// --record path) also writes the execution's comparable record there. Returns the exit code: kExitFailed for
/// a violation, kExitUsage (after the message) when the record cannot be written.
int print_replayed(const campaign::Subject& full, const sim::ExecutionResult& r, uint64_t max_steps,
                   const std::string& record);

/// Prints why the replay of `what` diverged (the step, what the trace expected, what the program did) and what
/// to do about it; the caller exits with kExitDiverged.
void print_divergence(const std::string& what, const sim::Divergence& d);

/// Writes `t` to `trace_path` (when not empty; prints the path and the `replay_label` line) and as Chrome
/// trace-event JSON to `perfetto` (when not empty). Throws campaign::OutputError when a file cannot be written.
void write_outputs(const campaign::Trace& t, const std::string& trace_path, const std::string& perfetto,
                   const char* replay_label);

/// `allocsim trace explain TRACE.json [--write]`: replays the trace (exit 4 on divergence), explains it
/// (sim/campaign/explain.h) and prints it above the trace table; --write stores it in the file. Exit 0.
int cmd_trace_explain(int argc, char** argv);
/// `allocsim trace order TRACE.json [--full] [--budget N]`: the trace's violation as an `order` block
/// (campaign::minimal_order, sim/campaign/order_min.h) on stdout; exit 1 when no order forces it.
/// `allocsim trace --help` (no action) lists every trace subcommand.
int cmd_trace(int argc, char** argv);

}  // namespace allocsim::cli
