// A small number for the calling thread, unique among the threads alive at
// the moment: a thread that exits hands its number to the next thread that
// asks. Statistics written on every I/O keep one slot per number, so that
// each slot has one writer and counts with plain stores instead of locked
// read-modify-writes (env/tier.h's read shards).
//
// A thread that takes a number over sees everything its previous owner
// wrote (both pass through one mutex), so a single-writer slot stays
// single-writer across owners.
#pragma once

namespace tierfs {

// The calling thread's number, from 0; taken on the first call (one mutex),
// then a thread_local load. -1 once the thread has begun to exit and given
// its number back (a thread_local destructor doing I/O): the caller counts
// in a slot shared by all threads.
int ThreadIndex();

}  // namespace tierfs
