#!/usr/bin/env bash
# Cold start: from `java -jar target/keypool.jar` to the first answered chat completion, with and without the AOT cache.
#
#   bench/coldstart.sh
#
# ROUNDS rounds; in each, one fresh gateway per variant of VARIANTS, in an order that turns from round to round so that
# the load of a shared machine falls on all alike. Each gateway is a new JVM on a fresh state.dir (a copy of
# application.properties, routes/ and the config's keypool.yaml beside it, the jar and its lib/ where they are), and for
# each the script takes:
#   ready     wall time from launching java until POST /v1/chat/completions through it first answered 200 (polled
#             every POLL_MS by one Node process, bench/first-answer.js; READY_MS of bench/run.sh, which polls every
#             500 ms)
#   cpu       the gateway's CPU time until then, all threads (utime + stime of /proc/<pid>/stat): steadier than wall
#             time on a shared machine; main: of the thread that runs main() (named java), jit: of the JIT's
#             compiler threads, C2: of the C2 compiler thread alone (its share of the JIT: bench/start-jit.py)
#   camel     Camel Main's own "started in" from the log (the context's start, without the JVM's start, Camel Main's
#             boot before it and the first request after it); boot: its "boot:" figure (from Camel Main's first step)
#   first     the first answer's own time (from sending the request that was answered 200 to its end)
#   burst     with BURST_N > 0: wall time of a first burst of BURST_N requests at once (bench/inflight.js, one socket
#             each) at BURST_LATENCY_MS upstream, right after the first answer
# The launch's time (epoch ms) is in launched-ms beside each gateway's log, to lay its log's timestamps on.
# then prints every run and, per variant, the median and the spread (min-max) of each, and the load average before and
# after.
#
# Variants:
#   plain     the shipped JVM flags (bench/lib.sh java_flags), no AOT cache
#   aot       the same with the AOT cache the build's training run made (target/keypool.aot; Java 25+; mvn package on
#             Java 25 makes it, pom.xml profile aot-cache)
#   bare      bench/BareProxy.java (Vert.x alone, the least a gateway does) compiled (target/floor/floor.jar of
#             bench/floor-build.sh), with the shipped flags, in front of the same fake: its first burst is the reference
#             of a gateway's, its start the floor of a Vert.x program
#   bareaot   the same on its AOT cache (target/floor/BareProxy.aot, Java 25+)
#   camel     bench/MinimalCamel.java (Camel Main with platform-http on Vert.x and one route answering a constant),
#             compiled, with the shipped flags and the gateway's log4j2.properties: the floor of a Camel Main start
#   camelaot  the same on its AOT cache (target/floor/MinimalCamel.aot, Java 25+)
#   any other name: plain, with the JVM flags of the environment variable COLD_FLAGS_<name> added (e.g.
#             COLD_FLAGS_c1="-XX:TieredStopAtLevel=1" VARIANTS="plain c1"); with COLD_HOME_<name>=DIR, the gateway of DIR
#             instead (its target/keypool.jar and lib/, application.properties and routes/: another build, e.g. the one
#             before a change, side by side with this one), on its AOT cache unless COLD_AOT_<name>=off; without
#             COLD_HOME_<name>, COLD_AOT_<name>=auto puts this build's on its AOT cache (e.g. with a profiler's flags)
#
# The gateway serves bench/keypool-bench.yaml against the fake providers of bench/lib.sh (as bench/run.sh does);
# COLD_CONFIG=keypool.yaml runs the shipped demo instead (its simulator is served by the gateway itself).
# Knobs: ROUNDS=5 VARIANTS="plain aot" POLL_MS=20 READY_TIMEOUT_S=300 BURST_N=2000 BURST_LATENCY_MS=2000 COLD_CONFIG BENCH_OUT, and those
# bench/lib.sh reads (JAVA_HOME, KEYPOOL_JAVA_OPTS, GW_PORT, PRIMARY_PORT, BACKUP_PORT, GW_CPUS, FAKE_CPUS, KEYPOOL_HOME).
# Builds nothing: mvn -B -q package -DskipTests first (on Java 25 it also makes target/keypool.aot), and
# bench/floor-build.sh for the floor variants.
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, launching and stopping gateways, stopping all on exit
. "$BENCH_DIR/lib.sh"
ROUNDS=${ROUNDS:-5}
VARIANTS=${VARIANTS:-"plain aot"}
POLL_MS=${POLL_MS:-20}
READY_TIMEOUT_S=${READY_TIMEOUT_S:-300}
BURST_N=${BURST_N:-2000}
BURST_LATENCY_MS=${BURST_LATENCY_MS:-2000}
COLD_CONFIG=${COLD_CONFIG:-$BENCH_DIR/keypool-bench.yaml}
OUT=${BENCH_OUT:-$BENCH_DIR/results/coldstart-$(date +%Y%m%d-%H%M%S)}

