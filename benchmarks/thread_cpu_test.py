#!/usr/bin/env python3
"""Tests of thread_cpu.py: a named thread's CPU time is found under its name,
an idle one's is about zero, and the command's exit code is passed on."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import thread_cpu  # noqa: E402

# A child whose thread "burner" spins for about `seconds` of CPU while the
# main thread (and a thread "sleeper") wait, then exits with `code`.
CHILD = r"""
import ctypes, sys, threading, time
libc = ctypes.CDLL(None)
def named(name, body):
    def run():
        libc.prctl(15, name.encode(), 0, 0, 0)  # PR_SET_NAME
        body()
    return threading.Thread(target=run)
def burn():
    end = time.thread_time() + float(sys.argv[1])
    while time.thread_time() < end:
        pass
burner = named("burner", burn)
sleeper = named("sleeper", lambda: time.sleep(float(sys.argv[1]) + 0.3))
burner.start(); sleeper.start(); burner.join(); sleeper.join()
sys.exit(int(sys.argv[2]))
"""


class ThreadCpuTest(unittest.TestCase):
    def measure(self, seconds, code):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "cpu.json")
            rc = thread_cpu.main(["--out", out, "--interval", "0.05", "--", sys.executable,
                                  "-c", CHILD, str(seconds), str(code)])
            with open(out) as f:
                return rc, json.load(f)

    def test_a_named_threads_cpu_is_counted_under_its_name(self):
        rc, r = self.measure(1.0, 0)
        self.assertEqual(0, rc)
        self.assertEqual(0, r["exit_code"])
        burner, sleeper = r["threads"]["burner"], r["threads"]["sleeper"]
        self.assertEqual(1, burner["count"])
        # At most one interval (0.05 s) lost at its end.
        self.assertGreater(burner["cpu_s"], 0.85)
        self.assertLess(burner["cpu_s"], 1.3)
        self.assertLess(sleeper["cpu_s"], 0.05)
        self.assertGreaterEqual(r["cpu_s"], burner["cpu_s"])
        self.assertGreater(r["wall_s"], 1.0)

    def test_the_exit_code_is_passed_on(self):
        rc, r = self.measure(0.1, 3)
        self.assertEqual(3, rc)
        self.assertEqual(3, r["exit_code"])


if __name__ == "__main__":
    unittest.main()
