// The invariant table (docs/DESIGN.md §5): every invariant with a one-line description for `allocsim list`,
// its check and what the check reads. Each family's file holds its rows and checks (ownership, geometry,
// capacity, client, audit); catalog.cpp orders them by backend/scenario/invariant_names.h.
//
// Adding an invariant: its name in invariant_names() (last, unless the corpus's verdicts may change), its row
// and check function in its family's file, its name in the JSON Schema's invariant_name enum
// (schema_agreement checks it), and a scenario that fires it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "backend/world/compiled_scenario.h"
#include "sim/world.h"

namespace allocsim::harness {

/// One invariant: its name (the public vocabulary), the upstream case it guards, what holds, and its
/// check. Engine-level findings (no-deadlock, steps-bounded, actor-exception) have no check: sim/ reports
/// them. `reads` are the fields its check reads, as its state block (Violation::state) names them; every
/// violation it reports shows each of them (tests/backend/harness_state_blocks.cpp).
struct InvariantSpec {
  using Check = InvariantCheck;
  const char* name;
  const char* alloc_case;  // "ALLOC-004"; "-" when it guards no single case
  const char* description;
  Check check;                     // nullptr: an engine-level finding
  bool quiescent_only;             // checked only at quiescence
  std::vector<const char*> reads;  // substrings of its state block, e.g. "owner="
  // -- incremental checking (dirty.h; issue 16 item 3) --
  /// The kinds of state the check reads (ReadKind bits): after a step that wrote none of them the row is
  /// skipped (it held before and reads nothing that moved). kReadsStep: it runs after every step; kReadsTold:
  /// after every step that told the stepping actor something (dirty.h).
  uint32_t reads_kinds;
  /// A per-node property: node n's verdict reads node n, the claims that reference n (cl.nodes, device
  /// nodes, label versions, geometry) or carry the entry n is configured with, and the map; the check
  /// iterates CheckContext::nodes(), so an incremental check visits only the nodes a step affected.
  bool per_node;
  /// Replaces `check` in an incremental check (audit-explains-state keeps a replay across steps); nullptr:
  /// `check` itself.
  Check incremental;
};

/// Every invariant and engine-level finding, in the fixed order they are checked (invariant_names()).
const std::vector<InvariantSpec>& invariant_catalog();

/// Sets `c.invariants` (indices into invariant_catalog(), ascending) and, from them, `c.step_rows` and the two
/// records_ flags (compiled_scenario.h). The adapter's compile() calls it; tests narrow a scenario's checks with it.
void set_invariants(CompiledScenario& c, std::vector<size_t> rows);

}  // namespace allocsim::harness
