#!/usr/bin/env bash
# A gateway's stop: from SIGTERM to the end of its process, idle after traffic, and with a request in flight.
#
#   STOP_HOMES="this=. before=/path/to/another/build" ROUNDS=5 bench/stop.sh
#
# ROUNDS rounds; in each, for every build of STOP_HOMES (NAME=DIR: DIR's target/keypool.jar, application.properties and
# routes/; the order turns from round to round so that a shared machine's load falls on all alike), two gateways on
# fresh state.dirs in front of the primary fake (bench/fake-upstream.js, bench/keypool-bench.yaml):
#   idle      TRAFFIC requests answered, then SIGTERM: ms until the process has ended
#   inflight  TRAFFIC requests answered, then one more that the fake holds INFLIGHT_MS and SIGTERM 200 ms after it was
#             sent: ms from SIGTERM, and from the end of its answer (curl's exit), to the end of the process, and the
#             answer's status (Camel's own stop looks for the end of what is in flight once a second)
# Each gateway's log is kept (OUT/<name>-<round>-<case>.log); each line of runs.txt is one stop, then the median and
# the spread (min-max) of each case per build, and the load average before and after. Ports: GW_PORT, PRIMARY_PORT,
# BACKUP_PORT (bench/lib.sh).
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$BENCH_DIR/lib.sh"

ROUNDS=${ROUNDS:-5}
TRAFFIC=${TRAFFIC:-20}
INFLIGHT_MS=${INFLIGHT_MS:-1300}
STOP_HOMES=${STOP_HOMES:-"this=$ROOT"}
OUT=${BENCH_OUT:-$ROOT/bench/results/stop-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
java_flags
export BENCH_PRIMARY_PORT=$PRIMARY_PORT BENCH_BACKUP_PORT=$BACKUP_PORT
CONFIG=$BENCH_DIR/keypool-bench.yaml

names=() homes=()
for entry in $STOP_HOMES; do
  names+=("${entry%%=*}")
  homes+=("$(cd "${entry#*=}" && pwd)")
  [ -f "${homes[-1]}/target/keypool.jar" ] || die "no ${homes[-1]}/target/keypool.jar: package that build first"
done
for p in "$GW_PORT" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p is in use"; done
start_fakes
for _ in $(seq 1 50); do curl -sf "$PRIMARY/health" > /dev/null && break; sleep 0.1; done
say "stop.sh: ROUNDS=$ROUNDS TRAFFIC=$TRAFFIC INFLIGHT_MS=$INFLIGHT_MS builds: $STOP_HOMES; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

now_ms() { date +%s%3N; }
serves() { [ "$(post_status "$GW")" = 200 ]; }

# run NAME DIR ROUND CASE: one gateway, its traffic, its stop; one line of runs.txt
run() {
  local name=$1 dir=$2 round=$3 case=$4 home="$OUT/$1-$3-$4"
  mkdir -p "$home"
  curl -s -X POST "$PRIMARY/control/latency?ms=0" > /dev/null
  launch_gateway "$dir" "$home.log" "$CONFIG" -Dstate.dir="$home/state" -Dbatch.inbox="$home/inbox" \
    -Dbatch.outbox="$home/outbox"
  await_gateway "$home.log" serves || die "$name did not serve (log: $home.log)"
  for _ in $(seq 1 "$TRAFFIC"); do post_status "$GW" > /dev/null; done
  local term answered ended status=-
  if [ "$case" = inflight ]; then
    curl -s -X POST "$PRIMARY/control/latency?ms=$INFLIGHT_MS" > /dev/null
    post_status "$GW" > "$home/status" &
    local client=$!
    sleep 0.2
    term=$(now_ms)
    kill -TERM "$GW_PID"
    wait "$client" || true
    answered=$(now_ms)
    status=$(cat "$home/status")
  else
    term=$(now_ms)
    answered=$term
    kill -TERM "$GW_PID"
  fi
  wait "$GW_PID" 2>/dev/null || true
  ended=$(now_ms)
  local keep=() p
  for p in "${PIDS[@]}"; do [ "$p" = "$GW_PID" ] || keep+=("$p"); done
  PIDS=("${keep[@]}")
  for _ in $(seq 1 50); do port_busy "$GW_PORT" || break; sleep 0.1; done
  echo "$name $round $case $((ended - term)) $((ended - answered)) $status" | tee -a "$OUT/runs.txt"
}

for round in $(seq 1 "$ROUNDS"); do
  n=${#names[@]}
  for i in $(seq 0 $((n - 1))); do
    j=$(( (i + round - 1) % n ))
    for case in idle inflight; do run "${names[$j]}" "${homes[$j]}" "$round" "$case"; done
  done
done

say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
say "build case: median ms (min-max) from SIGTERM to the process's end; from the answer's end (inflight); statuses"
for name in "${names[@]}"; do
  for case in idle inflight; do
    say "$(awk -v n="$name" -v c="$case" '$1 == n && $3 == c { print $4, $5, $6 }' "$OUT/runs.txt" | awk -v n="$name" -v c="$case" '
      function med(a, k,   t, i, j) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
      { x[NR] = $1; y[NR] = $2; s[$3]++ } END {
        st = ""; for (k in s) st = st k "x" s[k] " "
        mx = med(x, NR); lo = x[1]; hi = x[NR]; my = med(y, NR)
        printf "%-8s %-8s from SIGTERM %6.0f (%d-%d)  from the answer %6.0f (%d-%d)  %s", n, c, mx, lo, hi, my, y[1], y[NR], st }')"
  done
done
exit 0
}
