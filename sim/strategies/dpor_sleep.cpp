#include "sim/strategies/dpor_sleep.h"

#include <algorithm>

namespace allocsim::sim {

namespace {

bool starts_with(const Combo& c, const Combo& prefix) {
  return c.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), c.begin());
}

}  // namespace

bool covered(const std::vector<SleepEntry>& sleep, ActorId actor, const Combo& prefix) {
  uint64_t bound = 0;  // of the draw after `prefix`, when some entry goes on past it
  for (const SleepEntry& e : sleep) {
    if (e.actor != actor) continue;
    if (e.any || e.draws == prefix) return true;
    if (e.draws.size() > prefix.size() && starts_with(e.draws, prefix)) bound = e.draws[prefix.size()].bound;
  }
  if (bound == 0) return false;
  Combo next = prefix;
  next.push_back({0, bound});
  for (uint64_t v = 0; v < bound; ++v) {
    next.back().value = v;
    if (!covered(sleep, actor, next)) return false;
  }
  return true;
}

bool has_entry(const std::vector<SleepEntry>& sleep, ActorId actor) {
  return std::any_of(sleep.begin(), sleep.end(), [&](const SleepEntry& e) { return e.actor == actor; });
}

void add_entry(std::vector<SleepEntry>& to, SleepEntry e) {
  for (const SleepEntry& x : to)
    if (x.actor == e.actor && x.any == e.any && x.draws == e.draws) return;
  to.push_back(std::move(e));
}

nlohmann::json entries_json(const std::vector<SleepEntry>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const SleepEntry& e : entries) {
    nlohmann::json fp = nlohmann::json::array(), draws = nlohmann::json::array();
    for (const Access& x : e.footprint) fp.push_back({x.object, x.write});
    for (const Draw& d : e.draws) draws.push_back({d.value, d.bound});
    out.push_back({{"actor", e.actor}, {"footprint", fp}, {"any", e.any}, {"draws", draws}});
  }
  return out;
}

std::vector<SleepEntry> entries_from(const nlohmann::json& j, bool v1) {
  std::vector<SleepEntry> out;
  for (const auto& e : j) {
    SleepEntry s{.actor = e.at("actor").get<ActorId>(), .any = v1 || e.at("any").get<bool>()};
    Footprint f;
    for (const auto& x : e.at("footprint")) f.push_back({x.at(0).get<uint64_t>(), x.at(1).get<bool>()});
    s.footprint = normalized(std::move(f));
    if (!v1)
      for (const auto& d : e.at("draws")) s.draws.push_back({d.at(0).get<uint64_t>(), d.at(1).get<uint64_t>()});
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace allocsim::sim
