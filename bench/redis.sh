#!/usr/bin/env bash
# KeyPool with shared state (design §11): what Redis costs per request and how fast a cooling reaches another instance.
#
#   bench/redis.sh
#
# Runs src/test/java/dev/keypool/bench/SharedStateBench.java (not part of the suite) in one JVM: a real redis-server
# on a free loopback port (Debian's redis-server must be installed), one fake provider answering at once, a gateway
# without redis: and two with it. Prints, per round, the p50/p99 of sequential requests at 1 connection with and
# without Redis and the added p50; then the time from a key's COOLING on instance A to instance B's pool seeing it.
# The test JVM runs the shipped JVM flags (the Dockerfile's, as bench/run.sh), not the suite's.
# Knobs (environment): CALLS=4000 requests per gateway and round, ROUNDS=3, COOLINGS=300; KEYPOOL_HOME, the repository
# whose tests and classes run (default the parent of bench/; Maven offline there); KEYPOOL_JAVA_OPTS; BENCH_OUT (the
# figures, figures.txt, for bench/alternate.sh); JAVA_HOME as for the build.
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, JAVA and the shipped JVM flags
. "$BENCH_DIR/lib.sh"
command -v redis-server >/dev/null || die "redis-server is not installed (apt-get install -y redis-server)"
OUT=${BENCH_OUT:-$BENCH_DIR/results/redis-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
java_flags
cd "$ROOT"
echo "redis bench $(date -u +%Y-%m-%dT%H:%M:%SZ): $ROOT at $(git rev-parse --short HEAD 2>/dev/null || echo '?'), test JVM flags '$KEYPOOL_JAVA_OPTS'" \
  | tee "$OUT/summary.txt"
mvn -B -ntp -o test -Dtest=SharedStateBench -Dsurefire.failIfNoSpecifiedTests=false "-Dsurefire.jvm.flags=$KEYPOOL_JAVA_OPTS" \
    -Dbench.calls="${CALLS:-4000}" -Dbench.rounds="${ROUNDS:-3}" -Dbench.coolings="${COOLINGS:-300}" > "$OUT/mvn.log" 2>&1 || true
grep -a -E "^  round |^  cooling |^  redis |^keys with|Tests run|FAIL|ERROR" "$OUT/mvn.log" | tee -a "$OUT/summary.txt"
grep -q -a 'Tests run: 1, Failures: 0, Errors: 0' "$OUT/mvn.log" || die "SharedStateBench did not pass ($OUT/mvn.log)"
# the medians of the rounds' added p50 in each part (tenant limited: the first; keys alone: the second), the cooling's
awk '/^keys with/ {part++}
     /^  round / && match($0, /added p50 [-0-9.]+/) { v = substr($0, RSTART + 10, RLENGTH - 10); added[part] = added[part] " " v }
     /^  cooling / && match($0, /p50 [0-9.]+/) { print "redis_cooling_seen_p50_ms", substr($0, RSTART + 4, RLENGTH - 4) }
     /^  round / && match($0, /without redis p50 [0-9.]+/) { v = substr($0, RSTART + 18, RLENGTH - 18); base[part] = base[part] " " v }
     function median(list,   n, a, i, j, t) { n = split(list, a, " ")
       for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
       return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
     END { print "redis_added_p50_tenant_limited_ms", median(added[1]); print "redis_added_p50_keys_only_ms", median(added[2])
           print "redis_off_p50_ms", median(base[1] base[2]) }' "$OUT/summary.txt" >> "$OUT/figures.txt"
exit 0
}
