#!/usr/bin/env bash
# KeyPool beside a peer, in one run: a direct call, KeyPool and Portkey's open-source gateway (npm
# @portkey-ai/gateway, a Node/Hono gateway) against the same fake provider (bench/fake-upstream.js), measured with
# wrk one after the other in each round; prints the side-by-side table of bench/README.md ("Beside a peer"). npm installs
# the peer once (the registry's package, into PEER_DIR); everything else runs on 127.0.0.1.
#
#   bench/peer.sh
#
# Figures, per round and as medians over the rounds:
#   requests/s at 0 ms upstream and 64 connections (KeyPool ÷ Portkey), each gateway's CPU per request there,
#   requests/s ÷ direct at 50 ms upstream and 256 connections, added p50 at 1 connection (0 ms and 50 ms upstream).
# Knobs (environment):
#   JAVA_HOME            the JDK that runs KeyPool (bench/README.md figures: Temurin 25)
#   KEYPOOL_JAVA_OPTS    KeyPool's JVM flags (default: the Dockerfile's, as bench/run.sh)
#   PORTKEY_VERSION=1.15.2   the npm version installed (once, into PEER_DIR)
#   PEER_DIR             where it is installed (default ~/.cache/keypool-bench/portkey-<version>)
#   ROUNDS=2 DURATION=5 WARMUP=2 JIT_WARMUP=20   rounds; seconds per wrk run, per warm-up before each run, and of
#                        traffic through each gateway before the first round (KeyPool's JIT, Node's too); twelve wrk
#                        runs a round: about 4 minutes in all, within one hold of a shared machine (6 minutes)
#   GW_PORT=18080 PRIMARY_PORT=9101 BACKUP_PORT=9102 PORTKEY_PORT=18787   (KeyPool, the fakes, Portkey)
#   BENCH_OUT            raw outputs (default bench/results/peer-<date>-<time>, git-ignored)
set -euo pipefail
{

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, launching KeyPool, stopping all on exit
. "$BENCH_DIR/lib.sh"
PORTKEY_VERSION=${PORTKEY_VERSION:-1.15.2}
PEER_DIR=${PEER_DIR:-$HOME/.cache/keypool-bench/portkey-$PORTKEY_VERSION}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-2}
JIT_WARMUP=${JIT_WARMUP:-20}
PORTKEY_PORT=${PORTKEY_PORT:-18787}
OUT=${BENCH_OUT:-$BENCH_DIR/results/peer-$(date +%Y%m%d-%H%M%S)}

for tool in wrk node npm curl "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found (see bench/README.md, Running it)"; done
mkdir -p "$OUT"

if [ ! -f "$PEER_DIR/node_modules/@portkey-ai/gateway/build/start-server.js" ]; then
  echo "installing @portkey-ai/gateway@$PORTKEY_VERSION into $PEER_DIR ..."
  mkdir -p "$PEER_DIR"
  npm install --silent --no-audit --no-fund --prefix "$PEER_DIR" "@portkey-ai/gateway@$PORTKEY_VERSION" > "$OUT/npm.log" 2>&1 \
    || { cat "$OUT/npm.log" >&2; die "npm install failed"; }
fi
cd "$ROOT"
if [ ! -f target/keypool.jar ]; then
  echo "building target/keypool.jar (mvn -q -B package -DskipTests) ..."
  mvn -q -B package -DskipTests
fi

start_fakes
java_flags
launch_gateway "$ROOT" "$OUT/keypool.log" "$BENCH_DIR/keypool-bench.yaml" -Dstate.dir="$OUT/state"
KP_PID=$GW_PID
# Portkey takes the provider from headers: OpenAI's API at the fake's address, the fake's key in Authorization
node "$PEER_DIR/node_modules/@portkey-ai/gateway/build/start-server.js" --port="$PORTKEY_PORT" --headless \
  > "$OUT/portkey.log" 2>&1 &
PK_PID=$!; PIDS+=("$PK_PID")
PORTKEY_HEADERS="x-portkey-provider: openai;x-portkey-custom-host: $PRIMARY/v1;Authorization: Bearer sk-peer-bench"

