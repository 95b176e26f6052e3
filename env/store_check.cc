// The fsck of a store at rest (env/store_check.h): one pass that examines the
// store against its map (Examine), the repairs, and the pass after them.
#include "env/store_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include <rocksdb/file_system.h>

#include "core/config.h"
#include "env/hot_pages.h"
#include "env/info_log.h"
#include "env/journal.h"
#include "env/posix_util.h"
#include "env/store.h"
#include "tierfs/hints.h"

namespace tierfs {

using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Status;

const char* CheckKindName(CheckKind kind) {
  switch (kind) {
    case CheckKind::kJournal: return "journal";
    case CheckKind::kMarker: return "marker";
    case CheckKind::kOrphanFile: return "orphan_file";
    case CheckKind::kForeignFile: return "foreign_file";
    case CheckKind::kStrayData: return "stray_data";
    case CheckKind::kMissingSegment: return "missing_segment";
    case CheckKind::kAccountDrift: return "account_drift";
    case CheckKind::kStaleCopy: return "stale_copy";
    case CheckKind::kStalePageCopies: return "stale_page_copies";
  }
  return "unknown";
}

const char* RepairOutcomeName(RepairOutcome outcome) {
  switch (outcome) {
    case RepairOutcome::kNone: return "none";
    case RepairOutcome::kFixed: return "fixed";
    case RepairOutcome::kFailed: return "failed";
    case RepairOutcome::kRefused: return "refused";
  }
  return "unknown";
}

namespace {

constexpr uint64_t kProgressEvery = 64ull << 20;

std::string Num(uint64_t n) { return std::to_string(n); }

std::string Range(uint64_t from, uint64_t to) { return "[" + Num(from) + ", " + Num(to) + ")"; }

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
}

// <tier0>/meta/LOCK, held from construction until Release() or destruction,
// so that no process opens the store while it is checked.
class StoreLock {
 public:
  explicit StoreLock(std::string path) : path_(std::move(path)) {}
  ~StoreLock() { Release(); }

  Status Acquire() {
    IOStatus s = fs_->LockFile(path_, IOOptions(), &lock_, nullptr);
    if (s.ok()) return Status::OK();
    lock_ = nullptr;
    const pid_t pid = LockHolder(path_);
    const std::string who =
        pid > 0 ? "in process " + std::to_string(pid) : "in this or another process";
    return Status::Busy("the TierFS store is open " + who + " (it holds " + path_ +
                        "); check examines a store at rest: close the database or stop that "
                        "process first (" + s.ToString() + ")");
  }
  void Release() {
    // Nothing to lose: the POSIX file system (fs_) closes the lock's
    // descriptor, and with it the lock, whatever UnlockFile returns.
    if (lock_) fs_->UnlockFile(lock_, IOOptions(), nullptr).PermitUncheckedError();
    lock_ = nullptr;
  }

