#!/usr/bin/python3
"""Validates TierFS's Prometheus text (env/prometheus_text.h) with the
prometheus_client parser (Debian's python3-prometheus-client), and checks what
the parser accepts but Prometheus's conventions require: HELP and TYPE for
every family, counters named *_total, cumulative histogram buckets ending in
+Inf equal to _count. A family is per tier (every sample labelled tier, device
and path, samples for --tiers tiers) or store-wide (no sample has those labels).

  validate_metrics.py FILE [--tiers=N] [--counters-equal=OTHER_FILE [--ignore=PREFIX ...]]
      [--positive=NAME ...] [--present=NAME ...]
Exit 0 when valid; otherwise prints each problem and exits 1."""
import argparse
import collections
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def parse(path):
    with open(path) as f:
        text = f.read()
    return list(text_string_to_metric_families(text)), text


def problems_of(families, text, tiers):
    out = []
    declared = {line.split()[2]: line.split()[3] for line in text.splitlines()
                if line.startswith("# TYPE ")}
    helped = {line.split()[2] for line in text.splitlines() if line.startswith("# HELP ")}
    if not families:
        out.append("no metric families")
    for fam in families:
        if not fam.documentation:
            out.append(f"{fam.name}: no HELP text")
        if fam.type not in ("counter", "gauge", "histogram"):
            out.append(f"{fam.name}: type {fam.type} (untyped: no TYPE line?)")
        by_tier = collections.defaultdict(list)
        per_tier = any("tier" in s.labels for s in fam.samples)
        for s in fam.samples:
            by_tier[s.labels.get("tier")].append(s)
            for label in ("tier", "device", "path"):
                if per_tier and label not in s.labels:
                    out.append(f"{s.name}: no '{label}' label")
                if not per_tier and label in s.labels:
                    out.append(f"{s.name}: a store-wide sample labelled '{label}'")
            if math.isnan(s.value) or s.value < 0:
                out.append(f"{s.name}{s.labels}: value {s.value}")
        if per_tier and tiers is not None and len(by_tier) != tiers:
            out.append(f"{fam.name}: samples for {len(by_tier)} tiers, expected {tiers}")
        if fam.type == "counter":
            exposed = fam.name + "_total"
            if declared.get(exposed) != "counter" or exposed not in helped:
                out.append(f"{fam.name}: a counter not exposed as {exposed} with HELP and TYPE")
        if fam.type == "histogram":
            for tier, samples in by_tier.items():
                buckets = [s for s in samples if s.name.endswith("_bucket")]
                count = [s.value for s in samples if s.name.endswith("_count")]
                values = [s.value for s in buckets]
                if values != sorted(values):
                    out.append(f"{fam.name} tier {tier}: buckets not cumulative")
                if not buckets or buckets[-1].labels.get("le") != "+Inf":
                    out.append(f"{fam.name} tier {tier}: no +Inf bucket last")
                elif count != [buckets[-1].value]:
                    out.append(f"{fam.name} tier {tier}: _count {count} != +Inf bucket "
                               f"{buckets[-1].value}")
    return out


def counters(families, ignore):
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for fam in families
            if fam.type == "counter" for s in fam.samples
            if s.name.endswith("_total") and not s.name.startswith(tuple(ignore))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--tiers", type=int)
    ap.add_argument("--counters-equal", help="another exposition whose counters must be equal")
    ap.add_argument("--ignore", action="append", default=[],
                    help="with --counters-equal: a name prefix of counters not compared")
    ap.add_argument("--positive", action="append", default=[],
                    help="a sample name whose sum over tiers must be > 0")
    ap.add_argument("--present", action="append", default=[],
                    help="a sample name that must be there")
    args = ap.parse_args()
    try:
        families, text = parse(args.file)
    except Exception as e:  # the parser's errors are ValueError and friends
        print(f"{args.file}: does not parse: {e}")
        return 1
    problems = problems_of(families, text, args.tiers)
    sums = collections.defaultdict(float)
    for fam in families:
        for s in fam.samples:
            sums[s.name] += s.value
    for name in args.positive:
        if sums.get(name, 0) <= 0:
            problems.append(f"{name}: {sums.get(name, 'absent')}, expected > 0")
    for name in args.present:
        if name not in sums:
            problems.append(f"{name}: absent")
    if args.counters_equal:
        other, _ = parse(args.counters_equal)
        a, b = counters(families, args.ignore), counters(other, args.ignore)
        if a != b:
            diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            problems.append(f"counters differ from {args.counters_equal}: " +
                            ", ".join(f"{k}: {a.get(k)} vs {b.get(k)}" for k in diff[:5]))
    for p in problems:
        print(f"{args.file}: {p}")
    if not problems:
        print(f"{args.file}: {len(families)} metric families valid")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
