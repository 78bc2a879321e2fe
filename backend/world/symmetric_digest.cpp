// The backend world's symmetric state (state_digest.h symmetric_state; sim/symmetry.h; docs/DESIGN.md §2
// "Symmetry"): the canonical state of state_digest.cpp as digests with holes, and what the actors record for it.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/world/admission_faults.h"
#include "backend/world/leases.h"
#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"
#include "backend/world/state_digest.h"
#include "backend/world/state_hasher.h"

namespace allocsim::harness {

using backend::Obj;
using namespace digest;

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
  NameSplitMemo& memo;
  uint32_t actors;
  std::vector<sim::ActorId> refs;  // the open part's holes

  Hasher open() {
    refs.clear();
    Hasher x;
    x.names = &symmetry.names, x.starts = &symmetry.starts, x.refs = &refs, x.memo = &memo, x.actors = actors;
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
  SymSink sink{out, sym, st.name_splits, uint32_t(w.actors().size()), {}};

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
  for (size_t i = 0; w.leases.enabled && i < w.actors().size(); ++i)  // leased flows only (leases.h)
    if (w.leases.leased[i])
      sink.object(lease_id(w.actors()[i].name), Obj(0xF4), w.actors()[i].name,
                  [&](Hasher& l) { l.d(w.leases.renewed_at[i]); });
  if (w.compiled().pod_resources)  // kubelet_admission.h
    sink.fixed_object(pod_resources_id(), [&](Hasher& r) {
      for (const auto& h : w.pod_resources.held) r.s(h.node).s(h.workload).s(h.resource).b(h.slices);
    });
  for (size_t i = 0; i < w.compiled().claims_named.size(); ++i)  // claims another actor's bind names
    if (w.compiled().claims_named[i])
      sink.object(actor_claims_id(w.actors()[i].name), Obj(0xF6), w.actors()[i].name,
                  [&](Hasher& c) { c.opt(w.actors()[i].claim_id, [](Hasher& y, const std::string& v) { y.s(v); }); });
  for (const ActorState& a : w.actors())
    sink.object(actor_plan_id(a.name), Obj(0xF0), a.name,
                [&](Hasher& p) { p.opt(a.plan, [](Hasher& y, const backend::PlanOutcome& v) { add(y, v); }); });
  sink.fixed_object(w.lock_.footprint_id(), [&](Hasher& x) { add(x, w.lock_); });
  for (const auto& life : w.life_)
    if (life) sink.fixed_object(life->footprint_id(), [&](Hasher& x) { add(x, *life); });
  for (size_t i = 0; i < w.gates_.size(); ++i)  // a write-behind's gate, with whether its op was issued
    if (w.gates_[i])
      sink.fixed_object(w.gates_[i]->footprint_id(), [&](Hasher& x) {
        add(x, *w.gates_[i]);
        x.b(w.issued_[i]);
      });
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
    x.names = &sym.names, x.starts = &sym.starts, x.refs = &e.refs, x.memo = &st.name_splits, x.actors = sink.actors;
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

void begin_symmetric_states(WorldState& w) { w.storage_->symmetric = w.storage_->symmetric_engine = true; }

void record_op_start(WorldState& w, const ActorState& a) {
  WorldStorage& st = *w.storage_;
  const size_t index = size_t(&a - w.actors().data());
  Hasher x;
  const ActorSymmetry& sym = w.compiled().symmetry();
  x.names = &sym.names, x.starts = &sym.starts, x.refs = &st.op_starts[index].refs, x.memo = &st.name_splits;
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
