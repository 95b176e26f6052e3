#!/usr/bin/python3
"""Replays the traces a `fast_tier.sh` run captured under each copy policy
(URI key copy_policy: tinylfu, w-tinylfu, s3-fifo), each trace with the policy
and tier 0 of the run that captured it, and sets the online ceiling of an
i.i.d. workload beside them.

    KEEP_WORK=1 KEEP_TRACES=1 ... benchmarks/fast_tier.sh   # prints its work directory
    benchmarks/copy_policies.py WORK_DIR [--copy-policies LIST] [--out FILE.md]

Per captured workload of each TierFS run (a directory listed in WORK_DIR's
runs-*.txt whose W.trace and W.trace.json, the report's summary, are kept),
`tierfs-sim run` replays the trace up to the end of its measured window, the
part before it as warm-up, as fast_tier_report.py's fidelity replay does, once
per copy policy. Reported: the simulated mean user read, tier 0's share of
the bytes of user reads, the share of user reads hot-page copies served, the
pages (blocks) copied, and tier 0's mean use.

The ceilings, of the measured window (`tierfs-sim ceiling`, tier 0's size):
  best-static:4K  the best set of 4 KiB pages held all window, chosen knowing
                  it. When requests are drawn independently from a fixed
                  distribution (YCSB's generators), no online policy can
                  expect more (at each request the cache holds a set chosen
                  before the draw: its expected hit bytes are those of some
                  static set, at most the best one's); the window's hindsight
                  choice is if anything above that best.
  belady-warm:8K  Belady's MIN started warm, at the copies' 8 KiB: knowing the
                  future, which no online policy does.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fast_tier_report import io_records, run_json  # noqa: E402

COPY_POLICIES = "tinylfu,w-tinylfu,s3-fifo"


def runs(work):
    """(system, slow device, run directory, tier 0 bytes) of the TierFS runs."""
    out = []
    for path in sorted(glob.glob(os.path.join(work, "runs-*.txt"))):
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) < 6:
                    continue
                _, slow, system, _, run_dir, capacity = words[:6]
                out.append((system, slow, run_dir, int(capacity)))
    return out


def cut(trace_tool, trace, start_ns, end_ns, out):
    args = [trace_tool, "cut", trace, "--to_ns=%d" % max(0, end_ns), "--out=" + out]
    if start_ns is not None:
        args.insert(3, "--from_ns=%d" % max(0, start_ns))
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("tierfs-trace cut %s: %s" % (trace, proc.stderr.strip()))


def replay_workload(tools, system, slow, run_dir, capacity, workload, copy_policies, tmp):
    """Rows of one captured workload: one per copy policy, and the ceilings."""
    trace_tool, sim_tool = tools
    trace = os.path.join(run_dir, workload + ".trace")
    with open(trace + ".json") as f:
        summary = json.load(f)
    start = run_json([trace_tool, "info", "--json", trace])["start_unix_ns"]
    window = summary["window_unix_ns"]
    upto = os.path.join(tmp, "upto")
    win = os.path.join(tmp, "window")
    cut(trace_tool, trace, None, window[1] - start, upto)
    cut(trace_tool, trace, window[0] - start, window[1] - start, win)
    whole = io_records(run_json([trace_tool, "info", "--json", upto]))
    warmup = 1 - io_records(run_json([trace_tool, "info", "--json", win])) / whole if whole else 0
    policy = system.split("+")[0]
    base = "tierfs:///fast:%d:optane,/slow:1T:%s;segment_size:64K;copy_page:%d;policy:%s" % (
        capacity, slow, summary["copy_page"], policy)
    rows = []
    for cp in copy_policies:
        r = run_json([sim_tool, "run", "--config=%s;copy_policy:%s" % (base, cp),
                      "--workload=" + upto, "--json", "--ceilings=none",
                      "--warmup=%.6f" % warmup])
        t0 = r["tiers"][0]
        reads = sum(t["user_reads"] for t in r["tiers"])
        rows.append((cp, r["user_read_latency_us"], t0["user_read_byte_share"],
                     t0["page_hits"] / reads if reads else 0, t0["pages_copied"],
                     t0["mean_used"] / t0["capacity"]))
    ceilings = run_json([sim_tool, "ceiling", "--config=" + base, "--workload=" + win, "--json",
                         "--ceilings=best-static:4K:%d,belady-warm:8K:%d" % (capacity, capacity)])
    return rows, [c["byte_share"] for c in ceilings]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("work", help="a fast_tier.sh work directory kept with its traces")
    p.add_argument("--copy-policies", default=COPY_POLICIES)
    p.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "build"))
    p.add_argument("--out", help="also write the table here")
    args = p.parse_args(argv)
    tools = (os.path.join(args.build, "tools/sim/tierfs-trace"),
             os.path.join(args.build, "tools/sim/tierfs-sim"))
    copy_policies = args.copy_policies.split(",")
    lines = ["| workload | system | copy policy | read us | tier 0 byte share | "
             "served by copies | copied | tier 0 used |", "|:---|:---|:---|---:|---:|---:|---:|---:|"]
    ceilings = {}
    found = 0
    with tempfile.TemporaryDirectory() as tmp:
        for system, slow, run_dir, capacity in runs(args.work):
            if system in ("fast-only", "slow-only") or "+copies:off" in system:
                continue
            for trace in sorted(glob.glob(os.path.join(run_dir, "*.trace"))):
                workload = os.path.basename(trace)[:-len(".trace")]
                if not os.path.exists(trace + ".json"):
                    continue
                found += 1
                print("replaying %s %s" % (system, workload), file=sys.stderr)
                rows, ceiling = replay_workload(tools, system, slow, run_dir, capacity, workload,
                                                copy_policies, tmp)
                ceilings.setdefault(workload, ceiling)
                for cp, us, share, copies, copied, used in rows:
                    lines.append("| %s | %s | %s | %.1f | %.3f | %.3f | %d | %.2f |" % (
                        workload, system, cp, us, share, copies, copied, used))
    if not found:
        print("copy_policies.py: no kept trace with its summary under %s (run fast_tier.sh "
              "with KEEP_WORK=1 KEEP_TRACES=1)" % args.work, file=sys.stderr)
        return 1
    lines += ["", "Ceilings of each measured window, tier 0's share of the bytes of user reads "
              "(tierfs-sim ceiling):", "",
              "| workload | best static, 4 KiB pages | Belady warm, 8 KiB |", "|:---|---:|---:|"]
    for workload, (static, warm) in sorted(ceilings.items()):
        lines.append("| %s | %.3f | %.3f |" % (workload, static, warm))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
