#!/usr/bin/env python3
"""Where a start's main thread goes: its CPU samples by part, inclusive.

    bench/start-profile.py PROFILE [THREAD]        (THREAD default main: named main, or DestroyJavaVM once the
                                                    JVM has renamed it, as when the profile is written at exit)

PROFILE is async-profiler's collapsed output of a gateway started with
-agentpath:<libasyncProfiler.so>=start,event=itimer,interval=1ms,threads,file=PROFILE.collapsed,collapsed
and stopped right after its first answer (bench/coldstart.sh, COLD_FLAGS_<variant> and BURST_N=0): CPU time of every
thread from the JVM's first moments, in the VM's own code too (class loading, linking). Each sample counts for every
part one of its frames belongs to, so the shares add up to more than 100 %; "other" are the samples of no part.
"""
import re
import sys
from collections import Counter

# part -> prefixes of the frames (Java classes with dots, or the VM's own functions)
PARTS = [
    ("Camel's JMX (MBeans registered)", ("org.apache.camel.management.", "javax.management.", "com.sun.jmx.")),
    ("log4j", ("org.apache.logging.",)),
    ("Flyway", ("org.flywaydb.",)),
    ("HikariCP", ("com.zaxxer.",)),
    ("Apache HttpClient", ("org.apache.hc.",)),
    ("YAML routes loaded", ("org.apache.camel.dsl.yaml.", "org.snakeyaml.")),
    ("route reification", ("org.apache.camel.reifier.",)),
    ("Vert.x and Netty", ("io.vertx.", "io.netty.")),
    ("Micrometer", ("io.micrometer.",)),
    ("Jackson", ("com.fasterxml.",)),
    ("method handles and lambdas linked", ("java.lang.invoke.", "LinkResolver::", "MethodHandles::", "SystemDictionary::find_method_handle", "SystemDictionary::link_method_handle")),
    ("class loading and linking", ("java.lang.ClassLoader.", "jdk.internal.loader.", "java.lang.Class.forName",
                                   "java.net.URLClassLoader.", "ClassLoader::", "ClassFileParser::",
                                   "SystemDictionary::load", "SystemDictionary::resolve", "InstanceKlass::link",
                                   "Verifier::", "Rewriter::")),
    ("JDBC driver (SQLite)", ("org.sqlite.",)),
    ("JVM start before main", ("JavaMain", "Threads::create_vm")),
]


def thread_of(frame):
    match = re.match(r"\[(.*?)(?: tid=\d+)?\]$", frame)
    return match.group(1) if match else None


def main():
    profile = sys.argv[1]
    wanted = {sys.argv[2]} if len(sys.argv) > 2 else {"main", "DestroyJavaVM"}
    total = 0
    counts = Counter()
    threads = Counter()
    with open(profile) as lines:
        for line in lines:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            n = int(n)
            thread = thread_of(frames[0]) or "?"
            threads[thread] += n
            if thread not in wanted:
                continue
            total += n
            found = set()
            for frame in frames[1:]:
                name = frame.replace("/", ".")
                for part, prefixes in PARTS:
                    if name.startswith(prefixes):
                        found.add(part)
                        break
            for part in found or {"other"}:
                counts[part] += n
    print(f"{total} samples of thread {' or '.join(sorted(wanted))}; all threads {sum(threads.values())}: "
          + ", ".join(f"{t} {n}" for t, n in threads.most_common(6)))
    for part, n in counts.most_common():
        print(f"  {100 * n / max(total, 1):5.1f} %  {part}")


if __name__ == "__main__":
    main()
