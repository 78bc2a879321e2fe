#include "sim/strategies/dpor_sleep.h"

#include <algorithm>

namespace allocsim::sim {

namespace {

bool starts_with(const Combo& c, const Combo& prefix) {
  return c.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), c.begin());
}

}  // namespace

namespace {

/// covered() over `path` (the prefix), which it extends and restores in place: one buffer for the whole
/// recursion instead of a copy of the prefix per level.
bool covered_at(const std::vector<SleepEntry>& sleep, ActorId actor, Combo& path) {
  uint64_t bound = 0;  // of the draw after `path`, when some entry goes on past it
  for (const SleepEntry& e : sleep) {
    if (e.actor != actor) continue;
    if (e.any || e.draws == path) return true;
    if (e.draws.size() > path.size() && starts_with(e.draws, path)) bound = e.draws[path.size()].bound;
  }
  if (bound == 0) return false;
  path.push_back({0, bound});
  bool all = true;
  for (uint64_t v = 0; v < bound && all; ++v) {
    path.back().value = v;
    all = covered_at(sleep, actor, path);
  }
  path.pop_back();
  return all;
}

}  // namespace

bool covered(const std::vector<SleepEntry>& sleep, ActorId actor, const Combo& prefix) {
  // Kept per thread (a sweep's workers each have theirs): DPOR asks this at every choice.
  thread_local Combo path;
  path.assign(prefix.begin(), prefix.end());
  return covered_at(sleep, actor, path);
}

bool has_entry(const std::vector<SleepEntry>& sleep, ActorId actor) {
  return std::any_of(sleep.begin(), sleep.end(), [&](const SleepEntry& e) { return e.actor == actor; });
}

bool has_event(const std::vector<SleepEntry>& entries, ActorId actor, bool any, const Combo& draws) {
  return std::any_of(entries.begin(), entries.end(),
                     [&](const SleepEntry& x) { return x.actor == actor && x.any == any && x.draws == draws; });
}

void add_entry(std::vector<SleepEntry>& to, const SleepEntry& e) {
  if (!has_event(to, e.actor, e.any, e.draws)) to.push_back(e);
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
