# One tenant cannot take every place: team-a opens 120 streams at once (4 s each), team-b sends 20 chats meanwhile.
# With tenants[team-a].maxInFlight set (or keypool.tenant-max-in-flight), team-a holds at most that many streams at once
# (more 200 in all, as places come back while the curls start), the rest 429 tenant_rate_limited with Retry-After at
# once; team-b is served as usual (its chats count in the provider's peak too); team-a's places are back at the end.
A90_DIR=$(mktemp -d)
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/stream?events=40&interval=100"
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/reset"
printf '%s' '{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"ping"}]}' > "$A90_DIR/stream.json"
export A90_DIR
seq 1 120 | xargs -P 120 -I{} sh -c 'curl -s -m 30 -D "$A90_DIR/a-$1.head" -o /dev/null -w "%{http_code}\n" \
  -H "Content-Type: application/json" -H "Authorization: Bearer $TOKEN_A" -d @"$A90_DIR/stream.json" \
  "$GW/v1/chat/completions" >> "$A90_DIR/a.codes"' _ {} &
A90_PID=$!
# team-b while team-a's streams run
sleep 1
seq 1 20 | xargs -P 4 -I{} curl -s -o /dev/null -w '%{http_code}\n' -m 10 -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $TOKEN_B" -d "$CHAT_BODY" "$GW/v1/chat/completions" > "$A90_DIR/b.codes"
wait "$A90_PID" || true
a_codes=$(sort "$A90_DIR/a.codes" | uniq -c | awk '{printf "%s x %s ", $1, $2}')
b_codes=$(sort "$A90_DIR/b.codes" | uniq -c | awk '{printf "%s x %s ", $1, $2}')
retry_after=$(grep -il '^retry-after:' "$A90_DIR"/a-*.head 2>/dev/null | wc -l)
a_after=$(chat_status "$TOKEN_A")
peak=$(curl -s -m 5 "$FAKE/control/stats?arrivals=0" | python3 -c 'import json, sys; print(json.load(sys.stdin)["maxInFlight"])')
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/stream?events=50&interval=100"
report "tenant in flight" "team-a: 120 streams at once (4 s); team-b: 20 chats meanwhile" \
  "team-a: ${a_codes}(${retry_after} with Retry-After); team-b: ${b_codes}; team-a after: $a_after; provider peak in flight: $peak"
