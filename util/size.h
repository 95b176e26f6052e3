// Byte sizes as people type and read them. No dependencies: used by the
// configuration parser, the policies' parameters and the tools.
#pragma once

#include <cstdint>
#include <string>

namespace tierfs {

// "64K", "10M", "1G", "2T", "4096": powers of 1024. False on anything else,
// including overflow.
bool ParseSize(const std::string& text, uint64_t* bytes);

// "1.0 GiB"-style rendering for reports.
std::string FormatSize(uint64_t bytes);

// What ParseSize reads back to the same bytes, in the largest unit that
// divides them: "4K", "16M", "1G", "4097". For names and labels.
std::string FormatSizeExact(uint64_t bytes);

}  // namespace tierfs
