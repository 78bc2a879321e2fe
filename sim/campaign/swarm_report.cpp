#include "sim/campaign/swarm_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/campaign/checkpoint.h"
#include "sim/campaign/coverage_report.h"
#include "sim/campaign/junit.h"
#include "sim/campaign/swarm_summary_io.h"
#include "sim/campaign/sweep_report.h"
#include "sim/campaign/trace_file.h"
#include "sim/prng.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

using Json = nlohmann::ordered_json;

namespace swarm_summary_io {

Json config_json(const SwarmOptions& o) {
  return {{"seed", o.seed},
          {"scenarios", o.budget_executions > 0 ? Json(nullptr) : Json(o.scenarios)},
          {"budget_executions", o.budget_executions > 0 ? Json(o.budget_executions) : Json(nullptr)},
          {"per_scenario", o.per_scenario},
          {"max_steps", o.max_steps},
          {"shrink_runs", o.shrink_runs},
          {"mutants", o.mutants},
          {"until", o.until},
          {"shard", fmt::format("{}/{}", o.shard_index + 1, o.shard_count)}};
}

}  // namespace swarm_summary_io

namespace {

using swarm_summary_io::config_json;
using swarm_summary_io::kSummarySchema;

Json finding_json(const SwarmFinding& f, bool mutant_run) {
  Json j = {{"signature", f.signature},
            {"invariant", f.invariant},
            {"count", f.count},
            {"first_index", f.first_index},
            {"first_seed", f.first_seed},
            {"file", f.slug + ".json"},
            {"trace", f.slug + ".trace.json"},
            {"from_index", f.index},
            {"from_seed", f.seed},
            {"strategy", f.strategy},
            {"actors", f.actors},
            {"ops", f.ops},
            {"steps", f.steps}};
  if (mutant_run) {
    j["also_faithful"] = f.also_faithful;
    j["first_mutant_only_index"] = f.first_mutant_only ? Json(*f.first_mutant_only) : Json(nullptr);
  }
  return j;
}

/// "coverage" (sim/campaign/coverage_report.h) plus "features": {"drawn": {word: scenarios}, "never": [...]}.
Json coverage_of(const SwarmGenerator& g, const SwarmReport& r) {
  Json c = coverage_json(g.system().coverage_universe(), r.reach);
  Json drawn = Json::object(), never = Json::array();
  for (const std::string& w : g.feature_universe())
    if (const auto it = r.features.find(w); it != r.features.end())
      drawn[w] = it->second;
    else
      never.push_back(w);
  c["features"] = {{"drawn", drawn}, {"never", never}};
  return c;
}

}  // namespace

Json swarm_summary(const SwarmGenerator& g, const SwarmOptions& o, const SwarmReport& r) {
  const bool mutant_run = !o.mutants.empty();
  Json findings = Json::array();
  for (const auto& f : r.findings) findings.push_back(finding_json(f, mutant_run));
  Json j = {{"schema", kSummarySchema},
            {"tool_version", o.tool_version},
            {"config", config_json(o)},
            {"scenarios", r.scenarios},
            {"executions", r.executions}};
  if (mutant_run) j["faithful_executions"] = r.faithful_executions;
  j["dpor_scenarios"] = r.dpor_scenarios;
  j["dpor_exhausted"] = r.dpor_exhausted;
  j["violations"] = r.violations;
  j["distinct"] = r.findings.size();
  j["stopped_by_until"] = r.stopped_by_until;
  j["interrupted"] = r.interrupted;
  j["unjudged"] = r.unjudged_counted ? Json(r.unjudged) : Json(nullptr);
  j["findings"] = std::move(findings);
  j["coverage"] = coverage_of(g, r);
  return j;
}

std::string swarm_junit(const SwarmOptions& o, const SwarmReport& r) {
  const bool mutant_run = !o.mutants.empty();
  std::vector<JUnitCase> cases{JUnitCase::pass("allocsim.swarm", "run")};
  cases.back().system_out =
      fmt::format("{} scenarios, {} executions, {} violations, {} distinct findings{}", r.scenarios, r.executions,
                  r.violations, r.findings.size(), r.interrupted ? " (interrupted)" : "");
  for (const auto& f : r.findings) {
    std::string body = fmt::format("signature: {}\nscenarios: {} (first #{}, generator seed {})\n", f.signature,
                                   f.count, f.first_index, f.first_seed);
    if (mutant_run) body += fmt::format("also on the faithful port: {} of {}\n", f.also_faithful, f.count);
    body += fmt::format(
        "minimal: {} actors, {} ops, {} steps\nreplay (in the --out folder): allocsim replay {}.trace.json\n", f.actors,
        f.ops, f.steps, f.slug);
    const std::string classname = "allocsim.swarm." + f.invariant, name = f.slug + ".json";
    if (mutant_run && !f.first_mutant_only) {
      cases.push_back(JUnitCase::skipped(classname, name, "the faithful port violates it too"));
      cases.back().system_out = std::move(body);
    } else {
      cases.push_back(JUnitCase::failure(classname, name, f.invariant, f.signature, std::move(body)));
    }
  }
  std::string mut;
  for (const auto& m : o.mutants) mut += " +" + m;
  return junit_xml("allocsim swarm",
                   fmt::format("allocsim swarm --seed {}{} (shard {}/{})", o.seed, mut, o.shard_index + 1,
                               o.shard_count),
                   cases);
}

namespace {

/// The finding files ("x.json", never a path) that DIR/summary.json names; none when it is absent or unreadable.
std::vector<std::string> earlier_finding_files(const std::filesystem::path& d) {
  std::vector<std::string> out;
  std::ifstream in(d / "summary.json");
  if (!in) return out;
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array()) return out;
  for (const auto& f : j["findings"]) {
    if (!f.is_object() || !f.contains("file") || !f["file"].is_string()) continue;
    const std::string file = f["file"].get<std::string>();
    if (file.ends_with(".json") && file.find('/') == std::string::npos && file.find("..") == std::string::npos)
      out.push_back(file);
  }
  return out;
}

}  // namespace

void write_swarm(const SwarmGenerator& g, const SwarmOptions& o, const SwarmReport& r, const std::string& dir) {
  const std::filesystem::path d(dir);
  // A folder reused for another run must not keep the earlier run's findings beside a summary that does not
  // list them: a user (or CI) reading the folder would take them for this run's.
  for (const std::string& file : earlier_finding_files(d)) {
    const std::string slug = file.substr(0, file.size() - 5);
    if (std::any_of(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.slug == slug; })) continue;
    std::error_code ec;  // already gone is fine
    std::filesystem::remove(d / file, ec);
    std::filesystem::remove(d / (slug + ".trace.json"), ec);
  }
  for (const auto& f : r.findings) {
    write_file_atomically((d / (f.slug + ".json")).string(), f.scenario_text);
    write_file_atomically((d / (f.slug + ".trace.json")).string(), f.trace_text);
  }
  write_file_atomically((d / "summary.json").string(), swarm_summary(g, o, r).dump(2) + "\n");
}

}  // namespace allocsim::campaign
