#include "env/namespace.h"

#include "env/file_limits.h"

namespace tierfs {

using rocksdb::Status;

Namespace::Namespace(uint64_t max_segments_per_file) : max_segments_(max_segments_per_file) {
  dirs_.insert("/");
}

std::string Namespace::Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

void Namespace::Mkdir(const std::string& path) {
  for (std::string p = path; dirs_.insert(p).second && p != "/"; p = Parent(p)) {
  }
}

void Namespace::Rmdir(const std::string& path) {
  if (path != "/") dirs_.erase(path);
}

std::shared_ptr<FileEntry> Namespace::Bind(const std::string& name, uint64_t id,
                                           FileKind kind) {
  std::shared_ptr<FileEntry>& slot_by_id = by_id_[id];
  if (!slot_by_id) slot_by_id = std::make_shared<FileEntry>(id, kind);
  if (id >= next_id_) next_id_ = id + 1;
  std::shared_ptr<FileEntry> entry = slot_by_id;
  auto existing = names_.find(name);
  if (existing != names_.end() && existing->second == entry) return nullptr;  // already so
  Mkdir(Parent(name));
  std::shared_ptr<FileEntry> replaced = Unbind(name);
  names_[name] = entry;
  entry->links++;
  return replaced;
}

std::shared_ptr<FileEntry> Namespace::Unbind(const std::string& name) {
  auto it = names_.find(name);
  if (it == names_.end()) return nullptr;
  std::shared_ptr<FileEntry> entry = it->second;
  names_.erase(it);
  if (--entry->links > 0) return nullptr;
  by_id_.erase(entry->id);
  return entry;
}

std::shared_ptr<FileEntry> Namespace::Rename(const std::string& src, const std::string& dst) {
  auto it = names_.find(src);
  std::shared_ptr<FileEntry> entry = it->second;
  auto existing = names_.find(dst);
  if (existing != names_.end() && existing->second == entry) return nullptr;  // POSIX: no-op
  names_.erase(it);  // entry keeps its by_id_ slot: links only drops for a moment
  entry->links--;
  std::shared_ptr<FileEntry> replaced = Unbind(dst);
  Mkdir(Parent(dst));
  names_[dst] = entry;
  entry->links++;
  return replaced;
}

Status Namespace::Apply(const JournalRecord& r) {
  if ((r.type == RecordType::kSegment || r.type == RecordType::kCopy) &&
      r.segment >= max_segments_) {
    // Checked before anything grows: the file's table would be allocated up
    // to this segment.
    return Status::Corruption(
        "TierFS journal record " + std::string(r.type == RecordType::kSegment ? "Segment" : "Copy") +
        " (file id " + std::to_string(r.id) + ", segment " + std::to_string(r.segment) +
        ", tier " + std::to_string(int(r.tier)) + ") is beyond the " +
        std::to_string(max_segments_) + " segments a file can have (files up to " +
        std::to_string(kMaxFileSize >> 40) + " TiB)");
  }
  switch (r.type) {
    case RecordType::kBind:
      Bind(r.name, r.id, r.kind);
      return Status::OK();
    case RecordType::kUnbind:
      if (!names_.count(r.name)) break;
      Unbind(r.name);
      return Status::OK();
    case RecordType::kRename:
      if (!names_.count(r.name)) break;
      Rename(r.name, r.name2);
      return Status::OK();
    case RecordType::kSegment: {
      // A writer may place segments of a file whose last name is already gone
      // (RocksDB deletes, another writer renames over it): its data is an
      // orphan, removed at open.
      auto it = by_id_.find(r.id);
      if (it == by_id_.end()) return Status::OK();
      FileEntry* e = it->second.get();
      WriterLock lock(&e->mu);
      e->segments.Set(r.segment, r.tier, 0);
      return Status::OK();
    }
    case RecordType::kCopy: {
      auto it = by_id_.find(r.id);
      if (it == by_id_.end()) return Status::OK();
      FileEntry* e = it->second.get();
      WriterLock lock(&e->mu);
      e->segments.SetCopy(r.segment, r.tier, false);
      return Status::OK();
    }
    case RecordType::kMkdir:
      Mkdir(r.name);
      return Status::OK();
    case RecordType::kRmdir:
      // The store removes only empty directories (Store::DeleteDir): a
      // directory removed with names under it would come back in the next
      // snapshot, which binds those names and so makes their parents again.
      if (r.name != "/" && HasChildren(r.name)) {
        return Status::Corruption("TierFS journal record Rmdir '" + r.name +
                                  "' removes a directory that is not empty");
      }
      Rmdir(r.name);
      return Status::OK();
    case RecordType::kEnd:
      return Status::OK();
  }
  return Status::Corruption("TierFS journal record (type " + std::to_string(int(r.type)) +
                            ", name '" + r.name + "', id " + std::to_string(r.id) +
                            ") refers to a file that does not exist");
}

std::shared_ptr<FileEntry> Namespace::Find(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : it->second;
}

std::shared_ptr<FileEntry> Namespace::FindId(uint64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

bool Namespace::IsDir(const std::string& path) const { return dirs_.count(path) > 0; }

bool Namespace::HasChildren(const std::string& dir) const {
  std::string prefix = dir == "/" ? "/" : dir + "/";
  auto f = names_.lower_bound(prefix);
  if (f != names_.end() && f->first.compare(0, prefix.size(), prefix) == 0) return true;
  // lower_bound: a directory named "<dir>/" (Mkdir of a path with a trailing
  // slash) is under <dir> too; Parent() of it is <dir>.
  auto d = dirs_.lower_bound(prefix);
  if (d != dirs_.end() && *d == "/") ++d;  // the root is no one's child
  return d != dirs_.end() && d->compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> Namespace::Children(const std::string& dir) const {
  std::string prefix = dir == "/" ? "/" : dir + "/";
  std::vector<std::string> out;
  for (auto it = names_.lower_bound(prefix);
       it != names_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    std::string rest = it->first.substr(prefix.size());
    if (rest.find('/') == std::string::npos) out.push_back(rest);
  }
  for (auto it = dirs_.upper_bound(prefix);
       it != dirs_.end() && it->compare(0, prefix.size(), prefix) == 0; ++it) {
    std::string rest = it->substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string::npos) out.push_back(rest);
  }
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> Namespace::FilesUnder(
    const std::string& dir) const {
  std::string prefix = dir == "/" ? "/" : dir + "/";
  std::vector<std::pair<std::string, std::shared_ptr<FileEntry>>> out;
  for (auto it = names_.lower_bound(prefix);
       it != names_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.emplace_back(it->first, it->second);
  }
  return out;
}

std::unordered_map<uint64_t, uint64_t> Namespace::SealedFileSizes() const {
  std::unordered_map<uint64_t, uint64_t> sizes;
  for (const auto& [id, entry] : by_id_) {
    if (entry->sealed.load(std::memory_order_acquire)) {
      sizes[id] = entry->size.load(std::memory_order_acquire);
    }
  }
  return sizes;
}

std::vector<JournalRecord> Namespace::SnapshotRecords() const {
  std::vector<JournalRecord> out;
  for (const std::string& d : dirs_) {
    if (d != "/") out.push_back(JournalRecord::Mkdir(d));
  }
  for (const auto& [name, entry] : names_) {
    out.push_back(JournalRecord::Bind(entry->id, entry->kind, name));
  }
  for (const auto& [id, entry] : by_id_) {
    ReaderLock lock(&entry->mu);
    for (uint64_t s = 0; s < entry->segments.size(); ++s) {
      uint8_t t = entry->segments.tier(s);
      if (t != kNoTier) out.push_back(JournalRecord::Segment(id, s, t));
      // A PREFETCH copy is not durable: a restart forgets it.
      uint8_t c = entry->segments.copy(s);
      if (c != kNoTier && !entry->segments.copy_is_volatile(s)) {
        out.push_back(JournalRecord::Copy(id, s, c));
      }
    }
  }
  return out;
}

}  // namespace tierfs
