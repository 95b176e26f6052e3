#!/usr/bin/env python3
"""sim_plot.py: a picture of a simulator comparison (tierfs-sim compare's sim.csv).

One heat map per configuration: workloads down, policies across (fast-only,
the reference, left out), each cell the policy's performance normalized to
fast-only (fast-only's average latency over the policy's; 1 = as fast as having
everything on the fast tier), the value printed in the cell. Each map has its
own log colour scale: an HDD puts cost-optimized values two orders of magnitude
below performance-optimized ones.

  sim_plot.py SIM.csv OUT.png
Also writes OUT-bars.png: a bar chart of each policy's geometric mean over
the workloads, per configuration (log scale).
Standard library, matplotlib and tfs_report.py (beside it) only.
"""
import csv
import math
import sys

from matplotlib.colors import LogNorm

from tfs_report import geomean, pyplot

plt = pyplot()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    configs, workloads, policies = [], [], []
    value = {}
    for r in rows:
        for seq, key in ((configs, r["config"]), (workloads, r["workload"]), (policies, r["policy"])):
            if key not in seq:
                seq.append(key)
        value[(r["config"], r["workload"], r["policy"])] = float(r["normalized"])
    fig, axes = plt.subplots(1, len(configs), figsize=(5 + 4.2 * len(configs), 0.32 * len(workloads) + 2.5),
                             squeeze=False)
    policies = [p for p in policies if p != "fast-only"]
    for ax, config in zip(axes[0], configs):
        cells = [value[(config, w, p)] for w in workloads for p in policies
                 if value.get((config, w, p), 0) > 0]
        norm = LogNorm(vmin=min(cells), vmax=max(cells))
        grid = [[value.get((config, w, p), math.nan) for p in policies] for w in workloads]
        image = ax.imshow(grid, cmap="viridis", norm=norm, aspect="auto")
        ax.set_xticks(range(len(policies)))
        ax.set_xticklabels(policies, rotation=60, ha="right", fontsize=8)
        ax.set_yticks(range(len(workloads)))
        ax.set_yticklabels(workloads, fontsize=8)
        ax.set_title(config)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                if not math.isnan(v):
                    dark = math.log(v / norm.vmin) < 0.5 * math.log(norm.vmax / norm.vmin)
                    ax.text(j, i, "%.2g" % v, ha="center", va="center", fontsize=6,
                            color="white" if dark else "black")
        fig.colorbar(image, ax=ax, shrink=0.8, label="performance / fast-only")
    fig.suptitle("Simulated policies, normalized to fast-only (higher is better)")
    fig.savefig(sys.argv[2], dpi=110, bbox_inches="tight")
    bars(value, configs, workloads, policies, sys.argv[2].rsplit(".", 1)[0] + "-bars.png")


def bars(value, configs, workloads, policies, out):
    """Geometric mean over the workloads of each policy, grouped by configuration."""
    fig, ax = plt.subplots(figsize=(2 + 1.1 * len(policies) * len(configs) / 2, 4))
    width = 0.8 / len(configs)
    for c, config in enumerate(configs):
        means = []
        for p in policies:
            vals = [value[(config, w, p)] for w in workloads if value.get((config, w, p), 0) > 0]
            means.append(geomean(vals) or 0)
        ax.bar([i + c * width for i in range(len(policies))], means, width, label=config)
    ax.set_xticks([i + width * (len(configs) - 1) / 2 for i in range(len(policies))])
    ax.set_xticklabels(policies, rotation=45, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("geomean performance / fast-only")
    ax.set_title("Policies over the whole suite (higher is better)")
    ax.legend()
    fig.savefig(out, dpi=110, bbox_inches="tight")


if __name__ == "__main__":
    main()
