#include "tools/ycsb/measured_db.h"

#include <chrono>
#include <set>
#include <sstream>

namespace tierfs {
namespace ycsb {

namespace {

const char* const kOpNames[] = {"READ", "UPDATE", "INSERT", "SCAN", "CLEANUP"};

}  // namespace

rocksdb::Status MeasuredDB::Create(DB* db, Measurements* measurements, const Properties& props,
                                   std::unique_ptr<MeasuredDB>* result) {
  bool each_error = false;
  rocksdb::Status s = props.GetBool("reportlatencyforeacherror", false, &each_error);
  if (!s.ok()) return s;
  std::set<std::string> tracked;
  std::istringstream list(props.Get("latencytrackederrors"));
  for (std::string name; std::getline(list, name, ',');) tracked.insert(name);

  std::unique_ptr<MeasuredDB> wrapper(new MeasuredDB(db, measurements));
  for (int op = 0; op < kOpCount; ++op) {
    const std::string name = kOpNames[op];
    wrapper->ops_[op].returns = measurements->Get(name);
    for (int st = 0; st < kDbStatusCount; ++st) {
      const std::string status = DbStatusName(DbStatus(st));
      std::string latency_name = name;
      if (DbStatus(st) != DbStatus::kOk) {
        latency_name += each_error || tracked.count(status) ? "-" + status : "-FAILED";
      }
      wrapper->ops_[op].latency[st] = measurements->Get(latency_name);
    }
  }
  *result = std::move(wrapper);
  return rocksdb::Status::OK();
}

template <typename Call>
DbStatus MeasuredDB::Measure(Op op, Call call) {
  const auto start = std::chrono::steady_clock::now();
  const DbStatus status = call();
  const auto end = std::chrono::steady_clock::now();
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(end - start).count();
  if (op == kCleanup) {
    // YCSB times every cleanup under CLEANUP and counts no return code for it.
    ops_[op].latency[int(DbStatus::kOk)]->Measure(micros);
  } else {
    ops_[op].latency[int(status)]->Measure(micros);
    ops_[op].returns->ReportStatus(status);
  }
  return status;
}

DbStatus MeasuredDB::Cleanup() {
  return Measure(kCleanup, [&] { return db_->Cleanup(); });
}

DbStatus MeasuredDB::Read(const std::string& table, const std::string& key,
                          const std::vector<std::string>* fields, Fields* result) {
  return Measure(kRead, [&] { return db_->Read(table, key, fields, result); });
}

DbStatus MeasuredDB::Scan(const std::string& table, const std::string& start_key, int64_t count,
                          const std::vector<std::string>* fields, std::vector<Fields>* result) {
  return Measure(kScan, [&] { return db_->Scan(table, start_key, count, fields, result); });
}

DbStatus MeasuredDB::Update(const std::string& table, const std::string& key,
                            const Fields& values) {
  return Measure(kUpdate, [&] { return db_->Update(table, key, values); });
}

DbStatus MeasuredDB::Insert(const std::string& table, const std::string& key,
                            const Fields& values) {
  return Measure(kInsert, [&] { return db_->Insert(table, key, values); });
}

}  // namespace ycsb
}  // namespace tierfs