 private:
  const std::shared_ptr<rocksdb::FileSystem> fs_ = rocksdb::FileSystem::Default();
  const std::string path_;
  rocksdb::FileLock* lock_ = nullptr;
};

using Extents = std::vector<std::pair<uint64_t, uint64_t>>;

// Bytes of [from, to) that no extent covers.
uint64_t Uncovered(const Extents& extents, uint64_t from, uint64_t to) {
  uint64_t covered = 0;
  for (const auto& [b, e] : extents) {
    if (e <= from) continue;
    if (b >= to) break;
    covered += std::min(e, to) - std::max(b, from);
  }
  return to - from - covered;
}

// Compares [offset, offset + len) of two files; *differs_at is the first
// differing offset, or ~0 if equal.
IOStatus CompareRanges(const std::string& a, const std::string& b, uint64_t offset, uint64_t len,
                       uint64_t* differs_at) {
  *differs_at = ~0ull;
  const int fa = open(a.c_str(), O_RDONLY | O_CLOEXEC);
  if (fa < 0) return PosixError("reading " + a, errno);
  const int fb = open(b.c_str(), O_RDONLY | O_CLOEXEC);
  if (fb < 0) {
    const int err = errno;
    close(fa);
    return PosixError("reading " + b, err);
  }
  constexpr size_t kChunk = 1 << 20;
  std::string ba(kChunk, '\0'), bb(kChunk, '\0');
  IOStatus s;
  for (uint64_t done = 0; done < len && s.ok() && *differs_at == ~0ull;) {
    const size_t n = size_t(std::min<uint64_t>(kChunk, len - done));
    const ssize_t ra = pread(fa, &ba[0], n, off_t(offset + done));
    const ssize_t rb = pread(fb, &bb[0], n, off_t(offset + done));
    if (ra < 0 || rb < 0) {
      s = PosixError("reading " + (ra < 0 ? a : b) + " at " + Num(offset + done), errno);
      break;
    }
    const size_t m = size_t(std::min(ra, rb));
    for (size_t i = 0; i < m; ++i) {
      if (ba[i] != bb[i]) {
        *differs_at = offset + done + i;
        break;
      }
    }
    if (*differs_at == ~0ull && size_t(ra) != size_t(rb)) *differs_at = offset + done + m;
    if (m == 0) break;  // both end here: the rest reads as zeros in both
    done += m;
  }
  close(fa);
  close(fb);
  return s;
}

// One pass over the store. Status not OK only if it cannot run.
class Examiner {
 public:
  Examiner(const Options& options, const CheckOptions& check, CheckReport* report)
      : options_(options), check_(check), r_(*report) {}

  Status Run();

 private:
  CheckFinding& Add(CheckKind kind, CheckAction action, const std::string& detail) {
    r_.findings.emplace_back();
    CheckFinding& f = r_.findings.back();
    f.kind = kind;
    f.action = action;
    f.detail = detail;
    return f;
  }
  void Progress(uint64_t bytes) {
    r_.bytes_checked += bytes;
    progress_.bytes_done += bytes;
    if (check_.progress && progress_.bytes_done >= next_progress_) {
      next_progress_ = progress_.bytes_done + kProgressEvery;
      check_.progress(progress_);
    }
  }
  Status ExamineDataDirs();
  void ExamineFile(const std::string& name, FileEntry& e);
  void ExamineTotals();
  void ExamineMarkersAndPages();

