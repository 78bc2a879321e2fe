// Every key an op row's schema describes is read by the row's parse function (backend/scenario/op_syntax.h): the
// loader takes an op's keys from its schema, so a key described but never read would be accepted and ignored (a
// user's setting with no effect, which the schema agreement cannot see: both accept it). For each op kind and each
// property of its schema, the test gives the key a value no key of any op takes (an object holding `true`) in an op
// of that kind and expects the loader to refuse the file at that key's JSON pointer. The op comes from the scenario
// files under scenarios/ (the first op of the kind that sets the key, else the first of the kind), or from
// kFallback below for a kind no scenario file uses yet. It shows a key is read and checked, not that its value is
// kept: the encoder's round trip over every scenario file covers that for the keys the files set.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
namespace {

// Not `Json`: the unity build puts this file beside others in one translation unit.
using KeysJson = nlohmann::ordered_json;

/// Ops of kinds that no file under scenarios/ uses, each alone in a one-actor scenario on node n1.
const std::map<std::string, const char*> kFallback = {
    {"set_pointer", R"({"op": "set_pointer", "pointer": "custom-config"})"},
};

struct Host {
  KeysJson doc;       // the whole scenario
  std::string where;  // the file it came from, for messages
  size_t actor = 0, op = 0;
};

Host fallback_host(const std::string& kind) {
  KeysJson doc = KeysJson::parse(R"({"schema": "allocsim/scenario/v1", "name": "keys-read",
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80}],
    "actors": [{"name": "a", "script": []}], "invariants": "all", "expect": {"outcome": "pass"}})");
  doc["actors"][0]["script"].push_back(KeysJson::parse(kFallback.at(kind)));
  return {doc, "kFallback", 0, 0};
}

/// Every op in the scenario files, by kind, in file order (files sorted), with its file.
std::map<std::string, std::vector<Host>> ops_by_kind() {
  std::map<std::string, std::vector<Host>> out;
  for (const std::string& path : allocsim::testing::scenario_files()) {
    std::ifstream in(path);
    const KeysJson doc = KeysJson::parse(in);
    const KeysJson& actors = doc.at("actors");
    for (size_t a = 0; a < actors.size(); ++a)
      for (size_t i = 0; i < actors[a].at("script").size(); ++i)
        out[actors[a]["script"][i].at("op")].push_back({doc, path, a, i});
  }
  return out;
}

/// The op to try `key` in: the first of its kind that sets the key already (so a key that excludes another, as
/// reserve's plan_from excludes requests, is tried where it is valid), else the first of its kind.
const Host& host_for(const std::vector<Host>& ops, const std::string& key) {
  for (const Host& h : ops)
    if (h.doc["actors"][h.actor]["script"][h.op].contains(key)) return h;
  return ops.front();
}

}  // namespace

TEST_CASE("op keys: every key an op's schema describes is read by its parse function", "[scenario][schema]") {
  const std::map<std::string, std::vector<Host>> found = ops_by_kind();
  // A fallback for a kind some scenario file now uses is dead: drop it.
  for (const auto& [kind, _] : kFallback) {
    INFO("kFallback holds " << kind << ", which a scenario file uses now");
    CHECK(!found.count(kind));
  }
  size_t described = 0, checked = 0;
  for (const OpSyntax& row : op_syntax_rows()) {
    const auto it = found.find(row.name);
    INFO("op " << row.name);
    REQUIRE((it != found.end() || kFallback.count(row.name)));
    const KeysJson schema = op_schema(row);
    if (!schema.contains("properties")) continue;
    for (const auto& [key, _] : schema.at("properties").items()) {
      ++described;
      const Host host = it != found.end() ? host_for(it->second, key) : fallback_host(row.name);
      // The host itself loads: a refusal below is the key's doing.
      REQUIRE_NOTHROW(parse_scenario(host.doc.dump(), host.where));
      KeysJson doc = host.doc;
      doc["actors"][host.actor]["script"][host.op][key] = KeysJson::object({{"not-a-value", true}});
      const std::string at = "/actors/" + std::to_string(host.actor) + "/script/" + std::to_string(host.op) + "/" + key;
      INFO("key " << key << ", at " << at << " of " << host.where);
      bool refused = false;
      try {
        parse_scenario(doc.dump(), host.where);
      } catch (const ScenarioError& e) {
        refused = true;
        INFO("the loader said: " << e.what());
        // Refused at the key itself (or inside its value): its own check read it, not another rule of the op.
        CHECK((e.pointer() == at || e.pointer().starts_with(at + "/")));
      }
      CHECK(refused);
      ++checked;
    }
  }
  CHECK(checked == described);
  CHECK(described >= op_syntax_rows().size());  // most ops take keys: 41 over 25 ops today
}
