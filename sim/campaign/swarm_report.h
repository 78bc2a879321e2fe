// The swarm's outputs (docs/SWARM.md; written in swarm_report.cpp, merged in swarm_merge.cpp, checkpointed in
// swarm_checkpoint.cpp, read back by swarm_summary_io.*): summary.json, the findings' files, a JUnit report, merging
// the output folders of `swarm --shard K/N`, and checkpoints. Each document is a pure function of the options
// and the report (no time, no host, no --jobs), so the same run gives the same bytes anywhere.
//
// summary.json, schema `allocsim/swarm/v1` (also what --report-json writes):
//   {"schema", "tool_version", "config": {"seed", "scenarios" (null with a budget), "budget_executions"
//    (null without), "per_scenario", "max_steps", "shrink_runs", "mutants", "until", "shard": "K/N"},
//    "scenarios", "executions", "faithful_executions" (mutant runs only), "dpor_scenarios", "dpor_exhausted",
//    "violations", "distinct", "stopped_by_until", "interrupted", "unjudged": {check: scenarios it was left
//    unjudged in (SwarmReport::unjudged); absent in summaries written before it existed, null in a run that
//    resumed or merged such a summary: not counted},
//    "findings": [{"signature", "invariant", "count", "first_index", "first_seed", "file", "trace",
//                  "from_index", "from_seed", "strategy", "actors", "ops", "steps",
//                  "also_faithful", "first_mutant_only_index" (these two in mutant runs only)}],
//    "coverage": {barriers, barrier_pairs, ops, outcomes, faults (sim/campaign/coverage_report.h), "features":
//                 {"drawn": {feature word: scenarios}, "never": [...]}}}
// (coverage: of the scenarios' explorations, not of a mutant run's faithful-port checks; a summary without
// it, written before it existed, reads as nothing reached.)
// A finding's files are DIR/<file> (the minimal scenario, expect.violation) and DIR/<trace>.
//
// JUnit (--junit): one <testcase> per distinct finding, named by its file (the signature's hash: the same
// finding has the same name night after night, so a CI dashboard tracks it as one test), classname
// `allocsim.swarm.<invariant>`, a <failure> with the signature, counts and the replay command; in a
// mutant run a finding the faithful port shares in every scenario is <skipped> (not the mutant's). Plus one
// testcase `run` that passes and says what ran, so a clean night still reports a test.
//
// Merge: the folders of shards 1/N..N/N of one run (same config but for the shard, none interrupted, no
// budget or --until: their stop rules are global) give the folder the unsharded run writes, byte for byte:
// counts add up; a signature's first index is the smallest; its kept minimal scenario is the smallest
// (ops, steps, then index), which is the one its shard kept, so its two files are copied as they are.
//
// Checkpoint (schema `allocsim/swarm-checkpoint/v1`, envelope, write and read: checkpoint.h, as a sweep's): the
// summary of the scenarios done so far, each finding's two files' text, and "generated", the digest of the
// scenarios done (generated_digest); written after every whole batch. A resume whose generator gives another
// digest is refused (a checkpoint without the key, written before it existed, is taken as it is).
// Resuming checks tool version and config (shard included; --scenarios may be larger: that extends a
// finished run, with the same result as running the larger number at once) and goes on after the last
// scenario it counts.
//
// What is read back is checked as the run wrote it, so that an edited input is bad input, never a result:
//   - each finding's files (check_finding_files): they load, name the finding, replay, and have the summary entry's
//     steps, ops, actors, strategy and generator seed; a merge reads every shard's files, not only the kept ones;
//   - the counts (a summary's or a checkpoint's): DPOR scenarios, exhausted ones and violations at most the
//     scenarios, the scenarios at most the executions, the findings' counts adding up to the violations, each count
//     at least 1, each finding's indices among the scenarios this shard counts, with their generator seeds, and no
//     signature or file listed twice; a merged shard counts its whole share of --scenarios; a checkpoint's summary
//     has the summary's schema.
//
// Errors: reading (merge, resume) throws support::InputError naming the file and the JSON pointer;
// writing throws campaign::OutputError naming the path.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/swarm.h"

namespace allocsim::campaign {

/// summary.json (see above). The generator names the coverage's universe and the features never drawn.
nlohmann::ordered_json swarm_summary(const SwarmGenerator& generator, const SwarmOptions& options,
                                     const SwarmReport& report);

/// The JUnit XML report (see above).
std::string swarm_junit(const SwarmOptions& options, const SwarmReport& report);

/// Writes DIR/<slug>.json and DIR/<slug>.trace.json for each finding, then DIR/summary.json (each file
/// atomically). The finding files an earlier DIR/summary.json names and this report does not are removed
/// first, so the folder holds this run's findings only; no other file is touched (an unreadable earlier
/// summary removes nothing).
void write_swarm(const SwarmGenerator& generator, const SwarmOptions& options, const SwarmReport& report,
                 const std::string& dir);

/// The options and report of the unsharded run, from its shards' output folders (see above). `tool_version`
/// must be the one each shard recorded.
struct SwarmMerge {
  SwarmOptions options;
  SwarmReport report;
};
SwarmMerge merge_swarm(const SwarmGenerator& generator, const std::vector<std::string>& dirs,
                       const std::string& tool_version);

/// Where a finding's file was read back: a checkpoint, at `pointer` (its /files/I/scenario or /files/I/trace text),
/// or a shard's file of its own (`pointer` empty).
struct KeptFile {
  std::string file;
  std::string pointer;
};

/// Checks the two files of finding `f` (its scenario_text and trace_text) as merge and resume read them back: the
/// scenario loads and is named `f.slug`, the trace reads, names that scenario's digest and the finding's invariant,
/// and replays against its embedded scenario step for step (swarm_finding_files.cpp). Throws support::InputError at
/// `scenario` or `trace`.
/// `entry` is where the summary lists the finding (its file, and the pointer of its entry): a size, strategy or seed
/// that is not the files' own is named there.
void check_finding_files(const System& system, const SwarmFinding& f, const KeptFile& entry, const KeptFile& scenario,
                         const KeptFile& trace);

/// Writes the checkpoint of `report` (see above) to `path`.
void write_swarm_checkpoint(const SwarmGenerator& generator, const std::string& path, const SwarmOptions& options,
                            const SwarmReport& report);

/// The report a checkpoint holds, for run_swarm to go on from. Fails when it was written by another tool
/// version or for other options (anything but `jobs`, and a larger `scenarios`), or is malformed.
/// The generator gives the digest of the scenarios it counts (generated_digest).
SwarmReport load_swarm_checkpoint(const SwarmGenerator& generator, const std::string& path,
                                  const SwarmOptions& options);

}  // namespace allocsim::campaign
