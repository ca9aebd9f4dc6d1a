#!/usr/bin/env bash
# Several builds of KeyPool side by side, the builds alternated round by round, in up to three cells (CELLS):
#   cpu256  CPU_CONNS connections, provider LATENCY_MS (50): the gateway's CPU per request, and its rate against the
#           fake's own (gateway ÷ direct)
#   cpu64   64 connections, provider 0 ms: the gateway's CPU per request (the request path's own cost, nothing waits)
#   lat1    1 connection, provider 0 ms and 50 ms: the gateway's p50 and p99 less the direct call's, measured in the
#           same round just before the builds, and its CPU per request (lat1-0, lat1-50: one of the two)
#
#   BUILDS="before=/tmp/kp-0a28743 after=/work/main" bench/builds.sh
#   BUILDS="bare=bare main=/work/main branch=." bench/builds.sh    # BareProxy beside them: this machine's floor
#
# A build named "bare" (name=bare) is bench/BareProxy.java, the least a gateway on Vert.x does (read the body, POST it
# to the provider on a pooled connection, answer): run from source with this checkout's target/lib (the gateway's own
# Vert.x and Netty) and the same JVM flags, measured in every cell beside the gateways, so that each target can be read
# against what Vert.x alone reaches on this machine in the same run.
#
# Each build is a checkout with its target/keypool.jar packaged (mvn -B -q package -DskipTests -Daot.skip=true); this
# script builds nothing. One gateway per build, all started at once (ports GW_PORT, GW_PORT+1, ...) on the same two
# fakes, each on its own state.dir and its own bench/keypool-bench.yaml (an older build refuses the newer blocks), with
# the request log turned off where the build has one (the request path alone is compared). Each gets JIT_WARMUP s of
# traffic (half at 64 connections with the provider at 0 ms, half at 256 with the provider at LATENCY_MS), then a few
# seconds at 1 connection. Then ROUNDS rounds: per cell, the fake directly (where the cell compares with it), then
# every build in an order that rotates from round to round, each WARMUP s then DURATION s measured.
# CPU is the gateway's utime + stime from /proc/<pid>/stat over the measured run divided by the requests wrk saw
# answered: far less moved by other load on the machine than requests/s. Prints every cell, then per build the medians
# and spreads, and each build against the first, paired round by round.
#
# With PROFILER (the path of async-profiler's libasyncProfiler.so, e.g. from the Maven artifact
# tools.profiler:async-profiler) each measured run of the cells in PROFILE_CELLS (default cpu64 cpu256) is also
# profiled (CPU by setitimer, which needs no perf_events, every 1 ms; PROFILE_EVENT=alloc for allocations, wall for
# the time threads wait too; PROFILE_OPTS=threads for a frame per thread) into
# $OUT/profile-r<round>-<build>-<cell>.collapsed (collapsed stacks, for a flame graph or a diff); the profiler costs
# CPU too. With PROFILE_EVENT=alloc a sample is taken every PROFILE_ALLOC_INTERVAL bytes (64k) and the stacks are
# weighed in bytes: each build's bytes allocated per request answered go to the summary, and
# bench/alloc-sites.py splits them by site. With THREADS_CELLS (of lat1-0 lat1-50 cpu64 cpu256) each measured run of those cells is also split by thread:
# from /proc/<pid>/task/*/schedstat and status before and after it, each thread's wake-ups (voluntary context
# switches), CPU time and time runnable but waiting for a CPU, per request, its Java name from jcmd Thread.print
# (digits as #: the threads of one pool in one row), into $OUT/threads-<tag>.txt, and per build and cell the rounds'
# medians at the end: which threads a request wakes, and which run meanwhile (timers).
# With SCHED_CELLS (of lat1-0 lat1-50; a request whose answer finds the gateway's thread awake is not counted, which at
# 0 ms may be most) each measured run of those cells is also recorded by perf's scheduler events
# (sched_waking, sched_switch, the whole machine; perf's own cost is in that run's figures) and read request by request
# by bench/answer-window.py into $OUT/sched-<tag>.txt: from the fake's answer waking the gateway to the client woken by
# the answer's write, and which other threads were woken in between.
# The same checkout may come twice under two names, with FLAGS_<name> (JVM flags, e.g.
# -Dcamel.main.jmx-enabled=false: system properties override application.properties) for one of them.
#
# Knobs: BUILDS (name=DIR[:CONFIG] or name=bare ..., CONFIG default DIR/bench/keypool-bench.yaml), FLAGS_<name>, ROUNDS=3
#        CELLS="cpu256 cpu64 lat1" JIT_WARMUP=20 WARMUP=2 DURATION=10 CPU_CONNS=256 LATENCY_MS=50, PROFILER,
#        PROFILE_CELLS (of cpu256 cpu64 lat1-0 lat1-50), PROFILE_EVENT, PROFILE_OPTS, PROFILE_ALLOC_INTERVAL, THREADS_CELLS, SCHED_CELLS, BENCH_OUT, and those bench/lib.sh
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
PROFILE_CELLS=${PROFILE_CELLS:-cpu64 cpu256}
PROFILE_EVENT=${PROFILE_EVENT:-itimer}
PROFILE_OPTS=${PROFILE_OPTS:-}
PROFILE_ALLOC_INTERVAL=${PROFILE_ALLOC_INTERVAL:-64k}
THREADS_CELLS=${THREADS_CELLS:-}
SCHED_CELLS=${SCHED_CELLS:-}
CELLS=${CELLS:-cpu256 cpu64 lat1}
OUT=${BENCH_OUT:-$BENCH_DIR/results/builds-$(date +%Y%m%d-%H%M%S)}

