// The op table's behaviour rows, gathered from the concept files that define them (op_behaviour.h) into OpKind
// order. A new concept file adds one line here; op_behaviour() checks that every row sits at its OpKind's index.
#include "backend/ops/op_behaviour.h"

#include <algorithm>
#include <stdexcept>

namespace allocsim::harness {

const std::vector<OpBehaviour>& op_behaviour_rows() {
  static const std::vector<OpBehaviour> k = [] {
    std::vector<OpBehaviour> rows;
    for (const std::vector<OpBehaviour>& part :
         {claim_op_behaviour(), status_op_behaviour(), recover_op_behaviour(), environment_op_behaviour(),
          fault_op_behaviour(), foreign_op_behaviour()})
      rows.insert(rows.end(), part.begin(), part.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const OpBehaviour& a, const OpBehaviour& b) { return a.kind < b.kind; });
    return rows;
  }();
  return k;
}

const OpBehaviour& op_behaviour(OpKind k) {
  const auto& ops = op_behaviour_rows();
  const auto i = static_cast<std::size_t>(k);
  if (i >= ops.size() || ops[i].kind != k) throw std::logic_error("op behaviour table out of OpKind order");
  return ops[i];
}

}  // namespace allocsim::harness
