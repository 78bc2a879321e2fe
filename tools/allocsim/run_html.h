// `allocsim run --report-html FILE`: the run's page (sim/campaign/report_html.h): one table row (the
// scenario, its verdict, executions, violations, unmet reasons), the coverage section (sim/campaign/coverage_report.h) and, when
// a violation was found, the trace `run` printed (the minimal one unless --no-shrink) as swimlanes, with its
// replay command.
// `allocsim run --report-json FILE`: the run's JSON report, schema allocsim/run-report/v1 (docs/DESIGN.md §7):
//   {"schema", "tool_version", "scenario": {"path", "name", "digest"}, "strategy", "seed" (seeded strategies),
//    "mutants", "executions", "steps", "violating_executions", "violations": {invariant: n},
//    "first_violation": null | {"invariant", "message", "replay"}, "outcomes", "reached", "pair_coverage",
//    "interrupted", "expectation": {"met": true|false|null (interrupted), "unmet": [...]}, "coverage",
//    exhaustive strategies: "exploration": {"reduction", "exhausted", "preemption_bound" (when bounded),
//    "abandoned_prefixes", "distinct_traces", "distinct_traces_estimated", "states" (states, symmetry),
//    "symmetry" (symmetry: "classes", "renamed", "outcomes_per_class", "unpaired")}}
// Like every report: deterministic, no time, no host; tool_version is the version, never the git commit.
#pragma once

#include <optional>

#include "backend/scenario/scenario.h"
#include "sim/campaign/report_html.h"
#include "sim/campaign/run.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

/// The page of a run (deterministic: same run, same bytes).
campaign::HtmlPage run_page(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                            const campaign::RunReport& rep, const std::optional<campaign::Trace>& shown);

/// Writes run_page() atomically to c.trace.report_html when set and says so on stdout. Returns kExitOk, or
/// kExitUsage (message on stderr) when the file cannot be written.
int write_run_html(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const campaign::RunReport& rep, const std::optional<campaign::Trace>& shown);

/// The run's JSON report (see above).
nlohmann::ordered_json run_json(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                                const campaign::RunReport& rep);

/// Writes run_json() atomically to c.trace.report_json when set and says so on stdout. Returns kExitOk, or
/// kExitUsage (message on stderr) when the file cannot be written.
int write_run_json(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const campaign::RunReport& rep);

}  // namespace allocsim::cli
