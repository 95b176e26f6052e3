#!/usr/bin/env python3
"""ycsb_report.py: tables, CSV and plots for benchmarks/ycsb_compare.sh.

  ycsb_report.py --runs RUNS --workloads a,b,... --csv OUT.csv
                 --throughput-png OUT.png --p99-png OUT.png [--title TEXT]
  ycsb_report.py --self-test
      builds canned runs in a temporary directory, reports on them and checks
      the figures, the CSV and the plots; exit status 0 if all hold

Prints the markdown tables on stdout. RUNS has one line per run,
"CONFIG DEVICE SYSTEM DIR"; DIR holds, for the load and for each workload W,
in the order the runs went:
  load.json, W.json        tierfs-ycsb's report (-json: YCSB's JSON array of
                           {metric, measurement, value})
  load.stats.json,
  W.stats.json             `tierfs --json stats` after the phase
A workload's TierFS figures are the differences between its snapshot and the
one before it (the load's, for the first workload).

Definitions (also printed under the tables):
  ops/s      [OVERALL] Throughput(ops/sec) of the run
  p99        99thPercentileLatency(us) of the workload's main operation: READ for
             a, b, c, d and hotspot, SCAN for e, READ-MODIFY-WRITE for f
  vs fast-only  the system's figure / fast-only's, same configuration and workload
  hit        tier 0's share of the user reads the run made (TierFS counts them on
             every system: all run on TierFS)
  device us/op  the device model's time for the run's user reads (queue +
             service, user_read_device_ns) per operation
  moved      bytes migrated or copied between tiers during the run
Standard library, matplotlib and tfs_report.py (beside it) only.
"""
import argparse
import csv
import json
import os
import sys

from tfs_report import (REFERENCE, find, fmt, geomean, grouped_bars, load_json, normalize,
                        pyplot, table, write_csv)

ROCKSDB_SYSTEMS = ("db_paths", "last_level_temp")
MAIN_OP = {"a": "READ", "b": "READ", "c": "READ", "d": "READ", "e": "SCAN",
           "f": "READ-MODIFY-WRITE", "hotspot": "READ"}
LABEL = {"a": "A", "b": "B", "c": "C", "d": "D (latest)", "e": "E", "f": "F",
         "hotspot": "hotspot"}
REPORT_ORDER = ["a", "b", "c", "d", "e", "f", "hotspot"]
OPS = ["READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"]


def ycsb_report(path):
    """{(metric, measurement): value} of a tierfs-ycsb JSON report."""
    return {(r["metric"], r["measurement"]): r["value"] for r in load_json(path)}


def tier_sums(stats):
    return {"user_reads": sum(t["user_reads"] for t in stats),
            "fast_user_reads": stats[0]["user_reads"],
            # The device model's time for user reads; snapshots from before
            # the counter lack it.
            "device_ns": sum(t["user_read_device_ns"] for t in stats)
            if all("user_read_device_ns" in t for t in stats) else None,
            "moved": sum(t["moved_bytes_in"] + t["copy_bytes_in"] for t in stats),
            "capacity0": stats[0]["capacity"], "used0": stats[0]["used_bytes"]}


def measure_run(config, device, system, run_dir, workloads):
    rows = []
    prev = tier_sums(load_json(os.path.join(run_dir, "load.stats.json")))
    for w in workloads:
        rep = ycsb_report(os.path.join(run_dir, w + ".json"))
        now = tier_sums(load_json(os.path.join(run_dir, w + ".stats.json")))
        main = MAIN_OP[w]
        failed = sum(v for (m, k), v in rep.items()
                     if m in OPS and k.startswith("Return=") and k not in ("Return=OK",))
        row = {"config": config, "slow_device": device, "system": system, "workload": w,
               "ops_per_sec": rep.get(("OVERALL", "Throughput(ops/sec)")),
               "runtime_ms": rep.get(("OVERALL", "RunTime(ms)")),
               "operations": sum(rep.get((op, "Operations"), 0) for op in OPS
                                 if op != "READ-MODIFY-WRITE"),
               "main_op": main,
               "avg_us": rep.get((main, "AverageLatency(us)")),
               "p99_us": rep.get((main, "99thPercentileLatency(us)")),
               "failed": failed,
               "fast_capacity_bytes": now["capacity0"], "tier0_used_bytes": now["used0"],
               "moved_bytes": now["moved"] - prev["moved"]}
        for op in OPS:
            row[op.lower().replace("-", "_") + "_p99_us"] = rep.get((op, "99thPercentileLatency(us)"))
        reads = now["user_reads"] - prev["user_reads"]
        row["user_reads"] = reads
        row["hit_ratio"] = (now["fast_user_reads"] - prev["fast_user_reads"]) / reads if reads > 0 else None
        if now["device_ns"] is not None and prev["device_ns"] is not None and row["operations"]:
            row["device_us_per_op"] = (now["device_ns"] - prev["device_ns"]) / 1000 / row["operations"]
        rows.append(row)
        prev = now
    return rows


