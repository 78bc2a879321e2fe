// The JSON Schema for scenario files (scenarios/schema/scenario.v1.schema.json) and the loader
// (backend/scenario/scenario_load.cpp and the op table's syntax rows, op_syntax.h) agree (docs/DESIGN.md §4):
//   - every scenario file under scenarios/ validates against the schema and loads;
//   - every file of the malformed corpus (tests/backend/malformed/) is rejected by both, at the same place
//     or one enclosing the other, except the files listed in kLoaderOnly, which only the loader can reject
//     (the test also fails when a listed file starts being rejected by the schema: the list stays exact);
//   - the file holds what the tables write into it (backend/scenario/scenario_schema.h: the ops' definitions and
//     outcomes, invariants, mutants, barriers), and an op's keys are its row schema's properties;
//   - the schema's vocabularies (ops with their keys and outcomes, mutants, invariants, barriers, sharing,
//     authorities) are exactly the loader's tables (the op table's syntax rows, op_syntax.h; the invariant
//     names, invariant_names.h), so a new op, invariant, mutant or barrier cannot be forgotten in the schema.
// The schema side runs Debian's python3-jsonschema through tests/scenarios/validate_schema.py. When python3
// or the module is missing the test FAILS (never skips): a skipped check would let the two drift apart.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/invariants/invariant_table.h"
#include "backend/model/barriers.h"
#include "backend/model/contract.h"
#include "backend/model/mutants.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario.h"
#include "backend/scenario/scenario_schema.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = ALLOCSIM_SOURCE_DIR;
const fs::path kSchema = kSource / "scenarios" / "schema" / "scenario.v1.schema.json";
const fs::path kCorpus = kSource / "tests" / "backend" / "malformed";

