// The move executor: HintStor's data operations on placed segments — MIGRATE
// (move the home), REPLICATE and PREFETCH (an extra copy that serves reads),
// and dropping a copy — carried out on the store's tiers, segment tables and
// journal. The migrator (planned and manual moves), evicting writers
// (Store::PlaceSegment) and the admin API run moves through it, by way of
// Store::ExecuteMove; a writer's own relocation (Store::RelocateSegment)
// keeps the same protocol with its parts.
//
// The move protocol, for a segment of a file nobody is writing:
//   1. charge the destination; copy the segment's bytes there, chunk by chunk,
//      paced by the governor and paid on both device models;
//   2. fsync the destination (not for PREFETCH, which is never durable);
//   3. under the file's mutex, check nothing changed (no writer opened, the
//      file still has a name, the segment is where it was) and commit: journal
//      the new home (Segment) or copy (Copy), publish it in the segment table;
//   4. make the journal record durable;
//   5. wait until no reader can still be on the old copy (ReadGate);
//   6. punch the old copy and return its charge.
// A crash before 4 leaves the old home recorded and intact, and recovery
// punches the half-done copy; after 4, recovery punches the old copy. A
// dropped copy is punched only after its Copy(none) record is durable.
//
// Locks, in the store's order (env/store.h): FileEntry::move_mu is held across
// a whole move (one mover per file: two never write the same destination
// range); Store::state_mu_ shared and FileEntry::mu exclusive around the check
// and the commit (3), as every journaled change of the store; Store::ns_mu_
// only to find the file by id. ReadGate::WaitForReaders (5) is called with no
// lock held but move_mu, which no reader takes.
#pragma once

#include <cstdint>
#include <string>

#include <rocksdb/io_status.h>

#include "agents/policy.h"
#include "core/trace_format.h"
#include "env/namespace.h"
#include "tierfs/statistics.h"

namespace tierfs {

class Store;

class MoveExecutor {
 public:
  // Paces a move's copy (the migrator is one). nullptr paces nothing: the
  // copy runs at once, as an eviction on the critical path does.
  class Governor {
   public:
    virtual ~Governor() = default;
    // Blocks until a chunk of `bytes` may be copied from tier `from` to tier
    // `to`; false to abandon the move.
    virtual bool BeforeChunk(int from, int to, uint64_t bytes) = 0;
    // The chunk took `nanos` (its device time included).
    virtual void AfterChunk(int64_t nanos) { (void)nanos; }
  };

  // `store` outlives the executor (it is the store's member). The executor
  // journals its commits under the store's JournalLock, finds files by id
  // (Store::PinFile), syncs the data directories and the journal, and may
  // start a journal rotation after a move, as the store's own changes do. It
  // holds no state of its own.
  explicit MoveExecutor(Store& store) : store_(store) {}

  // Runs one operation on one segment (the protocol above). Returns Busy if
  // the file is open for writing or changed under the move, NoSpace if the
  // destination has no room, Aborted if the governor gave up, OK (with
  // *bytes = 0) if there was nothing to do, OK with the bytes carried if the
  // move was made. `cause` is traced (the move's start and end events) and,
  // for a planned move, the policy is told how it ended (Policy::OnMoveDone:
  // made if it carried bytes). Takes move_mu, then the locks above.
  rocksdb::IOStatus Execute(const Move& move, MoveCause cause, Governor* governor,
                            uint64_t* bytes);
  // Drops every extra copy of `entry` (a writer does, before writing: a copy
  // is never staler than its home). Takes entry->move_mu.
  rocksdb::IOStatus DropCopies(FileEntry* entry) EXCLUDES(entry->move_mu);
  // "migrate 12:3 -> tier 1" (operation, file id:segment, destination), as
  // `tierfs queue` and the info log show a move (DescribeMove).
  static std::string Describe(const Move& move);
  // The move as the public API shows it (<tierfs/statistics.h>).
  static MoveInfo Info(const Move& move, bool manual);

  // ---- the protocol's parts, which Store::RelocateSegment shares ----
  // Copies [start, end) of the file from tier `from` to tier `to` (creating
  // its backing file there), paying the device models; with `sync`, fsyncs
  // the copy. Aborted if the governor gives up.
  rocksdb::IOStatus CopyRange(FileEntry* entry, int from, int to, uint64_t start, uint64_t end,
                              Governor* governor, bool sync) REQUIRES(entry->move_mu);
  // Makes `to` the home of `seg` (charged `charge` there) in memory and in the
  // account, once its journal record is written.
  void MoveHome(FileEntry* entry, uint64_t seg, int from, int to, uint64_t charge)
      REQUIRES(entry->mu);
  // Returns the file's block allowance on tier t if no segment or copy of it
  // is left there (what recovery would charge).
  void ReleaseUnusedAllowance(FileEntry* entry, int t) REQUIRES(entry->mu);

 private:
  // Execute without its trace event and the policy's word.
  rocksdb::IOStatus Run(const Move& move, MoveCause cause, Governor* governor, uint64_t* bytes);
  // Drops the extra copy of `seg`: journals Copy(none) (unless the copy is
  // volatile), syncs it, waits out readers and punches. Takes
  // Store::JournalLock (state_mu_ shared), then entry->mu exclusive.
  rocksdb::IOStatus DropCopy(FileEntry* entry, uint64_t seg) REQUIRES(entry->move_mu)
      EXCLUDES(entry->mu);
  // Charges `bytes` (and the per-file block allowance) to tier t; false if no
  // room. Under entry->mu exclusive for the allowance mask.
  bool ChargeExactly(FileEntry* entry, int t, uint64_t bytes) REQUIRES(entry->mu);

  Store& store_;
};

}  // namespace tierfs
