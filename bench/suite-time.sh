#!/usr/bin/env bash
# What `mvn test` costs: the Surefire tier's wall time and CPU seconds (user + sys of Maven and its test JVMs, compile
# included), the load average while it ran, and the 30 test classes that took longest (from target/surefire-reports).
# CPU seconds are the figure to compare on a shared machine; wall time moves with what else runs.
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
rc=0
/usr/bin/time -v -o "$out/time" mvn -B -ntp -o -q test "$@" >"$out/mvn.log" 2>&1 || rc=$?
kill "$sampler"
user=$(sed -n 's/.*User time (seconds): //p' "$out/time")
sys=$(sed -n 's/.*System time (seconds): //p' "$out/time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time")
load=$(sort -n "$out/load" | awk '{a[NR]=$1} END {if (NR) printf "%s (min %s, max %s)", a[int((NR+1)/2)], a[1], a[NR]}')
echo "mvn test: exit $rc, wall $wall, CPU $(echo "$user + $sys" | bc) s (user $user, sys $sys), load average median $load"
grep -E "Tests run:|FAIL|ERROR" "$out/mvn.log" | tail -5 || true
echo "slowest test classes (s):"
for f in target/surefire-reports/TEST-*.xml; do
  sed -n 's/^<testsuite [^>]*name="\([^"]*\)"[^>]*time="\([0-9.,]*\)".*/\2 \1/p; s/^<testsuite [^>]*time="\([0-9.,]*\)"[^>]*name="\([^"]*\)".*/\1 \2/p' "$f" | head -1
done | tr -d ',' | sort -rn | head -30
echo "Maven's log: $out/mvn.log"
exit $rc
