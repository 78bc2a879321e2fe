// The op table: everything the harness knows about one kind of script op, in one row (issue 10 item 3).
// The loader, the scenario encoder, the script runner, `allocsim list ops` and the JSON Schema test all
// read it; nothing else switches over OpKind.
//
// Adding an op: an OpKind value (scenario.h, with any new Op field), its row and functions (ops.cpp is full:
// a new file whose rows ops_registry.cpp appends, in OpKind order),
// its `op_<name>` definition and enums in scenarios/schema/scenario.v1.schema.json, and a scenario or test
// that uses it. tests/scenarios/schema_agreement.cpp checks the schema against this table.
//
// Contract: op_specs()[i].kind == OpKind(i) for every row (op_spec() checks it); names are the words of
// scenario files; `keys` include "op"; `outcomes` are every word execute() can return plus the fault words
// its barriers allow (`error`, `unknown`, `crashed`), i.e. the vocabulary of expect.actors.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"

namespace allocsim::harness {

class ScenarioReader;  // scenario_reader.h
class ScriptRunner;    // script_runner.h

struct OpSpec {
  OpKind kind;
  const char* name;
  std::vector<const char*> keys;      // the keys the op takes, "op" included (did-you-mean candidates)
  std::vector<const char*> outcomes;  // expect.actors vocabulary, in the order `allocsim` documents them
  /// Reads the op's own fields from `v` (at `ptr`); its keys are already checked. Throws ScenarioError.
  void (*parse)(const ScenarioReader& r, const nlohmann::ordered_json& v, const std::string& ptr, Op& op);
  /// Resolves references to other actors once every actor is loaded (`self` is the op's own actor,
  /// `actors` every name in file order); nullptr when the op names no actor.
  void (*resolve)(const ScenarioReader& r, const Op& op, const std::string& self,
                  const std::vector<std::string>& actors);
  /// Adds the op's keys (after "op") to `j`: the inverse of parse, defaults included.
  void (*to_json)(const Op& op, nlohmann::ordered_json& j);
  /// The op's own detail for its Call scheduling point ("node=n1 workload=w units=2"), or "".
  std::string (*detail)(const Op& op);
  /// Runs the op in the actor's fiber and returns its outcome (a static string from `outcomes`).
  const char* (*execute)(ScriptRunner& run, const Op& op);
  /// What `allocsim list ops` prints after the name ("a foreign write: ..."), or nullptr.
  const char* note = nullptr;
  /// Every Call scheduling point `execute` may fire (ScriptRunner::call's `what`), the points an order label
  /// may name for the op; left empty in a row when that is the op's name alone (op_specs() fills it in).
  /// tests/scenarios/point_vocabulary.cpp checks it against the calls every scenario makes.
  std::vector<const char*> calls = {};
  /// The Call points of one op of this kind, when they depend on its fields (a subset of `calls`: a reserve
  /// with `requests` makes inventory and plan calls, one that reserves an earlier plan does not); nullptr: all
  /// of `calls`.
  std::vector<const char*> (*calls_of)(const Op& op) = nullptr;
};

/// `rows` followed by the foreign-write rows (ops_foreign.cpp; issue 13 item 2), for the table in ops.cpp.
std::vector<OpSpec> with_foreign_ops(std::vector<OpSpec> rows);

/// Every op, in OpKind order: the rows of every file below, concatenated, each row's `calls` filled in
/// (ops_registry.cpp).
const std::vector<OpSpec>& op_specs();

/// The points each actor of `s` can resume from, for order labels (sim/order.h): the Call points of its
/// script's ops (calls_of, else calls; first appearance), then every barrier of the catalog (whether a call fires a given barrier
/// depends on the state, so none is ruled out), then "lock.wait".
sim::PointVocabulary point_vocabulary(const Scenario& s);
/// The rows of ops.cpp (inventory .. recover) followed by the foreign writes (set_labels .. set_pointer).
const std::vector<OpSpec>& core_op_rows();
/// The rows of ops_faults.cpp (stale_reads .. geometry_no_effect; issue 13 items 3 and 4).
std::vector<OpSpec> fault_op_rows();
/// The row of `k`.
const OpSpec& op_spec(OpKind k);

}  // namespace allocsim::harness
