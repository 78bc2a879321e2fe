// Trace files from the command line: `run` writes one, `replay TRACE.json` reproduces it byte for byte,
// a trace whose embedded scenario no longer fits diverges (exit 4), unreadable traces are input errors
// (exit 2, file and JSON pointer named, nothing written), and `--schedule` replays what `--seed` does.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using Result = cli_test::Captured;
using cli_test::allocsim;
using cli_test::slurp;
using cli_test::spit;
using cli_test::TempDir;

// The explanation block: from "violation: " through the "fingerprint: ..." line.
std::string block(const std::string& out) {
  const size_t a = out.find("violation: ");
  REQUIRE(a != std::string::npos);
  const size_t b = out.find("fingerprint: ", a);
  REQUIRE(b != std::string::npos);
  return out.substr(a, out.find('\n', b) + 1 - a);
}

}  // namespace

TEST_CASE("run writes a shrunk trace for every mutant, and replay reproduces it byte for byte", "[cli][trace]") {
  TempDir dir;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "mutants"))
    if (e.path().extension() == ".json") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 7);
  for (const std::string& f : files) {
    INFO(f);
    const std::string trace = dir / (f + ".trace.json");
    const Result r = allocsim("run scenarios/mutants/" + f + " -n 2000 --trace-out " + trace);
    CHECK(r.code == 0);
    // The raw execution's replay line comes before any shrinking output.
    const size_t raw = r.text.find("replay: allocsim replay scenarios/mutants/" + f + " --seed ");
    CHECK(raw != std::string::npos);
    CHECK(raw < r.text.find("shrinking"));
    CHECK_THAT(r.text, Catch::Contains("minimal trace: "));
    CHECK_THAT(r.text, Catch::Contains("replay minimal: allocsim replay " + trace));
    REQUIRE(fs::exists(trace));
    const Result again = allocsim("replay " + trace);
    CHECK(again.code == 1);
    CHECK(block(again.text) == block(r.text));
    // The written file is what a replay of it would write again: stable bytes.
    const nlohmann::json doc = nlohmann::json::parse(slurp(trace));
    CHECK(doc["schema"] == "allocsim/trace/v1");
    CHECK(doc["steps"].size() > 0);
    CHECK(doc["steps"][0].contains("occurrence"));
  }
}

TEST_CASE("a trace whose embedded scenario was edited diverges with exit 4", "[cli][trace]") {
  TempDir dir;
  const std::string trace = dir / "t.trace.json";
  REQUIRE(allocsim("run scenarios/mutants/stale-last-out.json -n 2000 --trace-out " + trace).code == 0);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(slurp(trace));
  auto& script = doc["scenario"]["embedded"]["actors"][0]["script"];
  REQUIRE(script.back()["op"] == "release");
  script.erase(script.size() - 1);  // flowA no longer releases
  const std::string edited = dir / "edited.trace.json";
  spit(edited, doc.dump(2));
  const Result r = allocsim("replay " + edited);
  CHECK(r.code == 4);
  CHECK_THAT(r.text, Catch::Contains("replay diverged at step"));
  CHECK_THAT(r.text, Catch::Contains("(flowA release #1)"));
  CHECK_THAT(r.text, Catch::Contains("the trace expected: flowA at call release #1"));
  CHECK_THAT(r.text, Catch::Contains("the program did:"));
  // Renaming an actor is caught at its first step too.
  nlohmann::ordered_json renamed = nlohmann::ordered_json::parse(slurp(trace));
  renamed["scenario"]["embedded"]["actors"][1]["name"] = "flowZ";
  spit(edited, renamed.dump(2));
  const Result r2 = allocsim("replay " + edited);
  CHECK(r2.code == 4);
  CHECK_THAT(r2.text, Catch::Contains("no actor named flowB"));
  // shrink refuses a diverging trace the same way.
  CHECK(allocsim("shrink " + edited + " -o " + (dir / "min.json")).code == 4);
  CHECK_FALSE(fs::exists(dir / "min.json"));
  // A step whose preemption mark alone was flipped: the two lines say which side preempted (new-user report:
  // they read the same before).
  nlohmann::ordered_json flipped = nlohmann::ordered_json::parse(slurp(trace));
  auto& step = flipped["steps"][2];
  const bool was = step["preemption"].get<bool>();
  step["preemption"] = !was;
  spit(edited, flipped.dump(2));
  const Result r3 = allocsim("replay " + edited);
  CHECK(r3.code == 4);
  CHECK_THAT(r3.text, Catch::Contains("replay diverged at step 2 ("));
  const auto mark = [](bool preempted) { return std::string(preempted ? " (a preemption)" : " (no preemption)"); };
  CHECK_THAT(r3.text, Catch::Contains(mark(!was) + "\n  the program did: "));  // the trace's, flipped
  CHECK_THAT(r3.text, Catch::Contains(mark(was) + "\n  the scenario or the backend changed"));
}

