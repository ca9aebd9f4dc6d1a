# What the bench scripts (run.sh, request-log.sh, builds.sh, coldstart.sh, ...) share: where the repository is, the
# JDK and the shipped JVM flags, the fake providers, starting a gateway (or BareProxy) and waiting until it serves,
# stopping every process the script started by its pid when it ends, and reading a process's CPU (whole, by thread, or
# with async-profiler). Sourced, not run:
#
#   BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   . "$BENCH_DIR/lib.sh"
#
# Knobs it reads (environment): KEYPOOL_HOME (the repository to run the gateway from, default the parent of bench/),
# JAVA_HOME, KEYPOOL_JAVA_OPTS, KEYPOOL_EXTRA_CLASSPATH, AOT_CACHE (off: never the AOT cache), GW_PORT, PRIMARY_PORT,
# BACKUP_PORT, GW_CPUS, FAKE_CPUS; the script sets OUT before it starts anything.

BENCH_NAME=$(basename "$0")
# the repository the gateway is built and started from (application.properties, routes/, target/keypool.jar)
ROOT=$(cd "${KEYPOOL_HOME:-$BENCH_DIR/..}" && pwd)
GW_PORT=${GW_PORT:-18080}
PRIMARY_PORT=${PRIMARY_PORT:-9101}
BACKUP_PORT=${BACKUP_PORT:-9102}
GW=http://127.0.0.1:$GW_PORT
PRIMARY=http://127.0.0.1:$PRIMARY_PORT
BACKUP=http://127.0.0.1:$BACKUP_PORT
CHAT=/v1/chat/completions
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"ping"}],"max_tokens":1}'
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
# shipped_java_opts: the Dockerfile's JVM flags, the one list of them
. "$BENCH_DIR/jvm-flags.sh"

