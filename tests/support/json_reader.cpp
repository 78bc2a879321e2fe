// The strict JSON reader (sim/support/json_reader.h) on its own: every failure names the file, the exact
// JSON pointer and what was expected; duplicate keys and deep nesting are rejected; unknown keys get a
// did-you-mean. The scenario loader's own corpus (tests/backend/malformed/) covers it again end to end.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/support/json_reader.h"

using namespace allocsim::support;

namespace {

/// The InputError `f` throws (FAILs when it throws nothing).
template <class F>
InputError error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError");
  return InputError("", "", "");
}

}  // namespace

TEST_CASE("support: InputError's what() is FILE: POINTER: MESSAGE, the root as (document root)", "[support]") {
  CHECK(std::string(InputError("f.json", "/a/0", "bad").what()) == "f.json: /a/0: bad");
  CHECK(std::string(InputError("f.json", "", "bad").what()) == "f.json: (document root): bad");
  CHECK(InputError("f.json", "", "bad").has_pointer());
  // An error about the file itself names no place in it.
  const InputError file = InputError::about_file("f.json", "file is empty");
  CHECK(std::string(file.what()) == "f.json: file is empty");
  CHECK(!file.has_pointer());
  CHECK(file.pointer().empty());
  CHECK(file.reworded("not a valid report: file is empty") == "f.json: not a valid report: file is empty");
  CHECK(InputError("f.json", "", "bad").reworded("worse") == "f.json: (document root): worse");
  CHECK(located("f.json", "", "m") == "f.json: (document root): m");
  CHECK(located("f.json", "/x", "m") == "f.json: /x: m");
  // The reader's own file-level errors are about_file errors.
  const InputError empty = error_of([] { check_text("  \n", "f.json"); });
  CHECK(!empty.has_pointer());
  CHECK(std::string(empty.what()) == "f.json: file is empty");
  const InputError syntax = error_of([] { parse_strict("{", "f.json"); });
  CHECK(!syntax.has_pointer());
}

TEST_CASE("support: pointers escape ~ and / (RFC 6901)", "[support]") {
  CHECK(child("/a", "b/c~d") == "/a/b~1c~0d");
  CHECK(child("", std::size_t{3}) == "/3");
}

TEST_CASE("support: did-you-mean picks the closest candidate within two edits", "[support]") {
  const std::vector<const char*> keys = {"gpu_count", "memory_gib", "flowA", "flowB"};
  CHECK(did_you_mean("gpu_cuont", keys) == " (did you mean \"gpu_count\"?)");  // a transposition is one edit
  CHECK(did_you_mean("flowb", keys) == " (did you mean \"flowB\"?)");          // case counts second
  CHECK(did_you_mean("zzzzzz", keys).empty());
  CHECK(did_you_mean("a", {"b"}).empty());  // a word no longer than the distance is no typo
  // A name cut short suggests the one name it begins (3 characters or more), never one of several.
  const std::vector<const char*> mutants = {"client-side-claim", "release-keeps-owner", "release-clears-any-owner"};
  CHECK(did_you_mean("client-side", mutants) == " (did you mean \"client-side-claim\"?)");
  CHECK(did_you_mean("Client-Side", mutants) == " (did you mean \"client-side-claim\"?)");
  CHECK(did_you_mean("release-", mutants).empty());
  CHECK(did_you_mean("cl", mutants).empty());
  CHECK(hint("zzzzzz", {"x", "y"}) == " (expected one of \"x\", \"y\")");
}

TEST_CASE("support: parse_strict rejects duplicate keys at their pointer, and deep nesting", "[support]") {
  const InputError dup = error_of([] { parse_strict(R"({"a": {"b": 1, "b": 2}})", "f.json"); });
  CHECK(dup.file() == "f.json");
  CHECK(dup.pointer() == "/a/b");
  CHECK(dup.message() == "duplicate key \"b\"");

  TextRules shallow;
  shallow.max_depth = 2;
  const InputError deep = error_of([&] { parse_strict(R"({"a": [[1]]})", "f.json", shallow); });
  CHECK(deep.pointer() == "/a/0");
  CHECK(deep.message() == "JSON nested deeper than 2 levels");

  const InputError syntax = error_of([] { parse_strict("{\n  \"a\": tru }", "f.json"); });
  CHECK(syntax.pointer().empty());
  CHECK_THAT(syntax.message(), Catch::StartsWith("invalid JSON at line 2 column "));

  // File order is kept.
  const Json doc = parse_strict(R"({"z": 1, "a": 2})", "f.json");
  CHECK(doc.begin().key() == "z");
}

TEST_CASE("support: check_text names the first non-text byte and the size limit", "[support]") {
  CHECK(error_of([] { check_text(" \n", "f.json"); }).message() == "file is empty");
  CHECK(error_of([] { check_text("{\"a\": \"\xC3\x28\"}", "f.json"); }).message() ==
        "not a text file: unexpected byte 0xc3 at line 1 column 8 (scenario files are UTF-8 JSON)");
  TextRules rules;
  rules.max_bytes = std::size_t{1} << 20;
  rules.kind = "trace files";
  CHECK(error_of([&] { check_text(std::string((1u << 20) + 1, ' '), "t.json", rules); }).message() ==
        "file is 1048577 bytes; trace files are limited to 1 MiB");
}

TEST_CASE("support: read_text reports the OS error and the size limit before reading", "[support]") {
  const auto dir = std::filesystem::temp_directory_path() / ("allocsim-support-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string missing = (dir / "missing.json").string();
  CHECK(error_of([&] { read_text(missing); }).message() == "cannot open: No such file or directory");
  const std::string big = (dir / "big.json").string();
  std::ofstream(big) << std::string(100, ' ');
  TextRules tiny;
  tiny.max_bytes = 10;
  tiny.kind = "tiny files";
  CHECK(error_of([&] { read_text(big, tiny); }).message() == "file is 100 bytes; tiny files are limited to 10 bytes");
  CHECK(read_text(big) == std::string(100, ' '));
  std::filesystem::remove_all(dir);
}

TEST_CASE("support: JsonReader getters say what they expected and what they found", "[support]") {
  const JsonReader r("f.json");
  const Json doc = parse_strict(R"({"n": 2.0, "s": "", "k": "exclusiv", "b": 1, "list": ["x", "x"]})", "f.json");
  CHECK(error_of([&] { r.int_value(doc["n"], "/n", 1, 64); }).message() == "expected an integer from 1 to 64, got 2.0");
  CHECK(error_of([&] { r.nonempty_string(doc["s"], "/s"); }).message() == "expected a non-empty string, got \"\"");
  CHECK(error_of([&] {
          r.choice(doc["k"], "/k", {"exclusive", "cooperative"});
        }).message() ==
        "expected one of \"exclusive\", \"cooperative\", got \"exclusiv\" (did you mean \"exclusive\"?)");
  CHECK(error_of([&] { r.bool_value(doc["b"], "/b"); }).message() == "expected a boolean, got number");
  const InputError dup = error_of([&] { r.known_names(doc["list"], "/list", {"x"}, "thing", false); });
  CHECK(dup.pointer() == "/list/1");
  CHECK(dup.message() == "duplicate thing \"x\" (first at /list/0)");
  const InputError key = error_of([&] { r.check_keys(doc, "", {"n", "s", "k", "b", "lists"}); });
  CHECK(key.pointer() == "/list");
  CHECK(key.message() == "unknown key \"list\" (did you mean \"lists\"?)");
  CHECK(error_of([&] { r.require(doc, "", "missing"); }).message() == "missing required key \"missing\"");
}
