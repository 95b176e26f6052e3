"""tfs_report.py: what the benchmark report scripts share (policy_report.py,
ycsb_report.py, sim_plot.py, loss_plot.py import it from their own folder).

  load_json(path)                 a JSON file
  find(rows, **fields)            the first row whose fields have these values
  normalize(rows, by, pairs)      each row's figures over fast-only's
  geomean(values)                 geometric mean, None and 0 left out
  fmt(v, kind)                    a table cell
  write_csv(path, rows, columns)  rows as CSV, None as an empty cell
  table(rows, config, systems, workloads, cell, label, extra)
                                  a markdown table: a row per workload, a column
                                  per system, cell(row) in each
  pyplot()                        matplotlib.pyplot, drawing to files (Agg)
  bar_x(group, i, n, width)       where bar i of n side by side goes
  grouped_bars(ax, groups, series, height, style)
                                  a bar chart of series side by side per group
Standard library only; matplotlib is imported by pyplot(), when a plot is drawn.
"""
import csv
import json
import math

# The reference every figure is normalized to: all the data on the fast tier.
REFERENCE = "fast-only"
MIB = float(1 << 20)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def find(rows, **fields):
    """The first row with every given field equal to its value, or None."""
    return next((r for r in rows if all(r.get(k) == v for k, v in fields.items())), None)


def normalize(rows, by, pairs):
    """For each (key, out) of pairs, sets row[out] = row[key] / the reference's
    row[key], the reference being the row of the same config and workload whose
    field `by` (policy, system) is REFERENCE; left unset where either is missing."""
    ref = {(r["config"], r["workload"]): r for r in rows if r[by] == REFERENCE}
    for r in rows:
        f = ref.get((r["config"], r["workload"]))
        for key, out in pairs:
            if f and f.get(key) and r.get(key) is not None:
                r[out] = r[key] / f[key]


def geomean(values):
    """The geometric mean of the values that are neither None nor 0; None if none are."""
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v, kind):
    """A table cell: "n/a" for None, else v as `kind`:
      ops    operations per second: no decimals from 100 up, one below
      ratio  three decimals from 0.01 up, five below
      us     microseconds: no decimals from 10 up, one below
      us0    microseconds, no decimals
      pct    a fraction as a percentage, one decimal
      pct0   a fraction as a percentage, no decimals
      mib    bytes in MiB, one decimal
    """
    if v is None:
        return "n/a"
    if kind == "ops":
        return "%.0f" % v if v >= 100 else "%.1f" % v
    if kind == "ratio":
        return "%.3f" % v if v >= 0.01 else "%.5f" % v
    if kind == "us":
        return "%.0f" % v if v >= 10 else "%.1f" % v
    if kind == "us0":
        return "%.0f" % v
    if kind == "pct":
        return "%.1f%%" % (100 * v)
    if kind == "pct0":
        return "%.0f%%" % (100 * v)
    if kind == "mib":
        return "%.1f" % (v / MIB)
    return str(v)


def write_csv(path, rows, columns):
    """One line per row, the given columns only; None and missing fields empty."""
    with open(path, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        out.writeheader()
        for r in rows:
            out.writerow({k: "" if r.get(k) is None else r.get(k) for k in columns})


def table(rows, config, systems, workloads, cell, label, extra=()):
    """Prints a markdown table of one configuration: a row per workload (its
    name label[w]), a column per system, cell(row) where a row exists (empty
    otherwise); then a row per (name, fn) of `extra`, fn(system) in each."""
    print("| workload | " + " | ".join(systems) + " |")
    print("|:---|" + "---:|" * len(systems))
    for w in workloads:
        cells = []
        for s in systems:
            r = find(rows, config=config, system=s, workload=w)
            cells.append(cell(r) if r else "")
        print("| %s | %s |" % (label[w], " | ".join(cells)))
    for name, fn in extra:
        print("| %s | %s |" % (name, " | ".join(fn(s) for s in systems)))


def pyplot():
    """matplotlib.pyplot with the Agg backend: plots go to files, no display needed."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def bar_x(group, i, n, width):
    """The x of bar i of n bars of `width` side by side, centred on x = group."""
    return group + (i - (n - 1) / 2) * width


def grouped_bars(ax, groups, series, height, style=lambda s, i: {}):
    """Bars on `ax`: for each group (at x = its index, labelled by the caller)
    one bar per series side by side, of height(group, s); no bar where that is
    None or 0. style(s, i) gives the keyword arguments of series s, the i-th
    (label is s). Returns the heights drawn."""
    width = 0.85 / max(1, len(series))
    drawn = []
    for i, s in enumerate(series):
        xs, ys = [], []
        for j, g in enumerate(groups):
            h = height(g, s)
            if h:
                xs.append(bar_x(j, i, len(series), width))
                ys.append(h)
        ax.bar(xs, ys, width, label=s, **style(s, i))
        drawn += ys
    ax.set_xticks(range(len(groups)))
    return drawn
