#!/usr/bin/env python3
"""The window after the provider answers, seen by the kernel's scheduler, request by request.

  perf record -k CLOCK_MONOTONIC -e sched:sched_waking,sched:sched_switch -a -o sched.data -- sleep 5
  bench/answer-window.py sched.data GATEWAY_PID [FAKE_COMM]

At one connection a request's answer goes: the fake provider (FAKE_COMM, default node) writes it and wakes a thread of
the gateway; that thread runs; a thread of the gateway wakes the client (wrk) when it writes the answer; the client runs.
Prints the medians (p25, p75) of each part over the requests found, and which of the gateway's threads were woken in
the window besides the one that got the answer (a timer, a writer, another event loop), per request.
bench/builds.sh runs it over each measured run of SCHED_CELLS.
"""
import collections
import re
import subprocess
import sys

LINE = re.compile(r'\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s+(.*)')
WOKEN = re.compile(r'comm=(.+?) pid=(\d+)')


def events(path):
    out = subprocess.run(['perf', 'script', '-i', path, '-F', 'comm,pid,tid,cpu,time,event,trace'],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            comm, pid, tid, cpu, t, event, rest = m.groups()
            yield float(t), comm, pid, tid, event.split(':')[-1], rest


def main():
    path, gateway = sys.argv[1], sys.argv[2]
    fake = sys.argv[3] if len(sys.argv) > 3 else 'node'
    evs = list(events(path))
    # the gateway's threads: those seen running as the gateway's pid
    threads = {tid for _, _, pid, tid, _, _ in evs if pid == gateway}
    windows, cur = [], None
    for t, comm, pid, tid, event, rest in evs:
        woken = WOKEN.search(rest) if event == 'sched_waking' else None
        if woken and comm == fake and pid != gateway and woken.group(2) in threads:
            cur = {'start': t, 'tid': woken.group(2), 'others': []}
            continue
        if cur is None:
            continue
        if event == 'sched_switch' and 'run' not in cur and ('next_pid=%s ' % cur['tid']) in rest:
            cur['run'] = t
        if woken and pid == gateway and woken.group(1) == 'wrk':
            cur.setdefault('client_woken', t)
        elif woken and 'client_woken' not in cur and (pid == gateway or woken.group(2) in threads):
            # a thread the gateway woke, or a thread of the gateway woken by anyone (a timer fires in whatever ran)
            cur['others'].append((comm, woken.group(1)))
        if 'client_woken' in cur and event == 'sched_switch' and 'next_comm=wrk ' in rest:
            cur['client_runs'] = t
            windows.append(cur)
            cur = None
    if not windows:
        print('no requests found')
        return
    parts = [('the fake wakes the gateway -> its thread runs', 'start', 'run'),
             ('the thread runs -> the client is woken (the answer written)', 'run', 'client_woken'),
             ('the client woken -> it runs', 'client_woken', 'client_runs'),
             ('the fake wakes the gateway -> the client runs', 'start', 'client_runs')]
    print('%d requests' % len(windows))
    for name, a, b in parts:
        d = sorted((w[b] - w[a]) * 1e6 for w in windows if a in w and b in w)
        print('  %-62s p50 %6.1f us (p25 %6.1f, p75 %6.1f)' % (name, d[len(d) // 2], d[len(d) // 4], d[3 * len(d) // 4]))
    others = collections.Counter(o for w in windows for o in w['others'])
    print('  other threads woken in the window (by the gateway, or of the gateway), per request: %.2f'
          % (sum(others.values()) / len(windows)))
    for (waker, woken), n in others.most_common(8):
        print('    %-16s woke %-16s %.2f' % (waker, woken, n / len(windows)))


if __name__ == '__main__':
    main()
