// The progress line (progress.h): drawn on a terminal only, throttled.
#include "tools/tierfs/progress.h"

#include <unistd.h>

#include <cstdio>

#include "util/size.h"

namespace tierfs {
namespace tool {

ProgressLine::ProgressLine(std::string what)
    : what_(std::move(what)),
      shown_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { Finish(); }

double ProgressLine::Seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::Update(uint64_t done, uint64_t total, const char* unit, uint64_t bytes) {
  if (!shown_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double secs = Seconds();
  const uint64_t rate = secs > 0 ? uint64_t(double(bytes) / secs) : 0;
  std::string left = "-";
  if (done >= total) {
    left = "0 s";
  } else if (done > 0) {
    left = std::to_string(int64_t(secs / double(done) * double(total - done) + 0.5)) + " s";
  }
  std::string amount;
  if (*unit == '\0') {
    amount = FormatSize(done) + " of " + FormatSize(total);
  } else {
    amount = std::to_string(done) + " of " + std::to_string(total) + " " + unit + ", " +
             FormatSize(bytes) + " moved";
  }
  // Spaces after the line clear what a longer line before it left.
  fprintf(stderr, "\r%s: %s, %s/s, about %s left   ", what_.c_str(), amount.c_str(),
          FormatSize(rate).c_str(), left.c_str());
  fflush(stderr);
  drawn_ = true;
}

void ProgressLine::Finish() {
  if (drawn_ && !finished_) fputc('\n', stderr);
  finished_ = true;
}

}  // namespace tool
}  // namespace tierfs
