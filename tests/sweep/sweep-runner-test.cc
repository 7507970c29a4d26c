// RunSweepPoints conserves points: with any number of threads or worker processes and over any
// split into shards, every pending point is delivered exactly once, no finished point is, and
// every delivered time is the evaluator's.
#include "sim/sweep/sweep-runner.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "sim/sweep/point-evaluator.h"
#include "tests/sweep/sweep-test-util.h"
#include "tests/address-sanitizer.h"

namespace hfsim {
namespace {

using nlohmann::json;

constexpr uint64_t kBlock = 256;  // Shard::kBlockPoints, restated: blocks of 256 points

json Axis(double from, double to) { return {{"from", from}, {"to", to}, {"step", 1}}; }

/// A 2-D all-reduce swept over a grid of `a` x `b` allocations and two sizes.
json GridSweep(int a, int b, const std::string& engine) {
  return {{"topology",
           {{"dimensions",
             test::Dims(test::Dim("Ring", 2, 50, 100), test::Dim("Switch", 2, 25, 500))}}},
          {"workload", {{"collective", {{"kind", "all_reduce"}, {"size_bytes", 16384}}}}},
          {"sweep",
           {{"engine", engine},
            {"bandwidth_GBps", {{"grid", {Axis(10, 9 + a), Axis(5, 4 + b)}}}},
            {"parameters",
             {{{"path", "workload.collective.size_bytes"}, {"values", {16384, 32768}}}}}}}};
}

/// Every 7th point, all of block 3 (when there is one) and the last point are already done.
std::vector<uint8_t> SomeDone(uint64_t points, uint64_t every = 7) {
  std::vector<uint8_t> done(points, 0);
  for (uint64_t p = 0; p < points; p += every) done[p] = 1;
  for (uint64_t p = 3 * kBlock; p < std::min(points, 4 * kBlock); ++p) done[p] = 1;
  done[points - 1] = 1;
  return done;
}

struct Collected {
  std::vector<uint32_t> count;
  std::vector<double> time;
  uint64_t idle_calls = 0;
  bool off_thread = false;   ///< deliver or idle ran on another thread
  std::set<pid_t> children;  ///< child processes seen from idle (packet workers)
};

/// This process's children (running or not yet reaped), from /proc.
std::set<pid_t> Children() {
  std::set<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text;
    std::getline(stat, text);
    const size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    char state = 0;
    pid_t parent = 0;
    fields >> state >> parent;
    if (parent == getpid()) out.insert(std::stoi(name));
  }
  return out;
}

Collected RunAll(const SweepPlan& plan, const std::vector<uint8_t>& done, uint32_t workers,
                 Shard shard, bool watch_children = false) {
  Collected c;
  c.count.assign(plan.PointCount(), 0);
  c.time.assign(plan.PointCount(), 0.0);
  const auto caller = std::this_thread::get_id();
  const std::atomic<bool> stop{false};
  RunnerOptions options;
  options.workers = workers;
  options.shard = shard;
  const auto error = RunSweepPoints(
      plan, done, options,
      [&](std::span<const PointResult> results) {
        c.off_thread = c.off_thread || std::this_thread::get_id() != caller;
        for (const PointResult& r : results) {
          ++c.count.at(r.point);
          c.time[r.point] = r.time_ns;
        }
      },
      [&] {
        c.off_thread = c.off_thread || std::this_thread::get_id() != caller;
        ++c.idle_calls;
        if (watch_children) {
          const std::set<pid_t> now = Children();
          c.children.insert(now.begin(), now.end());
        }
      },
      stop);
  EXPECT_FALSE(error.has_value()) << *error;
  EXPECT_FALSE(c.off_thread);
  EXPECT_GE(c.idle_calls, 1u);
  return c;
}

uint64_t Bits(double value) { return std::bit_cast<uint64_t>(value); }

TEST(SweepRunner, ThreadsDeliverEveryPendingPointOnce) {
  const auto plan = test::PlanOrFail(GridSweep(40, 30, "analytical"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 2400u);  // 10 blocks, the last one partial
  const std::vector<uint8_t> done = SomeDone(plan->PointCount());
  PointEvaluator evaluator(*plan);
  for (uint32_t workers : {1u, 3u, 16u}) {
    const Collected c = RunAll(*plan, done, workers, Shard{0, 1});
    for (uint64_t p = 0; p < plan->PointCount(); ++p) {
      ASSERT_EQ(c.count[p], done[p] ? 0u : 1u)
          << "point " << p << " with " << workers << " threads";
      if (!done[p]) {
        ASSERT_EQ(Bits(c.time[p]), Bits(evaluator.TimeNs(p))) << "point " << p;
      }
    }
  }
}

TEST(SweepRunner, ShardsSplitThePointsByBlocks) {
  const auto plan = test::PlanOrFail(GridSweep(40, 30, "analytical"));
  ASSERT_TRUE(plan);
  const std::vector<uint8_t> done = SomeDone(plan->PointCount());
  for (uint32_t size : {2u, 3u, 4u, 11u}) {
    std::vector<uint32_t> total(plan->PointCount(), 0);
    for (uint32_t rank = 0; rank < size; ++rank) {
      const Collected c = RunAll(*plan, done, 2, Shard{rank, size});
      for (uint64_t p = 0; p < plan->PointCount(); ++p) {
        const bool mine = (p / kBlock) % size == rank;
        ASSERT_EQ(c.count[p], mine && !done[p] ? 1u : 0u)
            << "point " << p << ", rank " << rank << " of " << size;
        total[p] += c.count[p];
      }
    }
    for (uint64_t p = 0; p < plan->PointCount(); ++p) {
      ASSERT_EQ(total[p], done[p] ? 0u : 1u) << "point " << p << " over " << size << " shards";
    }
  }
}

TEST(SweepRunner, NothingPendingDeliversNothing) {
  const auto plan = test::PlanOrFail(GridSweep(20, 20, "analytical"));
  ASSERT_TRUE(plan);
  const std::vector<uint8_t> all(plan->PointCount(), 1);
  const Collected c = RunAll(*plan, all, 4, Shard{0, 1});
  for (uint32_t n : c.count) ASSERT_EQ(n, 0u);
}

TEST(SweepRunner, StopBeforeTheStartDeliversNothing) {
  const auto plan = test::PlanOrFail(GridSweep(40, 30, "analytical"));
  ASSERT_TRUE(plan);
  const std::atomic<bool> stop{true};
  uint64_t delivered = 0;
  RunnerOptions options;
  options.workers = 2;
  EXPECT_FALSE(RunSweepPoints(
      *plan, std::vector<uint8_t>(plan->PointCount(), 0), options,
      [&](std::span<const PointResult> r) { delivered += r.size(); }, [] {}, stop));
  EXPECT_EQ(delivered, 0u);
}

TEST(SweepRunner, PacketProcessesDeliverEveryPendingPointOnce) {
  // 15 x 10 x 2 = 300 points (2 blocks), each one ns-3 run of a 4-NPU all-reduce.
  const auto plan = test::PlanOrFail(GridSweep(15, 10, "packet"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->Engine(), EngineKind::kPacket);
  ASSERT_EQ(plan->PointCount(), 300u);
  const std::vector<uint8_t> done = SomeDone(plan->PointCount(), 3);
  std::vector<uint32_t> total(plan->PointCount(), 0);
  std::vector<double> times(plan->PointCount(), 0.0);
  for (uint32_t rank = 0; rank < 2; ++rank) {
    const Collected c = RunAll(*plan, done, 3, Shard{rank, 2});
    for (uint64_t p = 0; p < plan->PointCount(); ++p) {
      ASSERT_EQ(c.count[p], (p / kBlock) % 2 == rank && !done[p] ? 1u : 0u) << "point " << p;
      total[p] += c.count[p];
      if (c.count[p] != 0) times[p] = c.time[p];
    }
  }
  for (uint64_t p = 0; p < plan->PointCount(); ++p) ASSERT_EQ(total[p], done[p] ? 0u : 1u);
  PointEvaluator evaluator(*plan);
  for (uint64_t p : {1, 2, 100, 257, 298}) {
    ASSERT_FALSE(done[p]);
    EXPECT_EQ(Bits(times[p]), Bits(evaluator.TimeNs(p))) << "point " << p;
  }
}

TEST(SweepRunner, PacketWorkersShareASweepSmallerThanABlock) {
  // 8 points, one block: -j 2 must still run two worker processes (a packet point can take
  // minutes; a sweep of a few dozen of them is the common case).
  const auto plan = test::PlanOrFail(GridSweep(2, 2, "packet"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 8u);
  const Collected c = RunAll(*plan, std::vector<uint8_t>(8, 0), 2, Shard{0, 1}, true);
  for (uint32_t n : c.count) EXPECT_EQ(n, 1u);
  EXPECT_EQ(c.children.size(), 2u);
}

TEST(SweepRunner, WorkersWaitForTheWriterSoAStopLeavesLittleToWrite) {
  // 400 x 250 x 2 = 200,000 points. The writer (the calling thread) holds its first batch for
  // half a second, then stops the sweep: meanwhile the workers may fill the queue, no more. The
  // queue used to grow without bound, and a stopped sweep wrote all of it first: an interrupted
  // 2^27-point sweep stayed deaf to SIGTERM for 75 s. Bound: the 64 batches of 256 points the
  // writer took with its first, 64 more queued since, and one in each of the 4 workers' hands.
  const auto plan = test::PlanOrFail(GridSweep(400, 250, "analytical"));
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->PointCount(), 200000u);
  std::atomic<bool> stop{false};
  uint64_t delivered = 0;
  uint64_t after_stop = 0;
  RunnerOptions options;
  options.workers = 4;
  const auto error = RunSweepPoints(
      *plan, std::vector<uint8_t>(plan->PointCount(), 0), options,
      [&](std::span<const PointResult> results) {
        if (delivered == 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(500));
          stop = true;
        } else {
          after_stop += results.size();
        }
        delivered += results.size();
      },
      [] {}, stop);
  EXPECT_FALSE(error.has_value());
  EXPECT_LE(after_stop, (64 + 64 + 4) * kBlock);
}

TEST(SweepRunner, AThreadThatCannotStartIsAnErrorNotAnAbort) {
  // 1,000 threads under an address-space limit 512 MiB above what the process uses: threads
  // stop starting after about 60 (8 MiB stacks). The vector of started threads used to be
  // destroyed unjoined by the std::system_error: std::terminate, SIGABRT. In a child process,
  // which alone takes the limit.
#if HFSIM_TEST_ADDRESS_SANITIZER
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no RLIMIT_AS under it";
#endif
  const auto plan = test::PlanOrFail(GridSweep(40, 30, "analytical"));
  ASSERT_TRUE(plan);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    uint64_t pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    const rlim_t limit = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{512} << 20);
    const rlimit bound{limit, limit};
    if (setrlimit(RLIMIT_AS, &bound) != 0) _exit(4);
    const std::atomic<bool> stop{false};
    RunnerOptions options;
    options.workers = 1000;
    const auto error = RunSweepPoints(
        *plan, std::vector<uint8_t>(plan->PointCount(), 0), options,
        [](std::span<const PointResult>) {}, [] {}, stop);
    _exit(error && error->find("cannot start sweep worker thread") != std::string::npos ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: no error, or another one";
}

}  // namespace
}  // namespace hfsim