  const Options& options_;
  const CheckOptions& check_;
  CheckReport& r_;
  std::shared_ptr<rocksdb::FileSystem> fs_ = rocksdb::FileSystem::Default();
  std::shared_ptr<Store> store_;
  // Files of the map by id, each with one of its names.
  std::map<uint64_t, std::pair<std::string, std::shared_ptr<FileEntry>>> files_;
  // Per tier: the ids whose backing file is there.
  std::vector<std::set<uint64_t>> backing_;
  // Per tier: what the map charges, summed file by file.
  std::vector<uint64_t> expected_;
  CheckProgress progress_;
  uint64_t next_progress_ = 0;
};

Status Examiner::Run() {
  const std::string root0 = options_.tiers[0].path;
  const std::string meta = root0 + "/meta";
  r_.store = root0;
  uint64_t generation = 0;
  std::vector<JournalRecord> records;
  IOStatus s = Journal::Load(fs_.get(), meta, &generation, &records, &r_.torn_tail);
  if (!s.ok()) {
    CheckFinding& f = Add(CheckKind::kJournal, CheckAction::kRefuse,
                          "the journal or snapshot cannot be read: " + s.ToString());
    f.path = meta;
    f.note = "the store does not open: the segment map itself is damaged, and repair does not "
             "rebuild it";
    return Status::OK();
  }
  r_.generation = generation;
  r_.records = records.size();
  records.clear();

  Options o = options_;
  o.read_only = true;
  o.migration.enabled = false;
  o.trace.clear();
  o.stats_log.clear();
  o.metrics_file.clear();
  s = Store::Open(o, &store_);
  if (!s.ok()) {
    // OpenTiers refuses markers (and tier lists) as InvalidArgument;
    // recovery refuses a journal it cannot replay as Corruption.
    const bool marker = s.IsInvalidArgument();
    CheckFinding& f = Add(marker ? CheckKind::kMarker : CheckKind::kJournal, CheckAction::kRefuse,
                          "the store's open refuses it: " + s.ToString());
    f.path = marker ? root0 : meta;
    f.note = marker ? "the store does not open: fix the tier list in the configuration (order, "
                      "paths, segment_size) to match the markers"
                    : "the store does not open, and repair does not rebuild its map";
    return Status::OK();
  }
  const int tiers = store_->NumTiers();
  backing_.assign(tiers, {});
  expected_.assign(tiers, 0);
  for (int t = 0; t < tiers; ++t) {
    CheckTierSummary sum;
    sum.index = t;
    sum.root = store_->tier(t).root;
    sum.capacity = store_->Capacity(t);
    sum.charged = store_->Used(t);
    r_.tiers.push_back(sum);
  }
  std::vector<FileInfo> infos;
  store_->ListFiles("/", &infos);
  for (const FileInfo& info : infos) {
    std::shared_ptr<FileEntry> e = store_->Find(info.name);
    if (e && !files_.count(e->id)) files_[e->id] = {info.name, e};
  }
  r_.files = files_.size();
  for (const auto& [id, named] : files_) progress_.bytes_total += named.second->size.load();

  Status st = ExamineDataDirs();
  if (!st.ok()) return st;
  for (auto& [id, named] : files_) ExamineFile(named.first, *named.second);
  ExamineTotals();
  ExamineMarkersAndPages();
  if (check_.progress) check_.progress(progress_);
  store_.reset();
  return Status::OK();
}

// Backing files: each must belong to a file of the map.
Status Examiner::ExamineDataDirs() {
  for (int t = 0; t < store_->NumTiers(); ++t) {
    const Tier& tier = store_->tier(t);
    std::vector<std::string> children;
    IOStatus s = fs_->GetChildren(tier.data_dir, IOOptions(), &children, nullptr);
    if (s.IsNotFound() || s.IsPathNotFound()) continue;
    if (!s.ok()) return Status::IOError("listing " + tier.data_dir + ": " + s.ToString());
    std::sort(children.begin(), children.end());
    for (const std::string& c : children) {
      if (c == "." || c == "..") continue;
      const std::string path = tier.data_dir + "/" + c;
      uint64_t id;
      if (!Tier::ParseDataName(c, &id)) {
        CheckFinding& f = Add(CheckKind::kForeignFile, CheckAction::kLeaveAlone,
                              "not a name TierFS writes in data/ (the store ignores it)");
        f.tier = t;
        f.path = path;
        f.bytes = AllocatedBytes(path);
        f.note = "left alone: not TierFS's; remove it by hand if it is not yours";
        continue;
      }
      if (!files_.count(id)) {
        CheckFinding& f = Add(CheckKind::kOrphanFile, CheckAction::kRepair,
                              "backing file of file id " + Num(id) +
                                  ", which the map does not name");
        f.tier = t;
        f.file_id = id;
        f.path = path;
        f.bytes = AllocatedBytes(path);
        continue;
      }
      backing_[t].insert(id);
      r_.tiers[t].backing_files++;
      r_.tiers[t].allocated += AllocatedBytes(path);
    }
  }
  return Status::OK();
}

// One file of the map: its segments against the data on each tier.
void Examiner::ExamineFile(const std::string& name, FileEntry& e) {
  const int tiers = store_->NumTiers();
  const SegmentTable& segs = e.segments;
  const uint64_t size = e.size.load();
  std::vector<Extents> extents(tiers);
  std::vector<std::string> paths(tiers);
  for (int t = 0; t < tiers; ++t) {
    paths[t] = store_->tier(t).DataPath(e.id);
    if (backing_[t].count(e.id)) extents[t] = DataExtents(paths[t]);
  }
  auto segment_finding = [&](CheckKind kind, CheckAction action, int tier, uint64_t seg,
                             const std::string& detail) -> CheckFinding& {
    CheckFinding& f = Add(kind, action, detail);
    f.tier = tier;
    f.file = name;
    f.file_id = e.id;
    f.segment = int64_t(seg);
    f.path = tier >= 0 ? paths[tier] : "";
    return f;
  };
  std::vector<uint64_t> charge(tiers, 0);
  std::vector<bool> charged(tiers, false);
  for (uint64_t seg = 0; seg < segs.size(); ++seg) {
    const uint8_t home = segs.tier(seg);
    if (home == kNoTier) continue;
    const uint8_t copy = segs.copy(seg);
    const uint64_t start = store_->SegmentStart(seg);
    const uint64_t end = store_->ContentEnd(e, seg);
    const uint64_t len = end - start;
    r_.segments++;
    r_.tiers[home].homes++;
    charge[home] += RoundUp(len);
    charged[home] = true;
    if (copy != kNoTier) {
      r_.tiers[copy].copies++;
      charge[copy] += RoundUp(len);
      charged[copy] = true;
    }
    if (len == 0) continue;
    const uint64_t missing = Uncovered(extents[home], start, end);
    if (missing > 0) {
      std::string elsewhere;
      for (int t = 0; t < tiers; ++t) {
        if (t != home && Uncovered(extents[t], start, end) < len) {
          elsewhere += (elsewhere.empty() ? "" : ", ") + Num(t);
        }
      }
      std::string detail =
          missing == len ? "its home on tier " + Num(home) + " holds none of its " + Num(len) +
                               " bytes " + Range(start, end)
                         : Num(missing) + " of its bytes " + Range(start, end) +
                               " are holes on its home, tier " + Num(home);
      if (!elsewhere.empty()) detail += "; tier(s) " + elsewhere + " hold data in its range";
      CheckFinding& f =
          segment_finding(CheckKind::kMissingSegment, CheckAction::kRefuse, home, seg, detail);
      f.bytes = missing;
      f.note = "data lost: the segment's bytes are gone from its home; restore the database "
               "from a backup, or delete " + name + " through RocksDB (a table file: RocksDB's "
               "RepairDB), then run check again";
    }
    if (copy != kNoTier) {
      const uint64_t holes = Uncovered(extents[copy], start, end);
      uint64_t differs = ~0ull;
      std::string detail;
      if (holes == len) {
        detail = "its durable copy on tier " + Num(copy) + " holds no data";
      } else if (holes > 0) {
        detail = "its durable copy on tier " + Num(copy) + " has " + Num(holes) +
                 " bytes of holes in " + Range(start, end);
      } else if (missing == 0) {
        IOStatus s = CompareRanges(paths[home], paths[copy], start, len, &differs);
        if (!s.ok()) {
          detail = "its durable copy on tier " + Num(copy) + " cannot be compared: " + s.ToString();
        } else if (differs != ~0ull) {
          detail = "its durable copy on tier " + Num(copy) + " differs from its home (tier " +
                   Num(home) + ") at byte " + Num(differs);
        }
        r_.bytes_checked += len;  // read twice; progress counts segment bytes once
      }
      if (!detail.empty()) {
        CheckFinding& f = segment_finding(CheckKind::kStaleCopy, CheckAction::kRepair, copy, seg,
                                          detail);
        f.bytes = len;
      }
    }
    Progress(len);
  }
  // Data where the map puts neither home nor copy, segment by segment, as
  // recovery would punch it (store_recovery.cc).
  std::vector<uint64_t> stray(tiers, 0);
  for (int t = 0; t < tiers; ++t) {
    std::map<uint64_t, uint64_t> by_segment;  // segment -> stray bytes
    for (const auto& [begin, end] : extents[t]) {
      const uint64_t last = std::min(end, size);
      for (uint64_t seg = store_->SegmentOf(begin);
           begin < last && seg <= store_->SegmentOf(last - 1); ++seg) {
        if (segs.tier(seg) == t || segs.copy(seg) == t) continue;
        const uint64_t from = std::max(begin, store_->SegmentStart(seg));
        const uint64_t to = std::min(last, store_->SegmentLimit(seg));
        by_segment[seg] += to - from;
      }
    }
    for (const auto& [seg, bytes] : by_segment) {
      const uint8_t home = segs.tier(seg), copy = segs.copy(seg);
      CheckFinding& f = segment_finding(
          CheckKind::kStrayData, CheckAction::kRepair, t, seg,
          Num(bytes) + " bytes on tier " + Num(t) + ", which is neither its home (" +
              (home == kNoTier ? std::string("none") : Num(home)) + ") nor its copy (" +
              (copy == kNoTier ? std::string("none") : Num(copy)) +
              "): a half-done move or an abandoned copy");
      f.bytes = bytes;
      f.offset = store_->SegmentStart(seg);
      f.length = std::min(store_->SegmentLimit(seg), RoundUp(size)) - f.offset;
      stray[t] += RoundUp(bytes);
    }
  }
  // The blocks of each backing file against its charge.
  for (int t = 0; t < tiers; ++t) {
    if (charged[t]) charge[t] += kBlockSize;  // the file's allowance on the tier
    expected_[t] += charge[t];
    if (!backing_[t].count(e.id)) continue;
    const uint64_t allocated = AllocatedBytes(paths[t]);
    // The allowance covers the file system's own blocks for the file (its
    // extent tree); a file charged nothing may still have them.
    const uint64_t allowed = charge[t] + stray[t] + (charged[t] ? 0 : kBlockSize);
    if (allocated <= allowed) continue;
    uint64_t visible = 0;
    for (const auto& [b, en] : extents[t]) visible += en - b;
    const uint64_t past_end = allocated > visible + kBlockSize ? allocated - visible : 0;
    CheckFinding& f = Add(CheckKind::kAccountDrift,
                          past_end ? CheckAction::kRepair : CheckAction::kLeaveAlone,
                          "the device holds " + Num(allocated) + " bytes for it on tier " +
                              Num(t) + ", the map charges " + Num(charge[t]) +
                              (past_end ? " (" + Num(past_end) +
                                              " bytes allocated past its end: preallocation)"
                                        : ""));
    f.tier = t;
    f.file = name;
    f.file_id = e.id;
    f.path = paths[t];
    f.bytes = allocated - allowed;
    if (!past_end) f.note = "left alone: no block past the file's end to free";
  }
}

// Per tier: the account recovery built against the map's charges, and both
// against the capacity.
void Examiner::ExamineTotals() {
  for (int t = 0; t < store_->NumTiers(); ++t) {
    CheckTierSummary& sum = r_.tiers[t];
    if (sum.charged != expected_[t]) {
      CheckFinding& f = Add(CheckKind::kAccountDrift, CheckAction::kLeaveAlone,
                            "recovery charges tier " + Num(t) + " " + Num(sum.charged) +
                                " bytes, the map accounts for " + Num(expected_[t]));
      f.tier = t;
      f.path = sum.root;
      f.bytes = std::max(sum.charged, expected_[t]) - std::min(sum.charged, expected_[t]);
      f.note = "left alone: the account is rebuilt from the map at every open (a TierFS bug: "
               "please report it)";
    }
    if (expected_[t] > sum.capacity) {
      CheckFinding& f = Add(CheckKind::kAccountDrift, CheckAction::kLeaveAlone,
                            "the map charges tier " + Num(t) + " " + Num(expected_[t]) +
                                " bytes, more than its capacity of " + Num(sum.capacity));
      f.tier = t;
      f.path = sum.root;
      f.bytes = expected_[t] - sum.capacity;
      f.note = "left alone: raise the tier's capacity in the configuration, or move data off "
               "it (`tierfs move`)";
    }
  }
}

void Examiner::ExamineMarkersAndPages() {
  for (int t = 0; t < store_->NumTiers(); ++t) {
    const std::string marker = store_->tier(t).root + "/TIERFS-TIER";
    if (Exists(marker)) continue;  // present ones were checked by the open
    CheckFinding& f = Add(CheckKind::kMarker, CheckAction::kRepair,
                          "tier " + Num(t) + " has no TIERFS-TIER marker (a tier added to the "
                          "configuration; the store's next open writes it)");
    f.tier = t;
    f.path = marker;
  }
  // Copies at rest are kept only with their saved state (env/hot_pages.h),
  // which the next open validates and takes back.
  const std::string pages = store_->meta_dir() + "/PAGES";
  const uint64_t bytes = AllocatedBytes(pages);
  std::string state, why;
  if (bytes > 0 && !HotPages::ReadSavedState(pages + ".state", &state, &why)) {
    CheckFinding& f = Add(CheckKind::kStalePageCopies, CheckAction::kRepair,
                          "the hot-page copy file holds " + Num(bytes) +
                              " bytes of copies, which no saved state names (" +
                              (why.empty() ? "there is none: its last process ended without "
                                             "saving them, killed after a copy changed"
                                           : pages + ".state: " + why) +
                              ")");
    f.tier = 0;
    f.path = pages;
    f.bytes = bytes;
  }
}

bool SameFinding(const CheckFinding& a, const CheckFinding& b) {
  return a.kind == b.kind && a.tier == b.tier && a.file_id == b.file_id &&
         a.segment == b.segment && a.path == b.path;
}

// Options for the repair's own open of the store: no background work.
Options RepairOptions(const Options& options) {
  Options o = options;
  o.read_only = false;
  o.migration.enabled = false;
  o.trace.clear();
  o.stats_log.clear();
  o.metrics_file.clear();
  return o;
}

// The repairs that need the store open: stale copies dropped through the
// store's own drop-copy (journaled), missing markers written by its open.
void RepairThroughStore(const Options& options, CheckReport* r, InfoLog* log) {
  std::vector<CheckFinding*> todo;
  for (CheckFinding& f : r->findings) {
    if (f.action == CheckAction::kRepair &&
        (f.kind == CheckKind::kStaleCopy || f.kind == CheckKind::kMarker)) {
      todo.push_back(&f);
    }
  }
  if (todo.empty()) return;
  std::shared_ptr<rocksdb::FileSystem> fs;
  Status s = NewTierFileSystem(RepairOptions(options), &fs);
  for (CheckFinding* f : todo) {
    if (!s.ok()) {
      f->outcome = RepairOutcome::kFailed;
      f->note = "the store did not open for repair: " + s.ToString();
      continue;
    }
    if (f->kind == CheckKind::kMarker) {
      f->note = "written by the store's open";
    } else {
      Status ds = ApplyDataOp(fs.get(), DataOp::kDropCopy, f->file, 0, uint64_t(f->segment),
                              uint64_t(f->segment), /*wait=*/true);
      if (ds.ok()) {
        f->note = "dropped the copy on tier " + Num(f->tier) + " (journaled, then punched)";
      } else {
        f->outcome = RepairOutcome::kFailed;
        f->note = "dropping the copy failed: " + ds.ToString();
      }
    }
    log->Log("tierfs check --repair: %s %s segment %lld: %s", CheckKindName(f->kind),
             f->file.c_str(), (long long)f->segment, f->note.c_str());
  }
  if (fs) {
    Status cs = Close(fs.get());
    if (!cs.ok()) log->Log("tierfs check --repair: closing the store: %s", cs.ToString().c_str());
  }
}

// The repairs made on the files directly, under the check's lock.
void RepairDirectly(CheckFinding* f, InfoLog* log) {
  IOStatus s;
  switch (f->kind) {
    case CheckKind::kOrphanFile:
      s = rocksdb::FileSystem::Default()->DeleteFile(f->path, IOOptions(), nullptr);
      f->note = "deleted " + f->path + " (" + Num(f->bytes) + " bytes)";
      break;
    case CheckKind::kStrayData:
      // The segment's whole range on a tier that holds neither its home nor
      // its copy, as recovery punches it.
      s = PunchHole(f->path, f->offset, f->length);
      f->note = "punched " + Range(f->offset, f->offset + f->length) + " of " + f->path;
      break;
    case CheckKind::kAccountDrift:
      s = TruncatePath(f->path, FileSize(f->path));
      f->note = "freed the blocks past the end of " + f->path;
      break;
    case CheckKind::kStalePageCopies:
      s = RemoveFileDurably(f->path + ".state");  // unreadable, or none
      if (s.ok()) s = TruncatePath(f->path, 0);
      f->note = "emptied " + f->path + " (the store's next open empties it too)";
      break;
    default:
      return;
  }
  if (!s.ok()) {
    f->outcome = RepairOutcome::kFailed;
    f->note = "repair failed: " + s.ToString();
  }
  log->Log("tierfs check --repair: %s %s: %s", CheckKindName(f->kind), f->path.c_str(),
           f->note.c_str());
}

}  // namespace

