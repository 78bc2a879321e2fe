// The engine's part of a canonical state (docs/DESIGN.md §2 "Canonical states"), on only when the strategy
// caches states (Strategy::caches_states).
//
// A canonical state is a fingerprint of everything that decides the rest of an execution at a choice point:
// - the world's part (World::canonical_state): shared state, and what the invariants and expectations keep;
// - per actor: its status (at a point, blocked, done), the point it waits at (kind and name) and its local
//   state. An actor is a deterministic function run in a fiber, so its local state is decided by where it
//   started and by what it has read and drawn since. The engine keeps it as a digest: the world sets it where
//   the actor's state is explicit (ActorContext::local_state, the backend's script ops), and after every step
//   of the actor the engine folds in each object the step touched, with the digest that object had before the
//   step (the world's object digests, taken at the choice that started it), and each value the step drew. The
//   step runs alone between two choices, so the values it read are those digests: what other actors did to
//   objects it never touched cannot split its state. Footprints must name every object a step reads, as DPOR
//   already requires (sim/strategies/dpor.h);
// - the step count, since `steps-bounded` judges it.
#include <algorithm>

#include "sim/engine_impl.h"
#include "sim/state_hash.h"

namespace allocsim::sim {

namespace {

uint64_t mix(uint64_t h, uint64_t v) { return state_mix(h, v); }
uint64_t mix_text(uint64_t h, std::string_view s) { return state_mix_text(h, s); }

constexpr uint64_t kDrawTag = 0x64726177ull;    // "draw": a drawn value, apart from an object id
constexpr uint64_t kObjectTag = 0x6f626a74ull;  // "objt"

}  // namespace

void Engine::Impl::fold_local(ActorId id) {
  Slot& s = slots[id];
  for (const Slot::LocalEvent& e : s.since) {
    if (e.drawn) {
      s.local = mix(mix(s.local, kDrawTag), e.value);
      continue;
    }
    const auto at = std::lower_bound(canon.objects.begin(), canon.objects.end(), e.value,
                                     [](const ObjectDigest& o, uint64_t id) { return o.object < id; });
    uint64_t digest = canon.unlisted;  // an object that does not exist (CanonicalState::unlisted)
    if (at != canon.objects.end() && at->object == e.value)
      digest = at->digest;
    else
      ++state_fallbacks;
    s.local = mix(mix(mix(s.local, kObjectTag), e.value), digest);
  }
  s.since.clear();
}

uint64_t Engine::Impl::state_fingerprint() {
  canon.objects.clear();
  canon.unlisted = 0;
  const bool ok = world->canonical_state(canon);
  if (canon.unlisted == 0) canon.unlisted = canon.world;
  ALLOCSIM_ASSERT(ok, "the world stopped giving its canonical state");
  ALLOCSIM_ASSERT(std::is_sorted(canon.objects.begin(), canon.objects.end(),
                                 [](const ObjectDigest& a, const ObjectDigest& b) { return a.object < b.object; }),
                  "the world's object digests are not sorted by id");
  uint64_t h = mix(canon.world, nsteps);
  if (order) h = order->digest(h);  // which constraints are met decides who may run
  for (const Slot& s : slots) {
    h = mix(h, static_cast<uint64_t>(s.state));
    if (s.state != SlotState::Done) {
      h = mix_text(mix(h, static_cast<uint64_t>(s.kind)), s.what);
      if (s.state == SlotState::Blocked) h = mix(h, s.waiting->footprint_id());
    }
    h = mix(h, s.local);
  }
  return h;
}

uint64_t OrderTracker::digest(uint64_t seed) const {
  uint64_t h = seed;
  for (const Key& k : keys_) h = mix(h, k.count);
  for (const bool t : taken_) h = mix(h, t ? 1 : 0);
  return h;
}

}  // namespace allocsim::sim
