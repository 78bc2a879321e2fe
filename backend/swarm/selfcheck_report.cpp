// The self-check's report and checkpoint documents (selfcheck.h). The report is a pure function of the options
// and the scenarios run: maps are written in key order, contradictions in scenario order, kinds in
// kContradictionKinds order (every kind, zeros included, so a report says what was checked).
#include <fmt/format.h>

#include "backend/swarm/selfcheck.h"
#include "sim/campaign/checkpoint.h"
#include "sim/campaign/trace_file.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {

namespace {

using Json = nlohmann::ordered_json;
using support::JsonReader;

constexpr const char* kReportSchema = "allocsim/selfcheck-report/v1";
constexpr campaign::CheckpointKind kSelfcheckCheckpoint{"allocsim/selfcheck-checkpoint/v1", "selfcheck", 1};

Json selfcheck_config_json(const SelfcheckOptions& o) {
  return {{"seed", o.seed},
          {"scenarios", o.scenarios},
          {"per_scenario", o.per_scenario},
          {"max_steps", o.max_steps},
          {"shrink_runs", o.shrink_runs},
          {"mutants", o.mutants ? "rotate" : "none"},
          {"out", o.out},
          {"files", o.files},
          {"file_mutants", o.file_mutants}};
}

Json counts_json(const std::map<std::string, uint64_t>& m) {
  Json j = Json::object();
  for (const auto& [k, n] : m) j[k] = n;
  return j;
}

Json contradiction_json(const SelfcheckContradiction& c) {
  Json files = Json::array();
  for (const auto& [name, text] : c.c.files) files.push_back(name);
  return {{"kind", c.c.kind},
          {"index", c.index},
          {"generator_seed", c.generator_seed},
          {"mutant", c.mutant.empty() ? Json(nullptr) : Json(c.mutant)},
          {"order", c.order},
          {"strategy", c.strategy},
          {"invariant", c.invariant.empty() ? Json(nullptr) : Json(c.invariant)},
          {"repeats", c.repeats},
          {"detail", c.c.detail},
          {"replay", c.c.replay},
          {"files", files}};
}

// -- reading ----------------------------------------------------------------------------------------------

uint64_t checkpoint_u64(const JsonReader& rd, const Json& obj, const std::string& ptr, const char* key) {
  const Json& v = rd.require(obj, ptr, key);
  rd.want(v, ptr + "/" + key, v.is_number_unsigned(), "an unsigned integer");
  return v.get<uint64_t>();
}

std::string checkpoint_str(const JsonReader& rd, const Json& obj, const std::string& ptr, const char* key) {
  return rd.string_value(rd.require(obj, ptr, key), ptr + "/" + key);
}

/// A string, or "" for null.
std::string opt_str(const JsonReader& rd, const Json& obj, const std::string& ptr, const char* key) {
  const Json& v = rd.require(obj, ptr, key);
  return v.is_null() ? std::string() : rd.string_value(v, ptr + "/" + key);
}

std::map<std::string, uint64_t> counts(const JsonReader& rd, const Json& obj, const std::string& ptr, const char* key) {
  const Json& v = rd.require(obj, ptr, key);
  rd.want_object(v, ptr + "/" + key);
  std::map<std::string, uint64_t> out;
  for (const auto& [k, n] : v.items()) out[k] = checkpoint_u64(rd, v, ptr + "/" + key, k.c_str());
  return out;
}

SelfcheckContradiction contradiction_from(const JsonReader& rd, const Json& j, const Json& files,
                                          const std::string& ptr, const std::string& files_ptr) {
  rd.want_object(j, ptr);
  SelfcheckContradiction c;
  c.c.kind = checkpoint_str(rd, j, ptr, "kind");
  c.index = checkpoint_u64(rd, j, ptr, "index");
  c.generator_seed = checkpoint_u64(rd, j, ptr, "generator_seed");
  c.mutant = opt_str(rd, j, ptr, "mutant");
  c.order = rd.bool_value(rd.require(j, ptr, "order"), ptr + "/order");
  c.strategy = checkpoint_str(rd, j, ptr, "strategy");
  c.invariant = opt_str(rd, j, ptr, "invariant");
  c.repeats = checkpoint_u64(rd, j, ptr, "repeats");
  c.c.detail = checkpoint_str(rd, j, ptr, "detail");
  c.c.replay = checkpoint_str(rd, j, ptr, "replay");
  rd.want_array(files, files_ptr);
  for (size_t k = 0; k < files.size(); ++k) {
    const std::string at = fmt::format("{}/{}", files_ptr, k);
    rd.want_object(files[k], at);
    c.c.files.emplace_back(checkpoint_str(rd, files[k], at, "name"), checkpoint_str(rd, files[k], at, "text"));
  }
  return c;
}

}  // namespace

