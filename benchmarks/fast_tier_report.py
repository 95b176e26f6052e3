#!/usr/bin/env python3
"""fast_tier_report.py: the figures, tables, plots and targets of
benchmarks/fast_tier.sh (issue 13, "make the fast tier earn its keep").

  fast_tier_report.py summarize --run-dir DIR --workload W --capacity BYTES
                      --trace-tool TIERFS_TRACE --sim-tool TIERFS_SIM --copy-page BYTES
                      --segment BYTES [--page BYTES]
      right after a run: cuts DIR/W.trace to the measured window (found in
      DIR/W.stats.jsonl and the tool's result; `tierfs-trace cut`), and writes
      DIR/W.trace.json: the window's WAL bytes (`tierfs-trace info --json`) and
      its ceilings (`tierfs-sim ceiling`), so the trace can go
  fast_tier_report.py report --runs RUNS --csv OUT.csv --png-prefix OUT
                      --copy-page BYTES [--title TEXT] [--page BYTES]
      the markdown on stdout; OUT-throughput.png, OUT-hit.png, OUT-use.png
  fast_tier_report.py --self-test
      canned runs through the windows and the report; exit status 0 if all
      hold (summarize's tools have tests of their own)

RUNS has one line per store: "CONFIG DEVICE SYSTEM FAMILY DIR FAST_BYTES";
FAMILY is ycsb (DIR holds load.*, then per workload W: W.json, tierfs-ycsb's
report, the measured run only) or dbbench (W.log, db_bench's output; the last
run of the benchmark in it is the measured one); each W also has
W.stats.jsonl (the store's statistics log, URI key stats_log) and
W.trace.json (summarize's output; absent when no trace was taken). FAST_BYTES
is tier 0's capacity in the systems with a limited tier 0: the capacity the
best static placement gets, fast-only's runs included.

Windows. Every run but the fill has a warm-up and a measured part in one
process. The measured window ends at the statistics line after the last
user read and lasts the tool's own measured time (YCSB's RunTime, db_bench's
"seconds"); the fill's window is the whole process. Statistics over the
window are differences of the lines at its ends (gauges: the mean of the
lines in it); trace figures are of the records whose time falls in it.

Definitions (also printed under the tables):
  ops/s, p99   the tool's, measured part only: YCSB's [OVERALL] Throughput and
               its main operation's 99th percentile (READ; READ-MODIFY-WRITE
               for F); db_bench's ops/sec and the P99 of "Microseconds per
               read" (per write for fillrandom)
  device us/op the device model's time for the window's user reads (queue +
               service, user_read_device_ns of the statistics log) per operation
  CPU us/op    the process's user + system CPU time over the window
               (process_cpu_ns of the statistics log: every thread, RocksDB's
               and the tool's included) per operation
  hit          tier 0's share of the user reads in the window (user_reads of
               the statistics log: page-copy hits are tier-0 reads)
  best static  tierfs-sim's page-granular best static placement of the window
               (tools/sim/ceiling.h, best-static:16K): its user-read pieces cut
               into --page (16 KiB) pages, pages ranked by the share of the
               pieces' bytes they hold, the top FAST_BYTES / page of them held
               for the whole window (a page of a file deleted in it too); the
               share of the pieces they serve. The CSV also has it at the copy
               page (best_static_copy_page), with space freed by deletions
               (best_static_freed) and Belady's MIN on copies (belady_copies)
  fast use     tier 0's used bytes (homes, reservations, hot-page copies) /
               its capacity, mean over the window; copies: of it, hot-page
               copies (page_copy_bytes)
  moved        bytes migrated (moved_bytes_in), segment copies made
               (copy_bytes_in) and hot pages or blocks copied (page_copied_bytes;
               from a statistics log without it, pages_copied x the copy page,
               --copy-page) in the window, all tiers
  fast writes / user write
               bytes written to tier 0's device in the window (RocksDB's writes
               there + migrations, copies and hot pages into it) / bytes
               RocksDB appended to its WAL in the window (the application's
               writes as RocksDB logs them; from the trace)
Standard library, matplotlib, tfs_report.py, ycsb_report.py and
policy_report.py (beside it) only.
"""
import argparse
import contextlib
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

from policy_report import parse_log
from tfs_report import (REFERENCE, find, fmt, geomean, grouped_bars, load_json, normalize, pyplot,
                        write_csv)
from tfs_report import table as tfs_table
from ycsb_report import ycsb_report

PAGE = 16 << 10
YCSB_WORKLOADS = ["b-zipf", "c-zipf", "b-hot", "c-hot", "a", "f"]
DBBENCH_WORKLOADS = ["fillrandom", "readrandom", "mixgraph"]
WORKLOADS = YCSB_WORKLOADS + DBBENCH_WORKLOADS
LABEL = {"b-zipf": "YCSB B zipfian", "c-zipf": "YCSB C zipfian", "b-hot": "YCSB B hotspot",
         "c-hot": "YCSB C hotspot", "a": "YCSB A", "f": "YCSB F", "fillrandom": "fillrandom",
         "readrandom": "readrandom (skewed)", "mixgraph": "mixgraph"}
READ_HEAVY = ["b-zipf", "c-zipf", "b-hot", "c-hot", "readrandom", "mixgraph"]
WRITE_HEAVY = ["a", "f", "fillrandom"]
# Where the target on tier 0's share of user reads applies.
HIT_TARGET = ["b-zipf", "c-zipf", "b-hot", "c-hot", "mixgraph"]
YCSB_MAIN_OP = {"a": "READ", "f": "READ-MODIFY-WRITE"}  # else READ
# RocksDB's own tiering and caching. rocksdb-levels is TierFS's rendering of
# db_paths (RocksDB's GetPathId), the one db_bench can run: db_bench has no
# flag or OPTIONS entry for db_paths, so on fillrandom, readrandom and
# mixgraph it is the db_paths baseline (under YCSB it stands beside the real
# db_paths, when a run has both).
ROCKSDB_BASELINES = ("db_paths", "rocksdb-levels", "last_level_temp", "read_cache")
NOT_POLICIES = (REFERENCE, "slow-only") + ROCKSDB_BASELINES


def family(workload):
    return "ycsb" if workload in YCSB_WORKLOADS else "dbbench"


# ---- one run: the tool's figures, the statistics log, the window ----

def tool_figures(run_dir, workload):
    """(ops/s, p99 µs, measured ms, operations) of the measured part."""
    if family(workload) == "ycsb":
        rep = ycsb_report(os.path.join(run_dir, workload + ".json"))
        main = YCSB_MAIN_OP.get(workload, "READ")
        ops = rep.get(("OVERALL", "Throughput(ops/sec)"))
        ms = rep.get(("OVERALL", "RunTime(ms)"))
        return ops, rep.get((main, "99thPercentileLatency(us)")), ms, (ops or 0) * (ms or 0) / 1000
    log = parse_log(os.path.join(run_dir, workload + ".log"), workload)
    hist = log["hist"].get("write" if workload == "fillrandom" else "read", {})
    ms = 1000 * log["seconds"] if log["seconds"] else None
    return log["ops"], hist.get("p99"), ms, (log["ops"] or 0) * (ms or 0) / 1000


def read_stats_log(path):
    """The whole lines of a statistics log (env/stats_log.h)."""
    lines = []
    with open(path) as f:
        for line in f:
            if line.endswith("\n"):
                lines.append(json.loads(line))
    if len(lines) < 2:
        raise ValueError("%s: fewer than two lines" % path)
    return lines


def user_reads(line):
    return sum(t["user_reads"] for t in line["tiers"])


