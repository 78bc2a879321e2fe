// The op table's behaviour half: what each kind of script op does when an actor runs it, in one row per kind,
// keyed by the same OpKind as its syntax row (backend/scenario/op_syntax.h). The script runner reads it; nothing
// else switches over OpKind.
//
// Contract: op_behaviour_rows()[i].kind == OpKind(i) for every row (op_behaviour() checks it). `execute` runs in
// the actor's fiber, makes its calls through the script runner's primitives (script_runner.h), and returns a
// static string from its syntax row's `outcomes`; every Call point it fires is in that row's `calls`.
#pragma once

#include <string>
#include <vector>

#include "backend/scenario/scenario.h"

namespace allocsim::harness {

class ScriptRunner;  // script_runner.h

struct OpBehaviour {
  OpKind kind;
  /// The op's own detail for its Call scheduling point ("node=n1 workload=w units=2"), or "".
  std::string (*detail)(const Op& op);
  /// Runs the op in the actor's fiber and returns its outcome.
  const char* (*execute)(ScriptRunner& run, const Op& op);
};

/// The `detail` of an op whose Call point carries none: "".
inline std::string no_detail(const Op&) { return ""; }

/// Every op's behaviour row, in OpKind order: the rows of the files below.
const std::vector<OpBehaviour>& op_behaviour_rows();
/// The row of `k`.
const OpBehaviour& op_behaviour(OpKind k);

// The rows, by concept (each file holds its ops' syntax rows too, op_syntax.h):
std::vector<OpBehaviour> claim_op_behaviour();        // op_claims.cpp: inventory, plan, reserve, release
std::vector<OpBehaviour> status_op_behaviour();       // op_status.cpp: observe, await, mark_ready, reconcile
std::vector<OpBehaviour> recover_op_behaviour();      // op_recover.cpp: recover
std::vector<OpBehaviour> environment_op_behaviour();  // op_environment.cpp: bind/unbind_workload, advance_clock
std::vector<OpBehaviour> fault_op_behaviour();        // op_faults.cpp: fail_reads .. reject_binds
std::vector<OpBehaviour> foreign_op_behaviour();      // op_foreign.cpp: set_labels .. set_pointer

}  // namespace allocsim::harness
