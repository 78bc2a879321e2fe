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
#include "sim/campaign/sweep_report.h"
#include "sim/campaign/trace_file.h"
#include "sim/prng.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

namespace {

using Json = nlohmann::ordered_json;
using support::InputError;
using support::JsonReader;

constexpr const char* kSummarySchema = "allocsim/swarm/v1";
constexpr CheckpointKind kSwarmCheckpoint{"allocsim/swarm-checkpoint/v1", "swarm", 1};
// A summary lists every finding: more than a scenario file (checkpoints: sim/campaign/checkpoint.h).
constexpr support::TextRules kRules{size_t{1} << 30, 64, "swarm reports"};

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

// -- reading ------------------------------------------------------------------------------------------

/// The reached names and drawn features of a summary's "coverage" (absent in summaries written before it
/// existed: nothing reached) into `r` (coverage_report.h: the round trip that merge and resume rely on).
void coverage_from(const JsonReader& rd, const nlohmann::json& j, const std::string& ptr, SwarmReport& r) {
  if (!j.contains("coverage")) return;
  const std::string cptr = ptr + "/coverage";
  const nlohmann::json& c = j["coverage"];
  rd.want_object(c, cptr);
  for (const char* dim : {"barriers", "barrier_pairs", "ops", "outcomes", "faults"}) {
    const std::string dptr = cptr + "/" + dim;
    const nlohmann::json& d = rd.require(c, cptr, dim);
    rd.want_object(d, dptr);
    const nlohmann::json& reached = rd.require(d, dptr, "reached");
    rd.want_array(reached, dptr + "/reached");
    for (size_t i = 0; i < reached.size(); ++i) {
      const std::string iptr = fmt::format("{}/reached/{}", dptr, i);
      rd.want(reached[i], iptr, reached[i].is_string() && add_reached(r.reach, dim, reached[i].get<std::string>()),
              "a name as coverage lists it");
    }
  }
  const nlohmann::json& f = rd.require(c, cptr, "features");
  rd.want_object(f, cptr + "/features");
  const nlohmann::json& drawn = rd.require(f, cptr + "/features", "drawn");
  rd.want_object(drawn, cptr + "/features/drawn");
  for (const auto& [word, n] : drawn.items()) {
    rd.want(n, cptr + "/features/drawn/" + support::escape_token(word), n.is_number_unsigned(), "an unsigned integer");
    r.features[word] = n.get<uint64_t>();
  }
}

uint64_t u64(const JsonReader& rd, const nlohmann::json& obj, const std::string& ptr, const char* key) {
  const nlohmann::json& v = rd.require(obj, ptr, key);
  rd.want(v, ptr + "/" + key, v.is_number_unsigned(), "an unsigned integer");
  return v.get<uint64_t>();
}

std::string str(const JsonReader& rd, const nlohmann::json& obj, const std::string& ptr, const char* key) {
  return rd.string_value(rd.require(obj, ptr, key), ptr + "/" + key);
}

std::optional<uint64_t> opt_u64(const JsonReader& rd, const nlohmann::json& obj, const std::string& ptr,
                                const char* key) {
  const nlohmann::json& v = rd.require(obj, ptr, key);
  if (v.is_null()) return std::nullopt;
  return u64(rd, obj, ptr, key);
}

/// A finding entry of a summary (its files' text is the caller's to fill).
SwarmFinding finding_from(const JsonReader& rd, const nlohmann::json& j, const std::string& ptr, bool mutant_run) {
  rd.want_object(j, ptr);
  SwarmFinding f;
  f.signature = str(rd, j, ptr, "signature");
  f.invariant = str(rd, j, ptr, "invariant");
  f.count = u64(rd, j, ptr, "count");
  f.first_index = u64(rd, j, ptr, "first_index");
  f.first_seed = u64(rd, j, ptr, "first_seed");
  const std::string file = str(rd, j, ptr, "file");
  rd.want(j["file"], ptr + "/file", file.ends_with(".json") && file.find('/') == std::string::npos,
          "a file name ending in .json");
  f.slug = file.substr(0, file.size() - 5);
  rd.want(j["trace"], ptr + "/trace", str(rd, j, ptr, "trace") == f.slug + ".trace.json", "<file>.trace.json");
  f.index = u64(rd, j, ptr, "from_index");
  f.seed = u64(rd, j, ptr, "from_seed");
  f.strategy = str(rd, j, ptr, "strategy");
  f.actors = u64(rd, j, ptr, "actors");
  f.ops = u64(rd, j, ptr, "ops");
  f.steps = u64(rd, j, ptr, "steps");
  if (mutant_run) {
    f.also_faithful = u64(rd, j, ptr, "also_faithful");
    f.first_mutant_only = opt_u64(rd, j, ptr, "first_mutant_only_index");
  }
  return f;
}

/// The report a summary document (or a checkpoint's "summary") holds, without the findings' file text.
SwarmReport report_from(const JsonReader& rd, const nlohmann::json& j, const std::string& ptr, bool mutant_run) {
  rd.want_object(j, ptr);
  SwarmReport r;
  r.scenarios = u64(rd, j, ptr, "scenarios");
  r.executions = u64(rd, j, ptr, "executions");
  if (mutant_run) r.faithful_executions = u64(rd, j, ptr, "faithful_executions");
  r.dpor_scenarios = u64(rd, j, ptr, "dpor_scenarios");
  r.dpor_exhausted = u64(rd, j, ptr, "dpor_exhausted");
  r.violations = u64(rd, j, ptr, "violations");
  r.stopped_by_until = rd.bool_value(rd.require(j, ptr, "stopped_by_until"), ptr + "/stopped_by_until");
  r.interrupted = rd.bool_value(rd.require(j, ptr, "interrupted"), ptr + "/interrupted");
  // Absent in summaries written before it existed, null where such a summary was resumed or merged: not counted.
  if (!j.contains("unjudged") || j["unjudged"].is_null()) {
    r.unjudged_counted = false;
  } else {
    const std::string uptr = ptr + "/unjudged";
    rd.want_object(j["unjudged"], uptr);
    for (const auto& [check, n] : j["unjudged"].items()) {
      rd.want(n, uptr + "/" + support::escape_token(check), n.is_number_unsigned() && n.get<uint64_t>() <= r.scenarios,
              "a count of scenarios, at most \"scenarios\"");
      r.unjudged[check] = n.get<uint64_t>();
    }
  }
  const nlohmann::json& fs = rd.require(j, ptr, "findings");
  rd.want_array(fs, ptr + "/findings");
  for (size_t i = 0; i < fs.size(); ++i)
    r.findings.push_back(finding_from(rd, fs[i], fmt::format("{}/findings/{}", ptr, i), mutant_run));
  coverage_from(rd, j, ptr, r);
  return r;
}

/// What every report the swarm writes holds (swarm.cpp's merge and run_swarm), checked on one read back from a
/// summary or checkpoint at `ptr` under options `o` (its shard): the counts are within one another, each finding's
/// scenarios are among the ones counted, its seeds are theirs, and no signature or file is listed twice. An edited
/// count or finding is bad input, as an edited file is (check_finding_files).
void check_counts(const JsonReader& rd, const std::string& ptr, const SwarmReport& r, const SwarmOptions& o) {
  const auto at_most = [&](const char* key, uint64_t value, uint64_t bound, const char* what) {
    if (value > bound) rd.fail(ptr + "/" + key, fmt::format("{}, more than {} ({})", value, what, bound));
  };
  at_most("dpor_scenarios", r.dpor_scenarios, r.scenarios, "the scenarios");
  at_most("dpor_exhausted", r.dpor_exhausted, r.dpor_scenarios, "the scenarios explored by DPOR");
  at_most("violations", r.violations, r.scenarios, "the scenarios");
  // Every scenario runs at least one execution (--per-scenario is at least 1).
  at_most("scenarios", r.scenarios, r.executions, "the executions");
  // This shard's k-th scenario has index k * N + K - 1: an index of another shard, or past those counted, was never
  // run here.
  const auto counted = [&](uint64_t index) {
    return index % o.shard_count == o.shard_index && index / o.shard_count < r.scenarios;
  };
  std::map<std::string, size_t> signatures, files;
  uint64_t counts = 0;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const SwarmFinding& f = r.findings[i];
    const std::string fptr = fmt::format("{}/findings/{}", ptr, i);
    if (f.count == 0) rd.fail(fptr + "/count", "0: a finding was met in one scenario at least");
    counts += f.count;
    for (const auto& [key, index, seed] :
         {std::tuple{"first_index", f.first_index, f.first_seed}, std::tuple{"from_index", f.index, f.seed}}) {
      if (!counted(index))
        rd.fail(fptr + "/" + key,
                fmt::format("scenario #{} is not one of the {} this run counts{}", index, r.scenarios,
                            o.shard_count > 1 ? fmt::format(" (shard {}/{})", o.shard_index + 1, o.shard_count) : ""));
      if (seed != sim::execution_seed(o.seed, index))
        rd.fail(fptr + (key[0] == 'f' && key[1] == 'i' ? "/first_seed" : "/from_seed"),
                fmt::format("{} is not scenario #{}'s generator seed ({})", seed, index,
                            sim::execution_seed(o.seed, index)));
    }
    if (f.first_index > f.index)
      rd.fail(fptr + "/first_index",
              fmt::format("{}, after the scenario the finding's files come from (#{})", f.first_index, f.index));
    if (f.also_faithful > f.count)
      rd.fail(fptr + "/also_faithful", fmt::format("{}, more than the finding's count ({})", f.also_faithful, f.count));
    if (f.first_mutant_only && (!counted(*f.first_mutant_only) || *f.first_mutant_only < f.first_index))
      rd.fail(fptr + "/first_mutant_only_index",
              fmt::format("scenario #{} is not one of this finding's scenarios", *f.first_mutant_only));
    if (const auto [it, fresh] = signatures.emplace(f.signature, i); !fresh)
      rd.fail(fptr + "/signature",
              fmt::format("the signature of finding {} too: a signature is one finding", it->second));
    if (const auto [it, fresh] = files.emplace(f.slug, i); !fresh)
      rd.fail(fptr + "/file", fmt::format("the file of finding {} too", it->second));
  }
  if (counts != r.violations)
    rd.fail(ptr + "/violations", fmt::format("{}, and the findings' counts add up to {} (one finding per violating "
                                             "scenario)",
                                             r.violations, counts));
}

