// The engine's part of symmetry reduction (sim/symmetry.h; docs/DESIGN.md §2 "Symmetry"), on only when the
// strategy uses it (Strategy::uses_symmetry) and the world has interchangeable actors.
//
// The state is the one engine_states.cpp fingerprints (the world, the step count, the order's progress, and per
// actor its status, point and local state), but every piece that names an actor is a digest with holes, so that
// it can be digested under any renaming of the actors within their classes:
// - the world's part is World::symmetric_state, a multiset of parts;
// - an actor's local state is its part from the world (its state at its last local_state()) and, instead of a
//   running digest, the log of its steps since: each touched object's name and content as they were at the choice
//   that started the step, and each drawn value.
//
// Which renamings: each actor gets a signature, its slot digested with its own holes as "self" and the holes of
// other interchangeable actors as their class alone. A renaming of a state's actors carries their signatures with
// them, so sorting each class by signature gives the same orders (up to ties) for every state of an orbit. The
// fingerprint is the least digest over the renamings that sort the classes, every order of tied actors tried,
// up to kMaxRenamings; past it, ties keep index order. Each digest tried is a faithful digest of a renaming of
// the state (sim/symmetry.h, rule 1), so a bound on the renamings tried can only miss a reduction, never merge two
// states that are not renamings of each other.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "sim/engine_impl.h"
#include "sim/state_hash.h"