for tool in node curl "$JAVA"; do command -v "$tool" > /dev/null || die "$tool not found"; done
[ -f "$ROOT/target/keypool.jar" ] || die "no target/keypool.jar: build it once with mvn -B -q package -DskipTests"
[ -f "$COLD_CONFIG" ] || die "no gateway config at $COLD_CONFIG"
COLD_CONFIG=$(cd "$(dirname "$COLD_CONFIG")" && pwd)/$(basename "$COLD_CONFIG")
java_flags
if [[ " $VARIANTS " == *" aot "* ]]; then
  [ "${JAVA_FEATURE%%.*}" -ge 25 ] 2>/dev/null || die "variant aot needs Java 25 or newer ($JAVA is $JAVA_FEATURE)"
  [ -f "$ROOT/target/keypool.aot" ] || die "no target/keypool.aot: build on Java 25 (mvn -B -q package -DskipTests)"
fi
FLOOR=$ROOT/target/floor
for v in $VARIANTS; do
  case "$v" in
    bare|camel) [ -f "$FLOOR/floor.jar" ] || die "variant $v: no $FLOOR/floor.jar: run bench/floor-build.sh" ;;
    bareaot|camelaot) [ -f "$FLOOR/$([ "$v" = bareaot ] && echo BareProxy || echo MinimalCamel).aot" ] \
      || die "variant $v: no AOT cache in $FLOOR: run bench/floor-build.sh on Java 25" ;;
  esac
  other="COLD_HOME_$v"
  [ -z "${!other:-}" ] || [ -f "${!other}/target/keypool.jar" ] || die "variant $v: no ${!other}/target/keypool.jar"
done
for p in "$GW_PORT" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
mkdir -p "$OUT"
: > "$OUT/summary.txt"
start_fakes

# launch_floor MAIN LOG [AOT]: a floor program of target/floor/floor.jar (BareProxy or MinimalCamel) on GW_PORT, with
# the shipped flags, the gateway's own libraries (target/lib) and log4j2.properties, on its AOT cache when AOT is
# given; BareProxy in front of the primary fake. GW_PID
launch_floor() {
  local main=$1 log=$2 native="" aot=() args=("$GW_PORT")
  [ -n "${3:-}" ] && aot=(-XX:AOTCache="$FLOOR/$main.aot")
  [ "$main" = BareProxy ] && args+=("$PRIMARY_PORT")
  [ -n "$RUNTIME_OPTS" ] && native="--enable-native-access=ALL-UNNAMED"
  # shellcheck disable=SC2086  # RUNTIME_OPTS and KEYPOOL_JAVA_OPTS are lists of flags
  $(pin "${GW_CPUS:-}") "$JAVA" "${aot[@]}" $RUNTIME_OPTS $native $KEYPOOL_JAVA_OPTS \
    -Dlog4j2.configurationFile="$ROOT/src/main/resources/log4j2.properties" -cp "$FLOOR/floor.jar:$ROOT/target/lib/*" \
    "$main" "${args[@]}" > "$log" 2>&1 &
  GW_PID=$!
  PIDS+=("$GW_PID")
}

# ms_of TEXT: Camel's duration text (2s803ms, 379ms, 4s) in ms
ms_of() {
  awk '{ms=0; s=$0; if (match(s,/[0-9]+s/)) {ms+=substr(s,RSTART,RLENGTH-1)*1000}; if (match(s,/[0-9]+ms/)) {ms+=substr(s,RSTART,RLENGTH-2)}; print ms}' <<< "$1"
}

