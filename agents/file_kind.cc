#include "agents/file_kind.h"

namespace tierfs {

bool IsBulkKind(FileKind kind) {
  return kind == FileKind::kWal || kind == FileKind::kSst ||
         kind == FileKind::kBlob || kind == FileKind::kVolume;
}

const char* FileKindName(FileKind kind) {
  switch (kind) {
    case FileKind::kWal: return "wal";
    case FileKind::kSst: return "sst";
    case FileKind::kBlob: return "blob";
    case FileKind::kManifest: return "manifest";
    case FileKind::kCurrent: return "current";
    case FileKind::kOptions: return "options";
    case FileKind::kIdentity: return "identity";
    case FileKind::kLock: return "lock";
    case FileKind::kInfoLog: return "log";
    case FileKind::kTemp: return "temp";
    case FileKind::kVolume: return "volume";
    case FileKind::kOther: break;
  }
  return "other";
}

}  // namespace tierfs
