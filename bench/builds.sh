#!/usr/bin/env bash
# Several builds of KeyPool side by side: the gateway's CPU per request at CPU_CONNS connections with the provider at
# 50 ms, and its rate against the fake's own (gateway ÷ direct), the builds alternated round by round.
#
#   BUILDS="before=/tmp/kp-0a28743 after=/work/main" bench/builds.sh
#
# Each build is a checkout with its target/keypool.jar packaged (mvn -B -q package -DskipTests -Daot.skip=true); this
# script builds nothing. One gateway per build, all started at once (ports GW_PORT, GW_PORT+1, ...) on the same two
# fakes, each on its own state.dir and its own bench/keypool-bench.yaml (an older build refuses the newer blocks), with
# the request log turned off where the build has one (the request path alone is compared). Each gets JIT_WARMUP s of
# traffic (half at 64 connections with the provider at 0 ms, half in the measured cell). Then ROUNDS rounds: the fake
# directly, then every build in an order that rotates from round to round, each WARMUP s then DURATION s measured.
# CPU is the gateway's utime + stime from /proc/<pid>/stat over the measured run divided by the requests wrk saw
# answered: far less moved by other load on the machine than requests/s. Prints every cell, then per build the medians
# and spreads, and each build against the first, paired round by round.
#
# With PROFILER (the path of async-profiler's libasyncProfiler.so, e.g. from the Maven artifact
# tools.profiler:async-profiler) each measured run is also profiled (CPU by setitimer, which needs no perf_events, every
# 1 ms) into $OUT/profile-r<round>-<build>.collapsed (collapsed stacks, for a flame graph or a diff); the profiler
# costs CPU too. The same checkout may come twice under two names, with FLAGS_<name> (JVM flags, e.g.
# -Dcamel.main.jmx-enabled=false: system properties override application.properties) for one of them.
#
# Knobs: BUILDS (name=DIR[:CONFIG] ..., CONFIG default DIR/bench/keypool-bench.yaml), FLAGS_<name>, ROUNDS=3
#        JIT_WARMUP=20 WARMUP=2 DURATION=10 CPU_CONNS=256 LATENCY_MS=50, PROFILER, BENCH_OUT, and those bench/lib.sh
#        reads (JAVA_HOME, KEYPOOL_JAVA_OPTS, AOT_CACHE, GW_PORT, PRIMARY_PORT, BACKUP_PORT, GW_CPUS, FAKE_CPUS)
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, starting and stopping gateways, stopping all on exit
. "$BENCH_DIR/lib.sh"
BUILDS=${BUILDS:-}
ROUNDS=${ROUNDS:-3}
JIT_WARMUP=${JIT_WARMUP:-20}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-10}
CPU_CONNS=${CPU_CONNS:-256}
LATENCY_MS=${LATENCY_MS:-50}
PROFILER=${PROFILER:-}
OUT=${BENCH_OUT:-$BENCH_DIR/results/builds-$(date +%Y%m%d-%H%M%S)}