/// A document read strictly, with its schema and tool version checked.
nlohmann::json read_doc(const std::string& path, const char* schema, const std::string& tool_version) {
  const nlohmann::json doc = support::read_strict_json(path, kRules);
  const JsonReader rd(path);
  rd.want_object(doc, "");
  if (str(rd, doc, "", "schema") != schema) rd.fail("/schema", fmt::format("expected \"{}\"", schema));
  if (const std::string v = str(rd, doc, "", "tool_version"); v != tool_version)
    rd.fail("/tool_version", fmt::format("written by allocsim {}, this is allocsim {}", v, tool_version));
  return doc;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError::about_file(path, "cannot read the file");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// `config` as SwarmOptions; fails (naming `ptr`) unless it is what config_json() writes.
SwarmOptions options_from(const JsonReader& rd, const nlohmann::json& c, const std::string& ptr) {
  rd.want_object(c, ptr);
  SwarmOptions o;
  o.seed = u64(rd, c, ptr, "seed");
  const std::optional<uint64_t> scenarios = opt_u64(rd, c, ptr, "scenarios");
  if (!scenarios) rd.fail(ptr + "/scenarios", "a run with --budget-executions cannot be merged (its stop is global)");
  o.scenarios = *scenarios;
  o.per_scenario = u64(rd, c, ptr, "per_scenario");
  o.max_steps = u64(rd, c, ptr, "max_steps");
  o.shrink_runs = u64(rd, c, ptr, "shrink_runs");
  for (const char* key : {"mutants", "until"}) {
    const nlohmann::json& v = rd.require(c, ptr, key);
    rd.want_array(v, ptr + "/" + key);
    for (size_t i = 0; i < v.size(); ++i)
      (key[0] == 'm' ? o.mutants : o.until).push_back(rd.string_value(v[i], fmt::format("{}/{}/{}", ptr, key, i)));
  }
  const std::string shard = str(rd, c, ptr, "shard");
  unsigned long long k = 0, n = 0;
  char tail = 0;
  if (std::sscanf(shard.c_str(), "%llu/%llu%c", &k, &n, &tail) != 2 || k < 1 || k > n)
    rd.fail(ptr + "/shard", "expected K/N");
  o.shard_index = k - 1;
  o.shard_count = n;
  return o;
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
  const nlohmann::json doc = read_doc(path, kSummarySchema, tool_version);
  const JsonReader rd(path);
  Shard s{dir, options_from(rd, rd.require(doc, "", "config"), "/config"), {}, doc["config"]};
  s.config.erase("shard");
  if (!s.options.until.empty()) rd.fail("/config/until", "a run with --until cannot be merged (its stop is global)");
  s.report = report_from(rd, doc, "", !s.options.mutants.empty());
  if (s.report.interrupted) rd.fail("/interrupted", "this shard was interrupted: resume it (--resume) before merging");
  // A shard that ran to its end (not interrupted, no --until, no budget) counts its whole share of --scenarios.
  const SwarmOptions& o = s.options;
  const uint64_t share = o.scenarios > o.shard_index ? (o.scenarios - o.shard_index - 1) / o.shard_count + 1 : 0;
  if (s.report.scenarios != share)
    rd.fail("/scenarios", fmt::format("{}, and shard {}/{} of --scenarios {} runs {}", s.report.scenarios,
                                      o.shard_index + 1, o.shard_count, o.scenarios, share));
  check_counts(rd, "", s.report, s.options);
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
    f.scenario_text = slurp(scenario);
    f.trace_text = slurp(trace);
    check_finding_files(system, f, {summary, fmt::format("/findings/{}", i)}, {scenario, ""}, {trace, ""});
  }
}

