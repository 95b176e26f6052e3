// The configuration file (tierfs://config:PATH): ParseConfigTextUnchecked,
// what ParseConfigFile reads the file into, then ValidateOptions as
// ParseConfigFile does.
#include <string>

#include "core/config.h"
#include "core/device_model.h"
#include "tests/fuzz/fuzz_util.h"
#include "tierfs/file_system.h"
#include "tierfs/file_system.h"

using namespace tierfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Options options;
  const ParseStatus grammar =
      ParseConfigTextUnchecked(fuzz::Text(data, size), "fuzz.conf", &options);
  rocksdb::Status s = grammar.ok() ? ValidateOptions(options)
                                   : rocksdb::Status::InvalidArgument(grammar.message());
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  FUZZ_CHECK(!options.tiers.empty() && options.tiers.size() <= kMaxTiers);
  for (const TierOptions& t : options.tiers) {
    DeviceParams params;
    FUZZ_CHECK(ParseDeviceParams(t.device, &params).ok());
    DeviceModel model(params);
    FUZZ_CHECK(model.ServiceNanos(false, false, 64 << 20) >= 0);
  }
  return 0;
}