[ -n "$BUILDS" ] || die "BUILDS is empty: name=DIR[:CONFIG] for each build to compare"
for tool in wrk node curl "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found"; done
read -r -a specs <<< "$BUILDS"
names=(); declare -A DIR CONFIG PORT PID
for k in "${!specs[@]}"; do
  spec=${specs[$k]}; name=${spec%%=*}; rest=${spec#*=}
  [ "$name" != "$spec" ] && [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || die "'$spec' is not name=DIR[:CONFIG] (a name of letters, digits and _)"
  DIR[$name]=$(cd "${rest%%:*}" && pwd) || die "no directory ${rest%%:*}"
  [ "$rest" = "${rest#*:}" ] && CONFIG[$name]=${DIR[$name]}/bench/keypool-bench.yaml || CONFIG[$name]=${rest#*:}
  [ -f "${DIR[$name]}/target/keypool.jar" ] || die "no ${DIR[$name]}/target/keypool.jar: package that build first"
  [ -f "${CONFIG[$name]}" ] || die "no config ${CONFIG[$name]}"
  PORT[$name]=$((GW_PORT + k))
  names+=("$name")
done
for p in "${PORT[@]}" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
mkdir -p "$OUT"
: > "$OUT/summary.txt"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

start_fakes
fake_ctl() { curl -sf -m 10 -X POST "$PRIMARY/control/$1" > /dev/null || die "fake control $1 failed"; }
java_flags
HZ=$(getconf CLK_TCK)
cpu_total() { awk '$1=="cpu" {idle=$5+$6; t=0; for(i=2;i<=NF;i++) t+=$i; print t-idle, t}' /proc/stat; }
cpu_proc() { awk '{print $14+$15}' "/proc/$1/stat"; }
# profile PID COMMAND: async-profiler's COMMAND in the gateway PID, its library loaded (again) through the attach API.
# The command goes in double quotes: unquoted, jcmd's parser takes "start,event" for an option's name and drops the rest.
# (jcmd answers 0 even when the agent refused: its answer is kept in $OUT/profiler.txt)
profile() { "${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$1" JVMTI.agent_load "$PROFILER" "\"$2\"" >> "$OUT/profiler.txt" 2>&1; }
# cell URL SECS TAG [PID]: wrk at CPU_CONNS connections; prints "rps requests ticks errors box%" (ticks: PID's CPU over
# the run, 0 without PID; box: the whole machine busy, % of all cores)
cell() {
  local url=$1 secs=$2 tag=$3 pid=${4:-} t0 t1 g0=0 g1=0 line
  local profiled=""
  [ -n "$pid" ] && [ -n "$PROFILER" ] && [[ "$tag" != *-warmup ]] && profiled=1
  [ -z "$profiled" ] || profile "$pid" "start,event=itimer,interval=1ms"
  t0=$(cpu_total); [ -n "$pid" ] && g0=$(cpu_proc "$pid")
  wrk -t2 -c"$CPU_CONNS" -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" > "$OUT/wrk-$tag.txt" 2>&1 || true
  t1=$(cpu_total); [ -n "$pid" ] && g1=$(cpu_proc "$pid")
  [ -z "$profiled" ] || profile "$pid" "stop,file=$OUT/profile-$tag.collapsed,collapsed"
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 0 fail 0"; return; }
  awk -v l="$line" -v a="$t0" -v b="$t1" -v g="$((g1 - g0))" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    split(a,x," "); split(b,y," "); d=y[2]-x[2]
    printf "%.0f %d %d %d %.0f\n", v["rps"], v["requests"], g, v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"],
      (d>0 ? 100*(y[1]-x[1])/d : 0) }'
}

say "builds side by side, $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "$("$JAVA" -version 2>&1 | head -1); KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS'${AOT_CACHE:+; AOT_CACHE=$AOT_CACHE}; raw outputs $OUT"
for name in "${names[@]}"; do
  dir=${DIR[$name]}; cfg=$OUT/keypool-$name.yaml
  cp "${CONFIG[$name]}" "$cfg"
  # the request log off where the build has one and the config says nothing of it
  if grep -rqs 'requestLog' "$dir/src/main/java" && ! grep -q '^requestLog:' "$cfg"; then
    printf '\nrequestLog:\n  enabled: false\n' >> "$cfg"
  fi
  flags_var=FLAGS_$name
  say "$name: ${!flags_var:+JVM flags ${!flags_var}, }$dir at $(git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$dir" diff --quiet HEAD 2>/dev/null || echo ' (with changes)'), config ${CONFIG[$name]}$(grep -q '^requestLog:' "$cfg" && ! grep -q '^requestLog:' "${CONFIG[$name]}" && echo ', request log off'), port ${PORT[$name]}"
  rm -rf "$OUT/state-$name"
  flags_var=FLAGS_$name
  # shellcheck disable=SC2086  # FLAGS_<name> is a list of JVM flags
  GW_PORT=${PORT[$name]} launch_gateway "$dir" "$OUT/gateway-$name.log" "$cfg" -Dstate.dir="$OUT/state-$name/" ${!flags_var:-}
  PID[$name]=$GW_PID
done
for name in "${names[@]}"; do
  GW_PID=${PID[$name]}
  await_gateway "$OUT/gateway-$name.log" eval '[ "$(post_status "http://127.0.0.1:${PORT[$name]}")" = 200 ]' \
    || die "$name did not answer 200 within 60 s ($OUT/gateway-$name.log)"
done
# the JIT's warm-up: half at 64 connections with the provider at 0 ms (many requests), half in the measured cell (its
# connection pools at their size); without the second half the first round still saw the compiler at work
for name in "${names[@]}"; do
  fake_ctl "latency?ms=0"
  wrk -t2 -c64 -d"$((JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" > "$OUT/wrk-$name-jit.txt" 2>&1 || true
  fake_ctl "latency?ms=$LATENCY_MS"
  wrk -t2 -c"$CPU_CONNS" -d"$((JIT_WARMUP - JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" \
    > "$OUT/wrk-$name-jit-cell.txt" 2>&1 || true
done
say ""
say "== $ROUNDS rounds: the fake directly, then each build in a rotating order; $CPU_CONNS connections, provider ${LATENCY_MS} ms, ${WARMUP}s + ${DURATION}s measured each, after ${JIT_WARMUP}s of JIT warm-up per build =="
printf -v hdr '| %5s | %-10s | %7s | %8s | %10s | %6s | %4s | %6s |' round build "RPS" requests "µs/request" "÷ dir" box errors
say "$hdr"
say "|$(printf '%s' "$hdr" | sed 's/[^|]/-/g; s/^|//; s/|$//')|"
results=""
n=${#names[@]}
for round in $(seq 1 "$ROUNDS"); do
  cell "$PRIMARY$CHAT" "$WARMUP" "r$round-direct-warmup" > /dev/null
  read -r drps dreqs _ derr dbox <<< "$(cell "$PRIMARY$CHAT" "$DURATION" "r$round-direct")"
  printf -v row '| %5s | %-10s | %7s | %8s | %10s | %6s | %3s%% | %6s |' "$round" direct "$drps" "$dreqs" "" "" "$dbox" "$derr"
  say "$row"
  for k in $(seq 0 $((n - 1))); do
    name=${names[$(( (k + round - 1) % n ))]}
    url="http://127.0.0.1:${PORT[$name]}$CHAT"
    cell "$url" "$WARMUP" "r$round-$name-warmup" "${PID[$name]}" > /dev/null
    read -r rps reqs ticks errors box <<< "$(cell "$url" "$DURATION" "r$round-$name" "${PID[$name]}")"
    kill -0 "${PID[$name]}" 2>/dev/null || die "$name died ($OUT/gateway-$name.log)"
    us=$(awk -v t="$ticks" -v r="$reqs" -v hz="$HZ" 'BEGIN {printf "%.1f", (r>0 ? 1e6*t/hz/r : 0)}')
    ratio=$(awk -v g="$rps" -v d="$drps" 'BEGIN {printf "%.2f", (d>0 ? g/d : 0)}')
    results="$results $round:$name:$us:$ratio"
    printf -v row '| %5s | %-10s | %7s | %8s | %7s µs | %6s | %3s%% | %6s |' "$round" "$name" "$rps" "$reqs" "$us" "$ratio" "$box" "$errors"
    say "$row"
  done
done
say ""
node -e '
  const rows = process.argv[1].trim().split(" ").map(x => { const [r, b, us, ratio] = x.split(":"); return { r: +r, b, us: +us, ratio: +ratio }; });
  const names = process.argv[2].split(" ");
  const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const by = b => rows.filter(x => x.b === b);
  const span = (v, d) => `median ${med(v).toFixed(d)} (${Math.min(...v).toFixed(d)}-${Math.max(...v).toFixed(d)})`;
  for (const b of names) {
    console.log(`${b}: gateway CPU per request ${span(by(b).map(x => x.us), 1)} µs; ÷ direct ${span(by(b).map(x => x.ratio), 2)}`);
  }
  const first = names[0];
  for (const b of names.slice(1)) {
    // paired within each round: the cells of one round run back to back
    const paired = by(b).map(x => 100 * (x.us / rows.find(y => y.r === x.r && y.b === first).us - 1));
    const cost = 100 * (med(by(b).map(x => x.us)) / med(by(first).map(x => x.us)) - 1);
    const sign = p => (p >= 0 ? "+" : "") + p.toFixed(1);
    console.log(`${b} against ${first}: CPU per request ${sign(cost)} % by the medians, per round ${paired.map(sign).join(" / ")} %`);
  }' "$results" "${names[*]}" | tee -a "$OUT/summary.txt"
say "summary: $OUT/summary.txt"
exit 0
}
