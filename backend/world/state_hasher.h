// The digest primitives of a world's canonical states (state_digest.h): Hasher, a running 64-bit digest that,
// with names set, hashes the own names of interchangeable actors as holes (sim/symmetry.h), and add() for every
// struct the canonical states digest. Shared by state_digest.cpp (canonical_state) and symmetric_digest.cpp
// (symmetric_state); nothing else includes it. Which fields are in or out: state_digest.h.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backend/world/actor_symmetry.h"
#include "backend/world/name_split_memo.h"
#include "backend/world/world_state.h"
#include "sim/state_hash.h"

namespace allocsim::harness::digest {

inline constexpr uint64_t kActorHole = 0x6163746full << 32;  // "acto": an actor index

/// A running 64-bit digest (sim/state_hash.h). With `names` set (symmetry, sim/symmetry.h), a digest with holes:
/// each own name of an interchangeable actor in a string, and each actor index given to actor(), is hashed as a
/// hole and its actor appended to `refs`.
struct Hasher {
  uint64_t h = 0x616c6c6f6373696dull;  // "allocsim"
  const std::vector<OwnName>* names = nullptr;
  const std::array<bool, 256>* starts = nullptr;  // with `names` (ActorSymmetry::starts)
  std::vector<sim::ActorId>* refs = nullptr;
  NameSplitMemo* memo = nullptr;  // with `names`: where s() finds a text's holes
  uint32_t actors = 0;
  Hasher& u(uint64_t v) {
    h = sim::state_mix(h, v);
    return *this;
  }
  Hasher& i(int64_t v) { return u(static_cast<uint64_t>(v)); }
  Hasher& b(bool v) { return u(v ? 0xb1 : 0xb0); }
  Hasher& d(double v) { return u(std::bit_cast<uint64_t>(v)); }
  Hasher& s(std::string_view v) {
    if (names == nullptr || names->empty()) {
      h = sim::state_mix_text(h, v);
      return *this;
    }
    // The text's digest with its own names as holes (name_split_memo.h), and the holes' actors.
    const NameSplitMemo::Split& split = memo->get(v, *names, *starts);
    if (!split.actors.empty()) refs->insert(refs->end(), split.actors.begin(), split.actors.end());
    return u(split.digest);
  }
  /// A string no name can be part of (a static word: an outcome, a crash point), hashed as is.
  Hasher& word(std::string_view v) {
    h = sim::state_mix_text(h, v);
    return *this;
  }
  /// An actor index (or a sentinel outside [0, actors), hashed as is).
  Hasher& actor(int64_t a) {
    if (names == nullptr || a < 0 || a >= int64_t(actors)) return i(a);
    refs->push_back(sim::ActorId(a));
    return u(kActorHole);
  }
  /// A fresh digest that shares this one's holes (its refs go to the same list, in order).
  Hasher sub() const {
    Hasher y;
    y.names = names, y.starts = starts, y.refs = refs, y.memo = memo, y.actors = actors;
    return y;
  }
  Hasher& c(const char* v) { return v ? word(v).u(1) : u(0); }  // a static word, or none
  template <class T, class F>
  Hasher& opt(const std::optional<T>& o, F&& f) {
    if (!o) return u(0);
    u(1);
    f(*this, *o);
    return *this;
  }
  Hasher& os(const std::optional<std::string>& o) {
    return opt(o, [](Hasher& x, const std::string& v) { x.s(v); });
  }
  Hasher& oi(const std::optional<int>& o) {
    return opt(o, [](Hasher& x, int v) { x.i(v); });
  }
  template <class V>
  Hasher& map_si(const backend::OrderedMap<std::string, V>& m) {
    u(m.size());
    for (const auto& [k, v] : m) s(k).i(v);
    return *this;
  }
  Hasher& map_ss(const backend::OrderedMap<std::string, std::string>& m) {
    u(m.size());
    for (const auto& [k, v] : m) s(k).s(v);
    return *this;
  }
  Hasher& strings(const std::vector<std::string>& v) {
    u(v.size());
    for (const std::string& x : v) s(x);
    return *this;
  }
};

inline void add(Hasher& x, const backend::DeviceIdentity& d) {
  x.os(d.node).oi(d.ordinal).os(d.uuid).os(d.mig_uuid).s(d.product);
  x.opt(d.memory_bytes, [](Hasher& y, int64_t v) { y.i(v); }).os(d.mig_profile);
}

inline void add(Hasher& x, const std::vector<backend::DeviceIdentity>& ds) {
  x.u(ds.size());
  for (const auto& d : ds) add(x, d);
}

inline uint64_t labels_digest(const backend::NodeFixture& n) {
  Hasher x;
  x.map_ss(n.labels.get());  // the labels, not their stamp: equal labels with different stamps are one state
  return x.h;
}

/// `labels`: labels_digest(n), which the live state memoizes per stamp.
inline void add(Hasher& x, const backend::NodeFixture& n, uint64_t labels) {
  // product, gpu_count and memory_gib never change, but they are cheap and keep the digest whole.
  x.s(n.name).s(n.product).i(n.gpu_count).d(n.memory_gib).u(labels);
  x.os(n.owner).os(n.owner_epoch).i(n.resource_version).s(n.mig_config).s(n.mig_state).i(n.mig_state_generation);
  x.map_si(n.mig_layout).map_si(n.workloads).os(n.restore_record);
}

inline void add(Hasher& x, const backend::NodeFixture& n) {
  Hasher labels =
      x.sub();  // labels_digest(n), with holes when x has them (a carved node's config label names an entry)
  labels.map_ss(n.labels.get());
  add(x, n, labels.h);
}

inline void add(Hasher& x, const backend::FeasiblePlan& p) {
  x.u(p.assignments.size());
  for (const auto& [w, ds] : p.assignments) x.s(w), add(x, ds);
  x.map_ss(p.geometry).s(p.snapshot_generation).s(p.plan_id).strings(p.notes);
}

inline void add(Hasher& x, const backend::PlanOutcome& p) {
  if (const auto* f = std::get_if<backend::FeasiblePlan>(&p)) {
    x.u(1);
    add(x, *f);
  } else {
    x.u(2).strings(std::get<backend::Infeasible>(p).reasons);
  }
}

inline void add(Hasher& x, const backend::Claim& c) {
  x.s(c.claim_id).s(c.owner);
  add(x, c.plan);
  x.s(c.generation).strings(c.nodes).s(c.status).b(c.workload_ready).s(c.entry_name);
  x.s(c.op_id).b(c.releasing).map_si(c.label_versions);
}

inline void add(Hasher& x, const backend::InventorySnapshot& v) {
  add(x, v.devices.items());
  x.map_si(v.occupancy).map_ss(v.sharing).map_ss(v.owners).s(v.completeness).d(v.observed_at).s(v.generation);
}

inline void add(Hasher& x, const backend::Mutation& m) { x.s(m.op_id).s(m.kind).s(m.target).s(m.detail); }

inline uint64_t mutation_digest(const backend::Mutation& m) {
  Hasher x;
  add(x, m);
  return x.h;
}

/// The audit log as a multiset (state_digest.h, 3): a sum, so that the same entries in any order give the same
/// digest. `from`, `sum`: the digest of the first `from` entries, already known.
inline uint64_t audit_multiset(const backend::BackendState& s, size_t from = 0, uint64_t sum = 0) {
  for (size_t i = from; i < s.audit.size(); ++i) sum += mutation_digest(s.audit[i]);
  return sum;
}

/// Everything of a backend state (the live one, or a copy an invariant keeps) but its nodes and claims, which
/// the live state lists as objects. `audit`: audit_multiset(s).
inline void add_rest(Hasher& x, const backend::BackendState& s, uint64_t audit) {
  x.u(s.failed_reads.size());
  for (const auto& [k, v] : s.failed_reads) x.s(k).s(v);
  x.u(s.shared_config.size());
  for (const auto& [entry, nodes] : s.shared_config) x.s(entry).map_si(nodes);
  x.i(s.shared_config_version).b(s.shared_tombstone).b(s.shared_map_deleted);
  x.s(s.pointer).i(s.pointer_version).os(s.pointer_restore);
  x.u(s.pending_geometry.size());
  for (const auto& g : s.pending_geometry) x.d(g.due).s(g.node).i(g.version);
  x.strings(s.failing_geometry);
  x.u(s.failing_geometry_until.size());
  for (const auto& [n, t] : s.failing_geometry_until) x.s(n).d(t);
  x.strings(s.hollow_geometry);
  x.map_si(s.partial_geometry);
  x.strings(s.release_pods_hidden.workloads).i(s.release_pods_hidden.reads);
  x.u(s.audit.size()).u(audit);
  if (s.clock.pending_timers() != 0)
    throw std::logic_error("canonical state: the fake clock has timers queued, which it cannot digest");
  x.d(s.clock.monotonic()).d(s.clock.time());
}

inline void add_whole(Hasher& x, const backend::BackendState& s) {
  x.u(s.nodes.size());
  for (const auto& n : s.nodes) add(x, n);
  x.u(s.claims.size());
  for (const auto& c : s.claims) add(x, c);
  if (x.names == nullptr) {
    add_rest(x, s, audit_multiset(s));
    return;
  }
  // With holes the entries are hashed in log order: a sum of digests could not be renamed. Finer than a
  // multiset, so it can only split states a renaming would join (sim/symmetry.h, rule 1 holds).
  x.u(s.audit.size());
  for (const auto& m : s.audit) add(x, m);
  add_rest(x, s, 0);
}

inline void add(Hasher& x, const sim::SimMutex& m) { x.actor(int64_t(m.holder())).i(m.depth()); }  // kNoActor: as is

inline void add(Hasher& x, const ReadFaults& r) {
  x.b(r.enabled);
  if (!r.enabled) return;
  // `writes` and `recorded` count writes; only their difference decides whether the next step records a view.
  x.u(r.writes - r.recorded).u(r.history.size());
  for (const ReadState& v : r.history) {
    x.u(v.nodes.size());
    for (const auto& n : v.nodes) add(x, n);
    x.u(v.claims.size());
    for (const auto& c : v.claims) add(x, c);
  }
  x.i(r.stale_writes).i(r.stale_reads).strings(r.partial_workloads).i(r.partial_reads);
  if (r.partial_devices.empty()) return;  // as before the key existed: other scenarios' digests keep their values
  x.u(r.partial_devices.size());
  for (const auto& [node, ordinal] : r.partial_devices) x.s(node).i(ordinal);
}

inline void add(Hasher& x, const ActorState& a) {
  // a.owner is out: the file fixes it for the actor, whose name is in.
  x.s(a.name).i(a.id_counter).i(a.reserves).i(a.releases).i(a.recovers).u(a.op_index).c(a.crashed);
  x.opt(a.inventory, [](Hasher& y, const backend::InventorySnapshot& v) { add(y, v); }).b(a.inventory_with_failed_pods);
  x.opt(a.plan, [](Hasher& y, const backend::PlanOutcome& p) { add(y, p); }).b(a.plan_with_failed_pods);
  x.os(a.claim_id).s(a.claim_generation);
  x.u(a.held.size());
  for (const auto& [id, gen] : a.held) x.s(id).s(gen);
  x.opt(a.last_released, [](Hasher& y, const std::pair<std::string, std::string>& p) { y.s(p.first).s(p.second); });
  x.i(a.claims_held).i(a.claims_made).s(a.op_epoch);
  x.u(a.outcomes.size());
  for (const char* o : a.outcomes) x.c(o);
}

inline uint64_t digest_of(const auto& v) {
  Hasher x;
  add(x, v);
  return x.h;
}

/// The failing-geometry hooks armed on node `node`: failing, hollow, partial, failing until.
inline void add_geometry_hooks(Hasher& g, const backend::BackendState& s, const std::string& node) {
  g.b(std::find(s.failing_geometry.begin(), s.failing_geometry.end(), node) != s.failing_geometry.end());
  g.b(std::find(s.hollow_geometry.begin(), s.hollow_geometry.end(), node) != s.hollow_geometry.end());
  const int* partial = backend::find_in(s.partial_geometry, node);
  g.i(partial ? *partial : 0);
  const double* until = backend::find_in(s.failing_geometry_until, node);
  g.b(until != nullptr).d(until ? *until : 0);
}

/// What the invariants and expectations keep between steps (state_digest.h, 2), and which barriers have fired.
inline void add_invariant_records(Hasher& x, const WorldState& w) {
  for (const NodeShadow& sh : w.shadow) x.os(sh.owner_epoch);
  x.u(w.geometry_writes.size());
  for (const GeometryWrite& g : w.geometry_writes) {
    x.s(g.node).i(g.version).d(g.written_at).strings(g.workloads);
    x.opt(g.applied_at, [](Hasher& y, double t) { y.d(t); });
  }
  x.u(w.bound_workloads.size());
  for (const BoundWorkload& b : w.bound_workloads) x.s(b.node).s(b.workload).b(b.covered);
  x.b(w.audit_base.has_value());
  if (w.audit_base) add_whole(x, *w.audit_base);
  x.strings(w.stale_reserves).u(w.audit_seen);
  // Which barriers have fired (not how often): `reach` judges it, and a path cut at a visited state is never
  // tallied, so what it fired must be in the state it was cut at (state_digest.h, 4).
  uint64_t fired = 0;
  for (size_t i = 0; i < w.barrier_hits().size(); ++i) fired |= uint64_t(w.barrier_hits()[i] > 0) << (i % 64);
  x.u(fired);
}

}  // namespace allocsim::harness::digest
