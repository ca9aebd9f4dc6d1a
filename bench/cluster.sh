#!/usr/bin/env bash
# KeyPool as two instances sharing one Redis behind nginx, against one instance alone, in one run
# (docs/operations.md, "Running several instances"):
#
#   mvn -B -ntp -q package -DskipTests && bench/cluster.sh
#
# 1. Throughput at 256 connections with a provider answering after 50 ms: ROUNDS rounds, each a wrk run against three
#    setups, their order turned each round: one instance alone (no redis:, called directly); nginx (deploy/nginx.conf)
#    in front of that same instance, the proxy's own cost; nginx in front of two instances with redis:. Prints each
#    run and, per round, two/one (the figure the cluster is held to), nginx+one/one and two/nginx+one. On a machine of
#    2 shared cores two instances cannot beat one: they share the same cores, with nginx, Redis, the provider and wrk.
#    Beside each run: the CPU it cost per request, the whole machine's and each process's (the gateways, nginx with its
#    workers, redis-server, the provider, wrk), and the TCP connections opened during it (wrk's CONNS included).
# 2. The time a 429 on instance A takes to cool the key on instance B (bench/cluster-cooling.js): p50, p99, max.
#
# Needs target/keypool.jar, redis-server, /usr/sbin/nginx, wrk and node. Every process runs on loopback and is stopped
# at the end. The gateways run with the image's JVM flags (the Dockerfile's JAVA_OPTS).
# Knobs (environment): DURATION=10 WARMUP=5 seconds per wrk run and the warm-up before it, JIT_WARMUP=40 seconds of
# traffic to the instance alone and to the two before the first round, ROUNDS=2, CONNS=256, LATENCY_MS=50, SAMPLES=50
# coolings; NGINX_CONF=deploy/nginx.conf (the file both nginx setups run); COMPARE_CONF (another nginx.conf: a fourth
# setup, nginx on it in front of the same two, in every round, and its ratio to the two on NGINX_CONF);
# CLUSTER_JAVA_OPTS (flags added to the two instances' only, e.g. -XX:ActiveProcessorCount=1); ports ALONE_PORT=18481
# A_PORT=18482 B_PORT=18483 LB_PORT=18484 LB1_PORT=18485 LB2_PORT=18486 FAKE_PORT=9481 RATE_LIMITED_PORT=9482
# REDIS_PORT=9483; JAVA_HOME as for the build.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
cd "$BENCH_DIR/.."

DURATION=${DURATION:-10}; WARMUP=${WARMUP:-5}; JIT_WARMUP=${JIT_WARMUP:-40}; ROUNDS=${ROUNDS:-2}; CONNS=${CONNS:-256}
LATENCY_MS=${LATENCY_MS:-50}; SAMPLES=${SAMPLES:-50}
NGINX_CONF=${NGINX_CONF:-deploy/nginx.conf}; COMPARE_CONF=${COMPARE_CONF:-}; CLUSTER_JAVA_OPTS=${CLUSTER_JAVA_OPTS:-}
ALONE_PORT=${ALONE_PORT:-18481}; A_PORT=${A_PORT:-18482}; B_PORT=${B_PORT:-18483}; LB_PORT=${LB_PORT:-18484}
LB1_PORT=${LB1_PORT:-18485}; LB2_PORT=${LB2_PORT:-18486}; FAKE_PORT=${FAKE_PORT:-9481}; RATE_LIMITED_PORT=${RATE_LIMITED_PORT:-9482}
REDIS_PORT=${REDIS_PORT:-9483}
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
NGINX=/usr/sbin/nginx
die() { echo "cluster.sh: $*" >&2; exit 1; }
for tool in redis-server redis-cli wrk node curl; do command -v "$tool" >/dev/null || die "$tool not found"; done
[ -x "$NGINX" ] || die "$NGINX not found (apt-get install -y nginx)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install -y time)"
[ -f target/keypool.jar ] || die "target/keypool.jar not found: mvn -B -ntp -q package -DskipTests"
for conf in "$NGINX_CONF" $COMPARE_CONF; do [ -f "$conf" ] || die "$conf not found"; done
for port in "$ALONE_PORT" "$A_PORT" "$B_PORT" "$LB_PORT" "$LB1_PORT" "$LB2_PORT" "$FAKE_PORT" "$RATE_LIMITED_PORT" "$REDIS_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is in use (the *_PORT variables move it)"; fi
done
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

