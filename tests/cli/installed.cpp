// Installed like a tool (README "Installing", docs/DESIGN.md §7): `--version` names the git commit, and a
// scenario in an installed folder (its `.allocsim-installed` marker, cmake/install.cmake) keeps no corpus
// beside it: a passing run writes nothing, a violating one stores nothing there unless --corpus says where.
// tools/install_check.sh runs the real installs (CI's install-check stage); these run on copies in
// temporary folders.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using cli_test::allocsim;
using cli_test::TempDir;

/// The names in `dir`, sorted, one per line.
std::string listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

}  // namespace

TEST_CASE("allocsim --version prints the version and the git commit it was built from", "[cli][install]") {
  const cli_test::Captured r = allocsim("--version");
  INFO(r.text);
  CHECK(r.code == 0);
  // A checkout's commit (with -dirty for uncommitted changes), or "unknown" outside a git checkout.
  CHECK(std::regex_match(r.text, std::regex("allocsim 0\\.1\\.0 \\(git ([0-9a-f]{7,40}(-dirty)?|unknown)\\)\n")));
}

TEST_CASE("a run of an installed example scenario writes nothing beside it, --corpus DIR stores there",
          "[cli][install][corpus]") {
  TempDir dir;
  const fs::path folder = dir.path / "share-allocsim-scenarios";
  fs::create_directories(folder);
  const std::string scenario = (folder / "alloc-004-one-plan-two-claimants.json").string();
  fs::copy_file(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "alloc-004-one-plan-two-claimants.json", scenario);
  std::ofstream(folder / ".allocsim-installed") << "installed\n";
  const std::string before = listing(folder);
  CHECK(before == ".allocsim-installed\nalloc-004-one-plan-two-claimants.json\n");

  const cli_test::Captured ok = allocsim("run " + scenario + " -n 100");
  INFO(ok.text);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.text, Catch::EndsWith("\nexpectation met: no violation\n"));
  CHECK(listing(folder) == before);

  const cli_test::Captured found =
      allocsim("run " + scenario + " -n 100 --mutant client-side-claim --shrink-runs 2000");
  INFO(found.text);
  CHECK(found.code == 1);
  CHECK_THAT(found.text, Catch::Contains("\nminimal trace not written (an installed example scenario keeps no corpus "
                                         "beside it; --corpus DIR or --trace-out FILE writes it)\n"));
  CHECK(listing(folder) == before);

  const std::string corpus = dir / "my-corpus";
  const cli_test::Captured kept =
      allocsim("run " + scenario + " -n 100 --mutant client-side-claim --shrink-runs 2000 --corpus " + corpus);
  INFO(kept.text);
  CHECK(kept.code == 1);
  CHECK_THAT(kept.text, Catch::Contains("trace stored in the corpus: " + corpus +
                                        "/alloc-004-one-plan-two-claimants+"
                                        "client-side-claim."));
  CHECK(listing(folder) == before);
  CHECK(std::distance(fs::directory_iterator(corpus), fs::directory_iterator()) == 1);
}

TEST_CASE("without the marker, a scenario's folder gets its corpus as before", "[cli][install][corpus]") {
  TempDir dir;
  const std::string scenario = dir / "alloc-004-one-plan-two-claimants.json";
  fs::copy_file(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "alloc-004-one-plan-two-claimants.json", scenario);
  const cli_test::Captured found =
      allocsim("run " + scenario + " -n 100 --mutant client-side-claim --shrink-runs 2000");
  INFO(found.text);
  CHECK(found.code == 1);
  CHECK_THAT(found.text, Catch::Contains("trace stored in the corpus: " + (dir / ".allocsim/corpus/") +
                                         "alloc-004-one-plan-two-claimants+client-side-claim."));
}
