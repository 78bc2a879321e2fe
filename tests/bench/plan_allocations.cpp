// MemoryBackend::plan_into (backend/model/memory_backend.h): once warm, planning over the same inventory allocates
// nothing (docs/DESIGN.md §5, "Storage reused across executions"), counted by the bench's counting operator new
// (tools/bench/alloc_counter.h, linked into this binary only), with whole devices, an exclusion note and MIG sharers in
// the plan.
#include <catch2/catch.hpp>

#include "tests/backend/backend_fixtures.h"
#include "tools/bench/alloc_counter.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;
using allocsim::bench::alloc_counts;

TEST_CASE("plan_into: a warm plan allocates nothing: whole devices, an exclusion and MIG sharers") {
  // Names longer than any small-string buffer, so that every string the plan holds lives on the heap.
  NodeFixture owned = gpu_node("n1-owned-by-another-flow");
  owned.owner = "flowB";
  MemoryBackend b({owned, gpu_node("n2-a-node-with-a-long-name"), gpu_node("n3-another-long-named-node")},
                  opts(kAuthorityManagedMig));
  SequentialCaller c;
  const InventorySnapshot snap = snapshot(b, c);
  const std::vector<WorkloadRequest> requests = {req("trainer-with-a-long-workload-id", 2), req("w2", 1),
                                                 mig_req("sharer-one-with-a-long-id", 20), mig_req("s2", 20)};
  PlanOutcome plan;
  b.plan_into(c, requests, snap, plan);  // the warm-up: storage grows to this plan's shape
  const FeasiblePlan& p = std::get<FeasiblePlan>(plan);
  REQUIRE(p.assignments.size() == 4);
  REQUIRE(p.geometry.size() == 1);
  REQUIRE(p.notes.size() == 1);
  constexpr int kPlans = 100;
  const auto before = alloc_counts();
  for (int i = 0; i < kPlans; ++i) b.plan_into(c, requests, snap, plan);
  const auto used = alloc_counts() - before;
  CHECK(used.allocations == 0);
  CHECK(used.frees == 0);
  CHECK(std::get<FeasiblePlan>(plan).plan_id == "plan-" + std::to_string(c.counter));
}
