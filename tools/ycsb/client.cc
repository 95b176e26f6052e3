#include "tools/ycsb/client.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

namespace tierfs {
namespace ycsb {

using rocksdb::Status;
using Clock = std::chrono::steady_clock;

Status ClientOptionsFromProperties(const Properties& p, ClientOptions* o) {
  Status s = p.GetBool("dotransactions", true, &o->do_transactions);
  if (s.ok()) s = p.GetInt64("threadcount", 1, &o->threads);
  if (s.ok() && o->threads < 1) {
    s = Status::InvalidArgument("property 'threadcount': '" + p.Get("threadcount") + "' is below 1");
  }
  if (s.ok()) s = p.GetInt64("target", 0, &o->target);
  if (s.ok() && o->target < 0) {
    s = Status::InvalidArgument("property 'target': '" + p.Get("target") + "' is negative");
  }
  if (s.ok()) {
    const char* count_key = o->do_transactions ? "operationcount"
                            : p.Has("insertcount") ? "insertcount"
                                                   : "recordcount";
    s = p.GetInt64(count_key, 0, &o->operation_count);
    if (s.ok() && o->operation_count < 0) {
      s = Status::InvalidArgument(std::string("property '") + count_key + "': '" +
                                  p.Get(count_key) + "' is negative");
    }
  }
  if (s.ok()) s = p.GetInt64("maxexecutiontime", 0, &o->max_execution_time_s);
  if (s.ok()) s = p.GetInt64("warmuptime", 0, &o->warmup_s);
  if (s.ok() && o->warmup_s < 0) {
    s = Status::InvalidArgument("property 'warmuptime': '" + p.Get("warmuptime") + "' is negative");
  }
  if (s.ok()) s = p.GetBool("warmupuntilstable", false, &o->warmup_until_stable);
  if (s.ok() && o->warmup_until_stable && o->warmup_s == 0) {
    s = Status::InvalidArgument("property 'warmupuntilstable': needs 'warmuptime', its least");
  }
  if (s.ok()) s = p.GetInt64("warmupstep", 5, &o->warmup_step_s);
  if (s.ok() && o->warmup_step_s < 1) {
    s = Status::InvalidArgument("property 'warmupstep': '" + p.Get("warmupstep") + "' is below 1");
  }
  if (s.ok()) s = p.GetInt64("warmupmax", 10 * o->warmup_s, &o->warmup_max_s);
  if (s.ok() && o->warmup_max_s < o->warmup_s) {
    s = Status::InvalidArgument("property 'warmupmax': '" + p.Get("warmupmax") +
                                "' is below warmuptime");
  }
  if (s.ok()) s = p.GetBool("status", false, &o->status);
  if (s.ok()) s = p.GetInt64("status.interval", 10, &o->status_interval_s);
  if (s.ok() && o->status_interval_s < 1) {
    s = Status::InvalidArgument("property 'status.interval': '" + p.Get("status.interval") +
                                "' is below 1");
  }
  o->label = p.Get("label");
  return s;
}

namespace {

// YCSB's RemainingFormatter: days and hours when there are any, minutes below
// a day, seconds only when nothing larger was printed.
std::string FormatRemaining(int64_t seconds) {
  std::string out;
  const int64_t days = seconds / 86400;
  if (days > 0) {
    out += std::to_string(days) + (days == 1 ? " day " : " days ");
    seconds -= days * 86400;
  }
  const int64_t hours = seconds / 3600;
  if (hours > 0) {
    out += std::to_string(hours) + (hours == 1 ? " hour " : " hours ");
    seconds -= hours * 3600;
  }
  if (days < 1) {
    const int64_t minutes = seconds / 60;
    if (minutes > 0) {
      out += std::to_string(minutes) + (minutes == 1 ? " minute " : " minutes ");
      seconds -= minutes * 60;
    }
  }
  if (out.empty()) out = std::to_string(seconds) + " seconds ";
  return out;
}

// "yyyy-MM-dd HH:mm:ss:SSS" in local time, as YCSB's status line.
std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm;
  localtime_r(&t, &tm);
  char buf[64];
  const size_t n = strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  snprintf(buf + n, sizeof(buf) - n, ":%03d", int(ms));
  return buf;
}

// One client thread's share and progress.
struct Worker {
  int64_t operation_count = 0;     // 0: no limit
  std::atomic<int64_t> done{0};    // read by the status thread
  std::string error;               // written by the worker before it finishes

