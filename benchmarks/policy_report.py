#!/usr/bin/env python3
"""policy_report.py: tables, CSV, plot and targets for benchmarks/policies.sh.

Reads the run directories policies.sh leaves behind and prints the markdown
tables and the target lines on stdout; writes the CSV and the PNG.

  policy_report.py --runs RUNS --csv OUT.csv --png OUT.png [--title TEXT]
  policy_report.py --rocksdb-fast-bytes DIR
      prints the bytes the RocksDB run in DIR kept fast during readrandom (SSTs
      off the last level + WAL, after the fill or after readrandom, the larger),
      for FAST_PCT=rocksdb

RUNS has one line per run, "CONFIG DEVICE POLICY DIR". DIR holds, for each
phase P of PHASES, P.log (db_bench's output, run with --histogram=1 and
--statistics=1) and, taken after the phase:
  TierFS runs       P.stats.json     `tierfs --json stats`
                    P.segments.json  `tierfs --db=/db --json segments`
  the RocksDB run   P.files.txt      "NAME BYTES" per file of the database
                    P.warm.txt       SimulatedHybridFileSystem's warm files
A phase's figures are the differences between the snapshot after it and the
one after the phase before (zero before the fill: every store starts empty).

Definitions (also printed under the tables):
  moved      bytes migrated or copied between tiers: sum over tiers of
             moved_bytes_in + copy_bytes_in
  write amp  (bytes written to the devices, migrations and copies included) /
             (bytes RocksDB wrote through TierFS): sum(write_bytes + moved) /
             sum(write_bytes)
  hit        tier 0's share of the user reads (tier 0 user_reads / all user_reads)
  best static the hit ratio of the best placement fixed for the phase: the
             phase's user reads per segment (file, segment), segments sorted by
             reads, taken while they fit in tier 0's capacity; hits / reads.
             Only segments alive at the end of the phase count (a compaction
             deletes files and their counters): `covered` is the share of the
             phase's user reads (tier stats) those segments account for.
Standard library, matplotlib and tfs_report.py (beside it) only.
"""
import argparse
import os
import re
import sys

from tfs_report import (REFERENCE, bar_x, find, fmt, grouped_bars, load_json, normalize, pyplot,
                        write_csv)

PHASES = ["fillrandom", "readrandom", "mixgraph", "readwhilewriting"]
READ_PHASES = PHASES[1:]
ROCKSDB = "rocksdb-sim"
# The operation whose latency a phase reports: its writes for the fill, the
# gets otherwise (readwhilewriting's writer and mixgraph's puts and seeks have
# histograms of their own, in the logs).
LATENCY_OP = {"fillrandom": "write"}


def parse_log(path, phase):
    """ops/sec and seconds, latency histograms, statistics, found keys, level
    sizes; of the last run of `phase` where the log has several (histograms:
    the last of each operation)."""
    with open(path) as f:
        text = f.read()
    out = {"ops": None, "seconds": None, "hist": {}, "stats": {}, "found": None, "levels": {}}
    # The last run of the benchmark: a log may hold a warm-up run before it.
    runs = re.findall(r"^%s\s+:.*?([\d.]+) ops/sec(?: ([\d.]+) seconds)?" % re.escape(phase),
                      text, re.M)
    if runs:
        out["ops"] = float(runs[-1][0])
        out["seconds"] = float(runs[-1][1]) if runs[-1][1] else None
    for h in re.finditer(r"^Microseconds per (\w+):\nCount: (\d+) Average: ([\d.]+).*\n"
                         r"Min:.*\nPercentiles: P50: ([\d.]+) P75: ([\d.]+) P99: ([\d.]+)",
                         text, re.M):
        out["hist"][h.group(1)] = {"count": int(h.group(2)), "avg": float(h.group(3)),
                                   "p50": float(h.group(4)), "p99": float(h.group(6))}
    for k, v in re.findall(r"^(rocksdb\.[\w.]+) COUNT : (\d+)", text, re.M):
        out["stats"][k] = int(v)
    found = re.findall(r"\((\d+) of (\d+) found\)", text)
    if found:
        out["found"] = int(found[-1][0]) / max(1, int(found[-1][1]))
    m = re.search(r"^Level Files Size\(MB\)\n-+\n((?:\s*\d+\s+\d+\s+\d+\n)+)", text, re.M)
    if m:
        for line in m.group(1).splitlines():
            level, files, size = line.split()
            out["levels"][int(level)] = (int(files), int(size))
    return out