def measured_window(lines, measured_ms, whole):
    """(start, end) in unix ns: the whole log, or `measured_ms` up to the
    line after the last user read."""
    if whole or not measured_ms:
        return lines[0]["unix_ns"], lines[-1]["unix_ns"]
    end = lines[-1]["unix_ns"]
    for prev, line in zip(lines, lines[1:]):
        if user_reads(line) > user_reads(prev):
            end = line["unix_ns"]
    return max(lines[0]["unix_ns"], end - int(measured_ms * 1e6)), end


def line_at(lines, t):
    """The last line at or before t (the first if none)."""
    best = lines[0]
    for line in lines:
        if line["unix_ns"] <= t:
            best = line
    return best


def stats_figures(lines, window, page):
    """The statistics over a window (see the module's definitions)."""
    t0, t1 = window
    a, b = line_at(lines, t0), line_at(lines, t1)

    def delta(key, tier=None):
        tiers = range(len(b["tiers"])) if tier is None else [tier]
        return sum(b["tiers"][i][key] - a["tiers"][i][key] for i in tiers)

    inside = [line for line in lines if t0 < line["unix_ns"] <= t1] or [b]
    cap = b["tiers"][0]["capacity"]
    reads = delta("user_reads")
    pages = delta("pages_copied", 0)
    # The bytes copies wrote (blocks are shorter than a page); older logs
    # lack the counter: a page per copy.
    copied = delta("page_copied_bytes", 0) if "page_copied_bytes" in b["tiers"][0] else None
    # The device model's time for the user reads; logs from before the
    # counter lack it.
    device_ns = delta("user_read_device_ns") if "user_read_device_ns" in b["tiers"][0] else None
    # Tier 0's share of the user reads' bytes: the unit of belady-warm, its
    # ceiling. Logs from before the counter lack it.
    read_bytes = delta("user_read_bytes") if "user_read_bytes" in b["tiers"][0] else 0
    # The process's CPU time (the host's threads and TierFS's); logs from
    # before the field lack it.
    cpu_ns = None
    if "process_cpu_ns" in b and min(a["process_cpu_ns"], b["process_cpu_ns"]) >= 0:
        cpu_ns = b["process_cpu_ns"] - a["process_cpu_ns"]  # (-1: the clock failed)
    return {
        "user_reads": reads,
        "process_cpu_ns": cpu_ns,
        "user_read_device_ns": device_ns,
        "hit_ratio": delta("user_reads", 0) / reads if reads > 0 else None,
        "byte_hit_ratio": delta("user_read_bytes", 0) / read_bytes if read_bytes > 0 else None,
        "fast_capacity_bytes": cap,
        "fast_use": sum(x["tiers"][0]["used_bytes"] for x in inside) / len(inside) / cap,
        "fast_copy_use": sum(x["tiers"][0]["page_copy_bytes"] for x in inside) / len(inside) / cap,
        "moved_bytes": delta("moved_bytes_in"),
        "segment_copy_bytes": delta("copy_bytes_in"),
        "page_copy_bytes": copied if copied is not None else pages * page,
        "page_hits": delta("page_hits", 0),
        "fast_device_write_bytes": delta("write_bytes", 0) + delta("moved_bytes_in", 0) +
        delta("copy_bytes_in", 0) + pages * page,
    }


def series(lines, window):
    """Per statistics line after the first: (seconds since the first line,
    tier 0's share of the interval's user reads or None, tier 0's use, of it
    hot-page copies), and where the measured window starts, in seconds."""
    start = lines[0]["unix_ns"]
    out = []
    for prev, line in zip(lines, lines[1:]):
        reads = user_reads(line) - user_reads(prev)
        fast = line["tiers"][0]["user_reads"] - prev["tiers"][0]["user_reads"]
        cap = line["tiers"][0]["capacity"]
        out.append(((line["unix_ns"] - start) / 1e9, fast / reads if reads > 0 else None,
                    line["tiers"][0]["used_bytes"] / cap, line["tiers"][0]["page_copy_bytes"] / cap))
    return out, (window[0] - start) / 1e9


# ---- the trace: ceilings of the measured window (tierfs-sim), WAL bytes ----

def run_json(args):
    """A tool's JSON output; its stderr in the error if it fails."""
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args), proc.stderr.strip()))
    return json.loads(proc.stdout)


def ceiling_specs(capacity, page, copy_page, segment):
    """tierfs-sim's --ceilings: (summary key, spec, share reported) per ceiling.
    belady-warm at the store's segment size, in bytes: what any tier 0 of this
    size whose contents change when a segment is accessed can serve of the
    window's user-read bytes, whatever it held when the window began; and at
    the copies' unit, what copies made when their unit is read or written
    can (tighter: a segment's access lets the whole segment in)."""
    return [("best_static_hit_ratio", "best-static:%d:%d" % (page, capacity), "share"),
            ("best_static_copy_page_hit_ratio", "best-static:%d:%d" % (copy_page, capacity),
             "share"),
            ("best_static_freed_hit_ratio", "best-static-freed:%d:%d" % (page, capacity), "share"),
            ("belady_copies_hit_ratio", "belady-copies:%d:%d" % (copy_page, capacity), "share"),
            ("belady_warm_byte_ratio", "belady-warm:%d:%d" % (segment, capacity), "byte_share"),
            ("belady_warm_copy_byte_ratio", "belady-warm:%d:%d" % (copy_page, capacity),
             "byte_share")]


def learned_specs(capacity, copy_page):
    """The references that learn from the warm-up instead of knowing the
    window (tools/sim/ceiling.h): (summary key, spec)."""
    return [("past_static_hit_ratio", "past-static:%d:%d" % (copy_page, capacity), "share"),
            ("lfu_copies_hit_ratio", "lfu-copies:%d:%d" % (copy_page, capacity), "share")]


def io_records(info):
    return info["user_reads"] + info["background_reads"] + info["writes"]


