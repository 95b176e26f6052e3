// Tests of device emulation (core/device_model.h): the presets, the service
// time of one I/O, and the single-queue schedule.
//
// Schedule() takes the issue time as an argument, so queueing is tested on a
// virtual clock; the only wall-clock assertions are "returns promptly" with a
// generous bound, and "does not return before its deadline", which a steady
// clock guarantees.
#include "core/device_model.h"

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace tierfs {
namespace {

constexpr int64_t kMs = 1000 * 1000;

DeviceModel Make(const std::string& spec) {
  DeviceParams p;
  ParseStatus s = ParseDeviceParams(spec, &p);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return DeviceModel(p);
}

TEST(DeviceParamsTest, Presets) {
  DeviceParams p;
  ASSERT_TRUE(ParseDeviceParams("hdd", &p).ok());
  EXPECT_EQ(p.name, "hdd");
  EXPECT_DOUBLE_EQ(p.read_latency_us, 12200);
  EXPECT_DOUBLE_EQ(p.write_latency_us, 12200);
  EXPECT_DOUBLE_EQ(p.read_mbps, 191.75);
  EXPECT_DOUBLE_EQ(p.write_mbps, 191.75);
  EXPECT_TRUE(p.sequential_is_free);
  EXPECT_TRUE(p.emulated());

  ASSERT_TRUE(ParseDeviceParams("nvme", &p).ok());
  EXPECT_DOUBLE_EQ(p.read_latency_us, 80);
  EXPECT_DOUBLE_EQ(p.write_latency_us, 20);
  EXPECT_DOUBLE_EQ(p.read_mbps, 3000);
  EXPECT_DOUBLE_EQ(p.write_mbps, 2000);
  EXPECT_FALSE(p.sequential_is_free);

  ASSERT_TRUE(ParseDeviceParams("sata-ssd", &p).ok());
  EXPECT_DOUBLE_EQ(p.read_latency_us, 110);
  EXPECT_DOUBLE_EQ(p.write_latency_us, 50);
  EXPECT_DOUBLE_EQ(p.read_mbps, 500);
  EXPECT_FALSE(p.sequential_is_free);

  ASSERT_TRUE(ParseDeviceParams("optane", &p).ok());
  EXPECT_DOUBLE_EQ(p.read_latency_us, 10);
  EXPECT_DOUBLE_EQ(p.read_mbps, 2400);
  EXPECT_DOUBLE_EQ(p.write_mbps, 2000);
  EXPECT_EQ(p.name, "optane");
}

TEST(DeviceParamsTest, NoneIsNotEmulated) {
  DeviceParams p;
  p.name = "hdd";
  p.read_latency_us = 5;
  ASSERT_TRUE(ParseDeviceParams("none", &p).ok());
  EXPECT_EQ(p.name, "none");
  EXPECT_FALSE(p.emulated());
  EXPECT_EQ(p.read_latency_us, 0);
  EXPECT_EQ(p.read_mbps, 0);
}

TEST(DeviceParamsTest, Custom) {
  DeviceParams p;
  ASSERT_TRUE(ParseDeviceParams("custom-100-50-500", &p).ok());
  EXPECT_EQ(p.name, "custom-100-50-500");
  EXPECT_TRUE(p.emulated());
  EXPECT_DOUBLE_EQ(p.read_latency_us, 100);
  EXPECT_DOUBLE_EQ(p.write_latency_us, 50);
  EXPECT_DOUBLE_EQ(p.read_mbps, 500);
  EXPECT_DOUBLE_EQ(p.write_mbps, 500);
  EXPECT_FALSE(p.sequential_is_free);

  ASSERT_TRUE(ParseDeviceParams("custom-0.5-0-250.5", &p).ok());
  EXPECT_DOUBLE_EQ(p.read_latency_us, 0.5);
  EXPECT_DOUBLE_EQ(p.write_latency_us, 0);
  EXPECT_DOUBLE_EQ(p.read_mbps, 250.5);
}

TEST(DeviceParamsTest, ErrorsNameTheSpec) {
  for (const char* bad : {"floppy", "", "HDD", "custom-100-50", "custom-a-50-500",
                          "custom-100-50-0", "custom--50-500", "custom-100-50-500-7",
                          "custom-100--50-500", "custom-nan-50-500", "custom-"}) {
    SCOPED_TRACE(bad);
    DeviceParams p;
    ParseStatus s = ParseDeviceParams(bad, &p);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(std::string("'") + bad + "'"), std::string::npos)
        << s.ToString();
  }
}

// An infinite latency or bandwidth would make ServiceNanos() convert infinity
// to int64_t (undefined behaviour); the parser must refuse it.
TEST(DeviceParamsTest, RefusesNonFiniteCustomValues) {
  for (const char* bad : {"custom-inf-50-500", "custom-100-infinity-500", "custom-1e999-50-500"}) {
    SCOPED_TRACE(bad);
    DeviceParams p;
    EXPECT_TRUE(ParseDeviceParams(bad, &p).IsInvalidArgument());
  }
}

TEST(ServiceTimeTest, HddRandomReadPaysSeekAndTransfer) {
  DeviceModel hdd = Make("hdd");
  // 12.2 ms + 4096 B / 191.75 MB/s = 12200 us + 21.361 us.
  EXPECT_NEAR(double(hdd.ServiceNanos(false, false, 4096)), 12221361.0, 2.0);
  EXPECT_NEAR(double(hdd.ServiceNanos(true, false, 4096)), 12221361.0, 2.0);
}

TEST(ServiceTimeTest, HddSequentialContinuationPaysNoLatency) {
  DeviceModel hdd = Make("hdd");
  EXPECT_NEAR(double(hdd.ServiceNanos(false, true, 4096)), 21361.0, 2.0);
  // 1 MiB sequential: 1048576 / 191.75 us.
  EXPECT_NEAR(double(hdd.ServiceNanos(false, true, 1 << 20)), 5468453.7, 2.0);
}

TEST(ServiceTimeTest, SsdPaysLatencyEvenWhenSequential) {
  DeviceModel ssd = Make("sata-ssd");
  // 110 us + 4096 / 500 us = 118.192 us.
  EXPECT_NEAR(double(ssd.ServiceNanos(false, true, 4096)), 118192.0, 2.0);
  EXPECT_EQ(ssd.ServiceNanos(false, true, 4096), ssd.ServiceNanos(false, false, 4096));
  // Writes: 50 us + 8.192 us.
  EXPECT_NEAR(double(ssd.ServiceNanos(true, false, 4096)), 58192.0, 2.0);
}

TEST(ServiceTimeTest, ReadAndWriteUseTheirOwnParameters) {
  DeviceModel nvme = Make("nvme");
  // Write: 20 us + 1048576 / 2000 us; read: 80 us + 1048576 / 3000 us.
  EXPECT_NEAR(double(nvme.ServiceNanos(true, false, 1 << 20)), 544288.0, 2.0);
  EXPECT_NEAR(double(nvme.ServiceNanos(false, false, 1 << 20)), 429525.3, 2.0);
}

TEST(ServiceTimeTest, ZeroBytesCostOnlyLatencyAndNoneCostsNothing) {
  EXPECT_EQ(Make("custom-100-50-500").ServiceNanos(false, false, 0), 100 * 1000);
  DeviceModel none = Make("none");
  EXPECT_EQ(none.ServiceNanos(false, false, 1 << 30), 0);
  EXPECT_EQ(none.ServiceNanos(true, true, 4096), 0);
}

TEST(ScheduleTest, SimultaneousIosCompleteOneServiceTimeApart) {
  DeviceModel hdd = Make("hdd");
  const int64_t now = 1000 * kMs;
  const int64_t service = hdd.ServiceNanos(false, false, 4096);
  int64_t first = hdd.Schedule(false, 1, 0, 4096, now);
  int64_t second = hdd.Schedule(false, 2, 0, 4096, now);
  int64_t third = hdd.Schedule(false, 3, 0, 4096, now);
  EXPECT_EQ(first, now + service);
  EXPECT_EQ(second, first + service);
  EXPECT_EQ(third, second + service);
}

TEST(ScheduleTest, BufferedAppendsOfAFileSeekOnceWhateverComesBetween) {
  // The page cache writes a file's appends back together: reads and other
  // files' appends in between do not make each append pay a seek.
  DeviceModel hdd = Make("hdd");
  const int64_t seek = hdd.ServiceNanos(true, false, 0);
  const int64_t append = hdd.ServiceNanos(true, true, 4096);
  int64_t t = 1000 * kMs;
  int64_t done = hdd.ScheduleWriteBack(7, 0, 4096, t);
  EXPECT_EQ(t + seek + append, done);
  for (int i = 1; i < 4; ++i) {
    t = done;
    int64_t read = hdd.Schedule(false, 9, uint64_t(i) * 1000000, 4096, t);  // a random read
    int64_t other = hdd.ScheduleWriteBack(8, uint64_t(i - 1) * 512, 512, read);  // another file
    done = hdd.ScheduleWriteBack(7, uint64_t(i) * 4096, 4096, other);
    EXPECT_EQ(other + append, done) << "append " << i << " paid a seek";
  }
  // A write that does not continue its file's last one seeks.
  EXPECT_EQ(done + seek + append, hdd.ScheduleWriteBack(7, 1 << 20, 4096, done));
}

TEST(ScheduleTest, AReadPassesQueuedWriteBackButNotTheRequestInFlight) {
  // 50 ms of buffered write-back queued: a read waits for the request in
  // flight, not for all of it, and the write-back ends later by the read's
  // service time (the device's bandwidth is not exceeded).
  DeviceModel ssd = Make("sata-ssd");
  const int64_t t = 1000 * kMs;
  int64_t written = t;
  for (int i = 0; written < t + 50 * kMs; ++i) {
    written = ssd.ScheduleWriteBack(1, uint64_t(i) << 20, 1 << 20, t);
  }
  const int64_t read = ssd.ServiceNanos(false, false, 4096);
  const int64_t in_flight = ssd.ServiceNanos(true, true, DeviceModel::kWriteBackRequestBytes);
  EXPECT_EQ(t + in_flight + read, ssd.Schedule(false, 2, 0, 4096, t));
  EXPECT_EQ(written + read, ssd.BusyUntil());
  // The next read queues behind the first, not behind the write-back.
  EXPECT_EQ(t + in_flight + 2 * read, ssd.Schedule(false, 3, 0, 4096, t));
  // A direct write (and a flush) waits for everything.
  const int64_t write = ssd.ServiceNanos(true, false, 4096);
  EXPECT_EQ(written + 2 * read + write, ssd.Schedule(true, 4, 0, 4096, t));
}

TEST(ScheduleTest, WriteBackOverdueIsNotStarvedByReads) {
  // Write-back queued more than kWriteExpireNanos ahead: a read waits for the
  // overdue part (mq-deadline's write deadline), then passes the rest.
  DeviceModel hdd = Make("hdd");
  const int64_t t = 1000 * kMs;
  int64_t written = t;
  for (int i = 0; written < t + DeviceModel::kWriteExpireNanos + 200 * kMs; ++i) {
    written = hdd.ScheduleWriteBack(1, uint64_t(i) << 20, 1 << 20, t);
  }
  const int64_t backlog = written - t;
  const int64_t in_flight = hdd.ServiceNanos(true, true, DeviceModel::kWriteBackRequestBytes);
  const int64_t read = hdd.ServiceNanos(false, false, 4096);
  EXPECT_EQ(t + in_flight + (backlog - DeviceModel::kWriteExpireNanos) + read,
            hdd.Schedule(false, 2, 0, 4096, t));
}

TEST(ScheduleTest, IoIssuedWhileBusyWaitsForTheDevice) {
  DeviceModel ssd = Make("sata-ssd");
  const int64_t now = 1000 * kMs;
  const int64_t service = ssd.ServiceNanos(false, false, 4096);
  int64_t first = ssd.Schedule(false, 1, 0, 4096, now);
  int64_t second = ssd.Schedule(false, 2, 0, 4096, now + service / 2);
  EXPECT_EQ(second, first + service);
}

TEST(ScheduleTest, IoIssuedAfterIdleStartsAtItsIssueTime) {
  DeviceModel ssd = Make("sata-ssd");
  const int64_t now = 1000 * kMs;
  const int64_t service = ssd.ServiceNanos(false, false, 4096);
  int64_t first = ssd.Schedule(false, 1, 0, 4096, now);
  int64_t later = first + 50 * kMs;
  EXPECT_EQ(ssd.Schedule(false, 2, 0, 4096, later), later + service);
}

TEST(ScheduleTest, HddSequentialStreamSkipsTheSeek) {
  DeviceModel hdd = Make("hdd");
  const int64_t now = 1000 * kMs;
  int64_t a = hdd.Schedule(false, 7, 0, 4096, now);
  int64_t b = hdd.Schedule(false, 7, 4096, 4096, now);  // continues a
  EXPECT_EQ(b - a, hdd.ServiceNanos(false, true, 4096));
  int64_t c = hdd.Schedule(false, 8, 8192, 4096, now);  // another file: seek
  EXPECT_EQ(c - b, hdd.ServiceNanos(false, false, 4096));
  int64_t d = hdd.Schedule(false, 7, 8192, 4096, now);  // head moved away: seek
  EXPECT_EQ(d - c, hdd.ServiceNanos(false, false, 4096));
  int64_t e = hdd.Schedule(false, 7, 0, 4096, now);  // backwards: seek
  EXPECT_EQ(e - d, hdd.ServiceNanos(false, false, 4096));
}

TEST(ScheduleTest, ConcurrentCallersShareOneQueue) {
  DeviceModel ssd = Make("sata-ssd");
  const int64_t now = 1000 * kMs;
  const int64_t service = ssd.ServiceNanos(true, false, 4096);
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::vector<int64_t>> done(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        done[t].push_back(ssd.Schedule(true, uint64_t(t), uint64_t(i) * 4096, 4096, now));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : done) all.insert(v.begin(), v.end());
  // Every I/O got its own slot; the last ends after all the work, back to back.
  EXPECT_EQ(all.size(), size_t(kThreads * kPerThread));
  EXPECT_EQ(*all.begin(), now + service);
  EXPECT_EQ(*all.rbegin(), now + int64_t(kThreads * kPerThread) * service);
}

TEST(WaitTest, DeadlineInThePastReturnsAtOnce) {
  int64_t start = DeviceModel::NowNanos();
  DeviceModel::WaitUntil(start - 1000 * kMs);
  DeviceModel::WaitUntil(start + DeviceModel::kSlackNanos / 2);  // within the slack
  EXPECT_LT(DeviceModel::NowNanos() - start, 50 * kMs);
}

TEST(WaitTest, DeadlineInTheFutureIsNotReturnedLongBefore) {
  int64_t deadline = DeviceModel::NowNanos() + 5 * kMs;
  DeviceModel::WaitUntil(deadline);
  EXPECT_GE(DeviceModel::NowNanos(), deadline - DeviceModel::kSlackNanos);
}

// Short waits, each well under the slack, with CPU work between them that
// outlasts each (a reader decoding blocks): the thread pays them all, in
// sleeps of the accumulated debt. (The emulation once forgot a debt whenever
// the device idled, and such a thread spent only its CPU time here.)
TEST(WaitTest, ShortWaitsWithWorkBetweenAddUpToWhatWasOwed) {
  constexpr int kWaits = 1000;
  constexpr int64_t kWait = 10 * 1000;  // an optane read
  constexpr int64_t kWork = 20 * 1000;  // CPU between reads
  const int64_t start = DeviceModel::NowNanos();
  for (int i = 0; i < kWaits; ++i) {
    DeviceModel::WaitUntil(DeviceModel::ThreadNanos() + kWait);
    const int64_t until = DeviceModel::NowNanos() + kWork;
    while (DeviceModel::NowNanos() < until) {
    }
  }
  const int64_t took = DeviceModel::NowNanos() - start;
  // The thread's clock runs ahead by at most the slack: what is owed and
  // not yet slept.
  EXPECT_GE(took, kWaits * (kWait + kWork) - DeviceModel::kSlackNanos);
}

// I/Os back to back on one device: each starts where the last ended on the
// thread's clock, so the thread owes each service time once; it does not
// queue behind its own unpaid reads as if they were another thread's.
TEST(WaitTest, BackToBackIosAreOwedOnce) {
  DeviceParams params;
  ASSERT_TRUE(ParseDeviceParams("optane", &params).ok());
  DeviceModel optane(params);
  const int64_t service = optane.ServiceNanos(false, false, 4096);
  constexpr int kReads = 10;
  ASSERT_LT(kReads * service, DeviceModel::kSlackNanos);  // nothing slept in the loop
  DeviceModel::WaitUntil(DeviceModel::ThreadNanos() + DeviceModel::kSlackNanos);  // settle
  const int64_t real0 = DeviceModel::NowNanos(), clock0 = DeviceModel::ThreadNanos();
  for (int i = 0; i < kReads; ++i) {
    DeviceModel::WaitUntil(
        optane.Schedule(false, 7, uint64_t(i) * 8192, 4096, DeviceModel::ThreadNanos()));
  }
  const int64_t clock1 = DeviceModel::ThreadNanos(), real1 = DeviceModel::NowNanos();
  EXPECT_GE(clock1 - clock0, kReads * service);
  // More only by the time the clock itself ran (a thread descheduled) and a
  // credit the settling sleep's overshoot left; owing each read's queue
  // behind the earlier ones would be 55 services.
  EXPECT_LE(clock1 - clock0, kReads * service + (real1 - real0) + DeviceModel::kSlackNanos);
}

TEST(WaitTest, NowIsMonotonic) {
  int64_t a = DeviceModel::NowNanos();
  int64_t b = DeviceModel::NowNanos();
  EXPECT_LE(a, b);
  EXPECT_GT(a, 0);
}

}  // namespace
}  // namespace tierfs
