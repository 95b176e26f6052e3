// The trace simulator: replays an I/O trace against emulated tiers and a
// placement/migration policy in virtual time — no sleeping, no disk I/O —
// deterministically, with the policy code the live file system runs.
//
// What it shares with the live file system is code, not a copy: the engine
// (engine/: placement and spill, critical-path eviction, the capacity account,
// the migration schedule, the request clock, what every piece of I/O does to
// the statistics and the policy), the policies (agents/), the device models
// (core/device_model.h), the per-segment statistics (core/segment_table.h) and
// the configuration grammar (tierfs:// URIs and config files; the tier paths
// are only names here). tools/sim/verify.h checks that a replay of a live
// capture makes the store's decisions.
//
// Replay. Each stream of the trace (a thread or a workload) is one client
// doing synchronous I/O: its request i is issued when its request i-1
// completes, plus the think time between them in the trace (the gap between
// their times, less the latency request i-1 had at capture when the trace
// records it). So a faster storage system finishes sooner: throughput is
// measured, not replayed. With Replay::kOpen, requests are issued at their
// trace times instead, whatever the storage does.
//
// A request is split into pieces at segment boundaries; each piece is
// scheduled on the device of the tier that holds its segment (a read goes to
// the segment's extra copy when it has one), pieces of one request
// concurrently, and the request completes with its last piece. Writes to a
// volume (a block trace) wait for their device; writes to a RocksDB file are
// buffered as in the file system (its appends written back together, the
// writer waiting only when the device is more than 100 ms behind). A
// segment's first access, read or write, places it; a write drops its extra
// copy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents/policy.h"
#include "core/device_model.h"
#include "core/trace_format.h"
#include "engine/page_copies.h"
#include "tierfs/migration.h"
#include "tierfs/page_copies.h"
#include "tools/sim/future_index.h"

