// RocksDB file names -> FileKind. RocksDB 7.8.3 does not install
// file/filename.h, so the few patterns that matter are parsed here.
#pragma once

#include <string>

#include "agents/file_kind.h"

namespace tierfs {

// Classifies the last component of `path`.
FileKind ClassifyFileName(const std::string& path);

// An absolute path with '.', '..' and repeated or trailing slashes resolved
// lexically (no symlinks followed): the form of every logical path.
std::string LexicalPath(const std::string& absolute);

}  // namespace tierfs
