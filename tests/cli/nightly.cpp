// tools/nightly/: the nightly script (sweep and merge, on a small directory with a small budget), and the
// Kubernetes and CI manifests (valid YAML with the fields that make them work). python3 with PyYAML is part
// of the dev setup (tools/dev.sh): if it is missing, these tests fail rather than skip.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using Out = cli_test::Captured;
using cli_test::sh;
using cli_test::slurp;
using cli_test::TempDir;

const std::string kEnv = std::string("ALLOCSIM=") + ALLOCSIM_BINARY + " ";

}  // namespace

TEST_CASE("nightly.sh: sweeps a directory into reports, shards and merges to the same report", "[cli][nightly]") {
  TempDir t;
  fs::create_directories(t / "scenarios");
  for (const char* s : {"alloc-004-simultaneous-claim.json", "alloc-021-fail-geometry.json"})
    fs::copy_file(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/" + s, t / ("scenarios/" + std::string(s)));
  Out whole = sh(kEnv + "tools/nightly/nightly.sh sweep -o " + (t / "whole") + " -j 2 -b 60 " + (t / "scenarios"));
  CHECK(whole.code == 0);
  CHECK_THAT(whole.text, Catch::Contains("2 met"));
  for (const char* f : {"sweep.json", "junit.xml", "sweep.log", "checkpoint.json"})
    CHECK(fs::exists(t / ("whole/" + std::string(f))));
  for (int k = 1; k <= 2; ++k)
    CHECK(sh(kEnv + "tools/nightly/nightly.sh sweep -s " + std::to_string(k) + "/2 -o " +
             (t / ("shard-" + std::to_string(k))) + " " + (t / "scenarios"))
              .code == 0);
  Out merged = sh(kEnv + "tools/nightly/nightly.sh merge " + (t / "merged") + " " + (t / "shard-1/sweep.json") + " " +
                  (t / "shard-2/sweep.json"));
  CHECK(merged.code == 0);
  auto m = nlohmann::json::parse(slurp(t / "merged/sweep.json"));
  m.erase("shards");
  CHECK(m == nlohmann::json::parse(slurp(t / "whole/sweep.json")));
  // Run again over the finished checkpoint: resumes, same report.
  Out again = sh(kEnv + "tools/nightly/nightly.sh sweep -o " + (t / "whole") + " " + (t / "scenarios"));
  CHECK(again.code == 0);
  // A bad option is a usage error.
  CHECK(sh(kEnv + "tools/nightly/nightly.sh sweep --nope").code == 2);
}

TEST_CASE("nightly.sh swarm: shards of one night's seed merge to the unsharded run's folder", "[cli][nightly]") {
  TempDir t;
  // The generator check over 100,000 seeds is the nightly's, not this test's.
  const std::string run =
      kEnv + "ALLOCSIM_SWARM_GENERATOR_SEEDS=0 tools/nightly/nightly.sh swarm --seed 20261201 -n 24 -j 1 ";
  REQUIRE(sh(run + "-o " + (t / "whole")).code == 0);
  for (const char* f : {"swarm/summary.json", "swarm-junit.xml", "swarm.log", "swarm-checkpoint-20261201.json"})
    CHECK(fs::exists(t / ("whole/" + std::string(f))));
  for (int k = 1; k <= 2; ++k)
    REQUIRE(sh(run + "-s " + std::to_string(k) + "/2 -o " + (t / ("shard-" + std::to_string(k)))).code == 0);
  Out merged = sh(kEnv + "tools/nightly/nightly.sh swarm-merge " + (t / "merged") + " " + (t / "shard-1") + " " +
                  (t / "shard-2"));
  INFO(merged.text);
  REQUIRE(merged.code == 0);
  CHECK(slurp(t / "merged/swarm/summary.json") == slurp(t / "whole/swarm/summary.json"));
  CHECK(slurp(t / "merged/swarm-junit.xml") == slurp(t / "whole/swarm-junit.xml"));
  // Again over the finished checkpoint: resumed, the same summary.
  const std::string before = slurp(t / "whole/swarm/summary.json");
  REQUIRE(sh(run + "-o " + (t / "whole")).code == 0);
  CHECK(slurp(t / "whole/swarm/summary.json") == before);
}

TEST_CASE("nightly manifests: the Indexed Job and the CI workflow are valid YAML with the right fields",
          "[cli][nightly]") {
  const std::string check = R"PY(
import sys, yaml
docs = list(yaml.safe_load_all(open("tools/nightly/k8s-indexed-job.yaml")))
shards, merge, swarm_shards, swarm_merge = docs
for sh, mg, stage in ((swarm_shards, swarm_merge, "swarm"),):
    ss = sh["spec"]
    assert ss["completionMode"] == "Indexed" and ss["completions"] == ss["parallelism"] >= 2
    sc = ss["template"]["spec"]["containers"][0]
    senv = {e["name"]: e["value"] for e in sc["env"]}
    assert int(senv["SHARDS"]) == ss["completions"], "SHARDS must equal completions"
    sscript = " ".join(sc["args"])
    assert "nightly.sh swarm" in sscript and '-s "$K/$SHARDS"' in sscript and '--seed "$SWARM_SEED"' in sscript
    msc = mg["spec"]["template"]["spec"]
    assert "nightly.sh swarm-merge" in " ".join(msc["containers"][0]["args"])
    assert str(ss["completions"]) in " ".join(msc["initContainers"][0]["args"])
assert shards["kind"] == "Job" and shards["apiVersion"] == "batch/v1"
s = shards["spec"]
assert s["completionMode"] == "Indexed"
assert s["completions"] == s["parallelism"] >= 2
c = s["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert int(env["SHARDS"]) == s["completions"], "SHARDS must equal completions"
script = " ".join(c["args"])
assert "JOB_COMPLETION_INDEX" in script and '-s "$K/$SHARDS"' in script
assert s["template"]["spec"]["restartPolicy"] == "Never"
assert merge["kind"] == "Job"
m = merge["spec"]["template"]["spec"]
assert "nightly.sh merge" in " ".join(m["containers"][0]["args"])
assert str(s["completions"]) in " ".join(m["initContainers"][0]["args"])
wf = yaml.safe_load(open("tools/nightly/github-workflow.yaml"))
on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as true
assert "schedule" in on
shard = wf["jobs"]["sweep"]["strategy"]["matrix"]["shard"]
assert shard == list(range(1, len(shard) + 1))
runs = " ".join(st.get("run", "") for st in wf["jobs"]["sweep"]["steps"])
assert "matrix.shard" in runs and "/%d" % len(shard) in runs
assert wf["jobs"]["merge"]["needs"] == "sweep"
assert any("nightly.sh merge" in st.get("run", "") for st in wf["jobs"]["merge"]["steps"])
print("manifests ok")
)PY";
  const std::string file =
      (fs::temp_directory_path() / ("allocsim-manifests-" + std::to_string(getpid()) + ".py")).string();
  std::ofstream(file) << check;
  Out r = sh("python3 " + file);
  fs::remove(file);
  INFO(r.text);
  CHECK(r.code == 0);
  CHECK_THAT(r.text, Catch::Contains("manifests ok"));
}