def tier_sums(stats):
    keys = ("write_bytes", "moved_bytes_in", "copy_bytes_in", "user_reads")
    s = {k: sum(t[k] for t in stats) for k in keys}
    s["fast_user_reads"] = stats[0]["user_reads"]
    s["capacity0"] = stats[0]["capacity"]
    s["used0"] = stats[0]["used_bytes"]
    return s


def best_static(before, after, capacity):
    """(hit ratio, reads counted) of the best fixed placement for the phase."""
    prev = {(s["file"], s["segment"]): s["user_reads"] for s in before}
    reads = []
    for s in after:
        b = prev.get((s["file"], s["segment"]), 0)
        # A counter below its earlier value restarted (the segment was
        # placed again): all of it is this phase's.
        d = s["user_reads"] - b if s["user_reads"] >= b else s["user_reads"]
        reads.append((d, s["bytes"]))
    total = sum(d for d, _ in reads)
    if total == 0:
        return None, 0
    reads.sort(key=lambda x: -x[0])
    room, hits = capacity, 0
    for d, size in reads:
        if d == 0:
            break
        if size <= room:
            room -= size
            hits += d
    return hits / total, total


def rocksdb_files(run_dir, phase):
    """(SST bytes off the last level, i.e. not warm; WAL bytes; all SST bytes)."""
    warm = set()
    path = os.path.join(run_dir, phase + ".warm.txt")
    if os.path.exists(path):
        with open(path) as f:
            warm = {os.path.basename(line.strip()) for line in f if line.strip()}
    fast = wal = sst = 0
    with open(os.path.join(run_dir, phase + ".files.txt")) as f:
        for line in f:
            name, size = line.split()
            size = int(size)
            if name.endswith(".sst"):
                sst += size
                if name not in warm:
                    fast += size
            elif name.endswith(".log"):
                wal += size
    return fast, wal, sst


def rocksdb_readrandom_fast(run_dir):
    """What RocksDB kept fast while readrandom ran: the larger of the states
    before (after the fill) and after it (the reopen flushes the WAL to L0)."""
    return max(sum(rocksdb_files(run_dir, phase)[:2]) for phase in ("fillrandom", "readrandom"))


def measure_run(config, device, policy, run_dir):
    rows = []
    prev_stats = prev_segs = None
    for phase in PHASES:
        log = parse_log(os.path.join(run_dir, phase + ".log"), phase)
        hist = log["hist"].get(LATENCY_OP.get(phase, "read"), {})
        row = {"config": config, "slow_device": device, "policy": policy, "workload": phase,
               "ops_per_sec": log["ops"], "avg_us": hist.get("avg"), "p99_us": hist.get("p99"),
               "found": log["found"], "levels": log["levels"]}
        if policy == ROCKSDB:
            st = log["stats"]
            non_last = st.get("rocksdb.non.last.level.read.count", 0)
            last = st.get("rocksdb.last.level.read.count", 0)
            fast, wal, sst = rocksdb_files(run_dir, phase)
            row.update({"hit_ratio": non_last / (non_last + last) if non_last + last else None,
                        "rocksdb_fast_sst_bytes": fast, "rocksdb_wal_bytes": wal,
                        "sst_bytes": sst, "moved_bytes": 0})
        else:
            stats = load_json(os.path.join(run_dir, phase + ".stats.json"))
            segs = load_json(os.path.join(run_dir, phase + ".segments.json"))
            now = tier_sums(stats)
            before = tier_sums(prev_stats) if prev_stats else {k: 0 for k in now}
            d = {k: now[k] - before[k] for k in now}
            moved = d["moved_bytes_in"] + d["copy_bytes_in"]
            row.update({"moved_bytes": moved, "rocksdb_write_bytes": d["write_bytes"],
                        "device_write_bytes": d["write_bytes"] + moved,
                        "write_amp": (d["write_bytes"] + moved) / d["write_bytes"]
                        if d["write_bytes"] else None,
                        "user_reads": d["user_reads"], "fast_user_reads": d["fast_user_reads"],
                        "fast_capacity_bytes": now["capacity0"], "tier0_used_bytes": now["used0"],
                        "sst_bytes": sum(s["bytes"] for s in segs if s["file"].endswith(".sst"))})
            if phase in READ_PHASES and d["user_reads"] > 0:
                row["hit_ratio"] = d["fast_user_reads"] / d["user_reads"]
                best, counted = best_static(prev_segs or [], segs, now["capacity0"])
                row["best_static_hit_ratio"] = best
                row["segment_reads_covered"] = counted / d["user_reads"]
                if best:
                    row["hit_vs_best_static"] = row["hit_ratio"] / best
            prev_stats, prev_segs = stats, segs
        rows.append(row)
    return rows


