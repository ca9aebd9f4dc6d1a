#!/usr/bin/env bash
# KeyPool as two instances sharing one Redis behind nginx, against one instance alone, in one run
# (docs/operations.md, "Running several instances"):
#
#   mvn -B -ntp -q package -DskipTests && bench/cluster.sh
#
# 1. Throughput at 256 connections with a provider answering after 50 ms: ROUNDS rounds, each a wrk run against one
#    instance alone (no redis:, called directly) then one against nginx (deploy/nginx.conf) in front of two instances
#    with redis:; prints each run and the ratio two/one per round. On a machine of 2 shared cores two instances cannot
#    beat one: they share the same cores, with nginx and wrk.
# 2. The time a 429 on instance A takes to cool the key on instance B (bench/cluster-cooling.js): p50, p99, max.
#
# Needs target/keypool.jar, redis-server, /usr/sbin/nginx, wrk and node. Every process runs on loopback, on free ports,
# and is stopped at the end. The gateways run with the image's JVM flags (the Dockerfile's JAVA_OPTS).
# Knobs (environment): DURATION=10 WARMUP=5 seconds per wrk run and warm-up, ROUNDS=2, CONNS=256, LATENCY_MS=50,
# SAMPLES=50 coolings; JAVA_HOME as for the build.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10}; WARMUP=${WARMUP:-5}; ROUNDS=${ROUNDS:-2}; CONNS=${CONNS:-256}; LATENCY_MS=${LATENCY_MS:-50}
SAMPLES=${SAMPLES:-50}
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
NGINX=/usr/sbin/nginx
die() { echo "cluster.sh: $*" >&2; exit 1; }
for tool in redis-server wrk node curl python3; do command -v "$tool" >/dev/null || die "$tool not found"; done
[ -x "$NGINX" ] || die "$NGINX not found (apt-get install -y nginx)"
[ -f target/keypool.jar ] || die "target/keypool.jar not found: mvn -B -ntp -q package -DskipTests"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

OUT=$(mktemp -d /tmp/keypool-cluster-bench.XXXXXX)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
TOKEN=bench-admin-token-$RANDOM$RANDOM

# the providers: one answering after LATENCY_MS, one answering 429 to everything (for the coolings)
FAKE_PORT=$(free_port); RATE_LIMITED_PORT=$(free_port)
node bench/fake-upstream.js --port "$FAKE_PORT" --latency-ms "$LATENCY_MS" > "$OUT/fake.log" 2>&1 & PIDS+=($!)
node bench/fake-upstream.js --port "$RATE_LIMITED_PORT" > "$OUT/fake-429.log" 2>&1 & PIDS+=($!)
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no > "$OUT/redis.log" 2>&1 & PIDS+=($!)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$FAKE_PORT/health" >/dev/null && curl -sf "http://127.0.0.1:$RATE_LIMITED_PORT/health" >/dev/null \
    && redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break
  sleep 0.1
done
curl -sf -X POST "http://127.0.0.1:$RATE_LIMITED_PORT/control/fail?status=429" >/dev/null || die "fake provider not answering"

config() {   # config REDIS_BLOCK
  cat <<YAML
$1
channels:
  - name: bench
    baseUrl: http://127.0.0.1:$FAKE_PORT/v1
    models: [gpt-4o-mini]
    keys:
      - key: sk-bench-one
      - key: sk-bench-two
      - key: sk-bench-three
      - key: sk-bench-four
  - name: cool
    baseUrl: http://127.0.0.1:$RATE_LIMITED_PORT/v1
    models: [cool-model]
    maxRetries: 0
    cooldown: 1s
    # its one key answers 429 every time: the breaker must not open on "no usable key", or no call would reach it
    breaker: {triggers: [consecutive_fail], consecutiveFailThreshold: 1000000}
    keys:
      - key: sk-cool-one
admin:
  token: $TOKEN
YAML
}
config "" > "$OUT/alone.yaml"
config "redis: {url: redis://127.0.0.1:$REDIS_PORT, timeout: 200ms}" > "$OUT/cluster.yaml"

JAVA_OPTS=$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' Dockerfile)
FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
if [ "${FEATURE%%.*}" -lt 25 ]; then JAVA_OPTS=${JAVA_OPTS//-XX:+UseCompactObjectHeaders/}; fi
if [ "${FEATURE%%.*}" -lt 24 ]; then JAVA_OPTS=${JAVA_OPTS//--sun-misc-unsafe-memory-access=allow/}; fi
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"ping"}],"max_tokens":1}'

