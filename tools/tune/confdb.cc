// ConfDB in RocksDB (confdb.h).
#include "tools/tune/confdb.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace tierfs {
namespace tune {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "tierfs-tune confdb 1";

std::string Encode(const std::string& model_id, size_t cluster,
                   const std::vector<ConfTrial>& trials) {
  json t = json::array();
  for (const ConfTrial& c : trials) {
    t.push_back({{"workload", c.workload}, {"uri", c.uri}, {"grade", c.grade},
                 {"mean_us", c.measured.mean_us}, {"p99_us", c.measured.p99_us},
                 {"throughput", c.measured.throughput}});
  }
  return json{{"format", kFormat}, {"model", model_id}, {"cluster", cluster}, {"trials", t}}
      .dump();
}

}  // namespace

bool ConfDb::Open(const std::string& path, std::unique_ptr<ConfDb>* db, std::string* error) {
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* raw = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(options, path, &raw);
  if (!s.ok()) {
    *error = "ConfDB " + path + ": " + s.ToString();
    return false;
  }
  db->reset(new ConfDb(path, raw));
  return true;
}

ConfDb::~ConfDb() {
  db_->Close().PermitUncheckedError();
  delete db_;
}

std::string ConfDb::Key(const std::string& model_id, size_t cluster) {
  return "model/" + model_id + "/cluster/" + std::to_string(cluster);
}

bool ConfDb::Decode(const std::string& key, const std::string& value,
                    std::vector<ConfTrial>* trials, std::string* error) const {
  try {
    const json j = json::parse(value);
    if (!j.is_object() || j.value("format", "") != kFormat) {
      *error = "ConfDB " + path_ + " key '" + key + "': not a ConfDB value (no \"format\": \"" +
               kFormat + "\")";
      return false;
    }
    std::vector<ConfTrial> out;
    for (const json& t : j.at("trials")) {
      ConfTrial c;
      t.at("workload").get_to(c.workload);
      t.at("uri").get_to(c.uri);
      t.at("grade").get_to(c.grade);
      t.at("mean_us").get_to(c.measured.mean_us);
      t.at("p99_us").get_to(c.measured.p99_us);
      t.at("throughput").get_to(c.measured.throughput);
      out.push_back(std::move(c));
    }
    *trials = std::move(out);
    return true;
  } catch (const json::exception& e) {
    *error = "ConfDB " + path_ + " key '" + key + "': corrupt value: " + e.what();
    return false;
  }
}

bool ConfDb::Get(const std::string& model_id, size_t cluster, std::vector<ConfTrial>* trials,
                 std::string* error) {
  const std::string key = Key(model_id, cluster);
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &value);
  if (s.IsNotFound()) {
    trials->clear();
    return true;
  }
  if (!s.ok()) {
    *error = "ConfDB " + path_ + " key '" + key + "': " + s.ToString();
    return false;
  }
  return Decode(key, value, trials, error);
}

bool ConfDb::Add(const std::string& model_id, size_t cluster,
                 const std::vector<ConfTrial>& trials, std::string* error) {
  std::vector<ConfTrial> stored;
  if (!Get(model_id, cluster, &stored, error)) return false;
  for (const ConfTrial& t : trials) {
    auto same = std::find_if(stored.begin(), stored.end(), [&](const ConfTrial& s) {
      return s.workload == t.workload && s.uri == t.uri;
    });
    if (same != stored.end()) {
      *same = t;
    } else {
      stored.push_back(t);
    }
  }
  return PutRaw(Key(model_id, cluster), Encode(model_id, cluster, stored), error);
}

bool ConfDb::PutRaw(const std::string& key, const std::string& value, std::string* error) {
  rocksdb::WriteOptions sync;
  sync.sync = true;
  const rocksdb::Status s = db_->Put(sync, key, value);
  if (!s.ok()) {
    *error = "ConfDB " + path_ + " key '" + key + "': " + s.ToString();
    return false;
  }
  return true;
}

bool ConfDb::List(std::vector<std::pair<std::string, std::vector<ConfTrial>>>* out,
                  std::string* error) {
  out->clear();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::vector<ConfTrial> trials;
    const std::string key = it->key().ToString();
    if (!Decode(key, it->value().ToString(), &trials, error)) return false;
    out->emplace_back(key, std::move(trials));
  }
  if (!it->status().ok()) {
    *error = "ConfDB " + path_ + ": " + it->status().ToString();
    return false;
  }
  return true;
}

std::vector<std::string> BestConfigurations(const std::vector<ConfTrial>& trials, size_t n) {
  std::map<std::string, std::pair<double, size_t>> sums;  // URI -> (sum of grades, count)
  for (const ConfTrial& t : trials) {
    auto& s = sums[t.uri];
    s.first += t.grade;
    ++s.second;
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [uri, s] : sums) ranked.emplace_back(s.first / double(s.second), uri);
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < n; ++i) out.push_back(ranked[i].second);
  return out;
}

}  // namespace tune
}  // namespace tierfs