def fast_capacity(rows, config):
    """Tier 0's capacity in the configuration's runs with a limited tier 0."""
    return next((r.get("fast_capacity_bytes") for r in rows
                 if r["config"] == config and r["policy"] not in (REFERENCE, ROCKSDB)
                 and r.get("fast_capacity_bytes")), None)


CSV_COLUMNS = ["config", "slow_device", "policy", "workload", "ops_per_sec", "ops_vs_fast_only",
               "avg_us", "p99_us", "avg_vs_fast_only", "p99_vs_fast_only", "moved_bytes",
               "device_write_bytes", "rocksdb_write_bytes", "write_amp", "user_reads",
               "fast_user_reads", "hit_ratio", "best_static_hit_ratio", "hit_vs_best_static",
               "segment_reads_covered", "fast_capacity_bytes", "tier0_used_bytes", "sst_bytes",
               "rocksdb_fast_sst_bytes", "rocksdb_wal_bytes", "found"]


def print_tables(rows, configs, policies):
    for config, device in configs:
        fast = fast_capacity(rows, config)
        print("\n### %s: tier 0 fast (no device model, %s MiB), tier 1 %s\n"
              % (config, fmt(fast, "mib"), device))
        print("| workload | policy | ops/s | vs fast-only | avg µs | p99 µs | moved MiB "
              "| write amp | hit | best static | hit / best |")
        print("|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for phase in PHASES:
            for policy in policies:
                r = find(rows, config=config, policy=policy, workload=phase)
                if r is None:
                    continue
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    phase, policy, fmt(r["ops_per_sec"], "ops"),
                    fmt(r.get("ops_vs_fast_only"), "ratio"), fmt(r["avg_us"], "us"),
                    fmt(r["p99_us"], "us"),
                    "n/a" if policy == ROCKSDB else fmt(r.get("moved_bytes"), "mib"),
                    fmt(r.get("write_amp"), "ratio"),
                    fmt(r.get("hit_ratio"), "pct") if phase in READ_PHASES else "",
                    fmt(r.get("best_static_hit_ratio"), "pct") if phase in READ_PHASES else "",
                    fmt(r.get("hit_vs_best_static"), "ratio") if phase in READ_PHASES else ""))


def print_fast_bytes(rows, configs):
    """RocksDB's fast-tier bytes next to TierFS's fast capacity."""
    lines = []
    for config, _ in configs:
        rdb = [r for r in rows if r["config"] == config and r["policy"] == ROCKSDB]
        fast = fast_capacity(rows, config)
        if not rdb:
            continue
        lines.append("| %s | %s | %s | %s | %s |" % (
            config, fmt(fast, "mib"),
            " / ".join(fmt(r["rocksdb_fast_sst_bytes"], "mib") for r in rdb),
            " / ".join(fmt(r["rocksdb_wal_bytes"], "mib") for r in rdb),
            " / ".join(fmt(r["sst_bytes"], "mib") for r in rdb)))
    if not lines:
        return
    print("\n### Fast-tier bytes: TierFS against RocksDB's simulated hybrid\n")
    print("RocksDB's fast tier is every file not written with last_level_temperature=kWarm: "
          "the SSTs off the last level, the WAL and the metadata. Values after each phase: "
          + " / ".join(PHASES) + ".\n")
    print("| config | TierFS tier 0 capacity MiB | RocksDB non-last-level SST MiB "
          "| RocksDB WAL MiB | RocksDB all SST MiB |")
    print("|:---|---:|---:|---:|---:|")
    for line in lines:
        print(line)