def summarize(run_dir, workload, capacity, tools, page, copy_page, segment, config_uri=None,
              state_in=None, copies_in=None, stats_in=None):
    """DIR/W.trace.json from DIR/W.trace and DIR/W.stats.jsonl: the trace cut
    to the measured window (`tierfs-trace cut`), its WAL bytes and its user
    reads' latency as the store measured them (`tierfs-trace info --json`),
    its ceilings (`tierfs-sim ceiling`) and, with `config_uri` (the live
    store's URI, its policy in it), the simulator's replay of the same window
    after the same warm-up (`tierfs-sim run`; a learning policy from
    `state_in`, what it had learned when the process opened the store; the
    hot-page copies from `copies_in`, those the store took back at that
    open; the segments' statistics from `stats_in`, likewise): the fidelity
    figures."""
    trace_tool, sim_tool = tools
    trace = os.path.join(run_dir, workload + ".trace")
    cut = trace + ".window"
    lines = read_stats_log(os.path.join(run_dir, workload + ".stats.jsonl"))
    _, _, ms, _ = tool_figures(run_dir, workload)
    window = measured_window(lines, ms, workload == "fillrandom")
    start = run_json([trace_tool, "info", "--json", trace])["start_unix_ns"]
    cutting = subprocess.run(
        [trace_tool, "cut", trace, "--from_ns=%d" % max(0, window[0] - start),
         "--to_ns=%d" % max(0, window[1] - start), "--out=" + cut], capture_output=True, text=True)
    if cutting.returncode != 0:
        raise RuntimeError("tierfs-trace cut %s: %s" % (trace, cutting.stderr.strip()))
    info = run_json([trace_tool, "info", "--json", cut])
    specs = ceiling_specs(capacity, page, copy_page, segment)
    config = "tierfs:///fast:%d:optane,/slow:1T:hdd;segment_size:%d" % (capacity, segment)
    ceilings = run_json([sim_tool, "ceiling", "--config=" + config, "--workload=" + cut, "--json",
                         "--ceilings=" + ",".join(spec for _, spec, _ in specs)])
    os.remove(cut)
    # The learning references: the trace up to the window's end, the part
    # before the window their warm-up.
    upto = trace + ".upto"
    cutting = subprocess.run(
        [trace_tool, "cut", trace, "--to_ns=%d" % max(0, window[1] - start), "--out=" + upto],
        capture_output=True, text=True)
    if cutting.returncode != 0:
        raise RuntimeError("tierfs-trace cut %s: %s" % (trace, cutting.stderr.strip()))
    whole = io_records(run_json([trace_tool, "info", "--json", upto]))
    warmup = 1 - io_records(info) / whole if whole else 0
    replay = None
    if config_uri and info["user_reads"]:
        replay = run_json([sim_tool, "run", "--config=" + config_uri, "--workload=" + upto,
                           "--json", "--ceilings=none", "--warmup=%.6f" % warmup] +
                          (["--state_in=" + state_in] if state_in else []) +
                          (["--copies_in=" + copies_in] if copies_in else []) +
                          (["--stats_in=" + stats_in] if stats_in else []))
    learned = learned_specs(capacity, copy_page)
    if warmup > 0:
        learned_ceilings = run_json(
            [sim_tool, "ceiling", "--config=" + config, "--workload=" + upto, "--json",
             "--warmup=%.6f" % warmup, "--ceilings=" + ",".join(spec for _, spec, _ in learned)])
    else:
        learned_ceilings = [{"pieces": 0}] * len(learned)
    os.remove(upto)
    out = {"window_unix_ns": list(window), "capacity": capacity, "page": page,
           "copy_page": copy_page, "trace_user_reads": info["user_reads"],
           "wal_bytes": info["written_by_kind"].get("wal", 0),
           "live_read_us": info.get("user_read_latency_us") or None,
           "live_read_p99_us": info.get("user_read_p99_us") or None}
    if replay:
        out.update({"sim_read_us": replay["user_read_latency_us"] or None,
                    "sim_read_p99_us": replay["user_read_p99_us"] or None,
                    "sim_hit_ratio": replay["tiers"][0]["user_read_share"],
                    "sim_byte_hit_ratio": replay["tiers"][0].get("user_read_byte_share")})
    for (key, _, share), c in zip(specs + learned, ceilings + learned_ceilings):
        out[key] = c[share] if c["pieces"] else None
    with open(os.path.join(run_dir, workload + ".trace.json"), "w") as f:
        json.dump(out, f)
    return out


# ---- all runs ----

def measure(config, device, system, fam, run_dir, fast_bytes, copy_page):
    rows, timelines = [], {}
    for w in [w for w in WORKLOADS if family(w) == fam]:
        if not os.path.exists(os.path.join(run_dir, w + ".stats.jsonl")):
            continue
        ops, p99, ms, operations = tool_figures(run_dir, w)
        lines = read_stats_log(os.path.join(run_dir, w + ".stats.jsonl"))
        window = measured_window(lines, ms, w == "fillrandom")
        row = {"config": config, "slow_device": device, "system": system, "workload": w,
               "ops_per_sec": ops, "p99_us": p99, "measured_ms": ms, "operations": operations,
               "best_static_capacity_bytes": fast_bytes}
        row.update(stats_figures(lines, window, copy_page))
        summary = os.path.join(run_dir, w + ".trace.json")
        if os.path.exists(summary):
            t = load_json(summary)
            ceiling_keys = [k for k, _, _ in ceiling_specs(0, 0, 0, 0) + learned_specs(0, 0)]
            row.update({k: t.get(k) for k in ceiling_keys + [
                "trace_user_reads", "wal_bytes", "live_read_us", "live_read_p99_us",
                "sim_read_us", "sim_read_p99_us", "sim_hit_ratio", "sim_byte_hit_ratio"]})
            if t["wal_bytes"]:
                row["fast_writes_per_user_write"] = row["fast_device_write_bytes"] / t["wal_bytes"]
        if system == "read_cache":
            # Its cache's blocks are not SST pages, and the cache serves the
            # blocks of its file being written from memory: TierFS sees
            # neither as a tier-0 read of the data.
            for key, _, _ in ceiling_specs(0, 0, 0, 0) + learned_specs(0, 0):
                row[key] = None
        if row.get("byte_hit_ratio") is not None and row.get("belady_warm_byte_ratio"):
            row["bytes_vs_belady_warm"] = row["byte_hit_ratio"] / row["belady_warm_byte_ratio"]
        # The segment-unit bound is often every byte (1.0); the copy unit's is
        # the one the copies could have reached.
        if row.get("byte_hit_ratio") is not None and row.get("belady_warm_copy_byte_ratio"):
            row["bytes_vs_belady_warm_copies"] = (row["byte_hit_ratio"] /
                                                  row["belady_warm_copy_byte_ratio"])
        if row.get("hit_ratio") is not None and row.get("best_static_hit_ratio"):
            row["hit_vs_best_static"] = row["hit_ratio"] / row["best_static_hit_ratio"]
        if row.get("hit_ratio") is not None and row.get("lfu_copies_hit_ratio"):
            row["hit_vs_lfu_copies"] = row["hit_ratio"] / row["lfu_copies_hit_ratio"]
        row["reads_per_op"] = row["user_reads"] / operations if operations else None
        if row["user_read_device_ns"] is not None and operations:
            row["device_us_per_op"] = row["user_read_device_ns"] / 1000 / operations
        if row["process_cpu_ns"] is not None and operations:
            row["cpu_us_per_op"] = row["process_cpu_ns"] / 1000 / operations
        rows.append(row)
        timelines[w] = series(lines, window)
    return rows, timelines


def fill_read_cache_share(rows):
    """For read_cache: 1 - its slow-tier reads per operation / fast-only's
    reads per operation, the share of block reads its cache spared the slow
    tier (memory hits included), next to TierFS's hit."""
    for r in rows:
        if r["system"] != "read_cache":
            continue
        ref = find(rows, config=r["config"], workload=r["workload"], system=REFERENCE)
        if ref and ref.get("reads_per_op") and r.get("reads_per_op") is not None:
            slow = r["user_reads"] * (1 - (r["hit_ratio"] or 0)) / max(1, r["operations"])
            r["cache_spared_share"] = max(0.0, 1 - slow / ref["reads_per_op"])


CSV_COLUMNS = ["config", "slow_device", "system", "workload", "ops_per_sec", "ops_vs_fast_only",
               "p99_us", "p99_vs_fast_only", "measured_ms", "operations", "user_reads",
               "reads_per_op", "device_us_per_op", "cpu_us_per_op", "hit_ratio", "best_static_hit_ratio", "hit_vs_best_static",
               "best_static_copy_page_hit_ratio", "best_static_freed_hit_ratio",
               "belady_copies_hit_ratio", "byte_hit_ratio", "belady_warm_byte_ratio",
               "bytes_vs_belady_warm", "belady_warm_copy_byte_ratio", "bytes_vs_belady_warm_copies",
               "cache_spared_share", "fast_capacity_bytes",
               "best_static_capacity_bytes", "fast_use", "fast_copy_use", "moved_bytes",
               "segment_copy_bytes", "page_copy_bytes", "page_hits", "fast_device_write_bytes",
               "wal_bytes", "fast_writes_per_user_write", "live_read_us", "sim_read_us",
               "live_read_p99_us", "sim_read_p99_us", "sim_hit_ratio", "sim_byte_hit_ratio"]


def present(rows, config, systems):
    return [s for s in systems if any(r["config"] == config and r["system"] == s for r in rows)]


def table(rows, config, systems, workloads, cell, extra=()):
    tfs_table(rows, config, systems, workloads, cell, LABEL, extra)


def geomean_vs(rows, config, system, workloads, key="ops_vs_fast_only"):
    return geomean([(find(rows, config=config, system=system, workload=w) or {}).get(key)
                    for w in workloads])


