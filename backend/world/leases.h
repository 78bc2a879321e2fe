// Leases (docs/DESIGN.md §4, `recover` with `lease_seconds`): a sweeper that judges a flow's lease by the fake clock.
// Upstream has no lease: an owner stamp carries the claim's generation as its epoch, and nothing expires it. A
// controller that cleans up other flows' claims (a garbage collector, a failover leader) decides by a lease it
// reads, and a flow that is slow, not dead, can find its claim swept. The harness models that lease and nothing
// of upstream's behaviour changes: a flow renews its lease at the start of every op, a skipped one included (a
// heartbeat between calls), and right after its own advance_clock, at the fake clock's monotonic time then; a
// leased recover at its `recover` point believes the lease expired when the clock is at least `lease_seconds` past
// the last renewal, and only then reads back and releases.
//
// Footprints (DPOR): each leased flow's lease is one harness object (lease_id), written with a read of the clock
// by each renewal and read with the clock by each leased recover's check. A scenario without a leased recover
// touches nothing new, so its traces and states do not change.
//
// Contract: renewed_at[i] is actor i's last renewal (the clock's start before its first op); it is kept and
// digested only for the actors some leased recover names (leased[i]).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace allocsim::harness {

/// Per execution (one per WorldState).
struct Leases {
  bool enabled = false;            // the scenario has a recover with lease_seconds; else nothing is kept
  std::vector<char> leased;        // per actor: some leased recover names it (from the compiled scenario)
  std::vector<double> renewed_at;  // per actor: the fake clock's monotonic time at its last renewal

  /// Whether the lease of actor `flow`, last renewed at renewed_at[flow], has expired at clock time `now` for a
  /// sweeper that allows `lease_seconds`. REQUIRES: leased[flow].
  bool expired(size_t flow, double now, double lease_seconds) const;
};

/// The footprint id of actor `actor`'s lease (a harness object, like actor_plan_id).
uint64_t lease_id(std::string_view actor);

}  // namespace allocsim::harness