def targets(rows, configs, runs):
    """The issue's two targets, PASS/FAIL, honestly computed."""
    out = []
    for config, _ in configs:
        cand = [r for r in rows if r["config"] == config and r["workload"] == "readrandom"
                and r["policy"] not in (REFERENCE, ROCKSDB) and r["ops_per_sec"]]
        if not cand:
            continue
        best = max(cand, key=lambda r: r["ops_per_sec"])
        rdb = find(rows, config=config, policy=ROCKSDB, workload="readrandom")
        rdb_dir = next((d for c, _, p, d in runs if c == config and p == ROCKSDB), None)
        if rdb and rdb["ops_per_sec"]:
            ratio = best["ops_per_sec"] / rdb["ops_per_sec"]
            fast = best.get("fast_capacity_bytes") or 0
            rfast = rocksdb_readrandom_fast(rdb_dir)
            if abs(fast - rfast) <= max(1024, 0.02 * rfast):
                cond = "At equal fast-tier bytes: "
            elif fast < rfast:
                cond = "NOT at equal fast-tier bytes, TierFS has less: "
            else:
                cond = "NOT at equal fast-tier bytes, TierFS has more: "
            cond += ("TierFS tier 0 %s MiB, RocksDB's fast bytes during readrandom %s MiB "
                     "(non-last-level SSTs + WAL)." % (fmt(fast, "mib"), fmt(rfast, "mib")))
            # When slow-tier misses dominate, throughput goes as 1 / misses: a
            # placement as good as the best static one would reach about this.
            bound = ""
            statics = [r["best_static_hit_ratio"] for r in cand if r.get("best_static_hit_ratio")]
            if statics and rdb.get("hit_ratio") is not None and max(statics) < 1:
                bound = (" Bound if misses dominate, (1 - RocksDB's hit %s) / (1 - best static "
                         "%s): %.2fx." % (fmt(rdb["hit_ratio"], "pct"), fmt(max(statics), "pct"),
                                          (1 - rdb["hit_ratio"]) / (1 - max(statics))))
            out.append("%s %s: best policy %s on skewed readrandom %s ops/s = %.2fx RocksDB's "
                       "simulated hybrid (%s ops/s); target >= 2x. %s%s" % (
                           "PASS" if ratio >= 2 else "FAIL", config, best["policy"],
                           fmt(best["ops_per_sec"], "ops"), ratio,
                           fmt(rdb["ops_per_sec"], "ops"), cond, bound))
        else:
            out.append("n/a  %s: no RocksDB simulated-hybrid run (it simulates an HDD only)"
                       % config)
        hit, static = best.get("hit_ratio"), best.get("best_static_hit_ratio")
        if hit is not None and static:
            out.append("%s %s: best policy %s fast-tier hit ratio on readrandom %s = %.2f of the "
                       "best static placement's %s; target >= 0.90" % (
                           "PASS" if hit >= 0.9 * static else "FAIL", config, best["policy"],
                           fmt(hit, "pct"), hit / static, fmt(static, "pct")))
        else:
            out.append("FAIL %s: no hit ratio for best policy %s (no user reads measured)"
                       % (config, best["policy"]))
    return out


