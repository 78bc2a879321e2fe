// The porting rules of backend/model/memory_backend.h ("Porting rules"), each broken on purpose: the check throws
// PortRuleBroken naming the rule (never undefined behaviour), and the same call with the rule kept passes. Check
// mode's poisoning (backend/model/check_mode.h): recycled storage comes back poisoned, and a correct port shows
// none of it.
#include <catch2/catch.hpp>

#include <string>

#include "backend/model/check_mode.h"
#include "backend/model/memory_backend.h"
#include "backend/model/spares.h"
#include "backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace allocsim::backend {

// The test-only hook memory_backend.h names as its friend: fires barriers and pins references as a broken port
// would.
struct PortRulesTest {
  static void fire(MemoryBackend& b, Caller& c, bool under_lock, std::string_view name) {
    b.barrier(c, under_lock ? MemoryBackend::At::kUnderLock : MemoryBackend::At::kOutsideLock, name,
              FMT_COMPILE("node={}"), "n1");
  }
  static void fire_pinned(MemoryBackend& b, Caller& c) {
    const MemoryBackend::Pinned pinned(b);
    fire(b, c, false, "owner.read.after");
  }
  static int pinned(const MemoryBackend& b) { return b.pinned_; }
};

}  // namespace allocsim::backend

namespace {

/// Turns check mode on for one test case and restores what it was.
struct CheckMode {
  bool was = check_mode();
  explicit CheckMode(bool on) { set_check_mode(on); }
  ~CheckMode() { set_check_mode(was); }
};

MemoryBackend backend() { return MemoryBackend{{a100_node("n1")}, opts(kAuthorityManagedMig)}; }

}  // namespace

TEST_CASE("port rule 1: a barrier the upstream fires outside the lock fails with a LockGuard alive", "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  PortRulesTest::fire(b, c, false, "owner.read.after");  // kept: no LockGuard
  CHECK(c.fired.size() == 1);
  {
    LockGuard lock(c);
    CHECK(c.lock_guards() == 1);
    CHECK_THROWS_AS(PortRulesTest::fire(b, c, false, "owner.read.after"), PortRuleBroken);
    CHECK_THROWS_WITH(PortRulesTest::fire(b, c, false, "owner.read.after"),
                      Catch::Matchers::StartsWith("port rule broken: 1 (a barrier fired outside the lock with a "
                                                  "LockGuard alive)"));
  }
  CHECK(c.lock_guards() == 0);
  CHECK(c.fired.size() == 1);  // the broken barrier never fired
}

TEST_CASE("port rule 1: a barrier the upstream fires under the lock fails with no LockGuard alive", "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  CHECK_THROWS_AS(PortRulesTest::fire(b, c, true, "claim.create.after"), PortRuleBroken);
  CHECK_THROWS_WITH(PortRulesTest::fire(b, c, true, "claim.create.after"),
                    Catch::Matchers::StartsWith("port rule broken: 1 (a barrier fired under the lock with no "
                                                "LockGuard alive)"));
  c.lock();  // a raw lock() (the lock-leak mutant's) is not a LockGuard: still broken
  CHECK_THROWS_AS(PortRulesTest::fire(b, c, true, "claim.create.after"), PortRuleBroken);
  c.unlock();
  LockGuard lock(c);
  PortRulesTest::fire(b, c, true, "claim.create.after");
  CHECK(c.fired == std::vector<std::pair<std::string, std::string>>{{"claim.create.after", "node=n1"}});
}

TEST_CASE("port rule 2: a barrier fired while a reference into the state is pinned fails", "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  CHECK_THROWS_AS(PortRulesTest::fire_pinned(b, c), PortRuleBroken);
  CHECK_THROWS_WITH(PortRulesTest::fire_pinned(b, c),
                    Catch::Matchers::StartsWith("port rule broken: 2 (a barrier fired while a reference into the "
                                                "state is held)"));
  CHECK(PortRulesTest::pinned(b) == 0);  // the scope unwound
  CHECK(c.fired.empty());
}

TEST_CASE("port rules 1 and 2 hold through a reserve and a release: every barrier fires and no lock or pin is left",
          "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  const FeasiblePlan p = feasible(b.plan(c, {mig_req("wa", 10)}, snapshot(b, c)));
  const ClaimObservation obs = b.reserve(c, p, "flowA:op1", p.snapshot_generation);
  b.mark_workload_ready(c, obs.claim_id);
  const ReleaseObservation r = b.release(c, obs.claim_id, "flowA:op2", obs.desired_generation);
  CHECK(r.status == kReleaseReleased);
  CHECK(c.fired.size() == 10);  // every allocation barrier once (backend/CONTRACT.md §2)
  CHECK(c.lock_guards() == 0);
  CHECK(PortRulesTest::pinned(b) == 0);
}

TEST_CASE("check mode: a barrier name outside backend/CONTRACT.md section 2 fails", "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  {
    const CheckMode on(true);
    CHECK_THROWS_AS(PortRulesTest::fire(b, c, false, "owner.reed.after"), PortRuleBroken);
    CHECK_THROWS_WITH(PortRulesTest::fire(b, c, false, "owner.reed.after"),
                      Catch::Matchers::Contains("barrier names are backend/CONTRACT.md"));
  }
  const CheckMode off(false);
  PortRulesTest::fire(b, c, false, "owner.reed.after");  // not checked outside check mode (a name compare)
  CHECK(c.fired.size() == 1);
}

