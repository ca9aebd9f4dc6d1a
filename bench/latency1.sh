#!/usr/bin/env bash
# The added p50 at one connection, each build's gateway started once and alternated with the direct call: the latency
# matrix's 1-connection cells (bench/run.sh latency) without its fresh start per run, whose spread is larger than the
# differences looked for here.
#
#   BUILDS="before=/tmp/kp-before after=." bench/latency1.sh
#
# Each build is a checkout with its target/keypool.jar packaged (mvn -B -q package -DskipTests -Daot.skip=true); this
# script builds nothing. One gateway per build, all started at once (ports GW_PORT, GW_PORT+1, ...) on the same fake,
# each on its own state.dir and a copy of bench/keypool-bench.yaml with the request log off. Each gets JIT_WARMUP s of
# traffic (half at 64 connections, half at 1, provider 0 ms). Then ROUNDS rounds; in each, for every provider latency of
# LATENCIES: the fake directly, then every build in an order that rotates from round to round, WARMUP s then DURATION s
# of wrk at one connection each. Prints every cell (p50, p90, the added p50 = gateway p50 - the direct p50 of the same
# round and latency, the gateway's CPU per request from /proc/<pid>/stat), then per build and latency the median and
# spread of the added p50, and each build against the first, paired round by round.
#
# Knobs: BUILDS (name=DIR ..., as bench/builds.sh), FLAGS_<name> (JVM flags of one build), ROUNDS=5 JIT_WARMUP=30
#        WARMUP=2 DURATION=8 LATENCIES="0 50", BENCH_OUT, and those bench/lib.sh reads (JAVA_HOME, KEYPOOL_JAVA_OPTS,
#        AOT_CACHE, GW_PORT, PRIMARY_PORT, BACKUP_PORT, GW_CPUS, FAKE_CPUS)
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, starting and stopping gateways, stopping all on exit
. "$BENCH_DIR/lib.sh"
BUILDS=${BUILDS:-}
ROUNDS=${ROUNDS:-5}
JIT_WARMUP=${JIT_WARMUP:-30}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-8}
LATENCIES=${LATENCIES:-"0 50"}
OUT=${BENCH_OUT:-$BENCH_DIR/results/latency1-$(date +%Y%m%d-%H%M%S)}

[ -n "$BUILDS" ] || die "BUILDS is empty: name=DIR for each build to compare"
for tool in wrk node curl "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found"; done
read -r -a specs <<< "$BUILDS"
names=(); declare -A DIR PORT PID
for k in "${!specs[@]}"; do
  spec=${specs[$k]}; name=${spec%%=*}
  [ "$name" != "$spec" ] && [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || die "'$spec' is not name=DIR (a name of letters, digits and _)"
  DIR[$name]=$(cd "${spec#*=}" && pwd) || die "no directory ${spec#*=}"
  [ -f "${DIR[$name]}/target/keypool.jar" ] || die "no ${DIR[$name]}/target/keypool.jar: package that build first"
  PORT[$name]=$((GW_PORT + k))
  names+=("$name")
done
for p in "${PORT[@]}" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
mkdir -p "$OUT"
: > "$OUT/summary.txt"

start_fakes
fake_ctl() { curl -sf -m 10 -X POST "$PRIMARY/control/$1" > /dev/null || die "fake control $1 failed"; }
java_flags
HZ=$(getconf CLK_TCK)
cpu_proc() { awk '{print $14+$15}' "/proc/$1/stat"; }
# cell URL SECS TAG [PID]: wrk at one connection; prints "p50_us p90_us requests ticks errors"
cell() {
  local url=$1 secs=$2 tag=$3 pid=${4:-} g0=0 g1=0 line
  [ -n "$pid" ] && g0=$(cpu_proc "$pid")
  wrk -t1 -c1 -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" > "$OUT/wrk-$tag.txt" 2>&1 || true
  [ -n "$pid" ] && g1=$(cpu_proc "$pid")
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 0 0 fail"; return; }
  awk -v l="$line" -v g="$((g1 - g0))" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    printf "%d %d %d %d %d\n", v["p50_us"], v["p90_us"], v["requests"], g, v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"] }'
}

say "one connection, builds alternated with the direct call, $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "$("$JAVA" -version 2>&1 | head -1); KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS'${AOT_CACHE:+; AOT_CACHE=$AOT_CACHE}; raw outputs $OUT"
for name in "${names[@]}"; do
  dir=${DIR[$name]}; cfg=$OUT/keypool-$name.yaml
  cp "$dir/bench/keypool-bench.yaml" "$cfg"
  grep -q '^requestLog:' "$cfg" || printf '\nrequestLog:\n  enabled: false\n' >> "$cfg"
  flags_var=FLAGS_$name
  say "$name: ${!flags_var:+JVM flags ${!flags_var}, }$dir at $(git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$dir" diff --quiet HEAD 2>/dev/null || echo ' (with changes)'), port ${PORT[$name]}"
  rm -rf "$OUT/state-$name"
  # shellcheck disable=SC2086  # FLAGS_<name> is a list of JVM flags
  GW_PORT=${PORT[$name]} launch_gateway "$dir" "$OUT/gateway-$name.log" "$cfg" -Dstate.dir="$OUT/state-$name/" ${!flags_var:-}
  PID[$name]=$GW_PID
