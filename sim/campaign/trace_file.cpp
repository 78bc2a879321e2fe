#include "sim/campaign/trace_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/campaign/explain.h"
#include "sim/schedule.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

using Json = nlohmann::ordered_json;

TraceError::TraceError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(support::located(file, pointer, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)) {}

TraceError::TraceError(const support::InputError& e)
    : std::runtime_error(e.what()), file_(e.file()), pointer_(e.pointer()) {}

std::vector<TraceStep> label_steps(const sim::ExecutionResult& r, const std::vector<std::string>& names) {
  std::map<std::pair<sim::ActorId, std::string>, uint32_t> seen;  // ordered: no hash iteration anywhere
  std::vector<TraceStep> out;
  for (const sim::StepRecord& s : r.steps) {
    const uint32_t n = ++seen[{s.actor, std::string(s.what)}];
    out.push_back({names.at(s.actor), std::string(s.what), n, sim::to_string(s.kind), s.detail, s.preemption});
  }
  return out;
}

std::vector<TraceChoice> name_choices(const std::vector<sim::Choice>& schedule, const std::vector<std::string>& names) {
  std::vector<TraceChoice> out;
  for (const sim::Choice& c : schedule)
    out.push_back(c.kind == sim::Choice::Draw ? TraceChoice{true, "", c.value}
                                              : TraceChoice{false, names.at(c.value), 0});
  return out;
}

Trace make_trace(SubjectPtr sc, const sim::ExecutionResult& r, const std::string& state_before) {
  const std::vector<std::string> names = sc->actor_names();
  Trace t;
  t.scenario = std::move(sc);
  t.choices = name_choices(r.schedule, names);
  t.preemptions = r.preemptions;
  t.fingerprint = fmt::format("{:016x}", r.fingerprint());
  t.steps = label_steps(r, names);
  if (r.violation) {
    TraceViolation v;
    v.invariant = r.violation->invariant;
    v.message = r.violation->message;
    v.actor = r.violation_actor ? names.at(*r.violation_actor) : "";
    v.step = r.steps.empty() ? 0 : r.steps.size() - 1;
    v.state = r.violation->state;
    v.state_before = state_before;
    t.violation = std::move(v);
  }
  return t;
}

namespace {

Json opt_u64(const std::optional<uint64_t>& v) { return v ? Json(std::to_string(*v)) : Json(nullptr); }

/// The trace's choices through the one codec (sim/schedule.h). A trace read back may name actors its
/// embedded scenario lacks, so the names table is the choices' own actors, in order of first appearance.
std::string schedule_string(const std::vector<TraceChoice>& choices) {
  std::vector<std::string> names;
  std::vector<sim::Choice> schedule;
  for (const TraceChoice& c : choices) {
    if (c.draw) {
      schedule.push_back({sim::Choice::Draw, c.value});
      continue;
    }
    auto it = std::find(names.begin(), names.end(), c.actor);
    if (it == names.end()) it = names.insert(names.end(), c.actor);
    schedule.push_back({sim::Choice::Actor, static_cast<uint64_t>(it - names.begin())});
  }
  return sim::format_schedule(schedule, names);
}

}  // namespace

std::string trace_to_text(const Trace& t) {
  Json j;
  j["schema"] = kTraceSchema;
  j["tool"] = {{"name", "allocsim"}, {"version", t.tool_version}};
  j["scenario"] = {{"path", t.scenario_path}, {"digest", t.scenario_digest}, {"embedded", t.scenario->to_json()}};
  j["strategy"] = t.strategy;
  j["seed"] = opt_u64(t.seed);
  j["execution_seed"] = opt_u64(t.execution_seed);
  j["max_steps"] = t.max_steps;
  j["schedule_string"] = schedule_string(t.choices);
  Json choices = Json::array(), draws = Json::array();
  for (const TraceChoice& c : t.choices) {
    if (c.draw)
      choices.push_back({{"draw", c.value}}), draws.push_back(c.value);
    else
      choices.push_back(c.actor);
  }
  j["choices"] = std::move(choices);
  j["draws"] = std::move(draws);
  j["preemptions"] = t.preemptions;
  j["fingerprint"] = t.fingerprint;
  if (t.violation) {
    const TraceViolation& v = *t.violation;
    j["violation"] = {{"invariant", v.invariant}, {"message", v.message}, {"actor", v.actor},
                      {"step", v.step},           {"state", v.state},     {"state_before", v.state_before}};
  } else {
    j["violation"] = nullptr;
  }
  Json steps = Json::array();
  for (const TraceStep& s : t.steps)
    steps.push_back({{"actor", s.actor},
                     {"point", s.point},
                     {"occurrence", s.occurrence},
                     {"kind", s.kind},
                     {"detail", s.detail},
                     {"preemption", s.preemption}});
  j["steps"] = std::move(steps);
  if (t.shrink) {
    const ShrinkInfo& s = *t.shrink;
    j["shrink"] = {{"raw_steps", s.raw_steps},
                   {"raw_actors", s.raw_actors},
                   {"raw_ops", s.raw_ops},
                   {"raw_preemptions", s.raw_preemptions},
                   {"runs", s.runs},
                   {"budget_exhausted", s.budget_exhausted},
                   {"out_of_time", s.out_of_time},
                   {"preemptions_minimal", s.preemptions_minimal}};
  } else {
    j["shrink"] = nullptr;
  }
  // The explanation's optional keys (docs/DESIGN.md §7, "Explanations"), written only when present so that traces
  // without them keep their bytes.
  if (t.explanation) {
    j["order"] = explanation_to_json(*t.explanation)["order"];
    j["explanation"] = explanation_to_json(*t.explanation);
  }
  return j.dump(2) + "\n";
}

