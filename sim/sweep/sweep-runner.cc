#include "sim/sweep/sweep-runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "base/failure-message.h"
#include "sim/sweep/point-evaluator.h"

namespace hfsim {

namespace {

constexpr auto kIdlePeriod = std::chrono::milliseconds(100);
// Batches of results waiting for the calling thread, at most: workers wait when there are more.
// The calling thread writes a row in about a microsecond, slower than two workers evaluate
// points, so without a bound the queue grew with the sweep (gigabytes of pending results at
// 2^27 points) and an interrupted sweep first wrote them all: 75 s deaf to SIGTERM. 64 batches
// of 256 points are written in milliseconds.
constexpr size_t kMaxQueuedBatches = 64;

/// The blocks this shard owns, in order: block b holds points [b*K, (b+1)*K).
std::vector<uint64_t> OwnedBlocks(uint64_t points, const Shard& shard) {
  std::vector<uint64_t> blocks;
  const uint64_t count = (points + Shard::kBlockPoints - 1) / Shard::kBlockPoints;
  for (uint64_t b = shard.rank; b < count; b += shard.size) blocks.push_back(b);
  return blocks;
}

/// Evaluates one block's pending points into `out`.
void EvaluateBlock(uint64_t block, uint64_t points, const std::vector<uint8_t>& done,
                   PointEvaluator& evaluator, const std::atomic<bool>& stop,
                   std::vector<PointResult>& out) {
  const uint64_t end = std::min(points, (block + 1) * Shard::kBlockPoints);
  for (uint64_t p = block * Shard::kBlockPoints; p < end; ++p) {
    if (done[p] != 0) continue;
    if (stop.load(std::memory_order_relaxed)) return;
    out.push_back({p, evaluator.TimeNs(p)});
  }
}

std::optional<std::string> RunThreads(const SweepPlan& plan, const std::vector<uint8_t>& done,
                                      const std::vector<uint64_t>& blocks, uint32_t workers,
                                      const DeliverResults& deliver,
                                      const std::function<void()>& idle,
                                      const std::atomic<bool>& stop) {
  std::mutex mutex;
  std::condition_variable ready;  // a batch or a finished worker, for the calling thread
  std::condition_variable room;   // room in the queue, for the workers
  std::deque<std::vector<PointResult>> queue;
  uint32_t running = 0;
  std::atomic<uint64_t> next{0};
  // A point the analytical engine cannot price (it throws) stops every thread; the first
  // failure is the sweep's error. An exception must not leave a std::thread: std::terminate.
  std::atomic<bool> failed{false};
  std::optional<std::string> failure;
  auto work = [&] {
    try {
      PointEvaluator evaluator(plan, &stop);
      for (uint64_t i = next++; i < blocks.size() && !stop.load() && !failed.load();
           i = next++) {
        std::vector<PointResult> batch;
        EvaluateBlock(blocks[i], plan.PointCount(), done, evaluator, stop, batch);
        if (batch.empty()) continue;
        std::unique_lock lock(mutex);
        // The stop flag is set by a signal handler, which cannot notify: look every 100 ms.
        while (queue.size() >= kMaxQueuedBatches && !stop.load() && !failed.load()) {
          room.wait_for(lock, kIdlePeriod);
        }
        queue.push_back(std::move(batch));
        ready.notify_one();
      }
    } catch (const SweepStopped&) {
      // A flow point cut short by the stop: not a result, not a failure.
    } catch (const std::exception& error) {
      std::lock_guard lock(mutex);
      if (!failure) failure = FailureMessage(error);
      failed = true;
    }
    std::lock_guard lock(mutex);
    --running;
    ready.notify_one();
  };
  // Reserved before any thread starts: a vector that failed to grow would destroy running
  // threads with it (std::terminate, "terminate called without an active exception"). A thread
  // that cannot start (std::system_error: -j 1000 under a memory limit) or its memory
  // (std::bad_alloc) stops those that did, and the sweep exits 1 with what it finished kept.
  std::vector<std::thread> threads;
  threads.reserve(workers);
  std::optional<std::string> start_failure;
  for (uint32_t w = 0; w < workers; ++w) {
    try {
      {
        std::lock_guard lock(mutex);
        ++running;
      }
      threads.emplace_back(work);
    } catch (const std::exception& error) {
      {
        std::lock_guard lock(mutex);
        --running;
      }
      failed = true;
      start_failure = fmt::format(
          "cannot start sweep worker thread {} of {}: {}; give fewer workers (-j) or more "
          "memory, and continue with --resume",
          w + 1, workers,
          dynamic_cast<const std::bad_alloc*>(&error) != nullptr ? "out of memory"
                                                                  : error.what());
      break;
    }
  }
  try {
    while (true) {
      std::deque<std::vector<PointResult>> taken;
      bool finished = false;
      {
        std::unique_lock lock(mutex);
        ready.wait_for(lock, kIdlePeriod, [&] { return !queue.empty() || running == 0; });
        taken.swap(queue);
        finished = running == 0;
      }
      room.notify_all();
      for (const auto& batch : taken) deliver(batch);
      idle();
      if (finished) break;
    }
  } catch (...) {
    // What `deliver` or `idle` threw (out of memory writing rows) leaves this function only
    // once the workers have stopped and been joined.
    failed = true;
    room.notify_all();
    for (auto& thread : threads) thread.join();
    throw;
  }
  for (auto& thread : threads) thread.join();
  return start_failure ? start_failure : failure;
}

/// Writes one result to the parent's pipe (a worker whose parent is gone exits).
void WritePointResult(int fd, const PointResult& result) {
  const char* bytes = reinterpret_cast<const char*>(&result);
  size_t written = 0;
  while (written < sizeof result) {
    const ssize_t n = write(fd, bytes + written, sizeof result - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    written += static_cast<size_t>(n);
  }
}

/// One forked worker: evaluates pending[w], pending[w + workers], ... and writes each result
/// to `fd` as it finishes (a packet point takes seconds; the parent shows progress).
[[noreturn]] void WorkerProcess(const SweepPlan& plan, const std::vector<uint64_t>& pending,
                                uint32_t w, uint32_t workers, int fd, pid_t parent) {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  // A parent killed outright (kill -9) cannot stop its workers; the kernel does it for them, or
  // they would simulate on as orphans until their next write. The check after prctl closes the
  // race with a parent that died before it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(4);
  // An exception must not unwind the forked copy of the parent's stack (its MPI state, its
  // progress bar): the worker reports it and exits at once.
  try {
    PointEvaluator evaluator(plan);
    for (size_t i = w; i < pending.size(); i += workers) {
      WritePointResult(fd, {pending[i], evaluator.TimeNs(pending[i])});
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hfsim: error: sweep worker: %s\n", FailureMessage(error).c_str());
    _exit(5);
  }
  close(fd);
  _exit(0);
}

std::optional<std::string> RunProcesses(const SweepPlan& plan, const std::vector<uint8_t>& done,
                                        const std::vector<uint64_t>& blocks, uint32_t workers,
                                        const DeliverResults& deliver,
                                        const std::function<void()>& idle,
                                        const std::atomic<bool>& stop) {
  // The pending points are dealt one by one (not by block): a packet sweep often has fewer
  // points than a block, and every worker must still get its share.
  std::vector<uint64_t> pending;
  for (const uint64_t block : blocks) {
    const uint64_t end = std::min(plan.PointCount(), (block + 1) * Shard::kBlockPoints);
    for (uint64_t p = block * Shard::kBlockPoints; p < end; ++p) {
      if (done[p] == 0) pending.push_back(p);
    }
  }
  workers = static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(workers, pending.size())));
  struct Child {
    pid_t pid = -1;
    int fd = -1;
    std::string pending;  ///< bytes of a record not yet complete
  };
  std::vector<Child> children(workers);
  const pid_t parent = getpid();
  // The workers already started are stopped and reaped before a failure to start another is
  // returned: none is left simulating for a sweep that has ended.
  auto abandon = [&](uint32_t started, const std::string& why) {
    for (uint32_t v = 0; v < started; ++v) kill(children[v].pid, SIGKILL);
    for (uint32_t v = 0; v < started; ++v) {
      while (waitpid(children[v].pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      close(children[v].fd);
    }
    return fmt::format("{}; give fewer workers (-j), and continue with --resume", why);
  };
  for (uint32_t w = 0; w < workers; ++w) {
    int fds[2];
    if (pipe(fds) != 0) {
      return abandon(w, fmt::format("cannot create a pipe for sweep worker {} of {}: {}", w + 1,
                                    workers, std::strerror(errno)));
    }
    const pid_t pid = fork();
    if (pid < 0) {
      const int error = errno;
      close(fds[0]);
      close(fds[1]);
      return abandon(w, fmt::format("cannot start sweep worker process {} of {}: {}", w + 1,
                                    workers, std::strerror(error)));
    }
    if (pid == 0) {
      close(fds[0]);
      for (uint32_t v = 0; v < w; ++v) close(children[v].fd);
      WorkerProcess(plan, pending, w, workers, fds[1], parent);
    }
    close(fds[1]);
    children[w] = {pid, fds[0], {}};
  }
  std::optional<std::string> error;
  size_t open = workers;
  bool killed = false;
  while (open > 0) {
    if (stop.load() && !killed) {
      for (const Child& c : children) kill(c.pid, SIGTERM);
      killed = true;
    }
    std::vector<pollfd> fds;
    for (const Child& c : children) {
      if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
    }
    poll(fds.data(), fds.size(), static_cast<int>(kIdlePeriod.count()));
    std::vector<PointResult> batch;
    for (Child& c : children) {
      if (c.fd < 0) continue;
      pollfd probe{c.fd, POLLIN, 0};
      if (poll(&probe, 1, 0) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(c.fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(c.fd);
        c.fd = -1;
        --open;
        continue;
      }
      c.pending.append(buffer, static_cast<size_t>(n));
      size_t used = 0;
      for (; used + sizeof(PointResult) <= c.pending.size(); used += sizeof(PointResult)) {
        PointResult r;
        std::memcpy(&r, c.pending.data() + used, sizeof r);
        batch.push_back(r);
      }
      c.pending.erase(0, used);
    }
    if (!batch.empty()) deliver(batch);
    idle();
  }
  for (const Child& c : children) {
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    // A worker that died because the user interrupted (SIGINT reaches the whole process
    // group) is not a failure: the parent exits 130 with the finished points kept.
    if (!ok && !killed && !stop.load() && !error) {
      error = WIFSIGNALED(status)
                  ? fmt::format("a packet worker process died of signal {}", WTERMSIG(status))
                  : fmt::format("a packet worker process failed (exit {})", WEXITSTATUS(status));
    }
  }
  return error;
}

}  // namespace

std::optional<std::string> RunSweepPoints(const SweepPlan& plan, const std::vector<uint8_t>& done,
                                          const RunnerOptions& options,
                                          const DeliverResults& deliver,
                                          const std::function<void()>& idle,
                                          const std::atomic<bool>& stop) {
  const std::vector<uint64_t> blocks = OwnedBlocks(plan.PointCount(), options.shard);
  const uint32_t workers = std::max<uint32_t>(1, options.workers);
  if (EngineOf(plan.Engine()).one_run_per_process) {
    return RunProcesses(plan, done, blocks, workers, deliver, idle, stop);
  }
  return RunThreads(plan, done, blocks, workers, deliver, idle, stop);
}

}  // namespace hfsim
