#!/usr/bin/env bash
# Makes the AOT cache of target/keypool.jar (Java 25+: JEP 483, 514, 515): a training run of the gateway that goes once
# through the whole request path, after which the JVM writes the classes it loaded and linked, and the profiles of the
# methods it ran, into the cache. A gateway started with -XX:AOTCache=<the cache> has them at once.
#
#   deploy/aot-cache.sh [CACHE]       (default target/keypool.aot), run from the directory the gateway runs from
#                                     (target/keypool.jar and target/lib, application.properties, routes/)
#
# The cache holds for one JVM build, this jar and its lib/ exactly as they are (sizes and times), and the JVM flags it was
# made with that shape the heap (compact object headers; ZGC cannot use it): a JVM started otherwise refuses it with a
# warning and starts without it. So the training run takes the
# flags the gateway runs with: JAVA_OPTS as the Docker image sets it (and its ENTRYPOINT uses), else the Dockerfile's
# ENV JAVA_OPTS line beside this script's directory (as bench/lib.sh's shipped flags: the same list). JAVA_HOME picks the
# JVM (else java on the PATH). The gateway serves a throwaway keypool.yaml (the demo simulator, an admin token, a
# tenant) on a free loopback port, with its state in a temporary directory, and is stopped when the requests are done;
# the JVM then assembles the cache in a child process (some seconds).
#
# Makes nothing and says so when the JVM is older than 25, or the cache is already newer than the jar, its lib/, the
# JVM flags' source and this script. AOT_TRAINING_ROUNDS=20: how often the request path is walked (the method profiles
# of JEP 515 come from these calls).
set -euo pipefail
# the whole script is one compound command: bash reads all of it before running any of it, so the file can be
# edited or replaced while a training run is going on
{
# the bodies below are ASCII: their length in characters is their Content-Length
export LC_ALL=C

CACHE=${1:-target/keypool.aot}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
ROUNDS=${AOT_TRAINING_ROUNDS:-20}
say() { echo "aot-cache: $*"; }

[ -f target/keypool.jar ] || { say "no target/keypool.jar in $(pwd)" >&2; exit 1; }
FEATURE=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')
if ! [ "${FEATURE%%.*}" -ge 25 ] 2>/dev/null; then
  say "Java $FEATURE has no -XX:AOTCacheOutput (Java 25+): no cache made"
  exit 0
fi
if [ -z "${JAVA_OPTS+set}" ]; then
  DOCKERFILE=$HERE/../Dockerfile
  JAVA_OPTS=$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$DOCKERFILE" 2>/dev/null || true)
  [ -n "$JAVA_OPTS" ] || { say "JAVA_OPTS is not set and $DOCKERFILE has no ENV JAVA_OPTS line" >&2; exit 1; }
fi
SOURCES=(target/keypool.jar target/lib "${BASH_SOURCE[0]}")
[ -n "${DOCKERFILE:-}" ] && SOURCES+=("$DOCKERFILE")
if [ -f "$CACHE" ] && [ -z "$(find "${SOURCES[@]}" -newer "$CACHE" -print -quit 2>/dev/null)" ]; then
  say "$CACHE is newer than the jar, its lib/ and the flags: kept"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/keypool-aot-XXXXXX")
GW_PID=""
cleanup() {
  if [ -n "$GW_PID" ]; then kill -9 "$GW_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# a free loopback port: the first from a random place in 20000-29999 that nothing answers on
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=$(( 20000 + RANDOM % 10000 ))
while port_busy "$PORT"; do PORT=$(( PORT + 1 )); done

ADMIN=aot-training-admin
TENANT=aot-training-tenant
# walk: a channel whose keys the simulator refuses (429, 401), so that its model's requests walk the fallback chain to demo
cat > "$WORK/keypool.yaml" <<EOF
channels:
  - name: walk
    baseUrl: http://127.0.0.1:$PORT/demo/v1
    models: [walk-chat]
    keys:
      - key: demo-key-rate-limited
      - key: demo-key-revoked
    fallback: [demo]
  - name: demo
    baseUrl: http://127.0.0.1:$PORT/demo/v1
    models: [demo-chat, "*"]
    keys:
      - key: demo-key-1
        rpm: 100000
      - key: demo-key-rate-limited
      - key: demo-key-revoked
      - key: demo-key-2
tenants:
  - name: training
    token: $TENANT
    rpm: 100000
admin:
  token: $ADMIN
EOF

rm -f "$CACHE"
say "training run of $("$JAVA" -version 2>&1 | head -1) with $JAVA_OPTS on port $PORT"
# shellcheck disable=SC2086  # JAVA_OPTS is a list of flags
CAMEL_SERVER_PORT=$PORT "$JAVA" -XX:AOTCacheOutput="$CACHE" $JAVA_OPTS -Dcamel.server.host=127.0.0.1 \
  -Dkeypool.config="$WORK/keypool.yaml" -Dstate.dir="$WORK/state" -Dbatch.inbox="$WORK/inbox" \
  -Dbatch.outbox="$WORK/outbox" -jar target/keypool.jar > "$WORK/gateway.log" 2>&1 &
GW_PID=$!

# request METHOD PATH [BODY [TOKEN]]: the status of one HTTP/1.1 request to the gateway, its answer read to the end. Bash
# alone (the JRE image has no curl): one connection per request, closed by the server after its answer
request() {
  local method=$1 path=$2 body=${3:-} token=${4:-$TENANT} status=000 _
  if exec 3<>"/dev/tcp/127.0.0.1/$PORT"; then
    printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
      "$method" "$path" "$PORT" "$token" "${#body}" "$body" >&3
    read -r -t 30 _ status _ <&3 || status=000
    while IFS= read -r -t 30 _ <&3; do :; done
    exec 3<&-
  fi 2>/dev/null
  echo "$status"
}
# call EXPECTED METHOD PATH [BODY [TOKEN]]: one request; fails the run when its status is not EXPECTED
call() {
  local expected=$1 status
  shift
  status=$(request "$@")
  if [ "$status" != "$expected" ]; then
    tail -40 "$WORK/gateway.log" >&2
    say "$1 $2 answered $status instead of $expected (gateway log above)" >&2
    exit 1
  fi
}

chat='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}'
for _ in $(seq 1 600); do
  kill -0 "$GW_PID" 2>/dev/null || { cat "$WORK/gateway.log" >&2; say "the gateway exited during startup" >&2; exit 1; }
  [ "$(request GET /observe/health)" = 200 ] && break
  sleep 0.1
done
for _ in $(seq 1 "$ROUNDS"); do
  call 200 POST /v1/chat/completions "$chat"
  call 200 POST /v1/chat/completions '{"model":"demo-chat","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}'
  call 200 POST /v1/embeddings '{"model":"text-embedding-3-small","input":"hi"}'
  call 200 POST /v1/messages '{"model":"demo-chat","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}'
  call 200 POST /v1/messages '{"model":"demo-chat","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}'
  call 200 POST /v1/chat/completions '{"model":"walk-chat","messages":[{"role":"user","content":"hi"}]}'
  call 200 POST /v1/chat/completions '{"model":"walk-chat","stream":true,"messages":[{"role":"user","content":"hi"}]}'
  call 200 GET /v1/models
  call 400 POST /v1/chat/completions '{"model":"gpt-4o-mini","messages":'
  call 401 POST /v1/chat/completions "$chat" wrong-token
  call 404 GET /v1/no-such-path
  call 200 GET /observe/health
  call 200 GET /observe/metrics
  call 200 GET /admin/status "" "$ADMIN"
  call 200 GET /admin/events "" "$ADMIN"
done

# a normal exit, on which the JVM writes the cache (SIGTERM: Camel Main stops the context, then the JVM exits)
kill "$GW_PID"
wait "$GW_PID" || true
GW_PID=""
if [ ! -s "$CACHE" ]; then
  cat "$WORK/gateway.log" >&2
  say "the JVM wrote no $CACHE (its log above)" >&2
  exit 1
fi
say "$CACHE: $(( $(stat -c %s "$CACHE") / 1048576 )) MiB"
exit 0
}