  int64_t Todo() const {
    return operation_count == 0 ? 0 : std::max<int64_t>(operation_count - done.load(), 0);
  }
};

// Completion of the workers, for the main and status threads to wait on.
class Completion {
 public:
  explicit Completion(size_t workers) : remaining_(workers) {}
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    --remaining_;
    cv_.notify_all();
  }
  // True if all finished by `deadline`.
  bool WaitUntil(Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_until(lock, deadline, [&] { return remaining_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t remaining_;  // guarded by mu_
};

void RunWorker(const ClientOptions& options, int64_t tick_ns, CoreWorkload* workload, DB* db,
               const std::atomic<bool>* stop, Worker* worker) {
  Random64 rng((uint64_t(std::random_device()()) << 32) ^ std::random_device()());
  // As YCSB: at under one operation per ms per thread, start at a random
  // point of the first tick so the threads do not all hit the store at once.
  if (tick_ns >= 1000000) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(rng.NextNonNegative() % tick_ns));
  }
  const Clock::time_point start = Clock::now();
  int64_t done = 0;
  while ((worker->operation_count == 0 || done < worker->operation_count) &&
         !stop->load(std::memory_order_relaxed)) {
    const Status s = options.do_transactions ? workload->DoTransaction(db, &rng)
                                             : workload->DoInsert(db, &rng);
    if (!s.ok()) {
      worker->error = s.ToString();
      break;
    }
    worker->done.store(++done, std::memory_order_relaxed);
    if (tick_ns > 0) std::this_thread::sleep_until(start + std::chrono::nanoseconds(done * tick_ns));
  }
  if (db->Cleanup() != DbStatus::kOk) {
    if (!worker->error.empty()) worker->error += "; ";
    worker->error += "the database failed to clean up";
  }
}

// YCSB's status line (without the measurements' summary), e.g.
// "2024-05-01 10:00:10:003 10 sec: 51234 operations; 5123.4 current ops/sec; est completion in 1 minute ".
std::string StatusLine(const std::string& label, int64_t elapsed_ms, int64_t total_ops,
                       double current_ops_per_s, int64_t todo_ops) {
  std::string line = label + Timestamp() + " " + std::to_string(elapsed_ms / 1000) + " sec: " +
                     std::to_string(total_ops) + " operations; ";
  if (total_ops != 0) line += FormatDecimal2(current_ops_per_s) + " current ops/sec; ";
  const double throughput = elapsed_ms > 0 ? 1000.0 * double(total_ops) / double(elapsed_ms) : 0;
  if (todo_ops != 0 && throughput > 0) {
    line += "est completion in " + FormatRemaining(int64_t(std::ceil(double(todo_ops) / throughput)));
  }
  return line;
}

// The status thread's loop: a line now, one per interval, one at the end.
void ReportStatus(const ClientOptions& options, const std::vector<std::unique_ptr<Worker>>& workers,
                  Measurements* measurements, Completion* completion, std::ostream* out) {
  const Clock::time_point start = Clock::now();
  const auto interval = std::chrono::seconds(options.status_interval_s);
  Clock::time_point interval_start = start;
  Clock::time_point deadline = start + interval;
  const auto ms = [](Clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  };
  int64_t last_total = 0;
  for (bool all_done = false;;) {
    const Clock::time_point now = Clock::now();
    int64_t total = 0, todo = 0;
    for (const auto& w : workers) {
      total += w->done.load(std::memory_order_relaxed);
      todo += w->Todo();
    }
    const int64_t interval_ms = ms(now - interval_start);
    const double current = interval_ms > 0 ? 1000.0 * double(total - last_total) / double(interval_ms) : 0;
    *out << StatusLine(options.label, ms(now - start), total, current, todo)
         << measurements->IntervalSummary() << std::endl;
    if (all_done) break;
    last_total = total;
    interval_start = now;
    all_done = completion->WaitUntil(deadline);
    deadline += interval;
  }
}

}  // namespace

ClientResult RunClient(const ClientOptions& options, CoreWorkload* workload, DB* db,
                       Measurements* measurements, std::ostream* status_out) {
  int64_t threads = options.threads;
  // As YCSB: no more threads than operations.
  if (options.operation_count > 0) threads = std::min(threads, options.operation_count);
  // As YCSB: each thread holds its share of the target, one operation per tick.
  int64_t tick_ns = 0;
  if (options.target > 0) {
    const double per_thread_per_ms = double(options.target) / double(threads) / 1000.0;
    tick_ns = int64_t(1000000 / per_thread_per_ms);
  }

  std::vector<std::unique_ptr<Worker>> workers;
  for (int64_t i = 0; i < threads; ++i) {
    workers.emplace_back(new Worker());
    workers.back()->operation_count = options.operation_count / threads +
                                      (i < options.operation_count % threads ? 1 : 0);
  }

  std::atomic<bool> stop{false};
  Completion completion(workers.size());
  std::thread status_thread;
  if (options.status) {
    status_thread = std::thread(ReportStatus, std::cref(options), std::cref(workers), measurements,
                                &completion, status_out);
  }
  const Clock::time_point start = Clock::now();
  // Every thread's Init before any thread runs: the Cleanup of a thread that
  // finished early must not close the store under one that has not started.
  std::vector<bool> initialized;
  for (auto& w : workers) {
    initialized.push_back(db->Init() == DbStatus::kOk);
    if (!initialized.back()) w->error = "the database failed to initialize";
  }
  std::vector<std::thread> running;
  for (size_t i = 0; i < workers.size(); ++i) {
    Worker* worker = workers[i].get();
    const bool run = initialized[i];
    running.emplace_back([&options, tick_ns, workload, db, &stop, worker, &completion, run] {
      if (run) RunWorker(options, tick_ns, workload, db, &stop, worker);
      completion.Done();
    });
  }
  if (options.max_execution_time_s > 0 &&
      !completion.WaitUntil(start + std::chrono::seconds(options.max_execution_time_s))) {
    stop.store(true, std::memory_order_relaxed);
  }
  for (std::thread& t : running) t.join();
  const Clock::time_point end = Clock::now();
  if (status_thread.joinable()) status_thread.join();

  ClientResult result;
  result.runtime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(end - start).count();
  for (size_t i = 0; i < workers.size(); ++i) {
    result.operations += workers[i]->done.load();
    if (!workers[i]->error.empty()) {
      result.errors.push_back("client thread " + std::to_string(i) + ": " + workers[i]->error);
    }
  }
  return result;
}

}  // namespace ycsb
}  // namespace tierfs
