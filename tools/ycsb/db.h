// The database interface the workload drives: YCSB's site.ycsb.DB, one
// implementation per store (here RocksDB, and fakes in tests). YCSB's
// delete() is left out: CoreWorkload never calls it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tierfs {
namespace ycsb {

// The result of one operation, as YCSB's Status names it in the report
// ("[READ], Return=NOT_FOUND, 3").
enum class DbStatus { kOk, kNotFound, kError };
constexpr int kDbStatusCount = 3;
const char* DbStatusName(DbStatus status);

// A record: field name and value pairs. Field order carries no meaning.
using Fields = std::vector<std::pair<std::string, std::string>>;

// Every method may be called from several client threads at once.
class DB {
 public:
  virtual ~DB() = default;

  // YCSB's per-thread init() and cleanup(): Init once for each client thread
  // before any thread's first operation, Cleanup by each thread after its
  // last. The last Cleanup may close the store; its failure is kError.
  virtual DbStatus Init() { return DbStatus::kOk; }
  virtual DbStatus Cleanup() { return DbStatus::kOk; }

  // Reads record `key` of `table` into *result: the fields named in *fields,
  // or all of them when fields is null. kNotFound if there is no such record.
  virtual DbStatus Read(const std::string& table, const std::string& key,
                        const std::vector<std::string>* fields, Fields* result) = 0;
  // Reads up to `count` records in key order starting at the first key >=
  // start_key, each restricted to *fields as in Read.
  virtual DbStatus Scan(const std::string& table, const std::string& start_key, int64_t count,
                        const std::vector<std::string>* fields, std::vector<Fields>* result) = 0;
  // Replaces the given fields of an existing record, keeping the others.
  // kNotFound if there is no such record.
  virtual DbStatus Update(const std::string& table, const std::string& key,
                          const Fields& values) = 0;
  // Writes a record (replacing any record of the same key).
  virtual DbStatus Insert(const std::string& table, const std::string& key,
                          const Fields& values) = 0;
};

}  // namespace ycsb
}  // namespace tierfs
