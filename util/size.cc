#include "util/size.h"

#include <cctype>
#include <cstdio>

namespace tierfs {

bool ParseSize(const std::string& text, uint64_t* bytes) {
  if (text.empty()) return false;
  size_t digits = 0;
  uint64_t value = 0;
  while (digits < text.size() && isdigit(static_cast<unsigned char>(text[digits]))) {
    uint64_t next = value * 10 + uint64_t(text[digits] - '0');
    if (next / 10 != value) return false;
    value = next;
    ++digits;
  }
  if (digits == 0) return false;
  std::string unit = text.substr(digits);
  int shift = 0;
  if (unit.empty() || unit == "B") shift = 0;
  else if (unit == "K" || unit == "k" || unit == "KiB") shift = 10;
  else if (unit == "M" || unit == "m" || unit == "MiB") shift = 20;
  else if (unit == "G" || unit == "g" || unit == "GiB") shift = 30;
  else if (unit == "T" || unit == "t" || unit == "TiB") shift = 40;
  else return false;
  if (shift && (value >> (64 - shift)) != 0) return false;
  *bytes = value << shift;
  return true;
}

std::string FormatSize(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  char buf[32];
  snprintf(buf, sizeof(buf), u ? "%.1f %s" : "%.0f %s", v, kUnits[u]);
  return buf;
}

std::string FormatSizeExact(uint64_t bytes) {
  static const char kUnits[] = "BKMGT";
  int u = 0;
  while (u < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + (u ? std::string(1, kUnits[u]) : std::string());
}

}  // namespace tierfs
