// libFuzzer target: the trace loader on arbitrary bytes (docs/DESIGN.md §8: bad input is never a crash).
//
// Property: parse_trace() either returns a Trace or throws TraceError; anything else (another exception,
// a crash, a sanitizer report, a leak) is a bug. An accepted trace must also survive a round trip:
// trace_to_text() of it parses again, and printing that gives the same bytes (the writer is
// deterministic and the reader loses nothing the writer wrote).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "backend/system/system.h"
#include "sim/campaign/trace_file.h"

namespace {

[[noreturn]] void bug(const char* stage, const char* what) {
  std::fprintf(stderr, "fuzz_trace: %s: %s\n", stage, what);
  std::abort();  // libFuzzer records the input as a crash
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace allocsim::campaign;
  const System& system = allocsim::harness::backend_system();
  const std::string text(reinterpret_cast<const char*>(data), size);
  Trace trace;
  try {
    trace = parse_trace(system, text, "fuzz.trace.json");
  } catch (const TraceError&) {
    return 0;  // rejected with a message
  } catch (const std::exception& e) {
    bug("parse_trace threw something other than TraceError", e.what());
  } catch (...) {
    bug("parse_trace threw", "a non-std exception");
  }
  try {
    const std::string once = trace_to_text(trace);
    const std::string twice = trace_to_text(parse_trace(system, once, "fuzz.trace.json"));
    if (once != twice) bug("round trip", "trace_to_text(parse_trace(trace_to_text(t))) differs from trace_to_text(t)");
  } catch (const std::exception& e) {
    bug("an accepted trace did not survive trace_to_text and parse_trace", e.what());
  }
  return 0;
}
