#!/usr/bin/env python3
"""rounds.py: the statistics of a comparison run in interleaved rounds.

Every comparison script runs its systems in rounds (lib.sh: tfs_round_order
gives each round its own rotation of the systems, so no system always runs
first or last) and writes one CSV row per run:

  round,<cell columns...>,system,<metric columns...>

A cell is what one table row compares (a workload, a configuration and a
workload, ...). For each cell and metric this reports, per system,
  median   the median over the rounds, with its spread (min-max);
  ratio    the median of the per-round ratios system / baseline, paired by
           round (a round's system and baseline ran minutes apart, on the same
           machine state), with a 95% bootstrap confidence interval of that
           median (scipy.stats.bootstrap, percentile method, seeded: the same
           rows give the same interval);
  verdict  "no difference" when the interval contains 1, else better or worse
           by the metric's direction (higher or lower is better).
A round that lacks the baseline or the system (a failed run) is left out of
that pair, and the count of pairs is shown.

  rounds.py table --csv RUNS.csv --cells workload --baseline fast-only \
                  --metric ops_per_sec:higher:ops/s [--metric ...] [--systems a,b]
                  [--no-ratio]
      markdown tables on stdout, one per metric (--no-ratio: the medians and
      spreads only, for a figure no system is compared by)
  rounds.py summary --csv RUNS.csv --cells ... --baseline ... --metric ... --out S.csv
      the same figures as CSV, one row per (cell, system, metric)
  rounds.py plot --csv RUNS.csv --cells ... --baseline ... --metric ... --png OUT.png
      the ratios with their intervals, one panel per metric
  rounds.py reproduce --csv RUNS.csv --again RUNS2.csv --cells ... --baseline ... --metric ...
      the same command run twice: for every ratio both runs have, whether each
      run's median lies in the other's 95% interval; exit status 1 if any does not.
      Also the sounder test: the 95% bootstrap interval of the difference of the
      two runs' medians (each run's per-round ratios resampled on their own),
      which holds 0 unless the runs differ. Two runs of one unchanging system
      pass the first test only about 70% of the time with five rounds (each
      median is as noisy as the interval it must fall in), the second about
      97%: both rates, simulated for the rounds at hand, are printed beside
      the counts. So "every ratio in the other's interval" is not a property
      a calibrated harness can promise over tens of ratios.
"""
import argparse
import csv
import math
import sys
from statistics import median

CONFIDENCE = 0.95
RESAMPLES = 10000
SEED = 20261206  # fixed: a report is a function of its rows


class Metric:
    """A column of the runs' CSV and how to read it: NAME:DIRECTION[:LABEL],
    DIRECTION higher or lower (which is better)."""

    def __init__(self, spec):
        parts = spec.split(":", 2)
        if len(parts) < 2 or parts[1] not in ("higher", "lower"):
            raise ValueError("metric %r: expected NAME:higher|lower[:LABEL]" % spec)
        self.name, self.higher = parts[0], parts[1] == "higher"
        self.label = parts[2] if len(parts) == 3 else parts[0]


def median_interval(values, confidence=CONFIDENCE, resamples=RESAMPLES, seed=SEED):
    """(median, low, high): the median of `values` and the percentile bootstrap
    confidence interval of it; low and high are None for fewer than two values
    (one run has no interval)."""
    m = median(values)
    if len(values) < 2:
        return m, None, None
    if min(values) == max(values):
        return m, m, m  # every resample has this median
    import numpy as np
    from scipy import stats
    res = stats.bootstrap((np.asarray(values, dtype=float),), np.median, vectorized=True,
                          confidence_level=confidence, n_resamples=resamples,
                          method="percentile", random_state=np.random.default_rng(seed))
    return m, float(res.confidence_interval.low), float(res.confidence_interval.high)


def paired_ratios(system, baseline):
    """system[r] / baseline[r] for every round r both have (dicts round ->
    value), in round order; a round where the baseline is 0 is left out."""
    return [system[r] / baseline[r] for r in sorted(system) if r in baseline and baseline[r]]


