// allocsim sweep DIR|FILES...: judge many scenarios, exhaustively by default (dfs + dpor), on --jobs
// threads, as shard K/N, with checkpoints; JSON and JUnit reports (sim/campaign/sweep.h).
//
// Exit codes: 0 every scenario met its expectation; 1 one did not (or the time budget cut it short);
// 2 usage or input error, including a scenario file that does not load: that file is reported (stdout,
// the JSON "errors" list, a JUnit <error>) with its JSON pointer, the other scenarios still run and are
// reported, and the exit code is 2 because the sweep could not judge everything it was given; 3 internal;
// 4 under --check-determinism when an execution ran differently the second time (nondeterminism voids the
// verdicts, as in run).
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "backend/system/system.h"
#include "sim/campaign/sweep.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/sweep_cli.h"

namespace allocsim::cli {

namespace {

/// Prints a progress line to stderr twice a second until stopped (terminals only). Wall-clock values
/// appear here and nowhere else.
class ProgressLine {
 public:
  explicit ProgressLine(campaign::SweepProgress& p) : p_(p), t0_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] { loop(); });
  }
  ~ProgressLine() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    std::fprintf(stderr, "\r%*s\r", 110, "");
  }

 private:
  void loop() {
    std::unique_lock lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stop_; })) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
      const uint64_t done = p_.executions.load();
      const double rate = secs > 0 ? double(done) / secs : 0;
      std::string left = "remaining tree unknown";
      if (p_.estimated_total > double(done) && rate > 0)
        left = fmt::format("~{:.0f} executions left (Knuth estimate, an upper bound under dpor), ETA {:.0f}s",
                           p_.estimated_total - double(done), (p_.estimated_total - double(done)) / rate);
      std::string current;
      {
        std::lock_guard c(p_.mu);
        current = p_.current;
      }
      std::fprintf(stderr, "\r%s | units %llu/%llu | %llu executions, %.0f/s, %llu violating | %s   ", current.c_str(),
                   (unsigned long long)p_.units_done.load(), (unsigned long long)p_.units_total,
                   (unsigned long long)done, rate, (unsigned long long)p_.violating.load(), left.c_str());
    }
  }

  campaign::SweepProgress& p_;
  std::chrono::steady_clock::time_point t0_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

campaign::SweepConfig to_sweep_config(const FlagValues& v) {
  campaign::SweepConfig c;
  c.tool_version = ALLOCSIM_VERSION;
  to_explore_config(v, Cmd::sweep, c);
  c.jobs = unsigned(v.count("jobs"));
  const Shard shard = parse_shard(v.value("shard"));
  c.shard_index = shard.index, c.shard_count = shard.count;
  if (c.shard_count > 1 && v.was_given("corpus"))
    throw UsageError(
        "--corpus: not with --shard K/N (a sharded sweep replays no corpus; sweep unsharded to replay it)");
  if (const auto budget = v.count_if("time-budget")) c.time_budget_seconds = double(*budget);
  c.resume_path = v.value("resume");
  // Resuming keeps checkpointing into the same file unless told otherwise.
  c.checkpoint_path = v.value("checkpoint").empty() ? c.resume_path : v.value("checkpoint");
  c.checkpoint_interval_seconds = double(v.count("checkpoint-interval"));
  return c;
}

SweepOutputs sweep_outputs(const FlagValues& v) {
  return {.report_json = v.value("report-json"), .junit = v.value("junit"), .report_html = v.value("report-html")};
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  FlagValues v;
  std::vector<std::string> inputs;
  po::options_description d("sweep options");
  declare_flags(d, v, Cmd::sweep);
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "input", -1);
  if (vm.count("help")) {
    std::cout << "usage: allocsim sweep DIR|FILES... [options]\n\n"
              << d
              << "\nexamples:\n  allocsim sweep scenarios/ --jobs 2 --report-json sweep.json --junit sweep.xml\n"
                 "  allocsim sweep scenarios/ --shard 2/3 --report-json shard-2.json   (then: allocsim merge "
                 "shard-*.json)\n"
                 "\nexit codes: 0 all expectations met; 1 one was not; 2 usage/input error (a bad scenario file is "
                 "reported and the rest still run); 3 internal error; 4 an execution ran differently the second time "
                 "(--check-determinism).\n";
    return kExitOk;
  }
  note_given(vm, v);
  if (inputs.empty()) throw UsageError("missing DIR|FILES (scenario files, or directories of them)");
  check_flag_pairs(v);
  campaign::SweepConfig cfg = to_sweep_config(v);
  const SweepOutputs out = sweep_outputs(v);
  check_outputs(out);
  // --resume F writes to F too; run_sweep reads it (and checks its schema) as a checkpoint before anything runs.
  if (v.value("checkpoint").empty())
    check_output_dir("--checkpoint", cfg.checkpoint_path);
  else
    check_checkpoint_output(cfg.checkpoint_path, "sweep");
  const bool tty = isatty(STDERR_FILENO);
  cfg.estimate_trees = tty;
  campaign::SweepProgress progress;
  try {
    const auto files = campaign::expand_inputs(inputs);
    campaign::SweepResults res;
    {
      std::optional<ProgressLine> line;
      if (tty) line.emplace(progress);
      res = campaign::run_sweep(harness::backend_system(), files, cfg, &progress);
    }
    // The corpus is replayed after the units ran only so that the sweep's own work is unchanged; it is
    // reported first per scenario and judged with it (sim/campaign/corpus.h).
    if (!v.is_on("no-corpus")) campaign::replay_sweep_corpus(harness::backend_system(), res, v.value("corpus"));
    const nlohmann::json shards = nullptr;  // a shard's own "shards" field comes from the report itself
    return finish_sweep(res, out, shards);
  } catch (const campaign::CorpusError& e) {
    std::cerr << "allocsim: --corpus: " << e.what() << "\n";
    return kExitUsage;
  } catch (const campaign::SweepInputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace allocsim::cli
