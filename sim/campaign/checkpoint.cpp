// Campaign checkpoints: the envelope and the atomic write (checkpoint.h).
#include "sim/campaign/checkpoint.h"

#include "sim/support/atomic_write.h"

namespace allocsim::campaign {

void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::json& doc) {
  support::write_file_atomically(path, doc.dump(kind.indent) + "\n");
}

void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::ordered_json& doc) {
  support::write_file_atomically(path, doc.dump(kind.indent) + "\n");
}

}  // namespace allocsim::campaign
