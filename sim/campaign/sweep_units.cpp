// Unit results: combining, JSON round trip, config identity (sweep.h).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "sim/campaign/sweep.h"
#include "sim/schedule.h"

namespace allocsim::campaign {

nlohmann::json config_json(const SweepConfig& c) { return c.to_json(); }

ConfigDifference config_difference(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object()) return {"", a.dump(), b.dump()};
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  const auto text = [](const nlohmann::json& j, const std::string& k) {
    return j.contains(k) ? j.at(k).dump() : std::string("absent");
  };
  for (const std::string& k : keys)
    if (!a.contains(k) || !b.contains(k) || a.at(k) != b.at(k)) return {k, text(a, k), text(b, k)};
  return {"", a.dump(), b.dump()};
}

void combine(UnitResult& a, const UnitResult& b) {
  a.executions += b.executions;
  a.steps += b.steps;
  a.violating += b.violating;
  a.order_blocked += b.order_blocked;
  a.abandoned += b.abandoned;
  if (a.first_order_block.empty()) a.first_order_block = b.first_order_block;
  for (const auto& [k, n] : b.by_invariant) a.by_invariant[k] += n;
  if (!a.first && b.first) a.first = b.first;
  for (const auto& [actor, ops] : b.outcomes)
    for (const auto& [op, outs] : ops)
      for (const auto& [out, n] : outs) a.outcomes[actor][op][out] += n;
  for (const auto& [k, n] : b.barrier_hits) a.barrier_hits[k] += n;
  a.traces.merge(b.traces);
  a.pairs.insert(b.pairs.begin(), b.pairs.end());
  a.faults.insert(b.faults.begin(), b.faults.end());
  a.exhausted = a.exhausted && b.exhausted;
  a.complete = a.complete && b.complete;
  for (const auto& [k, n] : b.counters) a.counters[k] += n;
  a.rechecked += b.rechecked;
  a.divergent += b.divergent;
  if (!a.first_divergence && b.first_divergence) a.first_divergence = b.first_divergence;
}

nlohmann::json unit_to_json(const UnitResult& r) {
  nlohmann::json j;
  j["executions"] = r.executions;
  j["steps"] = r.steps;
  j["violating"] = r.violating;
  j["by_invariant"] = r.by_invariant;
  if (r.first) {
    nlohmann::json sched = nlohmann::json::array();
    for (const auto& c : r.first->schedule) sched.push_back(sim::format_choice(c));
    j["first"] = {{"unit", r.first->unit}, {"execution", r.first->execution}, {"seed", r.first->seed},
                  {"schedule", sched},     {"invariant", r.first->invariant}, {"message", r.first->message}};
  } else {
    j["first"] = nullptr;
  }
  j["outcomes"] = r.outcomes;
  j["barrier_hits"] = r.barrier_hits;
  // Fingerprints as fixed-width hex: JSON numbers above 2^53 do not survive every reader.
  nlohmann::json traces = nlohmann::json::array();
  for (uint64_t t : r.traces.kept()) traces.push_back(fmt::format("{:016x}", t));
  j["traces"] = traces;
  if (r.traces.level()) j["trace_sample_level"] = r.traces.level();  // absent: every distinct trace is kept
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [x, y] : r.pairs) pairs.push_back({x, y});
  j["pairs"] = pairs;
  j["exhausted"] = r.exhausted;
  j["complete"] = r.complete;
  if (!r.counters.empty()) j["counters"] = r.counters;  // only when a scenario has expectations that count
  if (r.order_blocked) j["order_blocked"] = {{"executions", r.order_blocked}, {"first", r.first_order_block}};
  if (r.abandoned) j["abandoned"] = r.abandoned;  // only the dpor reduction abandons
  if (!r.faults.empty()) j["faults"] = r.faults;  // only when a fault fired (coverage, docs/DESIGN.md §7)
  if (r.rechecked) {                              // only under --check-determinism
    j["determinism"] = {{"rechecked", r.rechecked}, {"divergent", r.divergent}, {"first", nullptr}};
    if (const auto& d = r.first_divergence)
      j["determinism"]["first"] = {{"unit", d->unit},
                                   {"execution", d->execution},
                                   {"seed", d->seed},
                                   {"where", d->where}};
  }
  return j;
}

UnitResult unit_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    UnitResult r;
    r.executions = j.at("executions").get<uint64_t>();
    r.steps = j.at("steps").get<uint64_t>();
    r.violating = j.at("violating").get<uint64_t>();
    if (j.contains("order_blocked")) {
      r.order_blocked = j.at("order_blocked").at("executions").get<uint64_t>();
      r.first_order_block = j.at("order_blocked").at("first").get<std::string>();
    }
    if (j.contains("abandoned")) r.abandoned = j.at("abandoned").get<uint64_t>();
    r.by_invariant = j.at("by_invariant").get<std::map<std::string, uint64_t>>();
    if (!j.at("first").is_null()) {
      const auto& f = j.at("first");
      FirstViolation v;
      v.unit = f.at("unit").get<uint64_t>();
      v.execution = f.at("execution").get<uint64_t>();
      v.seed = f.at("seed").get<uint64_t>();
      for (const auto& c : f.at("schedule")) v.schedule.push_back(sim::parse_choice(c.get<std::string>()));
      v.invariant = f.at("invariant").get<std::string>();
      v.message = f.at("message").get<std::string>();
      r.first = std::move(v);
    }
    r.outcomes = j.at("outcomes").get<decltype(r.outcomes)>();
    r.barrier_hits = j.at("barrier_hits").get<std::map<std::string, uint64_t>>();
    std::vector<uint64_t> traces;
    for (const auto& t : j.at("traces")) {
      const std::string s = t.get<std::string>();
      size_t used = 0;
      const uint64_t v = std::stoull(s, &used, 16);
      if (used != s.size() || s.size() != 16) throw std::invalid_argument("bad trace fingerprint \"" + s + "\"");
      traces.push_back(v);
    }
    const unsigned level = j.contains("trace_sample_level") ? j.at("trace_sample_level").get<unsigned>() : 0;
    r.traces = sim::TraceSample::from_parts(level, std::move(traces));
    for (const auto& p : j.at("pairs")) r.pairs.emplace(p.at(0).get<std::string>(), p.at(1).get<std::string>());
    r.exhausted = j.at("exhausted").get<bool>();
    r.complete = j.at("complete").get<bool>();
    if (j.contains("counters")) r.counters = j.at("counters").get<Counters>();
    if (j.contains("faults")) r.faults = j.at("faults").get<std::set<std::string>>();  // absent: none fired
    if (j.contains("determinism")) {                                                   // absent: not rechecked
      const auto& d = j.at("determinism");
      r.rechecked = d.at("rechecked").get<uint64_t>();
      r.divergent = d.at("divergent").get<uint64_t>();
      if (const auto& f = d.at("first"); !f.is_null())
        r.first_divergence = UnitDivergence{f.at("unit").get<uint64_t>(), f.at("execution").get<uint64_t>(),
                                            f.at("seed").get<uint64_t>(), f.at("where").get<std::string>()};
      if (r.divergent > r.rechecked || (r.divergent > 0) != r.first_divergence.has_value())
        throw std::invalid_argument("determinism: divergent must be at most rechecked, with a first exactly when > 0");
    }
    return r;
  } catch (const std::exception& e) {
    throw SweepInputError(fmt::format("{}: malformed unit result: {}", where, e.what()));
  }
}

}  // namespace allocsim::campaign
