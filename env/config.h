// Helpers of the configuration parser shared with the tools.
#pragma once

#include <cstdint>
#include <string>

#include "tierfs/file_system.h"
#include "util/size.h"

namespace tierfs {

// Tiers a store may have. Per-file masks of tiers (backing files, block
// allowances) are 8 bits, and segment tables hold a tier in a byte.
constexpr size_t kMaxTiers = 8;
constexpr uint64_t kBlockSize = 4096;

// n rounded up to whole blocks: what a file system allocates for n bytes.
// ParseUri and ParseConfigFile without ValidateOptions: the grammar alone,
// for the simulator, whose tier paths are only names.
rocksdb::Status ParseUriUnchecked(const std::string& uri, Options* options);
rocksdb::Status ParseConfigFileUnchecked(const std::string& path, Options* options);
// The config file's grammar over its text (what ParseConfigFileUnchecked reads
// the file into); `name` names the text in errors.
rocksdb::Status ParseConfigTextUnchecked(const std::string& text, const std::string& name,
                                         Options* options);

inline uint64_t RoundUp(uint64_t n) { return (n + kBlockSize - 1) / kBlockSize * kBlockSize; }

}  // namespace tierfs
