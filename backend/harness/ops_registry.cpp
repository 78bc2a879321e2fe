// The op table's rows, gathered from the files that define them (ops.h), in OpKind order, and the lookups
// over them. A file with new ops adds one line here; op_spec() checks that every row sits at its OpKind's index.
#include "backend/harness/ops.h"

#include <stdexcept>

namespace allocsim::harness {

const std::vector<OpSpec>& op_specs() {
  static const std::vector<OpSpec> k = [] {
    std::vector<OpSpec> rows = core_op_rows();
    for (OpSpec& row : fault_op_rows()) rows.push_back(std::move(row));
    return rows;
  }();
  return k;
}

const OpSpec& op_spec(OpKind k) {
  const auto& ops = op_specs();
  const auto i = static_cast<std::size_t>(k);
  if (i >= ops.size() || ops[i].kind != k) throw std::logic_error("op table out of OpKind order");
  return ops[i];
}

const std::vector<const char*>& op_names() {
  static const std::vector<const char*> k = [] {
    std::vector<const char*> out;
    for (const OpSpec& op : op_specs()) out.push_back(op.name);
    return out;
  }();
  return k;
}

const char* op_name(OpKind k) {
  const auto i = static_cast<std::size_t>(k);
  return i < op_specs().size() ? op_specs()[i].name : "unknown";
}

const std::vector<const char*>& op_outcomes(OpKind k) { return op_spec(k).outcomes; }

}  // namespace allocsim::harness
