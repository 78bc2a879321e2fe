// The restore-record-overwritten mutant (backend/model/mutants.h, ALLOC-033's upstream defect) against the
// faithful port: a second prepare on a node that already carries an allocsim entry must not re-record the
// node's restore record, or the first cleanup restores a stale allocsim config.
#include <catch2/catch.hpp>

#include "tests/backend/backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace {

/// Two MIG sharers of flowA prepared on n1 one after the other (geometry applies after 5 s, so n1 is not
/// yet classified mig and the second plan lands on n1 too), then the first claim released.
struct TwoPrepares {
  MemoryBackend b;
  SequentialCaller c;
  ClaimObservation first, second;
  explicit TwoPrepares(std::vector<Mutant> mutants)
      : b({a100_node("n1")}, opts(kAuthorityManagedMig, 5.0, std::move(mutants))) {
    first = plan_and_reserve(b, c, {mig_req("wa", 10)}, "flowA:op1");
    second = plan_and_reserve(b, c, {mig_req("wb", 10)}, "flowA:op2");
  }
  const NodeFixture& n1() const { return *b.state().node("n1"); }
};

}  // namespace

TEST_CASE("restore-record-overwritten: upstream keeps the first restore record, the mutant records an entry",
          "[mutants][alloc-033]") {
  SECTION("faithful: the record stays the node's original config, and release restores it") {
    TwoPrepares t({});
    REQUIRE(t.n1().restore_record == std::optional<std::string>("all-disabled"));
    CHECK(t.b.mutations({"record-restore"}).size() == 1);
    const auto r = t.b.release(t.c, t.first.claim_id, "flowA:release1", t.first.desired_generation);
    CHECK(r.status == kReleaseReleased);
    CHECK(t.n1().mig_config == "all-disabled");
    CHECK_FALSE(t.n1().restore_record.has_value());
  }
  SECTION("mutant: the second prepare records the first's entry, and release restores that stale entry") {
    TwoPrepares t({Mutant::RestoreRecordOverwritten});
    const std::string first_entry = "videoflow-flowA-gen-3";
    REQUIRE(t.n1().restore_record == std::optional<std::string>(first_entry));
    const auto records = t.b.mutations({"record-restore"});
    REQUIRE(records.size() == 2);
    CHECK(records[1].detail == first_entry);
    t.b.release(t.c, t.first.claim_id, "flowA:release1", t.first.desired_generation);
    CHECK(t.n1().mig_config == first_entry);                            // an allocsim config ...
    CHECK(find_in(t.b.state().shared_config, first_entry) == nullptr);  // ... whose entry was just stripped
  }
}