/// Files the loader rejects and the schema accepts, each with the reason no JSON Schema can catch it.
const std::map<std::string, std::string> kLoaderOnly = {
    {"duplicate_json_key.json",
     "duplicate object keys: JSON parsers (and so schema validators) keep the last one; RFC 8259 leaves it open"},
    {"duplicate_node_name.json", "distinct node names: uniqueItems compares whole items, not one field of them"},
    {"duplicate_actor_name.json", "distinct actor names: uniqueItems compares whole items, not one field of them"},
    {"unknown_node_reference.json", "cross-reference: an op's node must name a node in /nodes"},
    {"reject_binds_node_unknown.json", "cross-reference: reject_binds' node must name a node in /nodes"},
    {"partial_reads_device_ordinal.json", "cross-reference: a hidden card's ordinal is below its node's gpu_count"},
    {"inventory_unknown_node.json", "cross-reference: an inventory scope must name nodes in /nodes"},
    {"plan_from_unknown.json", "cross-reference: plan_from must name an actor in /actors"},
    {"bind_claim_actor_unknown.json", "cross-reference: a bind's claim must name an actor in /actors"},
    {"owner_names_actor_of_other_identity.json",
     "cross-reference: an owner identity that is an actor's name must be that actor's identity"},
    {"owner_names_background_actor.json", "cross-reference: an owner identity must not name a write-behind's actor"},
    {"start_claim_owner_is_replica_name.json",
     "cross-reference: a start claim's owner that is an actor's name must be that actor's identity"},
    {"expect_audit_count_below.json", "at_least <= at_most compares two values of one object; JSON Schema cannot"},
    {"plan_from_self.json", "cross-reference: plan_from must not name the actor it is in"},
    {"order_unknown_actor.json", "cross-reference: an order label must name an actor in /actors"},
    {"order_unknown_point.json",
     "cross-reference: an order label's point must be a call of its actor's ops, a barrier or lock.wait"},
    {"order_point_of_other_actor.json", "cross-reference: an order label's point must be one its own actor reaches"},
    {"order_names_behind_issuer_call.json",
     "cross-reference: a write-behind's call is its background actor's, not its issuer's"},
    {"order_same_step.json", "a constraint whose two labels name the same step (\"p\" is \"p#1\")"},
    {"order_cycle.json", "a cycle among order constraints: a property of the whole block"},
    {"expect_unknown_actor.json", "cross-reference: expect.actors keys must be actors in /actors"},
    {"expect_op_not_in_script.json", "cross-reference: expect.actors may name only ops in that actor's script"},
    {"violation_not_checked.json",
     "cross-reference: an expected violation must be among the invariants /invariants checks"},
    {"faults_unknown_actor.json", "cross-reference: faults.actors must name actors in /actors"},
    {"faults_fail_geometry_unknown_node.json", "cross-reference: faults.fail_geometry must name nodes in /nodes"},
    {"recover_self.json", "cross-reference: recover's flow must not be the actor it is in"},
    {"recover_unknown_flow.json", "cross-reference: recover's flow must name an actor in /actors"},
    {"recover_flow_listed_later.json", "cross-reference: recover's flow must be listed before the actor it is in"},
    {"workloads_sum_above_gpu_count.json",
     "a sum: JSON Schema bounds each workload's units, not their total against the node's gpu_count"},
    {"bind_units_above_gpu_count.json",
     "cross-reference: bind_workload's units are bounded by the gpu_count of the node it names"},
    {"start_state_generation_above_version.json",
     "a comparison with a sibling: mig_state_generation at most the node's resource_version"},
    {"shared_map_unknown_member.json", "cross-reference: shared-map members must name nodes in /nodes"},
    {"start_mig_layout_not_on_card.json",
     "cross-reference: a start mig_layout's profiles are those of the node's product's MIG table"},
    {"start_mig_layout_over_card.json",
     "a computation: a start mig_layout must fit one card of the node's product (totals, caps, placement)"},
    {"set_labels_unknown_node.json", "cross-reference: an op's node must name a node in /nodes"},
    {"write_shared_map_put_and_delete.json", "a comparison between siblings: an entry both put and deleted"},
    {"expect_occurrence_past_script.json",
     "cross-reference: an occurrence pin's index must be inside that actor's script"},
    {"expect_occurrence_wrong_vocabulary.json",
     "cross-reference: an occurrence pin's outcomes are the vocabulary of the op at that index"},
    {"partial_reads_unknown_workload.json",
     "cross-reference: partial_reads' workloads must be start workloads of a node or bound by a bind_workload op"},
    {"geometry_no_effect_unknown_node.json", "cross-reference: an op's node must name a node in /nodes"},
    {"when_on_first_op.json", "a position: when needs an earlier op, and the schema does not see an op's index"},
    {"when_not_earlier.json", "a position: when.op must be below the op's own index in its script"},
    {"when_outcome_not_of_that_op.json", "cross-reference: when.outcome must be in the vocabulary of the op it names"},
    {"start_claim_device_in_two_workloads.json",
     "a comparison across siblings: one device granted to two workloads of a claim"},
    {"start_claim_geometry_count_above_slices.json",
     "a count: a claim's geometry count must equal the slices of that profile its assignments grant on the node"},
    {"start_claim_geometry_without_mig_authority.json",
     "cross-reference: a claim's geometry needs /backend/authority managed-mig or dra"},
    {"start_claim_pending_but_ready.json", "a comparison between siblings: workload_ready with status pending"},
    {"start_claim_duplicate_id.json", "distinct claim ids: uniqueItems compares whole items, not one field of them"},
    {"start_claim_geometry_where_no_device.json",
     "cross-reference: a claim's geometry names only nodes its assignments hold devices on"},
    {"start_claim_id_minted.json",
     "cross-reference: a claim id must not have the shape the backend mints for an actor of /actors"},
    {"start_claim_ordinal_past_count.json", "cross-reference: an ordinal is below the gpu_count of the node it names"},
    {"start_claim_slice_outside_geometry.json",
     "cross-reference: a slice's profile and index are within the claim's geometry for its node"},
    {"expect_skipped_without_when.json",
     "cross-reference: skipped is an outcome of any op only when that op has a when (the schema allows it for all)"},
};

