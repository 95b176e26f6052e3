// Store: open and recovery (closing: store_close.cc).
//
// Tier root layout:
//   <root>/TIERFS-TIER      marker: store id and tier index
//   <root>/data/<id, hex>   one sparse backing file per file, segments at their offsets
//   <tier0>/meta/           SNAPSHOT-n, JOURNAL-n, STATS, AGENTS, LOCK, admin/,
//                           LOG and LOG.old (env/info_log.h)
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <random>

#include <sys/stat.h>

#include "core/config.h"
#include "env/admin_channel.h"
#include "env/exit_hook.h"
#include "env/hot_pages.h"
#include "env/migrator.h"
#include "env/posix_util.h"
#include "env/stats_file.h"
#include "env/store.h"

namespace tierfs {

using rocksdb::FileOptions;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

namespace {

// Takes `e`'s block allowance on tier t unless it has it already; true if
// taken. No thread-safety analysis: Recover runs before any other thread
// can reach the store, so it writes the mask without e->mu.
bool TakeAllowanceAtOpen(FileEntry* e, uint8_t t) NO_THREAD_SAFETY_ANALYSIS {
  if (e->allowance_mask & (1u << t)) return false;
  e->allowance_mask |= uint8_t(1u << t);
  return true;
}

// The marker of a tier, "TIERFS-TIER":
//   tierfs-tier 1            format version
//   store <16 hex digits>    the store it belongs to
//   index <n>                its position, fastest = 0
//   segment_size <bytes>     the store's segment size (0: whole files)
std::string MarkerText(const std::string& store_id, int index, uint64_t segment_size) {
  return "tierfs-tier 1\nstore " + store_id + "\nindex " + std::to_string(index) +
         "\nsegment_size " + std::to_string(segment_size) + "\n";
}

// The value of "key " in a marker, "" if absent.
std::string MarkerField(const std::string& text, const std::string& key) {
  size_t p = text.find(key + " ");
  if (p == std::string::npos) return "";
  p += key.size() + 1;
  return text.substr(p, text.find('\n', p) - p);
}

// Fsync of the directory `dir` through `fs`: makes the entries made in it
// durable.
IOStatus SyncDirectory(rocksdb::FileSystem* fs, const std::string& dir) {
  std::unique_ptr<rocksdb::FSDirectory> d;
  IOStatus s = fs->NewDirectory(dir, IOOptions(), &d, nullptr);
  if (s.ok()) s = d->Fsync(IOOptions(), nullptr);
  return s;
}

}  // namespace

IOStatus Store::Open(const Options& options, std::shared_ptr<Store>* result) {
  rocksdb::Status v = ValidateOptions(options);
  if (!v.ok()) return IOStatus::InvalidArgument(v.getState());
  std::shared_ptr<Store> store(new Store(options));
  std::string error;
  PolicyParams params;
  for (const auto& [key, value] : options.policy_params) params[key.substr(key.find('.') + 1)] = value;
  store->policy_ = NewPolicy(options.policy, params, &error);  // validated above
  store->policy_learns_latency_ = store->policy_->LearnsFromLatency();
  store->placement_ = std::make_unique<PlacementEngine>(store->policy_.get(), options.migration);
  IOStatus s = store->OpenTiers();
  if (s.ok()) s = store->Recover();
  if (!s.ok()) return s;
  // A damaged STATS file costs the saved counters, never the open.
  std::string missing;
  s = StatsFile::Load(*store, &missing);
  if (!s.ok()) {
    store->ReportError(StoreError::kStatsLoad,
                       "loading " + store->meta_dir_ + "/STATS (counters go on from what was read)",
                       s);
  }
  if (!options.read_only) {
    store->LogInfo("open: journal generation " + std::to_string(store->journal_->generation()) +
                   ", " + std::to_string(store->tiers_.size()) + " tiers, policy " +
                   store->policy_->Name());
    if (!missing.empty()) store->LogInfo("open: " + missing);
    store->LoadPolicyState();
  }
  if (!options.read_only && store->NumTiers() > 1) {
    const int own = store->policy_->CopySharePct();
    Store* raw = store.get();
    std::string note;
    s = HotPages::Open(options.copies, own >= 0 ? own : int(options.copies.share_pct),
                       store->policy_.get(), &store->tier(0),
                       store->placement_->Headroom(store->tier(0).capacity()),
                       store->meta_dir_ + "/PAGES", store->NamespaceAtOpen().SealedFileSizes(),
                       [raw](const IOStatus& e) {
                         raw->ReportError(StoreError::kCopyState, "hot-page copies' state", e);
                       },
                       &store->hot_pages_, &note);
    if (!s.ok()) return s;
    if (!note.empty()) store->LogInfo("open: " + note);
    if (store->hot_pages_) store->placement_->AttachCopies(&store->hot_pages_->copies());
  }
  if (!options.trace.empty() && !options.read_only) {
    s = store->StartTrace(options.trace);
    if (!s.ok()) return s;
  }
  // Before the statistics log and metrics file: their threads read migrator_
  // (the metrics show the migration engine's counters).
  if (options.migration.enabled && !options.read_only) {
    store->migrator_ = std::make_unique<Migrator>(store.get(), options.migration);
  }
  if (!options.stats_log.empty() && !options.read_only) {
    s = store->StartStatsLog(options.stats_log, options.stats_log_ms,
                             StatsLog::Format::kJsonLines, &store->stats_log_);
    if (!s.ok()) return s;
  }
  if (!options.metrics_file.empty() && !options.read_only) {
    s = store->StartStatsLog(options.metrics_file, options.metrics_ms,
                             StatsLog::Format::kPrometheus, &store->metrics_file_);
    if (!s.ok()) return s;
  }
  if (!options.read_only) {
    store->admin_ = std::make_unique<AdminServer>(store.get());
    RegisterLiveStore(store.get());  // saved if the process exits with it open
  }
  *result = std::move(store);
  return IOStatus::OK();
}

// Checks or writes each tier's marker, so tiers cannot be swapped, dropped or
// borrowed from another store without notice.
IOStatus Store::OpenTiers() {
  IOOptions io;
  for (size_t i = 0; i < options_.tiers.size(); ++i) {
    DeviceParams device;
    // Checked by ValidateOptions in Open: cannot fail here, nothing to lose.
    ParseDeviceParams(options_.tiers[i].device, &device);
    tiers_.push_back(std::make_unique<Tier>(int(i), options_.tiers[i], device));
  }
  meta_dir_ = tiers_[0]->root + "/meta";
  // Only the process that holds meta/LOCK rotates the LOG (info_log.h).
  info_log_ = std::make_unique<InfoLog>(info_log_path(), /*may_rotate=*/!read_only());
  std::string store_id;
  std::vector<std::string> markers(tiers_.size());
  for (size_t i = 0; i < tiers_.size(); ++i) {
    std::string text;
    IOStatus rs = rocksdb::ReadFileToString(base_.get(), tiers_[i]->root + "/TIERFS-TIER", &text);
    if (!rs.ok() && !rs.IsNotFound() && !rs.IsPathNotFound()) {
      // Not "no marker": taken for one, it would have a new marker written.
      return IOStatus::IOError("cannot read the marker of tier " + std::to_string(i) + " (" +
                               tiers_[i]->root + "): " + rs.ToString());
    }
    if (rs.ok()) {
      markers[i] = text;
      std::string id = MarkerField(text, "store");
      if (store_id.empty()) store_id = id;
      std::string created = MarkerField(text, "segment_size");
      if (created != std::to_string(seg_size_) && id == store_id && !created.empty()) {
        return IOStatus::InvalidArgument(
            "the TierFS store at " + tiers_[i]->root + " was created with segment_size " +
            (created == "0" ? std::string("whole") : created) + ", the configuration says " +
            (seg_size_ ? std::to_string(seg_size_) : std::string("whole")));
      }
      if (id != store_id || text != MarkerText(id, int(i), seg_size_)) {
        return IOStatus::InvalidArgument(
            "tier " + std::to_string(i) + " (" + tiers_[i]->root +
            ") belongs to another TierFS store or another position (marker: '" + text +
            "'); tiers must be listed in the order they were created");
      }
    } else if (base_->FileExists(tiers_[i]->data_dir, io, nullptr).ok()) {
      return IOStatus::InvalidArgument("tier " + std::to_string(i) + " (" + tiers_[i]->root +
                                       ") has a data/ directory but no TIERFS-TIER marker");
    }
  }
  // Tier 0 holds the journal: a store whose tier 0 is new must be new everywhere.
  if (markers[0].empty() && !store_id.empty()) {
    return IOStatus::InvalidArgument("tier 0 (" + tiers_[0]->root +
                                     ") has no TIERFS-TIER marker but other tiers do: "
                                     "is the tier list in the right order?");
  }
  if (read_only()) {
    if (markers[0].empty()) {
      return IOStatus::NotFound("no TierFS store at " + tiers_[0]->root);
    }
    return IOStatus::OK();
  }
  if (store_id.empty()) {
    std::random_device rd;
    char buf[20];
    snprintf(buf, sizeof(buf), "%08x%08x", rd(), rd());
    store_id = buf;
  }
  for (size_t i = 0; i < tiers_.size(); ++i) {
    // The marker first, atomically: a tier with data/ and no marker is refused
    // as foreign, so a crash here must never leave that state behind.
    IOStatus s;
    if (markers[i].empty()) {
      const std::string marker = tiers_[i]->root + "/TIERFS-TIER";
      s = rocksdb::WriteStringToFile(base_.get(), MarkerText(store_id, int(i), seg_size_), marker + ".tmp",
                                     true);
      if (s.ok()) s = base_->RenameFile(marker + ".tmp", marker, io, nullptr);
      std::unique_ptr<rocksdb::FSDirectory> root;
      if (s.ok()) s = base_->NewDirectory(tiers_[i]->root, io, &root, nullptr);
      if (s.ok()) s = root->Fsync(io, nullptr);
    }
    // A directory just made is durable only once its parent is synced: without
    // it a power cut could take data/ (and every backing file) away, though
    // every file in it was synced (found by power_loss_test).
    bool made = false;
    if (s.ok()) {
      made = !base_->FileExists(tiers_[i]->data_dir, io, nullptr).ok();
      s = base_->CreateDirIfMissing(tiers_[i]->data_dir, io, nullptr);
    }
    if (s.ok() && made) s = SyncDirectory(base_.get(), tiers_[i]->root);
    if (!s.ok()) {
      return IOStatus::IOError("cannot initialize tier " + std::to_string(i) + " (" +
                               tiers_[i]->root + "): " + s.ToString());
    }
    std::unique_ptr<rocksdb::FSDirectory> dir;
    s = base_->NewDirectory(tiers_[i]->data_dir, io, &dir, nullptr);
    if (!s.ok()) return s;
    data_dirs_.push_back(std::move(dir));
  }
  WatchMetaDevice();
  const bool made_meta = !base_->FileExists(meta_dir_, io, nullptr).ok();
  IOStatus s = base_->CreateDirIfMissing(meta_dir_, io, nullptr);
  if (s.ok() && made_meta) s = SyncDirectory(base_.get(), tiers_[0]->root);  // as data/ above
  if (s.ok()) s = base_->LockFile(meta_dir_ + "/LOCK", io, &meta_lock_, nullptr);
  if (!s.ok()) {
    return IOStatus::IOError("TierFS store at " + tiers_[0]->root +
                             " is in use by another process (or cannot be locked): " +
                             s.ToString());
  }
  return IOStatus::OK();
}

void Store::WatchMetaDevice() {
  // Tiers on tier 0's file system spend the room meta/ needs: tier 0 itself,
  // and tiers sharing its disk. A tier whose device cannot be told is not
  // watched (its ENOSPC still relocates its segments).
  struct stat meta_dev;
  if (stat(tiers_[0]->root.c_str(), &meta_dev) != 0) return;
  uint8_t watched = 0;
  for (size_t i = 0; i < tiers_.size(); ++i) {
    struct stat st;
    if (stat(tiers_[i]->root.c_str(), &st) == 0 && st.st_dev == meta_dev.st_dev) {
      watched = uint8_t(watched | (1u << i));
    }
  }
  // Asked through the base file system (statvfs for the default one), so a
  // test's file system can report a device as full.
  meta_reserve_.Init(watched, [this](int t, uint64_t* free) {
    return base_->GetFreeSpace(tiers_[t]->root, IOOptions(), free, nullptr).ok();
  });
}

IOStatus Store::Recover() {
  Namespace& ns = NamespaceAtOpen();
  IOOptions io;
  uint64_t generation = 0;
  std::vector<JournalRecord> records;
  bool torn = false;
  IOStatus s = Journal::Load(base_.get(), meta_dir_, &generation, &records, &torn);
  if (!s.ok()) {
    return IOStatus::Corruption("TierFS cannot recover the store at " + tiers_[0]->root +
                                ": " + s.ToString());
  }
  if (generation == 0) {
    // No snapshot: a new store, or one killed before its first snapshot
    // committed. Either way no backing file can exist yet; if one does, the
    // snapshot was lost, and opening would treat every file as an orphan.
    for (int t = 0; t < NumTiers(); ++t) {
      std::vector<std::string> children;
      if (base_->GetChildren(tier(t).data_dir, io, &children, nullptr).ok() && !children.empty()) {
        return IOStatus::Corruption("the TierFS store at " + tiers_[0]->root + " has data in " +
                                    tier(t).data_dir + " but no snapshot in " + meta_dir_ +
                                    "; refusing to open it as empty");
      }
    }
  }
  for (const JournalRecord& r : records) {
    rocksdb::Status as = ns.Apply(r);
    if (!as.ok()) return IOStatus::Corruption(as.ToString());
    if ((r.type == RecordType::kSegment || r.type == RecordType::kCopy) && r.tier != kNoTier &&
        r.tier >= tiers_.size()) {
      return IOStatus::InvalidArgument(
          "the TierFS journal places segments on tier " + std::to_string(r.tier) + " but only " +
          std::to_string(tiers_.size()) + " tiers are configured");
    }
  }

  // Which backing files exist; remove those of files that no longer exist.
  const uint64_t now = uint64_t(time(nullptr));
  for (auto& [id, entry] : ns.files()) {
    entry->ctime = now;
    // Nothing is open for writing after a restart.
    entry->sealed = entry->kind == FileKind::kSst || entry->kind == FileKind::kBlob;
  }
  for (int t = 0; t < NumTiers(); ++t) {
    std::vector<std::string> children;
    s = base_->GetChildren(tier(t).data_dir, io, &children, nullptr);
    if (s.IsNotFound() || s.IsPathNotFound()) continue;
    if (!s.ok()) return s;
    for (const std::string& c : children) {
      uint64_t id;
      if (!Tier::ParseDataName(c, &id)) continue;  // not ours
      std::shared_ptr<FileEntry> e = ns.FindId(id);
      if (e) {
        e->data_file_mask.fetch_or(uint8_t(1u << t));
      } else if (!read_only()) {
        // Best effort: an orphan that stays is found again at the next open.
        IOStatus ds = base_->DeleteFile(tier(t).data_dir + "/" + c, io, nullptr);
        if (!ds.ok()) {
          ReportError(StoreError::kSpaceNotFreed,
                      "removing the backing file of file " + std::to_string(id) +
                          ", no longer in the namespace, on tier " + std::to_string(t) +
                          " (allocated until the next open)",
                      ds);
        }
      }
    }
  }

  // Sizes, orphan copies, and the capacity account.
  for (auto& [id, entry] : ns.files()) {
    SegmentTable& segs = entry->segments;
    // A file's size is not journaled: it is where its data ends. Each
    // backing file counts only up to the end of the last segment it may
    // hold: one whose home or recorded copy is its tier, or one with no home
    // whose data it has (a segment whose record a power cut took, adopted
    // below). Data elsewhere is a move or relocation that did not commit; a
    // relocation syncs its copy before the commit, so after a power cut a
    // never-synced file's backing file on the relocation's destination could
    // be longer than all its home's data, and taking the longest backing
    // file for the size made the file read zeros past its home's data
    // (found by power_loss_test).
    uint64_t size = 0;
    std::vector<std::pair<uint64_t, uint64_t>> extents[kMaxTiers];
    for (int t = 0; t < NumTiers(); ++t) {
      if (!(entry->data_file_mask & (1u << t))) continue;
      const std::string path = tier(t).DataPath(id);
      uint64_t sz = 0;
      // A size not read would cut the file short: refuse to open rather
      // than guess.
      s = base_->GetFileSize(path, io, &sz, nullptr);
      if (!s.ok()) return s;
      extents[t] = DataExtents(path);
      if (sz == 0) continue;
      const uint64_t last = SegmentOf(sz - 1);
      uint64_t reach = 0;  // where the segments this tier may hold end
      for (uint64_t seg = std::min(last + 1, segs.size()); seg-- > 0;) {
        if (segs.tier(seg) == t || segs.copy(seg) == t) {
          reach = SegmentLimit(seg);
          break;
        }
      }
      for (const auto& [begin, end] : extents[t]) {
        if (begin >= sz) break;
        for (uint64_t seg = SegmentOf(begin); seg <= SegmentOf(std::min(end, sz) - 1); ++seg) {
          if (segs.tier(seg) == kNoTier) reach = std::max(reach, SegmentLimit(seg));
        }
      }
      size = std::max(size, std::min(sz, reach));
    }
    entry->size = size;
    uint64_t nseg = size == 0 ? 0 : SegmentOf(size - 1) + 1;
    // Data on a tier that is neither its segment's home nor its recorded copy
    // is a half-done move or copy, or a PREFETCH copy (never durable);
    // data of a segment with no home lost its record (power loss) and is
    // adopted. One pass over each backing file's extents, past the size too:
    // a move's synced copy outlives its home's unsynced data when the cut
    // comes before the commit, and lies past the size the home's data gives
    // (an info log moved down; found by power_loss_test).
    for (int t = 0; t < NumTiers(); ++t) {
      if (!(entry->data_file_mask & (1u << t))) continue;
      for (const auto& [begin, end] : extents[t]) {
        for (uint64_t seg = SegmentOf(begin); seg <= SegmentOf(end - 1); ++seg) {
          uint8_t home = segs.tier(seg);
          if (home == kNoTier && SegmentStart(seg) < size) segs.Set(seg, home = uint8_t(t), 0);
          if (home == t || segs.copy(seg) == t || read_only()) continue;
          uint64_t from = std::max(begin, SegmentStart(seg));
          uint64_t to = std::min(end, SegmentLimit(seg));
          // Best effort: data left here is punched again at the next open,
          // and reads never look at a tier that is neither home nor copy.
          PunchGarbage(t, id, from, RoundUp(to) - from,
                       "at recovery: segment " + std::to_string(seg) +
                           "'s data there, neither its home nor its copy");
        }
      }
    }
    for (uint64_t seg = 0; seg < segs.size(); ++seg) {
      uint64_t start = SegmentStart(seg);
      uint64_t len = seg < nseg ? std::min(size, SegmentLimit(seg)) - start : 0;
      uint8_t home = segs.tier(seg);
      if (home == kNoTier) continue;
      segs.SetCharged(seg, RoundUp(len));
      tier(home).ForceCharge(RoundUp(len));
      tier(home).Add(TierTicker::kSegments);
      uint8_t copy = segs.copy(seg);
      if (copy != kNoTier && (copy >= NumTiers() || copy == home || len == 0 ||
                              !(entry->data_file_mask & (1u << copy)))) {
        // A copy record whose data cannot be there: forget it (reads go home).
        segs.SetCopy(seg, copy = kNoTier, false);
      }
      if (copy != kNoTier) {
        tier(copy).ForceCharge(RoundUp(len));
        tier(copy).Add(TierTicker::kCopies);
        entry->copies.fetch_add(1);
      }
      for (uint8_t t : {home, copy}) {
        if (t == kNoTier || !TakeAllowanceAtOpen(entry.get(), t)) continue;
        tier(t).ForceCharge(kBlockSize);
      }
    }
  }
  if (read_only()) return IOStatus::OK();
  // From here on the backing files found are taken as there for good: moves
  // commit segments to them and writes sync through them without creating
  // them, so nothing would sync their directories. But the process that made
  // one may have ended (closed, or killed) before a data-directory sync: a
  // power cut could still take its entry away, and with it data whose commit
  // is durable (found by power_loss_test). One sync of each data directory.
  dirty_data_dirs_ = uint8_t((1u << NumTiers()) - 1);
  s = SyncDataDirs();
  if (!s.ok()) return s;
  s = Journal::Create(base_.get(), meta_dir_, generation + 1, ns.SnapshotRecords(), &journal_,
                      [this](const std::string& what, const IOStatus& cs) {
                        ReportError(StoreError::kCleanup, what, cs);
                      });
  if (!s.ok()) return s;
  if (torn) {
    // Dropped by starting the new generation without it. Nothing is lost
    // that was promised (the record never completed, so no sync covered it),
    // but it is the trace of a crash mid-append, or of damage at the end.
    ReportError(StoreError::kTornJournalTail,
                "recovery dropped an incomplete record at the end of " +
                    Journal::JournalName(meta_dir_, generation) +
                    " (an append cut short; never acknowledged as durable)",
                IOStatus::Corruption("torn journal tail"));
  }
  return IOStatus::OK();
}

}  // namespace tierfs
