#!/usr/bin/env bash
# What `mvn test` costs: the Surefire tier's wall time and CPU seconds (user + sys of Maven and its test JVMs, compile
# included), the load average while it ran, and the 30 test classes that took longest (from target/surefire-reports).
# CPU seconds are the figure to compare on a shared machine; wall time moves with what else runs. Also the test JVMs'
# CPU apart from Maven's own (their /proc/<pid>/stat read every half second while they run), and when the first test
# JVM started.
#   bench/suite-time.sh [extra Maven arguments, e.g. -Dsurefire.forks=2]
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
out=$(mktemp -d)
# reports of earlier runs (or of a single class run since) would mix with this run's
rm -rf target/surefire-reports
( while sleep 10; do cut -d' ' -f1 /proc/loadavg; done ) >"$out/load" &
sampler=$!
# the test JVMs are the ones running this tree's surefire booter: "<pid> <time> <user + sys ticks>" (the CPU of each
# one's last half second is not seen)
booter="$PWD/target/surefire/surefirebooter"
start=$EPOCHREALTIME
( while sleep 0.5; do
    for pid in $(pgrep -f "$booter"); do
      # not the shell Surefire starts each one from
      read -r comm <"/proc/$pid/comm" 2>/dev/null && [ "$comm" = java ] || continue
      read -r -a stat <"/proc/$pid/stat" 2>/dev/null || continue
      echo "$pid $EPOCHREALTIME $((stat[13] + stat[14]))"
    done
  done ) >"$out/forks" &
forks=$!
rc=0
/usr/bin/time -v -o "$out/time" mvn -B -ntp -o -q test "$@" >"$out/mvn.log" 2>&1 || rc=$?
kill "$sampler" "$forks"
user=$(sed -n 's/.*User time (seconds): //p' "$out/time")
sys=$(sed -n 's/.*System time (seconds): //p' "$out/time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time")
load=$(sort -n "$out/load" | awk '{a[NR]=$1} END {if (NR) printf "%s (min %s, max %s)", a[int((NR+1)/2)], a[1], a[NR]}')
echo "mvn test: exit $rc, wall $wall, CPU $(echo "$user + $sys" | bc) s (user $user, sys $sys), load average median $load"
hz=$(getconf CLK_TCK)
awk -v hz="$hz" -v start="$start" '{ last[$1] = $3; if (!($1 in first)) first[$1] = $2 }
  END { n = 0; t = 0; for (p in last) { n++; t += last[p]; if (n == 1 || first[p] < f) f = first[p] }
        if (n) printf "test JVMs: %d, CPU %.1f s (the rest is Maven), the first started %.1f s after Maven\n", n, t / hz, f - start }' "$out/forks"
# Camel's graceful stop looks again after 1 s when an exchange is still in flight as the consumers stop
waits=$(grep -c "inflight and pending exchanges to complete" "$out/mvn.log" || true)
echo "stops that waited 1 s for an exchange in flight: $waits"
grep -o "Inflights per route: \[.*\]" "$out/mvn.log" | sort | uniq -c | sort -rn | head -5 || true
grep -E "Tests run:|FAIL|ERROR" "$out/mvn.log" | tail -5 || true
echo "slowest test classes (s):"
for f in target/surefire-reports/TEST-*.xml; do
  sed -n 's/^<testsuite [^>]*name="\([^"]*\)"[^>]*time="\([0-9.,]*\)".*/\2 \1/p; s/^<testsuite [^>]*time="\([0-9.,]*\)"[^>]*name="\([^"]*\)".*/\1 \2/p' "$f" | head -1
done | tr -d ',' | sort -rn | head -30
echo "Maven's log: $out/mvn.log"
exit $rc
