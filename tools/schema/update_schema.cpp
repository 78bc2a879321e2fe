// allocsim-update-schema: writes the table-owned parts of the scenario schema (backend/scenario/scenario_schema.h)
// into the schema file, the rest of it as it is; given a Markdown file (*.md), the op and invariant tables of
// docs/DESIGN.md (backend/system/design_tables.h). `tools/dev.sh schema` runs it on
// scenarios/schema/scenario.v1.schema.json and docs/DESIGN.md after a row of the op, invariant, mutant or barrier
// table changes.
//   allocsim-update-schema FILE          rewrite FILE (atomically) when it lags the tables or its layout is not the
//                                        written one (nlohmann's, two spaces); say whether it did
//   allocsim-update-schema --check FILE  exit 1, naming FILE, when it lags the tables or differs in layout alone
//                                        (each said apart); write nothing
// Exit 2 on a usage error, a file that cannot be read or written, or one that is not a schema with the parts the
// tables own; the file is then left as it was.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "backend/scenario/scenario_schema.h"
#include "backend/system/design_tables.h"
#include "sim/support/atomic_write.h"

int main(int argc, char** argv) {
  const bool check = argc == 3 && std::string(argv[1]) == "--check";
  if ((argc != 2 && !check) || std::string(argv[argc - 1]).starts_with("--")) {
    fmt::print(stderr, "usage: allocsim-update-schema [--check] FILE\n");
    return 2;
  }
  const std::string path = argv[argc - 1];
  if (std::filesystem::is_directory(path)) {
    fmt::print(stderr, "allocsim-update-schema: {}: a folder, not a schema file\n", path);
    return 2;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    fmt::print(stderr, "allocsim-update-schema: {}: cannot read it\n", path);
    return 2;
  }
  allocsim::harness::SchemaFreshness fresh;
  try {
    if (path.ends_with(".md")) {
      const allocsim::harness::DesignFreshness d = allocsim::harness::design_freshness(text.str());
      fresh = {d.written, d.lag};
    } else {
      fresh = allocsim::harness::schema_freshness(text.str());
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "allocsim-update-schema: {}: {}\n", path, e.what());
    return 2;
  }
  if (fresh.lag == nullptr) {
    fmt::print("{}: up to date with the tables\n", path);
    return 0;
  }
  if (check) {
    fmt::print(stderr, "{}: {}; run tools/dev.sh schema\n", path, fresh.lag);
    return 1;
  }
  try {
    allocsim::support::write_file_atomically(path, fresh.written);
  } catch (const std::exception& e) {
    fmt::print(stderr, "allocsim-update-schema: {}\n", e.what());
    return 2;
  }
  fmt::print("{}: rewritten from the tables\n", path);
  return 0;
}
