#include "backend/world/state_digest.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "backend/world/actor_symmetry.h"
#include "backend/world/admission_faults.h"
#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"
#include "sim/state_hash.h"

namespace allocsim::harness {

// A new field must be placed in or out of the canonical state (state_digest.h) before these sizes are updated.
static_assert(sizeof(backend::NodeFixture) == 360, "NodeFixture changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::Claim) == 392, "Claim changed: place the new field in state_digest.cpp");
static_assert(sizeof(ActorState) == 2200, "ActorState changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::BackendState) == 416, "BackendState changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::InventorySnapshot) == 160,
              "InventorySnapshot changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::FeasiblePlan) == 136, "FeasiblePlan changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::DeviceIdentity) == 216,
              "DeviceIdentity changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::Mutation) == 128, "Mutation changed: place the new field in state_digest.cpp");
static_assert(sizeof(ReadFaults) == 144, "ReadFaults changed: place the new field in state_digest.cpp");
static_assert(sizeof(ObjectHistories) == 672, "ObjectHistories changed: place the new field in state_digest.cpp");
static_assert(sizeof(AdmissionFaults) == 32, "AdmissionFaults changed: place the new field in state_digest.cpp");
static_assert(sizeof(WorldStorage) == 3664, "WorldStorage changed: place the new field in state_digest.cpp");
static_assert(sizeof(GeometryWrite) == 88, "GeometryWrite changed: place the new field in state_digest.cpp");
static_assert(sizeof(BoundWorkload) == 72, "BoundWorkload changed: place the new field in state_digest.cpp");
static_assert(sizeof(NodeShadow) == 40, "NodeShadow changed: place the new field in state_digest.cpp");

namespace {

using backend::Obj;

constexpr uint64_t kNameHole = 0x686f6c65ull << 32;   // "hole" + place: an interchangeable actor's own name
constexpr uint64_t kActorHole = 0x6163746full << 32;  // "acto": an actor index
constexpr uint64_t kStringEnd = 0x656e64ull << 32;    // "end": the end of a string with holes

/// A running 64-bit digest (sim/state_hash.h). With `names` set (symmetry, sim/symmetry.h), a digest with holes:
/// each own name of an interchangeable actor in a string, and each actor index given to actor(), is hashed as a
/// hole and its actor appended to `refs`.
struct Hasher {
  uint64_t h = 0x616c6c6f6373696dull;  // "allocsim"
  const std::vector<OwnName>* names = nullptr;
  const std::array<bool, 256>* starts = nullptr;  // with `names` (ActorSymmetry::starts)
  std::vector<sim::ActorId>* refs = nullptr;
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
    // The pieces between holes, each with its length, then an end mark that delimits the string (its length would
    // not do: renaming changes it).
    split_names(
        v, *names, *starts, [&](std::string_view text) { h = sim::state_mix_text(h, text); },
        [&](const OwnName& o) {
          u(kNameHole + o.place);
          refs->push_back(o.actor);
        });
    return u(kStringEnd);
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
    y.names = names, y.starts = starts, y.refs = refs, y.actors = actors;
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

void add(Hasher& x, const backend::DeviceIdentity& d) {
  x.os(d.node).oi(d.ordinal).os(d.uuid).os(d.mig_uuid).s(d.product);
  x.opt(d.memory_bytes, [](Hasher& y, int64_t v) { y.i(v); }).os(d.mig_profile);
}

void add(Hasher& x, const std::vector<backend::DeviceIdentity>& ds) {
  x.u(ds.size());
  for (const auto& d : ds) add(x, d);
}

uint64_t labels_digest(const backend::NodeFixture& n) {
  Hasher x;
  x.map_ss(n.labels.get());  // the labels, not their stamp: equal labels with different stamps are one state
  return x.h;
}

/// `labels`: labels_digest(n), which the live state memoizes per stamp.
void add(Hasher& x, const backend::NodeFixture& n, uint64_t labels) {
  // product, gpu_count and memory_gib never change, but they are cheap and keep the digest whole.
  x.s(n.name).s(n.product).i(n.gpu_count).d(n.memory_gib).u(labels);
  x.os(n.owner).os(n.owner_epoch).i(n.resource_version).s(n.mig_config).s(n.mig_state).i(n.mig_state_generation);
  x.map_si(n.mig_layout).map_si(n.workloads).os(n.restore_record);
}

void add(Hasher& x, const backend::NodeFixture& n) {
  Hasher labels =
      x.sub();  // labels_digest(n), with holes when x has them (a carved node's config label names an entry)
  labels.map_ss(n.labels.get());
  add(x, n, labels.h);
}

void add(Hasher& x, const backend::FeasiblePlan& p) {
  x.u(p.assignments.size());
  for (const auto& [w, ds] : p.assignments) x.s(w), add(x, ds);
  x.map_ss(p.geometry).s(p.snapshot_generation).s(p.plan_id).strings(p.notes);
}

void add(Hasher& x, const backend::PlanOutcome& p) {
  if (const auto* f = std::get_if<backend::FeasiblePlan>(&p)) {
    x.u(1);
    add(x, *f);
  } else {
    x.u(2).strings(std::get<backend::Infeasible>(p).reasons);
  }
}

void add(Hasher& x, const backend::Claim& c) {
  x.s(c.claim_id).s(c.owner);
  add(x, c.plan);
  x.s(c.generation).strings(c.nodes).s(c.status).b(c.workload_ready).s(c.entry_name);
  x.s(c.op_id).b(c.releasing).map_si(c.label_versions);
}

void add(Hasher& x, const backend::InventorySnapshot& v) {
  add(x, v.devices.items());
  x.map_si(v.occupancy).map_ss(v.sharing).map_ss(v.owners).s(v.completeness).d(v.observed_at).s(v.generation);
}

void add(Hasher& x, const backend::Mutation& m) { x.s(m.op_id).s(m.kind).s(m.target).s(m.detail); }

uint64_t mutation_digest(const backend::Mutation& m) {
  Hasher x;
  add(x, m);
  return x.h;
}

/// The audit log as a multiset (state_digest.h, 3): a sum, so that the same entries in any order give the same
/// digest. `from`, `sum`: the digest of the first `from` entries, already known.
uint64_t audit_multiset(const backend::BackendState& s, size_t from = 0, uint64_t sum = 0) {
  for (size_t i = from; i < s.audit.size(); ++i) sum += mutation_digest(s.audit[i]);
  return sum;
}

/// Everything of a backend state (the live one, or a copy an invariant keeps) but its nodes and claims, which
/// the live state lists as objects. `audit`: audit_multiset(s).
void add_rest(Hasher& x, const backend::BackendState& s, uint64_t audit) {
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

void add_whole(Hasher& x, const backend::BackendState& s) {
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

void add(Hasher& x, const sim::SimMutex& m) { x.actor(int64_t(m.holder())).i(m.depth()); }  // kNoActor: as is

void add(Hasher& x, const ReadFaults& r) {
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
}

void add(Hasher& x, const ActorState& a) {
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

uint64_t digest_of(const auto& v) {
  Hasher x;
  add(x, v);
  return x.h;
}

}  // namespace

uint64_t actor_digest(const ActorState& a) {
  Hasher x;
  add(x, a);
  return x.h;
}

uint64_t ObjectHistories::canonical_digest(const backend::BackendState& s) const {
  Hasher x;
  x.b(enabled);
  if (!enabled) return x.h;
  const auto source = [&](const VersionSource& v) {
    // The audit entry by its content: its index depends on how commuting appends interleaved.
    x.i(v.principal).i(v.actor).s(v.what).s(v.value);
    x.u(v.audit >= 0 && size_t(v.audit) < s.audit.size() ? mutation_digest(s.audit[size_t(v.audit)]) : 0);
  };
  const auto version = [&](const ObjectVersion& v) {
    x.u(v.number).b(v.present);
    source(v.by);
  };
  x.b(lost.has_value()).i(principals_).u(audit_seen_).u(objects_.size());
  for (const ObjectVersion& v : objects_) version(v);
  for (const auto& sight : seen_) {
    x.b(sight.has_value());
    if (!sight) continue;
    x.u(sight->number);
    version(sight->version);
    source(sight->at);
  }
  x.u(recovering_count_);
  for (size_t i = 0; i < recovering_count_; ++i) x.s(recovering_[i].first).i(recovering_[i].second);
  x.u(pending_.size());
  for (const auto& f : pending_) {
    x.u(f.object).b(f.changed);
    source(f.by);
  }
  return x.h;
}

namespace {

/// The failing-geometry hooks armed on node `node`: failing, hollow, partial, failing until.
void add_geometry_hooks(Hasher& g, const backend::BackendState& s, const std::string& node) {
  g.b(std::find(s.failing_geometry.begin(), s.failing_geometry.end(), node) != s.failing_geometry.end());
  g.b(std::find(s.hollow_geometry.begin(), s.hollow_geometry.end(), node) != s.hollow_geometry.end());
  const int* partial = backend::find_in(s.partial_geometry, node);
  g.i(partial ? *partial : 0);
  const double* until = backend::find_in(s.failing_geometry_until, node);
  g.b(until != nullptr).d(until ? *until : 0);
}

/// Every node, its geometry hooks, and all nodes at once (AllNodes): their footprint objects' digests, into `o`.
void add_node_objects(const backend::BackendState& s, std::vector<WorldStorage::NodeDigestMemo>& memo,
                      std::vector<sim::ObjectDigest>& o) {
  Hasher all;  // AllNodes: every node at once
  memo.resize(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const backend::NodeFixture& n = s.nodes[i];
    WorldStorage::NodeDigestMemo& m = memo[i];
    if (!m.ids)
      m.node_id = object_id(Obj::Node, n.name), m.hooks_id = object_id(Obj::FailingGeometry, n.name), m.label_stamp = 0,
      m.label_digest = 0, m.ids = true;
    if (m.label_stamp != n.labels.stamp() || n.labels.stamp() == 0)
      m.label_stamp = n.labels.stamp(), m.label_digest = labels_digest(n);
    Hasher nd;
    add(nd, n, m.label_digest);
    const uint64_t d = nd.h;
    o.push_back({m.node_id, d});
    all.u(d);
    Hasher g;  // the failing-geometry hooks of this node
    add_geometry_hooks(g, s, n.name);
    o.push_back({m.hooks_id, g.h});
  }
  o.push_back({object_id(Obj::AllNodes, ""), all.h});
}

/// The claims, the claim table, the shared map, the pointer, the clock, the pending geometry writes and the read
/// hooks: their footprint objects' digests, into `o`. Returns the claim table's digest.
uint64_t add_backend_objects(const backend::BackendState& s, std::vector<sim::ObjectDigest>& o) {
  Hasher table;  // the claim table's membership, in insertion order (upstream's dict)
  for (const auto& c : s.claims) {
    o.push_back({object_id(Obj::Claim, c.claim_id), digest_of(c)});
    table.s(c.claim_id);
  }
  o.push_back({object_id(Obj::Claim, ""), table.h});
  {
    Hasher m;
    m.u(s.shared_config.size());
    for (const auto& [entry, nodes] : s.shared_config) m.s(entry).map_si(nodes);
    m.i(s.shared_config_version).b(s.shared_tombstone).b(s.shared_map_deleted);
    o.push_back({object_id(Obj::SharedMap, "videoflow-map"), m.h});
  }
  {
    Hasher p;
    p.s(s.pointer).i(s.pointer_version).os(s.pointer_restore);
    o.push_back({object_id(Obj::Pointer, "clusterpolicy"), p.h});
  }
  o.push_back({object_id(Obj::Clock, "clock"), Hasher{}.d(s.clock.monotonic()).d(s.clock.time()).h});
  {
    Hasher g;
    for (const auto& p : s.pending_geometry) g.d(p.due).s(p.node).i(p.version);
    o.push_back({object_id(Obj::Clock, "pending-geometry"), g.h});
  }
  for (const char* kind : {"nodes", "pods", "config"}) {
    const std::string* reason = backend::find_in(s.failed_reads, std::string(kind));
    o.push_back({object_id(Obj::FailedReads, kind), reason ? Hasher{}.s(*reason).h : 0});
  }
  {  // the port-only read hook hide_from_release: 0 unarmed, as an unset failed read
    const backend::BackendState::HiddenPods& hidden = s.release_pods_hidden;
    o.push_back({object_id(Obj::FailedReads, "release-pods"),
                 hidden.reads == 0 ? 0 : Hasher{}.strings(hidden.workloads).i(hidden.reads).h});
  }
  return table.h;
}

/// What the invariants and expectations keep between steps (state_digest.h, 2), and which barriers have fired.
void add_invariant_records(Hasher& x, const WorldState& w) {
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

}  // namespace

void canonical_state(const WorldState& w, sim::CanonicalState& out) {
  const backend::BackendState& s = w.backend().state();
  auto& o = out.objects;
  o.clear();
  add_node_objects(s, w.storage_->digest_memo, o);
  const uint64_t table = add_backend_objects(s, o);
  const uint64_t faults = digest_of(w.read_faults);
  o.push_back({read_faults_id(), faults});
  // A stale read's answer depends on the order of the last writes: the read-fault history (faulted_reads.cpp).
  o.push_back({invariant_visible_id(), faults});
  o.push_back({faults_fired_id(), static_cast<uint64_t>(w.faults_fired())});
  if (w.admission.enabled) {  // only where a scenario can arm it: no other scenario's states change
    Hasher a;
    for (const auto& [node, binds] : w.admission.refused) a.s(node).i(binds);
    o.push_back({admission_faults_id(), a.h});
  }
  for (const ActorState& a : w.actors()) {
    Hasher p;
    p.opt(a.plan, [](Hasher& y, const backend::PlanOutcome& v) { add(y, v); });
    o.push_back({actor_plan_id(a.name), p.h});
  }
  o.push_back({w.lock_.footprint_id(), digest_of(w.lock_)});
  for (const auto& life : w.life_)
    if (life) o.push_back({life->footprint_id(), digest_of(*life)});
  std::sort(o.begin(), o.end(),
            [](const sim::ObjectDigest& a, const sim::ObjectDigest& b) { return a.object < b.object; });

  Hasher x;
  for (const auto& od : o) x.u(od.object).u(od.digest);
  WorldStorage& st = *w.storage_;
  if (st.audit_digested > s.audit.size()) st.audit_digest = 0, st.audit_digested = 0;  // not this execution's
  st.audit_digest = audit_multiset(s, st.audit_digested, st.audit_digest);
  st.audit_digested = s.audit.size();
  add_rest(x, s, st.audit_digest);
  add_invariant_records(x, w);
  x.u(w.histories.canonical_digest(s));
  out.world = x.h;
  // Nodes and the harness's objects always exist; claims come and go, and the claim table lists them all: an
  // unlisted id that a step touches is a claim that does not exist (made later, or released).
  out.unlisted = Hasher{}.s("absent").u(table).h;
}

// -- Symmetry (sim/symmetry.h; docs/DESIGN.md §2 "Symmetry") --
//
// The same state as canonical_state() above, as digests with holes: every string through Hasher::s, every actor
// index through Hasher::actor, per-actor pieces as parts of their own (rule 4), and the audit log as one part per
// entry (a multiset, as above). What canonical_state() leaves out, this leaves out; in places it is finer (the
// audit base's log in order, the hidden release pods when unarmed), which can only split states.

namespace {

/// Collects parts into a SymmetricState: a Hasher with holes per part, its refs moved into the state's list.
struct SymSink {
  sim::SymmetricState& out;
  const ActorSymmetry& symmetry;
  uint32_t actors;
  std::vector<sim::ActorId> refs;  // the open part's holes

  Hasher open() {
    refs.clear();
    Hasher x;
    x.names = &symmetry.names, x.starts = &symmetry.starts, x.refs = &refs, x.actors = actors;
    return x;
  }
  sim::SymPart close(const Hasher& x) {
    const sim::SymPart p{x.h, uint32_t(out.refs.size()), uint32_t(refs.size())};
    out.refs.insert(out.refs.end(), refs.begin(), refs.end());
    refs.clear();
    return p;
  }
  /// One part of the world's multiset.
  template <class F>
  void part(F&& f) {
    Hasher x = open();
    f(x);
    out.parts.push_back(close(x));
  }
  /// An object: its name (kind and name, as object_id hashes them) and its content.
  template <class F>
  void object(uint64_t id, backend::Obj kind, std::string_view name, F&& content) {
    Hasher n = open();
    n.u(uint64_t(kind)).s(name);
    const sim::SymPart np = close(n);
    Hasher c = open();
    content(c);
    out.objects.push_back({id, np, close(c)});
  }
  /// An object whose id names no interchangeable actor (a harness object, a lock): its id is its name.
  template <class F>
  void fixed_object(uint64_t id, F&& content) {
    Hasher c = open();
    content(c);
    out.objects.push_back({id, {sim::state_mix(0x6669786564ull, id), 0, 0}, close(c)});
  }
};

}  // namespace

struct HistoryDigest {
  /// ObjectHistories::canonical_digest's content as parts: the versions and the pending foreign writes in one, and
  /// each principal's sights in one of its own, named by a ref. `audit`: each audit entry's digest with holes.
  static void parts(const ObjectHistories& hs, const backend::BackendState& s,
                    const std::vector<WorldStorage::OpStart>& audit, SymSink& sink) {
    const auto source = [&](Hasher& x, const VersionSource& v) {
      x.actor(v.principal).actor(v.actor).s(v.what).s(v.value);
      const bool entry = v.audit >= 0 && size_t(v.audit) < s.audit.size();
      x.b(entry);
      if (!entry) return;
      const WorldStorage::OpStart& e = audit[size_t(v.audit)];  // the entry by its content, as canonical_digest
      x.u(e.h);
      x.refs->insert(x.refs->end(), e.refs.begin(), e.refs.end());
    };
    const auto version = [&](Hasher& x, const ObjectVersion& v) {
      x.u(v.number).b(v.present);
      source(x, v.by);
    };
    sink.part([&](Hasher& x) {
      x.u(0x68697374).b(hs.enabled);  // "hist"
      if (!hs.enabled) return;
      x.b(hs.lost.has_value()).i(hs.principals_).u(hs.audit_seen_).u(hs.objects_.size());
      for (const ObjectVersion& v : hs.objects_) version(x, v);
      x.u(hs.recovering_count_);
      for (size_t i = 0; i < hs.recovering_count_; ++i) x.s(hs.recovering_[i].first).actor(hs.recovering_[i].second);
      x.u(hs.pending_.size());
      for (const auto& f : hs.pending_) {
        x.u(f.object).b(f.changed);
        source(x, f.by);
      }
    });
    if (!hs.enabled || hs.objects_.empty()) return;
    const size_t per = hs.objects_.size();
    for (size_t p = 0; p * per < hs.seen_.size(); ++p)
      sink.part([&](Hasher& x) {
        x.u(0x7365656e).actor(int64_t(p));  // "seen", by principal
        for (size_t o = 0; o < per && p * per + o < hs.seen_.size(); ++o) {
          const auto& sight = hs.seen_[p * per + o];
          x.b(sight.has_value());
          if (!sight) continue;
          x.u(sight->number);
          version(x, sight->version);
          source(x, sight->at);
        }
      });
  }
};

void symmetric_state(WorldState& w, sim::SymmetricState& out) {
  WorldStorage& st = *w.storage_;
  st.symmetric = true;  // from now on the actors record their op starts and the claims they touch
  const backend::BackendState& s = w.backend().state();
  const ActorSymmetry& sym = w.compiled().symmetry();
  SymSink sink{out, sym, uint32_t(w.actors().size()), {}};

  // Nodes, their geometry hooks, and all nodes at once.
  uint64_t all_h = 0x616c6c6e6f646573ull;  // "allnodes"
  std::vector<sim::ActorId> all_refs;
  st.digest_memo.resize(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const backend::NodeFixture& n = s.nodes[i];
    WorldStorage::NodeDigestMemo& m = st.digest_memo[i];
    if (m.sym_label_stamp != n.labels.stamp() || n.labels.stamp() == 0) {
      Hasher l = sink.open();
      l.map_ss(n.labels.get());
      m.sym_label_stamp = n.labels.stamp(), m.sym_label_digest = l.h;
      m.sym_label_refs.assign(sink.refs.begin(), sink.refs.end());
      sink.refs.clear();
    }
    sink.object(object_id(Obj::Node, n.name), Obj::Node, n.name, [&](Hasher& x) {
      x.refs->insert(x.refs->end(), m.sym_label_refs.begin(), m.sym_label_refs.end());
      add(x, n, m.sym_label_digest);
    });
    const sim::SymPart& d = out.objects.back().digest;
    all_h = sim::state_mix(sim::state_mix(all_h, d.h), d.n);
    all_refs.insert(all_refs.end(), out.refs.begin() + d.at, out.refs.begin() + d.at + d.n);
    sink.object(object_id(Obj::FailingGeometry, n.name), Obj::FailingGeometry, n.name,
                [&](Hasher& g) { add_geometry_hooks(g, s, n.name); });
  }
  out.objects.push_back(
      {object_id(Obj::AllNodes, ""), {0x616c6c, 0, 0}, {all_h, uint32_t(out.refs.size()), uint32_t(all_refs.size())}});
  out.refs.insert(out.refs.end(), all_refs.begin(), all_refs.end());

  // Claims, the claim table, and the backend's other objects.
  for (const auto& c : s.claims)
    sink.object(object_id(Obj::Claim, c.claim_id), Obj::Claim, c.claim_id, [&](Hasher& x) { add(x, c); });
  const auto table = [&](Hasher& x) {
    for (const auto& c : s.claims) x.s(c.claim_id);
  };
  sink.object(object_id(Obj::Claim, ""), Obj::Claim, "", table);
  sink.object(object_id(Obj::SharedMap, "videoflow-map"), Obj::SharedMap, "videoflow-map", [&](Hasher& m) {
    m.u(s.shared_config.size());
    for (const auto& [entry, nodes] : s.shared_config) m.s(entry).map_si(nodes);
    m.i(s.shared_config_version).b(s.shared_tombstone).b(s.shared_map_deleted);
  });
  sink.object(object_id(Obj::Pointer, "clusterpolicy"), Obj::Pointer, "clusterpolicy",
              [&](Hasher& p) { p.s(s.pointer).i(s.pointer_version).os(s.pointer_restore); });
  sink.object(object_id(Obj::Clock, "clock"), Obj::Clock, "clock",
              [&](Hasher& c) { c.d(s.clock.monotonic()).d(s.clock.time()); });
  sink.object(object_id(Obj::Clock, "pending-geometry"), Obj::Clock, "pending-geometry", [&](Hasher& g) {
    for (const auto& p : s.pending_geometry) g.d(p.due).s(p.node).i(p.version);
  });
  for (const char* kind : {"nodes", "pods", "config"})
    sink.object(object_id(Obj::FailedReads, kind), Obj::FailedReads, kind, [&](Hasher& r) {
      const std::string* reason = backend::find_in(s.failed_reads, std::string(kind));
      r.b(reason != nullptr);
      if (reason) r.s(*reason);
    });
  sink.object(object_id(Obj::FailedReads, "release-pods"), Obj::FailedReads, "release-pods",
              [&](Hasher& r) { r.strings(s.release_pods_hidden.workloads).i(s.release_pods_hidden.reads); });

  // The harness's objects.
  sink.fixed_object(read_faults_id(), [&](Hasher& x) { add(x, w.read_faults); });
  sink.fixed_object(invariant_visible_id(), [&](Hasher& x) { add(x, w.read_faults); });
  sink.fixed_object(faults_fired_id(), [&](Hasher& x) { x.i(w.faults_fired()); });
  if (w.admission.enabled)
    sink.fixed_object(admission_faults_id(), [&](Hasher& a) {
      for (const auto& [node, binds] : w.admission.refused) a.s(node).i(binds);
    });
  for (const ActorState& a : w.actors())
    sink.object(actor_plan_id(a.name), Obj(0xF0), a.name,
                [&](Hasher& p) { p.opt(a.plan, [](Hasher& y, const backend::PlanOutcome& v) { add(y, v); }); });
  sink.fixed_object(w.lock_.footprint_id(), [&](Hasher& x) { add(x, w.lock_); });
  for (const auto& life : w.life_)
    if (life) sink.fixed_object(life->footprint_id(), [&](Hasher& x) { add(x, *life); });
  std::sort(out.objects.begin(), out.objects.end(), [](const auto& a, const auto& b) { return a.id < b.id; });

  // The rest of the world: the backend's other fields, what the invariants keep, the audit entries one by one.
  sink.part([&](Hasher& x) {
    add_rest(x, s, 0);
    add_invariant_records(x, w);
  });
  // The audit entries, each digested once per execution (the log only grows within one).
  if (st.audit_parts.size() > s.audit.size()) st.audit_parts.clear();
  for (size_t i = st.audit_parts.size(); i < s.audit.size(); ++i) {
    WorldStorage::OpStart& e = st.audit_parts.emplace_back();
    Hasher x;
    x.names = &sym.names, x.starts = &sym.starts, x.refs = &e.refs, x.actors = sink.actors;
    add(x, s.audit[i]);
    e.h = x.h;
  }
  for (const WorldStorage::OpStart& e : st.audit_parts) {
    out.parts.push_back({sim::state_mix(0x61756469, e.h), uint32_t(out.refs.size()), uint32_t(e.refs.size())});
    out.refs.insert(out.refs.end(), e.refs.begin(), e.refs.end());
  }
  HistoryDigest::parts(w.histories, s, st.audit_parts, sink);

  // What an absent claim reads as: the claim table (CanonicalState::unlisted), and the names of claims steps
  // touched, so that the engine can rename them.
  {
    Hasher x = sink.open();
    x.s("absent");
    table(x);
    out.unlisted = sink.close(x);
  }
  for (const std::string& id : st.touched_claims) {
    if (s.claim(id) != nullptr) continue;
    Hasher n = sink.open();
    n.u(uint64_t(Obj::Claim)).s(id);
    out.absent_names.emplace_back(object_id(Obj::Claim, id), sink.close(n));
  }
  std::sort(out.absent_names.begin(), out.absent_names.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });

  // Each actor's local state at its latest op start (record_op_start).
  out.actors.resize(w.actors().size());
  for (size_t a = 0; a < w.actors().size(); ++a) {
    const WorldStorage::OpStart& o = st.op_starts[a];
    out.actors[a] = {o.h, uint32_t(out.refs.size()), uint32_t(o.refs.size())};
    out.refs.insert(out.refs.end(), o.refs.begin(), o.refs.end());
  }
}

void record_op_start(WorldState& w, const ActorState& a) {
  WorldStorage& st = *w.storage_;
  const size_t index = size_t(&a - w.actors().data());
  Hasher x;
  const ActorSymmetry& sym = w.compiled().symmetry();
  x.names = &sym.names, x.starts = &sym.starts, x.refs = &st.op_starts[index].refs;
  x.actors = uint32_t(w.actors().size());
  st.op_starts[index].refs.clear();
  add(x, a);
  st.op_starts[index].h = x.h;
}

void note_touched_claim(WorldState& w, std::string_view id) {
  std::vector<std::string>& seen = w.storage_->touched_claims;
  if (std::find(seen.begin(), seen.end(), id) == seen.end()) seen.emplace_back(id);
}

}  // namespace allocsim::harness
