// The op table's rows, gathered from the files that define them (ops.h), in OpKind order. A file with new
// ops adds one line here; op_spec() checks that every row sits at its OpKind's index.
#include "backend/harness/ops.h"

namespace allocsim::harness {

const std::vector<OpSpec>& op_specs() {
  static const std::vector<OpSpec> k = [] {
    std::vector<OpSpec> rows = core_op_rows();
    for (OpSpec& row : fault_op_rows()) rows.push_back(std::move(row));
    return rows;
  }();
  return k;
}

}  // namespace allocsim::harness
