// The HTML report of `allocsim run --report-html FILE` and `allocsim sweep --report-html FILE`
// (docs/DESIGN.md §7, "Report formats"): one self-contained page a person opens in a browser.
//
// What the page holds, in order:
// - a table with one row per scenario file: verdict, strategy, executions, violating executions, the
//   violations per invariant, and the unmet reasons (or the input error); a row with a violation links to
//   its section. No time column: the JSON report the rows come from holds no time.
// - per violation, a <section class="violation" id="vK" data-file=FILE data-invariant=INV>: the invariant
//   and its message, the replay command, the trace's explanation when the trace has one (the trace file's
//   optional "explanation" key: summary, racing pairs with their objects and what reversing them did, the
//   causal slice), the order block that pins it (the explanation's "order", else the trace's own "order"
//   key), and the trace as swimlanes: a grid with one column per actor
//   (<div class="lane" data-actor=ACTOR>, scenario order) and one row per step (<div class="step"
//   data-step=N data-label="ACTOR:POINT#K" id="vK-sN">, 0-based N as in the trace's "steps"), the step's
//   point and detail in its actor's lane. Steps of a racing pair carry class `race`, steps of the causal
//   slice class `slice`, and when the explanation has a slice every other step carries `dim`; the step
//   after which the invariant broke carries `last`, a preemption `preempt`. The state the invariant saw
//   before and after the last step follows in a <details>.
//
// Shapes: a trace is given as its allocsim/trace/v1 document (trace_to_text(), parsed), so keys a newer
// writer adds (an explanation) reach the page without this file knowing the Trace struct's fields. An
// explanation that is absent, or partly malformed, is rendered as far as it is well-formed (a bad step
// index is skipped), never an error: the page is a view, the trace file is the record.
// Determinism: the page is a pure function of its inputs: no date, no host, no wall clock, no address;
// every string is HTML-escaped (& < > " ') in text and attributes alike. Self-contained: inline CSS, no
// script, no external resource (no src=, no http link); in-page links are fragment links (#vK).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/sweep.h"
#include "sim/campaign/trace_file.h"

namespace allocsim::campaign {

/// One row of the page's table: a scenario file.
struct HtmlRow {
  std::string file;
  std::string verdict;  // "met" | "NOT met" | "undecided" | "input error" (also the row's CSS class)
  std::string strategy;
  uint64_t executions = 0, violating = 0;
  std::map<std::string, uint64_t> violations;  // invariant -> violating executions
  std::vector<std::string> notes;              // unmet reasons, or the input error
};

/// One violation: the scenario file, what broke, how to replay it, and its trace (null: not available,
/// the section then says so).
struct HtmlViolation {
  std::string file;
  std::string invariant, message;
  std::string replay;               // the command that replays it ("" = none)
  std::vector<std::string> actors;  // lane order (scenario order); actors only the steps name are appended
  nlohmann::json trace;             // allocsim/trace/v1 document, or null
};

struct HtmlPage {
  std::string title;                      // "allocsim sweep report" / "allocsim run report"
  std::vector<std::string> meta;          // lines under the title (tool version, config), each escaped
  std::vector<HtmlRow> rows;              // table order
  std::string totals;                     // one line under the table ("" = none)
  std::vector<HtmlViolation> violations;  // section order; a row links to the first one of its file
  /// The report's "coverage" object (docs/DESIGN.md §7 "Coverage": dimension -> {"reached": [...], "never":
  /// [...]}), or null for none: rendered after the table as <section class="coverage" id="coverage"> with a
  /// row per dimension (tr[data-dimension]), its never-reached names listed (li.never).
  nlohmann::json coverage;
};

/// The coverage section of a page (see HtmlPage::coverage); "" for null. Unknown shapes render as far as
/// they are well-formed (the page is a view).
std::string render_coverage(const nlohmann::json& coverage);

/// The page (see above). Ends in '\n'.
std::string render_html(const HtmlPage& page);

/// `s` with & < > " ' replaced by entities (text and attribute values alike).
std::string html_escape(const std::string& s);

/// The title, meta lines, rows and totals of a sweep from its JSON report (sweep_report.h, the shape
/// sweep_report_json() writes): no violations (the caller adds them with their traces).
HtmlPage html_page_of_sweep(const nlohmann::json& report);

/// A violation section for trace `t` of scenario file `file`: the trace's own violation, its actors
/// (t.scenario's, in scenario order) and its document (trace_to_text(t)).
HtmlViolation html_violation_of_trace(const std::string& file, const Trace& t, const std::string& replay);

/// Candidate runs the sweep page's shrinker may make per violation: `run`'s default budget, and no wall-clock
/// limit, so the page stays a pure function of the sweep.
inline constexpr uint64_t kHtmlShrinkRuns = 200'000;

/// The trace of a sweep's first violation of `plan`: its schedule replayed on the plan's scenario (sweeps run
/// scenarios without extra mutants) and, when `shrink_runs` > 0, shrunk and explained (shrink_to_trace,
/// minimal_trace.h: at most that many candidate runs, no time limit), as `run` shrinks the violation it prints. Tool version, path, digest,
/// strategy, seeds and max_steps come from `config` and `plan`. Throws std::runtime_error when the schedule
/// does not reproduce a violation (a bug: the sweep just found it).
Trace sweep_violation_trace(const System& system, const ScenarioPlan& plan, const FirstViolation& first,
                            const SweepConfig& config, uint64_t shrink_runs);

/// The page of a sweep: html_page_of_sweep(`report`) and, per scenario with a first violation (in report
/// order), its section with sweep_violation_trace(kHtmlShrinkRuns) and the report's replay command (of the
/// violation as found).
/// REQUIRES: `report` is sweep_report_json(results, outcomes).
std::string sweep_html(const System& system, const SweepResults& results, const std::vector<ScenarioOutcome>& outcomes,
                       const nlohmann::json& report);

}  // namespace allocsim::campaign
