#include "sim/trace_equivalence.h"

#include <xxhash.h>

#include <algorithm>

#include "sim/assert.h"

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

FootprintMask mask_of(const Footprint& f) {
  FootprintMask m;
  for (const Access& a : f) {
    const uint64_t bit = uint64_t{1} << (a.object % 64);
    m.touches |= bit;
    if (a.write) m.writes |= bit;
  }
  return m;
}

uint64_t trace_fingerprint(const ExecutionResult& r) {
  // Storage reused by every call on this thread (a sweep's workers each have theirs): counting traces
  // allocates nothing per execution once warm.
  struct Scratch {
    std::vector<size_t> draws_from;  // per step: its first draw's index in the schedule; then one past the end
    std::vector<FootprintMask> mask;
    std::vector<uint32_t> level, index, per_actor;
    std::vector<size_t> order;
    std::vector<uint64_t> words;  // what is hashed, in order
  };
  thread_local Scratch s;
  const size_t n = r.steps.size();
  // Draws belong to the step in progress (those before the first step to the prologue): step k's draws are
  // schedule[draws_from[k] .. draws_from[k + 1] - 1), the actor choice of step k + 1 excluded.
  s.draws_from.clear();
  size_t prologue_end = r.schedule.size();
  for (size_t c = 0; c < r.schedule.size(); ++c)
    if (r.schedule[c].kind == Choice::Actor) {
      if (s.draws_from.empty()) prologue_end = c;
      s.draws_from.push_back(c + 1);
    }
  ALLOCSIM_ASSERT(s.draws_from.size() == n, "trace_fingerprint: {} actor choices for {} steps", s.draws_from.size(), n);
  s.draws_from.push_back(r.schedule.size() + 1);
  const auto draws_of = [&](size_t k, auto&& each) {
    for (size_t c = s.draws_from[k]; c + 1 < s.draws_from[k + 1] && c < r.schedule.size(); ++c) each(r.schedule[c]);
  };
  s.mask.resize(n);
  for (size_t i = 0; i < n; ++i) s.mask[i] = mask_of(r.steps[i].footprint);
  // Foata levels: 1 + the deepest level among earlier steps this one depends on (or follows in its actor).
  s.level.assign(n, 0);
  s.index.assign(n, 0);
  s.per_actor.clear();
  for (size_t j = 0; j < n; ++j) {
    const ActorId a = r.steps[j].actor;
    if (s.per_actor.size() <= a) s.per_actor.resize(a + 1, 0);
    s.index[j] = s.per_actor[a]++;
    uint32_t lv = 0;
    for (size_t i = 0; i < j; ++i)
      if (s.level[i] > lv && (r.steps[i].actor == a || (may_depend(s.mask[i], s.mask[j]) &&
                                                        dependent(r.steps[i].footprint, r.steps[j].footprint))))
        lv = s.level[i];
    s.level[j] = lv + 1;
  }
  s.order.resize(n);
  for (size_t i = 0; i < n; ++i) s.order[i] = i;
  // Within a level no two steps share an actor, so (level, actor) is a total order.
  std::sort(s.order.begin(), s.order.end(), [&](size_t x, size_t y) {
    return s.level[x] != s.level[y] ? s.level[x] < s.level[y] : r.steps[x].actor < r.steps[y].actor;
  });
  // One XXH3 over the words is the streaming hash of the same bytes, word by word.
  std::vector<uint64_t>& w = s.words;
  w.clear();
  w.push_back(prologue_end);
  for (size_t c = 0; c < prologue_end; ++c) w.push_back(r.schedule[c].value);
  for (size_t k : s.order) {
    w.push_back(s.level[k]);
    w.push_back(r.steps[k].actor);
    w.push_back(s.index[k]);
    const size_t count_at = w.size();
    w.push_back(0);
    draws_of(k, [&](const Choice& c) { w.push_back(c.value), ++w[count_at]; });
    const Footprint& fp = r.steps[k].footprint;
    w.push_back(fp.size());
    for (const Access& a : fp) w.push_back(a.object), w.push_back(a.write);
  }
  return XXH3_64bits(w.data(), w.size() * sizeof(uint64_t));
}

}  // namespace allocsim::sim