[ -n "$BUILDS" ] || die "BUILDS is empty: name=DIR[:CONFIG] (or name=bare) for each build to compare"
for c in $CELLS; do case "$c" in cpu256|cpu64|lat1|lat1-0|lat1-50) ;; *) die "unknown cell '$c' in CELLS (cpu256, cpu64, lat1, lat1-0, lat1-50)" ;; esac; done
for tool in wrk node curl "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found"; done
[ -z "$SCHED_CELLS" ] || command -v perf > /dev/null || die "perf not found (SCHED_CELLS)"
read -r -a specs <<< "$BUILDS"
names=(); declare -A DIR CONFIG PORT PID
for k in "${!specs[@]}"; do
  spec=${specs[$k]}; name=${spec%%=*}; rest=${spec#*=}
  [ "$name" != "$spec" ] && [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || die "'$spec' is not name=DIR[:CONFIG] (a name of letters, digits and _)"
  PORT[$name]=$((GW_PORT + k))
  names+=("$name")
  # BareProxy: no directory, no config
  [ "$rest" = bare ] && { DIR[$name]=bare; continue; }
  DIR[$name]=$(cd "${rest%%:*}" && pwd) || die "no directory ${rest%%:*}"
  [ "$rest" = "${rest#*:}" ] && CONFIG[$name]=${DIR[$name]}/bench/keypool-bench.yaml || CONFIG[$name]=${rest#*:}
  [ -f "${DIR[$name]}/target/keypool.jar" ] || die "no ${DIR[$name]}/target/keypool.jar: package that build first"
  [ -f "${CONFIG[$name]}" ] || die "no config ${CONFIG[$name]}"
done
for p in "${PORT[@]}" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
mkdir -p "$OUT"
: > "$OUT/summary.txt"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

start_fakes
fake_ctl() { curl -sf -m 10 -X POST "$PRIMARY/control/$1" > /dev/null || die "fake control $1 failed"; }
java_flags
HZ=$(getconf CLK_TCK)
# cell URL CONNS SECS TAG [PID [PROFILED]]: wrk at CONNS connections; prints "rps requests ticks errors box% p50_us
# p99_us" (ticks: PID's CPU over the run, 0 without PID; box: the whole machine busy, % of all cores); PROFILED=1 runs
# async-profiler over it
cell() {
  local url=$1 conns=$2 secs=$3 tag=$4 pid=${5:-} profiled=${6:-} split=${7:-} sched=${8:-} t0 t1 g0=0 g1=0 line threads=2 perf_pid
  [ "$conns" -lt 2 ] && threads=1
  [ -n "$PROFILER" ] || profiled=""
  # alloc: a sample every PROFILE_ALLOC_INTERVAL bytes allocated, the collapsed stacks weighed in bytes (total)
  local interval=1ms dump=""
  [ "$PROFILE_EVENT" = alloc ] && { interval=$PROFILE_ALLOC_INTERVAL; dump=,total; }
  [ -z "$profiled" ] || profile "$pid" "start,event=$PROFILE_EVENT,interval=$interval${PROFILE_OPTS:+,$PROFILE_OPTS}"
  [ -z "$split" ] || thread_snap "$pid" > "$OUT/threads-$tag.before"
  [ -z "$sched" ] || { perf record -q -k CLOCK_MONOTONIC -e sched:sched_waking,sched:sched_switch -a \
    -o "$OUT/sched-$tag.data" -- sleep "$secs" > /dev/null 2>&1 & perf_pid=$!; }
  t0=$(cpu_total); [ -n "$pid" ] && g0=$(cpu_proc "$pid")
  wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" > "$OUT/wrk-$tag.txt" 2>&1 || true
  t1=$(cpu_total); [ -n "$pid" ] && g1=$(cpu_proc "$pid")
  [ -z "$sched" ] || { wait "$perf_pid" || true; "$BENCH_DIR/answer-window.py" "$OUT/sched-$tag.data" "$pid" \
    > "$OUT/sched-$tag.txt" 2>&1 || true; }
  [ -z "$profiled" ] || profile "$pid" "stop,file=$OUT/profile-$tag.collapsed,collapsed$dump"
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 0 fail 0 0 0"; return; }
  # the bytes a request allocated (the profile's sum over the requests wrk saw answered), for the summary
  [ -z "$profiled" ] || [ -z "$dump" ] || awk -v t="$tag" -v l="$line" '{ b += $NF }
      END { n = split(l, f, " "); for (i = 2; i <= n; i++) { split(f[i], kv, "="); if (kv[1] == "requests") r = kv[2] }
            if (r > 0) printf "%s %.0f\n", t, b / r }' "$OUT/profile-$tag.collapsed" >> "$OUT/alloc.txt"
  [ -z "$split" ] || thread_split "$pid" "$OUT/threads-$tag.before" "$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' <<< "$line")" "$tag"
  awk -v l="$line" -v a="$t0" -v b="$t1" -v g="$((g1 - g0))" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    split(a,x," "); split(b,y," "); d=y[2]-x[2]
    printf "%.0f %d %d %d %.0f %d %d\n", v["rps"], v["requests"], g, v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"],
      (d>0 ? 100*(y[1]-x[1])/d : 0), v["p50_us"], v["p99_us"] }'
}
ms() { awk -v us="$1" 'BEGIN {printf "%.3f", us/1000}'; }

say "builds side by side, $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "$("$JAVA" -version 2>&1 | head -1); KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS'${AOT_CACHE:+; AOT_CACHE=$AOT_CACHE}; raw outputs $OUT"
for name in "${names[@]}"; do
  dir=${DIR[$name]}; cfg=$OUT/keypool-$name.yaml
  flags_var=FLAGS_$name
  if [ "$dir" = bare ]; then
    say "$name: bench/BareProxy.java on $ROOT/target/lib, ${!flags_var:+JVM flags ${!flags_var}, }port ${PORT[$name]}"
    # shellcheck disable=SC2086  # FLAGS_<name> is a list of JVM flags
    GW_PORT=${PORT[$name]} launch_bare "$OUT/gateway-$name.log" ${!flags_var:-}
    PID[$name]=$GW_PID
    continue
  fi
  cp "${CONFIG[$name]}" "$cfg"
  # the request log off where the build has one and the config says nothing of it
  if grep -rqs 'requestLog' "$dir/src/main/java" && ! grep -q '^requestLog:' "$cfg"; then
    printf '\nrequestLog:\n  enabled: false\n' >> "$cfg"
  fi
  say "$name: ${!flags_var:+JVM flags ${!flags_var}, }$dir at $(git -C "$dir" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$dir" diff --quiet HEAD 2>/dev/null || echo ' (with changes)'), config ${CONFIG[$name]}$(grep -q '^requestLog:' "$cfg" && ! grep -q '^requestLog:' "${CONFIG[$name]}" && echo ', request log off'), port ${PORT[$name]}"
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
# the JIT's warm-up: half at 64 connections with the provider at 0 ms (many requests), half at CPU_CONNS with the
# provider at LATENCY_MS (its connection pools at their size), then a few seconds at 1 connection; without the second
# half the first round still saw the compiler at work
for name in "${names[@]}"; do
  fake_ctl "latency?ms=0"
  wrk -t2 -c64 -d"$((JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" > "$OUT/wrk-$name-jit.txt" 2>&1 || true
  fake_ctl "latency?ms=$LATENCY_MS"
  wrk -t2 -c"$CPU_CONNS" -d"$((JIT_WARMUP - JIT_WARMUP / 2))s" -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" \
    > "$OUT/wrk-$name-jit-cell.txt" 2>&1 || true
  fake_ctl "latency?ms=0"
  wrk -t1 -c1 -d3s -s "$BENCH_DIR/post.lua" "http://127.0.0.1:${PORT[$name]}$CHAT" > "$OUT/wrk-$name-jit-c1.txt" 2>&1 || true
done
say ""
say "== $ROUNDS rounds of $CELLS, each build in a rotating order, ${WARMUP}s + ${DURATION}s measured each, after ${JIT_WARMUP}s of JIT warm-up per build =="
say "   cpu256: $CPU_CONNS connections, provider ${LATENCY_MS} ms; cpu64: 64 connections, provider 0 ms; lat1-<ms>: 1 connection, p50 and p99 added to the direct call's of the same round"
printf -v hdr '| %5s | %-8s | %-10s | %7s | %8s | %10s | %6s | %8s | %8s | %4s | %6s |' round cell build "RPS" requests "µs/request" "÷ dir" "p50" "p99" box errors
say "$hdr"
say "|$(printf '%s' "$hdr" | sed 's/[^|]/-/g; s/^|//; s/|$//')|"
# every measured build cell as "round cell build µs/request ÷dir added_p50_ms added_p99_ms", for the summary
: > "$OUT/cells.txt"
n=${#names[@]}
# run_cell ROUND CELL CONNS LATENCY DIRECT(0|1): the fake at LATENCY ms, the direct call if DIRECT, then every build
run_cell() {
  local round=$1 cname=$2 conns=$3 lat=$4 direct=$5 drps=0 dp50=0 dp99=0 derr dbox k name url rps reqs ticks errors box p50 p99 us ratio ap50 ap99 prof split sched row
  fake_ctl "latency?ms=$lat"
  if [ "$direct" = 1 ]; then
    cell "$PRIMARY$CHAT" "$conns" "$WARMUP" "r$round-$cname-direct-warmup" > /dev/null
    read -r drps _ _ derr dbox dp50 dp99 <<< "$(cell "$PRIMARY$CHAT" "$conns" "$DURATION" "r$round-$cname-direct")"
    printf -v row '| %5s | %-8s | %-10s | %7s | %8s | %10s | %6s | %5s ms | %5s ms | %3s%% | %6s |' "$round" "$cname" direct "$drps" "" "" "" "$(ms "$dp50")" "$(ms "$dp99")" "$dbox" "$derr"
    say "$row"
  fi
  prof=""
  [[ " $PROFILE_CELLS " == *" $cname "* ]] && prof=1
  split=""
  [[ " $THREADS_CELLS " == *" $cname "* ]] && split=1
  sched=""
  [[ " $SCHED_CELLS " == *" $cname "* ]] && sched=1
  for k in $(seq 0 $((n - 1))); do
    name=${names[$(( (k + round - 1) % n ))]}
    url="http://127.0.0.1:${PORT[$name]}$CHAT"
    cell "$url" "$conns" "$WARMUP" "r$round-$name-$cname-warmup" "${PID[$name]}" > /dev/null
    read -r rps reqs ticks errors box p50 p99 <<< "$(cell "$url" "$conns" "$DURATION" "r$round-$name-$cname" "${PID[$name]}" "$prof" "$split" "$sched")"
    kill -0 "${PID[$name]}" 2>/dev/null || die "$name died ($OUT/gateway-$name.log)"
    us=$(awk -v t="$ticks" -v r="$reqs" -v hz="$HZ" 'BEGIN {printf "%.1f", (r>0 ? 1e6*t/hz/r : 0)}')
    ratio=$(awk -v g="$rps" -v d="$drps" 'BEGIN {printf "%.2f", (d>0 ? g/d : 0)}')
    ap50=$(awk -v g="$p50" -v d="$dp50" 'BEGIN {printf "%.3f", (g-d)/1000}')
    ap99=$(awk -v g="$p99" -v d="$dp99" 'BEGIN {printf "%.3f", (g-d)/1000}')
    echo "$round $cname $name $us $ratio $ap50 $ap99" >> "$OUT/cells.txt"
    printf -v row '| %5s | %-8s | %-10s | %7s | %8s | %7s µs | %6s | %5s ms | %5s ms | %3s%% | %6s |' "$round" "$cname" "$name" "$rps" "$reqs" "$us" \
      "$([ "$direct" = 1 ] && echo "$ratio")" "$(ms "$p50")" "$(ms "$p99")" "$box" "$errors"
    say "$row"
  done
}
for round in $(seq 1 "$ROUNDS"); do
  for c in $CELLS; do
    case "$c" in
      cpu256) run_cell "$round" cpu256 "$CPU_CONNS" "$LATENCY_MS" 1 ;;
      cpu64) run_cell "$round" cpu64 64 0 0 ;;
      lat1) run_cell "$round" lat1-0 1 0 1; run_cell "$round" lat1-50 1 50 1 ;;
      lat1-0) run_cell "$round" lat1-0 1 0 1 ;;
      lat1-50) run_cell "$round" lat1-50 1 50 1 ;;
    esac
  done
