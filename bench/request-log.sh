#!/usr/bin/env bash
# The request log's cost and completeness (docs/operations.md, "The database and the request log"), in one run:
#
#   1. cost (PARTS=cost): ROUNDS rounds. In each, the fake provider measured directly (1 connection, provider 0 ms;
#      256 connections, provider 50 ms), then one fresh gateway per configuration, in an order that rotates from round
#      to round: the log off, on with SQLite (the default, a fresh state.dir each), on with PostgreSQL. Each gateway
#      gets JIT_WARMUP s of traffic, then the same two cells (WARMUP s, then DURATION s measured, wrk and post.lua).
#      Prints every run, then per configuration the median and the spread (min-max) of the added p50 at 1 connection
#      and of the requests/s at 256 connections (and gateway/direct), and the log's cost against off.
#   1b. CPU per request (PARTS=cpu): one gateway per configuration, all running at once (ports GW_PORT+10..),
#      CPU_JIT_WARMUP s of traffic each at the measured load in four alternated slices, one settling round not counted;
#      then CPU_ROUNDS short rounds, each measuring every configuration in a rotating order at CPU_CONNS connections, provider 50 ms
#      (CPU_WARMUP s, then CPU_DURATION s measured): the gateway's CPU (utime + stime from /proc/<pid>/stat) divided by
#      the requests wrk saw answered, the parts of it (/proc/<pid>/task/*/schedstat) its GC threads ("GC Thread#n"),
#      its JIT compilers and the request log's writer thread took, and apart the PostgreSQL server's (its postmaster
#      and backends). Prints every cell, the medians, and each
#      configuration's cost against off paired round by round: the median of the pairs and its distribution-free
#      confidence interval, met only when all of it is within 3 %; the GC's share of it apart. Each gateway's GC log is
#      $OUT/gc-cpu-NAME.log. With PROFILE (cpu, alloc, wall) and AP_LIB (libasyncProfiler.so), each gateway runs under
#      async-profiler (collapsed stacks).
#   1c. pooled (PARTS=pool alone, POOL="DIR DIR..."): the CPU part's cells of earlier runs, analysed as one.
#   2. sustained (PARTS=sustain): a fresh gateway per log configuration (SQLite, PostgreSQL), SUSTAIN_RATE requests/s
#      for SUSTAIN_S s open loop (bench/quota.js paces by the clock: request i is due at i / rate whatever the others
#      do), provider SUSTAIN_LATENCY_MS; then the rows the database gained against the requests answered, and
#      keypool_request_log_dropped_total.
#
# Builds nothing: runs a copy of target/keypool.jar, its lib/, routes/ and application.properties (build with
# mvn -B -q package -DskipTests first). Starts the fakes, the gateways and a
# throwaway PostgreSQL (Debian's initdb/postgres under /usr/lib/postgresql/*/bin, on PG_PORT, in a temporary
# directory), and stops each by its pid at the end. Everything on 127.0.0.1, every run bounded in time; ~30 min with
# the defaults (cost ~15, cpu ~11, sustain ~4): one part at a time fits a hold of the machine (bench/README.md).
# Knobs: ROUNDS=5 JIT_WARMUP=20 WARMUP=2 DURATION=8 COST_CELLS="c1 c256" (the cost part's cells)
#        CPU_ROUNDS=20 CPU_JIT_WARMUP=120 CPU_WARMUP=1 CPU_DURATION=3 CPU_CONNS=256 PROFILE AP_LIB PROFILE_INTERVAL=10ms
#        SUSTAIN_RATE=1000 SUSTAIN_S=60 SUSTAIN_LATENCY_MS=50
#        PARTS="cost cpu sustain" (or PARTS=pool POOL="DIR...") CONFIGS="off sqlite pg" (each off, sqlite, pg, or NAME=one of them run with the JVM
#        flags FLAGS_NAME: CONFIGS="off sqlite pg sqlite1s=sqlite" FLAGS_sqlite1s=-Dkeypool.request-log.batch-ms=1000)
#        GW_PORT=18080 PRIMARY_PORT=9101 BACKUP_PORT=9102 PG_PORT (the first free from 15432), WRK_CPUS, PG_CPUS (pin
#        wrk, the PostgreSQL server)
#        JAVA_HOME, KEYPOOL_JAVA_OPTS (default: the shipped flags, as bench/run.sh), BENCH_OUT, and those bench/lib.sh
#        reads (KEYPOOL_HOME, KEYPOOL_EXTRA_CLASSPATH, GW_CPUS, FAKE_CPUS)
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, starting and stopping gateways, stopping all on exit
. "$BENCH_DIR/lib.sh"
ROUNDS=${ROUNDS:-5}
JIT_WARMUP=${JIT_WARMUP:-20}
CPU_JIT_WARMUP=${CPU_JIT_WARMUP:-120}
WARMUP=${WARMUP:-2}
DURATION=${DURATION:-8}
COST_CELLS=${COST_CELLS:-"c1 c256"}
CPU_ROUNDS=${CPU_ROUNDS:-20}
CPU_WARMUP=${CPU_WARMUP:-1}
CPU_DURATION=${CPU_DURATION:-3}
SUSTAIN_RATE=${SUSTAIN_RATE:-1000}
SUSTAIN_S=${SUSTAIN_S:-60}
SUSTAIN_LATENCY_MS=${SUSTAIN_LATENCY_MS:-50}
PARTS=${PARTS:-"cost cpu sustain"}
CPU_CONNS=${CPU_CONNS:-256}
CONFIGS=${CONFIGS:-"off sqlite pg"}
# each configuration's base (off, sqlite, pg): its keypool.yaml and database; its JVM flags are FLAGS_<name>
declare -A BASE
NAMES=()
for spec in $CONFIGS; do
  name=${spec%%=*}; base=${spec#*=}
  [[ "$name" =~ ^[A-Za-z0-9_]+$ && "$base" =~ ^(off|sqlite|pg)$ ]] || die "configuration '$spec' is none of off, sqlite, pg, NAME=one of them"
  BASE[$name]=$base; NAMES+=("$name")
done
CONFIGS="${NAMES[*]}"
PG_PORT=${PG_PORT:-}
OUT=${BENCH_OUT:-$BENCH_DIR/results/request-log-$(date +%Y%m%d-%H%M%S)}

# cpu_analysis RESULTS: the CPU part's figures from its cells ("round:config:gw:gc:pg:rps:jit:writer", µs per request
# but rps; a round's cells paired by the round's number), printed and added to the summary
cpu_analysis() {
  node -e '
    const rows = process.argv[1].trim().split(/\s+/).map((x, i) => { const [r, c, gw, gc, pg, rps, jit, wr] = x.split(":"); return { i, r: +r, c, gw: +gw, gc: +gc, pg: +pg, rps: +rps, jit: +jit, wr: +wr }; });
    const sorted = a => [...a].sort((x, y) => x - y);
    const med = a => { const s = sorted(a), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
    // the median'"'"'s distribution-free confidence interval: order statistics k and n+1-k, k the largest with
    // P(Binomial(n, 1/2) < k) <= 2.5 % (none below 6 rounds: then the whole range, at its own level)
    const ci = a => {
      const s = sorted(a), n = s.length;
      let k = 0, below = 0, pmf = 1 / 2 ** n;
      for (let j = 0; j < n; j++) { if (below + pmf > 0.025) break; below += pmf; k = j + 1; pmf = pmf * (n - j) / (j + 1); }
      if (k === 0) { k = 1; below = 1 / 2 ** n; }
      return { lo: s[k - 1], hi: s[n - k], level: 100 * (1 - 2 * below) };
    };
    const by = c => rows.filter(x => x.c === c);
    const names = { off: "log off", sqlite: "log on, SQLite", pg: "log on, PostgreSQL" };
    const fmt = v => `median ${med(v).toFixed(1)} µs (${Math.min(...v).toFixed(1)}-${Math.max(...v).toFixed(1)})`;
    const pct = p => (p >= 0 ? "+" : "") + p.toFixed(1);
    const range = i => `${i.level.toFixed(0)} % interval ${pct(i.lo)} to ${pct(i.hi)} %`;
    for (const c of [...new Set(rows.map(x => x.c))]) {
      // the JIT and the writer over the whole part, its CPU summed over its requests: a cell holds few of their ticks
      const part = f => by(c).reduce((a, x) => a + f(x) * x.rps, 0) / by(c).reduce((a, x) => a + x.rps, 0);
      console.log(`${names[c] || c}: gateway CPU per request ${fmt(by(c).map(x => x.gw))}, of it GC ${fmt(by(c).map(x => x.gc))}, ` +
        `JIT compilers ${fmt(by(c).map(x => x.jit))}, the log'"'"'s writer thread ${fmt(by(c).map(x => x.wr))} (all rounds: JIT ${part(x => x.jit).toFixed(2)} µs, writer ${part(x => x.wr).toFixed(2)} µs)` +
        (by(c).some(x => x.pg > 0) ? `; PostgreSQL server ${fmt(by(c).map(x => x.pg))}; the two ${fmt(by(c).map(x => x.gw + x.pg))}` : "") +
        `; requests/s median ${med(by(c).map(x => x.rps)).toFixed(0)} (${Math.min(...by(c).map(x => x.rps))}-${Math.max(...by(c).map(x => x.rps))})`);
    }
    if (by("off").length) {
      for (const c of [...new Set(rows.map(x => x.c))].filter(c => c !== "off")) {
        // paired within each round: the cells of one round run back to back, so the drift of the machine and of each
        // gateway cancels in the pair
        const pair = f => by(c).map(x => { const o = rows.find(y => y.r === x.r && y.c === "off"); return 100 * (f(x, o) / o.gw - 1); });
        const verdict = (i, lowerIsCost) => {
          const worst = lowerIsCost ? -i.lo : i.hi, best = lowerIsCost ? -i.hi : i.lo;
          return worst <= 3 ? "met" : best > 3 ? "MISSED" : "not shown";
        };
        // the GC threads'"'"', the JIT compilers'"'"', the writer thread'"'"'s parts and the rest, each as a share of the log-off
        // gateway'"'"'s whole CPU per request: they add up
        const other = x => x.gw - x.gc - x.jit - x.wr;
        const cpu = pair(x => x.gw), gc = pair((x, o) => o.gw + x.gc - o.gc), jit = pair((x, o) => o.gw + x.jit - o.jit);
        const rest = pair((x, o) => o.gw + other(x) - other(o));
        // the JIT compilers'"'"' work is the warm-up still running out, not a cost of each request: the CPU less it, paired
        const steady = by(c).map(x => { const o = rows.find(y => y.r === x.r && y.c === "off"); return 100 * ((x.gw - x.jit) / (o.gw - o.jit) - 1); });
        const writer = pair((x, o) => o.gw + x.wr - o.wr), ci4 = ci(steady);
        const rpsPairs = by(c).map(x => 100 * (x.rps / rows.find(y => y.r === x.r && y.c === "off").rps - 1));
        const ci1 = ci(cpu), ci2 = ci(rpsPairs);
        let line = `${names[c] || c} against off, paired round by round: gateway CPU per request median ${pct(med(cpu))} % ` +
          `(${range(ci1)}; rounds ${cpu.map(pct).join(" / ")}; target <= 3 %: ${verdict(ci1, false)}); ` +
          `of it GC median ${pct(med(gc))} % (${range(ci(gc))}), the writer thread ${pct(med(writer))} % (${range(ci(writer))}), ` +
          `the JIT compilers ${pct(med(jit))} % (${range(ci(jit))}), the rest ${pct(med(rest))} % (${range(ci(rest))}); less the JIT compilers median ${pct(med(steady))} % ` +
          `(${range(ci4)}; rounds ${steady.map(pct).join(" / ")}; target <= 3 %: ${verdict(ci4, false)})`;
        if (by(c).some(x => x.pg > 0)) {
          const both = pair((x, o) => x.gw + x.pg);
          line += `; with the PostgreSQL server median ${pct(med(both))} % (${range(ci(both))})`;
        }
        line += `; requests/s median ${pct(med(rpsPairs))} % (${range(ci2)}; target >= -3 %: ${verdict(ci2, true)})`;
        console.log(line);
        // each cell against the mean of the log-off cells just before and just after it in time: a drift of the
        // machine or of the JIT that is linear over the three cells cancels whatever the rotation put between them
        const offs = by("off");
        const around = by(c).map(x => {
          const before = offs.filter(o => o.i < x.i).pop(), after = offs.find(o => o.i > x.i);
          return 100 * (x.gw / (before && after ? (before.gw + after.gw) / 2 : (before || after).gw) - 1);
        });
        const ci3 = ci(around);
        console.log(`${names[c] || c} against the log-off cells either side of it in time: gateway CPU per request median ${pct(med(around))} % ` +
          `(${range(ci3)}; target <= 3 %: ${verdict(ci3, false)})`);
      }
    }' "$1" | tee -a "$OUT/summary.txt"
}

mkdir -p "$OUT"
: > "$OUT/summary.txt"
# ---------------------------------------------------------------- 1c. the CPU part of several runs, pooled
# POOL="DIR..." (PARTS=pool, alone): the cells of earlier runs' CPU parts (their summary.txt), analysed as one: each run's
# rounds paired within it (its gateways, its JVMs), the pairs of all runs together. Starts nothing.
if [ "$PARTS" = pool ]; then
  results=""
  run=0
  for dir in ${POOL:?PARTS=pool needs POOL=\"DIR DIR...\"}; do
    run=$((run + 1))
    [ -f "$dir/summary.txt" ] || die "no $dir/summary.txt"
    say "pooled: $dir"
    # | round | config | gw RPS | requests | gw µs | GC µs | JIT µs | log µs | PG µs | box | errors |
    results="$results $(awk -F'|' -v run="$run" '$2 ~ /^ *[0-9]+ *$/ && $6 ~ /µs/ && NF >= 12 {
      for (i = 2; i <= 12; i++) { gsub(/ |µs|%/, "", $i) }
      printf "%d:%s:%s:%s:%s:%s:%s:%s ", run * 1000 + $2, $3, $6, $7, $10, $4, $8, $9 }' "$dir/summary.txt")"
  done
  say "== CPU per request, the runs above pooled: rounds paired within each run =="
  cpu_analysis "$results"
  exit 0
fi

for tool in wrk node curl psql sqlite3 "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found"; done
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PG_BIN/postgres" ] || die "no PostgreSQL server under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)"
[ -f "$ROOT/target/keypool.jar" ] || die "no target/keypool.jar: build it once with mvn -B -q package -DskipTests"
# PostgreSQL: the first free port from 15432 unless PG_PORT says
if [ -z "$PG_PORT" ]; then PG_PORT=15432; while port_busy "$PG_PORT"; do PG_PORT=$((PG_PORT + 1)); done; fi
for p in "$GW_PORT" "$PRIMARY_PORT" "$BACKUP_PORT" "$PG_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
# the gateways run from a copy (the jar, its lib/, routes/, application.properties): a checkout edited or rebuilt
# during the run does not change what is measured
APP="$OUT/app"
mkdir -p "$APP/target"
cp -r "$ROOT/application.properties" "$ROOT/routes" "$APP/"
cp "$ROOT/target/keypool.jar" "$APP/target/"
cp -al "$ROOT/target/lib" "$APP/target/lib" 2>/dev/null || cp -r "$ROOT/target/lib" "$APP/target/lib"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"

# ---------------------------------------------------------------- processes: every one started here is stopped by pid
PG_DIR=""
# PostgreSQL ends a few seconds after its signal (a checkpoint): its port is free for the next run once this returns
ON_EXIT='[ -z "$PG_DIR" ] || { for _ in $(seq 1 150); do port_busy "$PG_PORT" || break; sleep 0.1; done; rm -rf "$PG_DIR"; }'
start_fakes
fake_ctl() { curl -sf -m 10 -X POST "$PRIMARY/control/$1" > /dev/null || die "fake control $1 failed"; }

# PostgreSQL refuses to run as root: as root, initdb and postgres run as the postgres user (as the slow tests do)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [[ " ${BASE[*]} " == *" pg "* ]]; then
  PG_DIR=$(mktemp -d /tmp/keypool-bench-pg-XXXXXX)
  chmod 755 "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$PG_DIR"
  as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U keypool --auth=trust -E UTF8 > "$OUT/pg-initdb.log" 2>&1 \
    || die "initdb failed (see $OUT/pg-initdb.log)"
  # the server's own defaults (fsync on): a batch of rows is one commit a second
  as_pg $(pin "${PG_CPUS:-}") "$PG_BIN/postgres" -D "$PG_DIR/data" -p "$PG_PORT" -h 127.0.0.1 -k "$PG_DIR/data" > "$OUT/postgres.log" 2>&1 &
  PIDS+=($!); PG_PID=$!
  for _ in $(seq 1 60); do psql -h 127.0.0.1 -p "$PG_PORT" -U keypool -d postgres -Atqc 'select 1' > /dev/null 2>&1 && break; sleep 0.5; done
  psql -h 127.0.0.1 -p "$PG_PORT" -U keypool -d postgres -Atqc 'select 1' > /dev/null || die "PostgreSQL did not start (see $OUT/postgres.log)"
fi

# the three configurations: bench/keypool-bench.yaml with the log off, as it is (SQLite), with a PostgreSQL url
{ cat "$BENCH_DIR/keypool-bench.yaml"; printf '\nrequestLog:\n  enabled: false\n'; } > "$OUT/keypool-off.yaml"
cp "$BENCH_DIR/keypool-bench.yaml" "$OUT/keypool-sqlite.yaml"
{ cat "$BENCH_DIR/keypool-bench.yaml"; printf '\ndatabase:\n  url: postgresql://keypool:unused@127.0.0.1:%s/postgres\n' "$PG_PORT"; } > "$OUT/keypool-pg.yaml"

java_flags

# answers_on PORT: the gateway on PORT answers a chat completion with 200
answers_on() { [ "$(post_status "http://127.0.0.1:$1")" = 200 ]; }
# start_gateway NAME TAG PORT [JVM_FLAG...]: a gateway of the configuration NAME (its base's keypool.yaml, FLAGS_NAME)
# on its own state.dir ($OUT/state-TAG), GW_PID, ready once it answers 200
start_gateway() {
  local name=$1 tag=$2 port=$3 flags_var=FLAGS_$1
  shift 3
  rm -rf "$OUT/state-$tag"
  # shellcheck disable=SC2086  # FLAGS_<name> is a list of JVM flags
  GW_PORT=$port launch_gateway "$APP" "$OUT/gateway-$tag.log" "$OUT/keypool-${BASE[$name]}.yaml" -Dstate.dir="$OUT/state-$tag/" \
    ${!flags_var:-} "$@"
  await_gateway "$OUT/gateway-$tag.log" answers_on "$port" || die "the gateway did not answer 200 within 60 s ($OUT/gateway-$tag.log)"
}

# tree_ticks PID: CPU ticks (user + system, with its reaped children's) of a process and every descendant: the
# PostgreSQL server is a postmaster and one backend per connection
tree_ticks() {
  local pid=$1 stat total kid
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || { echo 0; return; }
  stat=${stat##*) }
  # shellcheck disable=SC2086  # the fields after the command name: state ppid ... utime(12) stime cutime cstime(15)
  set -- $stat
  total=$(( ${12} + ${13} + ${14} + ${15} ))
  for kid in $(pgrep -P "$pid"); do total=$(( total + $(tree_ticks "$kid") )); done
  echo "$total"
}
HZ=$(getconf CLK_TCK)
# wrk_run URL CONNS SECS TAG: prints "rps p50_us errors gw_cpu% box%" (box: the whole machine busy, % of all cores;
# gw_cpu: the gateway's CPU, % of one core; 0 when measuring the fake directly)
wrk_run() {
  local url=$1 conns=$2 secs=$3 tag=$4 threads=2 t0 t1 g0=0 g1=0 line
  [ "$conns" -lt 2 ] && threads=1
  t0=$(cpu_total); [ -n "${GW_PID:-}" ] && kill -0 "$GW_PID" 2>/dev/null && g0=$(cpu_proc "$GW_PID")
  $(pin "${WRK_CPUS:-}") wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" > "$OUT/wrk-$tag.txt" 2>&1 || true
  t1=$(cpu_total); [ -n "${GW_PID:-}" ] && kill -0 "$GW_PID" 2>/dev/null && g1=$(cpu_proc "$GW_PID")
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 fail 0 0"; return; }
  [[ "$url" == "$PRIMARY"* ]] && { g0=0; g1=0; }
  awk -v l="$line" -v a="$t0" -v b="$t1" -v g0="$g0" -v g1="$g1" -v hz="$HZ" -v secs="$secs" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    split(a,x," "); split(b,y," "); d=y[2]-x[2]
    printf "%.0f %d %d %.0f %.0f\n", v["rps"], v["p50_us"], v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"],
      100*(g1-g0)/hz/secs, (d>0 ? 100*(y[1]-x[1])/d : 0) }'
}

say "request log cost and completeness, $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${NAMES[@]}"; do flags_var=FLAGS_$name; [ -z "${!flags_var:-}" ] || say "$name: ${BASE[$name]} with ${!flags_var}"; done
say "pinned: gateways ${GW_CPUS:-no}, fakes ${FAKE_CPUS:-no}, wrk ${WRK_CPUS:-no}, PostgreSQL ${PG_CPUS:-no}"
say "$("$JAVA" -version 2>&1 | head -1); KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS'; PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}'); raw outputs $OUT"
say ""

# ---------------------------------------------------------------- 1. the cost, alternated
if [[ " $PARTS " == *" cost "* ]]; then
  say "== cost: $ROUNDS rounds; per round the fake directly, then a fresh gateway per configuration (order rotating), ${JIT_WARMUP}s JIT warm-up each; cells ($COST_CELLS): c1 1 connection at provider 0 ms, c256 256 at 50 ms, ${WARMUP}s + ${DURATION}s measured =="
  printf -v hdr '| %5s | %-6s | %9s | %9s | %9s | %7s | %9s | %9s | %6s | %7s | %6s |' round config "dir p50" "gw p50" "added p50" "dir RPS" "gw RPS" "gw/dir" "gw CPU" "box" errors
  say "$hdr"
  say "|$(printf '%s' "$hdr" | sed 's/[^|]/-/g; s/^|//; s/|$//')|"
  read -r -a configs <<< "$CONFIGS"
  results=""
  for round in $(seq 1 "$ROUNDS"); do
    GW_PID=""
    fake_ctl "latency?ms=0"
    wrk_run "$PRIMARY$CHAT" 1 "$WARMUP" "r$round-direct-c1-warmup" > /dev/null
    read -r _ d_p50 _ _ _ <<< "$(wrk_run "$PRIMARY$CHAT" 1 "$DURATION" "r$round-direct-c1")"
    d_rps=0
    if [[ " $COST_CELLS " == *" c256 "* ]]; then
      fake_ctl "latency?ms=50"
      wrk_run "$PRIMARY$CHAT" 256 "$WARMUP" "r$round-direct-c256-warmup" > /dev/null
      read -r d_rps _ _ _ _ <<< "$(wrk_run "$PRIMARY$CHAT" 256 "$DURATION" "r$round-direct-c256")"
    fi
    n=${#configs[@]}
    for k in $(seq 0 $((n - 1))); do
      cfg=${configs[$(( (k + round - 1) % n ))]}
      start_gateway "$cfg" "r$round-$cfg" "$GW_PORT"
      fake_ctl "latency?ms=0"
      wrk_run "$GW$CHAT" 1 $(( JIT_WARMUP / 2 )) "r$round-$cfg-jit-c1" > /dev/null
      wrk_run "$GW$CHAT" 64 $(( JIT_WARMUP - JIT_WARMUP / 2 )) "r$round-$cfg-jit-c64" > /dev/null
      wrk_run "$GW$CHAT" 1 "$WARMUP" "r$round-$cfg-c1-warmup" > /dev/null
      read -r _ g_p50 e1 cpu1 box1 <<< "$(wrk_run "$GW$CHAT" 1 "$DURATION" "r$round-$cfg-c1")"
      g_rps=0 e256=0 cpu256=0 box256=0
      if [[ " $COST_CELLS " == *" c256 "* ]]; then
        fake_ctl "latency?ms=50"
        wrk_run "$GW$CHAT" 256 "$WARMUP" "r$round-$cfg-c256-warmup" > /dev/null
        read -r g_rps _ e256 cpu256 box256 <<< "$(wrk_run "$GW$CHAT" 256 "$DURATION" "r$round-$cfg-c256")"
      fi
      kill -0 "$GW_PID" 2>/dev/null || die "the gateway died ($OUT/gateway-r$round-$cfg.log)"
      stop_gateway
      added=$(awk -v g="$g_p50" -v d="$d_p50" 'BEGIN {printf "%.3f", (g-d)/1000}')
      ratio=$(awk -v g="$g_rps" -v d="$d_rps" 'BEGIN {printf "%.3f", (d>0 ? g/d : 0)}')
      results="$results $round:$cfg:$added:$g_rps:$ratio:$box1:$box256"
      printf -v row '| %5s | %-6s | %6.3f ms | %6.3f ms | %6.3f ms | %7s | %9s | %6s | %3s/%3s%% | %2s/%2s%% | %6s |' "$round" "$cfg" \
        "$(awk -v v="$d_p50" 'BEGIN {print v/1000}')" "$(awk -v v="$g_p50" 'BEGIN {print v/1000}')" "$added" "$d_rps" "$g_rps" \
        "$ratio" "$cpu1" "$cpu256" "$box1" "$box256" "$e1/$e256"
      say "$row"
    done
  done
  say "(gw CPU: the gateway's CPU at 1 / 256 connections, % of one core; box: the whole machine busy, % of both cores, at 1 / 256)"
  node -e '
    const rows = process.argv[1].trim().split(" ").map(x => { const [r, c, added, rps, ratio, b1, b256] = x.split(":");
      return { r: +r, c, added: +added, rps: +rps, ratio: +ratio, box: (+b1 + +b256) / 2 }; });
    const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
    const by = c => rows.filter(x => x.c === c);
    const stat = (c, f) => { const v = by(c).map(f); return { med: med(v), min: Math.min(...v), max: Math.max(...v) }; };
    const names = { off: "log off", sqlite: "log on, SQLite", pg: "log on, PostgreSQL" };
    const c256 = rows.some(x => x.rps > 0);
    for (const c of [...new Set(rows.map(x => x.c))]) {
      const a = stat(c, x => x.added), t = stat(c, x => x.rps), q = stat(c, x => x.ratio), b = stat(c, x => x.box);
      console.log(`${names[c] || c}: added p50 at 1 connection median ${a.med.toFixed(3)} ms (spread ${a.min.toFixed(3)}-${a.max.toFixed(3)}); ` +
        (c256 ? `RPS at 256 median ${t.med.toFixed(0)} (${t.min.toFixed(0)}-${t.max.toFixed(0)}), gateway/direct ${q.med.toFixed(3)} (${q.min.toFixed(3)}-${q.max.toFixed(3)}); ` : "") +
        `machine busy ${b.min.toFixed(0)}-${b.max.toFixed(0)}%`);
    }
    if (by("off").length) {
      const off = stat("off", x => x.added), offRps = stat("off", x => x.rps);
      for (const c of [...new Set(rows.map(x => x.c))].filter(c => c !== "off")) {
        const on = stat(c, x => x.added), onRps = stat(c, x => x.rps);
        const d = on.med - off.med, spread = Math.max(off.max - off.min, on.max - on.min);
        // paired within each round: the same direct runs, minutes apart
        const paired = by(c).map(x => { const o = rows.find(y => y.r === x.r && y.c === "off").rps; return o > 0 ? 1 - x.rps / o : NaN; });
        const cost = 1 - onRps.med / offRps.med;
        console.log(`${names[c] || c} against off: added p50 ${d >= 0 ? "+" : ""}${d.toFixed(3)} ms, the runs spread ${spread.toFixed(3)} ms (target: within it: ${Math.abs(d) <= spread ? "met" : "MISSED"})` +
          (c256 ? `; throughput at 256 ${(100 * cost).toFixed(1)} % lower by the medians, per round ${paired.map(p => isNaN(p) ? "n/a" : (100 * p).toFixed(1)).join(" / ")} % (target <= 3 %: ${cost <= 0.03 ? "met" : "MISSED"})` : ""));
      }
    }' "$results" | tee -a "$OUT/summary.txt"
  say ""
fi

# ---------------------------------------------------------------- 1b. CPU per request, alternated
# thread_ns PID [WRITER_TID]: "gc jit writer", the CPU nanoseconds (/proc/PID/task/*/schedstat, exact where /proc's
# stat counts 10 ms ticks) of the JVM's GC worker threads ("GC Thread#n": ParallelGC's, G1's), of its JIT compiler
# threads ("C1/C2 CompilerThre"), and of the thread WRITER_TID (the request log's writer, writer_tid)
thread_ns() {
  { grep -H '' /proc/"$1"/task/*/stat /proc/"$1"/task/*/schedstat 2>/dev/null || true; } | awk -v wr="${2:-0}" '{
    path = substr($0, 1, index($0, ":") - 1); text = substr($0, index($0, ":") + 1); split(path, p, "/")
    if (p[6] == "stat") { sub(/^[0-9]+ \(/, "", text); sub(/\) [A-Za-z] .*/, "", text); name[p[5]] = text }
    else { split(text, f, " "); ns[p[5]] = f[1] }
  } END {
    for (t in ns) { if (name[t] ~ /^GC Thread/) gc += ns[t]; else if (name[t] ~ /CompilerThre/) jit += ns[t]; if (t == wr) w += ns[t] }
    printf "%.0f %.0f %.0f\n", gc, jit, w }'
}
# writer_tid PID: the native id of the gateway's request-log writer, the thread of the timer route request-log-writer
# (its name in /proc is cut to "Camel (camel-1)", like every Camel thread's: the JVM's thread dump names it); 0 if none
writer_tid() {
  local nid
  nid=$("${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$1" Thread.print 2>/dev/null \
    | awk '/timer:\/\/request-log-writer/ { if (match($0, /nid=(0x)?[0-9a-fA-F]+/)) { print substr($0, RSTART + 4, RLENGTH - 4); exit } }')
  printf '%d\n' "${nid:-0}"
}
# cpu_cell URL SECS TAG PID [WRITER_TID]: prints "rps requests gw_ticks gc_ns pg_ticks errors box% jit_ns writer_ns" for
# wrk at CPU_CONNS connections
cpu_cell() {
  local url=$1 secs=$2 tag=$3 pid=$4 wr=${5:-0} t0 t1 g0 g1 c0 c1 p0=0 p1=0 line
  t0=$(cpu_total); g0=$(tree_ticks "$pid"); c0=$(thread_ns "$pid" "$wr"); [ -n "${PG_PID:-}" ] && p0=$(tree_ticks "$PG_PID")
  $(pin "${WRK_CPUS:-}") wrk -t2 -c"$CPU_CONNS" -d"${secs}s" --timeout 10s --latency -s "$BENCH_DIR/post.lua" "$url" > "$OUT/wrk-$tag.txt" 2>&1 || true
  t1=$(cpu_total); g1=$(tree_ticks "$pid"); c1=$(thread_ns "$pid" "$wr"); [ -n "${PG_PID:-}" ] && p1=$(tree_ticks "$PG_PID")
  line=$(grep '^BENCH ' "$OUT/wrk-$tag.txt" || true)
  [ -n "$line" ] || { echo "0 0 0 0 0 fail 0 0 0"; return; }
  awk -v l="$line" -v a="$t0" -v b="$t1" -v g="$((g1 - g0))" -v c0="$c0" -v c1="$c1" -v p="$((p1 - p0))" 'BEGIN {
    n=split(l, f, " "); for (i=2;i<=n;i++) { split(f[i], kv, "="); v[kv[1]]=kv[2] }
    split(a,x," "); split(b,y," "); d=y[2]-x[2]; split(c0,u," "); split(c1,w," ")
    printf "%.0f %d %d %.0f %d %d %.0f %.0f %.0f\n", v["rps"], v["requests"], g, w[1]-u[1], p, v["non2xx"]+v["connect"]+v["read"]+v["write"]+v["timeout"],
      (d>0 ? 100*(y[1]-x[1])/d : 0), w[2]-u[2], w[3]-u[3] }'
}
if [[ " $PARTS " == *" cpu "* ]]; then
  read -r -a configs <<< "$CONFIGS"
  say "== CPU per request: one gateway per configuration, all started at once (ports from $((GW_PORT + 10))), ${CPU_JIT_WARMUP}s JIT warm-up each at the measured load, then one settling round not counted; then $CPU_ROUNDS rounds, each measuring every configuration in a rotating order: $CPU_CONNS connections, provider 50 ms, ${CPU_WARMUP}s + ${CPU_DURATION}s measured; CPU from /proc/<pid>/stat (the gateway's, of it its GC threads'; PostgreSQL's server processes apart) divided by the requests wrk saw answered =="
  declare -A CPU_PID CPU_PORT CPU_WRITER
  # PROFILE=cpu|alloc|wall with AP_LIB=libasyncProfiler.so: async-profiler in every gateway from its start, every
  # PROFILE_INTERVAL (10 ms: a sample costs the gateway next to nothing, the same for each), its collapsed stacks in
  # $OUT/profile-CONFIG-EVENT.collapsed when the gateway stops (flame graphs from them)
  saved_opts=$KEYPOOL_JAVA_OPTS
  if [ -n "${PROFILE:-}" ]; then
    [ -f "${AP_LIB:-}" ] || die "PROFILE=$PROFILE needs AP_LIB=/path/to/libasyncProfiler.so"
    KEYPOOL_JAVA_OPTS="$KEYPOOL_JAVA_OPTS -agentpath:$AP_LIB=start,event=$PROFILE,interval=${PROFILE_INTERVAL:-10ms},collapsed,file=$OUT/profile-%p.collapsed"
  fi
  for k in "${!configs[@]}"; do
    cfg=${configs[$k]}
    CPU_PORT[$cfg]=$((GW_PORT + 10 + k))
    port_busy "${CPU_PORT[$cfg]}" && die "port ${CPU_PORT[$cfg]} on 127.0.0.1 is in use"
    # the GC log: which collections (young, full) each gateway paid for
    start_gateway "$cfg" "cpu-$cfg" "${CPU_PORT[$cfg]}" -Xlog:gc:file="$OUT/gc-cpu-$cfg.log"
    CPU_PID[$cfg]=$GW_PID
  done
  # the warm-up in slices, the configurations alternated: each gateway's JIT gets its share while the others' settle;
  # at the measured load (CPU_CONNS connections, provider 50 ms), so that what the JIT compiled is what the rounds run
  # (warmed at 64 connections and provider 0 ms, the compilers still took up to 158 µs a request in a measured cell)
  fake_ctl "latency?ms=50"
  for slice in $(seq 1 4); do
    for cfg in "${configs[@]}"; do
      wrk_run "http://127.0.0.1:${CPU_PORT[$cfg]}$CHAT" "$CPU_CONNS" $(( CPU_JIT_WARMUP / 4 )) "cpu-$cfg-jit-$slice" > /dev/null
    done
  done
  for cfg in "${configs[@]}"; do
    cpu_cell "http://127.0.0.1:${CPU_PORT[$cfg]}$CHAT" $(( CPU_WARMUP + CPU_DURATION )) "cpu-$cfg-settle" "${CPU_PID[$cfg]}" > /dev/null
    # the writer's thread exists from the route's first beat; found once, outside the measured cells
    CPU_WRITER[$cfg]=$(writer_tid "${CPU_PID[$cfg]}")
    [ "${CPU_WRITER[$cfg]}" != 0 ] || say "$cfg: the request log's writer thread was not found (jcmd): its column stays 0"
  done
  printf -v hdr '| %5s | %-8s | %7s | %8s | %14s | %11s | %11s | %11s | %14s | %4s | %6s |' round config "gw RPS" requests "gw µs/request" "of it GC" "of it JIT" "of it log" "PG µs/request" box errors
  say "$hdr"
  say "|$(printf '%s' "$hdr" | sed 's/[^|]/-/g; s/^|//; s/|$//')|"
  results=""
  for round in $(seq 1 "$CPU_ROUNDS"); do
    n=${#configs[@]}
    for k in $(seq 0 $((n - 1))); do
      cfg=${configs[$(( (k + round - 1) % n ))]}
      url="http://127.0.0.1:${CPU_PORT[$cfg]}$CHAT"
      cpu_cell "$url" "$CPU_WARMUP" "cpu-r$round-$cfg-warmup" "${CPU_PID[$cfg]}" > /dev/null
      read -r rps reqs g c p errors box j w <<< "$(cpu_cell "$url" "$CPU_DURATION" "cpu-r$round-$cfg" "${CPU_PID[$cfg]}" "${CPU_WRITER[$cfg]}")"
      kill -0 "${CPU_PID[$cfg]}" 2>/dev/null || die "the gateway died ($OUT/gateway-cpu-$cfg.log)"
      [ "${BASE[$cfg]}" = pg ] || p=0
      gus=$(awk -v t="$g" -v n="$reqs" -v hz="$HZ" 'BEGIN {printf "%.1f", (n>0 ? 1e6*t/hz/n : 0)}')
      cus=$(awk -v t="$c" -v n="$reqs" 'BEGIN {printf "%.2f", (n>0 ? t/1e3/n : 0)}')
      jus=$(awk -v t="$j" -v n="$reqs" 'BEGIN {printf "%.2f", (n>0 ? t/1e3/n : 0)}')
      wus=$(awk -v t="$w" -v n="$reqs" 'BEGIN {printf "%.2f", (n>0 ? t/1e3/n : 0)}')
      pus=$(awk -v t="$p" -v n="$reqs" -v hz="$HZ" 'BEGIN {printf "%.1f", (n>0 ? 1e6*t/hz/n : 0)}')
      results="$results $round:$cfg:$gus:$cus:$pus:$rps:$jus:$wus"
      printf -v row '| %5s | %-8s | %7s | %8s | %11s µs | %8s µs | %8s µs | %8s µs | %11s µs | %3s%% | %6s |' "$round" "$cfg" "$rps" "$reqs" "$gus" "$cus" "$jus" "$wus" "$pus" "$box" "$errors"
      say "$row"
    done
  done
  for cfg in "${configs[@]}"; do
    stop_gateway "${CPU_PID[$cfg]}" "${CPU_PORT[$cfg]}"
    if [ -n "${PROFILE:-}" ]; then
      mv "$OUT/profile-${CPU_PID[$cfg]}.collapsed" "$OUT/profile-$cfg-$PROFILE.collapsed" 2>/dev/null \
        && say "profile ($PROFILE) of the $cfg gateway, the warm-up included: $OUT/profile-$cfg-$PROFILE.collapsed"
    fi
    say "$cfg: $(grep -c 'Pause Young' "$OUT/gc-cpu-$cfg.log") young collections, $(grep -c 'Pause Full' "$OUT/gc-cpu-$cfg.log") full, over the whole part ($OUT/gc-cpu-$cfg.log)"
  done
  KEYPOOL_JAVA_OPTS=$saved_opts
  cpu_analysis "$results"
  say ""
fi

# ---------------------------------------------------------------- 2. sustained load, rows against requests
rows() {
  case $1 in
    sqlite) sqlite3 -cmd '.timeout 5000' "$OUT/state-$2/keypool.db" 'SELECT count(*) FROM request_log' ;;
    pg) psql -h 127.0.0.1 -p "$PG_PORT" -U keypool -d postgres -Atqc 'SELECT count(*) FROM request_log' ;;
  esac
}
dropped() { curl -s -m 10 "$GW/observe/metrics" | awk '$1 ~ /^keypool_request_log_dropped_total/ {s+=$2} END {printf "%d", s}'; }
if [[ " $PARTS " == *" sustain "* ]]; then
  say "== sustained: ${SUSTAIN_RATE} requests/s for ${SUSTAIN_S}s open loop (bench/quota.js), provider ${SUSTAIN_LATENCY_MS} ms, a fresh gateway per configuration after ${JIT_WARMUP}s of JIT warm-up =="
  for cfg in $CONFIGS; do
    [ "${BASE[$cfg]}" = off ] && continue
    GW_PID=""
    start_gateway "$cfg" "sustain-$cfg" "$GW_PORT"
    fake_ctl "latency?ms=0"
    wrk_run "$GW$CHAT" 64 "$JIT_WARMUP" "sustain-$cfg-jit" > /dev/null
    fake_ctl "latency?ms=$SUSTAIN_LATENCY_MS"
    # the warm-up's rows are written within keypool.request-log.batch-ms
    sleep 3
    before=$(rows "${BASE[$cfg]}" "sustain-$cfg"); dropped_before=$(dropped)
    t0=$(cpu_total)
    node "$BENCH_DIR/quota.js" --url "$GW$CHAT" --rate "$SUSTAIN_RATE" --duration-s "$SUSTAIN_S" \
      --fake-latency-ms "$SUSTAIN_LATENCY_MS" --capacity-per-min $(( SUSTAIN_RATE * 60 )) --timeout-ms 30000 > "$OUT/sustain-$cfg.txt"
    t1=$(cpu_total)
    sleep 3
    after=$(rows "${BASE[$cfg]}" "sustain-$cfg"); dropped_after=$(dropped)
    kill -0 "$GW_PID" 2>/dev/null || die "the gateway died ($OUT/gateway-sustain-$cfg.log)"
    stop_gateway
    node -e '
      const r = JSON.parse(process.argv[1]), rows = +process.argv[2], dropped = +process.argv[3], cfg = process.argv[4], box = process.argv[5];
      const answered = Object.entries(r.statuses).filter(([k]) => /^[0-9]/.test(k)).reduce((a, [, v]) => a + v, 0);
      const rate = r.okPerSecond.slice(0, r.durationS), steady = rate.slice(1, -1);
      console.log(`${cfg}: offered ${r.offered} (send lag max ${r.maxSendLagMs} ms), answered ${answered} ${JSON.stringify(r.statuses)}, ` +
        `200s per second ${Math.min(...steady)}-${Math.max(...steady)}; rows written ${rows}; keypool_request_log_dropped_total +${dropped}; ` +
        `machine busy ${box}% (target rows == answered, 0 dropped: ${rows === answered && dropped === 0 ? "met" : "MISSED"})`);
    ' "$(grep '^RESULT ' "$OUT/sustain-$cfg.txt" | cut -d' ' -f2-)" $(( after - before )) $(( dropped_after - dropped_before )) "$cfg" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN {split(a,x," "); split(b,y," "); printf "%.0f", 100*(y[1]-x[1])/(y[2]-x[2])}')" \
      | tee -a "$OUT/summary.txt"
  done
  say ""
fi
say "summary: $OUT/summary.txt"
}
