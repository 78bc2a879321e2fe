// The swarm's scenario generator (docs/DESIGN.md §7, "Swarm"): from a 64-bit seed, one `allocsim/scenario/v1` document
// that the scenario loader and the JSON Schema accept, drawn the swarm-testing way (Groce et al., "Swarm
// Testing", ISSTA 2012): first a feature set (which ops, which fault kinds, which sharing kinds, MIG or
// not, a start state or not, foreign writes or not), then the scenario inside those features.
//
// Shapes: the cluster is 1-4 nodes of 1-8 cards each, products from the real tables (backend/model/mig_geometry.h:
// the GFD product labels of backend/CONTRACT.md §3, plus two products without a MIG table); an authority;
// 2-4 actors, and a sweeper besides them in some. Flows run the protocol's natural sequences (reserve with 1-3
// requests, or inventory + plan + reserve, or reserve another flow's plan; then observe / await / mark_ready /
// reconcile, bind, release, maybe a second reserve); the other actors are a kubelet (binds and unbinds pods), an
// operator (foreign writes), a chaos actor (read and geometry faults), a clock, a restarted controller (recover),
// or a sweeper (a recover that does not wait for its flow's end). Every
// scenario checks every invariant and expects `pass`: the swarm reports any violation as a finding.
//
// Contract: deterministic in the seed (same seed, same bytes, on every machine: sim::Prng only, no
// <random>, no clock); the document always loads (tests/backend/swarm_gen_test.cpp checks many seeds against
// the loader and the schema). Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocsim::harness {