def hit_cell(r):
    if r["system"] == "read_cache" and r.get("cache_spared_share") is not None:
        return "%s (cache %s)†" % (fmt(r.get("hit_ratio"), "pct0"),
                                   fmt(r["cache_spared_share"], "pct0"))
    if r["system"] == REFERENCE:
        return "%s / %s" % (fmt(r.get("hit_ratio"), "pct0"), fmt(r.get("best_static_hit_ratio"), "pct0"))
    return "%s / %s (%s)" % (fmt(r.get("hit_ratio"), "pct0"),
                             fmt(r.get("best_static_hit_ratio"), "pct0"),
                             fmt(r.get("hit_vs_best_static"), "ratio"))


def print_tables(rows, configs, systems, workloads, equal_cache, page, copy_page):
    for config, device in configs:
        sys_here = present(rows, config, systems)
        fast = next((r["best_static_capacity_bytes"] for r in rows if r["config"] == config), None)
        print("\n### %s: tier 0 %s, tier 1 %s\n" % (config, "optane", device))
        read_heavy = [w for w in READ_HEAVY if w in workloads]
        write_heavy = [w for w in WRITE_HEAVY if w in workloads]
        print("Throughput, ops/s of the measured run (vs fast-only):\n")
        table(rows, config, sys_here, workloads, lambda r: fmt(r["ops_per_sec"], "ops") + (
            "" if r["system"] == REFERENCE else " (%s)" % fmt(r.get("ops_vs_fast_only"), "ratio")),
            extra=[("geomean vs fast-only, read-heavy", lambda s: fmt(
                geomean_vs(rows, config, s, read_heavy), "ratio")),
                ("geomean vs fast-only, write-heavy", lambda s: fmt(
                    geomean_vs(rows, config, s, write_heavy), "ratio"))])
        print("\np99 of the main operation, µs (vs fast-only):\n")
        table(rows, config, sys_here, workloads, lambda r: fmt(r["p99_us"], "us") + (
            "" if r["system"] == REFERENCE else " (%s)" % fmt(r.get("p99_vs_fast_only"), "ratio")))
        reads = [w for w in workloads if w != "fillrandom"]
        print("\nTier 0's share of user reads / page-granular best static share (%d KiB pages "
              "in %s MiB) (hit / best (ratio)):\n" % (page >> 10, fmt(fast, "mib")))
        table(rows, config, sys_here, reads, hit_cell)
        print("\nOther ceilings of the measured window (tierfs-sim): best static at the copy "
              "page (%d KiB) / best static with space freed by deletions (%d KiB) / Belady's "
              "MIN on %d KiB copies:\n" % (copy_page >> 10, page >> 10, copy_page >> 10))
        table(rows, config, [s for s in sys_here if s != "read_cache"], reads,
              lambda r: " / ".join(fmt(r.get(k), "pct0") for k in (
                  "best_static_copy_page_hit_ratio", "best_static_freed_hit_ratio",
                  "belady_copies_hit_ratio")))
        print("\nTier 0's share of the user reads' bytes / the most any tier 0 of %s MiB "
              "serves of them, whatever it held when the window began (Belady's MIN started "
              "warm, on bytes; tierfs-sim's belady-warm), taking bytes in when their segment "
              "is read or written (a bound of every policy, loose: 1.0 when every segment is accessed "
              "often enough that the bytes waited for at any moment fit tier 0) / when their %d "
              "KiB copy unit is (a bound of copies alone) (share / segment ceiling (ratio) / copy "
              "ceiling):\n"
              % (fmt(fast, "mib"), copy_page >> 10))
        table(rows, config, [s for s in sys_here if s != "read_cache"], reads,
              lambda r: "%s / %s (%s) / %s" % (
                  fmt(r.get("byte_hit_ratio"), "pct0"), fmt(r.get("belady_warm_byte_ratio"), "pct0"),
                  fmt(r.get("bytes_vs_belady_warm"), "ratio"),
                  fmt(r.get("belady_warm_copy_byte_ratio"), "pct0")))
        print("\nReferences that do not know the window (tierfs-sim, %d KiB pages, learning "
              "from the run before it; tools/sim/ceiling.h): tier 0's share / the best static "
              "placement chosen on the reads before the window / an exact-count LFU copy cache "
              "(share / LFU (ratio)):\n" % (copy_page >> 10))
        table(rows, config, [s for s in sys_here if s != "read_cache"], reads,
              lambda r: "%s / %s / %s (%s)" % (
                  fmt(r.get("hit_ratio"), "pct0"), fmt(r.get("past_static_hit_ratio"), "pct0"),
                  fmt(r.get("lfu_copies_hit_ratio"), "pct0"), fmt(r.get("hit_vs_lfu_copies"),
                                                                  "ratio")))
        print("\nTier 0 in the measured window: mean use of its capacity (of it, hot-page "
              "copies):\n")
        table(rows, config, [s for s in sys_here if s != REFERENCE], workloads,
              lambda r: "%s (%s)" % (fmt(r["fast_use"], "pct0"), fmt(r["fast_copy_use"], "pct0")))
        print("\nMiB migrated + segment copies + hot pages copied in the measured window:\n")
        table(rows, config, [s for s in sys_here if s != REFERENCE], workloads,
              lambda r: "%s + %s + %s" % (fmt(r["moved_bytes"], "mib"),
                                           fmt(r["segment_copy_bytes"], "mib"),
                                           fmt(r["page_copy_bytes"], "mib")))
        print("\nFast-device writes per user write (bytes written to tier 0's device / bytes "
              "RocksDB appended to its WAL, measured window):\n")
        table(rows, config, sys_here, [w for w in workloads if w != "c-zipf" and w != "c-hot"],
              lambda r: fmt(r.get("fast_writes_per_user_write"), "ratio"))
        if "read_cache" in sys_here and not equal_cache.get(config, True):
            print("\n**read_cache is not at equal fast bytes here**: RocksDB's persistent cache "
                  "takes at least 120 MiB (its cache files are 100 MiB), more than tier 0's "
                  "%s MiB; it is left out of the targets." % fmt(fast, "mib"))


def targets(rows, configs, systems, workloads, equal_cache):
    """The issue's targets, per configuration and TierFS policy: (lines, table rows)."""
    out = []
    for config, _ in configs:
        sys_here = present(rows, config, systems)
        baselines = [b for b in ROCKSDB_BASELINES if b in sys_here and
                     (b != "read_cache" or equal_cache.get(config, True))]
        read_heavy = [w for w in READ_HEAVY if w in workloads]
        for p in [s for s in sys_here if s not in NOT_POLICIES]:
            cells = []
            ratios = [(find(rows, config=config, system=p, workload=w) or {}).get("hit_vs_best_static")
                      for w in HIT_TARGET if w in workloads]
            measured = [x for x in ratios if x is not None]
            cells.append(("hit >= 0.9 best static (%d)" % len(measured),
                          min(measured) if measured else None, 0.9))
            uses = [(find(rows, config=config, system=p, workload=w) or {}).get("fast_use")
                    for w in read_heavy]
            uses = [u for u in uses if u is not None]
            cells.append(("tier 0 >= 90% full", min(uses) if uses else None, 0.9))
            for b, goal in (("db_paths", 2.0), ("rocksdb-levels", 2.0), ("last_level_temp", 2.0),
                            ("read_cache", 1.3)):
                if b not in baselines:
                    continue
                both = [w for w in read_heavy if find(rows, config=config, system=b, workload=w)
                        and find(rows, config=config, system=p, workload=w)]
                g = geomean([find(rows, config=config, system=p, workload=w)["ops_per_sec"] /
                             find(rows, config=config, system=b, workload=w)["ops_per_sec"]
                             for w in both])
                cells.append(("vs %s >= %.1fx (%d)" % (b, goal, len(both)), g, goal))
            worst = None
            for w in workloads:
                r = find(rows, config=config, system=p, workload=w)
                best = max([(find(rows, config=config, system=b, workload=w) or {}).get(
                    "ops_per_sec") or 0 for b in baselines] + [0])
                if r and r["ops_per_sec"] and best:
                    worst = min(worst if worst is not None else 1e9, r["ops_per_sec"] / best)
            cells.append(("every workload >= 0.95 best RocksDB", worst, 0.95))
            ff = []
            for w in WRITE_HEAVY:
                r = find(rows, config=config, system=p, workload=w)
                f = find(rows, config=config, system="fast-first", workload=w)
                if r and f and r["ops_per_sec"] and f["ops_per_sec"]:
                    ff.append(r["ops_per_sec"] / f["ops_per_sec"])
            cells.append(("A, F, fill >= 0.95 fast-first (%d)" % len(ff), min(ff) if ff else None,
                          0.95))
            out.append((config, p, cells))
    return out