def verdict(low, high, higher):
    """"no difference" if [low, high] contains 1; "better" or "worse" as the
    metric's direction says; "one round" without an interval."""
    if low is None:
        return "one round"
    if low <= 1 <= high:
        return "no difference"
    return "better" if (low > 1) == higher else "worse"


def load_runs(path, cells, metrics):
    """{(cell tuple, system): {metric: {round: value}}} from the runs' CSV; a
    missing or empty metric cell (a run that could not measure it) is left out."""
    out = {}
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        need = ["round", "system"] + cells + [m.name for m in metrics]
        missing = [c for c in need if c not in (reader.fieldnames or [])]
        if missing:
            raise SystemExit("rounds.py: %s has no column %s" % (path, ", ".join(missing)))
        for line, row in enumerate(reader, start=2):
            key = (tuple(row[c] for c in cells), row["system"])
            per = out.setdefault(key, {m.name: {} for m in metrics})
            for m in metrics:
                v = row[m.name].strip()
                if v == "" or v == "n/a":
                    continue
                try:
                    x = float(v)
                except ValueError:
                    raise SystemExit("rounds.py: %s line %d: %s is %r, not a number"
                                     % (path, line, m.name, v))
                if not math.isfinite(x):
                    continue
                per[m.name][row["round"]] = x
    return out


def summarize(runs, baseline, metrics, systems=None):
    """One dict per (cell, system, metric) with the figures the module's
    docstring defines; systems in the given order (default: as first seen),
    the baseline first."""
    cells, seen = [], []
    for cell, system in runs:
        if cell not in cells:
            cells.append(cell)
        if system not in seen:
            seen.append(system)
    order = [baseline] + [s for s in (systems or seen) if s != baseline]
    rows = []
    for cell in cells:
        base = runs.get((cell, baseline))
        for system in order:
            per = runs.get((cell, system))
            if per is None:
                continue
            for m in metrics:
                values = list(per[m.name].values())
                if not values:
                    continue
                r = {"cell": cell, "system": system, "metric": m.name, "rounds": len(values),
                     "median": median(values), "min": min(values), "max": max(values),
                     "ratio": None, "low": None, "high": None, "pairs": 0, "verdict": "",
                     "base_rounds": len(base[m.name]) if base else 0}
                if base is not None and system != baseline:
                    ratios = paired_ratios(per[m.name], base[m.name])
                    if ratios:
                        r["ratio"], r["low"], r["high"] = median_interval(ratios)
                        r["pairs"] = len(ratios)
                        r["samples"] = ratios
                        r["verdict"] = verdict(r["low"], r["high"], m.higher)
                rows.append(r)
    return rows


def number(v):
    """A figure with three significant digits (ops/s, microseconds, shares)."""
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    return "%.*f" % (digits, v)


def ratio_text(r):
    """A ratio with its interval: "0.912 [0.85-0.97]", "no difference" marked
    with "~" before it, "(n=4)" when pairs are fewer than the baseline's rounds."""
    if r["ratio"] is None:
        return ""
    if r["low"] is None:
        text = "%.3f (one round)" % r["ratio"]
    else:
        mark = "~" if r["verdict"] == "no difference" else ""
        text = "%s%.3f [%.3f-%.3f]" % (mark, r["ratio"], r["low"], r["high"])
    if r["pairs"] < r["base_rounds"]:
        text += " (n=%d)" % r["pairs"]
    return text


def cell_text(r, ratios=True):
    """A table cell: the median (min-max) and, but for the baseline, the ratio."""
    text = "%s (%s-%s)" % (number(r["median"]), number(r["min"]), number(r["max"]))
    ratio = ratio_text(r) if ratios else ""
    return text + ("; " + ratio if ratio else "")