/// What a generated scenario may use (drawn first, from the seed). Exposed for tests and for the swarm's
/// summary: a finding's scenario says which features it was drawn with.
struct SwarmFeatures {
  bool mig = false;                  // a MIG product, managed-mig authority, isolated_mig requests possible
  std::vector<std::string> sharing;  // the sharing kinds requests may use (never empty)
  bool split_reserve = false;        // inventory + plan + reserve as separate ops, plan_from
  bool status_ops = false;           // observe, await, mark_ready, reconcile
  bool release = false;              // release (and keep_workloads)
  bool second_reserve = false;       // a flow may reserve again while it holds a claim
  bool binds = false;                // bind_workload / unbind_workload (kubelet, or a flow binding its pod)
  bool foreign_writes = false;       // set_labels, set_mig_state, write_shared_map, set_pointer
  bool read_faults = false;          // fail_reads / restore_reads, stale_reads, partial_reads
  bool geometry_faults = false;      // fail_geometry, fail_geometry_for, geometry_no_effect (geometry_partial below)
  bool barrier_faults = false;       // the `faults` key: crash / raise / drop_response at barriers
  bool recover = false;              // a restarted controller recovers a flow (with crash faults)
  bool start_state = false;          // start workloads, a leftover owner stamp, a resource_version
  bool conditional = false;          // `retry` on reserve, `when` on later ops
  bool clock = false;                // mig_apply_seconds > 0 and advance_clock
  /// A flow re-carves MIG slices and advances the clock in its own script after each reserve (1-4 s, below
  /// mig_apply_seconds 5), then may await prepared: a carve applies between a flow's own two geometry
  /// writes (readiness-one-write-behind needs it). Only with `mig`; sets mig_apply_seconds. Drawn from a
  /// second stream of the seed, so a scenario without it has the bytes it had before the feature existed.
  bool flow_clock = false;
  /// With `start_state`: a node that starts stamped by flowX also starts with the claim flowX left (a start
  /// claim holding one free card there), so the stamp is a claim's and the healing phase can release it,
  /// instead of F5's claimless stamp. Drawn from a third stream of the seed, as `flow_clock` from the second;
  /// set only when the scenario has the claim (some stamped node has a free card).
  bool leftover_claim = false;
  /// With `geometry_faults`: the chaos actor ends by arming geometry_partial on a node (1-2 applies), so an apply
  /// carves part of its layout and fails. Drawn from a fourth stream of the seed; set only when the scenario has
  /// the op (the chaos actor is one of its actors).
  bool partial_apply = false;
  /// With `read_faults`: the chaos actor's partial_reads ops also cover release listings (`listings`
  /// ["release"] or ["inventory", "release"], half each), so a release or a recovery may free a claim whose pods
  /// still run. Drawn from a fifth stream of the seed; set only when the scenario has such an op.
  bool release_listing = false;
  /// With `binds`: the kubelet arms reject_binds (1-2 binds) where it refuses something: last, on the node a flow
  /// binds its own pod on (the refusal races that bind), else first, on its own bind's node. Drawn from a sixth
  /// stream of the seed; set only when the scenario has the op (the kubelet is one of its actors).
  bool admission_reject = false;
  /// A sweeper: one more actor, last, named `sweeper`, whose one op is a `recover` of a flow with `wait: false`: a
  /// cleanup that believes the flow's lease expired while the flow may still run (docs/DESIGN.md §4, the op table;
  /// the sweeper race of scenarios/incident-sweeper-releases-live-claim.json). Drawn with probability 1/4 from a
  /// seventh stream of the seed, which also picks the flow; with it a scenario has up to 5 actors.
  bool sweeper = false;
  /// With `sweeper`, in a scenario that moves the clock: the sweeper judges the flow's lease by the fake clock, a
  /// `recover` with `lease_seconds` 5 or 10 instead of `wait: false` (the flow renews it at each op start; the
  /// race of scenarios/incident-expired-lock-taken-from-waiting-holder.json). Drawn with probability 1/2 from an
  /// eighth stream of the seed, which also picks the seconds; set only when the scenario has the key.
  bool leased_sweeper = false;
  /// With `foreign_writes`: the operator's script ends by pausing one node's device plugin as mig-manager does
  /// (`nvidia.com/gpu.deploy.device-plugin: paused-for-mig-change`), and half the time restoring it (`true`), so binds
  /// there may be refused (docs/DESIGN.md §4, the operand labels). Drawn with probability 1/2 from a ninth stream of
  /// the seed, which also picks the node; set only when the scenario has the op (the operator is one of its actors).
  bool operand_pause = false;
  /// With `read_faults`: the chaos actor's partial_reads ops that cover the inventory's listing also hide one card
  /// (`devices`), as a device plugin that stopped listing an unhealthy card. Drawn with probability 1/2 from a tenth
  /// stream of the seed, which also picks the card; set only when the scenario has such an op.
  bool hidden_devices = false;
  /// With `binds`: each flow's own pod names a claim instead of its units (`claim`, docs/DESIGN.md §4): its flow's,
  /// or a quarter of the time any flow's (another's is refused as not reserved for the pod), so the kubelet admits it
  /// only while that claim lives. Drawn with probability 1/2 from an eleventh stream of the seed, which also picks the
  /// claims; set only when the scenario has such a bind.
  bool claimed_binds = false;
  /// With `binds`: each of the kubelet's binds and unbinds is a write-behind (`behind`, docs/DESIGN.md §4 "Op
  /// modifiers") half the time: its write lands later, from a background actor, while the kubelet goes on. Drawn with
  /// probability 1/2 from a twelfth stream of the seed, which also picks the ops; set only when the scenario has one.
  bool bind_behind = false;
  /// With two flows or more: the second flow is a replica of the first, `owner: flowA` (docs/DESIGN.md §4 "Owner
  /// identity"), so the backend sees one owner for both. Drawn with probability 1/8 from a thirteenth stream of the
  /// seed; set only when the scenario has two flows.
  bool shared_owner = false;
  /// With `binds`: each of the kubelet's pods asks an extended resource (`resource`, docs/DESIGN.md §4 "A pod's
  /// resource and its claim") half the time: on a node whose product has a MIG table, half of those the smallest MIG
  /// slice (`nvidia.com/mig-<profile>`), else whole cards (`nvidia.com/gpu`), so the kubelet checks the pod against
  /// what the node's device plugin advertises (a carved node advertises slices, not cards). Drawn with probability
  /// 1/2 from a fourteenth stream of the seed, which also picks the pods and resources; set only when the scenario has
  /// such a bind.
  bool bind_resource = false;
  /// The enabled features' names, in declaration order (e.g. "mig", "sharing=exclusive+cooperative").
  std::vector<std::string> names() const;
};

/// The features seed `seed` draws.
SwarmFeatures swarm_features(uint64_t seed);

/// The scenario of seed `seed`, named `swarm-<seed>`.
nlohmann::ordered_json generate_scenario(uint64_t seed);

}  // namespace allocsim::harness
