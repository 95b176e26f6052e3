#!/usr/bin/env python3
"""Tests of rounds.py: the statistics on known inputs, the bootstrap interval
against one computed by hand, and the tables, summary and plot from a canned
runs file."""
import contextlib
import csv
import io
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rounds  # noqa: E402


def binomial_at_least(n, p, k):
    """P(Binomial(n, p) >= k)."""
    return sum(math.comb(n, i) * p**i * (1 - p)**(n - i) for i in range(k, n + 1))


class StatisticsTest(unittest.TestCase):
    def test_ratios_are_paired_by_round(self):
        system = {"1": 12.0, "2": 30.0, "3": 8.0, "5": 1.0}
        baseline = {"1": 10.0, "2": 20.0, "3": 0.0, "4": 5.0}
        # Round 3's baseline is 0 and round 5 has none: both left out; rounds
        # are never matched by position.
        self.assertEqual(rounds.paired_ratios(system, baseline), [1.2, 1.5])

    def test_bootstrap_interval_of_the_median_matches_the_exact_one(self):
        # Nine values x1 < ... < x9. A resample's median is its 5th smallest
        # draw, so P(median <= x_k) = P(at least 5 of 9 draws are <= x_k) =
        # P(Binomial(9, k/9) >= 5), computed here and checked against the
        # figures worked by hand: 0.00145 for x1, 0.0304 for x2. The 2.5%
        # quantile is therefore x2 and, by symmetry, the 97.5% quantile x8.
        self.assertAlmostEqual(binomial_at_least(9, 1 / 9, 5), 0.001449, places=5)
        self.assertAlmostEqual(binomial_at_least(9, 2 / 9, 5), 0.03037, places=4)
        self.assertLess(binomial_at_least(9, 1 / 9, 5), 0.025)
        self.assertGreater(binomial_at_least(9, 2 / 9, 5), 0.025)
        values = [0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4]
        m, low, high = rounds.median_interval(list(reversed(values)))
        self.assertAlmostEqual(m, 1.0)
        self.assertAlmostEqual(low, 0.7)
        self.assertAlmostEqual(high, 1.3)
        self.assertEqual(rounds.verdict(low, high, higher=True), "no difference")

    def test_interval_edges(self):
        self.assertEqual(rounds.median_interval([1.3]), (1.3, None, None))
        self.assertEqual(rounds.median_interval([1.1, 1.1, 1.1]), (1.1, 1.1, 1.1))
        # Five rounds: P(median <= x1) = P(Binomial(5, 0.2) >= 3) = 0.058 >
        # 0.025, so the interval runs from the least to the greatest value.
        self.assertGreater(binomial_at_least(5, 0.2, 3), 0.025)
        m, low, high = rounds.median_interval([1.21, 1.25, 1.15, 1.19, 1.3])
        self.assertEqual((m, low, high), (1.21, 1.15, 1.3))
        # The same rows give the same interval: the resampling is seeded.
        self.assertEqual(rounds.median_interval([1, 2, 3, 5, 8, 13]),
                         rounds.median_interval([1, 2, 3, 5, 8, 13]))

    def test_verdict(self):
        self.assertEqual(rounds.verdict(1.1, 1.3, higher=True), "better")
        self.assertEqual(rounds.verdict(1.1, 1.3, higher=False), "worse")
        self.assertEqual(rounds.verdict(0.5, 0.9, higher=False), "better")
        self.assertEqual(rounds.verdict(0.5, 1.0, higher=False), "no difference")
        self.assertEqual(rounds.verdict(None, None, higher=True), "one round")

    def test_metric_spec(self):
        m = rounds.Metric("device_us:lower:device us/op")
        self.assertEqual((m.name, m.higher, m.label), ("device_us", False, "device us/op"))
        with self.assertRaises(ValueError):
            rounds.Metric("ops")
        with self.assertRaises(ValueError):
            rounds.Metric("ops:up")