status_of() {   # URL [HEADERS]: the HTTP status of one chat completion
  local args=() pair pairs
  IFS=';' read -ra pairs <<< "${2:-}"
  for pair in "${pairs[@]}"; do args+=(-H "$pair"); done
  curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Content-Type: application/json' "${args[@]}" -d "$BODY" "$1$CHAT" || true
}
for _ in $(seq 1 120); do
  [ "$(status_of "$GW")" = 200 ] && [ "$(status_of "http://127.0.0.1:$PORTKEY_PORT" "$PORTKEY_HEADERS")" = 200 ] && break
  kill -0 "$KP_PID" 2>/dev/null || die "KeyPool exited during startup ($OUT/keypool.log)"
  kill -0 "$PK_PID" 2>/dev/null || die "Portkey exited during startup ($OUT/portkey.log)"
  sleep 0.5
done
[ "$(status_of "$GW")" = 200 ] || die "KeyPool does not answer 200 ($OUT/keypool.log)"
[ "$(status_of "http://127.0.0.1:$PORTKEY_PORT" "$PORTKEY_HEADERS")" = 200 ] || die "Portkey does not answer 200 ($OUT/portkey.log)"

HZ=$(getconf CLK_TCK)
cpu_ticks() { if [ -z "$1" ]; then echo 0; else awk '{print $14+$15}' "/proc/$1/stat"; fi; }
fake_latency() { curl -sf -m 10 -X POST "$PRIMARY/control/latency?ms=$1" > /dev/null; }
# run TARGET CONNS SECS TAG: "rps p50_us cpu_ms_per_request errors" for one wrk run; TARGET direct|keypool|portkey
run() {
  local target=$1 conns=$2 secs=$3 tag=$4 url pid="" headers="" threads=2 c0 c1 line
  case "$target" in
    direct) url="$PRIMARY$CHAT" ;;
    keypool) url="$GW$CHAT"; pid=$KP_PID ;;
    portkey) url="http://127.0.0.1:$PORTKEY_PORT$CHAT"; pid=$PK_PID; headers=$PORTKEY_HEADERS ;;
  esac
  [ "$conns" -lt 2 ] && threads=1
  c0=$(cpu_ticks "$pid")
  BENCH_HEADERS=$headers wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" \
    > "$OUT/wrk-$tag.txt" 2>&1 || true
  c1=$(cpu_ticks "$pid")
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 0 fail"; return; }
  awk -v l="$line" -v c="$((c1 - c0))" -v hz="$HZ" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    printf "%.0f %d %.3f %d\n", v["rps"], v["p50_us"], (v["requests"]>0 ? 1000*c/hz/v["requests"] : 0),
      v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"] }'
}
measure() {   # TARGET CONNS TAG: a warm-up run, then the measured one
  run "$1" "$2" "$WARMUP" "$3-warmup" > /dev/null
  run "$1" "$2" "$DURATION" "$3"
}

say "KeyPool beside Portkey $PORTKEY_VERSION $(date -u +%Y-%m-%dT%H:%M:%SZ): $(nproc) cores; $("$JAVA" -version 2>&1 | head -1); node $(node -v)"
say "KeyPool: KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS', bench/keypool-bench.yaml (request log at its default); raw outputs $OUT"
fake_latency 0
for target in keypool portkey; do
  run "$target" 1 $(( JIT_WARMUP / 2 )) "jit-$target-c1" > /dev/null
  run "$target" 64 $(( JIT_WARMUP - JIT_WARMUP / 2 )) "jit-$target-c64" > /dev/null
done