CSV_COLUMNS = ["config", "slow_device", "system", "workload", "ops_per_sec", "ops_vs_fast_only",
               "main_op", "avg_us", "p99_us", "p99_vs_fast_only", "read_p99_us", "update_p99_us",
               "insert_p99_us", "scan_p99_us", "read_modify_write_p99_us", "runtime_ms",
               "operations", "failed", "user_reads", "hit_ratio", "device_us_per_op", "moved_bytes",
               "fast_capacity_bytes", "tier0_used_bytes"]


def print_tables(rows, configs, systems, workloads):
    for config, device in configs:
        present = [s for s in systems if any(r["config"] == config and r["system"] == s
                                             for r in rows)]
        fast = next((r["fast_capacity_bytes"] for r in rows
                     if r["config"] == config and r["system"] != REFERENCE), None)
        print("\n### %s: tier 1 %s, tier 0 %s MiB\n" % (config, device, fmt(fast, "mib")))
        print("Throughput, ops/s (vs fast-only):\n")
        table(rows, config, present, workloads, lambda r: "%s (%s)" % (
            fmt(r["ops_per_sec"], "ops"), fmt(r.get("ops_vs_fast_only"), "ratio"))
            if r["system"] != REFERENCE else fmt(r["ops_per_sec"], "ops"), LABEL)
        gm = [geomean([(find(rows, config=config, system=s, workload=w) or {}).get("ops_vs_fast_only")
                       for w in workloads]) for s in present]
        print("| geomean vs fast-only | %s |" % " | ".join(fmt(g, "ratio") for g in gm))
        print("\np99 latency of the main operation, µs (vs fast-only):\n")
        table(rows, config, present, workloads, lambda r: "%s (%s)" % (
            fmt(r["p99_us"], "us0"), fmt(r.get("p99_vs_fast_only"), "ratio"))
            if r["system"] != REFERENCE else fmt(r["p99_us"], "us0"), LABEL)
        print("\nTier 0's share of user reads (hit); MiB migrated:\n")
        table(rows, config, present, workloads, lambda r: fmt(r["hit_ratio"], "pct0") + (
            "; %s" % fmt(r["moved_bytes"], "mib") if r["moved_bytes"] else ""), LABEL)
        failed = [(r["system"], LABEL[r["workload"]], r["failed"]) for r in rows
                  if r["config"] == config and r["failed"]]
        if failed:
            print("\nOperations that did not return OK: " +
                  ", ".join("%s %s: %d" % f for f in failed))