OUT=$(mktemp -d /tmp/keypool-cluster-bench.XXXXXX)
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
TOKEN=bench-admin-token-$RANDOM$RANDOM

# the providers: one answering after LATENCY_MS, one answering 429 to everything (for the coolings)
node bench/fake-upstream.js --port "$FAKE_PORT" --latency-ms "$LATENCY_MS" > "$OUT/fake.log" 2>&1 & PIDS+=($!)
FAKE_PID=$!
node bench/fake-upstream.js --port "$RATE_LIMITED_PORT" > "$OUT/fake-429.log" 2>&1 & PIDS+=($!)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no > "$OUT/redis.log" 2>&1 & PIDS+=($!)
REDIS_PID=$!
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

. "$BENCH_DIR/jvm-flags.sh"
FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
JAVA_OPTS=$(shipped_java_opts "$FEATURE") || die "cannot read the shipped JVM flags"
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"ping"}],"max_tokens":1}'

start_gateway() {   # start_gateway NAME CONFIG PORT [FLAGS...]
  local name=$1 config=$2 port=$3
  shift 3
  mkdir -p "$OUT/$name"
  # shellcheck disable=SC2086  # JAVA_OPTS is a list of flags
  "$JAVA" $JAVA_OPTS "$@" -Dkeypool.config="$config" -Dkeypool.instance-id="$name" -Dstate.dir="$OUT/$name/state" \
    -Dcamel.server.host=127.0.0.1 -Dcamel.server.port="$port" -Dcamel.management.port="$port" \
    -jar target/keypool.jar > "$OUT/$name.log" 2>&1 &
  PIDS+=($!)
}
ready() {   # ready URL
  for _ in $(seq 1 240); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Content-Type: application/json' -d "$BODY" "$1/v1/chat/completions")" = 200 ] && return
    sleep 0.5
  done
  die "$1 did not answer 200 within 2 minutes (logs in $OUT)"
}
start_gateway alone "$OUT/alone.yaml" "$ALONE_PORT"; ALONE_PID=$!
# shellcheck disable=SC2086  # CLUSTER_JAVA_OPTS is a list of flags
start_gateway a "$OUT/cluster.yaml" "$A_PORT" $CLUSTER_JAVA_OPTS; A_PID=$!
# shellcheck disable=SC2086
start_gateway b "$OUT/cluster.yaml" "$B_PORT" $CLUSTER_JAVA_OPTS; B_PID=$!
ALONE=http://127.0.0.1:$ALONE_PORT; A=http://127.0.0.1:$A_PORT; B=http://127.0.0.1:$B_PORT
LB=http://127.0.0.1:$LB_PORT; LB1=http://127.0.0.1:$LB1_PORT
ready "$ALONE"; ready "$A"; ready "$B"

