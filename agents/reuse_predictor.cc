#include "agents/reuse_predictor.h"

#include <algorithm>
#include <cmath>

#include "util/log2p.h"
#include "util/splitmix64.h"

namespace tierfs {

ReusePredictor::ReusePredictor(const Options& options) : options_(options) {
  MutexLock lock(&mu_);
  history_.assign(1 << 12, History());
  scale_ = Log2p(double(horizon_));
  samples_.assign(std::max<uint64_t>(1, options_.samples), Sample());
}

void ReusePredictor::SetCapacity(uint64_t objects) {
  MutexLock lock(&mu_);
  const uint64_t horizon = std::max<uint64_t>(64, uint64_t(options_.horizon * double(objects)));
  uint64_t size = 1024;
  while (double(size) < options_.history * double(horizon) && size < (1u << 22)) size <<= 1;
  if (horizon == horizon_ && size == history_.size()) return;
  horizon_ = horizon;
  scale_ = Log2p(double(horizon_));
  history_.assign(size, History());  // waiting samples keep their labels (pending_)
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
  file_born_.try_emplace(page.file_id, now_);  // no node made for a known file
  History* h = Find(key);
  if (h->tag == Tag(key)) {
    h->gap = uint32_t(now_) - h->last;
  } else {
    h->tag = Tag(key);
    h->gap = 0;
  }
  auto pending = pending_.find(key);
  if (pending != pending_.end()) {
    // Read again within the horizon (expired samples are gone): a positive
    // label.
    Sample& s = samples_[pending->second];
    Train(s, true);
    s.key = 0;
    pending_.erase(pending);
  }
  h->last = uint32_t(now_);
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
  while (tail_ != head_) {
    Sample& s = samples_[tail_ % samples_.size()];
    if (s.key != 0) {
      if (s.time + horizon_ >= now_) break;
      Train(s, false);
      pending_.erase(s.key);
      s.key = 0;
    }
    ++tail_;
  }
}

ReusePredictor::Features ReusePredictor::Describe(const Policy::CopyCandidate& page) {
  Features x{};
  const uint64_t key = KeyOf(page);
  const double scale = scale_;
  x[0] = 1;
  x[1] = float(std::min(2.0, Log2p(page.frequency) / 4));
  const History* h = Find(key);
  double elapsed_norm = 2;
  if (h->tag == Tag(key)) {
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
    x[18] = float(std::min(2.0, Log2p(double(now_ - born->second)) / scale / 1.5));
  }
  x[19] = float(std::min(2.0, Log2p(double(page.page)) / 24));
  return x;
}

double ReusePredictor::Predict(const Features& x) const {
  double z = 0;
  for (int i = 0; i < kFeatures; ++i) z += w_[i] * x[i];
  return 1 / (1 + std::exp(-std::clamp(z, -30.0, 30.0)));
}

void ReusePredictor::Train(const Sample& sample, bool reused) {
  Features x;
  for (int i = 0; i < kFeatures; ++i) x[i] = float(sample.x[i]) / 127;
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
  if (++questions_ % options_.sample == 0 && head_ - tail_ < samples_.size()) {
    const uint64_t key = KeyOf(page);
    if (pending_.try_emplace(key, head_ % samples_.size()).second) {  // one sample a key at a time
      Sample& s = samples_[head_++ % samples_.size()];
      s.key = key;
      s.time = now_;
      for (int i = 0; i < kFeatures; ++i) {
        s.x[i] = uint8_t(std::lround(std::clamp(x[i], 0.0f, 2.0f) * 127));
      }
    }
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
  return p > ValueLocked(*victim) + options_.margin;
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
  // An unordered_map's node: the pair, the next pointer, the cached hash; and
  // a bucket pointer.
  constexpr uint64_t kNode = 8 + 8 + 8 + 8 + 8;
  return history_.size() * sizeof(History) + samples_.size() * sizeof(Sample) +
         pending_.size() * kNode + file_born_.size() * kNode + sizeof(w_);
}

}  // namespace tierfs