start_gateway() {   # start_gateway NAME CONFIG PORT
  mkdir -p "$OUT/$1"
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of flags
  "$JAVA" $JAVA_OPTS -Dkeypool.config="$2" -Dkeypool.instance-id="$1" -Dstate.dir="$OUT/$1/state" \
    -Dcamel.server.host=127.0.0.1 -Dcamel.server.port="$3" -Dcamel.management.port="$3" \
    -jar target/keypool.jar > "$OUT/$1.log" 2>&1 &
  PIDS+=($!)
}
ready() {   # ready URL
  for _ in $(seq 1 240); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Content-Type: application/json' -d "$BODY" "$1/v1/chat/completions")" = 200 ] && return
    sleep 0.5
  done
  die "$1 did not answer 200 within 2 minutes (logs in $OUT)"
}
ALONE_PORT=$(free_port); A_PORT=$(free_port); B_PORT=$(free_port); LB_PORT=$(free_port)
start_gateway alone "$OUT/alone.yaml" "$ALONE_PORT"
start_gateway a "$OUT/cluster.yaml" "$A_PORT"
start_gateway b "$OUT/cluster.yaml" "$B_PORT"
ALONE=http://127.0.0.1:$ALONE_PORT; A=http://127.0.0.1:$A_PORT; B=http://127.0.0.1:$B_PORT; LB=http://127.0.0.1:$LB_PORT
ready "$ALONE"; ready "$A"; ready "$B"

mkdir -p "$OUT/nginx/temp"
{
  [ "$(id -u)" = 0 ] && echo "user root;"
  echo "daemon off;"
  echo "pid $OUT/nginx/nginx.pid;"
  sed -e "s#server keypool-a:8080;#server 127.0.0.1:$A_PORT;#" -e "s#server keypool-b:8080;#server 127.0.0.1:$B_PORT;#" \
      -e "s#listen 8080;#listen 127.0.0.1:$LB_PORT;#" \
      -e "s#^http {#http {\n    access_log off;\n    client_body_temp_path $OUT/nginx/temp/body;\n    proxy_temp_path $OUT/nginx/temp/proxy;\n    fastcgi_temp_path $OUT/nginx/temp/fastcgi;\n    uwsgi_temp_path $OUT/nginx/temp/uwsgi;\n    scgi_temp_path $OUT/nginx/temp/scgi;#" \
      deploy/nginx.conf
} > "$OUT/nginx/nginx.conf"
"$NGINX" -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" -e "$OUT/nginx/error.log" > "$OUT/nginx/out.log" 2>&1 & PIDS+=($!)
ready "$LB"

echo "KeyPool cluster benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ): $(nproc) cores, $("$JAVA" -version 2>&1 | head -1), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), nginx $("$NGINX" -v 2>&1 | cut -d/ -f2)"
echo "load before the runs (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg); provider latency ${LATENCY_MS} ms; $CONNS connections; ${DURATION}s per run; raw outputs in $OUT"

run() {   # run URL TAG -> "rps p50_ms p99_ms non2xx"
  wrk -t2 -c"$CONNS" -d"${WARMUP}s" --timeout 10s -s bench/post.lua "$1/v1/chat/completions" > "$OUT/warm-$2.txt" 2>&1 || true
  wrk -t2 -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency -s bench/post.lua "$1/v1/chat/completions" > "$OUT/wrk-$2.txt" 2>&1 || true
  awk '/^BENCH / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                   printf "%.0f %.1f %.1f %d\n", v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000, v["non2xx"] + v["connect"] + v["read"] + v["timeout"] }' "$OUT/wrk-$2.txt"
}
printf '%-6s %-28s %9s %9s %9s %7s\n' round setup req/s p50_ms p99_ms errors
for round in $(seq 1 "$ROUNDS"); do
  read -r rps1 p50 p99 err <<< "$(run "$ALONE" "alone-$round")"
  printf '%-6s %-28s %9s %9s %9s %7s\n' "$round" "one instance alone" "$rps1" "$p50" "$p99" "$err"
  read -r rps2 p50 p99 err <<< "$(run "$LB" "cluster-$round")"
  printf '%-6s %-28s %9s %9s %9s %7s\n' "$round" "nginx + two on one Redis" "$rps2" "$p50" "$p99" "$err"
  awk -v a="$rps1" -v b="$rps2" -v r="$round" 'BEGIN { printf "round %s: two/one = %.2f x\n", r, (a > 0 ? b / a : 0) }'
done

FINGERPRINT=$(printf '%s' sk-cool-one | sha256sum | cut -c1-16)
node bench/cluster-cooling.js --a "$A" --b "$B" --token "$TOKEN" --model cool-model --channel cool \
  --key "$FINGERPRINT" --samples "$SAMPLES"
echo "load after the runs (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
