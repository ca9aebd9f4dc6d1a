# A provider that answers without end: a plain answer of ~200 MiB, a stream event that never ends (first, and after
# three events), a stream that never stops. The gateway bounds each (keypool.max-answer-bytes 64 MiB,
# keypool.max-sse-event-bytes 1 MiB, keypool.max-stream-seconds, here 5 s instead of 600 so that the case is short):
# the attempt fails as a provider error and the walk goes on to the fallback channel while the client has nothing; after
# a stream's first byte the client gets an error event. The misbehaving provider (bench/abuse/080-abusive-upstream.js)
# runs on a free port as channel `abusive` (model abuse-model, fallback fake), added to this run's copy of the config.
A80_DIR=$(mktemp -d)
A80_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
node "$BENCH_DIR/abuse/080-abusive-upstream.js" --port "$A80_PORT" > "$A80_DIR/abusive.log" 2>&1 &
A80_PID=$!
cp "$ABUSE_CONFIG" "$A80_DIR/keypool.yaml.before"
python3 - "$ABUSE_CONFIG" "$A80_PORT" <<'PY'
import sys
path, port = sys.argv[1], sys.argv[2]
text = open(path).read()
channel = f"""  - name: abusive
    baseUrl: http://127.0.0.1:{port}/v1
    models: [abuse-model]
    timeout: 30s
    maxRetries: 1
    disableAfter: 100
    fallback: [fake]
    keys:
      - key: abusive-key-1
      - key: abusive-key-2
    breaker:
      triggers: [consecutive_fail]
      consecutiveFailThreshold: 100
"""
at = text.index("\ntenants:") + 1
open(path, "w").write(text[:at] + channel + text[at:])
PY
restart_gateway -Dkeypool.max-stream-seconds=5
# the fallback's streams well within those 5 s
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/stream?events=10&interval=50"

a80_mode() { curl -s -o /dev/null -m 5 -X POST "http://127.0.0.1:$A80_PORT/control/mode?m=$1"; }
# a80_call NAME STREAM: one chat of abuse-model; prints "<status> <channel> <seconds> <body bytes> <[DONE]?> <error event?>"
a80_call() {
  local t0 t1
  t0=$(date +%s%N)
  curl -s -m 60 -D "$A80_DIR/$1.head" -o "$A80_DIR/$1.body" -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $TOKEN_B" \
    -d "{\"model\":\"abuse-model\",\"stream\":$2,\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}" \
    "$GW/v1/chat/completions" || true
  t1=$(date +%s%N)
  printf '%s %s %s.%02ds %sB%s%s' \
    "$(awk 'NR==1 {print $2}' "$A80_DIR/$1.head")" \
    "$(awk -F': ' 'tolower($1)=="x-keypool-channel" {gsub(/\r/, "", $2); print $2}' "$A80_DIR/$1.head")" \
    "$(( (t1 - t0) / 1000000000 ))" "$(( (t1 - t0) / 10000000 % 100 ))" "$(stat -c %s "$A80_DIR/$1.body" 2>/dev/null || echo 0)" \
    "$(grep -q 'data: \[DONE\]' "$A80_DIR/$1.body" && echo ' [DONE]')" \
    "$(grep -q '"error"' "$A80_DIR/$1.body" && echo ' error-event')"
}

a80_mode huge-answer
got=""
for n in 1 2 3; do got="$got$(a80_call "answer-$n" false); "; done
report "provider: huge answer" "3 chats, provider answers ~200 MiB each" "$got"

a80_mode huge-event
report "provider: huge 1st event" "1 stream, first event never ends" "$(a80_call first-event true)"

a80_mode late-huge-event
report "provider: huge later event" "1 stream, 3 events then one never ends" "$(a80_call late-event true)"

a80_mode endless
report "provider: endless stream" "1 stream that never ends (max 5 s)" "$(a80_call endless true)"

stats=$(curl -s -m 5 "http://127.0.0.1:$A80_PORT/control/stats")
echo "abusive provider: $stats" >> "$GW_LOG"
kill "$A80_PID" 2>/dev/null || true
wait "$A80_PID" 2>/dev/null || true
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/stream?events=50&interval=100"
cp "$A80_DIR/keypool.yaml.before" "$ABUSE_CONFIG"
restart_gateway
report "provider: connections" "calls the gateway cut short" "$stats"
