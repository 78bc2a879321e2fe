// FootprintedState: the backend's state (backend_state.h) as the port's calls reach it. Each accessor records the
// footprint of what it hands out on the Caller (Caller::touch) before it returns, so that DPOR, sleep sets, the causal
// slice and the state caches see every read and write a step makes: the port has no other way into the state, and a
// footprint cannot be forgotten at a new line of code (loom's wrapped primitives record their accesses the same way;
// docs/DESIGN.md §2, "DPOR must never hide a violation").
//
// The objects, conservative:
//   (Node, name)               a node's fields
//   (AllNodes, "")             a read of every node at once (each node is read as well)
//   (Claim, id)                one claim; (Claim, "") the claim table's membership
//   (SharedMap, kMapName)      the map's entries, version, tombstone and deletion
//   (Pointer, kPolicyName)     the pointer, its version and its restore record
//   (Clock, kClockName)        the fake clock; (Clock, kPendingName) the geometry writes it has queued
//   (FailedReads, kind)        a read failure; (FailedReads, kReleasePodsName) the hook hide_from_release
//   (FailingGeometry, node)    upstream's fail_geometry set and the port-only geometry hooks, for one node
//   (Audit, "")                the audit log (appends commute; the simulator's caller drops these)
//
// Contract:
// - A const accessor reads its object; a `*_for_write` accessor, or write(), writes it and hands out a mutable
//   reference (find_claim_for_write writes only a claim it finds, and reads the one it does not). A write that depends
//   on what was read reads first (`node()`, then `write()` of the same node), so both stay in the step's footprint.
// - Nothing here fires a barrier, so an access and its footprint belong to one step. What an accessor hands out is
//   held only until the step's next barrier: porting rule 2 (memory_backend.h) checks that for references into the
//   nodes and claims (Pinned); the other handles (the map's and pointer's fields, the clock, the hooks' tables) are
//   held the same way, unchecked.
// - Reads of every node (nodes()) record (AllNodes, "") and then each node, the nodes only when the Caller records
//   reads (Caller::records_reads), as a loop over 64 nodes is otherwise most of an inventory's cost; claims() records
//   (Claim, "") and every claim.
// - untracked() is the state without footprints, for MemoryBackend alone (a friend): code that runs when no actor is
//   inside the backend (construction, state() and mutable_state(), check mode's porting-rule checks, recycle_state,
//   mutations_into) and the device list, built from fields no call changes. product() reads one such field. Each use
//   says which. Beside the port, mutable_state()'s users (the harness's read faults, the healing phase's copy, the
//   world's reset) write the state between steps or in a copy no actor runs in.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "backend/model/backend_state.h"
#include "backend/model/caller.h"
#include "backend/model/check_mode.h"

namespace allocsim::backend {

class FootprintedState {
 public:
  using SharedConfig = decltype(BackendState::shared_config);
  using HiddenPods = BackendState::HiddenPods;

  /// A node's product, which no call changes: no footprint. std::out_of_range when the node is absent.
  const std::string& product(std::string_view node) const { return at(s_.node(node), "node", node).product; }

  // -- nodes ---------------------------------------------------------------------------------------------------------

  /// Upstream's `self._nodes[name]`, read. std::out_of_range ("no node NAME") when absent.
  const NodeFixture& node(Caller& c, std::string_view name) const {
    c.touch(Obj::Node, name, false);
    return at(s_.node(name), "node", name);
  }
  /// Upstream's `self._nodes[name]`, written. std::out_of_range when absent.
  NodeFixture& node_for_write(Caller& c, std::string_view name) {
    c.touch(Obj::Node, name, true);
    return at(s_.node(name), "node", name);
  }
  /// A node this step has read (node()), now written. REQUIRES: `n` is one of this state's nodes.
  NodeFixture& write(Caller& c, const NodeFixture& n) {
    ALLOCSIM_PORT_CHECK_SLOW(&n >= s_.nodes.data() && &n < s_.nodes.data() + s_.nodes.size(),
                             "2 (write() of a node that is not the state's)");
    c.touch(Obj::Node, n.name, true);
    return const_cast<NodeFixture&>(n);
  }
  /// Every node, read at once, in scenario order.
  const std::vector<NodeFixture>& nodes(Caller& c) const {
    return nodes(c, [](const NodeFixture&) { return true; });
  }
  /// Every node, read at once, where only the nodes `scoped` admits are read one by one (inventory's scope).
  template <class Scoped>
  const std::vector<NodeFixture>& nodes(Caller& c, const Scoped& scoped) const {
    c.touch(Obj::AllNodes, "", false);
    if (c.records_reads())
      for (const NodeFixture& n : s_.nodes)
        if (scoped(n)) c.touch(Obj::Node, n.name, false);
    return s_.nodes;
  }
  /// The node named `name` for a port-only hook that must refuse an unknown name itself: nullptr (and no footprint)
  /// when absent, else the node, written.
  NodeFixture* find_node_for_write(Caller& c, std::string_view name) {
    NodeFixture* n = s_.node(name);
    if (n != nullptr) c.touch(Obj::Node, name, true);
    return n;
  }

  // -- claims --------------------------------------------------------------------------------------------------------

