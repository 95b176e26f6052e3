// Progress of a long operation the tool runs or waits for (`tierfs check`,
// a move, replicate, prefetch or drop-copy the tool runs itself, `--wait` for
// the moves a running process queued): one line on stderr, redrawn in place
// with '\r', when stderr is a terminal; nothing at all otherwise, so that a
// script or a pipe sees only the results and the diagnostics
// (diagnostics.h). The line says what is done, the rate and the time left
// at the rate so far:
//
//   check: 1.2 GB of 4.0 GB, 310 MB/s, about 9 s left
//   move: 12 of 40 segments, 3.0 MB moved, 1.5 MB/s, about 28 s left
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace tierfs {
namespace tool {

class ProgressLine {
 public:
  // `what` begins the line ("check", "move"). Shown only if stderr is a
  // terminal (isatty).
  explicit ProgressLine(std::string what);
  // Ends the line if one was drawn.
  ~ProgressLine();

  bool shown() const { return shown_; }
  // Seconds since construction.
  double Seconds() const;

  // Draws "WHAT: DONE of TOTAL UNIT[, BYTES moved], RATE/s, about T s left".
  // `done`/`total` count `unit` ("" for bytes, drawn as sizes; "segments",
  // "manual moves" ...); `bytes` is what the rate is of. The time left is
  // total-done at done's pace so far ("-" until something is done). At most
  // five redraws a second, and always the last (done == total).
  void Update(uint64_t done, uint64_t total, const char* unit, uint64_t bytes);

  // Ends the line (a newline) if one was drawn; further Updates draw none.
  void Finish();

 private:
  const std::string what_;
  const bool shown_;
  const std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace tool
}  // namespace tierfs
