// ConfDB (learnedssd.txt §3.3, §4: "the key is the workload cluster ID, and
// the value includes the corresponding SSD configurations and their
// performance ... in JSON format"), kept in RocksDB itself where LearnedSSD
// used LevelDB: a plain local database, default Env, one key per cluster.
//
//   key    model/<model id>/cluster/<n>     (WorkloadModel::Id(), 16 hex digits)
//   value  {"format": "tierfs-tune confdb 1", "model": ID, "cluster": N,
//           "trials": [{"workload": W, "uri": URI, "grade": G,
//                       "mean_us": L, "p99_us": P, "throughput": T}, ...],
//           "positions": {W: [X, Y], ...}}
//
// The model's id in the key keeps the clusters of a model built again apart
// from the old ones' (cluster 2 of one model is not cluster 2 of the next).
// A trial's grade is the one its tuning run measured (relative to the
// space's default on that workload, lower is better); one trial is kept per
// (workload, URI), the latest. A workload's position is where its windows
// sit in the model's plane (Assignment::center): the warm start prefers the
// configurations of the stored workload nearest the new one, as grades of
// different workloads are not on one scale.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/tune/evaluator.h"

namespace rocksdb {
class DB;
}

namespace tierfs {
namespace tune {

struct ConfTrial {
  std::string workload;
  std::string uri;
  double grade = 0;
  Measurement measured;
};

// What ConfDB holds for one cluster.
struct ConfEntry {
  std::vector<ConfTrial> trials;
  std::map<std::string, std::vector<double>> positions;  // workload -> its center
};

class ConfDb {
 public:
  // Opens (creating if missing) the database at `path`. False and *error
  // naming the path on failure.
  static bool Open(const std::string& path, std::unique_ptr<ConfDb>* db, std::string* error);
  ~ConfDb();

  static std::string Key(const std::string& model_id, size_t cluster);

  // What is stored for the cluster (empty if the key is absent). False and
  // *error naming the key on a read error or a value that is not ConfDB
  // JSON.
  bool Get(const std::string& model_id, size_t cluster, ConfEntry* entry, std::string* error);
  // Adds `add`'s trials to the cluster's, replacing stored ones of the same
  // (workload, URI), and its positions (replacing a workload's); written
  // with a synced write. False and *error naming the key if the stored value
  // is corrupt (it is left as it is) or the write fails.
  bool Add(const std::string& model_id, size_t cluster, const ConfEntry& add, std::string* error);
  // Every key with its entry, in key order (for `show`). Fails as Get on the
  // first corrupt value.
  bool List(std::vector<std::pair<std::string, ConfEntry>>* out, std::string* error);
  // Writes `value` under `key` as it is: for tests that damage a value.
  bool PutRaw(const std::string& key, const std::string& value, std::string* error);

 private:
  ConfDb(std::string path, rocksdb::DB* db) : path_(std::move(path)), db_(db) {}
  bool Decode(const std::string& key, const std::string& value, ConfEntry* entry,
              std::string* error) const;

  const std::string path_;
  rocksdb::DB* const db_;  // owned
};

// A ConfDB value (the JSON above) decoded. False and *error saying what is
// wrong (without the key: ConfDb adds it) on anything else. The decoder
// the database uses, and the one its fuzzer calls.
bool DecodeConfEntry(const std::string& value, ConfEntry* entry, std::string* error);

// The warm start: at most `n` distinct configurations of `entry`, taken in
// turn from its workloads nearest `position` first (by their positions;
// one without a position after those with, by name): the nearest one's
// best, the next one's best, ..., then each one's second best, and so on. A
// workload's configurations are ranked by its own grade (ascending; ties
// by URI), and of those it measured alike (equal grades) only the first is
// taken. With no position given, workloads go by name.
std::vector<std::string> BestConfigurations(const ConfEntry& entry, size_t n,
                                            const std::vector<double>& position = {});

}  // namespace tune
}  // namespace tierfs
