#!/usr/bin/env bash
# KeyPool with shared state (design §11): what Redis costs per request and how fast a cooling reaches another instance.
#
#   bench/redis.sh
#
# Runs src/test/java/dev/keypool/bench/SharedStateBench.java (not part of the suite) in one JVM: a real redis-server
# on a free loopback port (Debian's redis-server must be installed), one fake provider answering at once, a gateway
# without redis: and two with it. Prints, per round, the p50/p99 of sequential requests at 1 connection with and
# without Redis and the added p50; then the time from a key's COOLING on instance A to instance B's pool seeing it.
# Knobs (environment): CALLS=4000 requests per gateway and round, ROUNDS=3, COOLINGS=300; JAVA_HOME as for the build.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install -y redis-server)" >&2; exit 1; }
mvn -B -ntp -o test -Dtest=SharedStateBench -Dsurefire.failIfNoSpecifiedTests=false \
    -Dbench.calls="${CALLS:-4000}" -Dbench.rounds="${ROUNDS:-3}" -Dbench.coolings="${COOLINGS:-300}" \
    | grep -a -E "^  round |^  cooling |^  redis |^keys with|Tests run|FAIL|ERROR"