/// Synthetic cases the corpus does not hold, built from a valid scenario by one textual substitution:
/// (name, from, to, loader-only reason or "" when both must reject, or both must accept when `valid`).
struct Variant {
  const char* name;
  const char* from;
  const char* to;
  const char* loader_only;
  bool valid = false;
};
const std::vector<Variant> kVariants = {
    {"integer_written_as_float.json", "\"gpu_count\": 2,", "\"gpu_count\": 2.0,",
     "JSON Schema's integer is any number with a zero fraction (2.0); the loader wants an integer literal"},
    {"units_on_unbind.json", "{ \"op\": \"observe\" }",
     "{ \"op\": \"unbind_workload\", \"node\": \"n1\", \"workload\": \"w\", \"units\": 1 }", ""},
    {"workload_above_gpu_count.json", "\"memory_gib\": 80 }", "\"memory_gib\": 80, \"workloads\": { \"w\": 3 } }",
     "cross-reference: a node's starting workload units are bounded by that node's own gpu_count"},
    {"nan_literal.json", "\"memory_gib\": 80 }", "\"memory_gib\": NaN }", ""},
    {"request_without_workload.json", "{ \"workload\": \"wa\", \"devices\": 1 }", "{ \"devices\": 1 }", ""},
    {"faults_valid.json", "\"invariants\": \"all\",",
     "\"faults\": { \"max\": 2, \"actors\": [\"a\"], \"barriers\": { \"delete.before\": [\"crash\", \"raise\"] }, "
     "\"fail_reads\": [\"pods\"], \"fail_geometry\": [\"n1\"] }, \"invariants\": \"all\",",
     "", true},
    {"faults_enable_nothing.json", "\"invariants\": \"all\",", "\"faults\": { \"max\": 2 }, \"invariants\": \"all\",",
     ""},
    {"faults_unknown_action.json", "\"invariants\": \"all\",",
     "\"faults\": { \"barriers\": { \"delete.before\": [\"explode\"] } }, \"invariants\": \"all\",", ""},
    {"faults_unknown_actor.json", "\"invariants\": \"all\",",
     "\"faults\": { \"actors\": [\"zz\"], \"fail_reads\": [\"pods\"] }, \"invariants\": \"all\",",
     "cross-reference: faults.actors must name actors in /actors"},
    {"recover_self.json", "{ \"op\": \"observe\" }", "{ \"op\": \"recover\", \"flow\": \"a\" }",
     "cross-reference: recover's flow must be another actor in /actors"},
    {"recover_without_flow.json", "{ \"op\": \"observe\" }", "{ \"op\": \"recover\" }", ""},
    // A script index takes every word of the op at that index, a bind's `rejected` (reject_binds) among them.
    {"index_pin_rejected_bind.json",
     "{ \"op\": \"observe\" },\n      { \"op\": \"release\" } ] } ],\n  \"invariants\": \"all\",\n  \"expect\": { "
     "\"outcome\": \"pass\" }",
     "{ \"op\": \"bind_workload\", \"node\": \"n1\", \"workload\": \"w\" },\n      { \"op\": \"release\" } ] } ],\n  "
     "\"invariants\": \"all\",\n  \"expect\": { \"outcome\": \"pass\", \"actors\": { \"a\": { \"1\": [\"done\", "
     "\"rejected\"] } } }",
     "", true},
};

const char* kBase = R"({
  "schema": "allocsim/scenario/v1",
  "name": "agreement-base",
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [ { "name": "a", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1 } ] },
      { "op": "observe" },
      { "op": "release" } ] } ],
  "invariants": "all",
  "expect": { "outcome": "pass" }
})";

