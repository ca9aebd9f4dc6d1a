# Batch fairness: team-c spends its day (its rpd) and submits a 2,000-line batch that can only wait; team-b then submits
# a 200-line batch. Reported: whether team-b's batch completes within 60 s while team-c's waits, and how many of
# team-c's lines the gateway refused meanwhile (a waiting batch should rest, not send its lines each second).
# Sourced by bench/abuse.sh (uses $GW, $TOKEN_C, $TOKEN_B, $CHAT_BODY, report).
{
fair_tmp=$(mktemp -d)

# team-c's limits: requests until its own limit answers 429 (at most 200: with no limit, the case says so)
fair_spent=0
for fair_i in $(seq 1 200); do
  fair_code=$(curl -s -o "$fair_tmp/spend.json" -w '%{http_code}' -m 10 -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $TOKEN_C" -d "$CHAT_BODY" "$GW/v1/chat/completions" || true)
  if [ "$fair_code" = 429 ] && grep -q -e tenant_rate_limited -e budget_exceeded "$fair_tmp/spend.json"; then break; fi
  fair_spent=$((fair_spent + 1))
done

# fair_batch TOKEN PREFIX LINES: uploads a batch file and creates the batch; prints its id
fair_batch() {
  local token=$1 prefix=$2 lines=$3 file
  file="$fair_tmp/$prefix.jsonl"
  python3 - "$prefix" "$lines" > "$file" <<'PY'
import json, sys
prefix, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    print(json.dumps({"custom_id": f"{prefix}-{i}", "method": "POST", "url": "/v1/chat/completions",
                      "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}}))
PY
  local file_id
  file_id=$(curl -s -m 30 -H "Authorization: Bearer $token" -F purpose=batch -F "file=@$file" "$GW/v1/files" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin).get("id",""))' 2>/dev/null || true)
  curl -s -m 30 -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"input_file_id\":\"$file_id\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\"}" \
    "$GW/v1/batches" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("id",""))' 2>/dev/null || true
}
# fair_state TOKEN ID: "<status> <completed>/<total>"
fair_state() {
  curl -s -m 10 -H "Authorization: Bearer $1" "$GW/v1/batches/$2" | python3 -c \
    'import json,sys; b=json.load(sys.stdin); c=b.get("request_counts",{}); print(b.get("status"), "%s/%s" % (c.get("completed"), c.get("total")))' \
    2>/dev/null || echo "unknown"
}
# team-c's requests refused for its limits so far (keypool_requests_total)
fair_refused() {
  curl -s -m 10 "$GW/observe/metrics" | awk '/^keypool_requests_total\{/ && /tenant="team-c"/ && (/tenant_rate_limited/ || /budget_exceeded/) {s += $NF} END {printf "%d", s}'
}

fair_refused_before=$(fair_refused)
fair_a=$(fair_batch "$TOKEN_C" a 2000)
fair_b=$(fair_batch "$TOKEN_B" b 200)
fair_started=$(date +%s)
fair_b_state=unknown
while [ $(( $(date +%s) - fair_started )) -lt 60 ]; do
  fair_b_state=$(fair_state "$TOKEN_B" "$fair_b")
  case "$fair_b_state" in completed*|failed*|cancelled*|expired*) break ;; esac
  sleep 0.5
done
fair_secs=$(( $(date +%s) - fair_started ))
fair_a_state=$(fair_state "$TOKEN_C" "$fair_a")
fair_refused_during=$(( $(fair_refused) - fair_refused_before ))
# team-c's batch would wait for hours: cancel it, so that the next cases run on a quiet gateway
curl -s -o /dev/null -m 10 -X POST -H "Authorization: Bearer $TOKEN_C" "$GW/v1/batches/$fair_a/cancel" || true

if [ "$fair_spent" -ge 200 ]; then fair_limit="team-c has no limit within 200 requests"; else fair_limit="team-c limited after $fair_spent"; fi
report "60 batch fairness" "$fair_limit; team-c batch 2000 lines, then team-b 200 lines" \
  "team-b $fair_b_state in ${fair_secs}s (bound 60s); team-c $fair_a_state; team-c batch lines refused: $fair_refused_during"
rm -rf "$fair_tmp"
}
