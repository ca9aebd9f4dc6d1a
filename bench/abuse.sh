#!/usr/bin/env bash
# KeyPool abuse cases: what a hostile or broken client (or provider) can do to a running gateway, from outside.
#
#   bench/abuse.sh [CASE_GLOB]        (default: every bench/abuse/*.sh, in name order; e.g. bench/abuse.sh '010-*')
#
# Starts the packaged jar (target/keypool.jar; built here if missing) with the shipped JVM flags (the Dockerfile's)
# against bench/keypool-abuse.yaml and the fake provider bench/fake-upstream.js, then runs each case file. Each case
# prints one line through `report`: what was sent, what came back, the gateway's peak RSS so far, and whether a normal
# request is still answered 200 right after. Everything runs on 127.0.0.1 and every case is bounded in time.
# Knobs (environment): JAVA_HOME (default: java on the PATH), KEYPOOL_JAVA_OPTS (default: the shipped flags),
# ABUSE_GW_PORT=18180, ABUSE_FAKE_PORT=9111, ABUSE_OUT (raw outputs; default bench/results/abuse-<date>-<time>).
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
cd "$ROOT"
CASES=${1:-*}
ABUSE_GW_PORT=${ABUSE_GW_PORT:-18180}
ABUSE_FAKE_PORT=${ABUSE_FAKE_PORT:-9111}
export ABUSE_FAKE_PORT
OUT=${ABUSE_OUT:-$BENCH_DIR/results/abuse-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

die() { echo "abuse: $*" >&2; exit 1; }
[ -f target/keypool.jar ] || mvn -B -ntp -q package -DskipTests || die "cannot build target/keypool.jar"

JAVA_FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
. "$BENCH_DIR/jvm-flags.sh"
RUNTIME_OPTS=""
[ "${JAVA_FEATURE%%.*}" -ge 24 ] 2>/dev/null && RUNTIME_OPTS="--sun-misc-unsafe-memory-access=allow"
if [ -z "${KEYPOOL_JAVA_OPTS+set}" ]; then
  KEYPOOL_JAVA_OPTS=$(shipped_java_opts "$JAVA_FEATURE") || die "cannot read the shipped JVM flags"
  KEYPOOL_JAVA_OPTS=${KEYPOOL_JAVA_OPTS//--sun-misc-unsafe-memory-access=allow/}
fi

# what the case files use
export GW="http://127.0.0.1:$ABUSE_GW_PORT" FAKE="http://127.0.0.1:$ABUSE_FAKE_PORT"
export TOKEN_A=abuse-token-a TOKEN_B=abuse-token-b TOKEN_C=abuse-token-c ADMIN_TOKEN=abuse-admin
export STATE_DIR="$OUT/state" GW_LOG="$OUT/gateway.log" BENCH_DIR
# the configuration the gateway runs on: a copy, so that a case may edit it and reload
export ABUSE_CONFIG="$OUT/keypool.yaml"
cp "$BENCH_DIR/keypool-abuse.yaml" "$ABUSE_CONFIG"
CHAT_BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"ping"}],"max_tokens":1}'
export CHAT_BODY

PIDS=()
cleanup() { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

node "$BENCH_DIR/fake-upstream.js" --port "$ABUSE_FAKE_PORT" --host 127.0.0.1 > "$OUT/fake.log" 2>&1 &
FAKE_PID=$!; PIDS+=("$FAKE_PID")

# chat_status [TOKEN]: the status of one normal chat completion (team-b's by default)
chat_status() {
  curl -s -o /dev/null -w '%{http_code}' -m 10 -H 'Content-Type: application/json' \
    -H "Authorization: Bearer ${1:-$TOKEN_B}" -d "$CHAT_BODY" "$GW/v1/chat/completions" 2>/dev/null || true
}
rss_kb() { awk '$1=="VmRSS:" {print $2}' "/proc/$GW_PID/status" 2>/dev/null || echo 0; }
hwm_kb() { awk '$1=="VmHWM:" {print $2}' "/proc/$GW_PID/status" 2>/dev/null || echo 0; }

start_gateway() {
  # shellcheck disable=SC2086  # lists of flags
  "$JAVA" $RUNTIME_OPTS $KEYPOOL_JAVA_OPTS "$@" \
    -Dkeypool.config="$ABUSE_CONFIG" -Dstate.dir="$STATE_DIR" \
    -Dbatch.inbox= -Dcamel.server.host=127.0.0.1 -Dcamel.server.port="$ABUSE_GW_PORT" \
    -jar target/keypool.jar >> "$GW_LOG" 2>&1 &
  GW_PID=$!; PIDS+=("$GW_PID")
  export GW_PID
  local i
  for i in $(seq 1 240); do
    kill -0 "$GW_PID" 2>/dev/null || { tail -30 "$GW_LOG" >&2; die "the gateway exited during startup ($GW_LOG)"; }
    [ "$(chat_status)" = 200 ] && break
    sleep 0.25
  done
  [ "$(chat_status)" = 200 ] || die "the gateway did not answer 200 within 60 s ($GW_LOG)"
  GW_FLAGS="$*"
}
stop_gateway() {
  kill "$GW_PID" 2>/dev/null || true
  local i
  for i in $(seq 1 100); do kill -0 "$GW_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$GW_PID" 2>/dev/null || true
  wait "$GW_PID" 2>/dev/null || true
}
# restart_gateway [-Dprop=value ...]: the gateway again, with these extra JVM flags (none: the defaults)
restart_gateway() {
  stop_gateway
  echo "---- restart ${*:-(defaults)}" >> "$GW_LOG"
  start_gateway "$@"
}

# report CASE SENT GOT: one line per case; 'still answers' is a normal team-b request right after
report() {
  local after started ms
  started=$(date +%s%N)
  after=$(chat_status)
  ms=$(( ($(date +%s%N) - started) / 1000000 ))
  printf '%-28s | %s | %s | peak RSS %s MiB | after: %s in %s ms%s\n' "$1" "$2" "$3" \
    "$(( $(hwm_kb) / 1024 ))" "$after" "$ms" "${GW_FLAGS:+ | flags: $GW_FLAGS}"
}

echo "KeyPool abuse cases $(date -u +%Y-%m-%dT%H:%M:%SZ): $("$JAVA" -version 2>&1 | head -1); flags $KEYPOOL_JAVA_OPTS; $(nproc) cores"
echo "raw outputs: $OUT"
start_gateway
echo "gateway ready, RSS $(( $(rss_kb) / 1024 )) MiB"
for case_file in "$BENCH_DIR"/abuse/$CASES.sh; do
  [ -f "$case_file" ] || continue
  # a case that stumbles reports what it saw and the next one runs: no exit on its first failed command
  set +euo pipefail
  # shellcheck disable=SC1090  # the case files
  source "$case_file"
  set -euo pipefail
done
OOM=$(grep -c OutOfMemoryError "$GW_LOG" || true)
echo "OutOfMemoryError lines in the gateway log: $OOM; final RSS $(( $(rss_kb) / 1024 )) MiB"
stop_gateway
}
