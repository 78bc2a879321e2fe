// Every key an op row's schema describes is read by the row's parse function (backend/scenario/op_syntax.h): the
// loader takes an op's keys from its schema, so a key described but never read would be accepted and ignored (a
// user's setting with no effect, which the schema agreement cannot see: both accept it). For each op kind and each
// property of its schema, the test gives the key a value no key of any op takes (an object holding `true`) in an op
// of that kind and expects the loader to refuse the file, naming the key (its JSON pointer, or its name in the
// message). The op comes from the first scenario file under scenarios/ that has one of that kind, else from
// kFallback below (a kind no scenario file uses yet).
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
using Json = nlohmann::ordered_json;

namespace {

/// Ops of kinds that no file under scenarios/ uses, each alone in a one-actor scenario on node n1.
const std::map<std::string, const char*> kFallback = {
    {"set_pointer", R"({"op": "set_pointer", "pointer": "custom-config"})"},
};

struct Host {
  Json doc;           // the whole scenario
  std::string where;  // the file it came from, for messages
  size_t actor = 0, op = 0;
};

Host fallback_host(const std::string& kind) {
  Json doc = Json::parse(R"({"schema": "allocsim/scenario/v1", "name": "keys-read",
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80}],
    "actors": [{"name": "a", "script": []}], "invariants": "all", "expect": {"outcome": "pass"}})");
  doc["actors"][0]["script"].push_back(Json::parse(kFallback.at(kind)));
  return {doc, "kFallback", 0, 0};
}

/// The first op of each kind in the scenario files, with its file.
std::map<std::string, Host> hosts() {
  std::map<std::string, Host> out;
  for (const std::string& path : allocsim::testing::scenario_files()) {
    std::ifstream in(path);
    const Json doc = Json::parse(in);
    const Json& actors = doc.at("actors");
    for (size_t a = 0; a < actors.size(); ++a)
      for (size_t i = 0; i < actors[a].at("script").size(); ++i) {
        const std::string kind = actors[a]["script"][i].at("op");
        if (!out.count(kind)) out[kind] = {doc, path, a, i};
      }
  }
  return out;
}

}  // namespace

TEST_CASE("op keys: every key an op's schema describes is read by its parse function", "[scenario][schema]") {
  const std::map<std::string, Host> found = hosts();
  size_t checked = 0;
  for (const OpSyntax& row : op_syntax_rows()) {
    const auto it = found.find(row.name);
    INFO("op " << row.name);
    REQUIRE((it != found.end() || kFallback.count(row.name)));
    const Host host = it != found.end() ? it->second : fallback_host(row.name);
    // The host itself loads: a refusal below is the key's doing.
    REQUIRE_NOTHROW(parse_scenario(host.doc.dump(), host.where));
    const Json schema = op_schema(row);
    if (!schema.contains("properties")) continue;
    for (const auto& [key, _] : schema.at("properties").items()) {
      Json doc = host.doc;
      doc["actors"][host.actor]["script"][host.op][key] = Json::object({{"not-a-value", true}});
      const std::string ptr = "/actors/" + std::to_string(host.actor) + "/script/" + std::to_string(host.op);
      INFO("key " << key << ", in the op at " << ptr << " of " << host.where);
      bool refused = false;
      std::string said;
      try {
        parse_scenario(doc.dump(), host.where);
      } catch (const ScenarioError& e) {
        refused = true;
        said = e.what();
        INFO("the loader said: " << said);
        CHECK((e.pointer().starts_with(ptr + "/" + key) || said.find("\"" + key + "\"") != std::string::npos));
      }
      CHECK(refused);
      ++checked;
    }
  }
  // Every described key was tried (the op table has 25 kinds; most take keys).
  CHECK(checked >= op_syntax_rows().size());
}
