#include "agents/eviction_gate.h"

#include <algorithm>
#include <cmath>

namespace tierfs {

namespace {

// The victims' rate is counted with this weight per label decayed away, and
// starts from the placements' own rate with this many labels' weight.
constexpr double kVictimDecay = 1.0 / 512;
constexpr double kVictimPrior = 16;

double Sigmoid(double z) { return 1 / (1 + std::exp(-std::clamp(z, -30.0, 30.0))); }

// Used within `horizon` requests of `now`, as far as its statistics show.
bool UsedWithin(const SegmentInfo& s, uint64_t now, uint64_t horizon) {
  return s.stats.last_access > 0 && now - std::min(now, s.stats.last_access) <= horizon;
}

}  // namespace

EvictionGate::EvictionGate(const Options& options) : options_(options) {}

EvictionGate::Neighbours EvictionGate::Look(const PlacementRequest& request,
                                            const StorageView& view) const {
  Neighbours n;
  SegmentInfo info;
  if (request.segment > 0 && view.Lookup({request.file_id, request.segment - 1}, &info)) {
    n.before_recent = UsedWithin(info, request.seq, options_.horizon);
    n.before_reads = info.stats.user_reads;
  }
  if (view.Lookup({request.file_id, request.segment + 1}, &info)) {
    n.after_recent = UsedWithin(info, request.seq, options_.horizon);
  }
  return n;
}

EvictionGate::Features EvictionGate::Describe(const PlacementRequest& request,
                                              const Neighbours& n) {
  const uint64_t now = request.seq;
  const bool write = request.write_size > 0;
  const bool asked = stats_.questions > 0;
  const bool sequential = asked && last_.file_id == request.file_id &&
                          last_.segment + 1 == request.segment;
  const uint64_t size = write ? request.write_size : request.bytes;
  const uint64_t gap = asked ? now - std::min(now, last_seq_) : options_.horizon;
  Features x{};
  x[0] = 1;
  x[1] = write;
  x[2] = sequential;
  x[3] = write && sequential;
  x[4] = n.before_recent;
  x[5] = float(std::log2(1.0 + n.before_reads) / 16);
  x[6] = n.after_recent;
  x[7] = float(std::log2(1.0 + double(gap)) / 32);
  x[8] = float(std::log2(1.0 + double(size)) / 32);
  x[9] = request.kind == FileKind::kSst;
  x[10] = request.kind == FileKind::kWal;
  x[11] = request.kind == FileKind::kVolume;
  x[12] = request.kind == FileKind::kSst && request.hints.level >= 0
              ? float(std::min(request.hints.level, 7)) / 7
              : 0;
  x[13] = write && n.before_recent;
  return x;
}

double EvictionGate::PredictLocked(const Features& x) const {
  double z = 0;
  for (int i = 0; i < kFeatures; ++i) z += w_[size_t(i)] * x[size_t(i)];
  return Sigmoid(z);
}

bool EvictionGate::warm() const {
  MutexLock lock(&mu_);
  return stats_.labels >= options_.warmup;
}

EvictionGate::Stats EvictionGate::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

void EvictionGate::Label(size_t pos, bool used) {
  Sample* s = &samples_[pos];
  s->labelled = true;
  filter_.Remove(s->ref);
  auto it = index_.find(s->ref);
  if (it != index_.end() && it->second == first_ + pos) index_.erase(it);
  if (s->victim) {
    stats_.victims++;
    victim_used_ = victim_used_ * (1 - kVictimDecay) + (used ? 1 : 0);
    victim_n_ = victim_n_ * (1 - kVictimDecay) + 1;
    return;
  }
  const double p = PredictLocked(s->x);
  const double eps = 1e-6;
  loss_sum_ += used ? -std::log(std::max(p, eps)) : -std::log(std::max(1 - p, eps));
  if (++loss_n_ == 1024) {
    stats_.loss = loss_sum_ / double(loss_n_);
    loss_sum_ = 0;
    loss_n_ = 0;
  }
  const double g = (used ? 1.0 : 0.0) - p;
  for (int i = 0; i < kFeatures; ++i) w_[size_t(i)] += options_.learning_rate * g * s->x[size_t(i)];
  stats_.labels++;
  if (used) stats_.positives++;
}

void EvictionGate::Expire(uint64_t now) {
  while (!samples_.empty()) {
    Sample& s = samples_.front();
    if (!s.labelled) {
      if (now - std::min(now, s.placed) <= options_.horizon &&
          samples_.size() <= options_.pending) {
        break;
      }
      Label(0, false);
    }
    samples_.pop_front();
    ++first_;
  }
}

void EvictionGate::Add(const SegmentRef& ref, uint64_t now, bool victim, const Features& x) {
  Sample s;
  s.ref = ref;
  s.placed = now;
  s.victim = victim;
  s.x = x;
  samples_.push_back(s);
  filter_.Add(ref);
  index_[ref] = first_ + samples_.size() - 1;
  if (samples_.size() > options_.pending) Expire(now);  // the oldest go unused
}

bool EvictionGate::ShouldEvict(const PlacementRequest& request, const StorageView& view) {
  // The view's lookups take the store's locks: not under mu_, which
  // OnRequest takes on the I/O path.
  const Neighbours n = Look(request, view);
  MutexLock lock(&mu_);
  Expire(request.seq);  // samples past the horizon unused: labelled so first
  const Features x = Describe(request, n);
  last_ = {request.file_id, request.segment};
  last_seq_ = request.seq;
  // The placing request itself is no later use: the sample waits for the next.
  Add(last_, request.seq, false, x);
  stats_.questions++;
  if (stats_.labels < options_.warmup) return false;
  const double base = stats_.labels > 0 ? double(stats_.positives) / double(stats_.labels) : 0;
  const double victims = (victim_used_ + kVictimPrior * base) / (victim_n_ + kVictimPrior);
  stats_.victim_rate = victims;
  const bool evict = PredictLocked(x) > victims + options_.margin;
  if (evict) stats_.evictions++;
  return evict;
}

void EvictionGate::Evict(int tier, uint64_t bytes, const StorageView& view,
                         std::vector<Move>* moves) {
  const size_t before = moves->size();
  lru_.Evict(tier, bytes, view, moves);
  MutexLock lock(&mu_);
  const uint64_t now = view.Now();
  Expire(now);
  for (size_t i = before; i < moves->size(); ++i) {
    if ((*moves)[i].op == Move::kMigrate) Add((*moves)[i].ref, now, true, Features{});
  }
}

void EvictionGate::OnRequest(const Request& request) {
  // A use is what a client waits for: a user read, or a write to the WAL or
  // a volume. A table or blob file is written by flush and compaction in the
  // background, each segment by a run of appends after the one placing it.
  if (request.type == IoType::kBackgroundRead) return;
  if (request.type == IoType::kWrite &&
      (request.kind == FileKind::kSst || request.kind == FileKind::kBlob)) {
    return;
  }
  // Most requests are of segments nothing waits on: no lock for them.
  const SegmentRef ref{request.file_id, request.segment};
  if (!filter_.MayHold(ref)) return;
  MutexLock lock(&mu_);
  auto it = index_.find(ref);
  if (it == index_.end() || it->second < first_) return;
  const size_t pos = size_t(it->second - first_);
  const Sample& s = samples_[pos];
  // The placing write's own pieces come with its sequence number.
  if (!s.labelled && request.seq > s.placed) {
    Label(pos, request.seq - s.placed <= options_.horizon);
  }
}

}  // namespace tierfs
