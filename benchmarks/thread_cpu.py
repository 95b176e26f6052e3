#!/usr/bin/python3
"""Runs a command and measures the CPU time of its threads by name.

    benchmarks/thread_cpu.py --out FILE.json -- COMMAND [ARGS...]

Every INTERVAL seconds it reads /proc/PID/task/*/stat of the command's
process (utime + stime, clock ticks) and /proc/PID/task/*/comm, keeping each
thread's last reading; a thread's time is what it had used when last seen,
so a thread that ends between two readings loses at most INTERVAL of CPU.
Writes, as JSON: the command's exit code, its wall seconds, its process CPU
seconds (every thread, children excluded) and the CPU seconds of each
thread name (threads of one name summed) with how many threads had it.
Exits with the command's exit code.
"""
import argparse
import json
import os
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def read_threads(pid):
    """{tid: (name, cpu seconds)} of the process now ({} once it is gone)."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                name = f.read().strip()
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue  # ended meanwhile
        # The name in stat is parenthesized and may hold spaces: fields follow the last ')'.
        fields = stat[stat.rindex(")") + 2:].split()
        utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of stat(5)
        out[tid] = (name, (utime + stime) / TICKS)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="the JSON written")
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("command", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command")
    start = time.monotonic()
    proc = subprocess.Popen(command)
    seen = {}
    while proc.poll() is None:
        seen.update(read_threads(proc.pid))
        time.sleep(args.interval)
    wall = time.monotonic() - start
    names = {}
    for name, cpu in seen.values():
        total, count = names.get(name, (0.0, 0))
        names[name] = (total + cpu, count + 1)
    result = {"command": command, "exit_code": proc.returncode, "wall_s": wall,
              "cpu_s": sum(cpu for _, cpu in seen.values()),
              "threads": {n: {"cpu_s": c, "count": k} for n, (c, k) in sorted(names.items())}}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