done
for name in "${names[@]}"; do
  GW_PID=${PID[$name]}
  await_gateway "$OUT/gateway-$name.log" eval '[ "$(post_status "http://127.0.0.1:${PORT[$name]}")" = 200 ]' \
    || die "$name did not answer 200 within 60 s ($OUT/gateway-$name.log)"
done
fake_ctl "latency?ms=0"
for name in "${names[@]}"; do
  wrk -t2 -c64 -d"$((JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" > "$OUT/wrk-$name-jit.txt" 2>&1 || true
  wrk -t1 -c1 -d"$((JIT_WARMUP - JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" > "$OUT/wrk-$name-jit1.txt" 2>&1 || true
done
say ""
say "== $ROUNDS rounds; per provider latency the fake directly, then each build in a rotating order; 1 connection, ${WARMUP}s + ${DURATION}s measured each, after ${JIT_WARMUP}s of JIT warm-up per build =="
printf -v hdr '| %5s | %8s | %-10s | %8s | %8s | %9s | %10s | %6s |' round provider build "p50" "p90" "added p50" "µs/request" errors
say "$hdr"
say "|$(printf '%s' "$hdr" | sed 's/[^|]/-/g; s/^|//; s/|$//')|"
results=""
n=${#names[@]}
for round in $(seq 1 "$ROUNDS"); do
  for lat in $LATENCIES; do
    fake_ctl "latency?ms=$lat"
    cell "$PRIMARY$CHAT" "$WARMUP" "r$round-${lat}ms-direct-warmup" > /dev/null
    read -r dp50 dp90 _ _ derr <<< "$(cell "$PRIMARY$CHAT" "$DURATION" "r$round-${lat}ms-direct")"
    printf -v row '| %5s | %5s ms | %-10s | %5.2f ms | %5.2f ms | %9s | %10s | %6s |' "$round" "$lat" direct \
      "$(awk -v u="$dp50" 'BEGIN {print u/1000}')" "$(awk -v u="$dp90" 'BEGIN {print u/1000}')" "" "" "$derr"
    say "$row"
    for k in $(seq 0 $((n - 1))); do
      name=${names[$(( (k + round - 1) % n ))]}
      url="http://127.0.0.1:${PORT[$name]}$CHAT"
      cell "$url" "$WARMUP" "r$round-${lat}ms-$name-warmup" "${PID[$name]}" > /dev/null
      read -r p50 p90 reqs ticks errors <<< "$(cell "$url" "$DURATION" "r$round-${lat}ms-$name" "${PID[$name]}")"
      kill -0 "${PID[$name]}" 2>/dev/null || die "$name died ($OUT/gateway-$name.log)"
      added=$(awk -v g="$p50" -v d="$dp50" 'BEGIN {printf "%.3f", (g-d)/1000}')
      us=$(awk -v t="$ticks" -v r="$reqs" -v hz="$HZ" 'BEGIN {printf "%.0f", (r>0 ? 1e6*t/hz/r : 0)}')
      results="$results $round:$lat:$name:$added"
      printf -v row '| %5s | %5s ms | %-10s | %5.2f ms | %5.2f ms | %6s ms | %7s µs | %6s |' "$round" "$lat" "$name" \
        "$(awk -v u="$p50" 'BEGIN {print u/1000}')" "$(awk -v u="$p90" 'BEGIN {print u/1000}')" "$added" "$us" "$errors"
      say "$row"
    done
  done
done
fake_ctl "latency?ms=0"
say ""
node -e '
  const rows = process.argv[1].trim().split(" ").map(x => { const [r, lat, b, added] = x.split(":"); return { r: +r, lat, b, added: +added }; });
  const names = process.argv[2].split(" "), lats = process.argv[3].trim().split(/\s+/);
  const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const f = v => v.toFixed(3);
  for (const lat of lats) {
    const by = b => rows.filter(x => x.b === b && x.lat === lat).map(x => x.added);
    for (const b of names) {
      const v = by(b);
      console.log(`provider ${lat} ms, ${b}: added p50 median ${f(med(v))} ms (${f(Math.min(...v))} to ${f(Math.max(...v))}; rounds ${v.map(f).join(" / ")})`);
    }
    for (const b of names.slice(1)) {
      const paired = rows.filter(x => x.b === b && x.lat === lat)
        .map(x => x.added - rows.find(y => y.r === x.r && y.lat === lat && y.b === names[0]).added);
      console.log(`provider ${lat} ms, ${b} against ${names[0]}: paired difference median ${f(med(paired))} ms (rounds ${paired.map(f).join(" / ")})`);
    }
  }' "$results" "${names[*]}" "$LATENCIES" | tee -a "$OUT/summary.txt"
say "summary: $OUT/summary.txt"
exit 0
}
