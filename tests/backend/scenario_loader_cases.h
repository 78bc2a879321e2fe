// What the scenario loader's tests share (tests/backend/harness_scenario*.cpp): a small valid scenario, the
// error it gives when patched at a JSON pointer, and the table-driven check of such cases.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario.h"

// In a namespace of its own, not under a using-directive of the harness: the test binaries are unity builds.
namespace allocsim::harness::loader_test {

using Json = nlohmann::ordered_json;

/// Two nodes and two actors, `b` reserving `a`'s plan: every error case patches it in one place.
inline Json base() {
  return Json::parse(R"({
    "schema": "allocsim/scenario/v1",
    "name": "t",
    "nodes": [ { "name": "n1", "product": "P", "gpu_count": 2, "memory_gib": 80 },
               { "name": "n2", "product": "P", "gpu_count": 2, "memory_gib": 80 } ],
    "actors": [
      { "name": "a", "script": [ { "op": "inventory" }, { "op": "plan", "requests": [ { "workload": "w" } ] },
                                 { "op": "reserve" }, { "op": "release" } ] },
      { "name": "b", "script": [ { "op": "reserve", "plan_from": "a" } ] } ]
  })");
}

/// What parse_scenario threw for `text`, or a ScenarioError with pointer "<none>" when it did not throw.
inline ScenarioError error_of(const std::string& text, const std::string& file = "mem.json") {
  try {
    parse_scenario(text, file);
  } catch (const ScenarioError& e) {
    return e;
  }
  return ScenarioError(file, "<none>", "parsed without error");
}

/// One error case: the patch, and the pointer and message part it must give.
struct Case {
  const char* what;
  std::vector<std::pair<std::string, Json>> set;  // JSON pointer -> value, applied in order
  std::vector<std::string> erase;                 // object members to remove
  std::string pointer;
  std::string message;  // a substring of the expected message
};

inline Json patched(const Case& c) {
  Json doc = base();
  for (const auto& [ptr, value] : c.set) doc[Json::json_pointer(ptr)] = value;
  for (const auto& ptr : c.erase) {
    const Json::json_pointer p(ptr);
    doc[p.parent_pointer()].erase(p.back());
  }
  return doc;
}

/// Each case's error names mem.json, its pointer, and contains its message.
inline void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      const ScenarioError e = error_of(patched(c).dump(2));
      INFO(e.what());
      CHECK(e.file() == "mem.json");
      CHECK(e.pointer() == c.pointer);
      CHECK_THAT(e.message(), Catch::Matchers::Contains(c.message));
    }
  }
}

inline Json op(const char* text) { return Json::parse(text); }

/// Every invariant name, as the table has them now (an `all_except` that leaves nothing).
inline Json every_invariant() {
  Json all = Json::array();
  for (const char* name : invariant_names()) all.push_back(name);
  return all;
}

}  // namespace allocsim::harness::loader_test
