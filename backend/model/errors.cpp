// ReserveLoss::error(): upstream's three OwnershipConflict texts of `reserve` (memory_backend.py lines 262-347),
// worded from the values try_reserve_into recorded.
#include "backend/model/errors.h"

#include <cassert>

#include <fmt/format.h>

#include "backend/model/pyrepr.h"

namespace allocsim::backend {

OwnershipConflict ReserveLoss::error() const {
  switch (kind) {
    case Kind::kStalePlan:
      return OwnershipConflict(fmt::format("the inventory changed since the plan was made (generation {} -> {}); "
                                           "nothing was reserved",
                                           expected, current),
                               "Re-plan against the current inventory.");
    case Kind::kOwned:
      return OwnershipConflict(fmt::format("node {} is owned by {}", node, py::repr(owner)),
                               "Re-plan against the remaining pool.", node);
    case Kind::kVersionChanged:
      return OwnershipConflict(fmt::format("node {} changed (resourceVersion {} -> {}) between the read and the write",
                                           node, read_version, write_version),
                               "Re-plan against the current state.", node);
    case Kind::kNone:
      break;
  }
  assert(false && "ReserveLoss::error() on a reserve that was not lost");
  return OwnershipConflict("no conflict");
}

}  // namespace allocsim::backend