done
fake_ctl "latency?ms=0"
say ""
node -e '
  const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(l => {
    const [r, c, b, us, ratio, ap50, ap99] = l.split(" ");
    return { r: +r, c, b, us: +us, ratio: +ratio, ap50: +ap50, ap99: +ap99 };
  });
  const names = process.argv[2].split(" ");
  const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const span = (v, d) => `median ${med(v).toFixed(d)} (${Math.min(...v).toFixed(d)}-${Math.max(...v).toFixed(d)})`;
  const sign = p => (p >= 0 ? "+" : "") + p.toFixed(1);
  const cells = [...new Set(rows.map(x => x.c))];
  const first = names[0];
  for (const c of cells) {
    const by = b => rows.filter(x => x.c === c && x.b === b);
    for (const b of names) {
      const v = by(b);
      if (c.startsWith("lat1")) {
        console.log(`${c} ${b}: added p50 ${span(v.map(x => x.ap50), 3)} ms, added p99 ${span(v.map(x => x.ap99), 3)} ms; CPU per request ${span(v.map(x => x.us), 1)} µs`);
      } else {
        console.log(`${c} ${b}: gateway CPU per request ${span(v.map(x => x.us), 1)} µs` + (c === "cpu256" ? `; ÷ direct ${span(v.map(x => x.ratio), 2)}` : ""));
      }
    }
    for (const b of names.slice(1)) {
      // paired within each round: the cells of one round run back to back
      const paired = by(b).map(x => 100 * (x.us / rows.find(y => y.c === c && y.r === x.r && y.b === first).us - 1));
      const cost = 100 * (med(by(b).map(x => x.us)) / med(by(first).map(x => x.us)) - 1);
      console.log(`${c} ${b} against ${first}: CPU per request ${sign(cost)} % by the medians, per round ${paired.map(sign).join(" / ")} %`);
      if (c.startsWith("lat1")) {
        const added = by(b).map(x => x.ap50 - rows.find(y => y.c === c && y.r === x.r && y.b === first).ap50);
        console.log(`${c} ${b} against ${first}: added p50 paired round by round, median ${sign(1000 * med(added))} µs (${added.map(d => sign(1000 * d)).join(" / ")})`);
      }
    }
  }' "$OUT/cells.txt" "${names[*]}" | tee -a "$OUT/summary.txt"
