#include "agents/reuse_predictor.h"

#include <algorithm>
#include <cmath>

#include "util/splitmix64.h"

namespace tierfs {

namespace {

double Log2p(double x) { return std::log2(1 + x); }

}  // namespace

ReusePredictor::ReusePredictor(const Options& options) : options_(options) {
  MutexLock lock(&mu_);
  history_.assign(1 << 12, History());
}

void ReusePredictor::SetCapacity(uint64_t objects) {
  MutexLock lock(&mu_);
  const uint64_t horizon = std::max<uint64_t>(64, uint64_t(options_.horizon * double(objects)));
  uint64_t size = 1024;
  while (size < 2 * horizon && size < (1u << 20)) size <<= 1;
  if (horizon == horizon_ && size == history_.size()) return;
  horizon_ = horizon;
  history_.assign(size, History());
}

uint64_t ReusePredictor::KeyOf(const Policy::CopyCandidate& page) {
  return SplitMix64Mix((page.file_id + 1) * 0x9e3779b97f4a7c15ull ^ page.page) | 1;
}

ReusePredictor::History* ReusePredictor::Find(uint64_t key) {
  return &history_[key & (history_.size() - 1)];
}

void ReusePredictor::NoteAccess(const Policy::CopyCandidate& page) {
  MutexLock lock(&mu_);
  ++now_;
  stats_.accesses++;
  const uint64_t key = KeyOf(page);
  file_born_.emplace(page.file_id, now_);
  History* h = Find(key);
  if (h->key == key) {
    h->gap = uint32_t(now_) - h->last;
  } else {
    h->key = key;
    h->gap = 0;
  }
  h->last = uint32_t(now_);
  auto it = pending_by_key_.find(key);
  if (it != pending_by_key_.end()) {
    // The sample's key is read again within the horizon (expired ones are
    // gone): a positive label. Samples are in time order; its entry is
    // marked used.
    auto s = std::lower_bound(pending_.begin(), pending_.end(), it->second,
                              [](const Sample& a, uint64_t t) { return a.time < t; });
    for (; s != pending_.end() && s->time == it->second; ++s) {
      if (s->key != key) continue;
      Train(s->x, true);
      s->key = 0;
      break;
    }
    pending_by_key_.erase(it);
  }
  Expire();
  // A file whose pages are no longer read is forgotten after a while (swept
  // once a horizon).
  if (now_ % horizon_ == 0 && file_born_.size() > 4096) {
    for (auto f = file_born_.begin(); f != file_born_.end();) {
      f = now_ - f->second > 64 * horizon_ ? file_born_.erase(f) : std::next(f);
    }
  }
}

void ReusePredictor::Expire() {
  while (!pending_.empty() && pending_.front().time + horizon_ < now_) {
    const Sample& s = pending_.front();
    if (s.key != 0) {
      Train(s.x, false);
      pending_by_key_.erase(s.key);
    }
    pending_.pop_front();
  }
}

ReusePredictor::Features ReusePredictor::Describe(const Policy::CopyCandidate& page) {
  Features x{};
  const uint64_t key = KeyOf(page);
  const double scale = Log2p(double(horizon_));
  x[0] = 1;
  x[1] = float(Log2p(page.frequency) / 4);
  const History* h = Find(key);
  double elapsed_norm = 2;
  if (h->key == key) {
    const uint32_t elapsed = uint32_t(now_) - h->last;
    elapsed_norm = std::min(2.0, Log2p(elapsed) / scale);
    x[2] = 1;
    x[3] = float(elapsed_norm);
    x[4] = elapsed == 0 ? 1 : 0;  // asked at its own access (a miss)
    if (h->gap != 0) {
      x[5] = 1;
      x[6] = float(std::min(2.0, Log2p(h->gap) / scale));
    }
  }
  x[7] = float(x[1] * (1 - elapsed_norm / 2));
  switch (page.kind) {
    case FileKind::kSst: x[8] = 1; break;
    case FileKind::kBlob: x[9] = 1; break;
    default: x[10] = 1; break;
  }
  x[11 + std::clamp(page.level + 1, 0, 6)] = 1;  // 11..17: unknown, L0 .. L5+
  auto born = file_born_.find(page.file_id);
  if (born != file_born_.end()) {
    x[18] = float(std::min(3.0, Log2p(double(now_ - born->second)) / scale) / 3);
  }
  x[19] = float(Log2p(double(page.page)) / 24);
  return x;
}

double ReusePredictor::Predict(const Features& x) const {
  double z = 0;
  for (int i = 0; i < kFeatures; ++i) z += w_[i] * x[i];
  return 1 / (1 + std::exp(-std::clamp(z, -30.0, 30.0)));
}

void ReusePredictor::Train(const Features& x, bool reused) {
  const double p = Predict(x), y = reused ? 1 : 0;
  loss_sum_ -= reused ? std::log(std::max(p, 1e-9)) : std::log(std::max(1 - p, 1e-9));
  if (++loss_n_ == 1024) {
    stats_.loss = loss_sum_ / double(loss_n_);
    loss_sum_ = 0;
    loss_n_ = 0;
  }
  stats_.labels++;
  if (reused) stats_.positives++;
  const double step = options_.learning_rate * (y - p);
  for (int i = 0; i < kFeatures; ++i) w_[i] += step * x[i];
}

double ReusePredictor::ValueLocked(const Policy::CopyCandidate& page) {
  // Sampled from the first question on, so that the model learns while
  // TinyLFU's order decides.
  const Features x = Describe(page);
  if (++questions_ % options_.sample == 0) {
    const uint64_t key = KeyOf(page);
    if (pending_by_key_.emplace(key, now_).second) pending_.push_back({key, now_, x});
  }
  if (stats_.labels < options_.warmup) return std::min(1.0, page.frequency / 16.0);
  return Predict(x);
}

double ReusePredictor::Value(const Policy::CopyCandidate& page) {
  MutexLock lock(&mu_);
  return ValueLocked(page);
}

bool ReusePredictor::Admit(const Policy::CopyCandidate& page, const Policy::CopyCandidate* victim) {
  MutexLock lock(&mu_);
  const double p = ValueLocked(page);
  if (stats_.labels < options_.warmup) {
    return page.frequency >= 2 && (!victim || page.frequency > victim->frequency);
  }
  if (!victim) return p >= options_.floor;
  return p > ValueLocked(*victim);
}

bool ReusePredictor::warm() const {
  MutexLock lock(&mu_);
  return stats_.labels >= options_.warmup;
}

ReusePredictor::Stats ReusePredictor::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

uint64_t ReusePredictor::MemoryBytes() const {
  MutexLock lock(&mu_);
  return history_.size() * sizeof(History) + pending_.size() * sizeof(Sample) +
         pending_by_key_.size() * 32 + file_born_.size() * 32 + sizeof(w_);
}

}  // namespace tierfs