BASE = [100, 110, 90, 105, 95]
FAST = [1.20, 1.25, 1.15, 1.19, 1.30]   # fast-first / slow-only per round
SAME = [1.05, 0.93, 1.02, 0.97, 1.01]  # hintstor / slow-only: within noise


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rounds-test-")
        self.csv = os.path.join(self.tmp.name, "runs.csv")
        with open(self.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["round", "workload", "system", "ops", "device_us"])
            for r, b in enumerate(BASE, start=1):
                w.writerow([r, "readrandom", "slow-only", b, 1000.0 / b])
                w.writerow([r, "readrandom", "fast-first", b * FAST[r - 1], 1000.0 / (b * FAST[r - 1])])
                if r != 3:  # round 3's hintstor run failed
                    w.writerow([r, "readrandom", "hintstor", b * SAME[r - 1], ""])

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = rounds.main(list(args))
        self.assertEqual(code, 0)
        return out.getvalue()

    def common(self):
        return ["--csv", self.csv, "--cells", "workload", "--baseline", "slow-only",
                "--metric", "ops:higher:ops/s", "--metric", "device_us:lower:device us/op"]

    def test_summary_figures(self):
        out = os.path.join(self.tmp.name, "summary.csv")
        self.run_main("summary", *self.common(), "--out", out)
        with open(out) as f:
            rows = {(r["system"], r["metric"]): r for r in csv.DictReader(f)}
        base = rows[("slow-only", "ops")]
        self.assertEqual((float(base["median"]), float(base["min"]), float(base["max"])),
                         (100.0, 90.0, 110.0))
        self.assertEqual(base["ratio"], "")
        fast = rows[("fast-first", "ops")]
        self.assertAlmostEqual(float(fast["ratio"]), 1.20)
        self.assertAlmostEqual(float(fast["low"]), 1.15)
        self.assertAlmostEqual(float(fast["high"]), 1.30)
        self.assertEqual(fast["verdict"], "better")
        # Lower device time is better: its ratio is the inverse, also better.
        dev = rows[("fast-first", "device_us")]
        self.assertAlmostEqual(float(dev["ratio"]), 1 / 1.20)
        self.assertEqual(dev["verdict"], "better")
        same = rows[("hintstor", "ops")]
        self.assertEqual((same["pairs"], same["rounds"]), ("4", "4"))
        self.assertAlmostEqual(float(same["ratio"]), (0.97 + 1.01) / 2)  # rounds 1, 2, 4, 5
        self.assertEqual(same["verdict"], "no difference")
        # hintstor measured no device time: no row rather than a zero.
        self.assertNotIn(("hintstor", "device_us"), rows)

    def test_table(self):
        text = self.run_main("table", *self.common())
        self.assertIn("| workload | slow-only | fast-first | hintstor |", text)
        # fast-first's ops/s: 120, 137.5, 103.5, 124.95, 123.5; hintstor's
        # 105, 102.3, (none), 101.85, 95.95: four pairs, within noise.
        self.assertIn("| readrandom | 100 (90.0-110) | 124 (103-138); 1.200 [1.150-1.300] |"
                      " 102 (96.0-105); ~0.990 [0.930-1.050] (n=4) |", text)
        self.assertIn("| readrandom | 10.0 (9.09-11.1) | 8.10 (7.27-9.66); 0.833 [0.769-0.870] |  |",
                      text)

    def test_table_without_ratios(self):
        text = self.run_main("table", *self.common(), "--no-ratio")
        self.assertIn("ops/s: median (min-max) over the rounds", text)
        self.assertIn("| readrandom | 100 (90.0-110) | 124 (103-138) | 102 (96.0-105) |", text)

    def test_plot(self):
        png = os.path.join(self.tmp.name, "r.png")
        self.run_main("plot", *self.common(), "--png", png)
        self.assertGreater(os.path.getsize(png), 5000)

    def write_again(self, ratios):
        """A second run: fast-first at these per-round ratios to slow-only."""
        again = os.path.join(self.tmp.name, "again.csv")
        with open(again, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["round", "workload", "system", "ops", "device_us"])
            for r, (b, k) in enumerate(zip(BASE, ratios), start=1):
                w.writerow([r, "readrandom", "slow-only", b, 1.0])
                w.writerow([r, "readrandom", "fast-first", b * k, 1.0])
        return again

    def test_reproduce(self):
        # A second run whose fast-first ratios are 1.19-1.24: its median, 1.21,
        # is in the first run's [1.15, 1.30], and 1.20 in its [1.19, 1.24].
        again = self.write_again([1.21, 1.19, 1.24, 1.2, 1.22])
        args = ["--csv", self.csv, "--cells", "workload", "--baseline", "slow-only",
                "--metric", "ops:higher"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = rounds.main(["reproduce", *args, "--again", again])
        self.assertEqual(code, 0, out.getvalue())
        self.assertIn("| readrandom | fast-first | ops | 1.200 [1.150-1.300] | 1.210 [1.190-1.240] "
                      "| yes | yes |", out.getvalue())
        self.assertIn("1 of 1 ratios reproduced", out.getvalue())
        self.assertIn("1 of 1 with the difference's interval holding 0", out.getvalue())
        # Against a run at 1.3-1.4 the medians fall outside each other's intervals.
        again = self.write_again([1.31, 1.35, 1.4, 1.33, 1.36])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = rounds.main(["reproduce", *args, "--again", again])
        self.assertEqual(code, 1)
        self.assertIn("| **no** | **no** |", out.getvalue())

    def test_difference_interval(self):
        # The same values: the difference is 0 exactly. Shifted by 0.2 with a
        # spread of 0.02: the interval is near 0.2 and excludes 0.
        a = [1.0, 1.01, 0.99, 1.02, 0.98]
        self.assertEqual((0.0, 0.0), rounds.difference_interval([1.0] * 5, [1.0] * 5))
        low, high = rounds.difference_interval([x + 0.2 for x in a], a)
        self.assertGreater(low, 0.15)
        self.assertLess(high, 0.25)
        low, high = rounds.difference_interval(a, list(reversed(a)))
        self.assertLessEqual(low, 0)
        self.assertGreaterEqual(high, 0)

    def test_no_drift_rates(self):
        # Five rounds: a median falls in another run's interval, and that run's
        # in its, well under 95% of the time; the difference test is near 95%
        # or above.
        inside, same = rounds.no_drift_rates(5, trials=200)
        self.assertGreater(inside, 0.55)
        self.assertLess(inside, 0.85)
        self.assertGreater(same, 0.9)

    def test_bad_input_is_named(self):
        with open(self.csv, "a") as f:
            f.write("6,readrandom,slow-only,fast,1\n")
        with self.assertRaises(SystemExit) as e:
            rounds.main(["table", *self.common()])
        self.assertIn("line 16: ops is 'fast'", str(e.exception.code))
        with self.assertRaises(SystemExit) as e:
            rounds.main(["table", "--csv", self.csv, "--cells", "config", "--baseline", "x",
                         "--metric", "ops:higher"])
        self.assertIn("no column config", str(e.exception.code))


if __name__ == "__main__":
    unittest.main()
