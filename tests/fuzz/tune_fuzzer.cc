// tierfs-tune's two decoders of files a user hands it: byte 0 even, the
// rest is a workload model (WorkloadModel::FromJson, what Load reads the
// file with), then used as characterize and the warm start use it (Id,
// Project, Assign on fixed windows, ToJson and FromJson again); byte 0 odd,
// a ConfDB value (DecodeConfEntry, what ConfDb::Get decodes with), then
// ranked as the warm start ranks it (BestConfigurations).
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_util.h"
#include "tools/tune/characterize.h"
#include "tools/tune/confdb.h"
#include "tools/tune/window_features.h"

using namespace tierfs;
using namespace tierfs::tune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text = fuzz::Text(data + 1, size - 1);
  std::string error;
  if (data[0] % 2 == 0) {
    WorkloadModel model;
    if (!WorkloadModel::FromJson(text, &model, &error)) {
      FUZZ_CHECK(!error.empty());
      return 0;
    }
    const std::vector<Vec> windows = {Vec(model.features.size(), 0.5),
                                      Vec(model.features.size(), -2.0)};
    const Assignment a = model.Assign(windows);
    FUZZ_CHECK(a.cluster < model.clusters());
    FUZZ_CHECK(a.votes.size() == model.clusters());
    FUZZ_CHECK(model.Project(windows[0]).size() == 2);
    // What it writes reads back as the same model.
    WorkloadModel again;
    FUZZ_CHECK(WorkloadModel::FromJson(model.ToJson(), &again, &error));
    FUZZ_CHECK(again.Id() == model.Id());
    return 0;
  }
  ConfEntry entry;
  if (!DecodeConfEntry(text, &entry, &error)) {
    FUZZ_CHECK(!error.empty());
    return 0;
  }
  const std::vector<std::string> warm = BestConfigurations(entry, 5, {0.0, 0.0});
  FUZZ_CHECK(warm.size() <= 5 && warm.size() <= entry.trials.size());
  return 0;
}
