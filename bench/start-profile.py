#!/usr/bin/env python3
"""Where a start's main thread goes: the CPU samples of a JFR recording, by part, inclusive.

    bench/start-profile.py RECORDING.jfr [THREAD]      (JAVA_HOME for its jfr tool; THREAD default main)

The recording comes from a gateway started with
-XX:StartFlightRecording=filename=RECORDING.jfr,settings=profile -XX:FlightRecorderOptions:stackdepth=1024 and stopped
right after its first answer (bench/coldstart.sh with COLD_FLAGS_<variant>). Each sample counts for every part one of
its frames belongs to, so the shares add up to more than 100 %; "other" are the samples of no part.
"""
import json
import os
import subprocess
import sys
from collections import Counter

# part -> prefixes of the frames' class names (the first part whose prefix a frame has)
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
    ("KeyPool's own code", ("dev.keypool.",)),
    ("method handles and lambdas linked", ("java.lang.invoke.",)),
    ("class loading and linking", ("java.lang.ClassLoader.", "jdk.internal.loader.", "java.lang.Class.forName",
                                   "java.net.URLClassLoader.")),
    ("JDBC driver (SQLite)", ("org.sqlite.",)),
]


def main():
    recording = sys.argv[1]
    thread = sys.argv[2] if len(sys.argv) > 2 else "main"
    jfr = os.path.join(os.environ["JAVA_HOME"], "bin", "jfr") if os.environ.get("JAVA_HOME") else "jfr"
    out = subprocess.run([jfr, "print", "--json", "--stack-depth", "1024", "--events", "jdk.ExecutionSample",
                          recording], check=True, capture_output=True, text=True).stdout
    events = json.loads(out)["recording"]["events"]
    total = 0
    counts = Counter()
    for event in events:
        values = event["values"]
        if (values.get("sampledThread") or {}).get("javaName") != thread:
            continue
        total += 1
        found = set()
        for frame in (values.get("stackTrace") or {}).get("frames", []):
            method = frame["method"]
            name = method["type"]["name"].replace("/", ".") + "." + method["name"]
            for part, prefixes in PARTS:
                if name.startswith(prefixes):
                    found.add(part)
                    break
        counts.update(found or {"other"})
    print(f"{total} CPU samples of thread {thread}")
    for part, n in counts.most_common():
        print(f"  {100 * n / max(total, 1):5.1f} %  {part}")


if __name__ == "__main__":
    main()