TEST_CASE("truncated, garbage and mistyped trace files are input errors naming file and pointer", "[cli][trace]") {
  TempDir dir;
  const std::string trace = dir / "good.trace.json";
  REQUIRE(allocsim("run scenarios/mutants/client-side-claim.json -n 2000 --trace-out " + trace).code == 0);
  const std::string text = slurp(trace);
  nlohmann::ordered_json wrong = nlohmann::ordered_json::parse(text);
  wrong["steps"][1]["occurrence"] = "one";
  nlohmann::ordered_json bad_scenario = nlohmann::ordered_json::parse(text);
  bad_scenario["scenario"]["embedded"]["nodes"][0]["gpu_count"] = 0;
  // The schedule string is written from the choices: edited apart from them, it is refused (a new user's report:
  // it used to be ignored, so the trace replayed its choices whatever the string said).
  nlohmann::ordered_json edited_schedule = nlohmann::ordered_json::parse(text);
  const std::string schedule = edited_schedule["schedule_string"].get<std::string>();
  edited_schedule["schedule_string"] = "v1:flowQ";
  struct Case {
    std::string name, content, says;
  } cases[] = {
      {"truncated.trace.json", text.substr(0, text.size() / 2), ": invalid JSON at line "},
      {"garbage.trace.json", std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe", 10), ": not a text file"},
      {"duplicate.trace.json", "{\n  \"fingerprint\": \"0\"," + text.substr(1),
       ": /fingerprint: duplicate key \"fingerprint\""},
      {"empty.trace.json", "", "file is empty"},
      {"schema.trace.json", R"({"schema": "allocsim/trace/v9"})", ": /schema: expected \"allocsim/trace/v1\""},
      {"occurrence.trace.json", wrong.dump(), ": /steps/1/occurrence: expected an unsigned integer"},
      {"scenario.trace.json", bad_scenario.dump(), ": /scenario/embedded/nodes/0/gpu_count: expected an integer"},
      {"schedule.trace.json", edited_schedule.dump(),
       ": /schedule_string: disagrees with /choices, which give \"" + schedule + "\""},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = dir / c.name;
    spit(path, c.content);
    const Result r = allocsim("replay " + path);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(path));
    CHECK_THAT(r.text, Catch::Contains(c.says));
    const Result s = allocsim("shrink " + path + " -o " + (dir / "out.json"));
    CHECK(s.code == 2);
    CHECK_FALSE(fs::exists(dir / "out.json"));
  }
}

TEST_CASE("replay --schedule reproduces the seed's execution, and shrink and perfetto write their files",
          "[cli][trace]") {
  TempDir dir;
  const Result r = allocsim("run scenarios/mutants/stale-last-out.json -n 2000 --no-trace");
  std::smatch seed, sched;
  REQUIRE(std::regex_search(r.text, seed, std::regex("replay: allocsim replay (\\S+ --seed \\d+)")));
  REQUIRE(std::regex_search(r.text, sched, std::regex("replay by schedule: allocsim replay (\\S+ --schedule \\S+)")));
  const Result by_seed = allocsim("replay " + seed[1].str());
  const Result by_schedule = allocsim("replay " + sched[1].str());
  CHECK(by_seed.code == 1);
  CHECK(by_schedule.code == 1);
  const std::regex fp("fingerprint ([0-9a-f]{16})");
  std::smatch a, b;
  REQUIRE(std::regex_search(by_seed.text, a, fp));
  REQUIRE(std::regex_search(by_schedule.text, b, fp));
  CHECK(a[1] == b[1]);
  CHECK(allocsim("replay scenarios/mutants/stale-last-out.json --schedule v1:flowA").code == 4);
  CHECK(allocsim("replay scenarios/mutants/stale-last-out.json --schedule v1:nobody").code == 2);

  const std::string raw = dir / "raw.trace.json";
  REQUIRE(allocsim("run scenarios/mutants/stale-last-out.json -n 2000 --no-shrink --trace-out " + raw).code == 0);
  const Result s = allocsim("shrink " + raw + " -o " + (dir / "min.trace.json") + " --perfetto " + (dir / "p.json"));
  CHECK(s.code == 1);
  CHECK_THAT(s.text, Catch::Contains("minimal trace: 20 steps, 2 actors, 3 ops, 1 preemption"));
  CHECK(block(allocsim("replay " + (dir / "min.trace.json")).text) == block(s.text));
  const nlohmann::json p = nlohmann::json::parse(slurp(dir / "p.json"));
  size_t slices = 0, threads = 0, instants = 0;
  for (const auto& e : p["traceEvents"]) {
    slices += e["ph"] == "X";
    threads += e["ph"] == "M" && e["name"] == "thread_name";
    instants += e["ph"] == "i";
  }
  CHECK(slices == 20);
  CHECK(threads == 2);
  CHECK(instants == 1);
}
