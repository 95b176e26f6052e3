// What TierFS does when the process exits, or the library is unloaded, with
// stores still open.
//
// At exit (and at dlclose) the C++ runtime runs atexit handlers and destroys
// static objects in one sequence, the reverse of their registration. A host
// that keeps its Env in a static (Env::CreateFromUri's guard) destroys its
// store after RocksDB's own statics (SyncPoint, the default Env's thread
// joiner) and LibTorch's may be gone; a store held by a database the host
// never deleted, or in use by a thread that is still running, is never
// destroyed at all. So:
//   - every store opened for writing registers here (RegisterLiveStore, at
//     the end of Store::Open) and arms an atexit handler then, so the handler
//     runs before any static object that existed at that open is destroyed:
//     RocksDB's, LibTorch's (loaded while the policy was created), ours;
//   - the handler marks the process as exiting (ProcessExiting) and calls
//     Store::SaveAtExit on each store still registered: its threads stopped,
//     the journal synced, AGENTS and STATS written, with POSIX calls only;
//   - a store closed or destroyed after that (Store::Close) saves with POSIX
//     calls only and lets go of the base file system's objects without
//     calling into them (their descriptors close with the process).
// Nothing here calls into RocksDB. An atexit handler armed by libtierfs would
// run at its dlclose too (glibc ties it to the library); dlclose never unloads
// libtierfs: it is linked -z nodelete (RocksDB's object registry keeps its
// factory), so its stores and threads meet exit
// (ExitOrderTest.HostThatDlclosesThePluginExitsCleanlyAndSaves).
#pragma once

#include <memory>

namespace tierfs {

class Store;

// Adds `store` to the stores saved at exit, and arms the handler once more.
// Thread-safe.
void RegisterLiveStore(Store* store);

// Removes `store` (its destructor, first thing): waits for a handler that is
// saving it. Thread-safe.
void UnregisterLiveStore(Store* store);

// True once the exit handler has begun: RocksDB's and other libraries'
// statics may be destroyed from then on.
bool ProcessExiting();

// Holds `object` until the process ends and never destroys it: for what a
// store lets go of at exit without calling into it (its journal file, data
// directories and policy: their destructors reach RocksDB or LibTorch).
// Reachable from a global, so a leak checker (LeakSanitizer, in the ASan
// stage and the fuzzers) sees it held on purpose rather than lost.
// Thread-safe.
void KeepUntilExit(std::shared_ptr<void> object);

}  // namespace tierfs
