// The swarm's summary read back (swarm_summary_io.h).
#include "sim/campaign/swarm_summary_io.h"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "sim/campaign/coverage_report.h"
#include "sim/prng.h"

namespace allocsim::campaign::swarm_summary_io {

using support::InputError;
using support::JsonReader;

namespace {

// A summary lists every finding: more than a scenario file (checkpoints: sim/campaign/checkpoint.h).
constexpr support::TextRules kRules{size_t{1} << 30, 64, "swarm reports"};

}  // namespace

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

}  // namespace allocsim::campaign::swarm_summary_io