namespace tierfs {
namespace sim {

struct SimTier {
  std::string name;  // the tier's path in the configuration: a label here
  uint64_t capacity = 0;
  DeviceParams device;
};

struct SimConfig {
  std::vector<SimTier> tiers;  // fastest first
  uint64_t segment_size = 1 << 20;
  std::string policy = "fast-first";
  PolicyParams policy_params;  // the policy's own keys (without "POLICY.")
  MigrationOptions migration;  // idle_ops is for real devices: unused here
  PageCopyOptions copies;      // hot-page copies on tier 0 (engine/page_copies.h)
  enum class Replay { kClosed, kOpen } replay = Replay::kClosed;
  // Follow the capture's timing of background migration: the policy plans
  // exactly where the trace's plan events say the live store asked it (for
  // as many moves), and a planned move starts and ends where its move events
  // say; the engine's own cadence and idle detection are not used. Replays
  // in trace order (as kOpen). The policy also hears that each I/O took what
  // the capture says it took (a learning policy's reward; live it is the
  // device model's time on the wall clock). For checking that the simulator
  // decides as the store did (`tierfs-sim verify`).
  bool follow_trace_timing = false;
  // Keep the decisions made (SimResult::decisions).
  bool record_decisions = false;
  // Keep when each I/O record was issued and done (SimResult::timings): to
  // set the replay's timeline beside the capture's, record by record.
  bool record_timings = false;
  // Measure only after this many I/O records (a warm-up): the results count
  // what happens from there on (the peaks, peak_used and peak_copy_bytes,
  // cover the whole replay); every decision runs from the start.
  uint64_t measure_after = 0;
  // Count apart the user reads of young files: files whose first write came
  // less than this many I/O records before the read (TierResult::
  // young_user_reads); 0 counts none. Reads just after a compaction are
  // reads of young files: what inherited heat (copy_inherit) is for.
  uint64_t young_records = 0;
  // Saved states offered to the policy before any given by kStateParam
  // (which separates its files by '+'), each a whole path.
  std::vector<std::string> policy_state_files;
  // The hot-page copies the store held when the trace began: its
  // <tier 0>/meta/PAGES.state as the capture's process opened it (a restart
  // keeps the copies: engine/page_copies.h). The replay starts with them, as
  // the store did; "" starts with none. A file that cannot be read is an
  // error; a state the copies cannot take (copies off, another
  // configuration, not a state) is forgotten, as the store forgets it
  // (SimResult::copies_refused).
  std::string copies_state_file;
  // The segments' statistics the store took back at that open: its
  // <tier 0>/meta/STATS as the capture's process opened it. The replay gives
  // them to the segments the capture held (its `held` events), as the store
  // gave them, so its first plans rank what the store's ranked; "" gives
  // none. A file that cannot be read or is not a statistics file is an
  // error; a damaged row ends the rows restored there, as at the store's
  // open (SimResult::stats_refused). Damage before the rows, which stops
  // the store's load before any of them, is not looked for
  // (core/saved_segments.h).
  std::string stats_state_file;
};

// The policy parameter the simulator keeps for itself: `state=FILE[+FILE...]`
// offers a learning policy what it learned before (Policy::SaveState: a
// store's AGENTS, or `tierfs-sim run --state_out`), each file in turn at the
// start; the first it takes is its start (a state for another tier count is
// refused and the next offered). None taken: an error naming each refusal.
constexpr const char* kStateParam = "state";

// Reads a tierfs:// URI or `tierfs://config:FILE` (the live grammar; tier
// paths need not exist) into *config. Keys the simulator has no use for
// (migration_idle_ops) are accepted and ignored. False and *error naming the
// bad part otherwise.
bool ParseSimConfig(const std::string& uri, SimConfig* config, std::string* error);

// The tiers of a configuration in the URI grammar, for reports.
std::string DescribeTiers(const SimConfig& config);

struct TierResult {
  uint64_t capacity = 0;
  std::string device;
  uint64_t served = 0;           // pieces of user I/O served here
  uint64_t read_bytes = 0, write_bytes = 0;        // user I/O
  uint64_t migrated_in = 0, migrated_out = 0;      // bytes moved or copied in / out
  uint64_t peak_used = 0;        // most bytes ever charged
  double mean_used = 0;          // bytes charged, averaged over the requests
  uint64_t user_reads = 0;       // pieces of user reads served here
  uint64_t user_read_bytes = 0;  // their bytes (a copy's fill: its whole pages, as the store)
  uint64_t page_hits = 0;        // of user_reads, pieces served by hot-page copies
  uint64_t young_user_reads = 0;  // of user_reads, pieces of young files (SimConfig::young_records)
  uint64_t pages_copied = 0;     // hot pages copied here
  uint64_t peak_copy_bytes = 0;  // most bytes of hot-page copies at once
  double user_read_share = 0;    // user_reads / all pieces of user reads
  double user_read_byte_share = 0;  // user_read_bytes / all bytes of user reads: the live
                                    // store's user_read_bytes ticker, belady-warm's unit
  double young_read_share = 0;   // young_user_reads / all pieces of user reads of young files
  double hit_ratio = 0;          // served / all pieces served
};

struct SimResult {
  std::string policy;
  uint64_t requests = 0;
  uint64_t pieces = 0;
  double avg_latency_us = 0;       // every I/O record of the measured part
  double p99_us = 0, p9999_us = 0;
  // The application's reads alone (IoType::kUserRead records): what the live
  // store's trace of the same window says its user reads took, to compare.
  double user_read_latency_us = 0, user_read_p99_us = 0;
  double throughput = 0;          // requests per virtual second
  double virtual_seconds = 0;     // first issue to last completion
  uint64_t user_write_bytes = 0;
  uint64_t device_write_bytes = 0;  // user writes + moves and copies written
  double write_amplification = 0;   // device / user write bytes (0 if no user write)
  uint64_t migrated_bytes = 0;      // by background moves
  uint64_t evicted_bytes = 0;       // by critical-path eviction
  uint64_t moves = 0, moves_skipped = 0, plans = 0, forced_chunks = 0;
  std::vector<TierResult> tiers;
  // The hot-page copies' decisions (PageCopies::counters), if copies are on.
  PageCopies::Counters copies;
  uint64_t copies_restored = 0;  // from SimConfig::copies_state_file
  std::string copies_refused;    // why that state was forgotten; "" if it was not
  uint64_t stats_restored = 0;   // held segments given statistics by SimConfig::stats_state_file
  std::string stats_refused;     // the rows of that file not restored, and why; "" none
  double wall_seconds = 0;          // what the simulation itself took
  // A learning policy's training loss (Policy::LossCurves); x is the number
  // of transitions its agent had seen.
  std::vector<Policy::LossCurve> losses;
  // What the policy learned by the end (Policy::SaveState after
  // StopLearning; "" for a heuristic): a start for the next replay.
  std::string policy_state;
  // With SimConfig::record_decisions: every placement, move ended, plan and
  // move queued, as trace events (core/trace_format.h) in the order made.
  std::vector<TraceRecord> decisions;
  // With SimConfig::record_timings: per I/O record replayed (warm-up
  // included), in the order served, its index in the trace and its issue
  // and completion in virtual nanoseconds.
  struct Timing {
    size_t record;
    int64_t issued, done;
  };
  std::vector<Timing> timings;
};

// True for the events a trace records as decisions (place, move, plan,
// queued), which a replay makes for itself; false for I/O and for the events
// the decisions depend on (delete, settle, truncate, sync).
bool IsDecision(const TraceRecord& r);

// For each record of `trace`, its file's last write before it if another
// stream made it (the closed replay serves the record only after that
// write), or kNoRecord.
constexpr uint32_t kNoRecord = ~0u;
std::vector<uint32_t> WritesBefore(const std::vector<TraceRecord>& trace);

// Makes the policy `config.policy` names: a policy of the live registry, or
// "oracle" (which needs `future`). nullptr and *error on an unknown name or
// parameter.
std::unique_ptr<Policy> MakeSimPolicy(const SimConfig& config, const FutureIndex* future,
                                      std::string* error);

// Replays `trace` (records in time order) against `config` with `policy`,
// and at the end stops its learning (Policy::StopLearning) to take its state
// (SimResult::policy_state).
// `future` is set as the replay proceeds (may be null if the policy does not
// read it). False and *error if the trace does not fit the tiers.
bool Simulate(const std::vector<TraceRecord>& trace, const SimConfig& config, Policy* policy,
              FutureIndex* future, SimResult* result, std::string* error);

// Convenience: makes the policy (and the future index if it is the oracle)
// and simulates.
bool RunPolicy(const std::vector<TraceRecord>& trace, const SimConfig& config, SimResult* result,
               std::string* error);

}  // namespace sim
}  // namespace tierfs
