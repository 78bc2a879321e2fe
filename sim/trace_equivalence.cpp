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

void StepObjects::build(const ExecutionResult& r, size_t n) {
  ALLOCSIM_ASSERT(n <= r.steps.size(), "StepObjects: {} steps of {}", n, r.steps.size());
  r_ = &r;
  for (uint32_t slot : used_) slots_[slot] = Slot{};
  used_.clear();
  access_bits_.clear();
  words_ = 0;
  exact_ = false;
  // Pass 1: a bit per distinct object, in order of first appearance.
  for (size_t k = 0; k < n; ++k)
    for (const Access& a : r.steps[k].footprint) {
      size_t slot = a.object % kSlots;
      while (slots_[slot].bit != 0 && slots_[slot].object != a.object) slot = (slot + 1) % kSlots;
      if (slots_[slot].bit == 0) {
        // At most kMaxObjects of kSlots = 2 * kMaxObjects slots are ever taken: the probe always ends.
        if (used_.size() == kMaxObjects) return;  // too many: dependent_wide() compares the footprints
        used_.push_back(static_cast<uint32_t>(slot));
        slots_[slot] = {a.object, static_cast<uint32_t>(used_.size())};
      }
      access_bits_.push_back(slots_[slot].bit - 1);
    }
  // Pass 2: the sets.
  exact_ = true;
  words_ = std::max<size_t>(1, (used_.size() + 63) / 64);
  bits_.assign(n * 2 * words_, 0);
  size_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    uint64_t* writes = &bits_[k * 2 * words_];
    uint64_t* touches = writes + words_;
    for (const Access& a : r.steps[k].footprint) {
      const uint32_t bit = access_bits_[at++];
      touches[bit / 64] |= uint64_t{1} << (bit % 64);
      if (a.write) writes[bit / 64] |= uint64_t{1} << (bit % 64);
    }
  }
}

bool StepObjects::dependent_wide(size_t i, size_t j) const {
  if (!exact_) return sim::dependent(r_->steps[i].footprint, r_->steps[j].footprint);
  const uint64_t* a = &bits_[i * 2 * words_];
  const uint64_t* b = &bits_[j * 2 * words_];
  uint64_t meet = 0;
  for (size_t w = 0; w < words_; ++w) meet |= (a[w] & b[words_ + w]) | (b[w] & a[words_ + w]);
  return meet != 0;
}

uint64_t trace_fingerprint(const ExecutionResult& r) {
  // Storage reused by every call on this thread (a sweep's workers each have theirs): counting traces
  // allocates nothing per execution once warm.
  struct Scratch {
    std::vector<size_t> draws_from;  // per step: its first draw's index in the schedule; then one past the end
    StepObjects objects;
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
  // An order-blocked execution's run-out (sim/engine.h) takes its steps without choices and draws nothing.
  const size_t chosen = r.order_blocked ? r.order_blocked->step : n;
  ALLOCSIM_ASSERT(s.draws_from.size() == chosen, "trace_fingerprint: {} actor choices for {} chosen steps",
                  s.draws_from.size(), chosen);
  s.draws_from.resize(n + 1, r.schedule.size() + 1);
  const auto draws_of = [&](size_t k, auto&& each) {
    for (size_t c = s.draws_from[k]; c + 1 < s.draws_from[k + 1] && c < r.schedule.size(); ++c) each(r.schedule[c]);
  };
  s.objects.build(r, n);
  // Foata levels: 1 + the deepest level among earlier steps this one depends on (or follows in its actor).
  // Scanned from the latest step back, where the deep levels are, so that most earlier steps are passed over on
  // their level alone; and it stops once no earlier step is deeper than what it found.
  s.level.assign(n, 0);
  s.index.assign(n, 0);
  s.per_actor.clear();
  uint32_t deepest = 0;  // of the steps before j
  for (size_t j = 0; j < n; ++j) {
    const ActorId a = r.steps[j].actor;
    if (s.per_actor.size() <= a) s.per_actor.resize(a + 1, 0);
    s.index[j] = s.per_actor[a]++;
    uint32_t lv = 0;
    for (size_t i = j; i-- > 0 && lv < deepest;)
      if (s.level[i] > lv && (r.steps[i].actor == a || s.objects.dependent(i, j))) lv = s.level[i];
    s.level[j] = lv + 1;
    deepest = std::max(deepest, lv + 1);
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
