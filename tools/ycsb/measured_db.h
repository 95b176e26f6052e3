// YCSB's DBWrapper: a DB that times every call of the DB it wraps and counts
// its return codes. A call that fails is timed under "<OP>-FAILED" (or
// "<OP>-<STATUS>" with reportlatencyforeacherror=true, or for the statuses
// listed in latencytrackederrors) and counted under "<OP>", as YCSB does, so
// "[READ], Operations" counts the reads that succeeded and "[READ],
// Return=NOT_FOUND" those that did not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tools/ycsb/db.h"
#include "tools/ycsb/measurements.h"
#include "tools/ycsb/properties.h"

namespace tierfs {
namespace ycsb {

class MeasuredDB : public DB {
 public:
  // Wraps `db`, measuring into `measurements` (both must outlive the
  // wrapper) as the properties reportlatencyforeacherror and
  // latencytrackederrors say.
  static rocksdb::Status Create(DB* db, Measurements* measurements, const Properties& props,
                                std::unique_ptr<MeasuredDB>* result);

  DbStatus Init() override { return db_->Init(); }
  DbStatus Cleanup() override;
  DbStatus Read(const std::string& table, const std::string& key,
                const std::vector<std::string>* fields, Fields* result) override;
  DbStatus Scan(const std::string& table, const std::string& start_key, int64_t count,
                const std::vector<std::string>* fields, std::vector<Fields>* result) override;
  DbStatus Update(const std::string& table, const std::string& key, const Fields& values) override;
  DbStatus Insert(const std::string& table, const std::string& key, const Fields& values) override;

 private:
  enum Op { kRead, kUpdate, kInsert, kScan, kCleanup, kOpCount };

  // Where one operation's latencies go per status, and its return codes.
  struct OpMeasurements {
    OneMeasurement* latency[kDbStatusCount];
    OneMeasurement* returns;
  };

  MeasuredDB(DB* db, Measurements* measurements) : db_(db), measurements_(measurements) {}

  template <typename Call>
  DbStatus Measure(Op op, Call call);

  DB* const db_;
  Measurements* const measurements_;
  OpMeasurements ops_[kOpCount];
};

}  // namespace ycsb
}  // namespace tierfs
