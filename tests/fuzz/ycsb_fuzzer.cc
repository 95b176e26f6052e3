// YCSB workload property files (tierfs-ycsb -P, tools/ycsb/properties.h):
// Properties::LoadText, then CoreWorkload::Create, which reads and checks
// every workload property, then a few operations of the workload against a
// database that stores nothing (for workloads whose records are small; a
// workload may ask for gigabytes per record, and that is its right).
#include <memory>
#include <string>

#include "tests/fuzz/fuzz_util.h"
#include "tools/ycsb/core_workload.h"
#include "tools/ycsb/properties.h"

using namespace tierfs;
using namespace tierfs::ycsb;

namespace {

class NullDB : public DB {
 public:
  DbStatus Read(const std::string&, const std::string& key, const std::vector<std::string>*,
                Fields*) override {
    return key.size() % 2 ? DbStatus::kOk : DbStatus::kNotFound;
  }
  DbStatus Scan(const std::string&, const std::string&, int64_t, const std::vector<std::string>*,
                std::vector<Fields>*) override {
    return DbStatus::kOk;
  }
  DbStatus Update(const std::string&, const std::string&, const Fields&) override {
    return DbStatus::kOk;
  }
  DbStatus Insert(const std::string&, const std::string&, const Fields&) override {
    return DbStatus::kOk;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Properties props;
  rocksdb::Status s = props.LoadText(fuzz::Text(data, size), "fuzz.properties");
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  // "latest" and "zipfian" sum 1 / i^0.99 over every key the workload may
  // reach when it is made (records, and for zipfian the inserts expected
  // from the operations), as YCSB's do: linear, seconds past 2^26 keys and
  // minutes past 2^32. Slow by design, not a hang; left out.
  const std::string dist = props.Get("requestdistribution");
  if (dist == "latest" || dist == "zipfian") {
    int64_t records = 0, operations = 0;
    double inserts = 0;
    if (!props.GetInt64("recordcount", 0, &records).ok() || records > (1 << 24) ||
        !props.GetInt64("operationcount", 0, &operations).ok() ||
        !props.GetDouble("insertproportion", 0, &inserts).ok() ||
        double(operations) * inserts > double(1 << 24)) {
      return -1;
    }
  }
  Measurements measurements;
  std::unique_ptr<CoreWorkload> workload;
  s = CoreWorkload::Create(props, &measurements, &workload);
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  FUZZ_CHECK(workload->BuildKeyName(0).size() >= 5);
  int64_t fields = 0, length = 0;
  if (!props.GetInt64("fieldcount", 10, &fields).ok() || fields > 64 ||
      !props.GetInt64("fieldlength", 100, &length).ok() || length > 4096) {
    return 0;
  }
  NullDB db;
  Random64 rng(size);
  for (int i = 0; i < 8; ++i) {
    if (!workload->DoInsert(&db, &rng).ok()) break;
  }
  for (int i = 0; i < 16 && workload->has_operations(); ++i) {
    if (!workload->DoTransaction(&db, &rng).ok()) break;
  }
  return 0;
}