def read_rows(path):
    """A report's CSV back as rows: numbers as floats, empty cells as None."""
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            row = {}
            for k, v in r.items():
                try:
                    row[k] = float(v) if v != "" else None
                except ValueError:
                    row[k] = v
            rows.append(row)
    return rows


def interpolated_ops(fast_ops, slow_ops, share):
    """Ops/s with `share` of the user reads on tier 0, from fast-only's and slow-only's: one
    client's time per operation is linear in the share when the LSM and the block cache are
    the same (reads per operation equal), so it is interpolated between theirs."""
    if not fast_ops or not slow_ops or share is None:
        return None
    return 1.0 / (share / fast_ops + (1.0 - share) / slow_ops)


# The ceilings a throughput bound is computed at: the page-granular best static placement of
# the window, and Belady's MIN on copies (knowing the future: no online policy does better).
BOUND_CEILINGS = (("best static", "best_static_hit_ratio"), ("Belady warm", "belady_warm_byte_ratio"))


def bounds(rows, configs, systems, workloads):
    """Per configuration, read-heavy workload and TierFS policy: the throughput the model
    gives at the policy's measured share (a check of the model) and at each ceiling's share of
    its window (BOUND_CEILINGS), over each RocksDB baseline's measured throughput."""
    out = []
    for config, _ in configs:
        sys_here = present(rows, config, systems)
        baselines = [b for b in ROCKSDB_BASELINES if b in sys_here]
        for w in [w for w in READ_HEAVY if w in workloads]:
            fast = find(rows, config=config, system=REFERENCE, workload=w)
            slow = find(rows, config=config, system="slow-only", workload=w)
            if not fast or not slow:
                continue
            for p in [x for x in sys_here if x not in NOT_POLICIES]:
                r = find(rows, config=config, system=p, workload=w)
                if not r or not r.get("ops_per_sec"):
                    continue
                f = {"config": config, "workload": w, "system": p, "ops": r["ops_per_sec"],
                     "share": r.get("hit_ratio"), "ceilings": []}
                f["at_share"] = interpolated_ops(fast["ops_per_sec"], slow["ops_per_sec"],
                                                 f["share"])
                for name, key in BOUND_CEILINGS:
                    bound = interpolated_ops(fast["ops_per_sec"], slow["ops_per_sec"],
                                             r.get(key))
                    vs = {}
                    for b in baselines:
                        br = find(rows, config=config, system=b, workload=w)
                        if br and br.get("ops_per_sec") and bound:
                            vs[b] = bound / br["ops_per_sec"]
                    f["ceilings"].append({"name": name, "share": r.get(key), "bound": bound,
                                          "vs": vs})
                out.append(f)
    return out


def fidelity(rows, configs, systems, workloads):
    """The simulator against the live runs: per configuration and workload,
    the runs that have both a live and a simulated mean user-read latency
    (summarize's replay of the same window), and Kendall's tau between the
    live and the simulated ranking of their systems by that latency (None
    with fewer than two)."""
    found = []
    for config, _ in configs:
        for w in workloads:
            both = [r for r in (find(rows, config=config, system=s, workload=w) for s in systems)
                    if r and r.get("live_read_us") and r.get("sim_read_us")]
            if not both:
                continue
            tau = None
            if len(both) >= 2:
                from scipy.stats import kendalltau
                tau = float(kendalltau([r["live_read_us"] for r in both],
                                       [r["sim_read_us"] for r in both])[0])
            found.append({"config": config, "workload": w, "runs": both, "tau": tau})
    return found


def relative_error(sim, live):
    """(sim - live) / live as a signed percentage cell; n/a without both."""
    return "%+.1f%%" % (100 * (sim - live) / live) if sim is not None and live else "n/a"


def print_fidelity(found):
    if not found:
        return
    print("\n### The simulator against the live runs\n")
    print("Each run's measured window replayed by `tierfs-sim run` with the store's own URI "
          "(policy and configuration), after the same warm-up: the user reads' mean and p99 "
          "latency (live: the latencies the store measured, in the trace) and tier 0's share "
          "of their bytes (live: the statistics log's user_read_bytes; the share of reads "
          "counted by pieces where a log predates it, marked *), and Kendall's tau between the "
          "live and the simulated ranking of the systems by mean read latency (1: the same "
          "order).\n")
    print("| config | workload | system | read us live / sim | error | p99 us live / sim | "
          "tier 0 share live / sim | error |")
    print("|:---|:---|:---|---:|---:|---:|---:|---:|")
    for f in found:
        for r in f["runs"]:
            live, sim, mark = r.get("byte_hit_ratio"), r.get("sim_byte_hit_ratio"), ""
            if live is None or sim is None:
                live, sim, mark = r.get("hit_ratio"), r.get("sim_hit_ratio"), "*"
            print("| %s | %s | %s | %s / %s | %s | %s / %s | %s / %s%s | %s |" % (
                f["config"], LABEL[f["workload"]], r["system"], fmt(r["live_read_us"], "us"),
                fmt(r["sim_read_us"], "us"), relative_error(r["sim_read_us"], r["live_read_us"]),
                fmt(r.get("live_read_p99_us"), "us"), fmt(r.get("sim_read_p99_us"), "us"),
                fmt(live, "pct"), fmt(sim, "pct"), mark, relative_error(sim, live)))
    print()
    for f in found:
        print("- %s, %s: Kendall tau %s over %d systems" % (
            f["config"], LABEL[f["workload"]],
            "n/a" if f["tau"] is None else "%.2f" % f["tau"], len(f["runs"])))


def print_bounds(found):
    if not found:
        return
    print("\n### What a placement knowing the window would reach (the throughput targets' "
          "ceiling)\n")
    print("Time per operation interpolated between slow-only's and fast-only's by tier 0's share "
          "of user reads (one client; the same LSM and block cache): *model* at the policy's "
          "measured share (against its measured ops/s: the model's error), then at each "
          "ceiling's share of the same window (the page-granular best static placement; "
          "Belady's MIN started warm, on bytes), and that bound over each RocksDB baseline's "
          "measured ops/s. A throughput target above the Belady-warm bound's ratio is out of "
          "reach for any tier 0 of this size whose contents change only when their segment is "
          "read or written, as far as the linear model holds (it is checked in the *model* "
          "column).\n")
    names = sorted({b for f in found for c in f["ceilings"] for b in c["vs"]},
                   key=ROCKSDB_BASELINES.index)
    ceilings = [name for name, _ in BOUND_CEILINGS]
    print("| config | workload | policy | share | ops/s | model | " +
          " | ".join("%s share, bound" % c for c in ceilings) + " | " +
          " | ".join("bound / %s (%s)" % (b, ", ".join(ceilings)) for b in names) + " |")
    print("|:---|:---|:---|" + "---:|" * (3 + len(ceilings) + len(names)))
    for f in found:
        cells = [f["config"], LABEL.get(f["workload"], f["workload"]), f["system"],
                 fmt(f["share"], "pct"), "%.0f" % f["ops"],
                 "%.0f (%+.0f%%)" % (f["at_share"], 100 * (f["at_share"] / f["ops"] - 1))
                 if f["at_share"] else "n/a"]
        for c in f["ceilings"]:
            cells.append("%s, %s" % (fmt(c["share"], "pct"),
                                     "%.0f" % c["bound"] if c["bound"] else "n/a"))
        for b in names:
            cells.append(", ".join(fmt(c["vs"].get(b), "ratio") for c in f["ceilings"]))
        print("| " + " | ".join(cells) + " |")
    print()
    for config in dict.fromkeys(f["config"] for f in found):
        for p in dict.fromkeys(f["system"] for f in found if f["config"] == config):
            mine = [f for f in found if f["config"] == config and f["system"] == p]
            parts = []
            for i, c in enumerate(ceilings):
                parts.append("at %s: %s" % (c, ", ".join(
                    "%s %s" % (b, fmt(geomean([f["ceilings"][i]["vs"].get(b) for f in mine]),
                                      "ratio")) for b in names)))
            print("- %s, %s: geomean of the bound over the baselines, %s." % (
                config, p, "; ".join(parts)))
    print()