/// Adds finding `f` of another shard to `k` (same signature), keeping the minimal scenario and files the unsharded
/// run keeps.
void absorb(SwarmFinding& k, const SwarmFinding& f) {
  const uint64_t count = k.count + f.count, also_faithful = k.also_faithful + f.also_faithful;
  const uint64_t first_index = std::min(k.first_index, f.first_index);
  const uint64_t first_seed = k.first_index < f.first_index ? k.first_seed : f.first_seed;
  std::optional<uint64_t> first_mutant_only = k.first_mutant_only;
  if (f.first_mutant_only && (!first_mutant_only || *f.first_mutant_only < *first_mutant_only))
    first_mutant_only = f.first_mutant_only;
  // The unsharded run keeps the smallest (ops, steps), the earliest index among equals.
  const bool replace = std::tie(f.ops, f.steps, f.index) < std::tie(k.ops, k.steps, k.index);
  if (replace) k = f;
  k.count = count;
  k.first_index = first_index;
  k.first_seed = first_seed;
  k.also_faithful = also_faithful;
  k.first_mutant_only = first_mutant_only;
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
        r.findings.push_back(f);  // with its files' text (read_shard), as absorb() keeps the other shards'
      else
        absorb(r.findings[it->second], f);
    }
  }
  // The unsharded run lists findings in the order it first met them.
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const SwarmFinding& a, const SwarmFinding& b) { return a.first_index < b.first_index; });
  return m;
}

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
  const nlohmann::json expected = nlohmann::json::parse(config_json(o).dump());
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
  if (str(rd, summary, "/summary", "schema") != kSummarySchema)
    rd.fail("/summary/schema", fmt::format("expected \"{}\"", kSummarySchema));
  SwarmReport r = report_from(rd, summary, "/summary", !o.mutants.empty());
  r.interrupted = false;  // this run goes on
  // A count no run of these options can have reached is refused before any scenario is generated again: this shard's
  // share of --scenarios, or with a budget one scenario per execution at most.
  const uint64_t share = o.scenarios > o.shard_index ? (o.scenarios - o.shard_index - 1) / o.shard_count + 1 : 0;
  if (o.budget_executions == 0 && r.scenarios > share)
    rd.fail("/summary/scenarios", fmt::format("{} scenarios, more than this run has ({} of --scenarios {})",
                                              r.scenarios, share, o.scenarios));
  check_counts(rd, "/summary", r, o);
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
