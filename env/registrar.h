// The process's open stores (env/registrar.cc), as the rest of TierFS sees
// them: internal, not part of the public API.
#pragma once

#include <string>

namespace tierfs {

// NoteTableFile (tierfs/hints.h) told to every TierFS store open in this
// process: what the event listener (db/listener.cc) calls, having no handle
// on the file system. A store that never sees the file forgets the hint.
void NoteTableFileInOpenStores(const std::string& path, int level,
                               const std::string& column_family);

}  // namespace tierfs
