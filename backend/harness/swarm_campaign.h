// The swarm campaign (issue 15 items 2 and 3): generate scenarios from a seed (swarm_gen.h), explore each
// under a per-scenario budget of executions with a mix of strategies, shrink every violation to a minimal
// scenario and trace, and deduplicate the findings by signature.
//
// Per scenario (index i of the run; its generator seed is sim::execution_seed(run seed, i)):
//   - Knuth's estimate of its DFS tree (sim/tree_estimate.h, 4 probes, seeded): when at most the
//     per-scenario budget, exhaustive DPOR (`dfs`, reduction dpor) up to that many executions;
//   - else PCT (depth 3) for half the budget, then random for the rest, each stopping at its first violation.
//   All in executions, never in wall-clock time, so a swarm's results are the same on every machine.
// A violation is shrunk (campaign::shrink: actors, ops, fault draws, then the schedule) with a bound in
// candidate runs; the minimal scenario gets `expect.violation` and a description generated from its trace,
// and its trace is replayed strictly against that very scenario before it counts (no false alarm: a
// finding that does not replay is an internal error).
// Signature: the invariant, then the racing pair's points when the trace file carries an `explanation` with
// pairs (the agreed trace-file key), else the minimal scenario's op skeleton (each actor's op kinds in
// script order, the actors' sequences sorted) and the fault actions that fired.
//
// Determinism: the report is a function of the options except `jobs` (scenarios run in batches of `jobs`
// threads and are merged in index order; the stop rules are applied in index order).
// Errors: support::InputError for an unknown mutant; std::logic_error when a finding does not replay.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/trace_file.h"

namespace allocsim::harness {

struct SwarmOptions {
  uint64_t seed = 1;
  uint64_t scenarios = 100;          // scenarios to run (this shard's), unless budget_executions
  uint64_t budget_executions = 0;    // > 0: run scenarios until this many executions have run
  uint64_t per_scenario = 200;       // executions per scenario (all strategies together)
  uint64_t shrink_runs = 5000;       // candidate executions per shrink (deterministic bound)
  std::vector<std::string> mutants;  // switched on in every generated scenario (backend.mutants)
  std::vector<std::string> until;    // stop after the first scenario whose finding violates one of these
  unsigned jobs = 1;
  uint64_t shard_index = 0, shard_count = 1;  // this shard runs indices i with i % shard_count == shard_index
};

/// One distinct finding: the smallest minimal scenario met for its signature, and how often it was met.
struct SwarmFinding {
  std::string signature, slug, invariant;
  uint64_t count = 0;        // scenarios whose violation had this signature
  uint64_t first_index = 0;  // the first such scenario's index in the run, and its generator seed
  uint64_t first_seed = 0;
  uint64_t index = 0, seed = 0;     // the scenario the kept (smallest) minimal scenario came from
  std::string strategy;             // the strategy that found it there
  nlohmann::ordered_json scenario;  // the minimal scenario with expect.violation (the written file)
  campaign::Trace trace;            // its minimal trace, replayed against `scenario`
  size_t actors = 0, ops = 0, steps = 0;
};

struct SwarmReport {
  uint64_t scenarios = 0, executions = 0;
  uint64_t violations = 0;  // scenarios with a violation (raw findings before dedup)
  uint64_t dpor_scenarios = 0, dpor_exhausted = 0;
  bool stopped_by_until = false;
  bool interrupted = false;            // SIGINT/SIGTERM: the report covers the scenarios that finished before it
  std::vector<SwarmFinding> findings;  // in order of first_index
  /// A finding's first scenario index, for each invariant found (measurement: scenarios until found).
  std::optional<uint64_t> first_index_of(const std::string& invariant) const;
};

/// Runs the swarm. `progress` (may be empty) sees the scenarios and executions done so far.
SwarmReport run_swarm(const SwarmOptions& options, const std::function<void(const SwarmReport&)>& progress = {});

/// The generated scenario of index `index` of a run seeded `seed`, with `mutants` switched on.
nlohmann::ordered_json swarm_scenario(uint64_t seed, uint64_t index, const std::vector<std::string>& mutants);

/// summary.json: {"schema": "allocsim/swarm/v1", "config", "scenarios", "executions", "violations",
/// "distinct", "findings": [{"signature", "invariant", "count", "first_index", "first_seed", "file", "trace",
/// "actors", "ops", "steps"}]}. No wall-clock value: the same options give the same bytes.
nlohmann::ordered_json swarm_summary(const SwarmOptions& options, const SwarmReport& report);

/// Writes DIR/<slug>.json (traces carry `tool_version`, which the caller sets on report.findings[i].trace) and DIR/<slug>.trace.json for each finding, then DIR/summary.json (each file
/// atomically). Throws campaign::OutputError.
void write_swarm(const SwarmOptions& options, const SwarmReport& report, const std::string& dir);

}  // namespace allocsim::harness