def print_tables(rows, metrics, cell_names, baseline, out=None, ratios=True):
    out = out or sys.stdout
    systems = []
    for r in rows:
        if r["system"] not in systems:
            systems.append(r["system"])
    for m in metrics:
        mine = [r for r in rows if r["metric"] == m.name]
        if not mine:
            continue
        if ratios:
            print("%s (%s is better): median (min-max) over the rounds; against %s the median "
                  "of the paired per-round ratios [95%% bootstrap interval], ~ where the "
                  "interval contains 1 (no difference)\n" % (m.label, m.higher and "higher" or
                                                             "lower", baseline), file=out)
        else:
            print("%s: median (min-max) over the rounds\n" % m.label, file=out)
        print("| %s | %s |" % (" / ".join(cell_names), " | ".join(systems)), file=out)
        print("|:---|" + "---:|" * len(systems), file=out)
        cells = []
        for r in mine:
            if r["cell"] not in cells:
                cells.append(r["cell"])
        for cell in cells:
            by = {r["system"]: r for r in mine if r["cell"] == cell}
            print("| %s | %s |" % (" / ".join(cell), " | ".join(
                cell_text(by[s], ratios) if s in by else "" for s in systems)), file=out)
        print(file=out)


def write_summary(path, rows, cell_names):
    columns = cell_names + ["system", "metric", "rounds", "median", "min", "max", "ratio",
                            "low", "high", "pairs", "verdict"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow(list(r["cell"]) + ["" if r[k] is None else r[k] for k in columns[len(cell_names):]])


def plot(rows, metrics, baseline, png, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    panels = [m for m in metrics if any(r["metric"] == m.name and r["ratio"] is not None
                                        for r in rows)]
    if not panels:
        raise SystemExit("rounds.py: nothing to plot (no ratio against %s)" % baseline)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.5), squeeze=False)
    for ax, m in zip(axes[0], panels):
        mine = [r for r in rows if r["metric"] == m.name and r["ratio"] is not None]
        cells, systems = [], []
        for r in mine:
            if r["cell"] not in cells:
                cells.append(r["cell"])
            if r["system"] not in systems:
                systems.append(r["system"])
        width = 0.8 / len(systems)
        for i, s in enumerate(systems):
            xs, ys, lo, hi = [], [], [], []
            for j, cell in enumerate(cells):
                r = next((r for r in mine if r["cell"] == cell and r["system"] == s), None)
                if r is None:
                    continue
                xs.append(j + (i - (len(systems) - 1) / 2) * width)
                ys.append(r["ratio"])
                lo.append(r["ratio"] - (r["low"] if r["low"] is not None else r["ratio"]))
                hi.append((r["high"] if r["high"] is not None else r["ratio"]) - r["ratio"])
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=s)
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(cells)))
        ax.set_xticklabels([" / ".join(c) for c in cells], rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("%s / %s (%s is better)" % (m.label, baseline,
                                                  "higher" if m.higher else "lower"))
        if max(r["ratio"] for r in mine) / max(1e-12, min(r["ratio"] for r in mine)) > 30:
            ax.set_yscale("log")
        ax.legend(fontsize=7)
    fig.suptitle(title + " (median of paired ratios, 95% bootstrap interval)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def difference_interval(a, b, confidence=CONFIDENCE, resamples=RESAMPLES, seed=SEED):
    """(low, high): the percentile bootstrap interval of median(a) - median(b),
    each sample resampled on its own (two runs are not paired)."""
    import numpy as np
    from scipy import stats
    if min(a) == max(a) and min(b) == max(b):
        d = median(a) - median(b)
        return d, d
    res = stats.bootstrap((np.asarray(a, dtype=float), np.asarray(b, dtype=float)),
                          lambda x, y, axis=-1: np.median(x, axis=axis) - np.median(y, axis=axis),
                          vectorized=True, paired=False, confidence_level=confidence,
                          n_resamples=resamples, method="percentile",
                          random_state=np.random.default_rng(seed))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def no_drift_rates(rounds, trials=300, seed=SEED):
    """How often two runs of `rounds` rounds drawn from one normal
    distribution pass each test of reproduced(): (each median in the other's
    interval, the difference's interval holding 0), simulated."""
    import numpy as np
    rng = np.random.default_rng(seed)
    inside = same = 0
    for t in range(trials):
        a, b = list(rng.normal(1, 0.05, rounds)), list(rng.normal(1, 0.05, rounds))
        ma, la, ha = median_interval(a, resamples=1000, seed=seed + 2 * t)
        mb, lb, hb = median_interval(b, resamples=1000, seed=seed + 2 * t + 1)
        inside += la <= mb <= ha and lb <= ma <= hb
        lo, hi = difference_interval(a, b, resamples=1000, seed=seed + t)
        same += lo <= 0 <= hi
    return inside / trials, same / trials


def reproduced(first, second):
    """For every (cell, system, metric) with a ratio and an interval in both
    lists of summarize() rows: (key, first row, second row, whether each
    median lies in the other's interval, whether the interval of the
    difference of the two medians holds 0)."""
    def key(r):
        return r["cell"], r["system"], r["metric"]
    again = {key(r): r for r in second if r["low"] is not None}
    out = []
    for a in first:
        b = again.get(key(a))
        if a["low"] is None or b is None:
            continue
        ok = a["low"] <= b["ratio"] <= a["high"] and b["low"] <= a["ratio"] <= b["high"]
        low, high = difference_interval(a["samples"], b["samples"])
        out.append((key(a), a, b, ok, low <= 0 <= high))
    return out


def print_reproduced(found, out=None):
    out = out or sys.stdout
    print("| cell | system | metric | first run | second run | each median in the other's "
          "interval | difference's interval holds 0 |", file=out)
    print("|:---|:---|:---|---:|---:|:---|:---|", file=out)
    for (cell, system, metric), a, b, ok, same in found:
        print("| %s | %s | %s | %s | %s | %s | %s |" % (
            " / ".join(cell), system, metric, ratio_text(a), ratio_text(b),
            "yes" if ok else "**no**", "yes" if same else "**no**"), file=out)
    rounds = min(min(a["pairs"], b["pairs"]) for _, a, b, *_ in found)
    inside, same = no_drift_rates(rounds)
    n = len(found)
    print("\n%d of %d ratios reproduced (each median in the other's interval); %d of %d with "
          "the difference's interval holding 0. Two runs of one unchanging system with %d "
          "rounds pass these about %.0f%% and %.0f%% of the time (simulated): %.1f and %.1f "
          "of %d expected." % (sum(f[3] for f in found), n, sum(f[4] for f in found), n,
                               rounds, 100 * inside, 100 * same, inside * n, same * n, n),
          file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=("table", "summary", "plot", "reproduce"))
    ap.add_argument("--csv", required=True, help="the runs, one row per (round, cell, system)")
    ap.add_argument("--cells", required=True, help="comma-separated columns naming a cell")
    ap.add_argument("--baseline", required=True, help="the system every ratio is against")
    ap.add_argument("--metric", action="append", required=True, help="NAME:higher|lower[:LABEL]")
    ap.add_argument("--systems", help="comma-separated column order (default: as first seen)")
    ap.add_argument("--out", help="summary: the CSV written")
    ap.add_argument("--png", help="plot: the picture written")
    ap.add_argument("--title", default="")
    ap.add_argument("--no-ratio", action="store_true", help="table: medians and spreads only")
    ap.add_argument("--again", help="reproduce: the runs of the same command run again")
    args = ap.parse_args(argv)
    try:
        metrics = [Metric(s) for s in args.metric]
    except ValueError as e:
        ap.error(str(e))
    cell_names = args.cells.split(",")
    runs = load_runs(args.csv, cell_names, metrics)
    if not any(system == args.baseline for _, system in runs):
        raise SystemExit("rounds.py: %s has no run of the baseline %r" % (args.csv, args.baseline))
    rows = summarize(runs, args.baseline, metrics,
                     args.systems.split(",") if args.systems else None)
    if args.command == "reproduce":
        if not args.again:
            ap.error("reproduce needs --again")
        again = summarize(load_runs(args.again, cell_names, metrics), args.baseline, metrics,
                          args.systems.split(",") if args.systems else None)
        found = reproduced(rows, again)
        if not found:
            raise SystemExit("rounds.py: no ratio with an interval in both %s and %s"
                             % (args.csv, args.again))
        print_reproduced(found)
        return 0 if all(f[3] for f in found) else 1
    if args.command == "table":
        print_tables(rows, metrics, cell_names, args.baseline, ratios=not args.no_ratio)
    elif args.command == "summary":
        if not args.out:
            ap.error("summary needs --out")
        write_summary(args.out, rows, cell_names)
    else:
        if not args.png:
            ap.error("plot needs --png")
        plot(rows, metrics, args.baseline, args.png, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