def plot(rows, configs, policies, png, title):
    plt = pyplot()
    fig, axes = plt.subplots(len(configs), 2, figsize=(15, 4.8 * len(configs)), squeeze=False,
                             gridspec_kw={"width_ratios": [3, 2]})
    for (config, device), (ax, bx) in zip(configs, axes):
        present = [p for p in policies
                   if any(r["config"] == config and r["policy"] == p for r in rows)]
        drawn = grouped_bars(
            ax, PHASES, present,
            lambda phase, p: (find(rows, config=config, policy=p, workload=phase) or {}).get(
                "ops_vs_fast_only"),
            lambda p, i: {"hatch": "//" if p == ROCKSDB else None})
        lowest = min([1.0] + drawn)
        ax.set_xticklabels(PHASES)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        if lowest < 0.05:
            ax.set_yscale("log")
        ax.set_ylabel("throughput / fast-only")
        ax.set_title("%s (tier 1 %s): throughput relative to fast-only" % (config, device))
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))

        tier_policies = [p for p in present if p not in (REFERENCE, ROCKSDB)]
        width = 0.85 / max(1, len(tier_policies))
        for i, p in enumerate(tier_policies):
            xs, hits, best = [], [], []
            for j, phase in enumerate(READ_PHASES):
                r = find(rows, config=config, policy=p, workload=phase)
                if r and r.get("hit_ratio") is not None:
                    xs.append(bar_x(j, i, len(tier_policies), width))
                    hits.append(100 * r["hit_ratio"])
                    best.append(100 * (r.get("best_static_hit_ratio") or 0))
            color = "C%d" % (present.index(p) % 10)
            bx.bar(xs, best, width, fill=False, edgecolor=color, linewidth=1.0)
            bx.bar(xs, hits, width * 0.6, color=color, label=p)
        bx.set_xticks(range(len(READ_PHASES)))
        bx.set_xticklabels(READ_PHASES)
        bx.set_ylabel("user reads served by tier 0 (%)")
        bx.set_title("hit ratio (filled) vs best static placement (outline)")
        bx.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--title", default="TierFS policies")
    ap.add_argument("--rocksdb-fast-bytes", metavar="DIR")
    args = ap.parse_args()
    if args.rocksdb_fast_bytes:
        print(rocksdb_readrandom_fast(args.rocksdb_fast_bytes))
        return
    if not (args.runs and args.csv and args.png):
        ap.error("--runs, --csv and --png are required")

    rows, configs, policies = [], [], []
    with open(args.runs) as f:
        runs = [line.split() for line in f if line.strip()]
    for config, device, policy, run_dir in runs:
        if (config, device) not in configs:
            configs.append((config, device))
        if policy not in policies:
            policies.append(policy)
        rows += measure_run(config, device, policy, run_dir)
    normalize(rows, "policy", (("ops_per_sec", "ops_vs_fast_only"), ("avg_us", "avg_vs_fast_only"),
                               ("p99_us", "p99_vs_fast_only")))

    write_csv(args.csv, rows, CSV_COLUMNS)

    print_tables(rows, configs, policies)
    print("\nCells: ops/s and its ratio to fast-only in the same configuration; latency of the "
          "phase's puts (fillrandom) or gets (the others); moved = bytes migrated or copied "
          "between tiers (moved_bytes_in + copy_bytes_in); write amp = bytes written to the "
          "devices including migrations and copies / bytes RocksDB wrote through TierFS; hit = "
          "tier 0's share of user reads; best static = the hit ratio of the best placement "
          "fixed for the phase (its reads per segment, hottest segments first into tier 0's "
          "capacity). For %s, hit = share of SST reads off the last level (RocksDB "
          "statistics, compaction reads included) and no TierFS counters apply."
          % ROCKSDB)
    covered = [r["segment_reads_covered"] for r in rows if r.get("segment_reads_covered")]
    if covered:
        print("Best static counts the segments alive at the end of a phase: they account for "
              "%.0f%%-%.0f%% of the phases' user reads (files a compaction deleted took their "
              "counters with them)." % (100 * min(covered), 100 * max(covered)))
    print_fast_bytes(rows, configs)
    lines = targets(rows, configs, runs)
    print("\n### Targets\n")
    print("```")
    for line in lines:
        print(line)
    print("```")
    plot(rows, configs, policies, args.png, args.title)
    for line in lines:
        print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