namespace allocsim::sim {

namespace {

constexpr uint64_t kSymDrawTag = 0x64726177ull;       // "draw"
constexpr uint64_t kSymObjectTag = 0x6f626a74ull;     // "objt"
constexpr uint64_t kSelf = 0x73656c66ull << 32;       // "self": the signature's own holes
constexpr uint64_t kClass = 0x636c6173ull << 32;      // "clas" + class: another interchangeable actor's
constexpr uint64_t kCanonical = 0x63616e6full << 32;  // "cano" + index: an actor under a renaming
constexpr size_t kMaxRenamings = 720;                 // 6!: every order of six tied actors

/// The part of `sym` named `id`: an object's, or an absent object's name; nullptr when neither.
const SymmetricState::Object* find_object(const SymmetricState& sym, uint64_t id) {
  const auto at = std::lower_bound(sym.objects.begin(), sym.objects.end(), id,
                                   [](const SymmetricState::Object& o, uint64_t v) { return o.id < v; });
  return at != sym.objects.end() && at->id == id ? &*at : nullptr;
}

const SymPart* find_absent(const SymmetricState& sym, uint64_t id) {
  const auto at = std::lower_bound(sym.absent_names.begin(), sym.absent_names.end(), id,
                                   [](const std::pair<uint64_t, SymPart>& o, uint64_t v) { return o.first < v; });
  return at != sym.absent_names.end() && at->first == id ? &at->second : nullptr;
}

}  // namespace

void Engine::Impl::begin_symmetric(const Strategy& st, size_t n) {
  SymMemo& m = sym_memo;
  const Strategy::ReplayedPrefix r = st.replayed_prefix();
  const bool follows = m.valid && r.strategy != 0 && m.strategy == r.strategy && r.execution == m.execution + 1;
  m.same = follows ? r.choices : 0;
  m.prev_announces = follows ? m.announces : 0;
  m.announces = 0;
  m.strategy = r.strategy, m.execution = r.execution, m.valid = r.strategy != 0;
  m.replaying_step = false;
  // Fresh from the start too when a draw before the first choice (in an actor's prologue) is already new.
  m.fresh = m.same == 0 || m.prev_announces == 0 || m.sched[0] > m.same;
  sym_logs.resize(n);
  if (m.fresh)
    for (SymLog& l : sym_logs) l.events.clear(), l.refs.clear(), l.from = 0;
}

void Engine::Impl::fold_symmetric(ActorId id) {
  Slot& s = slots[id];
  if (sym_memo.replaying_step) {  // the log already holds this step, from the previous execution
    s.since.clear();
    return;
  }
  SymLog& log = sym_logs[id];
  bool fresh_taken = false;
  for (const Slot::LocalEvent& e : s.since) {
    if (e.drawn) {
      log.events.push_back({state_mix(kSymDrawTag, e.value), uint32_t(log.refs.size()), 0});
      continue;
    }
    SymPart name, digest;
    const ActorId* name_refs = sym.refs.data();
    if (const SymmetricState::Object* o = find_object(sym, e.value)) {
      name = o->name, digest = o->digest;
    } else {
      // An object that did not exist before the step (a claim it made): it reads as absent, and its name comes
      // from the state after the step, which knows it (a name does not depend on the state it is read in).
      digest = sym.unlisted;
      ++state_fallbacks;
      if (!fresh_taken) {
        sym_after.clear();
        world->symmetric_state(sym_after);
        fresh_taken = true;
      }
      if (const SymmetricState::Object* o = find_object(sym_after, e.value))
        name = o->name;
      else if (const SymPart* absent = find_absent(sym_after, e.value))
        name = *absent;
      else  // folding an id as is could merge states that are not renamings of each other (sim/symmetry.h, rule 2)
        throw std::logic_error(
            "symmetry: a step touched an object the world's symmetric state neither lists nor names");
      name_refs = sym_after.refs.data();
    }
    SymPart p{state_mix(state_mix(state_mix(state_mix(kSymObjectTag, name.h), name.n), digest.h), digest.n),
              uint32_t(log.refs.size()), name.n + digest.n};
    for (uint32_t i = 0; i < name.n; ++i) log.refs.push_back(name_refs[name.at + i]);
    for (uint32_t i = 0; i < digest.n; ++i) log.refs.push_back(sym.refs[digest.at + i]);
    log.events.push_back(p);
  }
  s.since.clear();
}

uint64_t Engine::Impl::symmetric_fingerprint() {
  sym.clear();
  const bool ok = world->symmetric_state(sym);
  ALLOCSIM_ASSERT(ok, "the world stopped giving its symmetric state");
  ALLOCSIM_ASSERT(sym.actors.size() == slots.size(), "the world's symmetric state has one part per actor");
  ALLOCSIM_ASSERT(std::is_sorted(sym.objects.begin(), sym.objects.end(),
                                 [](const auto& a, const auto& b) { return a.id < b.id; }) &&
                      std::is_sorted(sym.absent_names.begin(), sym.absent_names.end(),
                                     [](const auto& a, const auto& b) { return a.first < b.first; }),
                  "the world's symmetric objects are not sorted by id");
  SymScratch& x = sym_scratch;
  const size_t n = slots.size();
  x.map.resize(n);
  // An actor's slot, digested under x.map (what each actor's holes become).
  const auto slot_digest = [&](ActorId a) {
    const Slot& s = slots[a];
    uint64_t h = state_mix(0, static_cast<uint64_t>(s.state));
    if (s.state != SlotState::Done) {
      h = state_mix_text(state_mix(h, static_cast<uint64_t>(s.kind)), s.what);
      if (s.state == SlotState::Blocked) {
        const uint64_t lock = s.waiting->footprint_id();
        const SymmetricState::Object* o = find_object(sym, lock);
        h = o ? state_mix(h, finish(o->name, sym.refs.data(), x.map.data())) : state_mix(h, lock);
      }
    }
    h = state_mix(h, finish(sym.actors[a], sym.refs.data(), x.map.data()));
    const SymLog& log = sym_logs[a];
    for (size_t e = log.from; e < log.events.size(); ++e)
      h = state_mix(h, finish(log.events[e], log.refs.data(), x.map.data()));
    return h;
  };

  // Signatures: each actor's slot with its own holes as "self" and other interchangeable actors as their class.
  x.sig.assign(n, 0);
  for (ActorId a = 0; a < n; ++a) {
    for (ActorId b = 0; b < n; ++b)
      x.map[b] = b == a ? kSelf : sym_class[b] >= 0 ? kClass + uint64_t(sym_class[b]) : kCanonical + b;
    x.sig[a] = slot_digest(a);
  }
  // Each class sorted by signature (ties by index); the tied runs are what the renamings permute.
  x.order.clear();
  x.ties.clear();
  for (const std::vector<ActorId>& cls : sym_classes) {
    const size_t from = x.order.size();
    x.order.insert(x.order.end(), cls.begin(), cls.end());
    std::stable_sort(x.order.begin() + long(from), x.order.end(),
                     [&](ActorId a, ActorId b) { return x.sig[a] < x.sig[b]; });
    for (size_t i = from; i < x.order.size();) {
      size_t j = i + 1;
      while (j < x.order.size() && x.sig[x.order[j]] == x.sig[x.order[i]]) ++j;
      if (j - i > 1) x.ties.emplace_back(i, j);
      i = j;
    }
  }
  // The tied runs to permute: each one whose orders still fit kMaxRenamings (the others keep index order).
  size_t budget = 1, permuted = 0;
  for (size_t t = 0; t < x.ties.size(); ++t) {
    size_t f = 1;
    for (size_t k = 2; k <= x.ties[t].second - x.ties[t].first && f <= kMaxRenamings; ++k) f *= k;
    if (budget * f > kMaxRenamings) continue;
    budget *= f;
    x.ties[permuted++] = x.ties[t];
  }

  x.renaming.resize(n);
  x.inverse.resize(n);
  uint64_t best = 0;
  bool first = true;
  for (;;) {
    // The renaming this order gives: the class's k-th actor in signature order takes the class's k-th index.
    std::iota(x.renaming.begin(), x.renaming.end(), ActorId{0});
    size_t at = 0;
    for (const std::vector<ActorId>& cls : sym_classes)
      for (const ActorId m : cls) x.renaming[x.order[at++]] = m;
    for (ActorId a = 0; a < n; ++a) x.map[a] = kCanonical + x.renaming[a], x.inverse[x.renaming[a]] = a;
    uint64_t world_sum = 0;
    for (const SymPart& p : sym.parts) world_sum += finish(p, sym.refs.data(), x.map.data());
    for (const SymmetricState::Object& o : sym.objects)
      world_sum +=
          state_mix(finish(o.name, sym.refs.data(), x.map.data()), finish(o.digest, sym.refs.data(), x.map.data()));
    uint64_t h = state_mix(world_sum, nsteps);
    if (order) h = order->digest(h);
    for (ActorId k = 0; k < n; ++k) h = state_mix(h, slot_digest(x.inverse[k]));
    if (first || h < best) {
      best = h, first = false;
      x.best.assign(x.renaming.begin(), x.renaming.end());
    }
    // The next order of the permuted ties (an odometer over their permutations), or done.
    size_t t = 0;
    for (; t < permuted; ++t) {
      const auto b = x.order.begin() + long(x.ties[t].first), e = x.order.begin() + long(x.ties[t].second);
      if (std::next_permutation(b, e)) break;  // wrapped runs are back in ascending order
    }
    if (t == permuted) break;
  }
  for (ActorId a = 0; a < n; ++a) x.renaming[a] = ActorId(x.best[a]);
  return best;
}

void Engine::Impl::announce_state() {
  if (!track_symmetry) {
    strategy->at_state(state_fingerprint());
    return;
  }
  SymMemo& m = sym_memo;
  const size_t n = slots.size(), k = m.announces++;
  // The step after this choice is the previous execution's when every choice it makes (its actor and its draws,
  // up to the schedule's length at the previous execution's next announce) is among the replayed ones.
  if (!m.fresh && k + 1 < m.prev_announces && m.sched[k + 1] <= m.same) {
    m.replaying_step = true;
    strategy->at_state_renamed(m.fp[k], std::span<const ActorId>(m.renaming.data() + k * n, n));
    return;
  }
  m.replaying_step = false;
  if (!m.fresh) {
    // The first choice not replayed: the state is still the previous execution's at announce k (every choice
    // before it was replayed), so the logs go back to the lengths they had there.
    m.fresh = true;
    ALLOCSIM_ASSERT(k < m.prev_announces && m.sched[k] == res.schedule.size(),
                    "symmetry: the replayed choices did not lead to the previous execution's state");
    for (size_t a = 0; a < n; ++a) {
      SymLog& l = sym_logs[a];
      ALLOCSIM_ASSERT(l.events.size() >= m.lens[(k * n + a) * 3] && l.refs.size() >= m.lens[(k * n + a) * 3 + 1],
                      "symmetry: an actor's log is shorter than it was at a replayed choice");
      l.events.resize(m.lens[(k * n + a) * 3]);
      l.refs.resize(m.lens[(k * n + a) * 3 + 1]);
      l.from = m.lens[(k * n + a) * 3 + 2];
    }
  }
  const uint64_t fp = symmetric_fingerprint();
  m.sched.resize(k + 1), m.fp.resize(k + 1), m.renaming.resize((k + 1) * n), m.lens.resize((k + 1) * n * 3);
  m.sched[k] = res.schedule.size(), m.fp[k] = fp;
  std::copy(sym_scratch.renaming.begin(), sym_scratch.renaming.end(), m.renaming.begin() + long(k * n));
  for (size_t a = 0; a < n; ++a) {
    const SymLog& l = sym_logs[a];
    m.lens[(k * n + a) * 3] = uint32_t(l.events.size());
    m.lens[(k * n + a) * 3 + 1] = uint32_t(l.refs.size());
    m.lens[(k * n + a) * 3 + 2] = l.from;
  }
  strategy->at_state_renamed(fp, sym_scratch.renaming);
}

}  // namespace allocsim::sim
