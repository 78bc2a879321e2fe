// The lock table of backend/model/memory_backend.h, row by row: each public call's lock regions and barriers,
// rendered as a string ("[" the outermost acquire, "]" its release, barrier names where they fire, "clock"
// where the fake clock moves), against upstream's `with self._lock:` blocks. Plus the clock schedule of
// README "Deviations from upstream" item 6, run through the simulator, which pins upstream's answer.
#include <catch2/catch.hpp>

#include <string>

#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend_fixtures.h"
#include "sim/schedule.h"
#include "sim/strategies/replay.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace {

/// Renders lock regions and barriers in call order.
class LockTrace : public SequentialCaller {
 public:
  void lock() override {
    if (depth++ == 0) trace += "[";
  }
  void unlock() override {
    if (--depth == 0) trace += "]";
  }
  BarrierHit barrier(std::string_view name, std::string) override {
    trace += " " + std::string(name) + " ";
    return {};
  }
  void touch(Obj what, std::string_view name, bool write) override {
    if (what == Obj::Clock && name == "clock" && write) trace += "clock";
  }
  /// The trace since the last take(), emptied.
  std::string take() { return std::exchange(trace, {}); }

  std::string trace;
};

struct LockFixture {
  MemoryBackend b{{a100_node("n1")}, opts(kAuthorityManagedMig, 5.0)};
  LockTrace c;
  FeasiblePlan plan() { return feasible(b.plan(c, {mig_req("wa", 10)}, snapshot(b, c))); }
  ClaimObservation claim() {
    const FeasiblePlan p = plan();
    auto obs = b.reserve(c, p, "flowA:op1", p.snapshot_generation);
    c.take();
    return obs;
  }
};

}  // namespace

TEST_CASE("lock table: reads and test hooks hold the lock for their whole body, as upstream's", "[lock-table]") {
  LockFixture f;
  f.b.fail_reads(f.c, "pods");
  CHECK(f.c.take() == "[]");
  (void)f.b.inventory(f.c, std::nullopt);
  CHECK(f.c.take() == "[]");
  f.b.fail_geometry(f.c, "n1");
  CHECK(f.c.take() == "[]");
  f.b.bind_workload(f.c, "n1", "w", 1);
  CHECK(f.c.take() == "[]");
  f.b.unbind_workload(f.c, "n1", "w");
  CHECK(f.c.take() == "[]");
  f.b.apply_pending_geometry(f.c);
  CHECK(f.c.take() == "[]");
  (void)f.b.claims_of(f.c, "flowA");  // port-only read-back: locked like every seed read
  CHECK(f.c.take() == "[]");
}

TEST_CASE("lock table: plan takes no lock (upstream's plan reads only its snapshot)", "[lock-table]") {
  LockFixture f;
  const InventorySnapshot snap = snapshot(f.b, f.c);
  f.c.take();
  (void)f.b.plan(f.c, {mig_req("wa", 10)}, snap);
  CHECK(f.c.take().empty());
}

TEST_CASE("lock table: the clock advances outside the lock, only the apply takes it", "[lock-table]") {
  LockFixture f;
  f.b.advance_clock(f.c, 5);
  CHECK(f.c.take() == "clock");
  CHECK(f.c.depth == 0);
  CHECK(f.b.state().clock.now() == 1005.0);
}

TEST_CASE("lock table: reserve's five regions and where its barriers fire", "[lock-table]") {
  LockFixture f;
  const FeasiblePlan p = f.plan();
  f.c.take();
  (void)f.b.reserve(f.c, p, "flowA:op1", p.snapshot_generation);
  // generation sum; owner read; CAS write; claim + geometry with create.after and schedule.after inside.
  CHECK(f.c.take() ==
        "[][] owner.read.after  owner.update.before [] owner.update.after [ claim.create.after  "
        "claim.schedule.after ]");
}

TEST_CASE("lock table: reserve's rollback on a foreign owner is its own locked region", "[lock-table]") {
  LockFixture f;
  const FeasiblePlan p = f.plan();
  f.b.mutable_state().node("n1")->owner = "flowB";
  f.c.take();
  CHECK_THROWS_AS(f.b.reserve(f.c, p, "flowA:op1", p.snapshot_generation), OwnershipConflict);
  CHECK(f.c.take() == "[][] owner.read.after []");
}

TEST_CASE("lock table: observe, mark_workload_ready, bindings and reconcile are locked whole", "[lock-table]") {
  LockFixture f;
  const ClaimObservation obs = f.claim();
  (void)f.b.observe(f.c, obs.claim_id);
  CHECK(f.c.take() == "[]");
  f.b.mark_workload_ready(f.c, obs.claim_id);
  CHECK(f.c.take() == "[ claim.ready.after ]");
  (void)f.b.bindings(f.c, obs.claim_id, "wa");
  CHECK(f.c.take() == "[]");
  (void)f.b.reconcile(f.c, obs.claim_id, kClaimReady, obs.desired_generation);
  CHECK(f.c.take() == "[]");
}

TEST_CASE("lock table: release's four regions, delete.before and delete.after fire outside", "[lock-table]") {
  LockFixture f;
  const ClaimObservation obs = f.claim();
  (void)f.b.release(f.c, obs.claim_id, "flowA:release1", obs.desired_generation);
  CHECK(f.c.take() == "[ restore.before  restore.after ][] delete.before [] delete.after []");
  // Early answers return from the first region.
  (void)f.b.release(f.c, obs.claim_id, "flowA:release2", obs.desired_generation);
  CHECK(f.c.take() == "[]");
}

TEST_CASE("clock schedule: time passes during a locked reserve, as on upstream", "[lock-table][clock]") {
  using namespace allocsim;
  const harness::Scenario sc =
      harness::load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-021-readiness-stages.json");
  auto compiled = harness::compile(sc, {});
  harness::BackendWorld world(*compiled);
  sim::Engine engine;
  std::vector<std::string> names;
  for (const auto& a : sc.actors) names.push_back(a.name);
  sim::ReplayStrategy strategy(sim::parse_schedule("v1:clock*2,flowA*6,clock,flowA*9,clock", names));
  strategy.begin_execution(0);
  const sim::ExecutionResult r = engine.run(world, strategy);
  REQUIRE(r.steps.size() == 19);
  REQUIRE_FALSE(r.violation);
  // Step 8: the clock advances at once (to 1015) and only then waits for the lock the reserve holds, so the
  // reserve queues its write at 1015 + 5; the apply at step 18 finds nothing due. Before the fix the clock
  // waited before advancing, the write was queued at 1015 and applied at step 18.
  CHECK(std::string(r.steps[18].what) == "lock.wait");
  const BackendState& s = world.backend().state();
  CHECK(s.clock.now() == 1015.0);
  REQUIRE(s.pending_geometry.size() == 1);
  CHECK(s.pending_geometry[0].due == 1020.0);
  CHECK(s.node("n1")->mig_state == "pending");
  CHECK(world.actors()[0].outcomes[2] == std::string("timeout"));
}