def plot(rows, configs, systems, workloads, key, ylabel, png, title):
    plt = pyplot()
    fig, axes = plt.subplots(len(configs), 1, figsize=(14, 4.6 * len(configs)), squeeze=False)
    for (config, device), (ax,) in zip(configs, axes):
        present = [s for s in systems if s != REFERENCE and
                   any(r["config"] == config and r["system"] == s for r in rows)]
        grouped_bars(ax, workloads, present,
                     lambda w, s: (find(rows, config=config, system=s, workload=w) or {}).get(key),
                     lambda s, i: {"color": "C%d" % (i % 10),
                                   "hatch": "//" if s in ROCKSDB_SYSTEMS else None})
        ax.set_xticklabels([LABEL[w] for w in workloads])
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title("%s: tier 1 %s; dashed line: fast-only" % (config, device))
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def self_test():
    """Canned runs with known figures through the whole report."""
    import contextlib
    import io
    import tempfile

    def stats(user_reads0, user_reads1, moved_in1=0):
        tier = {"capacity": 10 << 20, "used_bytes": 5 << 20, "moved_bytes_in": 0,
                "copy_bytes_in": 0}
        # Device time: 10 us a read on tier 0, 100 us on tier 1.
        return [dict(tier, user_reads=user_reads0, user_read_device_ns=10000 * user_reads0),
                dict(tier, user_reads=user_reads1, moved_bytes_in=moved_in1, capacity=1 << 30,
                     user_read_device_ns=100000 * user_reads1)]

    def ycsb(ops, main, p99, failed=0):
        rows = [{"metric": "OVERALL", "measurement": "Throughput(ops/sec)", "value": ops},
                {"metric": "OVERALL", "measurement": "RunTime(ms)", "value": 1000},
                {"metric": main, "measurement": "Operations", "value": 100},
                {"metric": main, "measurement": "AverageLatency(us)", "value": p99 / 2},
                {"metric": main, "measurement": "99thPercentileLatency(us)", "value": p99},
                {"metric": main, "measurement": "Return=OK", "value": 100 - failed}]
        if failed:
            rows.append({"metric": main, "measurement": "Return=ERROR", "value": failed})
        return rows

    # system: (load stats, per workload: (ops/s, main-op p99, stats after))
    canned = {
        "fast-only": (stats(0, 0), {"a": (1000, 100, stats(50, 0)), "e": (200, 1000, stats(80, 0))}),
        "slow-only": (stats(0, 0), {"a": (100, 400, stats(0, 50)), "e": (10, 8000, stats(0, 90))}),
        "db_paths": (stats(5, 5), {"a": (250, 200, stats(20, 35, moved_in1=3 << 20)),
                                   "e": (20, 4000, stats(20, 45, moved_in1=3 << 20), 2)}),
    }
    failures = []

    def check(what, got, want):
        if isinstance(want, float) and got is not None and abs(got - want) < 1e-9:
            return
        if got != want:
            failures.append("%s: got %r, want %r" % (what, got, want))

    with tempfile.TemporaryDirectory(prefix="ycsb-report-test-") as tmp:
        runs = os.path.join(tmp, "runs.txt")
        with open(runs, "w") as f:
            for system, (load, work) in canned.items():
                d = os.path.join(tmp, system)
                os.makedirs(d)
                with open(os.path.join(d, "load.stats.json"), "w") as g:
                    json.dump(load, g)
                for w, spec in work.items():
                    ops, p99, after = spec[:3]
                    with open(os.path.join(d, w + ".json"), "w") as g:
                        json.dump(ycsb(ops, MAIN_OP[w], p99, *spec[3:]), g)
                    with open(os.path.join(d, w + ".stats.json"), "w") as g:
                        json.dump(after, g)
                f.write("cost hdd %s %s\n" % (system, d))
        out_csv = os.path.join(tmp, "out.csv")
        tput, p99png = os.path.join(tmp, "t.png"), os.path.join(tmp, "p.png")
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            code = main(["--runs", runs, "--workloads", "a,e", "--csv", out_csv,
                         "--throughput-png", tput, "--p99-png", p99png])
        check("exit status", code, 0)
        with open(out_csv) as f:
            rows = {(r["system"], r["workload"]): r for r in csv.DictReader(f)}
        check("CSV rows", len(rows), 6)
        check("slow-only A ops vs fast-only", float(rows[("slow-only", "a")]["ops_vs_fast_only"]), 0.1)
        check("db_paths E p99 vs fast-only (SCAN)",
              float(rows[("db_paths", "e")]["p99_vs_fast_only"]), 4.0)
        check("db_paths E main op", rows[("db_paths", "e")]["main_op"], "SCAN")
        # Deltas from the snapshot before: A read 15 + 30, 15 from tier 0.
        check("db_paths A hit", float(rows[("db_paths", "a")]["hit_ratio"]), 1 / 3)
        check("db_paths A moved", int(rows[("db_paths", "a")]["moved_bytes"]), 3 << 20)
        # 15 reads on tier 0 and 30 on tier 1 for 100 operations.
        check("db_paths A device us/op", float(rows[("db_paths", "a")]["device_us_per_op"]),
              (15 * 10 + 30 * 100) / 100)
        check("db_paths E moved", int(rows[("db_paths", "e")]["moved_bytes"]), 0)
        check("db_paths E hit", float(rows[("db_paths", "e")]["hit_ratio"]), 0.0)
        check("db_paths E failed", int(rows[("db_paths", "e")]["failed"]), 2)
        check("fast-only E hit", float(rows[("fast-only", "e")]["hit_ratio"]), 1.0)
        md = text.getvalue()
        for needle in ("| A | 1000 | 100 (0.100) | 250 (0.250) |", "| E | 1000 | 8000 (8.000) |",
                       "db_paths E: 2", "### cost: tier 1 hdd, tier 0 10.0 MiB"):
            if needle not in md:
                failures.append("markdown lacks %r" % needle)
        for png in (tput, p99png):
            if not os.path.exists(png) or os.path.getsize(png) < 1000:
                failures.append("no plot %s" % png)
        # A run whose files are missing is an error naming it.
        with open(runs, "a") as f:
            f.write("perf sata-ssd lru %s\n" % os.path.join(tmp, "missing"))
        err = io.StringIO()
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                main(["--runs", runs, "--workloads", "a,e", "--csv", out_csv,
                      "--throughput-png", tput, "--p99-png", p99png])
            failures.append("a missing run was not an error")
        except SystemExit as e:
            if "perf lru" not in str(e.code):
                failures.append("the error does not name the run: %r" % e.code)
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print("ycsb_report.py self-test: %s" % ("FAILED" if failures else "passed"), file=sys.stderr)
    return 1 if failures else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--runs")
    ap.add_argument("--workloads", help="comma-separated, in the order they ran")
    ap.add_argument("--csv")
    ap.add_argument("--throughput-png")
    ap.add_argument("--p99-png")
    ap.add_argument("--title", default="YCSB")
    args = ap.parse_args(argv)
    if args.self_test:
        return self_test()
    if not (args.runs and args.workloads and args.csv and args.throughput_png and args.p99_png):
        ap.error("--runs, --workloads, --csv, --throughput-png and --p99-png are required")
    run_order = args.workloads.split(",")
    unknown = [w for w in run_order if w not in MAIN_OP]
    if unknown:
        ap.error("unknown workload(s) %s (known: %s)" % (", ".join(unknown), ", ".join(MAIN_OP)))

    rows, configs, systems = [], [], []
    with open(args.runs) as f:
        for line in f:
            if not line.strip():
                continue
            config, device, system, run_dir = line.split(None, 3)
            run_dir = run_dir.strip()
            if (config, device) not in configs:
                configs.append((config, device))
            if system not in systems:
                systems.append(system)
            try:
                rows += measure_run(config, device, system, run_dir, run_order)
            except (OSError, ValueError, KeyError) as e:
                sys.exit("ycsb_report.py: run %s %s in %s: %s" % (config, system, run_dir, e))
    if not rows:
        sys.exit("ycsb_report.py: no runs in %s" % args.runs)
    normalize(rows, "system", (("ops_per_sec", "ops_vs_fast_only"), ("p99_us", "p99_vs_fast_only")))
    workloads = [w for w in REPORT_ORDER if w in run_order]

    write_csv(args.csv, rows, CSV_COLUMNS)

    print_tables(rows, configs, systems, workloads)
    print("\nDefinitions: ops/s is YCSB's [OVERALL] Throughput; p99 the 99th percentile of the "
          "main operation (READ for A, B, C, D, hotspot; SCAN for E; READ-MODIFY-WRITE for F); "
          "\"vs fast-only\" divides by fast-only's figure in the same configuration and workload; "
          "hit is tier 0's share of the user reads of the run (every system runs on TierFS, "
          "which counts them); MiB migrated counts moves and copies between tiers. db_paths "
          "and last_level_temp are RocksDB's own tiering, TierFS following it "
          "(placement:rocksdb). Full figures: the CSV.")
    plot(rows, configs, systems, workloads, "ops_vs_fast_only", "throughput / fast-only",
         args.throughput_png, args.title + ": throughput relative to fast-only (higher is better)")
    plot(rows, configs, systems, workloads, "p99_vs_fast_only", "p99 latency / fast-only",
         args.p99_png, args.title + ": p99 latency relative to fast-only (lower is better)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
