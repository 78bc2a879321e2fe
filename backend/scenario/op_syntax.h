// The op table's syntax half: what a scenario file may write for each kind of script op, in one row per kind
// (docs/DESIGN.md §4). The loader, the scenario encoder, `allocsim list ops`, order labels and the JSON Schema
// test read it. What an op does is its behaviour row, keyed by the same OpKind (backend/ops/op_behaviour.h);
// nothing else switches over OpKind.
//
// Where the rows are: each op's syntax row sits beside its behaviour, in backend/ops/op_<concept>.cpp, so that an op
// is one file's rows and code. The scenario language declares the row type and the functions that return each
// concept's rows (below) and reads them through op_syntax_rows(); the ops room defines them. These and
// invariant_names() (invariant_names.h) are the only calls from a room to a higher one (docs/DESIGN.md §1).
//
// Adding an op: an OpKind value (scenario.h, with any new Op field); in the backend/ops/op_<concept>.cpp it belongs
// to, its syntax row (keys and their JSON Schema included, whose description documents it), its behaviour function
// and row; and a scenario or test that uses it. The schema file's op sections and the op's line in docs/DESIGN.md §4
// are written from the rows (`tools/dev.sh schema`; tests/scenarios/schema_agreement.cpp and design_tables.cpp fail
// while a file lags the table).
//
// Contract: op_syntax_rows()[i].kind == OpKind(i) for every row (op_syntax() checks it); names are the words of
// scenario files; `schema` is a JSON object (below) whose properties never name "op" or a modifier; `keys` are
// "op" and then `schema`'s properties, in order; `outcomes` are every word the op's behaviour can return plus the
// fault words its barriers allow (`error`, `unknown`, `crashed`), i.e. the vocabulary of expect.actors.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "sim/order.h"

namespace allocsim::harness {

class ScenarioReader;  // scenario_reader.h

/// The MIG labels the foreign writes treat apart: the upstream keeps both as node fields, so set_labels' syntax
/// refuses to remove them (and sets the state only through set_mig_state), and its behaviour keeps the fields in step
/// with the labels (backend/ops/op_foreign.cpp).
inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
inline constexpr const char* kMigStateLabel = "nvidia.com/mig.config.state";

struct OpSyntax {
  OpKind kind;
  const char* name;
  /// The op's JSON Schema, as JSON text: {"description": ..., "properties": {key: schema, ...}, "required": [...],
  /// and any other keyword of the op's definition ("not", "anyOf", ...)}. "properties" and "required" leave out
  /// "op" and the modifiers (when, retry): scenario_schema.h adds those. The keys the op takes are these
  /// properties; a key without a schema cannot be read, and `parse` must read every one of them
  /// (tests/scenarios/op_keys_read.cpp gives each a wrong value and expects a refusal).
  const char* schema;
  std::vector<const char*> outcomes;  // expect.actors vocabulary, in the order `allocsim` documents them
  /// Reads the op's own fields from `v` (at `ptr`); its keys are already checked. Throws ScenarioError.
  void (*parse)(const ScenarioReader& r, const nlohmann::ordered_json& v, const std::string& ptr, Op& op);
  /// Resolves references to other actors once every actor is loaded (`self` is the op's own actor,
  /// `actors` every name in file order); nullptr when the op names no actor.
  void (*resolve)(const ScenarioReader& r, const Op& op, const std::string& self,
                  const std::vector<std::string>& actors);
  /// Adds the op's keys (after "op") to `j`: the inverse of parse, defaults included.
  void (*to_json)(const Op& op, nlohmann::ordered_json& j);
  /// What `allocsim list ops` prints after the name ("a foreign write: ..."), or nullptr.
  const char* note = nullptr;
  /// Every Call scheduling point the op's behaviour may fire (ScriptRunner::call's `what`), the points an order
  /// label may name for the op; left empty in a row when that is the op's name alone (op_syntax_rows() fills it
  /// in). tests/scenarios/point_vocabulary.cpp checks it against the calls every scenario makes.
  std::vector<const char*> calls = {};
  /// The Call points of one op of this kind, when they depend on its fields (a subset of `calls`: a reserve
  /// with `requests` makes inventory and plan calls, one that reserves an earlier plan does not); nullptr: all
  /// of `calls`.
  std::vector<const char*> (*calls_of)(const Op& op) = nullptr;
  /// The keys the op takes: "op", then the properties of `schema` in their order (did-you-mean candidates);
  /// op_syntax_rows() fills it in from `schema`.
  std::vector<const char*> keys = {};
};

/// Every op's syntax row, in OpKind order: the rows of the files below, each row's `calls` filled in.
const std::vector<OpSyntax>& op_syntax_rows();
/// The row of `k`.
const OpSyntax& op_syntax(OpKind k);
/// `row.schema`, parsed; a schema that is not JSON, not an object with a description and an object of properties,
/// that sets "type" or "additionalProperties" (the table writes them) or requires a key it does not describe throws
/// std::logic_error (a mistake in the table, which every test that loads a scenario meets).
nlohmann::ordered_json op_schema(const OpSyntax& row);

/// The points each actor of `s` can resume from, for order labels (sim/order.h): the Call points of its
/// script's ops (calls_of, else calls; first appearance), then every barrier of the barrier table (whether a call fires
/// a given barrier depends on the state, so none is ruled out), then "lock.wait".
sim::PointVocabulary point_vocabulary(const Scenario& s);

// The rows, by concept: defined in backend/ops/op_<concept>.cpp, beside each op's behaviour.
std::vector<OpSyntax> claim_op_syntax();        // op_claims.cpp: inventory, plan, reserve, release
std::vector<OpSyntax> status_op_syntax();       // op_status.cpp: observe, await, mark_ready, reconcile
std::vector<OpSyntax> recover_op_syntax();      // op_recover.cpp: recover
std::vector<OpSyntax> environment_op_syntax();  // op_environment.cpp: bind/unbind_workload, advance_clock
std::vector<OpSyntax> fault_op_syntax();        // op_faults.cpp: fail_reads .. reject_binds
std::vector<OpSyntax> foreign_op_syntax();      // op_foreign.cpp: set_labels .. set_pointer

}  // namespace allocsim::harness
