#!/usr/bin/env python3
"""loss_plot.py: training-loss curves of the learning agents (tierfs-sim --losses CSVs).

  loss_plot.py OUT.png TITLE:CSV [TITLE:CSV ...]

One panel per CSV (agent,transitions,loss), one line per agent, plus the
number of transitions after which each agent's loss stays converged: the
first point from which a moving average of 20 steps stays within 10% of the
curve's final level (the last 10% of points). Prints those numbers.
Standard library, matplotlib and tfs_report.py (beside it) only.
"""
import csv
import sys

from tfs_report import pyplot

plt = pyplot()


def converged_at(points):
    """Transitions after which the smoothed loss stays within 10% of its final level."""
    if len(points) < 40:
        return None
    losses = [p[1] for p in points]
    tail = losses[-max(1, len(losses) // 10):]
    final = sum(tail) / len(tail)
    window = 20
    smooth = [sum(losses[max(0, i - window + 1):i + 1]) / len(losses[max(0, i - window + 1):i + 1])
              for i in range(len(losses))]
    # 10% of the final level, and at least 2% of the starting loss: a loss
    # that settles near zero would otherwise never count as settled.
    band = max(0.1 * abs(final), 0.02 * abs(losses[0]), 1e-9)
    at = None
    for i in range(len(smooth) - 1, -1, -1):
        if abs(smooth[i] - final) > band:
            break
        at = points[i][0]
    return at


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    panels = [arg.split(":", 1) for arg in sys.argv[2:]]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4), squeeze=False)
    for ax, (title, path) in zip(axes[0], panels):
        curves = {}
        for row in csv.DictReader(open(path)):
            curves.setdefault(row["agent"], []).append((int(row["transitions"]), float(row["loss"])))
        for agent, points in curves.items():
            at = converged_at(points)
            label = agent + (" (converged by %d)" % at if at is not None else "")
            print("%s %s: %d training steps, converged after %s transitions" %
                  (title, agent, len(points), at if at is not None else "n/a"))
            ax.plot([p[0] for p in points], [p[1] for p in points], label=label, linewidth=1)
        ax.set_title(title)
        ax.set_xlabel("transitions seen by the agent")
        ax.set_ylabel("training loss (cross-entropy)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
