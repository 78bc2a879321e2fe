#include "sim/trace_equivalence.h"

#include <xxhash.h>

#include <algorithm>
#include <cassert>

namespace allocsim::sim {

Footprint normalized(std::vector<Access> raw) {
  std::sort(raw.begin(), raw.end(), [](const Access& a, const Access& b) { return a.object < b.object; });
  Footprint out;
  for (const Access& a : raw) {
    if (!out.empty() && out.back().object == a.object)
      out.back().write |= a.write;
    else
      out.push_back(a);
  }
  return out;
}

void merge_into(Footprint& into, const Footprint& more) {
  Footprint all = into;
  all.insert(all.end(), more.begin(), more.end());
  into = normalized(std::move(all));
}

bool dependent(const Footprint& a, const Footprint& b) {
  // Both sorted: one merge pass.
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].object < b[j].object)
      ++i;
    else if (b[j].object < a[i].object)
      ++j;
    else {
      if (a[i].write || b[j].write) return true;
      ++i, ++j;
    }
  }
  return false;
}

uint64_t trace_fingerprint(const ExecutionResult& r) {
  const size_t n = r.steps.size();
  // Draws belong to the step in progress (those before the first step to the prologue).
  std::vector<std::vector<uint64_t>> draws(n);
  std::vector<uint64_t> prologue_draws;
  size_t step = 0;
  bool started = false;
  for (const Choice& c : r.schedule) {
    if (c.kind == Choice::Actor) {
      if (started) ++step;
      started = true;
    } else {
      (started ? draws[step] : prologue_draws).push_back(c.value);
    }
  }
  std::vector<Footprint> fp(n);
  for (size_t i = 0; i < n; ++i) fp[i] = normalized(r.steps[i].footprint);
  // Foata levels: 1 + the deepest level among earlier steps this one depends on (or follows in its actor).
  std::vector<uint32_t> level(n, 0), index(n, 0);
  std::vector<uint32_t> per_actor;
  for (size_t j = 0; j < n; ++j) {
    const ActorId a = r.steps[j].actor;
    if (per_actor.size() <= a) per_actor.resize(a + 1, 0);
    index[j] = per_actor[a]++;
    uint32_t lv = 0;
    for (size_t i = 0; i < j; ++i)
      if (r.steps[i].actor == a || dependent(fp[i], fp[j])) lv = std::max(lv, level[i]);
    level[j] = lv + 1;
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  // Within a level no two steps share an actor, so (level, actor) is a total order.
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return level[x] != level[y] ? level[x] < level[y] : r.steps[x].actor < r.steps[y].actor;
  });
  XXH3_state_t* st = XXH3_createState();
  XXH3_64bits_reset(st);
  const auto add64 = [&](uint64_t v) { XXH3_64bits_update(st, &v, sizeof v); };
  add64(prologue_draws.size());
  for (uint64_t d : prologue_draws) add64(d);
  for (size_t k : order) {
    add64(level[k]);
    add64(r.steps[k].actor);
    add64(index[k]);
    add64(draws[k].size());
    for (uint64_t d : draws[k]) add64(d);
    add64(fp[k].size());
    for (const Access& a : fp[k]) add64(a.object), add64(a.write);
  }
  const uint64_t h = XXH3_64bits_digest(st);
  XXH3_freeState(st);
  return h;
}

}  // namespace allocsim::sim