# cold_run VARIANT ROUND: one gateway from launch to its first 200 (and its first burst); appends a line to runs.txt
cold_run() {
  local variant=$1 round=$2 home="$OUT/r$2-$1" flags=() started ready cpu main jit c2 camel boot first burst=-
  mkdir -p "$home"
  local dir=$ROOT extra="COLD_FLAGS_$variant" other="COLD_HOME_$variant" aot="COLD_AOT_$variant"
  case "$variant" in
    plain) AOT_CACHE=off ;;
    aot) AOT_CACHE=auto ;;
    bare|bareaot|camel|camelaot) ;;
    *) AOT_CACHE=off; read -r -a flags <<< "${!extra:-}"
       if [ -n "${!other:-}" ]; then dir=${!other}; AOT_CACHE=${!aot:-auto}; else AOT_CACHE=${!aot:-off}; fi ;;
  esac
  started=$(date +%s%3N)
  echo "$started" > "$home/launched-ms"
  case "$variant" in
    bare) launch_floor BareProxy "$home/gateway.log" ;;
    bareaot) launch_floor BareProxy "$home/gateway.log" aot ;;
    camel) launch_floor MinimalCamel "$home/gateway.log" ;;
    camelaot) launch_floor MinimalCamel "$home/gateway.log" aot ;;
    *) launch_gateway "$dir" "$home/gateway.log" "$COLD_CONFIG" -Dstate.dir="$home/state" \
         -Dbatch.inbox="$home/inbox" -Dbatch.outbox="$home/outbox" "${flags[@]}" ;;
  esac
  node "$BENCH_DIR/first-answer.js" --url "$GW$CHAT" --since-ms "$started" --pid "$GW_PID" --poll-ms "$POLL_MS" \
    --timeout-s "$READY_TIMEOUT_S" > "$home/ready.txt" || {
    # a start that never answers 200 is a result of its variant, not the end of the run
    say "$(printf '%-8s round %d: no first answer: %s (%s)' "$variant" "$round" "$(cat "$home/ready.txt")" "$home/gateway.log")"
    echo "$variant failed failed - - - - - - -" >> "$OUT/runs.txt"
    stop_gateway
    return 0
  }
  read -r ready cpu main jit first c2 < <(grep '^READY ' "$home/ready.txt" | cut -d' ' -f2- | node -e '
    let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const r = JSON.parse(s), t = r.threads || {};
      const jit = Object.entries(t).filter(([n]) => /Compiler/.test(n)).reduce((a, [, ms]) => a + ms, 0);
      console.log(r.readyMs, r.cpuMs, t.java || 0, jit, r.readyMs - r.firstSentMs, t["C2 CompilerThre"] || 0);
    })')
  camel=$(grep -o 'started in [0-9a-z]*' "$home/gateway.log" | head -1 | awk '{print $3}' || true)
  boot=$(grep -o 'boot:[0-9a-z]*' "$home/gateway.log" | head -1 | cut -d: -f2 || true)
  camel=${camel:+$(ms_of "$camel")}
  boot=${boot:+$(ms_of "$boot")}
  if [ "$BURST_N" -gt 0 ]; then
    curl -sf -m 10 -X POST "$PRIMARY/control/latency?ms=$BURST_LATENCY_MS" > /dev/null || die "fake control failed"
    node "$BENCH_DIR/inflight.js" burst --url "$GW$CHAT" --n "$BURST_N" --timeout-ms 60000 > "$home/burst.txt"
    burst=$(grep '^RESULT ' "$home/burst.txt" | cut -d' ' -f2- \
      | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s); console.log(r.ok===r.n ? r.wallMs : "failed:"+r.ok+"/"+r.n)})')
    # the next start's first answer at no latency again (reset keeps the latency)
    curl -sf -m 10 -X POST "$PRIMARY/control/latency?ms=0" > /dev/null || die "fake control failed"
    curl -sf -m 10 -X POST "$PRIMARY/control/reset" > /dev/null || die "fake control failed"
  fi
  stop_gateway
  say "$(printf '%-8s round %d: ready %5d ms, CPU until ready %5d ms (main %5d, JIT %5d of which C2 %5d), Camel started in %5s ms (boot %5s), first answer %4d ms' \
    "$variant" "$round" "$ready" "$cpu" "$main" "$jit" "$c2" "${camel:--}" "${boot:--}" "$first")$([ "$BURST_N" -gt 0 ] && echo ", first burst of $BURST_N: $burst ms")"
  echo "$variant $ready $cpu ${camel:--} $burst $main $jit ${boot:--} $first $c2" >> "$OUT/runs.txt"
}

# median_spread COLUMN VARIANT: "median (min-max)" of that column of runs.txt for the variant
median_spread() {
  awk -v c="$1" -v v="$2" '$1==v && $c ~ /^[0-9]+$/ {print $c}' "$OUT/runs.txt" | sort -n \
    | awk '{a[NR]=$1} END {if (NR==0) {print "-"; exit} m=(NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); printf "%d (%d-%d)", m, a[1], a[NR]}'
}

say "KeyPool cold start $(date -u +%Y-%m-%dT%H:%M:%SZ): $("$JAVA" -version 2>&1 | head -1); $(nproc) cores"
say "flags: $RUNTIME_OPTS $KEYPOOL_JAVA_OPTS; config $COLD_CONFIG; $ROUNDS rounds of: $VARIANTS (order turning); raw: $OUT"
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
read -r -a variants <<< "$VARIANTS"
: > "$OUT/runs.txt"
for round in $(seq 1 "$ROUNDS"); do
  n=${#variants[@]}
  for i in $(seq 0 $(( n - 1 ))); do
    cold_run "${variants[$(( (i + round - 1) % n ))]}" "$round"
  done
done
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
say ""
say "median (min-max) over $ROUNDS rounds, ms:"
for v in "${variants[@]}"; do
  say "$(printf '%-8s ready %-20s CPU until ready %-20s (main %-20s JIT %-20s C2 %-20s) Camel started in %-16s boot %-20s first answer %-16s' \
    "$v" "$(median_spread 2 "$v")" "$(median_spread 3 "$v")" "$(median_spread 6 "$v")" "$(median_spread 7 "$v")" "$(median_spread 10 "$v")" \
    "$(median_spread 4 "$v")" "$(median_spread 8 "$v")" "$(median_spread 9 "$v")")$([ "$BURST_N" -gt 0 ] \
    && echo " first burst of $BURST_N $(median_spread 5 "$v")")"
done
exit 0
}