struct SchemaVerdict {
  bool ok = false;
  std::string pointer, message;
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs validate_schema.py on `files`; FAILs the test (with the tool's own message) when it cannot run.
std::map<std::string, SchemaVerdict> schema_verdicts(const std::vector<std::string>& files) {
  std::string cmd = "python3 " + shell_quote((kSource / "tests" / "scenarios" / "validate_schema.py").string()) + " " +
                    shell_quote(kSchema.string());
  for (const auto& f : files) cmd += " " + shell_quote(f);
  cmd += " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code != 0)
    FAIL("the schema validator could not run (exit " << code
                                                     << "); it needs python3 and the Debian package "
                                                        "python3-jsonschema (tools/dev.sh installs both):\n"
                                                     << out);
  std::map<std::string, SchemaVerdict> verdicts;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
      fields.push_back(line.substr(start, tab - start));
    fields.push_back(line.substr(start));
    INFO(line);
    REQUIRE(fields.size() >= 2);
    SchemaVerdict v;
    v.ok = fields[0] == "OK";
    if (!v.ok) {
      REQUIRE(fields.size() == 4);
      v.pointer = fields[2];
      v.message = fields[3];
    }
    verdicts[fields[1]] = v;
  }
  REQUIRE(verdicts.size() == files.size());
  return verdicts;
}

/// The loader's verdict: nullopt when it loads, else the error.
std::optional<ScenarioError> loader_verdict(const std::string& file) {
  try {
    load_scenario(file);
    return std::nullopt;
  } catch (const ScenarioError& e) {
    return e;
  }
}

bool is_prefix(const std::string& a, const std::string& b) {
  return b.compare(0, a.size(), a) == 0 && (b.size() == a.size() || a.empty() || b[a.size()] == '/');
}

nlohmann::json load_schema() {
  std::ifstream in(kSchema);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

std::set<std::string> enum_of(const nlohmann::json& node) {
  std::set<std::string> out;
  for (const auto& v : node.at("enum")) out.insert(v.get<std::string>());
  return out;
}

template <class Table>
std::set<std::string> names_of(const Table& table) {
  std::set<std::string> out;
  for (const auto& e : table) out.insert(e.name);
  return out;
}

}  // namespace

TEST_CASE("schema: every scenario file validates against the schema and loads", "[scenario][schema]") {
  const auto files = allocsim::testing::scenario_files();
  REQUIRE(files.size() >= 6);
  const auto verdicts = schema_verdicts(files);
  for (const auto& file : files) {
    INFO(file);
    const SchemaVerdict& v = verdicts.at(file);
    INFO("schema: " << v.pointer << ": " << v.message);
    CHECK(v.ok);
    const auto e = loader_verdict(file);
    INFO("loader: " << (e ? e->what() : "ok"));
    CHECK(!e);
  }
}

TEST_CASE("schema: loader and schema agree on the malformed corpus, loader-only cases are listed",
          "[scenario][schema][corpus]") {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  // Catch runs this body once per DYNAMIC_SECTION below, so once per file: the schema side (one python3 over
  // every file, about a second) runs on the first pass only. Run on every pass it took 150 s of the suite.
  static const auto verdicts = schema_verdicts(files);
  std::size_t both = 0, loader_only = 0;
  for (const auto& file : files) {
    const std::string base = fs::path(file).filename().string();
    DYNAMIC_SECTION(base) {
      const auto loader = loader_verdict(file);
      const SchemaVerdict& schema = verdicts.at(file);
      INFO("loader: " << (loader ? loader->what() : "accepted"));
      INFO("schema: " << (schema.ok ? "accepted" : schema.pointer + ": " + schema.message));
      REQUIRE(loader.has_value());
      const auto listed = kLoaderOnly.find(base);
      if (listed != kLoaderOnly.end()) {
        INFO("listed as loader-only: " << listed->second
                                       << " (remove it from kLoaderOnly if the schema now rejects it)");
        CHECK(schema.ok);
      } else {
        CHECK(!schema.ok);
        // Both point at the same place, or one at a part of the other (an unknown key: the loader names the
        // key, the schema the object holding it). An empty pointer (not JSON at all) encloses everything.
        CHECK((is_prefix(schema.pointer, loader->pointer()) || is_prefix(loader->pointer(), schema.pointer)));
      }
    }
    (kLoaderOnly.count(base) ? loader_only : both) += 1;
  }
  // Every listed file exists, so the list cannot rot.
  for (const auto& [name, reason] : kLoaderOnly) {
    INFO(name);
    CHECK(fs::exists(kCorpus / name));
  }
  INFO(both << " rejected by both, " << loader_only << " by the loader only");
  CHECK(both + loader_only == files.size());
}

TEST_CASE("schema: synthetic variants agree too (and the known loader-only ones stay loader-only)",
          "[scenario][schema]") {
  const fs::path dir = fs::temp_directory_path() / ("allocsim-schema-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> files;
  const std::string base_path = (dir / "base.json").string();
  std::ofstream(base_path) << kBase;
  files.push_back(base_path);
  for (const Variant& v : kVariants) {
    std::string text = kBase;
    const std::size_t at = text.find(v.from);
    INFO(v.name);
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string(v.from).size(), v.to);
    const std::string path = (dir / v.name).string();
    std::ofstream(path) << text;
    files.push_back(path);
  }
  const auto verdicts = schema_verdicts(files);
  CHECK(verdicts.at(base_path).ok);
  CHECK(!loader_verdict(base_path));
  for (std::size_t i = 0; i < kVariants.size(); ++i) {
    const Variant& v = kVariants[i];
    const std::string& path = files[i + 1];
    const auto loader = loader_verdict(path);
    const SchemaVerdict& schema = verdicts.at(path);
    INFO(v.name << ": loader " << (loader ? loader->what() : "accepted") << "; schema "
                << (schema.ok ? "accepted" : schema.pointer + ": " + schema.message));
    CHECK(loader.has_value() == !v.valid);
    CHECK(schema.ok == (v.valid || std::string(v.loader_only) != ""));
  }
  fs::remove_all(dir);
}

TEST_CASE("schema: its vocabularies are exactly the loader's name tables", "[scenario][schema]") {
  const nlohmann::json s = load_schema();
  const auto& defs = s.at("$defs");

  // The op table (op_syntax.h): names, each op's keys and its outcome vocabulary.
  std::set<std::string> ops;
  for (const OpSyntax& op : op_syntax_rows()) ops.insert(op.name);
  CHECK(enum_of(defs.at("op").at("properties").at("op")) == ops);
  for (const OpSyntax& op : op_syntax_rows()) {
    INFO(op.name);
    REQUIRE(defs.contains(std::string("op_") + op.name));
    std::set<std::string> keys;
    for (const auto& [key, _] : defs.at(std::string("op_") + op.name).at("properties").items()) keys.insert(key);
    std::set<std::string> loader_keys(op.keys.begin(), op.keys.end());
    loader_keys.insert(modifier_keys(op.kind).begin(), modifier_keys(op.kind).end());  // when, retry
    CHECK(keys == loader_keys);
    std::set<std::string> outcomes(op.outcomes.begin(), op.outcomes.end());
    outcomes.insert("skipped");  // any op with a `when` may record it (conditional_ops.h)
    // expect.actors: each op's outcome vocabulary.
    CHECK(enum_of(defs.at("expect")
                      .at("properties")
                      .at("actors")
                      .at("additionalProperties")
                      .at("properties")
                      .at(op.name)
                      .at("items")) == outcomes);
  }
  CHECK(enum_of(s.at("properties").at("backend").at("properties").at("mutants").at("items")) ==
        names_of(allocsim::backend::mutant_table()));
  CHECK(enum_of(defs.at("invariant_name")) == names_of(invariant_table()));
  CHECK(enum_of(defs.at("expect").at("properties").at("reach").at("items")) ==
        names_of(allocsim::backend::barrier_table()));
  CHECK(enum_of(defs.at("faults").at("properties").at("barriers").at("propertyNames")) ==
        names_of(allocsim::backend::barrier_table()));
  CHECK(enum_of(defs.at("faults").at("properties").at("barriers").at("additionalProperties").at("items")) ==
        std::set<std::string>{fault_action_name(FaultAction::Crash), fault_action_name(FaultAction::Raise),
                              fault_action_name(FaultAction::DropResponse)});
  namespace b = allocsim::backend;
  CHECK(enum_of(defs.at("request").at("properties").at("sharing")) ==
        std::set<std::string>{b::kSharingExclusive, b::kSharingIsolatedMig, b::kSharingCooperative,
                              b::kSharingAccountingOnly});
  CHECK(
      enum_of(s.at("properties").at("backend").at("properties").at("authority")) ==
      std::set<std::string>{b::kAuthorityDevicePlugin, b::kAuthorityManagedMig, b::kAuthorityLocal, b::kAuthorityDra});
}

TEST_CASE("schema: every property of the schema has a description (editors show them)", "[scenario][schema]") {
  const nlohmann::json s = load_schema();
  std::vector<std::string> missing;
  // Walks every "properties" map; each property either describes itself or is a $ref to a described def.
  const std::function<void(const nlohmann::json&, const std::string&)> walk = [&](const nlohmann::json& node,
                                                                                  const std::string& where) {
    if (!node.is_object() && !node.is_array()) return;
    if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], where + "/" + std::to_string(i));
      return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string here = where + "/" + it.key();
      if (it.key() == "if") continue;  // a condition ("op" is "plan"), not a property an editor documents
      if (it.key() == "properties" && it->is_object())
        for (auto p = it->begin(); p != it->end(); ++p)
          if (!p->contains("description") && !p->contains("$ref")) missing.push_back(here + "/" + p.key());
      walk(*it, here);
    }
  };
  walk(s, "");
  for (auto it = s.at("$defs").begin(); it != s.at("$defs").end(); ++it)
    if (!it->contains("description")) missing.push_back("/$defs/" + it.key());
  INFO([&] {
    std::string all;
    for (const auto& m : missing) all += m + "\n";
    return all;
  }());
  CHECK(missing.empty());
}

