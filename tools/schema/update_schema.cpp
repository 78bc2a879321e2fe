// allocsim-update-schema: writes the table-owned parts of the scenario schema (backend/scenario/scenario_schema.h)
// into the schema file, the rest of it as it is. `tools/dev.sh schema` runs it on
// scenarios/schema/scenario.v1.schema.json after a row of the op, invariant, mutant or barrier table changes.
//   allocsim-update-schema FILE          rewrite FILE (atomically) when it lags the tables; say whether it did
//   allocsim-update-schema --check FILE  exit 1, naming FILE, when it lags the tables; write nothing
// Exit 2 on a file that cannot be read or is not a schema with the parts the tables own.
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "backend/scenario/scenario_schema.h"
#include "sim/support/atomic_write.h"

int main(int argc, char** argv) {
  const bool check = argc == 3 && std::string(argv[1]) == "--check";
  if (argc != 2 && !check) {
    fmt::print(stderr, "usage: allocsim-update-schema [--check] FILE\n");
    return 2;
  }
  const std::string path = argv[argc - 1];
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    fmt::print(stderr, "allocsim-update-schema: {}: cannot read it\n", path);
    return 2;
  }
  std::string written;
  try {
    written = allocsim::harness::schema_with_tables(nlohmann::ordered_json::parse(text.str())).dump(2) + "\n";
  } catch (const std::exception& e) {
    fmt::print(stderr, "allocsim-update-schema: {}: {}\n", path, e.what());
    return 2;
  }
  if (written == text.str()) {
    fmt::print("{}: up to date with the tables\n", path);
    return 0;
  }
  if (check) {
    fmt::print(stderr, "{}: lags the op, invariant, mutant or barrier table; run tools/dev.sh schema\n", path);
    return 1;
  }
  allocsim::support::write_file_atomically(path, written);
  fmt::print("{}: rewritten from the tables\n", path);
  return 0;
}