TEST_CASE("port rule 5 (check mode): nodes renamed under the device list fail the next inventory", "[port-rules]") {
  MemoryBackend b = backend();
  SequentialCaller c;
  const CheckMode on(true);
  CHECK(b.inventory(c, std::nullopt).known);
  b.mutable_state().nodes[0].name = "n9";
  CHECK_THROWS_AS(b.inventory(c, std::nullopt), PortRuleBroken);
  CHECK_THROWS_WITH(b.inventory(c, std::nullopt), Catch::Matchers::StartsWith("port rule broken: 5"));
}

TEST_CASE("check mode: spares and scratch come back poisoned and without it as they were given", "[port-rules]") {
  Spares<std::string> texts;
  {
    const CheckMode on(true);
    texts.give(std::string("kept"));
    CHECK(texts.take() == kPoisonText);
    CHECK(texts.take() == kPoisonText);  // a new one too
    Spares<Mutation> mutations;
    mutations.give(Mutation{"op", "kind", "target", "detail"});
    CHECK(mutations.take() == Mutation{kPoisonText, kPoisonText, kPoisonText, kPoisonText});
    std::vector<std::string> list;
    resize_keeping(list, 2, texts);
    CHECK(list == std::vector<std::string>{kPoisonText, kPoisonText});
    Scratch<std::vector<int>> scratch;
    scratch.get() = {1, 2};
    CHECK(scratch.reuse() == std::vector<int>{kPoisonInt, kPoisonInt});
    std::optional<int64_t> absent;
    poison(absent);
    CHECK(absent == int64_t{kPoisonInt});
  }
  const CheckMode off(false);
  texts.give(std::string("kept"));
  CHECK(texts.take() == "kept");
  CHECK(texts.take().empty());
}

TEST_CASE("check mode: a correct port shows no poison in any answer over reused storage", "[port-rules]") {
  const CheckMode on(true);
  MemoryBackend b{{a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig)};
  SequentialCaller c;
  PlanOutcome plan;
  ClaimObservation obs;
  ReleaseObservation released;
  ReserveLoss loss;
  Observation<InventorySnapshot> inv;
  for (int round = 0; round < 3; ++round) {  // later rounds reuse (poisoned) storage of earlier ones
    b.inventory_into(c, std::nullopt, inv);
    REQUIRE(inv.known);
    b.plan_into(c, {mig_req("wa", 10), req("wb", 1)}, inv.value, plan);
    const FeasiblePlan& p = feasible(plan);
    b.try_reserve_into(c, p, "flowA:op" + std::to_string(round), p.snapshot_generation, loss, obs);
    REQUIRE(!loss);
    const std::string text = fmt::format("{} {} {} {}", obs.claim_id, obs.owner, obs.status, obs.grant.size());
    CHECK(text.find(kPoisonText) == std::string::npos);
    CHECK(obs.grant.size() == 2);
    for (const DeviceIdentity& d : obs.grant) {
      CHECK(d.product == kA100);
      CHECK(d.node.value_or(kPoisonText) != kPoisonText);
      CHECK(d.uuid.value_or("") != kPoisonText);
      CHECK(d.ordinal.value_or(0) != kPoisonInt);
    }
    CHECK(inv.detail.empty());
    CHECK(inv.reason.empty());
    b.release_into(c, obs.claim_id, "flowA:rel", obs.desired_generation, false, released);
    CHECK(released.status == kReleaseReleased);
    CHECK(released.reason.empty());
    CHECK(released.remaining.empty());
  }
  for (const Mutation& m : b.mutations())
    CHECK((m.op_id + m.kind + m.target + m.detail).find(kPoisonText) == std::string::npos);
}

TEST_CASE("check mode: poisoned() finds poison left anywhere in an answer, and none in a whole one", "[port-rules]") {
  ClaimObservation obs;
  CHECK_FALSE(poisoned(obs));  // a fresh value holds no poison
  obs.evidence.resize(2);
  poison(obs);
  CHECK(poisoned(obs));
  obs.claim_id = "c1", obs.owner = "flowA", obs.desired_generation = "gen-1", obs.observed_generation = "gen-1";
  obs.status = kClaimAllocated;
  for (NodeEvidence& e : obs.evidence) e = NodeEvidence{"n1", "all-disabled", "success", 1, 1, {}};
  CHECK_FALSE(poisoned(obs));
  obs.evidence[1].resource_version = kPoisonInt;  // one number deep inside, left unassigned
  CHECK(poisoned(obs));
  obs.evidence[1].resource_version = 2;
  obs.observed_generation = std::nullopt;  // an absent optional is no poison; an engaged poisoned one is
  CHECK_FALSE(poisoned(obs));
  poison(obs.observed_generation);
  CHECK(poisoned(obs));

  Observation<InventorySnapshot> unknown;
  unknown.known = false, unknown.reason = "timeout", unknown.detail = "node listing failed";
  poison(unknown.value.generation);  // an Unknown answer's value means nothing: not looked at
  CHECK_FALSE(poisoned(unknown));
  unknown.known = true;
  CHECK(poisoned(unknown));
  bool flag = false;
  poison(flag);
  CHECK_FALSE(poisoned(flag));  // true is a legal bool: a bool's poison cannot be told from a value
  double at = 0;
  poison(at);
  CHECK(poisoned(at));
}

TEST_CASE("check mode: an inventory answer is checked against its scope (porting rule 6)", "[port-rules]") {
  const CheckMode on(true);
  MemoryBackend b{{a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig)};
  SequentialCaller c;
  const auto scoped = b.inventory(c, std::vector<std::string>{"n2"});
  REQUIRE(scoped.known);
  CHECK(scoped.value.sharing.size() == 1);
  CHECK(scoped.value.devices.size() == 2);
  const auto all = b.inventory(c, std::nullopt);
  CHECK(all.value.sharing.size() == 2);
  CHECK(all.value.occupancy.size() == 2);
}