start_nginx() {   # start_nginx NAME CONF LISTEN_PORT UPSTREAM_PORT... : CONF with these upstream servers and listen port
  local dir=$OUT/$1 conf=$2 listen=$3
  shift 3
  mkdir -p "$dir/temp"
  {
    [ "$(id -u)" = 0 ] && echo "user root;"
    echo "daemon off;"
    echo "pid $dir/nginx.pid;"
    awk -v servers="$*" -v listen="$listen" -v temp="$dir/temp" '
      /^[ \t]*server[ \t]+[^ \t]+:8080;/ {
        if (!done) { n = split(servers, port, " "); for (i = 1; i <= n; i++) printf "        server 127.0.0.1:%s;\n", port[i] }
        done = 1; next
      }
      /^[ \t]*listen 8080;/ { sub(/listen 8080;/, "listen 127.0.0.1:" listen ";") }
      { print }
      /^http \{/ {
        print "    access_log off;"
        printf "    client_body_temp_path %s/body;\n    proxy_temp_path %s/proxy;\n    fastcgi_temp_path %s/fastcgi;\n", temp, temp, temp
        printf "    uwsgi_temp_path %s/uwsgi;\n    scgi_temp_path %s/scgi;\n", temp, temp
      }' "$conf"
  } > "$dir/nginx.conf"
  "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" > "$dir/out.log" 2>&1 & PIDS+=($!)
}
start_nginx nginx-two "$NGINX_CONF" "$LB_PORT" "$A_PORT" "$B_PORT"; LB_PID=$!
start_nginx nginx-one "$NGINX_CONF" "$LB1_PORT" "$ALONE_PORT"; LB1_PID=$!
ready "$LB"; ready "$LB1"
SETUPS="one nginx-one two"
if [ -n "$COMPARE_CONF" ]; then
  start_nginx nginx-compare "$COMPARE_CONF" "$LB2_PORT" "$A_PORT" "$B_PORT"; LB2_PID=$!
  LB2=http://127.0.0.1:$LB2_PORT; ready "$LB2"; SETUPS="$SETUPS compare"
fi

echo "KeyPool cluster benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ): $(nproc) cores, $("$JAVA" -version 2>&1 | head -1), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), nginx $("$NGINX" -v 2>&1 | cut -d/ -f2) on $NGINX_CONF${COMPARE_CONF:+ (and $COMPARE_CONF)}"
echo "gateways: $JAVA_OPTS; the two also: ${CLUSTER_JAVA_OPTS:-nothing}"
echo "load before the runs (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg); provider latency ${LATENCY_MS} ms; $CONNS connections; ${DURATION}s per run; raw outputs in $OUT"

# CPU in clock ticks: of processes (nginx with its workers), of the whole machine (busy time of all cores)
ticks() {
  local total=0 pid child
  for pid in "$@"; do
    for child in "$pid" $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
      [ -r "/proc/$child/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat")))
    done
  done
  echo "$total"
}
machine_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
active_opens() { awk '/^Tcp:/ { if (!col) { for (i = 1; i <= NF; i++) if ($i == "ActiveOpens") col = i } else print $col }' /proc/net/snmp; }
HZ=$(getconf CLK_TCK)

run() {   # run URL TAG GATEWAY_PIDS NGINX_PID -> "rps p50_ms p99_ms errors | cpu µs/request: machine gateways nginx redis provider wrk | connections opened"
  local url=$1 tag=$2 gateways=$3 nginx=$4 before after m0 m1 o0 o1
  wrk -t2 -c"$CONNS" -d"${WARMUP}s" --timeout 10s -s bench/post.lua "$url/v1/chat/completions" > "$OUT/warm-$tag.txt" 2>&1 || true
  # shellcheck disable=SC2086  # gateways is a list of pids
  before="$(ticks $gateways) $(ticks $nginx) $(ticks "$REDIS_PID") $(ticks "$FAKE_PID")"; m0=$(machine_ticks); o0=$(active_opens)
  /usr/bin/time -f '%U %S' -o "$OUT/time-$tag.txt" \
    wrk -t2 -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency -s bench/post.lua "$url/v1/chat/completions" > "$OUT/wrk-$tag.txt" 2>&1 || true
  # shellcheck disable=SC2086
  after="$(ticks $gateways) $(ticks $nginx) $(ticks "$REDIS_PID") $(ticks "$FAKE_PID")"; m1=$(machine_ticks); o1=$(active_opens)
  awk -v before="$before" -v after="$after" -v m0="$m0" -v m1="$m1" -v o="$((o1 - o0))" -v hz="$HZ" -v wrk="$(cat "$OUT/time-$tag.txt")" '
    /^BENCH / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END {
      n = v["requests"] > 0 ? v["requests"] : 1; us = 1e6 / hz / n
      split(before, b, " "); split(after, a, " "); split(wrk, w, " ")
      printf "%.0f %.1f %.1f %d %.0f %.0f %.0f %.0f %.0f %.0f %d\n", v["rps"], v["p50_us"] / 1000, v["p99_us"] / 1000,
        v["non2xx"] + v["connect"] + v["read"] + v["timeout"], (m1 - m0) * us,
        (a[1] - b[1]) * us, (a[2] - b[2]) * us, (a[3] - b[3]) * us, (a[4] - b[4]) * us, (w[1] + w[2]) * 1e6 / n, o
    }' "$OUT/wrk-$tag.txt"
}

