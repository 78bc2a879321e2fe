// `allocsim swarm --report-html FILE` (and `swarm merge`): the swarm's page, built with the run and sweep
// report's renderer (sim/campaign/report_html.h). One table row per distinct finding (its minimal scenario
// file, verdict "finding", the strategy that found it, the scenarios it was met in, its signature and replay
// line), the run's totals, the coverage section (summary.json's "coverage", generator features included),
// and per finding, in summary order, a section vK (K from 1) with its minimal trace as swimlanes.
// `allocsim findings diff` links a new swarm finding to that section when the page is DIR/report.html beside
// the summary (findings.h). Deterministic: a function of the options and the report.
#pragma once

#include <string>

#include "sim/campaign/swarm.h"

namespace allocsim::cli {

/// The page; `dir` is the --out folder the findings' files are in.
std::string swarm_html(const campaign::SwarmGenerator& generator, const campaign::SwarmOptions& options,
                       const campaign::SwarmReport& report, const std::string& dir);

}  // namespace allocsim::cli