Status CheckStore(const Options& options, const CheckOptions& check, CheckReport* report) {
  *report = CheckReport();
  Status s = ValidateOptions(options);
  if (!s.ok()) return s;
  const std::string root0 = options.tiers[0].path;
  const std::string meta = root0 + "/meta";
  if (!Exists(meta) && !Exists(root0 + "/TIERFS-TIER")) {
    return Status::NotFound("no TierFS store at " + root0 + " (neither meta/ nor TIERFS-TIER)");
  }
  StoreLock lock(meta + "/LOCK");
  s = lock.Acquire();
  if (!s.ok()) return s;
  s = Examiner(options, check, report).Run();
  if (!s.ok() || !check.repair || report->clean()) return s;

  CheckReport& r = *report;
  const bool blocked = std::any_of(r.findings.begin(), r.findings.end(), [](const CheckFinding& f) {
    return f.action == CheckAction::kRefuse;
  });
  bool any = false;
  for (CheckFinding& f : r.findings) {
    if (f.action == CheckAction::kRefuse) {
      f.outcome = RepairOutcome::kRefused;
    } else if (f.action == CheckAction::kRepair && blocked) {
      f.outcome = RepairOutcome::kRefused;
      f.note = "the store has damage repair cannot fix without losing data, and repair changes "
               "nothing until that is resolved (its own recovery would punch data that may be "
               "the only trace of what is lost)";
    } else if (f.action == CheckAction::kRepair) {
      any = true;
    }
  }
  if (blocked || !any) return Status::OK();

  InfoLog log(meta + "/LOG");
  log.Log("tierfs check --repair: %zu findings, repairing", r.findings.size());
  for (CheckFinding& f : r.findings) {
    if (f.action == CheckAction::kRepair) RepairDirectly(&f, &log);
  }
  lock.Release();
  RepairThroughStore(options, &r, &log);
  s = lock.Acquire();
  if (!s.ok()) return s;
  r.repaired = true;
  CheckReport after;
  s = Examiner(options, CheckOptions(), &after).Run();
  if (!s.ok()) return s;
  r.remaining = after.findings;
  for (CheckFinding& f : r.findings) {
    if (f.action != CheckAction::kRepair || f.outcome == RepairOutcome::kFailed) continue;
    const bool still = std::any_of(after.findings.begin(), after.findings.end(),
                                   [&](const CheckFinding& a) { return SameFinding(f, a); });
    f.outcome = still ? RepairOutcome::kFailed : RepairOutcome::kFixed;
    if (still) f.note += "; the check after repair still finds it";
  }
  log.Log("tierfs check --repair: done, %zu findings remain", after.findings.size());
  return Status::OK();
}

}  // namespace tierfs