for round in $(seq 1 "$ROUNDS"); do
  fake_latency 0
  read -r d64 _ _ _ <<< "$(measure direct 64 "r$round-direct-0ms-c64")"
  read -r k64 _ kcpu ke64 <<< "$(measure keypool 64 "r$round-keypool-0ms-c64")"
  read -r p64 _ pcpu pe64 <<< "$(measure portkey 64 "r$round-portkey-0ms-c64")"
  read -r _ d1 _ _ <<< "$(measure direct 1 "r$round-direct-0ms-c1")"
  read -r _ k1 _ ke1 <<< "$(measure keypool 1 "r$round-keypool-0ms-c1")"
  read -r _ p1 _ pe1 <<< "$(measure portkey 1 "r$round-portkey-0ms-c1")"
  fake_latency 50
  read -r _ d1s _ _ <<< "$(measure direct 1 "r$round-direct-50ms-c1")"
  read -r _ k1s _ ke1s <<< "$(measure keypool 1 "r$round-keypool-50ms-c1")"
  read -r _ p1s _ pe1s <<< "$(measure portkey 1 "r$round-portkey-50ms-c1")"
  read -r d256 _ _ _ <<< "$(measure direct 256 "r$round-direct-50ms-c256")"
  read -r k256 _ _ ke256 <<< "$(measure keypool 256 "r$round-keypool-50ms-c256")"
  read -r p256 _ _ pe256 <<< "$(measure portkey 256 "r$round-portkey-50ms-c256")"
  awk -v r="$round" -v d64="$d64" -v k64="$k64" -v p64="$p64" -v kcpu="$kcpu" -v pcpu="$pcpu" \
      -v d1="$d1" -v k1="$k1" -v p1="$p1" -v d1s="$d1s" -v k1s="$k1s" -v p1s="$p1s" \
      -v d256="$d256" -v k256="$k256" -v p256="$p256" \
      -v kerr="$((ke64 + ke1 + ke1s + ke256))" -v perr="$((pe64 + pe1 + pe1s + pe256))" 'BEGIN {
    printf "ROUND %d kp_rps64=%d pk_rps64=%d direct_rps64=%d kp_over_pk=%.2f kp_cpu_ms=%.3f pk_cpu_ms=%.3f", r, k64, p64, d64, (p64>0?k64/p64:0), kcpu, pcpu
    printf " kp_ratio256=%.2f pk_ratio256=%.2f kp_added0=%.3f pk_added0=%.3f kp_added50=%.3f pk_added50=%.3f kp_errors=%d pk_errors=%d\n", (d256>0?k256/d256:0), (d256>0?p256/d256:0), (k1-d1)/1000, (p1-d1)/1000, (k1s-d1s)/1000, (p1s-d1s)/1000, kerr, perr
  }' | tee -a "$OUT/rounds.txt"
done

# medians over the rounds, as the table of bench/README.md
median() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$OUT/rounds.txt" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
all() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$OUT/rounds.txt" | paste -sd/ -; }
say ""
say "| figure (rounds: $(all kp_rps64 | tr -cd / | wc -c | awk '{print $1+1}')) | KeyPool | Portkey $PORTKEY_VERSION | target |"
say "|---|---|---|---|"
say "| requests/s at 0 ms upstream, 64 connections | $(all kp_rps64) ($(all kp_over_pk) × Portkey) | $(all pk_rps64) | ≥ 10 × Portkey |"
say "| CPU per request there | $(all kp_cpu_ms) ms | $(all pk_cpu_ms) ms | ≤ 0.10 ms |"
say "| requests/s ÷ direct at 50 ms upstream, 256 connections | $(all kp_ratio256) | $(all pk_ratio256) | ≥ 0.95 |"
say "| added p50 at 1 connection, 0 ms upstream | $(all kp_added0) ms | $(all pk_added0) ms | ≤ 0.15 ms |"
say "| added p50 at 1 connection, 50 ms upstream | $(all kp_added50) ms | $(all pk_added50) ms | ≤ 0.5 ms |"
say "| non-2xx and socket errors | $(all kp_errors) | $(all pk_errors) | 0 |"
say ""
say "medians: KeyPool ÷ Portkey at 64 connections $(median kp_over_pk) ×; CPU per request $(median kp_cpu_ms) / $(median pk_cpu_ms) ms; ÷ direct at 256 $(median kp_ratio256) / $(median pk_ratio256); added p50 at 0 ms $(median kp_added0) / $(median pk_added0) ms, at 50 ms $(median kp_added50) / $(median pk_added50) ms"
}