die() { echo "$BENCH_NAME: $*" >&2; exit 1; }
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
# figure NAME VALUE: one figure of the run as "NAME VALUE" in $OUT/figures.txt, which bench/alternate.sh pools over the
# runs of several builds
figure() { echo "$1 $2" >> "$OUT/figures.txt"; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pin() { if [ -n "$1" ]; then echo "taskset -c $1"; fi; }

# java_flags: RUNTIME_OPTS (the Dockerfile's flag for Java 24+: Netty keeps sun.misc.Unsafe without a startup warning,
# also when KEYPOOL_JAVA_OPTS is set), JAVA_FEATURE, and KEYPOOL_JAVA_OPTS when unset: the Dockerfile's other flags, as
# far as this JVM knows them; KEYPOOL_JAVA_OPTS= (empty) for the JVM's defaults
java_flags() {
  JAVA_FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
  RUNTIME_OPTS=""
  [ "${JAVA_FEATURE%%.*}" -ge 24 ] 2>/dev/null && RUNTIME_OPTS="--sun-misc-unsafe-memory-access=allow"
  if [ -z "${KEYPOOL_JAVA_OPTS+set}" ]; then
    KEYPOOL_JAVA_OPTS=$(shipped_java_opts "$JAVA_FEATURE") || die "cannot read the shipped JVM flags"
    KEYPOOL_JAVA_OPTS=${KEYPOOL_JAVA_OPTS//--sun-misc-unsafe-memory-access=allow/}
  fi
  return 0
}

# ---------------------------------------------------------------- processes: every one started here is stopped by pid
PIDS=()
# a command the script adds to the end of the run (request-log.sh: removing its PostgreSQL's directory)
ON_EXIT=""
cleanup() {
  local rc=$? pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  [ -z "$ON_EXIT" ] || eval "$ON_EXIT"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_fakes [PRIMARY_COMMAND...]: the two fake providers (bench/fake-upstream.js, pinned to FAKE_CPUS), logging to
# $OUT/fake-primary.log and fake-backup.log; the primary is PRIMARY_COMMAND instead when given. FAKE_PID: the primary.
start_fakes() {
  if [ $# -gt 0 ]; then
    $(pin "${FAKE_CPUS:-}") "$@" > "$OUT/fake-primary.log" 2>&1 &
  else
    $(pin "${FAKE_CPUS:-}") node "$BENCH_DIR/fake-upstream.js" --port "$PRIMARY_PORT" > "$OUT/fake-primary.log" 2>&1 &
  fi
  PIDS+=($!); FAKE_PID=$!
  $(pin "${FAKE_CPUS:-}") node "$BENCH_DIR/fake-upstream.js" --port "$BACKUP_PORT" > "$OUT/fake-backup.log" 2>&1 &
  PIDS+=($!)
  export BENCH_PRIMARY_PORT=$PRIMARY_PORT BENCH_BACKUP_PORT=$BACKUP_PORT
}

# curl's options for a provider over TLS (run.sh inflight10k over HTTP/2: --cacert of its fake's certificate)
CURL_TLS=()
# post_status BASE_URL [BODY [TOKEN]]: the HTTP status of one chat completion (with Authorization: Bearer TOKEN if given)
post_status() {
  curl -s -o /dev/null -w '%{http_code}' -m 5 "${CURL_TLS[@]}" -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} \
    -d "${2:-$BODY}" "$1$CHAT" 2>/dev/null || true
}

# aot_flags DIR: the flag that runs DIR's gateway on its AOT cache (target/keypool.aot, made by the build's training run
# on Java 25+: pom.xml, profile aot-cache), as the Docker image does; nothing when AOT_CACHE=off, the JVM is older than
# 25 (JAVA_FEATURE of java_flags), the cache is missing, or KEYPOOL_EXTRA_CLASSPATH changes the class path it was made
# for. A cache made for another jar, or with compact object headers set otherwise, is refused by the JVM, which then
# starts without it
aot_flags() {
  [ "${AOT_CACHE:-auto}" != off ] && [ -z "${KEYPOOL_EXTRA_CLASSPATH:-}" ] && [ -f "$1/target/keypool.aot" ] \
    && [ "${JAVA_FEATURE%%.*}" -ge 25 ] 2>/dev/null && echo "-XX:AOTCache=target/keypool.aot"
  return 0
}

# launch_gateway DIR LOG CONFIG [JVM_FLAG...]: starts target/keypool.jar of DIR (with KEYPOOL_EXTRA_CLASSPATH: -cp and
# its Main-Class) on GW_PORT, pinned to GW_CPUS, with its AOT cache (aot_flags), the JVM flags of java_flags and these;
# GW_PID
launch_gateway() {
  local dir=$1 log=$2 config=$3
  shift 3
  local main=(-jar target/keypool.jar)
  [ -n "${KEYPOOL_EXTRA_CLASSPATH:-}" ] && main=(-cp "target/keypool.jar:$KEYPOOL_EXTRA_CLASSPATH" dev.keypool.camel.KeyPoolApplication)
  # shellcheck disable=SC2086  # RUNTIME_OPTS, KEYPOOL_JAVA_OPTS and aot_flags are lists of flags
  (cd "$dir" && exec $(pin "${GW_CPUS:-}") "$JAVA" $(aot_flags "$dir") $RUNTIME_OPTS $KEYPOOL_JAVA_OPTS -Dkeypool.config="$config" "$@" \
    -Dcamel.server.host=127.0.0.1 -Dcamel.server.port="$GW_PORT" "${main[@]}") > "$log" 2>&1 &
  GW_PID=$!
  PIDS+=("$GW_PID")
}

# launch_bare LOG [JVM_FLAG...]: bench/BareProxy.java (Vert.x alone, the least a gateway does) on GW_PORT in front of
# the primary fake, pinned to GW_CPUS, with the JVM flags of java_flags, these, and the gateway's own Vert.x and Netty
# (ROOT's target/lib, run as a source file); GW_PID
launch_bare() {
  local log=$1 native=""
  shift
  [ -d "$ROOT/target/lib" ] || die "no $ROOT/target/lib for bench/BareProxy.java: package $ROOT first"
  # Netty's native epoll without a warning on Java 24+, as the gateway's manifest allows it (Enable-Native-Access)
  [ -n "$RUNTIME_OPTS" ] && native="--enable-native-access=ALL-UNNAMED"
  # shellcheck disable=SC2086  # RUNTIME_OPTS and KEYPOOL_JAVA_OPTS are lists of flags
  $(pin "${GW_CPUS:-}") "$JAVA" $RUNTIME_OPTS $native $KEYPOOL_JAVA_OPTS "$@" -cp "$ROOT/target/lib/*" "$BENCH_DIR/BareProxy.java" \
    "$GW_PORT" "$PRIMARY_PORT" > "$log" 2>&1 &
  GW_PID=$!
  PIDS+=("$GW_PID")
}

# await_gateway LOG COMMAND...: true once COMMAND succeeds, within 60 s; dies with the log's tail if the gateway exits
await_gateway() {
  local log=$1
  shift
  for _ in $(seq 1 120); do
    kill -0 "$GW_PID" 2>/dev/null || { tail -40 "$log" >&2; die "the gateway exited during startup (log above, $log)"; }
    "$@" && return 0
    sleep 0.5
  done
  return 1
}

# stop_gateway [PID PORT]: stops the gateway PID (default GW_PID; killed after 15 s) and waits until PORT (default
# GW_PORT) is free again
stop_gateway() {
  local pid=${1:-$GW_PID} port=${2:-$GW_PORT}
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  local keep=() p
  for p in "${PIDS[@]}"; do [ "$p" = "$pid" ] || keep+=("$p"); done
  PIDS=("${keep[@]}")
  for _ in $(seq 1 50); do port_busy "$port" || break; sleep 0.1; done
}

# ---------------------------------------------------------------- CPU: the machine's, a process's, each thread's
# cpu_total: the whole machine's jiffies "busy total"; cpu_proc PID: PID's utime+stime in jiffies
cpu_total() { awk '$1=="cpu" {idle=$5+$6; t=0; for(i=2;i<=NF;i++) t+=$i; print t-idle, t}' /proc/stat; }
cpu_proc() { awk '{print $14+$15}' "/proc/$1/stat"; }
# thread_snap PID: "tid ns_on_cpu ns_runnable wake_ups" for each thread of PID (schedstat, voluntary switches)
thread_snap() {
  awk 'FNR == 1 { n = split(FILENAME, p, "/"); tid = p[n - 1] }
       FILENAME ~ /schedstat$/ { run[tid] = $1; wait[tid] = $2 }
       FILENAME ~ /status$/ && $1 == "voluntary_ctxt_switches:" { wake[tid] = $2 }
       END { for (t in run) print t, run[t], wait[t], wake[t] + 0 }' /proc/"$1"/task/*/schedstat /proc/"$1"/task/*/status 2>/dev/null || true
}
# thread_split PID BEFORE REQUESTS TAG: each thread's share since BEFORE (thread_snap's), by Java name (digits as #),
# per request, into $OUT/threads-TAG.txt: "name threads wake_ups/request cpu_us/request runnable_us/request"
thread_split() {
  local pid=$1 before=$2 reqs=$3 tag=$4
  thread_snap "$pid" > "$OUT/threads-$tag.after"
  "${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$pid" Thread.print 2>/dev/null \
    | sed -n 's/^"\(.*\)" .* nid=\([0-9a-fx]*\) .*/\2 \1/p' > "$OUT/threads-$tag.names" || true
  awk -v r="$reqs" 'function dec(h,  i, v) { v = 0; h = tolower(substr(h, 3))
                                            for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
                                            return v }
       FILENAME ~ /names$/ { id = $1; if (id ~ /^0x/) id = dec(id); $1 = ""; nm = substr($0, 2)
                        gsub(/[0-9]+/, "#", nm); gsub(/ /, "_", nm); name[id] = nm; next }
       FILENAME ~ /before$/ { run0[$1] = $2; wait0[$1] = $3; wake0[$1] = $4; next }
       { g = ($1 in name) ? name[$1] : "(unnamed)"; dr = $2 - run0[$1]; dw = $3 - wait0[$1]; dk = $4 - wake0[$1]
         if (dr <= 0 && dk <= 0) next
         n[g]++; run[g] += dr; wait[g] += dw; wake[g] += dk }
       END { if (r <= 0) exit
             for (g in n) printf "%s %d %.2f %.1f %.1f\n", g, n[g], wake[g] / r, run[g] / r / 1000, wait[g] / r / 1000 }' \
    "$OUT/threads-$tag.names" "$before" "$OUT/threads-$tag.after" | sort -k4,4nr > "$OUT/threads-$tag.txt"
}
# profile PID COMMAND: async-profiler's COMMAND (PROFILER: the path of its libasyncProfiler.so) in the JVM PID, its
# library loaded (again) through the attach API. The command goes in double quotes: unquoted, jcmd's parser takes
# "start,event" for an option's name and drops the rest. (jcmd answers 0 even when the agent refused: its answer is kept
# in $OUT/profiler.txt)
profile() { "${JAVA_HOME:+$JAVA_HOME/bin/}jcmd" "$1" JVMTI.agent_load "$PROFILER" "\"$2\"" >> "$OUT/profiler.txt" 2>&1; }
