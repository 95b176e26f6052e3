#include "env/trace_capture.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include "core/device_model.h"

namespace tierfs {

namespace {
constexpr size_t kFlushBytes = 1 << 20;
}  // namespace

rocksdb::IOStatus TraceCapture::Start(const std::string& path, const TraceHeader& header,
                                      std::unique_ptr<TraceCapture>* result) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) {
    return rocksdb::IOStatus::IOError("cannot create trace file '" + path + "': " +
                                      strerror(errno));
  }
  const std::string h = TraceEncoder::EncodeHeader(header);
  if (fwrite(h.data(), 1, h.size(), f) != h.size()) {
    fclose(f);
    return rocksdb::IOStatus::IOError("cannot write trace file '" + path + "': " +
                                      strerror(errno));
  }
  result->reset(new TraceCapture(path, f));
  return rocksdb::IOStatus::OK();
}

TraceCapture::TraceCapture(std::string path, FILE* file)
    : path_(std::move(path)), start_ns_(DeviceModel::NowNanos()), file_(file) {
  buf_.reserve(kFlushBytes + 256);
}

TraceCapture::~TraceCapture() { Stop(); }

void TraceCapture::Record(uint64_t file_id, FileKind kind, int level, uint64_t offset,
                          uint64_t size, IoType type, TracePriority priority, int tier,
                          uint64_t latency_ns) {
  TraceRecord r;
  r.file_id = file_id;
  r.kind = kind;
  r.level = level;
  r.offset = offset;
  r.size = size;
  r.type = type;
  r.priority = priority;
  r.tier = tier;
  r.latency_ns = latency_ns;
  // On the thread's clock (DeviceModel::ThreadNanos): an emulated device's
  // wait is owed, and slept in batches, so the wall clock stood still over
  // most of this I/O. Issued at the wall clock's now less its latency, a
  // client's reads came 15 us apart though each took 119: a replay of the
  // trace, one client a stream, fell behind it by the difference each time.
  Append(&r, DeviceModel::ThreadNanos() - int64_t(latency_ns));
}

void TraceCapture::RecordEvent(TraceEvent event, uint64_t file_id, FileKind kind,
                               uint64_t offset, uint64_t size, int tier, int level) {
  TraceRecord r = MakeEvent(event, file_id, kind, offset, size, tier);
  r.level = level;
  Append(&r, DeviceModel::ThreadNanos());  // the thread's I/O's clock
}

void TraceCapture::Append(TraceRecord* r, int64_t start) {
  // A small number per thread, per capture: the simulator replays each
  // thread as one synchronous client.
  struct Stream {
    const TraceCapture* owner = nullptr;
    uint32_t id = 0;
  };
  thread_local Stream stream;
  r->time_ns = start > start_ns_ ? uint64_t(start - start_ns_) : 0;
  MutexLock lock(&mu_);
  if (!file_) return;
  if (stream.owner != this) stream = Stream{this, threads_++};
  r->stream = stream.id;
  encoder_.Append(*r, &buf_);
  records_++;
  if (buf_.size() >= kFlushBytes) FlushLocked();
}

void TraceCapture::FlushLocked() {
  if (!buf_.empty() && error_.empty() && fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
    error_ = "cannot write trace file '" + path_ + "': " + strerror(errno);
  }
  buf_.clear();
}

rocksdb::IOStatus TraceCapture::Stop() {
  MutexLock lock(&mu_);
  if (file_) {
    FlushLocked();
    if (fclose(file_) != 0 && error_.empty()) {
      error_ = "cannot close trace file '" + path_ + "': " + strerror(errno);
    }
    file_ = nullptr;
  }
  return error_.empty() ? rocksdb::IOStatus::OK() : rocksdb::IOStatus::IOError(error_);
}

uint64_t TraceCapture::records() const {
  MutexLock lock(&mu_);
  return records_;
}

}  // namespace tierfs
