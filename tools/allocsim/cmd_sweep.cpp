// allocsim sweep DIR|FILES...: judge many scenarios, exhaustively by default (dfs + dpor), on --jobs
// threads, as shard K/N, with checkpoints; JSON and JUnit reports (sim/campaign/sweep.h).
//
// Exit codes: 0 every scenario met its expectation; 1 one did not (or the time budget cut it short);
// 2 usage or input error, including a scenario file that does not load: that file is reported (stdout,
// the JSON "errors" list, a JUnit <error>) with its JSON pointer, the other scenarios still run and are
// reported, and the exit code is 2 because the sweep could not judge everything it was given; 3 internal.
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

struct SweepFlags {
  std::vector<std::string> inputs;
  ExploreFlags explore;  // --strategy, --seed, --max-steps, ... (the table in common.cpp)
  std::string jobs = "1", shard = "1/1", time_budget, checkpoint, resume, interval = "5";
  SweepOutputs out;
  std::string corpus;  // --corpus DIR ("" = beside each scenario)
  bool no_corpus = false;
};

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

campaign::SweepConfig to_sweep_config(const SweepFlags& f) {
  campaign::SweepConfig c;
  c.tool_version = ALLOCSIM_VERSION;
  to_explore_config(f.explore, Command::sweep, c);
  c.jobs = unsigned(parse_u64("--jobs", f.jobs, 1, 256));
  const Shard shard = parse_shard(f.shard);
  c.shard_index = shard.index, c.shard_count = shard.count;
  if (!f.time_budget.empty()) c.time_budget_seconds = double(parse_u64("--time-budget", f.time_budget, 1, 10'000'000));
  c.resume_path = f.resume;
  // Resuming keeps checkpointing into the same file unless told otherwise.
  c.checkpoint_path = f.checkpoint.empty() ? f.resume : f.checkpoint;
  c.checkpoint_interval_seconds = double(parse_u64("--checkpoint-interval", f.interval, 1, 86400));
  return c;
}

}  // namespace

int cmd_sweep(int argc, char** argv) {
  SweepFlags f;
  po::options_description d("sweep options");
  d.add_options()("help,h", "show this help");
  explore_options(d, f.explore, Command::sweep);
  d.add_options()("jobs,j", po::value(&f.jobs)->default_value("1"), "worker threads (results do not depend on it)");
  d.add_options()("shard", po::value(&f.shard)->default_value("1/1"),
                  "run only shard K of N (work units by scenario and schedule prefix); combine with allocsim merge");
  d.add_options()("time-budget", po::value(&f.time_budget),
                  "seconds: stop after this (unfinished scenarios fail; continue later with --resume)");
  d.add_options()("checkpoint", po::value(&f.checkpoint), "write a checkpoint here after every work unit");
  d.add_options()("resume", po::value(&f.resume), "continue from this checkpoint (and keep checkpointing to it)");
  d.add_options()("checkpoint-interval", po::value(&f.interval)->default_value("5"),
                  "seconds between checkpoints within a long work unit");
  d.add_options()("corpus", po::value(&f.corpus),
                  "replay the regression corpus in this folder first (default: .allocsim/corpus beside each scenario; "
                  "unsharded sweeps only)");
  d.add_options()("no-corpus", po::bool_switch(&f.no_corpus), "do not replay corpus entries");
  d.add_options()("report-json", po::value(&f.out.report_json), "write the allocsim/sweep-report/v1 JSON report here");
  d.add_options()("junit", po::value(&f.out.junit), "write a JUnit XML report here");
  d.add_options()("report-html", po::value(&f.out.report_html),
                  "write a self-contained HTML page here: the table, and each first violation's trace as swimlanes");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&f.inputs)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "input", -1);
  note_given(vm, f.explore);
  if (vm.count("help")) {
    std::cout << "usage: allocsim sweep DIR|FILES... [options]\n\n"
              << d
              << "\nexamples:\n  allocsim sweep scenarios/ --jobs 2 --report-json sweep.json --junit sweep.xml\n"
                 "  allocsim sweep scenarios/ --shard 2/3 --report-json shard-2.json   (then: allocsim merge "
                 "shard-*.json)\n"
                 "\nexit codes: 0 all expectations met; 1 one was not; 2 usage/input error (a bad scenario file is "
                 "reported and the rest still run); 3 internal error.\n";
    return kExitOk;
  }
  if (f.inputs.empty()) throw UsageError("missing DIR|FILES (scenario files, or directories of them)");
  campaign::SweepConfig cfg = to_sweep_config(f);
  check_outputs(f.out);
  check_output_dir("--checkpoint", cfg.checkpoint_path);
  const bool tty = isatty(STDERR_FILENO);
  cfg.estimate_trees = tty;
  campaign::SweepProgress progress;
  try {
    const auto files = campaign::expand_inputs(f.inputs);
    campaign::SweepResults res;
    {
      std::optional<ProgressLine> line;
      if (tty) line.emplace(progress);
      res = campaign::run_sweep(harness::backend_system(), files, cfg, &progress);
    }
    // The corpus is replayed after the units ran only so that the sweep's own work is unchanged; it is
    // reported first per scenario and judged with it (sim/campaign/corpus.h).
    if (!f.no_corpus) campaign::replay_sweep_corpus(harness::backend_system(), res, f.corpus);
    const nlohmann::json shards = nullptr;  // a shard's own "shards" field comes from the report itself
    return finish_sweep(res, f.out, shards);
  } catch (const campaign::CorpusError& e) {
    std::cerr << "allocsim: --corpus: " << e.what() << "\n";
    return kExitUsage;
  } catch (const campaign::SweepInputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace allocsim::cli