namespace {

using support::child;

// Typed access with errors naming the file and pointer.
class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}
  [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const { throw TraceError(file_, ptr, msg); }
  const Json& at(const Json& obj, const std::string& ptr, const char* key) const {
    if (!obj.is_object()) fail(ptr, fmt::format("expected an object, got {}", obj.type_name()));
    const auto it = obj.find(key);
    if (it == obj.end()) fail(ptr, fmt::format("missing required key \"{}\"", key));
    return *it;
  }
  std::string str(const Json& obj, const std::string& ptr, const char* key) const {
    const Json& v = at(obj, ptr, key);
    if (!v.is_string()) fail(child(ptr, key), fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  uint64_t u64(const Json& obj, const std::string& ptr, const char* key) const {
    const Json& v = at(obj, ptr, key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      fail(child(ptr, key),
           fmt::format("expected an unsigned integer, got {}", v.is_number() ? v.dump() : v.type_name()));
    return v.get<uint64_t>();
  }
  bool boolean(const Json& obj, const std::string& ptr, const char* key) const {
    const Json& v = at(obj, ptr, key);
    if (!v.is_boolean()) fail(child(ptr, key), fmt::format("expected a boolean, got {}", v.type_name()));
    return v.get<bool>();
  }
  std::optional<uint64_t> seed(const Json& obj, const std::string& ptr, const char* key) const {
    const Json& v = at(obj, ptr, key);
    if (v.is_null()) return std::nullopt;
    const std::string p = child(ptr, key);
    if (!v.is_string()) fail(p, fmt::format("expected a decimal string or null, got {}", v.type_name()));
    const std::string s = v.get<std::string>();
    uint64_t out = 0;
    if (s.empty() || s.size() > 20) fail(p, fmt::format("expected a 64-bit seed, got \"{}\"", s));
    for (char c : s) {
      if (c < '0' || c > '9') fail(p, fmt::format("expected a 64-bit seed, got \"{}\"", s));
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (out > (UINT64_MAX - d) / 10) fail(p, fmt::format("seed \"{}\" does not fit in 64 bits", s));
      out = out * 10 + d;
    }
    return out;
  }
  const Json& array(const Json& obj, const std::string& ptr, const char* key) const {
    const Json& v = at(obj, ptr, key);
    if (!v.is_array()) fail(child(ptr, key), fmt::format("expected an array, got {}", v.type_name()));
    return v;
  }

 private:
  const std::string& file_;
};

/// The steps and the shrink record of a trace document (read_document's second half).
void read_steps(const Reader& r, const Json& doc, Trace& t) {
  const Json& steps = r.array(doc, "", "steps");
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string p = child("/steps", i);
    TraceStep s;
    s.actor = r.str(steps[i], p, "actor");
    s.point = r.str(steps[i], p, "point");
    const uint64_t occ = r.u64(steps[i], p, "occurrence");
    if (occ == 0 || occ > UINT32_MAX) r.fail(child(p, "occurrence"), "expected an occurrence from 1");
    s.occurrence = static_cast<uint32_t>(occ);
    s.kind = r.str(steps[i], p, "kind");
    s.detail = r.str(steps[i], p, "detail");
    s.preemption = r.boolean(steps[i], p, "preemption");
    t.steps.push_back(std::move(s));
  }
  const Json& sh = r.at(doc, "", "shrink");
  if (!sh.is_null()) {
    ShrinkInfo s;
    s.raw_steps = r.u64(sh, "/shrink", "raw_steps");
    s.raw_actors = r.u64(sh, "/shrink", "raw_actors");
    s.raw_ops = r.u64(sh, "/shrink", "raw_ops");
    s.raw_preemptions = r.u64(sh, "/shrink", "raw_preemptions");
    s.runs = r.u64(sh, "/shrink", "runs");
    s.budget_exhausted = r.boolean(sh, "/shrink", "budget_exhausted");
    s.out_of_time = r.boolean(sh, "/shrink", "out_of_time");
    s.preemptions_minimal = r.boolean(sh, "/shrink", "preemptions_minimal");
    t.shrink = s;
  }
  // "order" is the explanation's order block again (for readers that only want the pin); it is read back
  // through "explanation", which carries it.
  if (doc.contains("explanation") && !doc["explanation"].is_null()) {
    try {
      t.explanation = explanation_from_json(doc["explanation"]);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      const size_t colon = what.find(": ");
      r.fail("/explanation" + what.substr(0, colon), colon == std::string::npos ? what : what.substr(colon + 2));
    }
  }
}

void read_document(const System& system, const Json& doc, const std::string& path, Trace& t) {
  const Reader r(path);
  if (!doc.is_object()) r.fail("", fmt::format("expected an object at the top level, got {}", doc.type_name()));
  if (r.str(doc, "", "schema") != kTraceSchema)
    r.fail("/schema", fmt::format("expected \"{}\", got \"{}\"", kTraceSchema, r.str(doc, "", "schema")));
  t.tool_version = r.str(r.at(doc, "", "tool"), "/tool", "version");
  const Json& sc = r.at(doc, "", "scenario");
  t.scenario_path = r.str(sc, "/scenario", "path");
  t.scenario_digest = r.str(sc, "/scenario", "digest");
  const Json& embedded = r.at(sc, "/scenario", "embedded");
  try {
    t.scenario = system.parse(embedded.dump(), path, t.scenario_path);
  } catch (const support::InputError& e) {
    throw TraceError(path, "/scenario/embedded" + e.pointer(), e.message());
  }
  t.strategy = r.str(doc, "", "strategy");
  t.seed = r.seed(doc, "", "seed");
  t.execution_seed = r.seed(doc, "", "execution_seed");
  t.max_steps = r.u64(doc, "", "max_steps");
  if (t.max_steps == 0 || t.max_steps > 100'000'000) r.fail("/max_steps", "expected 1 to 100000000");
  const Json& choices = r.array(doc, "", "choices");
  std::vector<uint64_t> draws_in_choices;
  for (size_t i = 0; i < choices.size(); ++i) {
    const Json& c = choices[i];
    const std::string p = child("/choices", i);
    if (c.is_string()) {
      t.choices.push_back({false, c.get<std::string>(), 0});
    } else if (c.is_object()) {
      const uint64_t v = r.u64(c, p, "draw");
      t.choices.push_back({true, "", v});
      draws_in_choices.push_back(v);
    } else {
      r.fail(p, fmt::format("expected an actor name or {{\"draw\": N}}, got {}", c.type_name()));
    }
  }
  const Json& draws = r.array(doc, "", "draws");
  std::vector<uint64_t> listed;
  for (size_t i = 0; i < draws.size(); ++i) {
    if (!draws[i].is_number_unsigned()) r.fail(child("/draws", i), "expected an unsigned integer");
    listed.push_back(draws[i].get<uint64_t>());
  }
  if (listed != draws_in_choices) r.fail("/draws", "the fault choices disagree with the draws in /choices");
  // Written from the choices, for pasting into --schedule. One that disagrees was edited by hand, and which of
  // the two the editor meant is unknown: refused, as the draws are.
  if (const Json* s = support::JsonReader::find(doc, "schedule_string")) {
    if (!s->is_string()) r.fail("/schedule_string", fmt::format("expected a string, got {}", s->type_name()));
    const std::string expected = schedule_string(t.choices);
    if (s->get<std::string>() != expected)
      r.fail("/schedule_string", fmt::format("disagrees with /choices, which give \"{}\"", expected));
  }
  t.preemptions = static_cast<uint32_t>(r.u64(doc, "", "preemptions"));
  t.fingerprint = r.str(doc, "", "fingerprint");
  const Json& v = r.at(doc, "", "violation");
  if (!v.is_null()) {
    TraceViolation tv;
    tv.invariant = r.str(v, "/violation", "invariant");
    tv.message = r.str(v, "/violation", "message");
    tv.actor = r.str(v, "/violation", "actor");
    tv.step = r.u64(v, "/violation", "step");
    tv.state = r.str(v, "/violation", "state");
    tv.state_before = r.str(v, "/violation", "state_before");
    t.violation = std::move(tv);
  }
  read_steps(r, doc, t);
}

// Traces embed a scenario (itself up to 16 levels deep) and list every step, so they are allowed more
// bytes and depth than a scenario file.
constexpr support::TextRules kTraceRules{size_t{64} << 20, 64, "trace files"};

}  // namespace

Trace parse_trace(const System& system, const std::string& text, const std::string& path) {
  Trace t;
  try {
    support::check_text(text, path, kTraceRules);
    read_document(system, support::parse_strict(text, path, kTraceRules), path, t);
  } catch (const support::InputError& e) {
    throw TraceError(e);
  } catch (const nlohmann::json::exception& e) {
    throw TraceError(support::InputError::about_file(path, fmt::format("unreadable trace: {}", e.what())));
  }
  return t;
}

Trace load_trace(const System& system, const std::string& path) {
  std::string text;
  try {
    text = support::read_text(path, kTraceRules);
  } catch (const support::InputError& e) {
    throw TraceError(e);
  }
  return parse_trace(system, text, path);
}

bool looks_like_trace(const std::string& path) {
  if (path.ends_with(".trace.json")) return true;
  try {
    const std::string text = support::read_text(path, kTraceRules);
    const Json doc = Json::parse(text, nullptr, false);
    return doc.is_object() && doc.contains("schema") && doc["schema"].is_string() &&
           doc["schema"].get<std::string>().starts_with("allocsim/trace/");
  } catch (...) {
    return false;
  }
}

}  // namespace allocsim::campaign
