// TierFSListener (declared in tierfs/hints.h, where its use is documented).

#include <map>
#include <mutex>

#include <rocksdb/utilities/object_registry.h>

#include "env/registrar.h"
#include "tierfs/hints.h"

namespace tierfs {
namespace {

class TierFSListener : public rocksdb::EventListener {
 public:
  static const char* kClassName() { return "TierFSListener"; }
  const char* Name() const override { return kClassName(); }

  void OnCompactionBegin(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    job_level_[info.job_id] = info.output_level;
  }
  void OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    job_level_.erase(info.job_id);
  }

  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override {
    int level = -1;
    switch (info.reason) {
      case rocksdb::TableFileCreationReason::kFlush:
      case rocksdb::TableFileCreationReason::kRecovery:
        level = 0;
        break;
      case rocksdb::TableFileCreationReason::kCompaction: {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = job_level_.find(info.job_id);
        if (it != job_level_.end()) level = it->second;
        break;
      }
      default:
        break;
    }
    NoteTableFileInOpenStores(info.file_path, level, info.cf_name);
  }

 private:
  std::mutex mu_;
  std::map<int, int> job_level_;  // compaction job -> output level
};

struct Registrar {
  Registrar() {
    rocksdb::ObjectLibrary::Default()->AddFactory<rocksdb::EventListener>(
        TierFSListener::kClassName(),
        [](const std::string&, std::unique_ptr<rocksdb::EventListener>* guard, std::string*) {
          guard->reset(new TierFSListener());
          return guard->get();
        });
  }
};

const Registrar registrar;

}  // namespace

std::shared_ptr<rocksdb::EventListener> NewTierFSListener() {
  return std::make_shared<TierFSListener>();
}

}  // namespace tierfs