def print_targets(results):
    if not results:
        return
    print("\n### Targets (each cell: the worst case measured, PASS if it meets the goal)\n")
    for config in dict.fromkeys(c for c, _, _ in results):
        mine = [(p, cells) for c, p, cells in results if c == config]
        names = [name for name, _, _ in mine[0][1]]
        print("%s:\n" % config)
        print("| policy | " + " | ".join(names) + " |")
        print("|:---|" + "---:|" * len(names))
        for p, cells in mine:
            shown = []
            for _, value, goal in cells:
                if value is None:
                    shown.append("n/a")
                else:
                    shown.append("%s %s" % ("PASS" if value >= goal else "FAIL",
                                            fmt(value, "ratio")))
            print("| %s | %s |" % (p, " | ".join(shown)))
        print()


def plot_throughput(rows, configs, systems, workloads, png, title):
    plt = pyplot()
    fig, axes = plt.subplots(len(configs), 1, figsize=(15, 4.8 * len(configs)), squeeze=False)
    for (config, device), (ax,) in zip(configs, axes):
        here = [s for s in present(rows, config, systems) if s != REFERENCE]
        drawn = grouped_bars(ax, workloads, here,
                             lambda w, s: (find(rows, config=config, system=s, workload=w) or {}).get(
                                 "ops_vs_fast_only"),
                             lambda s, i: {"color": "C%d" % (i % 10),
                                           "hatch": "//" if s in ROCKSDB_BASELINES else None})
        ax.set_xticklabels([LABEL[w] for w in workloads], fontsize=8)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        if min([1.0] + drawn) < 0.05:
            ax.set_yscale("log")
        ax.set_ylabel("throughput / fast-only")
        ax.set_title("%s (tier 1 %s); hatched: RocksDB's own tiering; dashed: fast-only"
                     % (config, device))
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def plot_timelines(timelines, rows, configs, systems, workloads, index, ylabel, png, title):
    """One panel per (workload, configuration): a line per system of
    timeline[index] over the process's time; the measured window shaded."""
    plt = pyplot()
    fig, axes = plt.subplots(len(workloads), len(configs), figsize=(7.5 * len(configs),
                                                                    2.6 * len(workloads)),
                             squeeze=False, sharey=True)
    for i, w in enumerate(workloads):
        for j, (config, device) in enumerate(configs):
            ax = axes[i][j]
            start = None
            for k, s in enumerate(systems):
                t = timelines.get((config, s, w))
                if not t or s == REFERENCE:
                    continue
                points, start = t
                xs = [p[0] for p in points if p[index] is not None]
                ys = [100 * p[index] for p in points if p[index] is not None]
                ax.plot(xs, ys, label=s, color="C%d" % (k % 10), linewidth=1,
                        linestyle="--" if s in ROCKSDB_BASELINES else "-")
            if start is not None:
                ax.axvspan(start, ax.get_xlim()[1], color="grey", alpha=0.12, linewidth=0)
            if index == 1:
                best = [r.get("best_static_hit_ratio") for r in rows if r["config"] == config
                        and r["workload"] == w and r.get("best_static_hit_ratio")]
                if best:
                    ax.axhline(100 * sorted(best)[len(best) // 2], color="black", linewidth=0.8,
                               linestyle=":", label="best static (median)")
            ax.set_title("%s, %s (tier 1 %s)" % (LABEL[w], config, device), fontsize=9)
            ax.set_ylim(0, 105)
            if j == 0:
                ax.set_ylabel(ylabel, fontsize=8)
            if i == len(workloads) - 1:
                ax.set_xlabel("seconds since the store opened (shaded: measured)", fontsize=8)
    handles, labels = [], []
    for row in axes:
        for ax in row:
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
    fig.legend(handles, labels, fontsize=7, loc="lower center", ncol=min(6, max(1, len(labels))))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, 0.97))
    fig.savefig(png, dpi=90)
    plt.close(fig)


def report(args):
    rows, configs, systems, timelines, equal_cache = [], [], [], {}, {}
    with open(args.runs) as f:
        runs = [line.split() for line in f if line.strip()]
    for config, device, system, fam, run_dir, fast_bytes in runs:
        if (config, device) not in configs:
            configs.append((config, device))
        if system not in systems:
            systems.append(system)
        try:
            got, lines = measure(config, device, system, fam, run_dir, int(fast_bytes),
                                 args.copy_page)
        except (OSError, ValueError, KeyError) as e:
            sys.exit("fast_tier_report.py: run %s %s %s in %s: %s" % (config, system, fam,
                                                                     run_dir, e))
        rows += got
        for w, t in lines.items():
            timelines[(config, system, w)] = t
        if system == "read_cache":
            cap = max(r["fast_capacity_bytes"] for r in got) if got else 0
            equal_cache[config] = cap <= int(fast_bytes) + (1 << 20)
    if not rows:
        sys.exit("fast_tier_report.py: no runs in %s" % args.runs)
    normalize(rows, "system", (("ops_per_sec", "ops_vs_fast_only"), ("p99_us", "p99_vs_fast_only")))
    fill_read_cache_share(rows)
    workloads = [w for w in WORKLOADS if any(r["workload"] == w for r in rows)]
    write_csv(args.csv, rows, CSV_COLUMNS)
    print_tables(rows, configs, systems, workloads, equal_cache, args.page, args.copy_page)
    print("\nCells: ops/s and p99 of the measured run (after the warm-up), each also over "
          "fast-only's in the same configuration and workload. hit / best: tier 0's share of "
          "the user reads in the measured window (TierFS's counters, from the statistics log) / "
          "the page-granular best static share of the same window (`tierfs-sim ceiling`, "
          "best-static at %d KiB, on the trace cut to the window: pages ranked by their reads, "
          "as many as fit in tier 0's capacity for the whole window), and their ratio; each "
          "run's own trace, fast-only's with the others' capacity. † read_cache: TierFS sees "
          "only reads of its cache files that reach tier 0, not the blocks its cache serves "
          "from memory (the cache file being written is "
          "served from its buffers); \"cache\" is 1 - its slow-tier reads per operation / "
          "fast-only's reads per operation. Use: tier 0's used bytes over its capacity, mean "
          "of the statistics lines in the window. Moved: migrations + segment copies + hot "
          "pages or blocks copied (their bytes). Fast-device writes per user write: "
          "tier 0's write_bytes + bytes moved, copied and page-copied into tier 0 / WAL bytes "
          "appended (from the trace); YCSB C writes nothing. Full figures: the CSV."
          % (args.page >> 10))
    results = targets(rows, configs, systems, workloads, equal_cache)
    print_targets(results)
    print_bounds(bounds(rows, configs, systems, workloads))
    print_fidelity(fidelity(rows, configs, systems, workloads))
    plot_throughput(rows, configs, systems, workloads, args.png_prefix + "-throughput.png",
                    args.title + ": throughput of the measured run relative to fast-only")
    timed = [w for w in workloads if w != "fillrandom"]
    plot_timelines(timelines, rows, configs, systems, timed, 1, "tier-0 share of user reads (%)",
                   args.png_prefix + "-hit.png",
                   args.title + ": tier 0's share of user reads over time (per statistics line)")
    plot_timelines(timelines, rows, configs, systems, timed, 2, "tier 0 used (%)",
                   args.png_prefix + "-use.png",
                   args.title + ": tier 0's use over time (homes, reservations and page copies)")
    return results


