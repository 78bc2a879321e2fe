// `allocsim run --report-html FILE`: the run's page (sim/campaign/report_html.h): one table row (the
// scenario, its verdict, executions, violations, unmet reasons) and, when a violation was found, the trace
// `run` printed (the minimal one unless --no-shrink) as swimlanes, with its replay command.
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

}  // namespace allocsim::cli
