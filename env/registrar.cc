// The public entry points that know the process's open stores: building a
// TierFS from options or a URI, closing it, the `tierfs://` factory registered
// with RocksDB's object registry when the library loads (so LD_PRELOAD makes
// stock tools accept --fs_uri=tierfs://...), and the statistics accessors.
#include <map>

#include <rocksdb/utilities/object_registry.h>

#include "env/registrar.h"
#include "env/tier_fs.h"
#include "tierfs/file_system.h"
#include "tierfs/statistics.h"
#include "util/mutex.h"

namespace tierfs {

using rocksdb::Status;

namespace {

// One store per tier-0 root per process: RocksDB tools create the file system
// more than once, and two stores over the same tiers would corrupt each other.
struct Registry {
  // Held while a store opens (RegisterLiveStore) and closes (Close takes the
  // store's close_mu_): the outermost lock (env/store.h).
  Mutex mu;
  std::map<std::string, std::weak_ptr<Store>> stores GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: used at exit
  return *registry;
}

bool SameLayout(const Options& a, const Options& b) {
  if (a.tiers.size() != b.tiers.size() || a.segment_size != b.segment_size ||
      a.policy != b.policy) {
    return false;
  }
  for (size_t i = 0; i < a.tiers.size(); ++i) {
    if (TierFileSystem::Normalize(a.tiers[i].path) != TierFileSystem::Normalize(b.tiers[i].path) ||
        a.tiers[i].capacity != b.tiers[i].capacity || a.tiers[i].device != b.tiers[i].device) {
      return false;
    }
  }
  return true;
}

}  // namespace

Status NewTierFileSystem(const Options& options, std::shared_ptr<rocksdb::FileSystem>* result) {
  try {
    std::shared_ptr<Store> store;
    if (options.read_only) {
      rocksdb::IOStatus s = Store::Open(options, &store);
      if (!s.ok()) return s;
    } else {
      Registry& reg = GetRegistry();
      MutexLock lock(&reg.mu);
      const std::string key = options.tiers.empty() ? "" : TierFileSystem::Normalize(options.tiers[0].path);
      store = reg.stores[key].lock();
      if (store && !SameLayout(store->options(), options)) {
        return Status::InvalidArgument("TierFS store at " + key +
                                       " is already open in this process with another configuration");
      }
      if (!store) {
        rocksdb::IOStatus s = Store::Open(options, &store);
        if (!s.ok()) return s;
        reg.stores[key] = store;
      }
    }
    *result = std::make_shared<TierFileSystem>(store);
    return Status::OK();
  } catch (const std::exception& e) {
    return Status::IOError(std::string("TierFS open: ") + e.what());
  }
}

Status NewTierFileSystem(const std::string& uri, std::shared_ptr<rocksdb::FileSystem>* result) {
  Options options;
  Status s = ParseUri(uri, &options);
  if (!s.ok()) return s;
  return NewTierFileSystem(options, result);
}

std::unique_ptr<rocksdb::Env> NewTierEnv(const std::shared_ptr<rocksdb::FileSystem>& fs) {
  return rocksdb::NewCompositeEnv(fs);
}

Status Close(rocksdb::FileSystem* fs) {
  Store* store = StoreOf(fs);
  if (!store) return Status::InvalidArgument("Close: not a TierFS file system");
  // Under the registry's lock: an open of the same tiers waits, then finds
  // the store gone and opens it afresh (the lock released).
  Registry& reg = GetRegistry();
  MutexLock lock(&reg.mu);
  for (auto it = reg.stores.begin(); it != reg.stores.end(); ++it) {
    if (it->second.lock().get() == store) {
      reg.stores.erase(it);
      break;
    }
  }
  return store->Close();
}

Status GetTierStats(const rocksdb::FileSystem* fs, std::vector<TierStats>* stats) {
  Store* store;
  Status s = OpenStoreOf(fs, "GetTierStats", &store);
  if (s.ok()) store->GetStats(stats);
  return s;
}

Status ListFiles(const rocksdb::FileSystem* fs, const std::string& dir,
                 std::vector<FileInfo>* files) {
  Store* store;
  Status s = OpenStoreOf(fs, "ListFiles", &store);
  if (s.ok()) store->ListFiles(TierFileSystem::Normalize(dir), files);
  return s;
}

void NoteTableFileInOpenStores(const std::string& path, int level,
                               const std::string& column_family) {
  std::vector<std::shared_ptr<Store>> stores;
  {
    Registry& reg = GetRegistry();
    MutexLock lock(&reg.mu);
    for (auto& [root, weak] : reg.stores) {
      if (auto store = weak.lock()) stores.push_back(store);
    }
  }
  const std::string normalized = TierFileSystem::Normalize(path);
  for (const auto& store : stores) store->NoteTableFile(normalized, level, column_family);
}

namespace {

rocksdb::FileSystem* TierFsFactory(const std::string& uri,
                                   std::unique_ptr<rocksdb::FileSystem>* guard,
                                   std::string* errmsg) {
  std::shared_ptr<rocksdb::FileSystem> fs;
  Status s = NewTierFileSystem(uri, &fs);
  if (!s.ok()) {
    *errmsg = s.getState() ? s.getState() : s.ToString();  // RocksDB adds the code itself
    return nullptr;
  }
  // The registry wants ownership through a unique_ptr; the shared store is
  // kept alive by the file system itself.
  auto* tfs = static_cast<TierFileSystem*>(fs.get());
  guard->reset(new TierFileSystem(tfs->store()));
  return guard->get();
}

struct Registrar {
  Registrar() {
    rocksdb::ObjectLibrary::Default()->AddFactory<rocksdb::FileSystem>(
        rocksdb::ObjectLibrary::PatternEntry("tierfs", false).AddSeparator("://", false),
        TierFsFactory);
  }
};

const Registrar registrar;

}  // namespace
}  // namespace tierfs
