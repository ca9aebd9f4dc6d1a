#!/usr/bin/env bash
# The floor programs of bench/coldstart.sh, built: bench/BareProxy.java and bench/MinimalCamel.java compiled against
# the gateway's target/lib into target/floor/floor.jar (Java 17 class files), and on Java 25+ an AOT cache of each
# from a training run (target/floor/BareProxy.aot, MinimalCamel.aot: started with the shipped flags, 50 requests,
# stopped). A jar, as the AOT cache takes no directory on the class path.
#
#   bench/floor-build.sh          (after mvn package; under the build lock: /work/bin/kp-build bench/floor-build.sh)
#
# Knobs: JAVA_HOME, KEYPOOL_JAVA_OPTS, GW_PORT (the training runs' port), PRIMARY_PORT (the fake BareProxy calls).
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$BENCH_DIR/lib.sh"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/keypool-floor-XXXXXX")
ON_EXIT="rm -rf '$OUT'"
FLOOR=$ROOT/target/floor
[ -d "$ROOT/target/lib" ] || die "no target/lib: build the jar first (mvn -B -q package -DskipTests)"
java_flags
mkdir -p "$FLOOR" "$OUT/classes"
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" --release 17 -nowarn -d "$OUT/classes" -cp "$ROOT/target/lib/*" \
  "$BENCH_DIR/BareProxy.java" "$BENCH_DIR/MinimalCamel.java"
rm -f "$FLOOR/floor.jar"
"${JAVA_HOME:+$JAVA_HOME/bin/}jar" --create --file "$FLOOR/floor.jar" -C "$OUT/classes" .
echo "floor-build: $FLOOR/floor.jar"
[ "${JAVA_FEATURE%%.*}" -ge 25 ] 2>/dev/null || { echo "floor-build: Java $JAVA_FEATURE: no AOT caches"; exit 0; }
for p in "$GW_PORT" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done
start_fakes
native=""
[ -n "$RUNTIME_OPTS" ] && native="--enable-native-access=ALL-UNNAMED"
for main in BareProxy MinimalCamel; do
  rm -f "$FLOOR/$main.aot"
  args=("$GW_PORT")
  [ "$main" = BareProxy ] && args+=("$PRIMARY_PORT")
  # shellcheck disable=SC2086  # RUNTIME_OPTS and KEYPOOL_JAVA_OPTS are lists of flags
  "$JAVA" -XX:AOTCacheOutput="$FLOOR/$main.aot" $RUNTIME_OPTS $native $KEYPOOL_JAVA_OPTS \
    -Dlog4j2.configurationFile="$ROOT/src/main/resources/log4j2.properties" -cp "$FLOOR/floor.jar:$ROOT/target/lib/*" \
    "$main" "${args[@]}" > "$OUT/$main.log" 2>&1 &
  GW_PID=$!
  PIDS+=("$GW_PID")
  await_gateway "$OUT/$main.log" bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -m 5 -H 'Content-Type: application/json' -d '$BODY' '$GW$CHAT')\" = 200 ]" \
    || die "$main did not answer (its log: $OUT/$main.log)"
  for _ in $(seq 1 50); do post_status "$GW" > /dev/null; done
  stop_gateway
  [ -s "$FLOOR/$main.aot" ] || { cat "$OUT/$main.log" >&2; die "no $FLOOR/$main.aot"; }
  echo "floor-build: $FLOOR/$main.aot, $(( $(stat -c %s "$FLOOR/$main.aot") / 1048576 )) MiB"
done
exit 0
}
