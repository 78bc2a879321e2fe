// What every hand-built invariant test shares (tests/backend/harness_invariants*.cpp): a two-node managed-MIG
// scenario to build states on, an invariant's table row by name, and the check that a violation names its
// invariant and message and shows every field its row says the check reads (docs/DESIGN.md §5).
#pragma once

#include <catch2/catch.hpp>

#include <optional>
#include <stdexcept>
#include <string>

#include "backend/invariants/invariant_table.h"
#include "sim/world.h"

namespace allocsim::harness::testing {

/// Two 2-card A100 nodes (n1, n2), managed-mig, actors flowA and flowB with empty scripts.
inline const char* const kTwoNodes = R"({
  "schema": "allocsim/scenario/v1", "name": "hand-built",
  "backend": { "authority": "managed-mig" },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
             { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [ { "name": "flowA", "script": [] }, { "name": "flowB", "script": [] } ]
})";

/// The invariant's row in the table (invariant_table.h); fails the test when there is none.
inline const InvariantSpec& spec_of(const std::string& name) {
  for (const InvariantSpec& spec : invariant_table())
    if (name == spec.name) return spec;
  FAIL("no invariant " << name);
  throw std::logic_error("unreachable");
}

/// Fires with `name` and the message part, and its state block shows every field the row says the check
/// reads: every clause of every invariant goes through here.
inline void require_fires(const std::optional<sim::Violation>& v, const char* name, const std::string& message_part) {
  REQUIRE(v.has_value());
  CHECK(v->invariant == name);
  CHECK_THAT(v->message, Catch::Contains(message_part));
  const InvariantSpec& spec = spec_of(name);
  REQUIRE_FALSE(spec.reads.empty());
  for (const char* field : spec.reads) {
    INFO(name << " state block:\n" << v->state);
    CHECK_THAT(v->state, Catch::Contains(field));
  }
}

}  // namespace allocsim::harness::testing
