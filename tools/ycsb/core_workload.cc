#include "tools/ycsb/core_workload.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "tools/ycsb/fnv_hash.h"

namespace tierfs {
namespace ycsb {

using rocksdb::Status;

// Returns the status of `expr` from the calling function unless it is OK.
#define YCSB_RETURN_IF_ERROR(expr) \
  do {                             \
    Status _s = (expr);            \
    if (!_s.ok()) return _s;       \
  } while (0)

namespace {

// Bounds on what a property file may ask for, where more would exhaust the
// memory or the patience of the runner before the first operation rather
// than describe a workload: fields per record (each has a name), digits of
// key padding (every key carries them), lengths a zipfian draws from; and
// records, whose key numbers must leave room for the run phase's inserts.
constexpr int64_t kMaxFieldCount = int64_t(1) << 20;
constexpr int64_t kMaxZeroPadding = int64_t(1) << 12;
constexpr int64_t kMaxZipfianLengths = int64_t(1) << 24;
constexpr int64_t kMaxRecordCount = int64_t(1) << 62;

Status Bad(const std::string& key, const std::string& value, const std::string& why) {
  return Status::InvalidArgument("property '" + key + "': '" + value + "' " + why);
}

Status MakeLengthGenerator(const Properties& p, const std::string& dist_key,
                           const std::string& dist, int64_t min, int64_t max,
                           const std::string& min_key,
                           std::unique_ptr<NumberGenerator>* out) {
  if (dist == "constant") {
    out->reset(new ConstantGenerator(max));
  } else if (dist == "uniform" || dist == "zipfian") {
    if (min > max) {
      return Bad(min_key, p.Get(min_key), "is above the maximum " + std::to_string(max));
    }
    // min >= 0: max - min cannot overflow, max - min + 1 (the generators'
    // count) can. A zipfian sums 1 / i^0.99 over every length when it is
    // made, as YCSB's does: over more than 2^24 lengths that alone takes
    // seconds to minutes.
    if (max - min >= (dist == "zipfian" ? kMaxZipfianLengths : INT64_MAX)) {
      return Bad(dist_key, dist, "over " + std::to_string(min) + " to " + std::to_string(max) +
                                     " is more lengths than it can draw from (at most " +
                                     std::to_string(dist == "zipfian" ? kMaxZipfianLengths
                                                                      : INT64_MAX) + ")");
    }
    if (dist == "uniform") {
      out->reset(new UniformGenerator(min, max));
    } else {
      out->reset(new ZipfianGenerator(min, max));
    }
  } else if (dist == "histogram") {
    return Bad(dist_key, dist, "is not supported by this runner");
  } else {
    return Bad(dist_key, dist, "is not a known distribution");
  }
  return Status::OK();
}

Status GetProportion(const Properties& p, const std::string& key, double default_value,
                     double* out) {
  YCSB_RETURN_IF_ERROR(p.GetDouble(key, default_value, out));
  if (*out < 0) return Bad(key, p.Get(key), "is negative");
  return Status::OK();
}

Status GetFraction(const Properties& p, const std::string& key, double default_value,
                   double* out) {
  YCSB_RETURN_IF_ERROR(p.GetDouble(key, default_value, out));
  if (*out < 0 || *out > 1) return Bad(key, p.Get(key), "is not in [0, 1]");
  return Status::OK();
}

}  // namespace

Status CoreWorkload::Create(const Properties& props, Measurements* measurements,
                            std::unique_ptr<CoreWorkload>* result) {
  std::unique_ptr<CoreWorkload> workload(new CoreWorkload());
  YCSB_RETURN_IF_ERROR(workload->Init(props, measurements));
  *result = std::move(workload);
  return Status::OK();
}

Status CoreWorkload::Init(const Properties& p, Measurements* measurements) {
  table_ = p.Get("table", "usertable");
  read_modify_write_ = measurements->Get("READ-MODIFY-WRITE");

  int64_t field_count = 0;
  YCSB_RETURN_IF_ERROR(p.GetInt64("fieldcount", 10, &field_count));
  if (field_count < 1) return Bad("fieldcount", p.Get("fieldcount"), "is below 1");
  if (field_count > kMaxFieldCount) {
    return Bad("fieldcount", p.Get("fieldcount"), "is above " + std::to_string(kMaxFieldCount));
  }
  const std::string prefix = p.Get("fieldnameprefix", "field");
  for (int64_t i = 0; i < field_count; ++i) field_names_.push_back(prefix + std::to_string(i));
  field_chooser_.reset(new UniformGenerator(0, field_count - 1));

  int64_t field_length = 0, min_field_length = 0;
  YCSB_RETURN_IF_ERROR(p.GetInt64("fieldlength", 100, &field_length));
  YCSB_RETURN_IF_ERROR(p.GetInt64("minfieldlength", 1, &min_field_length));
  if (field_length < 0) return Bad("fieldlength", p.Get("fieldlength"), "is negative");
  if (min_field_length < 0) return Bad("minfieldlength", p.Get("minfieldlength"), "is negative");
  YCSB_RETURN_IF_ERROR(MakeLengthGenerator(p, "fieldlengthdistribution",
                                           p.Get("fieldlengthdistribution", "constant"),
                                           min_field_length, field_length, "minfieldlength",
                                           &field_length_));

  bool data_integrity = false;
  YCSB_RETURN_IF_ERROR(p.GetBool("dataintegrity", false, &data_integrity));
  if (data_integrity) return Bad("dataintegrity", p.Get("dataintegrity"), "is not supported by this runner");
  YCSB_RETURN_IF_ERROR(p.GetBool("readallfields", true, &read_all_fields_));
  YCSB_RETURN_IF_ERROR(p.GetBool("writeallfields", false, &write_all_fields_));

  int64_t record_count = 0;
  YCSB_RETURN_IF_ERROR(p.GetInt64("recordcount", 0, &record_count));
  if (record_count < 0) return Bad("recordcount", p.Get("recordcount"), "is negative");
  // Run-phase inserts take key numbers from recordcount up: leave them room
  // (2^62 more keys than any run could insert).
  if (record_count > kMaxRecordCount) {
    return Bad("recordcount", p.Get("recordcount"), "is above 2^62");
  }
  if (record_count == 0) record_count = INT_MAX;  // YCSB: no record count is Integer.MAX_VALUE
  int64_t insert_start = 0, insert_count = 0;
  YCSB_RETURN_IF_ERROR(p.GetInt64("insertstart", 0, &insert_start));
  if (insert_start < 0) return Bad("insertstart", p.Get("insertstart"), "is negative");
  YCSB_RETURN_IF_ERROR(p.GetInt64("insertcount", record_count - insert_start, &insert_count));
  if (insert_count < 0) return Bad("insertcount", p.Get("insertcount"), "is negative");
  if (insert_count > record_count - insert_start) {  // record_count < insert_start + insert_count
    return Status::InvalidArgument(
        "recordcount (" + std::to_string(record_count) + ") must be at least insertstart (" +
        std::to_string(insert_start) + ") + insertcount (" + std::to_string(insert_count) + ")");
  }
  YCSB_RETURN_IF_ERROR(p.GetInt64("zeropadding", 1, &zero_padding_));
  if (zero_padding_ > kMaxZeroPadding) {
    return Bad("zeropadding", p.Get("zeropadding"), "is above " + std::to_string(kMaxZeroPadding));
  }

  const std::string insert_order = p.Get("insertorder", "hashed");
  if (insert_order != "hashed" && insert_order != "ordered") {
    return Bad("insertorder", insert_order, "is neither hashed nor ordered");
  }
  ordered_inserts_ = insert_order == "ordered";

  const char* const kProportions[] = {"readproportion", "updateproportion", "insertproportion",
                                      "scanproportion", "readmodifywriteproportion"};
  const double kDefaults[] = {0.95, 0.05, 0, 0, 0};
  double insert_proportion = 0;
  for (int op = kRead; op <= kReadModifyWrite; ++op) {
    double proportion = 0;
    YCSB_RETURN_IF_ERROR(GetProportion(p, kProportions[op], kDefaults[op], &proportion));
    if (proportion > 0) operation_chooser_.Add(proportion, op);
    if (op == kInsert) insert_proportion = proportion;
  }

  key_sequence_.reset(new CounterGenerator(insert_start));
  transaction_insert_key_sequence_.reset(new AcknowledgedCounterGenerator(record_count));

  const std::string dist = p.Get("requestdistribution", "uniform");
  const int64_t last = insert_start + insert_count - 1;
  if (insert_count < 1 && dist != "latest" && dist != "exponential") {
    return Bad("insertcount", std::to_string(insert_count), "leaves no keys to request");
  }
  if (dist == "uniform") {
    key_chooser_.reset(new UniformGenerator(insert_start, last));
  } else if (dist == "sequential") {
    key_chooser_.reset(new SequentialGenerator(insert_start, last));
  } else if (dist == "zipfian") {
    // YCSB sizes the scrambled key space for the inserts expected during the
    // run (twice the expected count), so the hot keys stay put as the key
    // count grows; keys not inserted yet are drawn again (NextKeynum).
    int64_t operation_count = 0;
    YCSB_RETURN_IF_ERROR(p.GetInt64("operationcount", 0, &operation_count));
    const double expected = std::max(0.0, double(operation_count) * insert_proportion * 2.0);
    const int64_t expected_new_keys = expected < 9e18 ? int64_t(expected) : INT64_MAX;
    if (expected_new_keys > INT64_MAX - 1 - (insert_start + insert_count)) {
      return Bad("operationcount", p.Get("operationcount"),
                 "with insertproportion " + std::to_string(insert_proportion) +
                     " expects more keys than 2^63");
    }
    key_chooser_.reset(
        new ScrambledZipfianGenerator(insert_start, insert_start + insert_count + expected_new_keys));
  } else if (dist == "latest") {
    if (record_count < 2) return Bad("recordcount", p.Get("recordcount"), "is below 2, too few for latest");
    // Its zipfian sums over every record when it is made: without a record
    // count, over 2^31 (minutes), which YCSB's own workloadd never asks for.
    if (!p.Has("recordcount")) return Bad("recordcount", "", "must be set for latest");
    key_chooser_.reset(new SkewedLatestGenerator(transaction_insert_key_sequence_.get()));
  } else if (dist == "hotspot") {
    double data_fraction = 0, opn_fraction = 0;
    YCSB_RETURN_IF_ERROR(GetFraction(p, "hotspotdatafraction", 0.2, &data_fraction));
    YCSB_RETURN_IF_ERROR(GetFraction(p, "hotspotopnfraction", 0.8, &opn_fraction));
    auto* hotspot = new HotspotGenerator(insert_start, last, data_fraction, opn_fraction);
    key_chooser_.reset(hotspot);
    if (hotspot->hot_interval() == 0 && opn_fraction > 0) {
      return Bad("hotspotdatafraction", p.Get("hotspotdatafraction", "0.2"),
                 "gives an empty hot set, yet hotspotopnfraction > 0");
    }
    if (hotspot->cold_interval() == 0 && opn_fraction < 1) {
      return Bad("hotspotdatafraction", p.Get("hotspotdatafraction", "0.2"),
                 "gives an empty cold set, yet hotspotopnfraction < 1");
    }
  } else if (dist == "exponential") {
    double percentile = 0, frac = 0;
    YCSB_RETURN_IF_ERROR(p.GetDouble("exponential.percentile", 95, &percentile));
    YCSB_RETURN_IF_ERROR(p.GetDouble("exponential.frac", 0.8571428571, &frac));
    if (!(percentile > 0 && percentile < 100)) {
      return Bad("exponential.percentile", p.Get("exponential.percentile"), "is not in (0, 100)");
    }
    if (!(frac > 0)) return Bad("exponential.frac", p.Get("exponential.frac"), "is not positive");
    exponential_ = new ExponentialGenerator(percentile, double(record_count) * frac);
    key_chooser_.reset(exponential_);
  } else {
    return Bad("requestdistribution", dist, "is not a known distribution");
  }

  int64_t min_scan = 0, max_scan = 0;
  YCSB_RETURN_IF_ERROR(p.GetInt64("minscanlength", 1, &min_scan));
  YCSB_RETURN_IF_ERROR(p.GetInt64("maxscanlength", 1000, &max_scan));
  if (min_scan < 0) return Bad("minscanlength", p.Get("minscanlength"), "is negative");
  const std::string scan_dist = p.Get("scanlengthdistribution", "uniform");
  if (scan_dist != "uniform" && scan_dist != "zipfian") {
    return Bad("scanlengthdistribution", scan_dist, "is neither uniform nor zipfian");
  }
  YCSB_RETURN_IF_ERROR(MakeLengthGenerator(p, "scanlengthdistribution", scan_dist, min_scan,
                                           max_scan, "minscanlength", &scan_length_));

  YCSB_RETURN_IF_ERROR(p.GetInt64("core_workload_insertion_retry_limit", 0, &insertion_retry_limit_));
  YCSB_RETURN_IF_ERROR(
      p.GetInt64("core_workload_insertion_retry_interval", 3, &insertion_retry_interval_s_));
  return Status::OK();
}

std::string CoreWorkload::BuildKeyName(int64_t keynum) const {
  if (!ordered_inserts_) keynum = FnvHash64(keynum);
  const std::string value = std::to_string(keynum);
  std::string key = "user";
  const int64_t fill = zero_padding_ - int64_t(value.size());
  if (fill > 0) key.append(size_t(fill), '0');
  return key + value;
}

std::string CoreWorkload::RandomValue(Random64* rng) {
  // YCSB's RandomByteIterator: six printable characters per random int, each
  // position with its own range, so values compress as YCSB's do.
  const int64_t length = field_length_->Next(rng);
  std::string value(size_t(length), ' ');
  for (int64_t i = 0; i < length; i += 6) {
    const int32_t bits = rng->NextInt32();
    const int64_t n = length - i;
    char* out = &value[size_t(i)];
    if (n > 5) out[5] = char(((bits >> 25) & 95) + ' ');
    if (n > 4) out[4] = char(((bits >> 20) & 63) + ' ');
    if (n > 3) out[3] = char(((bits >> 15) & 31) + ' ');
    if (n > 2) out[2] = char(((bits >> 10) & 95) + ' ');
    if (n > 1) out[1] = char(((bits >> 5) & 63) + ' ');
    out[0] = char((bits & 31) + ' ');
  }
  return value;
}

Fields CoreWorkload::BuildValues(Random64* rng) {
  Fields values;
  values.reserve(field_names_.size());
  for (const std::string& name : field_names_) values.emplace_back(name, RandomValue(rng));
  return values;
}

Fields CoreWorkload::BuildSingleValue(Random64* rng) {
  const std::string& name = field_names_[size_t(field_chooser_->Next(rng))];
  return Fields{{name, RandomValue(rng)}};
}

Status CoreWorkload::DoInsert(DB* db, Random64* rng) {
  const std::string key = BuildKeyName(key_sequence_->Next());
  const Fields values = BuildValues(rng);
  DbStatus status = DbStatus::kOk;
  for (int64_t attempt = 0;; ++attempt) {
    status = db->Insert(table_, key, values);
    if (status == DbStatus::kOk) return Status::OK();
    if (attempt >= insertion_retry_limit_) break;
    // YCSB waits a random [0.8, 1.2) times the retry interval.
    const double seconds = double(insertion_retry_interval_s_) * (0.8 + 0.4 * rng->NextDouble());
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
  return Status::IOError("insert of " + key + " failed (" + DbStatusName(status) + ") after " +
                         std::to_string(insertion_retry_limit_ + 1) + " attempt(s)");
}

Status CoreWorkload::DoTransaction(DB* db, Random64* rng) {
  switch (operation_chooser_.Next(rng)) {
    case kRead: DoTransactionRead(db, rng); break;
    case kUpdate: DoTransactionUpdate(db, rng); break;
    case kInsert: return DoTransactionInsert(db, rng);
    case kScan: DoTransactionScan(db, rng); break;
    default: DoTransactionReadModifyWrite(db, rng); break;
  }
  return Status::OK();
}

int64_t CoreWorkload::NextKeynum(Random64* rng) {
  int64_t keynum;
  if (exponential_ != nullptr) {
    // Exponential counts back from the latest acknowledged insert.
    do {
      keynum = transaction_insert_key_sequence_->Last() - exponential_->Next(rng);
    } while (keynum < 0);
  } else {
    // Keys beyond the last acknowledged insert do not exist yet: draw again.
    do {
      keynum = key_chooser_->Next(rng);
    } while (keynum > transaction_insert_key_sequence_->Last());
  }
  return keynum;
}

const std::vector<std::string>* CoreWorkload::FieldsToRead(Random64* rng,
                                                           std::vector<std::string>* one) {
  if (read_all_fields_) return nullptr;
  one->assign(1, field_names_[size_t(field_chooser_->Next(rng))]);
  return one;
}

void CoreWorkload::DoTransactionRead(DB* db, Random64* rng) {
  const std::string key = BuildKeyName(NextKeynum(rng));
  std::vector<std::string> one;
  Fields result;
  db->Read(table_, key, FieldsToRead(rng, &one), &result);
}

void CoreWorkload::DoTransactionUpdate(DB* db, Random64* rng) {
  const std::string key = BuildKeyName(NextKeynum(rng));
  const Fields values = write_all_fields_ ? BuildValues(rng) : BuildSingleValue(rng);
  db->Update(table_, key, values);
}

void CoreWorkload::DoTransactionScan(DB* db, Random64* rng) {
  const std::string start_key = BuildKeyName(NextKeynum(rng));
  const int64_t length = scan_length_->Next(rng);
  std::vector<std::string> one;
  std::vector<Fields> result;
  db->Scan(table_, start_key, length, FieldsToRead(rng, &one), &result);
}

void CoreWorkload::DoTransactionReadModifyWrite(DB* db, Random64* rng) {
  const std::string key = BuildKeyName(NextKeynum(rng));
  std::vector<std::string> one;
  const std::vector<std::string>* fields = FieldsToRead(rng, &one);
  const Fields values = write_all_fields_ ? BuildValues(rng) : BuildSingleValue(rng);
  Fields cells;
  // YCSB times the read and the update together, whatever they return.
  const auto start = std::chrono::steady_clock::now();
  db->Read(table_, key, fields, &cells);
  db->Update(table_, key, values);
  const auto end = std::chrono::steady_clock::now();
  read_modify_write_->Measure(
      std::chrono::duration_cast<std::chrono::microseconds>(end - start).count());
}

Status CoreWorkload::DoTransactionInsert(DB* db, Random64* rng) {
  const int64_t keynum = transaction_insert_key_sequence_->Next();
  const std::string key = BuildKeyName(keynum);
  db->Insert(table_, key, BuildValues(rng));
  // Acknowledged even when the insert failed, as YCSB does.
  if (!transaction_insert_key_sequence_->Acknowledge(keynum)) {
    return Status::Aborted("more than " +
                           std::to_string(AcknowledgedCounterGenerator::kWindowSize) +
                           " run-phase inserts outstanding");
  }
  return Status::OK();
}

}  // namespace ycsb
}  // namespace tierfs
