// RocksDB file names -> FileKind. RocksDB 7.8.3 does not install
// file/filename.h, so the few patterns that matter are parsed here.
#pragma once

#include <string>

#include "agents/file_kind.h"

namespace tierfs {

// Classifies the last component of `path`.
FileKind ClassifyFileName(const std::string& path);

}  // namespace tierfs
