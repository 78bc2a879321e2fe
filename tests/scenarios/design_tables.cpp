// docs/DESIGN.md's op table (§4) and invariant table (§5) are the rows' (backend/system/design_tables.h): the file
// is what `tools/dev.sh schema` writes into it, every op and invariant has its line, and a file without a marker is
// refused by name.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "backend/invariants/invariant_table.h"
#include "backend/scenario/op_syntax.h"
#include "backend/system/design_tables.h"

using namespace allocsim::harness;

namespace {

std::string design_text() {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/docs/DESIGN.md");
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(in);
  return text.str();
}

}  // namespace

TEST_CASE("design tables: docs/DESIGN.md holds the op and invariant tables the rows write (tools/dev.sh schema)",
          "[scenario][docs]") {
  const DesignFreshness fresh = design_freshness(design_text());
  INFO((fresh.lag ? fresh.lag : "up to date") << "; run tools/dev.sh schema");
  CHECK(fresh.lag == nullptr);
  // What the rows' schemas say of each key: optional, its words, its range, its default; the modifiers after it.
  const std::string ops = op_table_markdown(), invariants = invariant_table_markdown();
  CHECK(ops.find("| `inventory` | `nodes` (optional); `when` |") != std::string::npos);
  CHECK(ops.find("`lease_seconds` (optional, over 0, up to 86400)") != std::string::npos);
  CHECK(ops.find("`binds` (1-16, default 1)") != std::string::npos);
  CHECK(ops.find("`kind` (`nodes` \\| `pods` \\| `config`)") != std::string::npos);
  CHECK(invariants.find("| `single-ownership` |") < invariants.find("| `ops-atomic` |"));
}

TEST_CASE("design tables: a lagging table is rewritten and said, a missing marker is refused", "[scenario][docs]") {
  const std::string text = design_text();
  std::string stale = text;
  const size_t at = stale.find("| `no-double-grant` |");
  REQUIRE(at != std::string::npos);
  stale.insert(at + 2, "x");  // a name the rows do not have
  const DesignFreshness f = design_freshness(stale);
  CHECK(std::string(f.lag) == "lags the invariant table");
  CHECK(f.written == text);
  std::string no_marker = text;
  no_marker.erase(no_marker.find(kOpTableStart), std::string(kOpTableStart).size());
  CHECK_THROWS_WITH(design_freshness(no_marker), Catch::Contains("no line \"<!-- the op table"));
}