Json selfcheck_json(const SelfcheckOptions& o, const SelfcheckReport& r) {
  Json by_kind = Json::object();
  const std::map<std::string, uint64_t> kinds = r.by_kind();
  for (const char* k : campaign::kContradictionKinds) by_kind[k] = kinds.count(k) ? kinds.at(k) : 0;
  Json list = Json::array();
  for (const auto& c : r.contradictions) list.push_back(contradiction_json(c));
  return {{"schema", kReportSchema},
          {"config", selfcheck_config_json(o)},
          {"scenarios", r.scenarios},
          {"with_order", r.with_order},
          {"with_mutant", r.with_mutant},
          {"executions", r.executions},
          {"endings", counts_json(r.endings)},
          {"coverage", counts_json(r.coverage)},
          {"violations",
           {{"found", r.violations_found},
            {"checked", r.violations_checked},
            {"by_invariant", counts_json(r.checked_by_invariant)}}},
          {"checks", counts_json(r.checks)},
          {"skipped", counts_json(r.skipped)},
          {"contradictions", {{"total", r.contradiction_count()}, {"by_kind", by_kind}, {"list", list}}}};
}

void write_selfcheck_checkpoint(const std::string& path, const SelfcheckOptions& o, const SelfcheckReport& r) {
  Json files = Json::array();
  for (const auto& c : r.contradictions) {
    Json f = Json::array();
    for (const auto& [name, text] : c.c.files) f.push_back({{"name", name}, {"text", text}});
    files.push_back(std::move(f));
  }
  Json doc = campaign::new_checkpoint<Json>(kSelfcheckCheckpoint, o.tool_version);
  doc["report"] = selfcheck_json(o, r);
  doc["files"] = std::move(files);
  doc["generated"] = fmt::format("{:016x}", r.generated);
  campaign::write_checkpoint(path, kSelfcheckCheckpoint, doc);
}

SelfcheckReport load_selfcheck_checkpoint(const std::string& path, const SelfcheckOptions& o) {
  const Json doc = campaign::read_checkpoint(path, kSelfcheckCheckpoint, o.tool_version);
  const JsonReader rd(path);
  const Json& j = rd.require(doc, "", "report");
  rd.want_object(j, "/report");
  // The same options, but --scenarios may grow: going on past a finished run extends it.
  Json expected = selfcheck_config_json(o), written = rd.require(j, "/report", "config");
  rd.want_object(written, "/report/config");
  const uint64_t was = checkpoint_u64(rd, written, "/report/config", "scenarios");
  if (was > o.scenarios)
    rd.fail("/report/config/scenarios",
            fmt::format("the checkpoint ran up to {} scenarios; --scenarios {} is fewer", was, o.scenarios));
  written["scenarios"] = o.scenarios;
  // Compared as JSON values, whatever the key order (a checkpoint rewritten by another JSON tool stays the same).
  if (nlohmann::json::parse(written.dump()) != nlohmann::json::parse(expected.dump()))
    rd.fail("/report/config", fmt::format("written for other options: {} (these: {})", j["config"].dump(),
                                          selfcheck_config_json(o).dump()));
  SelfcheckReport r;
  r.scenarios = checkpoint_u64(rd, j, "/report", "scenarios");
  r.with_order = checkpoint_u64(rd, j, "/report", "with_order");
  r.with_mutant = checkpoint_u64(rd, j, "/report", "with_mutant");
  r.executions = checkpoint_u64(rd, j, "/report", "executions");
  r.endings = counts(rd, j, "/report", "endings");
  r.coverage = counts(rd, j, "/report", "coverage");
  const Json& v = rd.require(j, "/report", "violations");
  rd.want_object(v, "/report/violations");
  r.violations_found = checkpoint_u64(rd, v, "/report/violations", "found");
  r.violations_checked = checkpoint_u64(rd, v, "/report/violations", "checked");
  r.checked_by_invariant = counts(rd, v, "/report/violations", "by_invariant");
  r.checks = counts(rd, j, "/report", "checks");
  r.skipped = counts(rd, j, "/report", "skipped");
  const Json& c = rd.require(j, "/report", "contradictions");
  rd.want_object(c, "/report/contradictions");
  const Json& list = rd.require(c, "/report/contradictions", "list");
  rd.want_array(list, "/report/contradictions/list");
  const Json& files = rd.require(doc, "", "files");
  rd.want_size(files, "/files", list.size(), list.size(), "file lists (one per contradiction)");
  for (size_t k = 0; k < list.size(); ++k)
    r.contradictions.push_back(contradiction_from(rd, list[k], files[k],
                                                  fmt::format("/report/contradictions/list/{}", k),
                                                  fmt::format("/files/{}", k)));
  if (r.scenarios > o.scenarios) rd.fail("/report/scenarios", "more scenarios than the run has");
  // Absent in checkpoints written before it existed: their scenarios are taken as this run's.
  r.generated = selfcheck_generated(o, r.scenarios);
  if (JsonReader::find(doc, "generated") != nullptr) {
    const std::string was = checkpoint_str(rd, doc, "", "generated");
    if (const std::string now = fmt::format("{:016x}", r.generated); was != now)
      rd.fail("/generated", fmt::format("the checkpoint's {} scenarios have digest {}, and this run's have {}: the "
                                        "generator or the scenario files changed since, so start the run again "
                                        "instead of resuming it",
                                        r.scenarios, was, now));
  }
  return r;
}

}  // namespace allocsim::harness
