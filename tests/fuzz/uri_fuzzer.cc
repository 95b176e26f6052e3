// The tierfs:// URI (include/tierfs/file_system.h): ParseUri, the grammar and
// then ValidateOptions, which reaches the device-model names
// (ParseDeviceParams) and the policies' parameters (NewPolicy).
//
// A URI of the form tierfs://config:PATH reads the file PATH: that file's
// grammar is config_fuzzer's, and a fuzzed path would read the machine's
// files, so such inputs are left out.
#include <string>

#include "core/config.h"
#include "core/device_model.h"
#include "tests/fuzz/fuzz_util.h"
#include "tierfs/file_system.h"

using namespace tierfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string uri = fuzz::Text(data, size);
  if (uri.find("config:") != std::string::npos) return -1;
  Options options;
  rocksdb::Status s = ParseUri(uri, &options);
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  // What an accepted URI promises the store.
  FUZZ_CHECK(!options.tiers.empty() && options.tiers.size() <= kMaxTiers);
  FUZZ_CHECK(options.segment_size % kBlockSize == 0);
  for (const TierOptions& t : options.tiers) {
    FUZZ_CHECK(t.capacity > 0 && !t.path.empty() && t.path[0] == '/');
    DeviceParams params;
    FUZZ_CHECK(ParseDeviceParams(t.device, &params).ok());
    // The device model of an accepted name computes a service time.
    DeviceModel model(params);
    FUZZ_CHECK(model.ServiceNanos(false, false, 64 << 20) >= 0);
    FUZZ_CHECK(model.ServiceNanos(true, true, 4096) >= 0);
  }
  return 0;
}
