// Who may use the admin channel (env/admin_channel.h). A request moves data
// and pins files of the process that has the store open, so only the user
// that process runs as (its effective uid: "the store's owner") may make one:
//   - the channel's directory, <tier0>/meta/admin, is private to the owner
//     (mode 0700, owned by it): the server creates it so, makes an existing
//     one of the owner's private, and serves nothing from a directory that
//     is not a directory or belongs to another user;
//   - a request file must be a regular file (not a link) owned by the owner
//     and writable by no one else; the server reads it through the
//     descriptor it checked, so the file cannot be swapped in between;
//   - a request's path must be absolute, normalized and name a file or
//     directory in the store's namespace: nothing outside it is touched.
// The tool writes its requests with mode 0600 into a directory it finds
// private, or says whose it is. Refusals are logged and counted by the
// server (StoreError::kAdminChannel); POSIX calls throughout.
#pragma once

#include <string>

#include <rocksdb/status.h>

namespace tierfs {

class Store;

// Server: creates `dir` (mode 0700) if missing, or makes the owner's
// existing one private. OK if the channel may be served from it; otherwise
// why not (not a directory, another user's, cannot be created or made
// private), naming the directory and the uids.
rocksdb::Status PrepareAdminDir(const std::string& dir);

// Server: the text of the request file `path`. NotFound if it is gone
// (withdrawn); InvalidArgument("refused: ...") if it breaks the rules above,
// saying which (owner uid, mode, file type); IOError if it cannot be read
// now (tried again at the next poll).
rocksdb::Status ReadRequestFile(const std::string& path, std::string* text);

// Server: OK if `path` (a request's path; "" for none) may be acted on:
// absolute, normalized, and a file or directory in `store`'s namespace.
// Otherwise InvalidArgument("refused: ...") saying why.
rocksdb::Status CheckRequestPath(Store* store, const std::string& path);

// Client: makes sure `dir` exists and is the caller's and private (creating
// it with mode 0700 if missing). Otherwise why the channel cannot be used
// from this user (whose it is).
rocksdb::Status OpenAdminDirForClient(const std::string& dir);

// Client: writes `text` to `path` with mode 0600, atomically (.tmp, rename).
rocksdb::Status WritePrivateFile(const std::string& path, const std::string& text);

}  // namespace tierfs
