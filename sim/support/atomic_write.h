// The one way this tool writes an output file (traces, --fingerprints, --record, sweep checkpoints and
// reports, JUnit XML): all or nothing. A temporary file in the target's directory (so the rename cannot
// cross file systems) gets the whole content, is fsynced, and is renamed over the target; then the
// directory is fsynced so the rename itself survives a crash. A reader, or a kill at any moment, sees
// either the previous file or the new one, never a mix.
// Errors: OutputError naming the path and the OS error; nothing (no temporary file) is left behind.
#pragma once

#include <stdexcept>
#include <string>

namespace allocsim::support {

/// An output file that could not be written (directory missing, disk full, ...). what() starts with the path.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Writes `content` to `path` atomically (see above), mode 0644.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace allocsim::support
