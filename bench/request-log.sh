#!/usr/bin/env bash
# The request log's cost and completeness (docs/operations.md, "The database and the request log"):
#   1. bench/run.sh latency with the log on (SQLite, the default) and off, alternated ROUNDS times, one gateway each;
#   2. one gateway with the log on, wrk for LOAD_S seconds at about 1,000 requests/s (LOAD_CONNS connections against
#      a fake provider answering after LOAD_LATENCY_MS), then the rows in state/keypool.db against the requests wrk
#      completed, and keypool_request_log_dropped_total.
# Knobs: ROUNDS=3 CONNS="1 64" LATENCIES="0" DURATION=8 WARMUP=2 JIT_WARMUP=15 LOAD_S=60 LOAD_CONNS=64
#        LOAD_LATENCY_MS=50 PARTS="latency load". Everything on 127.0.0.1, every run bounded in time.
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-"latency load"}
LOAD_S=${LOAD_S:-60}
LOAD_CONNS=${LOAD_CONNS:-64}
LOAD_LATENCY_MS=${LOAD_LATENCY_MS:-50}
OUT=${BENCH_OUT:-$BENCH_DIR/results/request-log-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
export CONNS=${CONNS:-"1 64"} LATENCIES=${LATENCIES:-"0"} DURATION=${DURATION:-8} WARMUP=${WARMUP:-2}
export JIT_WARMUP=${JIT_WARMUP:-15}
# the same config with the log off
off="$OUT/keypool-log-off.yaml"
{ cat "$BENCH_DIR/keypool-bench.yaml"; printf '\nrequestLog:\n  enabled: false\n'; } > "$off"

if [[ " $PARTS " == *" latency "* ]]; then
  for round in $(seq 1 "$ROUNDS"); do
    for mode in on off; do
      cfg="$BENCH_DIR/keypool-bench.yaml"; [ "$mode" = off ] && cfg="$off"
      BENCH_CONFIG="$cfg" BENCH_OUT="$OUT/latency-r$round-$mode" "$BENCH_DIR/run.sh" latency > "$OUT/latency-r$round-$mode.txt" 2>&1
      echo "round $round, log $mode:"; grep -E '^\| [0-9]+ ms' "$OUT/latency-r$round-$mode.txt"
    done
  done
fi

if [[ " $PARTS " == *" load "* ]]; then
  db="$ROOT/state/keypool.db"
  before=$( [ -f "$db" ] && sqlite3 "$db" "SELECT count(*) FROM request_log" || echo 0)
  # run.sh's latency part with one wrk run of LOAD_S seconds at LOAD_CONNS connections and LOAD_LATENCY_MS upstream
  CONNS="$LOAD_CONNS" LATENCIES="$LOAD_LATENCY_MS" DURATION="$LOAD_S" WARMUP=1 JIT_WARMUP=0 \
    BENCH_OUT="$OUT/load" "$BENCH_DIR/run.sh" latency > "$OUT/load.txt" 2>&1
  # rows of everything the gateway answered during that run: warm-up, readiness checks and the measured run
  sleep 2
  after=$(sqlite3 "$db" "SELECT count(*) FROM request_log")
  # wrk's completed requests through the gateway (its warm-up and measured run); the rows may exceed them by the
  # readiness checks and the requests still in flight when wrk stopped (at most LOAD_CONNS per run)
  sent=$(grep -h '^BENCH ' "$OUT"/load/wrk-gateway-*.txt | sed 's/.*requests=\([0-9]*\).*/\1/' | paste -sd+ | bc)
  echo "load: $(grep -E '^\| [0-9]+ ms' "$OUT/load.txt")"
  echo "load: wrk completed $sent requests through the gateway; request_log grew by $((after - before)) rows"
  echo "load: database refusals in the gateway log: $(grep -c 'Request log: the database refused' "$OUT"/load/gateway.log || true)"
fi
echo "raw outputs: $OUT"
}
