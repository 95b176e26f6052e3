// MetaReserve (env/meta_reserve.h) over a fake device: when it asks the
// device, when it holds a tier back, and that writes to any tier on tier 0's
// device count against all of them.
#include "env/meta_reserve.h"

#include <gtest/gtest.h>

namespace tierfs {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// A device the test sets the free space of; counts the probes per tier.
struct FakeDevice {
  uint64_t free = 100 * kMiB;
  bool answers = true;
  int probes[2] = {0, 0};
  std::function<bool(int, uint64_t*)> Probe() {
    return [this](int t, uint64_t* out) {
      probes[t]++;
      *out = free;
      return answers;
    };
  }
};

TEST(MetaReserveTest, UnwatchedTiersAreNeverHeldBackNorProbed) {
  FakeDevice dev;
  dev.free = 0;
  MetaReserve r;
  r.Init(/*watched=*/0b01, dev.Probe());
  EXPECT_FALSE(r.Low(1, kMiB));
  EXPECT_EQ(0, dev.probes[1]);
  EXPECT_TRUE(r.Low(0, 0));
}

TEST(MetaReserveTest, ProbesOncePerProbeIntervalFarFromTheReserve) {
  FakeDevice dev;
  MetaReserve r;
  r.Init(0b01, dev.Probe());
  for (int i = 0; i < 1024; ++i) EXPECT_FALSE(r.Low(0, 4096));  // 4 MiB in 4K writes
  const int expected = int(4 * kMiB / MetaReserve::kProbeBytes);
  EXPECT_GE(dev.probes[0], expected);
  EXPECT_LE(dev.probes[0], expected + 1);
}

TEST(MetaReserveTest, HoldsBackAWriteThatWouldEatIntoTheReserve) {
  FakeDevice dev;
  dev.free = MetaReserve::kMetaReserve + 64 * 1024;
  MetaReserve r;
  r.Init(0b01, dev.Probe());
  EXPECT_FALSE(r.Low(0, 64 * 1024));        // just fits
  EXPECT_TRUE(r.Low(0, 64 * 1024 + 4096));  // would not: asks the device, which agrees
  // Something else filled the device (meta/ itself, another process): seen
  // at the next probe, at most kProbeBytes of data later.
  dev.free = MetaReserve::kMetaReserve - 1;
  EXPECT_TRUE(r.Low(0, MetaReserve::kProbeBytes));
  EXPECT_TRUE(r.Low(0, 0));  // a placement: the device is below the reserve
  dev.free = 50 * kMiB;      // space freed
  EXPECT_FALSE(r.Low(0, 128 * 1024));
}

TEST(MetaReserveTest, EveryWriteToTheDeviceCountsForEachTierOnIt) {
  // Tier 1 shares tier 0's device: its writes spend tier 0's room too.
  FakeDevice dev;
  dev.free = MetaReserve::kMetaReserve + 512 * 1024;
  MetaReserve r;
  r.Init(0b11, dev.Probe());
  EXPECT_FALSE(r.Low(0, 0));  // first look at the device
  EXPECT_FALSE(r.Low(1, 0));
  const int before = dev.probes[0];
  for (int i = 0; i < 100; ++i) ASSERT_FALSE(r.Low(1, 4096));  // 400K to tier 1
  dev.free -= 400 * 1024;
  // Tier 0's estimate knows of the 400K: a 200K write there asks the device.
  EXPECT_TRUE(r.Low(0, 200 * 1024));
  EXPECT_GT(dev.probes[0], before);
}

TEST(MetaReserveTest, ADeviceThatCannotTellHoldsNothingBack) {
  FakeDevice dev;
  dev.answers = false;
  MetaReserve r;
  r.Init(0b01, dev.Probe());
  EXPECT_FALSE(r.Low(0, 64 * 1024));
  EXPECT_FALSE(r.Low(0, 64 * 1024));  // unknown is not low: no new probe before the interval
  EXPECT_EQ(1, dev.probes[0]);
}

}  // namespace
}  // namespace tierfs