TEST_CASE("schema: the file is what the tables write into it (tools/dev.sh schema)", "[scenario][schema]") {
  std::ifstream in(kSchema);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(in.good());
  const SchemaFreshness fresh = schema_freshness(text.str());
  INFO("scenarios/schema/scenario.v1.schema.json " << (fresh.lag ? fresh.lag : "") << ": run tools/dev.sh schema");
  CHECK(fresh.lag == nullptr);  // not the two texts: Catch would print both whole files
}

TEST_CASE("schema: an op's keys are its schema's properties, and a malformed row schema is refused",
          "[scenario][schema]") {
  for (const OpSyntax& row : op_syntax_rows()) {
    INFO(row.name);
    std::vector<std::string> want = {"op"};
    const nlohmann::ordered_json schema = op_schema(row);
    if (schema.contains("properties"))
      for (const auto& [key, _] : schema.at("properties").items()) want.push_back(key);
    CHECK(std::vector<std::string>(row.keys.begin(), row.keys.end()) == want);
  }
  CHECK(std::vector<std::string>(op_syntax(OpKind::Observe).keys.begin(), op_syntax(OpKind::Observe).keys.end()) ==
        std::vector<std::string>{"op"});
  OpSyntax row = op_syntax(OpKind::Observe);
  row.schema = "{\"description\": \"x\", \"properties\": [";
  CHECK_THROWS_WITH(op_schema(row), Catch::Contains("op observe: its schema is not JSON"));
  row.schema = "{\"properties\": {}}";
  CHECK_THROWS_WITH(op_schema(row), Catch::Contains("op observe: its schema is not an object with a description"));
  row.schema = "{\"description\": \"x\", \"additionalProperties\": true}";
  CHECK_THROWS_WITH(op_schema(row), Catch::Contains("op observe: its schema sets \"additionalProperties\""));
  row.schema = "{\"description\": \"x\", \"properties\": {\"a\": {}}, \"required\": [\"b\"]}";
  CHECK_THROWS_WITH(op_schema(row), Catch::Contains("op observe: its schema requires \"b\", which is not among"));
  row.schema = "{\"description\": \"x\", \"properties\": {\"a\": {}}, \"required\": [\"a\"]}";
  CHECK(op_schema(row).at("required") == nlohmann::ordered_json::array({"a"}));
}
