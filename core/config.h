// The configuration grammar (tierfs:// URIs and configuration files, written
// out in <tierfs/options.h>) and the constants of a store's layout, free of
// RocksDB: the store validates what it parses (env/config.cc, ParseUri), the
// simulator reads its tiers as names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/parse_status.h"
#include "tierfs/options.h"
#include "util/size.h"

namespace tierfs {

// Tiers a store may have. Per-file masks of tiers (backing files, block
// allowances) are 8 bits, and segment tables hold a tier in a byte.
constexpr size_t kMaxTiers = 8;
constexpr uint64_t kBlockSize = 4096;

// The policy of the emulation-only mode (placement:rocksdb).
constexpr char kFollowerPolicy[] = "rocksdb-temperature";

// n rounded up to whole blocks: what a file system allocates for n bytes.
inline uint64_t RoundUp(uint64_t n) { return (n + kBlockSize - 1) / kBlockSize * kBlockSize; }

// ParseUri and ParseConfigFile without ValidateOptions: the grammar alone.
ParseStatus ParseUriUnchecked(const std::string& uri, Options* options);
ParseStatus ParseConfigFileUnchecked(const std::string& path, Options* options);
// The config file's grammar over its text (what ParseConfigFileUnchecked reads
// the file into); `name` names the text in errors.
ParseStatus ParseConfigTextUnchecked(const std::string& text, const std::string& name,
                                     Options* options);

}  // namespace tierfs
