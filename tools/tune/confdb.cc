// ConfDB in RocksDB (confdb.h).
#include "tools/tune/confdb.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

namespace tierfs {
namespace tune {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "tierfs-tune confdb 1";

std::string Encode(const std::string& model_id, size_t cluster, const ConfEntry& entry) {
  json t = json::array();
  for (const ConfTrial& c : entry.trials) {
    t.push_back({{"workload", c.workload}, {"uri", c.uri}, {"grade", c.grade},
                 {"mean_us", c.measured.mean_us}, {"p99_us", c.measured.p99_us},
                 {"throughput", c.measured.throughput}});
  }
  return json{{"format", kFormat}, {"model", model_id}, {"cluster", cluster}, {"trials", t},
              {"positions", entry.positions}}
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

bool DecodeConfEntry(const std::string& value, ConfEntry* entry, std::string* error) {
  try {
    const json j = json::parse(value);
    if (!j.is_object() || j.value("format", "") != kFormat) {
      *error = std::string("not a ConfDB value (no \"format\": \"") + kFormat + "\")";
      return false;
    }
    ConfEntry out;
    for (const json& t : j.at("trials")) {
      ConfTrial c;
      t.at("workload").get_to(c.workload);
      t.at("uri").get_to(c.uri);
      t.at("grade").get_to(c.grade);
      t.at("mean_us").get_to(c.measured.mean_us);
      t.at("p99_us").get_to(c.measured.p99_us);
      t.at("throughput").get_to(c.measured.throughput);
      out.trials.push_back(std::move(c));
    }
    j.at("positions").get_to(out.positions);
    *entry = std::move(out);
    return true;
  } catch (const json::exception& e) {
    *error = std::string("corrupt value: ") + e.what();
    return false;
  }
}

bool ConfDb::Decode(const std::string& key, const std::string& value, ConfEntry* entry,
                    std::string* error) const {
  if (DecodeConfEntry(value, entry, error)) return true;
  *error = "ConfDB " + path_ + " key '" + key + "': " + *error;
  return false;
}

bool ConfDb::Get(const std::string& model_id, size_t cluster, ConfEntry* entry,
                 std::string* error) {
  const std::string key = Key(model_id, cluster);
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, &value);
  if (s.IsNotFound()) {
    *entry = ConfEntry();
    return true;
  }
  if (!s.ok()) {
    *error = "ConfDB " + path_ + " key '" + key + "': " + s.ToString();
    return false;
  }
  return Decode(key, value, entry, error);
}

bool ConfDb::Add(const std::string& model_id, size_t cluster, const ConfEntry& add,
                 std::string* error) {
  ConfEntry stored;
  if (!Get(model_id, cluster, &stored, error)) return false;
  for (const ConfTrial& t : add.trials) {
    auto same = std::find_if(stored.trials.begin(), stored.trials.end(), [&](const ConfTrial& s) {
      return s.workload == t.workload && s.uri == t.uri;
    });
    if (same != stored.trials.end()) {
      *same = t;
    } else {
      stored.trials.push_back(t);
    }
  }
  for (const auto& [workload, position] : add.positions) stored.positions[workload] = position;
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

bool ConfDb::List(std::vector<std::pair<std::string, ConfEntry>>* out, std::string* error) {
  out->clear();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ConfEntry entry;
    const std::string key = it->key().ToString();
    if (!Decode(key, it->value().ToString(), &entry, error)) return false;
    out->emplace_back(key, std::move(entry));
  }
  if (!it->status().ok()) {
    *error = "ConfDB " + path_ + ": " + it->status().ToString();
    return false;
  }
  return true;
}

std::vector<std::string> BestConfigurations(const ConfEntry& entry, size_t n,
                                            const std::vector<double>& position) {
  // Each workload's configurations by its own grade.
  std::map<std::string, std::vector<std::pair<double, std::string>>> ranked;
  for (const ConfTrial& t : entry.trials) ranked[t.workload].emplace_back(t.grade, t.uri);
  // The workloads nearest first; without a position (or a position of
  // another size), after, by name (the map's order, kept by a stable sort).
  std::vector<std::pair<double, std::string>> order;
  for (auto& [workload, configs] : ranked) {
    std::sort(configs.begin(), configs.end());
    // Configurations a workload measured alike (equal grades: the parameters
    // between them made no difference to it) are one: a second would spend
    // an evaluation to learn nothing.
    configs.erase(std::unique(configs.begin(), configs.end(),
                              [](const auto& a, const auto& b) {
                                return std::fabs(a.first - b.first) <=
                                       1e-9 * std::max(1.0, std::fabs(a.first));
                              }),
                  configs.end());
    double d = std::numeric_limits<double>::infinity();
    auto p = entry.positions.find(workload);
    if (!position.empty() && p != entry.positions.end() && p->second.size() == position.size()) {
      d = 0;
      for (size_t i = 0; i < position.size(); ++i) {
        d += (p->second[i] - position[i]) * (p->second[i] - position[i]);
      }
    }
    order.emplace_back(position.empty() ? 0.0 : d, workload);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  std::set<std::string> taken;
  for (size_t round = 0; out.size() < n; ++round) {
    bool any = false;
    for (const auto& [distance, workload] : order) {
      const auto& configs = ranked[workload];
      if (round >= configs.size()) continue;
      any = true;
      if (out.size() < n && taken.insert(configs[round].second).second) {
        out.push_back(configs[round].second);
      }
    }
    if (!any) break;
  }
  return out;
}

}  // namespace tune
}  // namespace tierfs
