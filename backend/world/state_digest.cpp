#include "backend/world/state_digest.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "backend/world/admission_faults.h"
#include "backend/world/leases.h"
#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"
#include "backend/world/state_hasher.h"
#include "sim/state_hash.h"

namespace allocsim::harness {

// A new field must be placed in or out of the canonical state (state_digest.h) before these sizes are updated.
static_assert(sizeof(backend::NodeFixture) == 360, "NodeFixture changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::Claim) == 392, "Claim changed: place the new field in state_digest.cpp");
static_assert(sizeof(ActorState) == 2232, "ActorState changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::BackendState) == 416, "BackendState changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::InventorySnapshot) == 160,
              "InventorySnapshot changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::FeasiblePlan) == 136, "FeasiblePlan changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::DeviceIdentity) == 216,
              "DeviceIdentity changed: place the new field in state_digest.cpp");
static_assert(sizeof(backend::Mutation) == 128, "Mutation changed: place the new field in state_digest.cpp");
static_assert(sizeof(ReadFaults) == 168, "ReadFaults changed: place the new field in state_digest.cpp");
static_assert(sizeof(ObjectHistories) == 672, "ObjectHistories changed: place the new field in state_digest.cpp");
static_assert(sizeof(AdmissionFaults) == 32, "AdmissionFaults changed: place the new field in state_digest.cpp");
static_assert(sizeof(Leases) == 56, "Leases changed: place the new field in state_digest.cpp");
static_assert(sizeof(PodResources) == 24, "PodResources changed: place the new field in state_digest.cpp");
static_assert(sizeof(WorldStorage) == 3888, "WorldStorage changed: place the new field in state_digest.cpp");
static_assert(sizeof(GeometryWrite) == 88, "GeometryWrite changed: place the new field in state_digest.cpp");
static_assert(sizeof(BoundWorkload) == 72, "BoundWorkload changed: place the new field in state_digest.cpp");
static_assert(sizeof(NodeShadow) == 40, "NodeShadow changed: place the new field in state_digest.cpp");

using backend::Obj;
using namespace digest;

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
  for (size_t i = 0; w.leases.enabled && i < w.actors().size(); ++i)  // leased flows only (leases.h)
    if (w.leases.leased[i]) o.push_back({lease_id(w.actors()[i].name), Hasher{}.d(w.leases.renewed_at[i]).h});
  if (w.compiled().pod_resources) {  // only where a bind names a resource or a claim (kubelet_admission.h)
    Hasher r;
    for (const auto& h : w.pod_resources.held) r.s(h.node).s(h.workload).s(h.resource).b(h.slices);
    o.push_back({pod_resources_id(), r.h});
  }
  for (size_t i = 0; i < w.compiled().claims_named.size(); ++i)  // claims another actor's bind names
    if (w.compiled().claims_named[i]) {
      const ActorState& a = w.actors()[i];
      o.push_back(
          {actor_claims_id(a.name), Hasher{}.opt(a.claim_id, [](Hasher& y, const std::string& v) { y.s(v); }).h});
    }
  for (const ActorState& a : w.actors()) {
    Hasher p;
    p.opt(a.plan, [](Hasher& y, const backend::PlanOutcome& v) { add(y, v); });
    o.push_back({actor_plan_id(a.name), p.h});
  }
  o.push_back({w.lock_.footprint_id(), digest_of(w.lock_)});
  for (const auto& life : w.life_)
    if (life) o.push_back({life->footprint_id(), digest_of(*life)});
  for (size_t i = 0; i < w.gates_.size(); ++i)  // a write-behind's gate, with whether its op was issued
    if (w.gates_[i]) o.push_back({w.gates_[i]->footprint_id(), Hasher{}.u(digest_of(*w.gates_[i])).b(w.issued_[i]).h});
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

}  // namespace allocsim::harness