  /// Upstream's `self._claims.get(id)`, read: nullptr when absent.
  const Claim* find_claim(Caller& c, std::string_view id) const {
    c.touch(Obj::Claim, id, false);
    return s_.claim(id);
  }
  /// Upstream's `self._claims[id]`, read. std::out_of_range ("no claim ID") when absent.
  const Claim& claim(Caller& c, std::string_view id) const { return at(find_claim(c, id), "claim", id); }
  /// Upstream's `self._claims[id]`, written. std::out_of_range when absent.
  Claim& claim_for_write(Caller& c, std::string_view id) {
    c.touch(Obj::Claim, id, true);
    return at(s_.claim(id), "claim", id);
  }
  /// Upstream's `self._claims.get(id)` for a write: the claim, written, or nullptr when absent. Absent is a read too:
  /// the step does nothing because another step removed the claim, so it is ordered against that removal.
  Claim* find_claim_for_write(Caller& c, std::string_view id) {
    Claim* claim = s_.claim(id);
    c.touch(Obj::Claim, id, claim != nullptr);
    return claim;
  }
  /// Every claim, read at once (the table's membership, then each claim), in insertion order.
  const std::vector<Claim>& claims(Caller& c) const {
    c.touch(Obj::Claim, "", false);
    for (const Claim& claim : s_.claims) c.touch(Obj::Claim, claim.claim_id, false);
    return s_.claims;
  }
  /// Upstream's `self._claims[claim.claim_id] = claim`: a new id goes last, a reused one keeps its position.
  void put_claim(Caller& c, Claim&& claim) {
    c.touch(Obj::Claim, "", true);
    c.touch(Obj::Claim, claim.claim_id, true);
    if (Claim* same = s_.claim(claim.claim_id))
      *same = std::move(claim);
    else
      s_.claims.push_back(std::move(claim));
  }
  /// Upstream's `self._claims.pop(id, None)`: each removed claim goes to `give` (for its buffers).
  template <class Give>
  void pop_claim(Caller& c, std::string_view id, Give&& give) {
    c.touch(Obj::Claim, "", true);
    c.touch(Obj::Claim, id, true);
    for (size_t i = 0; i < s_.claims.size();)
      if (s_.claims[i].claim_id == id) {
        give(std::move(s_.claims[i]));
        s_.claims.erase(s_.claims.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
  }

  // -- the shared map and the pointer --------------------------------------------------------------------------------

  /// The shared map's entries, read.
  const SharedConfig& shared_config(Caller& c) const;
  /// The shared map's fields, written.
  struct SharedMapFields {
    SharedConfig& entries;
    int64_t& version;
    bool& tombstone;
    bool& deleted;  // only the map-deleted-on-last-out mutant sets it
  };
  SharedMapFields shared_map_for_write(Caller& c);
  /// The ClusterPolicy pointer's fields, written.
  struct PointerFields {
    std::string& pointer;
    int64_t& version;
    std::optional<std::string>& restore;
  };
  PointerFields pointer_for_write(Caller& c);

  // -- the clock and queued geometry writes --------------------------------------------------------------------------

  const FakeClock& clock(Caller& c) const;
  FakeClock& clock_for_write(Caller& c);
  /// The geometry writes queued for the clock's delay, written.
  std::vector<PendingGeometry>& pending_geometry_for_write(Caller& c);

  // -- read failures and the read hook -------------------------------------------------------------------------------

  /// The reason reads of `kind` ("nodes" | "pods" | "config") fail, or nullptr when they do not.
  const std::string* failed_read(Caller& c, std::string_view kind) const;
  /// Every kind's read failure, written for `kind`.
  OrderedMap<std::string, std::string>& failed_reads_for_write(Caller& c, std::string_view kind);
  /// hide_from_release's arming, read when the backend can arm it (`armable`: BackendOptions::release_read_hook); a
  /// backend that cannot reads it unarmed, and no step writes it.
  const HiddenPods& release_pods(Caller& c, bool armable) const;
  HiddenPods& release_pods_for_write(Caller& c);

  // -- geometry failures and hooks, per node -------------------------------------------------------------------------

  /// The tables of upstream's fail_geometry and the port-only geometry hooks (geometry_hooks.cpp), for one node's
  /// entries: read through geometry_faults(), written through geometry_faults_for_write().
  template <bool kWritable>
  struct GeometryFaultTables {
    template <class T>
    using Ref = std::conditional_t<kWritable, T&, const T&>;
    Ref<std::vector<std::string>> failing;               // fail_geometry: every later apply fails
    Ref<OrderedMap<std::string, double>> failing_until;  // fail_geometry_for: fails until the fake clock's time
    Ref<std::vector<std::string>> hollow;                // geometry_without_effect
    Ref<OrderedMap<std::string, int>> partial;           // geometry_partial: applies left
  };
  GeometryFaultTables<false> geometry_faults(Caller& c, std::string_view node) const;
  GeometryFaultTables<true> geometry_faults_for_write(Caller& c, std::string_view node);

  // -- the audit log -------------------------------------------------------------------------------------------------

  std::vector<Mutation>& audit_for_write(Caller& c);

 private:
  friend class MemoryBackend;
  /// The state without footprints (see the contract above for who may use it).
  const BackendState& untracked() const { return s_; }
  BackendState& untracked() { return s_; }

  template <class T>
  static T& at(T* found, const char* what, std::string_view name) {
    if (found == nullptr) throw std::out_of_range(std::string("no ") + what + " " + std::string(name));
    return *found;
  }

  BackendState s_;
};

}  // namespace allocsim::backend
