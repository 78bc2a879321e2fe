// Read faults with shape (docs/DESIGN.md §4, "Read faults"): `stale_reads` (the next reads answer from the state as of
// K writes ago) and `partial_reads` (the next inventories list the pods without some named workloads, and the
// devices without some named cards). Upstream has
// no hook for either: its only read hook is `fail_reads(kind)`, which makes node, pod or config reads fail
// outright (inventory, observe, release). So these live in the harness: the backend keeps answering from its
// live state, and a faulted read is answered by a copy of the backend whose nodes and claims are replaced by
// a recorded past state (stale) or have the named workloads removed (partial). Nothing of upstream's
// behaviour changes, and the reserve's own reads (generation sum, owner read, CAS) are never faulted: they
// are the API server's, and a stale plan is exactly what its generation check refuses. A release's workload check
// is the one read inside an upstream call that can be faulted, and not here: partial_reads with `listings` naming
// "release" arms the port's read hook (backend/model/read_hooks.cpp), since a release writes and cannot be
// answered from a copy.
//
// "K writes ago": a write is a step that wrote a node or a claim (what inventory and observe read); the
// backend's writes between two scheduling points count as one, as an API server's watch cache would deliver
// them together. After every such step the world records a copy of the nodes and claims; the last
// kMaxStaleWrites + 1 are kept (a bounded ring), so "K writes ago" is the entry K before the newest, or the
// start state when fewer than K writes have happened.
//
// Footprints (DPOR): the armed faults are one harness object (read_faults_id); the ops that arm them write
// it, a read reads it and writes it when it consumes a fault. A stale read also reads the visibility object
// (invariant_visible_id), which every node or claim write writes, so its answer (which depends on the order
// of the last K writes) is ordered against each of them. Scenarios without these ops touch nothing new.
//
// Here: the armed faults and the history of read states, per execution (the world's); the faulted reads
// themselves are the actor's (backend/ops/faulted_reads.cpp), the ops that arm them backend/ops/op_faults.cpp.
//
// Contract: at most one stale and one partial fault are armed at a time; arming again replaces the old one.
// A faulted read adds "fault=stale_reads:K" / "fault=partial_reads:w1,w2" to its step's detail (the hidden cards after
// the workloads, by upstream's device uuid: "fault=partial_reads:w1,GPU-n1-0").
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"  // kMaxStaleWrites

namespace allocsim::harness {

/// What inventory and observe read, as of one write.
struct ReadState {
  std::vector<backend::NodeFixture> nodes;
  std::vector<backend::Claim> claims;
};

/// Per execution (one per WorldState).
struct ReadFaults {
  bool enabled = false;           // the scenario has a stale_reads or partial_reads op; else nothing below is used
  uint64_t writes = 0;            // node and claim writes so far (ActorCaller::touch counts them)
  uint64_t recorded = 0;          // `writes` when the newest history entry was recorded
  std::deque<ReadState> history;  // oldest first; at most kMaxStaleWrites + 1 entries
  int stale_writes = 0;           // the armed stale fault: K
  int stale_reads = 0;            // reads it still covers (0: none armed)
  std::vector<std::string> partial_workloads;
  std::vector<std::pair<std::string, int>> partial_devices;  // cards (node, ordinal) the inventory omits too
  int partial_reads = 0;

  /// Starts the history with the start state.
  void start(const backend::BackendState& s);
  /// After a step: records the state if the step wrote a node or a claim.
  void after_step(const backend::BackendState& s);
  /// The state as of `k` writes ago (the oldest kept when fewer are recorded).
  const ReadState& past(int k) const;
};

/// Upstream's uuid of each whole card (node, ordinal): `GPU-<node>-<ordinal>`, as its inventory names them.
std::vector<std::string> device_uuids(const std::vector<std::pair<std::string, int>>& cards);

/// The footprint id of the armed read faults (a harness object, like actor_plan_id).
uint64_t read_faults_id();

}  // namespace allocsim::harness
