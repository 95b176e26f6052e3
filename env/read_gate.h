// Lets a segment move punch its old copy only once no reader can still be
// reading it: epoch-based reclamation over the backing-file reads.
//
// A reader brackets each backing-file read with Enter()/Exit() (ReadGuard):
// it publishes the current epoch in a slot of its own thread, then looks the
// segment's tier up. A mover publishes the segment's new tier, then calls
// WaitForReaders(), which advances the epoch and waits until every slot is
// either empty or holds the new epoch: every reader that could have seen the
// old tier has finished. Only then is the old copy punched.
//
// The read path pays one store and, where the kernel has membarrier(2), no
// fence: the waiter makes every running thread fence instead (the asymmetric
// fence of liburcu's memb flavor; liburcu itself needs every reader thread
// registered and unregistered before it exits, which a library serving its
// host's threads cannot promise). Slots are per thread, so readers never share
// a written cache line.
#pragma once

#include <atomic>
#include <cstdint>

namespace tierfs {

class ReadGate {
 public:
  // Marks this thread as reading. Not reentrant.
  static void Enter();
  static void Exit();
  // Blocks until every read that entered before this call has exited.
  // Called without locks a reader could wait on.
  static void WaitForReaders();
};

class ReadGuard {
 public:
  ReadGuard() { ReadGate::Enter(); }
  ~ReadGuard() { ReadGate::Exit(); }
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;
};

}  // namespace tierfs
