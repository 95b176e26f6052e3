#include "tools/ycsb/rocksdb_binding.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include <rocksdb/convenience.h>
#include <rocksdb/utilities/options_util.h>

#include "tools/ycsb/record_codec.h"

namespace tierfs {
namespace ycsb {

using rocksdb::Status;

namespace {

constexpr int kMaxErrorsLogged = 10;

// The options of column family `name`: the OPTIONS file's for it, else the
// file's "default" ones (as YCSB's binding does), else `fallback`.
rocksdb::ColumnFamilyOptions OptionsFor(const std::string& name,
                                        const std::vector<rocksdb::ColumnFamilyDescriptor>& from_file,
                                        const rocksdb::ColumnFamilyOptions& fallback) {
  const rocksdb::ColumnFamilyOptions* found = nullptr;
  for (const auto& d : from_file) {
    if (d.name == name) return d.options;
    if (d.name == rocksdb::kDefaultColumnFamilyName) found = &d.options;
  }
  return found ? *found : fallback;
}

// Creates `dir` and its missing parents, as YCSB's binding does
// (Files.createDirectories); RocksDB creates only the last component.
Status CreateDirs(rocksdb::Env* env, const std::string& dir) {
  for (size_t slash = dir.find('/', 1); ; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    Status s = env->CreateDirIfMissing(prefix);
    if (!s.ok()) return Status::IOError("cannot create directory '" + prefix + "'", s.ToString());
    if (slash == std::string::npos) return Status::OK();
  }
}

}  // namespace

Status RocksDbBinding::Open(const RocksDbConfig& config, const std::string& table,
                            std::unique_ptr<RocksDbBinding>* result) {
  std::unique_ptr<RocksDbBinding> b(new RocksDbBinding());
  Status s;
  rocksdb::Env* env = rocksdb::Env::Default();
  if (!config.fs_uri.empty()) {
    rocksdb::ConfigOptions create;
    create.ignore_unsupported_options = false;  // else an unknown scheme is "OK" and no file system
    s = rocksdb::FileSystem::CreateFromString(create, config.fs_uri, &b->fs_);
    if (s.ok() && b->fs_ == nullptr) s = Status::NotFound("no file system registered for it");
    if (!s.ok()) {
      return Status::InvalidArgument("property 'rocksdb.fs_uri': cannot create file system '" +
                                     config.fs_uri + "': " + s.ToString());
    }
    b->env_ = rocksdb::NewCompositeEnv(b->fs_);
    env = b->env_.get();
  }

  rocksdb::DBOptions db_options;
  std::vector<rocksdb::ColumnFamilyDescriptor> from_file;
  if (!config.options_file.empty()) {
    // Read from the host, as db_bench --options_file does under --fs_uri.
    rocksdb::ConfigOptions load;
    load.ignore_unknown_options = false;
    s = rocksdb::LoadOptionsFromFile(load, config.options_file, &db_options, &from_file);
    if (!s.ok()) {
      return Status::InvalidArgument("property 'rocksdb.options_file': cannot load '" +
                                     config.options_file + "': " + s.ToString());
    }
  }
  db_options.env = env;
  ApplyDbOverrides(config, &db_options);
  s = CreateDirs(env, config.dir);
  if (!s.ok()) return s;

  // A database that exists keeps its column families; a new one starts with "default".
  std::vector<std::string> names;
  s = rocksdb::DB::ListColumnFamilies(db_options, config.dir, &names);
  if (!s.ok()) {
    if (!env->FileExists(config.dir + "/CURRENT").IsNotFound()) {
      return Status::IOError("cannot list the column families of '" + config.dir + "'", s.ToString());
    }
    names = {rocksdb::kDefaultColumnFamilyName};
  }
  if (std::find(names.begin(), names.end(), table) == names.end()) names.push_back(table);

  std::shared_ptr<rocksdb::Cache> cache;
  if (config.has_block_cache_size && config.block_cache_size > 0) {
    cache = rocksdb::NewLRUCache(config.block_cache_size);
  }
  std::shared_ptr<rocksdb::PersistentCache> persistent;
  if (!config.persistent_cache_path.empty()) {
    // As db_bench's --read_cache_path: its log in the cache's directory, the
    // cache on the database's file system.
    s = CreateDirs(env, config.persistent_cache_path);
    std::shared_ptr<rocksdb::Logger> log;
    if (s.ok()) s = env->NewLogger(config.persistent_cache_path + "/rc_LOG", &log);
    if (s.ok()) {
      s = rocksdb::NewPersistentCache(env, config.persistent_cache_path,
                                      config.persistent_cache_size, log,
                                      /*optimized_for_nvm=*/false, &persistent);
    }
    if (!s.ok()) {
      return Status::IOError("cannot open the persistent cache at '" +
                             config.persistent_cache_path + "'", s.ToString());
    }
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const std::string& name : names) {
    rocksdb::ColumnFamilyOptions cf = OptionsFor(name, from_file, rocksdb::ColumnFamilyOptions());
    s = ApplyCfOverrides(config, cache, &cf, persistent);
    if (!s.ok()) return s;
    families.emplace_back(name, cf);
  }

  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  s = rocksdb::DB::Open(db_options, config.dir, families, &handles, &db);
  if (!s.ok()) return Status::IOError("cannot open RocksDB at '" + config.dir + "'", s.ToString());
  b->db_.reset(db);
  for (rocksdb::ColumnFamilyHandle* h : handles) b->families_[h->GetName()] = h;
  b->wait_for_compaction_ = config.wait_for_compaction;
  b->files_env_ = env;
  b->persistent_cache_path_ = config.persistent_cache_path;
  *result = std::move(b);
  return Status::OK();
}

RocksDbBinding::~RocksDbBinding() { Close(); }

namespace {

// Adds the sizes of the files under `dir` (its subdirectories included) to *bytes.
Status AddFileBytes(rocksdb::Env* env, const std::string& dir, uint64_t* bytes) {
  std::vector<std::string> children;
  Status s = env->GetChildren(dir, &children);
  for (size_t i = 0; s.ok() && i < children.size(); ++i) {
    if (children[i] == "." || children[i] == "..") continue;
    const std::string path = dir + "/" + children[i];
    bool is_dir = false;
    s = env->IsDirectory(path, &is_dir);
    if (s.ok() && is_dir) {
      s = AddFileBytes(env, path, bytes);
    } else if (s.ok()) {
      uint64_t size = 0;
      s = env->GetFileSize(path, &size);
      if (s.IsNotFound()) s = Status::OK();  // the cache evicted it meanwhile
      *bytes += size;
    } else if (s.IsNotFound()) {
      s = Status::OK();
    }
  }
  return s;
}

}  // namespace

Status RocksDbBinding::PersistentCacheBytes(uint64_t* bytes) const {
  *bytes = 0;
  if (persistent_cache_path_.empty()) {
    return Status::NotSupported("no persistent cache (property 'rocksdb.persistent_cache_path')");
  }
  Status s = AddFileBytes(files_env_, persistent_cache_path_, bytes);
  if (!s.ok()) {
    return Status::IOError("cannot size the persistent cache at '" + persistent_cache_path_ + "'",
                           s.ToString());
  }
  return s;
}

Status RocksDbBinding::WaitForCompaction() {
  rocksdb::FlushOptions flush;
  flush.allow_write_stall = true;
  for (auto& family : families_) {
    Status s = db_->Flush(flush, family.second);
    if (!s.ok()) return Status::IOError("flush before waiting for compactions", s.ToString());
  }
  // RocksDB 7.8 has no call that waits for compactions: poll, as db_bench's
  // waitforcompaction does.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  for (;;) {
    uint64_t busy = 0, v = 0;
    for (auto& family : families_) {
      if (db_->GetIntProperty(family.second, "rocksdb.compaction-pending", &v)) busy += v;
      if (db_->GetIntProperty(family.second, "rocksdb.mem-table-flush-pending", &v)) busy += v;
    }
    if (db_->GetIntProperty("rocksdb.num-running-compactions", &v)) busy += v;
    if (db_->GetIntProperty("rocksdb.num-running-flushes", &v)) busy += v;
    if (busy == 0) return Status::OK();
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::TimedOut("rocksdb.wait_for_compaction: compactions still running after an hour");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

Status RocksDbBinding::Close() {
  if (!db_) return Status::OK();
  Status result;
  if (wait_for_compaction_) result = WaitForCompaction();
  for (auto& family : families_) {
    Status s = db_->DestroyColumnFamilyHandle(family.second);
    if (result.ok()) result = s;
  }
  families_.clear();
  Status s = db_->Close();
  if (result.ok()) result = s;
  db_.reset();
  return result;
}

DbStatus RocksDbBinding::Init() {
  std::lock_guard<std::mutex> lock(clients_mu_);
  if (!db_) return DbStatus::kError;
  ++clients_;
  return DbStatus::kOk;
}

DbStatus RocksDbBinding::Cleanup() {
  std::lock_guard<std::mutex> lock(clients_mu_);
  if (--clients_ > 0) return DbStatus::kOk;
  Status s = Close();
  return s.ok() ? DbStatus::kOk : Fail("close", "", s);
}

DbStatus RocksDbBinding::Fail(const char* op, const std::string& key, const Status& s) {
  const int n = errors_logged_.fetch_add(1, std::memory_order_relaxed);
  if (n < kMaxErrorsLogged) {
    fprintf(stderr, "rocksdb %s %s: %s\n", op, key.c_str(), s.ToString().c_str());
  } else if (n == kMaxErrorsLogged) {
    fprintf(stderr, "rocksdb: further errors not shown\n");
  }
  return DbStatus::kError;
}

rocksdb::ColumnFamilyHandle* RocksDbBinding::Family(const std::string& table) {
  auto it = families_.find(table);
  if (it != families_.end()) return it->second;
  Fail("lookup", table, Status::InvalidArgument("no column family for table '" + table + "'"));
  return nullptr;
}

DbStatus RocksDbBinding::Read(const std::string& table, const std::string& key,
                              const std::vector<std::string>* fields, Fields* result) {
  rocksdb::ColumnFamilyHandle* cf = Family(table);
  if (cf == nullptr) return DbStatus::kError;
  rocksdb::PinnableSlice value;
  const Status s = db_->Get(rocksdb::ReadOptions(), cf, key, &value);
  if (s.IsNotFound()) return DbStatus::kNotFound;
  if (!s.ok()) return Fail("read", key, s);
  if (!DecodeFields(value, fields, result)) {
    return Fail("read", key, Status::Corruption("truncated record"));
  }
  return DbStatus::kOk;
}

DbStatus RocksDbBinding::Scan(const std::string& table, const std::string& start_key,
                              int64_t count, const std::vector<std::string>* fields,
                              std::vector<Fields>* result) {
  rocksdb::ColumnFamilyHandle* cf = Family(table);
  if (cf == nullptr) return DbStatus::kError;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
  int64_t n = 0;
  for (it->Seek(start_key); it->Valid() && n < count; it->Next(), ++n) {
    result->emplace_back();
    if (!DecodeFields(it->value(), fields, &result->back())) {
      return Fail("scan", it->key().ToString(), Status::Corruption("truncated record"));
    }
  }
  if (!it->status().ok()) return Fail("scan", start_key, it->status());
  return DbStatus::kOk;
}

DbStatus RocksDbBinding::Update(const std::string& table, const std::string& key,
                                const Fields& values) {
  rocksdb::ColumnFamilyHandle* cf = Family(table);
  if (cf == nullptr) return DbStatus::kError;
  rocksdb::PinnableSlice current;
  Status s = db_->Get(rocksdb::ReadOptions(), cf, key, &current);
  if (s.IsNotFound()) return DbStatus::kNotFound;
  if (!s.ok()) return Fail("update", key, s);
  Fields record;
  if (!DecodeFields(current, nullptr, &record)) {
    return Fail("update", key, Status::Corruption("truncated record"));
  }
  MergeFields(values, &record);
  std::string encoded;
  EncodeFields(record, &encoded);
  s = db_->Put(rocksdb::WriteOptions(), cf, key, encoded);
  return s.ok() ? DbStatus::kOk : Fail("update", key, s);
}

DbStatus RocksDbBinding::Insert(const std::string& table, const std::string& key,
                                const Fields& values) {
  rocksdb::ColumnFamilyHandle* cf = Family(table);
  if (cf == nullptr) return DbStatus::kError;
  std::string encoded;
  EncodeFields(values, &encoded);
  const Status s = db_->Put(rocksdb::WriteOptions(), cf, key, encoded);
  return s.ok() ? DbStatus::kOk : Fail("insert", key, s);
}

}  // namespace ycsb
}  // namespace tierfs