# ---- self-test ----

def self_test():
    failures = []

    def check(what, got, want, tol=1e-9):
        if isinstance(want, float) and got is not None and abs(got - want) <= tol:
            return
        if got != want:
            failures.append("%s: got %r, want %r" % (what, got, want))

    def tier(user_reads, used, cap, **kw):
        d = {"capacity": cap, "used_bytes": used, "user_reads": user_reads, "page_copy_bytes": 0,
             "moved_bytes_in": 0, "copy_bytes_in": 0, "pages_copied": 0, "page_hits": 0,
             "write_bytes": 0}
        d.update(kw)
        return d

    def line(t_s, r0, r1, used0, **kw0):
        return {"unix_ns": int(t_s * 1e9), "elapsed_ms": int(t_s * 1000),
                "tiers": [tier(r0, used0, 100, **kw0), tier(r1, 0, 1000)]}

    # 10 s of warm-up, 5 measured, then a close: the window is (10, 15].
    log = [line(0, 0, 0, 10)] + [line(s, 10 * s, 30 * s, 50 + s) for s in range(1, 16)] + \
          [line(16, 150, 450, 90, pages_copied=2, write_bytes=700)]
    window = measured_window(log, 5000, False)
    check("window", window, (int(10e9), int(15e9)))
    st = stats_figures(log, window, PAGE)
    check("hit over the window", st["hit_ratio"], 0.25)
    check("mean use", st["fast_use"], sum(50 + s for s in range(11, 16)) / 5 / 100)
    check("whole window", measured_window(log, 5000, True), (0, int(16e9)))
    st = stats_figures(log, measured_window(log, None, True), PAGE)
    check("page bytes copied", st["page_copy_bytes"], 2 * PAGE)
    # A log with the bytes copies wrote (block copies) counts those.
    log[-1]["tiers"][0]["page_copied_bytes"] = 9000
    for x in log[:-1]:
        x["tiers"][0]["page_copied_bytes"] = 0
    st = stats_figures(log, measured_window(log, None, True), PAGE)
    check("block bytes copied", st["page_copy_bytes"], 9000)
    check("fast device writes", st["fast_device_write_bytes"], 700 + 2 * PAGE)
    check("no device time in an older log", st["user_read_device_ns"], None)
    # The device model's time for user reads, both tiers, over the window.
    for x in log:
        for i, t in enumerate(x["tiers"]):
            t["user_read_device_ns"] = (i + 1) * 1000 * x["elapsed_ms"]
    st = stats_figures(log, window, PAGE)
    check("device time over the window", st["user_read_device_ns"], (1 + 2) * 1000 * 5000)
    check("no CPU time in an older log", st["process_cpu_ns"], None)
    # The process's CPU: 0.4 s a second of the log; 2 s over the 5 s window.
    for x in log:
        x["process_cpu_ns"] = 400000 * x["elapsed_ms"]
    check("CPU time over the window", stats_figures(log, window, PAGE)["process_cpu_ns"], 2 * 10**9)
    saved = log[-2]["process_cpu_ns"]
    log[-2]["process_cpu_ns"] = -1  # the clock failed at the window's end
    check("no CPU time from a failed clock", stats_figures(log, window, PAGE)["process_cpu_ns"], None)
    log[-2]["process_cpu_ns"] = saved
    check("no byte share in an older log", st["byte_hit_ratio"], None)
    # Bytes of user reads: tier 0 4 KiB a second, tier 1 12 KiB: a byte share of 0.25.
    for x in log:
        for i, t in enumerate(x["tiers"]):
            t["user_read_bytes"] = (1 + 2 * i) * 4096 * x["elapsed_ms"] // 1000
    st = stats_figures(log, window, PAGE)
    check("byte share over the window", st["byte_hit_ratio"], 0.25)
    points, start = series(log, window)
    check("series length", len(points), 16)
    check("series hit", points[3][1], 0.25)
    check("measured window starts", start, 10.0)

    # The simulator against live runs: three systems ranked alike (tau 1), a
    # fourth without a replay left out; one ranked the other way round (tau -1).
    made = [{"config": "perf", "system": s, "workload": "c-zipf", "live_read_us": live,
             "sim_read_us": sim, "hit_ratio": 0.5, "sim_hit_ratio": 0.4}
            for s, live, sim in (("a", 10.0, 11.0), ("b", 20.0, 19.0), ("c", 30.0, 35.0),
                                 ("read_cache", 25.0, None))]
    made += [{"config": "perf", "system": s, "workload": "b-hot", "live_read_us": live,
              "sim_read_us": sim} for s, live, sim in (("a", 10.0, 30.0), ("b", 20.0, 10.0))]
    found = fidelity(made, [("perf", "sata-ssd")], ["a", "b", "c", "read_cache"],
                     ["c-zipf", "b-hot"])
    check("fidelity groups", [(f["workload"], len(f["runs"])) for f in found],
          [("c-zipf", 3), ("b-hot", 2)])
    if len(found) == 2:
        check("tau, the same ranking", found[0]["tau"], 1.0)
        check("tau, reversed", found[1]["tau"], -1.0)
    check("relative error", relative_error(11.0, 10.0), "+10.0%")
    check("relative error of shares", relative_error(0.4, 0.5), "-20.0%")
    check("relative error without a live figure", relative_error(1.0, None), "n/a")

    # The bound: 1000 and 100 ops/s at shares 1 and 0 give 1/(0.5/1000 + 0.5/100) at 0.5.
    check("interpolated ops", interpolated_ops(1000, 100, 0.5), 1 / 0.0055, 1e-6)
    check("interpolated, no share", interpolated_ops(1000, 100, None), None)
    made = [{"config": "perf", "system": s, "workload": "c-zipf", "ops_per_sec": o,
             "hit_ratio": h, "best_static_hit_ratio": b, "belady_warm_byte_ratio": 0.8}
            for s, o, h, b in ((REFERENCE, 1000, 1.0, 0.9), ("slow-only", 100, 0.0, 0.9),
                               ("lru", 150, 0.3, 0.6), ("db_paths", 120, 0.1, 0.6))]
    found = bounds(made, [("perf", "sata-ssd")], [REFERENCE, "slow-only", "lru", "db_paths"],
                   ["c-zipf"])
    check("bound rows", [(f["system"], f["workload"]) for f in found], [("lru", "c-zipf")])
    if found:
        static, belady = found[0]["ceilings"]
        check("bound at best static", static["bound"], 1 / (0.6 / 1000 + 0.4 / 100), 1e-6)
        check("bound over db_paths", static["vs"]["db_paths"],
              1 / (0.6 / 1000 + 0.4 / 100) / 120, 1e-9)
        check("bound at Belady warm", belady["bound"], 1 / (0.8 / 1000 + 0.2 / 100), 1e-6)

    with tempfile.TemporaryDirectory(prefix="fast-tier-bounds-test-") as tmp:
        path = os.path.join(tmp, "made.csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["config", "slow_device"] + sorted(made[0]))
            w.writeheader()
            for r in made:
                w.writerow(dict(r, slow_device="sata-ssd"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["bounds", path])
        if "| perf | YCSB C zipfian | lru | 30.0% | 150 |" not in out.getvalue():
            failures.append("bounds from a CSV:\n" + out.getvalue())

    # The targets from a CSV: on db_bench rocksdb-levels stands for db_paths, so a policy
    # at 0.8x of it on fillrandom fails "every workload", and rocksdb-levels gets no row.
    fill = [{"config": "perf", "slow_device": "sata-ssd", "system": s, "workload": "fillrandom",
             "ops_per_sec": o, "best_static_capacity_bytes": 1 << 20,
             "fast_capacity_bytes": 1 << 20}
            for s, o in ((REFERENCE, 1000), ("slow-only", 100), ("fast-first", 160),
                         ("rocksdb-levels", 200), ("last_level_temp", 150))]
    with tempfile.TemporaryDirectory(prefix="fast-tier-targets-test-") as tmp:
        path = os.path.join(tmp, "fill.csv")
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=sorted(fill[0]))
            w.writeheader()
            w.writerows(fill)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["targets", path])
        rows = [line for line in out.getvalue().splitlines() if line.startswith("| ")]
        if (len(rows) != 2 or "FAIL 0.800" not in rows[1] or
                not rows[1].startswith("| fast-first |")):
            failures.append("targets from a CSV:\n" + out.getvalue())

    # Whole runs through summarize and report: two systems, two workloads.
    with tempfile.TemporaryDirectory(prefix="fast-tier-report-test-") as tmp:
        runs = os.path.join(tmp, "runs.txt")
        with open(runs, "w") as f:
            for system, ops, hit in (("fast-only", 1000, 1.0), ("lru", 400, 0.5),
                                     ("db_paths", 100, 0.1)):
                d = os.path.join(tmp, system)
                os.makedirs(d)
                for w, main_op in (("c-zipf", "READ"), ("a", "READ")):
                    rep = [{"metric": "OVERALL", "measurement": "Throughput(ops/sec)", "value": ops},
                           {"metric": "OVERALL", "measurement": "RunTime(ms)", "value": 5000},
                           {"metric": main_op, "measurement": "99thPercentileLatency(us)",
                            "value": 100000 / ops}]
                    with open(os.path.join(d, w + ".json"), "w") as g:
                        json.dump(rep, g)
                    with open(os.path.join(d, w + ".stats.jsonl"), "w") as g:
                        for s in range(0, 17):
                            reads = 10 * min(s, 15)
                            x = line(s, int(hit * reads), int((1 - hit) * reads), 95)
                            for t, share in zip(x["tiers"], (hit, 1 - hit)):
                                t["user_read_bytes"] = int(share * reads) * 4096
                            g.write(json.dumps(x) + "\n")
                    with open(os.path.join(d, w + ".trace.json"), "w") as g:
                        json.dump({"trace_user_reads": 50, "best_static_hit_ratio": 0.8,
                                   "wal_bytes": 1000, "belady_warm_copy_byte_ratio": 0.8}, g)
                f.write("perf sata-ssd %s ycsb %s 100\n" % (system, d))
        out = io.StringIO()
        prefix = os.path.join(tmp, "out")
        with contextlib.redirect_stdout(out):
            results = report(argparse.Namespace(runs=runs, csv=prefix + ".csv", png_prefix=prefix,
                                                title="test", page=PAGE, copy_page=8192))
        with open(prefix + ".csv") as f:
            got = {(r["system"], r["workload"]): r for r in csv.DictReader(f)}
        check("CSV rows", len(got), 6)
        check("lru vs fast-only", float(got[("lru", "c-zipf")]["ops_vs_fast_only"]), 0.4)
        check("lru hit / best", float(got[("lru", "c-zipf")]["hit_vs_best_static"]), 0.625)
        check("lru bytes / Belady warm on copies",
              float(got[("lru", "c-zipf")]["bytes_vs_belady_warm_copies"] or "nan"), 0.625)
        md = out.getvalue()
        for needle in ("| YCSB C zipfian | 1000 | 400 (0.400) | 100 (0.100) |",
                       "| lru | FAIL 0.625 | PASS 0.950 | PASS 4.000 |"):
            if needle not in md:
                failures.append("markdown lacks %r:\n%s" % (needle, md))
        check("targets", [c for c, _, _ in results], ["perf"])
        for suffix in ("-throughput.png", "-hit.png", "-use.png"):
            if not os.path.exists(prefix + suffix) or os.path.getsize(prefix + suffix) < 1000:
                failures.append("no plot " + prefix + suffix)
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print("fast_tier_report.py self-test: %s" % ("FAILED" if failures else "passed"),
          file=sys.stderr)
    return 1 if failures else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-test", action="store_true")
    sub = ap.add_subparsers(dest="command")
    s = sub.add_parser("summarize")
    s.add_argument("--run-dir", required=True)
    s.add_argument("--workload", required=True, choices=WORKLOADS)
    s.add_argument("--capacity", required=True, type=int)
    s.add_argument("--trace-tool", required=True)
    s.add_argument("--sim-tool", required=True)
    s.add_argument("--page", type=int, default=PAGE)
    s.add_argument("--copy-page", type=int, required=True)
    s.add_argument("--segment", type=int, required=True)
    s.add_argument("--config-uri", help="the live store's URI: replay the window in tierfs-sim")
    s.add_argument("--state-in", help="the policy's saved state (meta/AGENTS) at the process's "
                   "start: the replay starts from it")
    s.add_argument("--copies-in", help="the hot-page copies' saved state (meta/PAGES.state) at "
                   "the process's start: the replay starts with them")
    s.add_argument("--stats-in", help="the segments' saved statistics (meta/STATS) at the "
                   "process's start: the replay gives them to the segments it holds")
    r = sub.add_parser("report")
    r.add_argument("--runs", required=True)
    r.add_argument("--csv", required=True)
    r.add_argument("--png-prefix", required=True)
    r.add_argument("--title", default="TierFS: the fast tier")
    r.add_argument("--page", type=int, default=PAGE)
    r.add_argument("--copy-page", type=int, required=True)
    b = sub.add_parser("bounds", help="the throughput bounds of a report's CSV")
    b.add_argument("csv")
    t = sub.add_parser("targets", help="the targets table of a report's CSV")
    t.add_argument("csv")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    if args.command == "targets":
        rows = read_rows(args.csv)
        configs = list(dict.fromkeys((r["config"], r["slow_device"]) for r in rows))
        # The read cache is at equal fast bytes where its tier 0 is no larger.
        equal_cache = {}
        for config, _ in configs:
            caps = [r["fast_capacity_bytes"] for r in rows
                    if r["config"] == config and r["system"] == "read_cache"]
            fast = [r["best_static_capacity_bytes"] for r in rows
                    if r["config"] == config and r["best_static_capacity_bytes"]]
            if caps and fast:
                equal_cache[config] = max(caps) <= max(fast) + (1 << 20)
        print_targets(targets(rows, configs, list(dict.fromkeys(r["system"] for r in rows)),
                              [w for w in WORKLOADS if any(r["workload"] == w for r in rows)],
                              equal_cache))
        return 0
    if args.command == "bounds":
        rows = read_rows(args.csv)
        print_bounds(bounds(rows, list(dict.fromkeys((r["config"], r["slow_device"])
                                                      for r in rows)),
                            list(dict.fromkeys(r["system"] for r in rows)),
                            [w for w in WORKLOADS if any(r["workload"] == w for r in rows)]))
        return 0
    if args.command == "summarize":
        t = summarize(args.run_dir, args.workload, args.capacity,
                      (args.trace_tool, args.sim_tool), args.page, args.copy_page, args.segment,
                      args.config_uri, args.state_in, args.copies_in, args.stats_in)
        print(json.dumps(t))
        return 0
    if args.command == "report":
        report(args)
        return 0
    ap.error("a command: summarize, report, bounds, targets (or --self-test)")
    return 2


if __name__ == "__main__":
    sys.exit(main())
