// Helpers of the configuration parser shared with the tools.
#pragma once

#include <cstdint>
#include <string>

namespace tierfs {

// "64K", "10M", "1G", "2T", "4096": powers of 1024. False on anything else,
// including overflow.
bool ParseSize(const std::string& text, uint64_t* bytes);

// "1.0 GiB"-style rendering for reports.
std::string FormatSize(uint64_t bytes);

constexpr size_t kMaxTiers = 8;
constexpr uint64_t kBlockSize = 4096;

// n rounded up to whole blocks: what a file system allocates for n bytes.
inline uint64_t RoundUp(uint64_t n) { return (n + kBlockSize - 1) / kBlockSize * kBlockSize; }

}  // namespace tierfs
