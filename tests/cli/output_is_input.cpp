// An output flag that names the file the command reads, or the file of another output flag, is refused up front,
// with nothing written (docs/DESIGN.md §7, "Outputs checked first"): `run S.json --trace-out S.json` used to
// replace the scenario with its minimal trace.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/support.h"

using namespace cli_test;

TEST_CASE("an output flag naming the command's input file is refused, and the input is left as it was",
          "[cli][errors]") {
  TempDir dir;
  const std::string sc = dir / "s.json";
  std::filesystem::copy_file("scenarios/alloc-023-sequential.json", sc);
  const std::string original = slurp(sc);
  const std::string trace = dir / "t.trace.json";
  REQUIRE(allocsim("run scenarios/mutants/client-side-claim.json -n 100 --no-shrink --no-corpus --trace-out " + trace)
              .code == 0);
  const std::string trace_text = slurp(trace);
  // The same file by another spelling counts too.
  const std::string other = (dir.path / "." / "s.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run " + sc + " -n 1 --no-corpus --trace-out " + sc, "--trace-out " + sc},
      {"run " + sc + " -n 1 --no-corpus --report-json " + other, "--report-json " + other},
      {"run " + sc + " -n 1 --no-corpus --fingerprints " + sc, "--fingerprints " + sc},
      {"replay " + sc + " --seed 0 --perfetto " + sc, "--perfetto " + sc},
      {"sweep " + sc + " --junit " + sc, "--junit " + sc},
      {"sweep " + sc + " --report-json " + sc, "--report-json " + sc},
      {"selfcheck " + sc + " --report-json " + sc, "--report-json " + sc},
  };
  for (const auto& [args, flag] : cases) {
    const Captured r = allocsim(args);
    INFO(args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK(r.text == "allocsim: " + flag + ": is the file this command reads (" + sc +
                        "); give another name, or it would be overwritten\n");
    CHECK(slurp(sc) == original);
  }
  // A file in a folder the command reads (sweep reads every scenario there); a new file there is fine.
  const std::string folder = dir.path.string();
  const Captured in_folder = allocsim("sweep " + folder + " --report-json " + sc);
  CHECK(in_folder.code == 2);
  CHECK(in_folder.text == "allocsim: --report-json " + sc + ": is a file in " + folder +
                              ", which this command reads; give another name, or it would be overwritten\n");
  CHECK(slurp(sc) == original);
  // Two outputs on one file: only the last one written would be left.
  const std::string out = dir / "out.json";
  const std::vector<std::pair<std::string, std::string>> twice = {
      {"run " + sc + " -n 1 --no-corpus --trace-out " + out + " --perfetto " + out,
       "--perfetto " + out + ": is also the file of --trace-out"},
      {"run " + sc + " -n 1 --no-corpus --fingerprints " + out + " --record " + out,
       "--record " + out + ": is also the file of --fingerprints"},
      {"sweep " + sc + " --report-json " + out + " --junit " + out,
       "--junit " + out + ": is also the file of --report-json"},
  };
  for (const auto& [args, said] : twice) {
    const Captured r = allocsim(args);
    INFO(args << "\n" << r.text);
    CHECK(r.code == 2);
    CHECK(r.text == "allocsim: " + said + "; give each output its own file\n");
    CHECK(!std::filesystem::exists(out));
  }
  const Captured shrink = allocsim("shrink " + trace + " -o " + trace);
  CHECK(shrink.code == 2);
  CHECK(shrink.text == "allocsim: -o " + trace + ": is the file this command reads (" + trace +
                           "); give another name, or it would be overwritten\n");
  CHECK(slurp(trace) == trace_text);
}
