// The swarm's checkpoint (swarm_report.h, "Checkpoint"; the envelope: checkpoint.h).
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

using Json = nlohmann::ordered_json;
using support::JsonReader;

namespace {

constexpr CheckpointKind kSwarmCheckpoint{"allocsim/swarm-checkpoint/v1", "swarm", 1};

}  // namespace

void write_swarm_checkpoint(const SwarmGenerator& g, const std::string& path, const SwarmOptions& o,
                            const SwarmReport& r) {
  Json files = Json::array();
  for (const auto& f : r.findings) files.push_back({{"scenario", f.scenario_text}, {"trace", f.trace_text}});
  Json doc = new_checkpoint<Json>(kSwarmCheckpoint, o.tool_version);
  doc["summary"] = swarm_summary(g, o, r);
  doc["files"] = std::move(files);
  doc["generated"] = fmt::format("{:016x}", r.generated);
  write_checkpoint(path, kSwarmCheckpoint, doc);
}

SwarmReport load_swarm_checkpoint(const SwarmGenerator& g, const std::string& path, const SwarmOptions& o) {
  const Json doc = read_checkpoint(path, kSwarmCheckpoint, o.tool_version);
  const JsonReader rd(path);
  rd.want_object(rd.require(doc, "", "summary"), "/summary");
  const nlohmann::json summary(doc["summary"]);  // key-sorted, as the summary readers that merge shares take it
  // The same options, but --scenarios may have grown: going on past a finished run extends it.
  const nlohmann::json expected = nlohmann::json::parse(swarm_summary_io::config_json(o).dump());
  nlohmann::json written = rd.require(summary, "/summary", "config");
  rd.want_object(written, "/summary/config");
  const nlohmann::json was = written.value("scenarios", nlohmann::json()), now = expected["scenarios"];
  if (was.is_number_unsigned() && now.is_number_unsigned()) {
    if (was.get<uint64_t>() > now.get<uint64_t>())
      rd.fail("/summary/config/scenarios", fmt::format("the checkpoint ran up to {} scenarios; --scenarios {} is fewer",
                                                       was.get<uint64_t>(), now.get<uint64_t>()));
    written["scenarios"] = now;
  }
  if (written != expected)
    rd.fail("/summary/config",
            fmt::format("written for other options: {} (these: {})", summary["config"].dump(), expected.dump()));
  if (swarm_summary_io::str(rd, summary, "/summary", "schema") != swarm_summary_io::kSummarySchema)
    rd.fail("/summary/schema", fmt::format("expected \"{}\"", swarm_summary_io::kSummarySchema));
  SwarmReport r = swarm_summary_io::report_from(rd, summary, "/summary", !o.mutants.empty());
  r.interrupted = false;  // this run goes on
  // A count no run of these options can have reached is refused before any scenario is generated again: this shard's
  // share of --scenarios, or with a budget one scenario per execution at most.
  const uint64_t share = o.scenarios > o.shard_index ? (o.scenarios - o.shard_index - 1) / o.shard_count + 1 : 0;
  if (o.budget_executions == 0 && r.scenarios > share)
    rd.fail("/summary/scenarios", fmt::format("{} scenarios, more than this run has ({} of --scenarios {})",
                                              r.scenarios, share, o.scenarios));
  swarm_summary_io::check_counts(rd, "/summary", r, o);
  // Absent in checkpoints written before it existed: their scenarios are taken as this generator's.
  r.generated = generated_digest(g, o, r.scenarios);
  if (const Json* generated = JsonReader::find(doc, "generated")) {
    const std::string was = rd.string_value(*generated, "/generated");
    if (const std::string now = fmt::format("{:016x}", r.generated); was != now)
      rd.fail("/generated",
              fmt::format("the checkpoint's {} scenarios have digest {}, and this allocsim generates them with digest "
                          "{}: its generator changed since, so start the run again instead of resuming it",
                          r.scenarios, was, now));
  }
  const Json& files = rd.require(doc, "", "files");
  rd.want_size(files, "/files", r.findings.size(), r.findings.size(), "finding files (one per finding)");
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string ptr = fmt::format("/files/{}", i);
    rd.want_object(files[i], ptr);
    r.findings[i].scenario_text = rd.string_value(rd.require(files[i], ptr, "scenario"), ptr + "/scenario");
    r.findings[i].trace_text = rd.string_value(rd.require(files[i], ptr, "trace"), ptr + "/trace");
    check_finding_files(g.system(), r.findings[i], {path, fmt::format("/summary/findings/{}", i)},
                        {path, ptr + "/scenario"}, {path, ptr + "/trace"});
  }
  return r;
}

}  // namespace allocsim::campaign
