// Sweep reports: JSON (schema `allocsim/sweep-report/v1`), JUnit XML, and merging shard reports.
//
// The JSON report, a pure function of the scenarios and the config (no time, no host, no --jobs):
// {"schema", "tool_version", "config": config_json(),
//  "scenarios": [{"path", "name", "digest", "strategy", "reduction", "preemption_bound", "work_units",
//                 "plan", "executions", "steps", "violating_executions", "violations": {invariant: n},
//                 "order_blocked_executions" (only when some were: a scenario's `order`, sim/engine.h),
//                 "abandoned_prefixes" (only when some were: the dpor reduction's sleep-set-blocked prefixes,
//                 not executions),
//                 "distinct_traces" (dfs, dpor), "redundancy" (dfs, dpor: "executions/trace" as text, 2 decimals),
//                 "pct" (pct), "pair_coverage", "first_violation": null | {"invariant", "message",
//                 "schedule", "seed" (random), "replay"}, "exhausted" (dfs), "complete", "outcomes",
//                 "reached", "expectation": {"met": true|false|null, "unmet": [...]}}],
//  "errors": [{"path", "pointer", "message"}],       // scenario files that did not load
//  "totals": {"files", "scenarios", "met", "unmet", "undecided", "input_errors", "executions", "violating_executions"}
//  (files: every file given; scenarios: those that loaded),
//  "shards": {...}}                                   // only in shard reports and merged reports
// A shard report (--shard K/N, N > 1) has "shards": {"shard": "K/N", "units": [{"path", "unit", "result"}]}
// with its raw unit results, and judges only scenarios all of whose units it ran (others: "met": null).
// merge_reports() rebuilds the unsharded report from N of them and adds "shards": {"merged": N}: apart
// from that field it equals the report of the unsharded sweep, byte for byte.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/sweep.h"

namespace allocsim::campaign {

/// The JSON report of a sweep (see above).
nlohmann::json sweep_report_json(const SweepResults& results, const std::vector<ScenarioOutcome>& outcomes);

/// JUnit XML (junit.h): one <testcase> per scenario (a <failure> with the unmet reasons; <skipped> when
/// undecided in a shard), one per bad scenario file (an <error> naming file and pointer). No timings.
std::string junit_xml(const SweepResults& results, const std::vector<ScenarioOutcome>& outcomes);

/// Exit code of a sweep or merge: 2 when a scenario file did not load (the others still ran and are
/// reported), else 4 when an execution ran differently the second time (--check-determinism), else 1 when
/// a scenario did not meet its expectation (budget cut included), else 0.
int sweep_exit_code(const SweepResults& results, const std::vector<ScenarioOutcome>& outcomes);

/// The command that replays a first violation: `--seed` for random, `--schedule v1:...` otherwise.
std::string replay_command(const ScenarioPlan& plan, const FirstViolation& first, const SweepConfig& config);

/// A report file read strictly (sim/support/json_reader.h: UTF-8, syntax, duplicate keys). Throws
/// SweepInputError "FILE: POINTER: not a valid report: ...".
nlohmann::json read_report(const std::string& path);

/// Rebuilds the unsharded results from shard reports (name, parsed JSON): same schema, tool version,
/// config and scenario list (paths, digests, plans) in all; shards 1..N each exactly once; every unit
/// exactly once. Scenario files are re-read to judge them (their digests must match). Throws
/// SweepInputError naming the report and the field on any mismatch.
SweepResults merge_reports(const System& system, const std::vector<std::pair<std::string, nlohmann::json>>& reports);

}  // namespace allocsim::campaign
