#!/usr/bin/env python3
"""What the JIT compiles in a start, and whether C2 keeps up: read from HotSpot's compilation log.

    bench/start-jit.py LOG [UNTIL_S [TOP]]

LOG is the XML log of a gateway started with
    -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=LOG
(bench/coldstart.sh, COLD_FLAGS_<variant>, ROUNDS=1 BURST_N=0: the file is written once per JVM). UNTIL_S is the JVM's
uptime to count up to, in seconds (the first answer: its readyMs less the ~40 ms from the launch to the JVM's clock;
default the whole log). Prints, until then:
  - per compiler (C1 at tiers 1-3, C2 at tier 4): the compiles started and the time they took, from their start to
    their end in the log's timestamps (wall time: a compiler thread waiting for a core counts), as a share of the window
  - C2's queue: tasks waiting at each 0.2 s, those still waiting at UNTIL_S, and how long a task waited to start
  - C2's time by what it compiled: the class path's lookups (java.util.zip, java.util.jar, jdk.internal.loader), the
    runtime image's (jdk.internal.jimage), generated classes (the class-file API that spins lambda forms and proxies),
    then by package (TOP of them, default 15)
C2 busy for most of the window with tasks waiting all along means it is saturated: work taken off the main thread
takes its compiles off the queue, and C2 compiles the next waiting task in that time instead.
"""
import collections
import html
import re
import sys

ATTRS = re.compile(r"(\w+)='([^']*)'")
GROUPS = [
    ("class path (zip, jar, URLClassPath)", re.compile(r"java\.util\.(zip|jar)\.|jdk\.internal\.loader\.")),
    ("runtime image (jimage)", re.compile(r"jdk\.internal\.jimage\.")),
    ("generated classes (class-file API)", re.compile(r"(jdk\.internal|java\.lang)\.classfile\.")),
]


def attrs(line):
    return dict(ATTRS.findall(line))


def task_id(a):
    return a["compile_id"] + ("osr" if "osr_bci" in a else "")


def main():
    log = sys.argv[1]
    until = float(sys.argv[2]) if len(sys.argv) > 2 else float("inf")
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    queued, started, ended, level, method = {}, {}, {}, {}, {}
    current = None
    with open(log, errors="replace") as lines:
        for line in lines:
            if line.startswith("<task_queued "):
                a = attrs(line)
                t = task_id(a)
                queued[t] = float(a["stamp"])
                level[t] = int(a.get("level", "4"))
                method[t] = html.unescape(a["method"])
            elif line.startswith("<task "):
                a = attrs(line)
                current = task_id(a)
                started[current] = float(a["stamp"])
                level.setdefault(current, int(a.get("level", "4")))
                method.setdefault(current, html.unescape(a["method"]))
            elif line.startswith("<task_done") and current is not None:
                ended[current] = float(attrs(line)["stamp"])
                current = None
    if until == float("inf"):
        until = max(list(ended.values()) + list(started.values()) + [0.0])

    def took(t):
        return min(ended.get(t, until), until) - started[t]

    print(f"until {until:.3f} s of the JVM's uptime")
    for name, levels in (("C1 (tiers 1-3)", (1, 2, 3)), ("C2 (tier 4)", (4,))):
        tasks = [t for t in started if level[t] in levels and started[t] < until]
        busy = sum(took(t) for t in tasks)
        print(f"{name}: {len(tasks)} compiles, {busy * 1000:.0f} ms from start to end ({100 * busy / until:.0f} % of the window)")

    c2_queued = [t for t in queued if level[t] == 4 and queued[t] < until]
    waiting = [t for t in c2_queued if started.get(t, float("inf")) >= until]
    print(f"C2's queue: {len(c2_queued)} tasks queued, {len(waiting)} still waiting at the end")
    depth = []
    step = 0.2
    while step <= until + 1e-9:
        depth.append(f"{step:.1f} s: {sum(1 for t in c2_queued if queued[t] <= step < started.get(t, float('inf')))}")
        step += 0.2
    print("  waiting at " + ", ".join(depth))
    waits = sorted(started[t] - queued[t] for t in c2_queued if t in started and started[t] < until)
    if waits:
        print(f"  a task's wait to start: median {1000 * waits[len(waits) // 2]:.0f} ms, "
              f"90th percentile {1000 * waits[int(len(waits) * 0.9)]:.0f} ms")

    by_group = collections.Counter()
    by_package = collections.Counter()
    for t in started:
        if level[t] != 4 or started[t] >= until:
            continue
        cls = method[t].split(" ")[0]
        group = next((g for g, pattern in GROUPS if pattern.match(cls)), None)
        if group:
            by_group[group] += took(t)
        else:
            by_package[".".join(cls.split(".")[:3])] += took(t)
    print("C2's time by what it compiled, ms:")
    for group, _ in GROUPS:
        print(f"  {by_group[group] * 1000:6.0f}  {group}")
    for package, seconds in by_package.most_common(top):
        print(f"  {seconds * 1000:6.0f}  {package}")


if __name__ == "__main__":
    main()