if [ -s "$OUT/alloc.txt" ]; then
  say ""
  say "bytes allocated per request (async-profiler's alloc samples, weighed in bytes), median of the rounds:"
  for name in "${names[@]}"; do
    for c in $PROFILE_CELLS; do
      v=$(awk -v re="^r[0-9]+-$name-$c\$" '$1 ~ re {print $2}' "$OUT/alloc.txt" | sort -n | tr '\n' ' ')
      [ -z "$v" ] || say "$c $name: $(awk '{n = NF; print (n % 2 ? $((n + 1) / 2) : ($(n / 2) + $(n / 2 + 1)) / 2)}' <<< "$v") bytes (rounds: $v)"
    done
  done
fi
if [ -n "$THREADS_CELLS" ]; then
  say ""
  say "by thread, medians of the rounds: wake-ups / CPU µs / runnable µs per request (threads of the pool)"
  node -e '
    const fs = require("fs"), [dir, names, cells] = process.argv.slice(1);
    const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
    for (const c of cells.split(" ")) for (const b of names.split(" ")) {
      const runs = fs.readdirSync(dir).filter(f => new RegExp(`^threads-r[0-9]+-${b}-${c}\\.txt$`).test(f))
        .map(f => Object.fromEntries(fs.readFileSync(`${dir}/${f}`, "utf8").trim().split("\n").filter(Boolean)
          .map(l => { const [g, n, wake, cpu, wait] = l.split(" "); return [g, { n: +n, wake: +wake, cpu: +cpu, wait: +wait }]; })));
      if (!runs.length) continue;
      const groups = [...new Set(runs.flatMap(r => Object.keys(r)))];
      const rows = groups.map(g => { const v = k => med(runs.map(r => (r[g] || { [k]: 0 })[k]));
        return { g, n: Math.max(...runs.map(r => (r[g] || { n: 0 }).n)), wake: v("wake"), cpu: v("cpu"), wait: v("wait") }; })
        .filter(x => x.wake >= 0.05 || x.cpu >= 2).sort((x, y) => y.cpu - x.cpu);
      const sum = k => rows.reduce((t, x) => t + x[k], 0);
      console.log(`${c} ${b} (${runs.length} rounds): ${sum("wake").toFixed(2)} wake-ups, ${sum("cpu").toFixed(1)} µs CPU per request in the rows below`);
      for (const x of rows) console.log(`  ${x.g} (${x.n}): ${x.wake.toFixed(2)} / ${x.cpu.toFixed(1)} / ${x.wait.toFixed(1)}`);
    }' "$OUT" "${names[*]}" "$THREADS_CELLS" | tee -a "$OUT/summary.txt"
fi
say "summary: $OUT/summary.txt"
exit 0
}
