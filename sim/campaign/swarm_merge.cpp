// `allocsim swarm merge`: shards' folders into the unsharded run's (swarm_report.h, "Merge").
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "sim/campaign/checkpoint.h"
#include "sim/campaign/swarm_report.h"
#include "sim/campaign/swarm_summary_io.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

using support::InputError;
using support::JsonReader;

namespace {

/// One shard's folder, read: its options and report (findings without their files' text).
struct Shard {
  std::string dir;
  SwarmOptions options;
  SwarmReport report;
  nlohmann::json config;  // as written, without "shard"
};

Shard read_shard(const std::string& dir, const std::string& tool_version) {
  const std::string path = (std::filesystem::path(dir) / "summary.json").string();
  const nlohmann::json doc = swarm_summary_io::read_doc(path, swarm_summary_io::kSummarySchema, tool_version);
  const JsonReader rd(path);
  Shard s{dir, swarm_summary_io::options_from(rd, rd.require(doc, "", "config"), "/config"), {}, doc["config"]};
  s.config.erase("shard");
  if (!s.options.until.empty()) rd.fail("/config/until", "a run with --until cannot be merged (its stop is global)");
  s.report = swarm_summary_io::report_from(rd, doc, "", !s.options.mutants.empty());
  if (s.report.interrupted) rd.fail("/interrupted", "this shard was interrupted: resume it (--resume) before merging");
  // A shard that ran to its end (not interrupted, no --until, no budget) counts its whole share of --scenarios.
  const SwarmOptions& o = s.options;
  const uint64_t share = o.scenarios > o.shard_index ? (o.scenarios - o.shard_index - 1) / o.shard_count + 1 : 0;
  if (s.report.scenarios != share)
    rd.fail("/scenarios", fmt::format("{}, and shard {}/{} of --scenarios {} runs {}", s.report.scenarios,
                                      o.shard_index + 1, o.shard_count, o.scenarios, share));
  swarm_summary_io::check_counts(rd, "", s.report, s.options);
  return s;
}

/// Every finding's files of shard `s`, read and checked against their entries: whichever shard's copy the merge
/// keeps, each shard's summary and files agree.
void read_finding_files(const System& system, Shard& s) {
  const std::filesystem::path d(s.dir);
  const std::string summary = (d / "summary.json").string();
  for (size_t i = 0; i < s.report.findings.size(); ++i) {
    SwarmFinding& f = s.report.findings[i];
    const std::string scenario = (d / (f.slug + ".json")).string(), trace = (d / (f.slug + ".trace.json")).string();
    f.scenario_text = swarm_summary_io::slurp(scenario);
    f.trace_text = swarm_summary_io::slurp(trace);
    check_finding_files(system, f, {summary, fmt::format("/findings/{}", i)}, {scenario, ""}, {trace, ""});
  }
}

}  // namespace

SwarmMerge merge_swarm(const SwarmGenerator& g, const std::vector<std::string>& dirs, const std::string& tool_version) {
  if (dirs.empty()) throw InputError::about_file("", "no shard folders to merge");
  std::vector<Shard> shards;
  for (const auto& dir : dirs) shards.push_back(read_shard(dir, tool_version));
  const Shard& first = shards.front();
  std::vector<std::string> shard_of(first.options.shard_count);  // per shard index: the folder that ran it
  for (const Shard& s : shards) {
    const std::string path = (std::filesystem::path(s.dir) / "summary.json").string();
    if (s.config != first.config || s.options.shard_count != shard_of.size()) {
      // Name the first key that differs, either side's (the shard's N when nothing else does).
      std::string key = "shard";
      for (const nlohmann::json* side : {&first.config, &s.config})
        for (const auto& [k, v] : side->items())
          if (key == "shard" && (!first.config.contains(k) || !s.config.contains(k) || first.config[k] != s.config[k]))
            key = k;
      throw InputError(path, "/config/" + key,
                       fmt::format("not the config of {}'s run (only the shard K may differ): {} here, {} there",
                                   first.dir,
                                   key == "shard" ? fmt::format("N = {}", s.options.shard_count)
                                                  : (s.config.contains(key) ? s.config[key].dump() : "none"),
                                   key == "shard"               ? fmt::format("N = {}", shard_of.size())
                                   : first.config.contains(key) ? first.config[key].dump()
                                                                : "none"));
    }
    std::string& owner = shard_of[s.options.shard_index];
    if (!owner.empty())
      throw InputError(path, "/config/shard",
                       fmt::format("shard {}/{} again (also in {})", s.options.shard_index + 1, shard_of.size(),
                                   owner));
    owner = s.dir;
  }
  for (size_t k = 0; k < shard_of.size(); ++k)
    if (shard_of[k].empty())
      throw InputError((std::filesystem::path(first.dir) / "summary.json").string(), "/config/shard",
                       fmt::format("shard {}/{} is missing", k + 1, shard_of.size()));
  // The shards are one run's, each once: now their findings' files (the costly part, every finding replayed).
  for (Shard& s : shards) read_finding_files(g.system(), s);
  SwarmMerge m{first.options, {}};
  m.options.shard_index = 0;
  m.options.shard_count = 1;
  m.options.tool_version = tool_version;
  SwarmReport& r = m.report;
  std::map<std::string, size_t> by_signature;
  for (const Shard& s : shards) {
    r.scenarios += s.report.scenarios;
    r.executions += s.report.executions;
    r.faithful_executions += s.report.faithful_executions;
    r.dpor_scenarios += s.report.dpor_scenarios;
    r.dpor_exhausted += s.report.dpor_exhausted;
    r.violations += s.report.violations;
    for (const auto& [check, n] : s.report.unjudged) r.unjudged[check] += n;
    r.unjudged_counted &= s.report.unjudged_counted;
    r.reach.add(s.report.reach);  // coverage: the unions and sums the unsharded run has
    for (const auto& [word, n] : s.report.features) r.features[word] += n;
    for (const SwarmFinding& f : s.report.findings) {
      const auto [it, fresh] = by_signature.emplace(f.signature, r.findings.size());
      if (fresh)
        r.findings.push_back(f);  // with its files' text (read_shard), as absorb_finding() keeps the other shards'
      else
        absorb_finding(r.findings[it->second], f);
    }
  }
  // The unsharded run lists findings in the order it first met them.
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const SwarmFinding& a, const SwarmFinding& b) { return a.first_index < b.first_index; });
  return m;
}

}  // namespace allocsim::campaign
