// YCSB's CoreWorkload (site.ycsb.workloads.CoreWorkload, 0.17): the records
// of the load phase and the read / update / insert / scan /
// read-modify-write mix of the run phase, with YCSB's properties, defaults,
// key names and request distributions. The workloads in
// benchmarks/ycsb/workloads/ run unchanged.
//
// Properties (defaults in brackets): table [usertable], fieldcount [10],
// fieldnameprefix [field], fieldlength [100], minfieldlength [1],
// fieldlengthdistribution constant|uniform|zipfian [constant], readallfields
// [true], writeallfields [false], readproportion [0.95], updateproportion
// [0.05], insertproportion [0], scanproportion [0], readmodifywriteproportion
// [0], requestdistribution uniform|zipfian|latest|hotspot|sequential|exponential
// [uniform], hotspotdatafraction [0.2], hotspotopnfraction [0.8],
// exponential.percentile [95], exponential.frac [0.8571428571], minscanlength
// [1], maxscanlength [1000], scanlengthdistribution uniform|zipfian [uniform],
// recordcount [0: 2^31-1], operationcount (sizes the zipfian key space),
// insertstart [0], insertcount [recordcount - insertstart], insertorder
// hashed|ordered [hashed], zeropadding [1], core_workload_insertion_retry_limit
// [0], core_workload_insertion_retry_interval [3 s].
// Not supported (an error if set): dataintegrity=true,
// fieldlengthdistribution=histogram.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <rocksdb/status.h>

#include "tools/ycsb/counters.h"
#include "tools/ycsb/db.h"
#include "tools/ycsb/generators.h"
#include "tools/ycsb/measurements.h"
#include "tools/ycsb/properties.h"
#include "tools/ycsb/random.h"

namespace tierfs {
namespace ycsb {

class CoreWorkload {
 public:
  // The workload `props` describe, or InvalidArgument naming the property
  // whose value is bad. READ-MODIFY-WRITE latencies go to `measurements`,
  // which must outlive the workload.
  static rocksdb::Status Create(const Properties& props, Measurements* measurements,
                                std::unique_ptr<CoreWorkload>* result);

  // One load-phase insert: the next key of the sequence from insertstart,
  // all fields, retried as core_workload_insertion_retry_limit says. Not OK
  // when the insert failed: YCSB's client thread stops there.
  rocksdb::Status DoInsert(DB* db, Random64* rng);
  // One run-phase operation chosen by the proportions. Not OK only when the
  // workload cannot go on (more than 2^20 run-phase inserts outstanding); a
  // failed database operation is counted, not returned.
  rocksdb::Status DoTransaction(DB* db, Random64* rng);

  // "user" + the key number (FNV-hashed unless insertorder=ordered), zero
  // padded to zeropadding digits.
  std::string BuildKeyName(int64_t keynum) const;
  // Every field with a random value (YCSB's RandomByteIterator bytes).
  Fields BuildValues(Random64* rng);
  // One field, chosen uniformly, with a random value.
  Fields BuildSingleValue(Random64* rng);

  const std::string& table() const { return table_; }
  // False if every operation proportion is 0: a run would do nothing.
  bool has_operations() const { return !operation_chooser_.empty(); }
  // The key number the next run-phase insert will take is above this; every
  // key number up to it has been acknowledged.
  int64_t last_acknowledged_key() const { return transaction_insert_key_sequence_->Last(); }

 private:
  enum Operation { kRead, kUpdate, kInsert, kScan, kReadModifyWrite };

  CoreWorkload() = default;
  rocksdb::Status Init(const Properties& props, Measurements* measurements);

  int64_t NextKeynum(Random64* rng);
  std::string RandomValue(Random64* rng);
  const std::vector<std::string>* FieldsToRead(Random64* rng, std::vector<std::string>* one);
  rocksdb::Status DoTransactionInsert(DB* db, Random64* rng);
  void DoTransactionRead(DB* db, Random64* rng);
  void DoTransactionUpdate(DB* db, Random64* rng);
  void DoTransactionScan(DB* db, Random64* rng);
  void DoTransactionReadModifyWrite(DB* db, Random64* rng);

  // Constant after Create.
  std::string table_;
  std::vector<std::string> field_names_;
  bool read_all_fields_ = true;
  bool write_all_fields_ = false;
  bool ordered_inserts_ = false;
  int64_t zero_padding_ = 1;
  int64_t insertion_retry_limit_ = 0;
  int64_t insertion_retry_interval_s_ = 3;
  OneMeasurement* read_modify_write_ = nullptr;
  DiscreteGenerator operation_chooser_;

  // Thread-safe generators.
  std::unique_ptr<NumberGenerator> field_length_;
  std::unique_ptr<NumberGenerator> field_chooser_;
  std::unique_ptr<NumberGenerator> scan_length_;
  std::unique_ptr<CounterGenerator> key_sequence_;  // load phase
  // Run-phase inserts; before key_chooser_, which may read it ("latest").
  std::unique_ptr<AcknowledgedCounterGenerator> transaction_insert_key_sequence_;
  std::unique_ptr<NumberGenerator> key_chooser_;
  ExponentialGenerator* exponential_ = nullptr;  // key_chooser_ when exponential
};

}  // namespace ycsb
}  // namespace tierfs