# JIT warm-up, the same for each of the three JVMs: JIT_WARMUP seconds of load sent to it directly. A fresh JVM's
# throughput still climbs over its first ~45 s of load; warmed through nginx, each of the two would get half the
# requests the one alone gets in the same time, and the comparison would measure their warm-up (0.5 x instead of 1.0-1.1
# x: bench/README.md, "Two instances behind nginx").
echo "JIT warm-up: ${JIT_WARMUP}s of load to each instance directly"
for gateway in "$ALONE" "$A" "$B"; do
  wrk -t2 -c"$CONNS" -d"${JIT_WARMUP}s" --timeout 10s -s bench/post.lua "$gateway/v1/chat/completions" >> "$OUT/jit.txt" 2>&1 || true
done

FORMAT='%-6s %-25s %7s %7s %7s %6s | %7s %8s %6s %6s %8s %5s | %6s\n'
echo "CPU µs per request: the machine's busy time, then each process's; conns: TCP connections opened during the run"
# shellcheck disable=SC2059  # FORMAT is this script's
printf "$FORMAT" round setup req/s p50_ms p99_ms errors machine gateways nginx redis provider wrk conns
for round in $(seq 1 "$ROUNDS"); do
  order=$SETUPS; [ $((round % 2)) = 0 ] && order=$(echo "$SETUPS" | tr ' ' '\n' | tac | tr '\n' ' ')
  for setup in $order; do
    case $setup in
      one) read -r rps_one p50 p99 err m g n r f w o <<< "$(run "$ALONE" "one-$round" "$ALONE_PID" "")"; rps=$rps_one
           label="one instance alone" ;;
      nginx-one) read -r rps_nginx p50 p99 err m g n r f w o <<< "$(run "$LB1" "nginx-one-$round" "$ALONE_PID" "$LB1_PID")"
           rps=$rps_nginx; label="nginx + one instance" ;;
      two) read -r rps_two p50 p99 err m g n r f w o <<< "$(run "$LB" "two-$round" "$A_PID $B_PID" "$LB_PID")"; rps=$rps_two
           label="nginx + two on one Redis" ;;
      compare) read -r rps_compare p50 p99 err m g n r f w o <<< "$(run "$LB2" "compare-$round" "$A_PID $B_PID" "$LB2_PID")"
           rps=$rps_compare; label="COMPARE_CONF + two" ;;
    esac
    # shellcheck disable=SC2059
    printf "$FORMAT" "$round" "$label" "$rps" "$p50" "$p99" "$err" "$m" "$g" "$n" "$r" "$f" "$w" "$o"
  done
  awk -v one="$rps_one" -v lb="$rps_nginx" -v two="$rps_two" -v r="$round" 'function ratio(a, b) { return b > 0 ? a / b : 0 }
    BEGIN { printf "round %s: two/one = %.2f x; nginx+one/one = %.2f x; two/nginx+one = %.2f x\n", r, ratio(two, one), ratio(lb, one), ratio(two, lb) }'
  [ -z "$COMPARE_CONF" ] || awk -v c="$rps_compare" -v two="$rps_two" -v r="$round" \
    'BEGIN { printf "round %s: two on COMPARE_CONF / two on NGINX_CONF = %.2f x\n", r, (two > 0 ? c / two : 0) }'
done

FINGERPRINT=$(printf '%s' sk-cool-one | sha256sum | cut -c1-16)
node bench/cluster-cooling.js --a "$A" --b "$B" --token "$TOKEN" --model cool-model --channel cool \
  --key "$FINGERPRINT" --samples "$SAMPLES"
echo "load after the runs (1/5/15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
