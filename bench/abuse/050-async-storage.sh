# Async storage: 100 async chat submissions (X-KeyPool-Async: true) of 3.9 MB each from team-a, 4 streams at once,
# while the provider takes 15 s per answer.
# Expected: only 202 (kept), 429 (too_many_tasks / storage_exhausted: batch.max-queued-tasks, batch.max-stored-bytes)
# or 503 (overloaded); state.dir stays under 200 MiB; a normal request is answered right after.
ASYNC_TMP=$(mktemp -d)
python3 -c '
import json, sys
body = {"model": "gpt-4o-mini", "max_tokens": 1, "messages": [{"role": "user", "content": "x" * (3900 * 1024)}]}
sys.stdout.write(json.dumps(body))' > "$ASYNC_TMP/body.json"
async_one() {
  curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 60 -H 'Content-Type: application/json' -H 'X-KeyPool-Async: true' \
    -H "Authorization: Bearer $TOKEN_A" --data-binary "@$ASYNC_TMP/body.json" "$GW/v1/chat/completions" || echo 000
}
export -f async_one
export ASYNC_TMP
# the provider takes 15 s per answer: the tasks pile up in state.dir as a slow provider would leave them
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/latency?ms=15000" || true
async_started=$(date +%s)
# bounded: what is not sent within 80 s is not sent
seq 1 100 | timeout 80 xargs -P 4 -I{} bash -c async_one > "$ASYNC_TMP/statuses" 2>/dev/null || true
async_secs=$(( $(date +%s) - async_started ))
async_counts=$(awk '{print $1}' "$ASYNC_TMP/statuses" | sort | uniq -c | awk '{printf "%s x %s ", $1, $2}')
async_p50=$(awk '{print $2}' "$ASYNC_TMP/statuses" | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.1f s", a[int((NR+1)/2)]}')
async_du=$(du -sm "$STATE_DIR" 2>/dev/null | awk '{print $1}')
curl -s -o /dev/null -m 5 -X POST "$FAKE/control/latency?ms=0" || true
# the tasks it kept run on their own; what they leave is their answers, not their requests
for _ in $(seq 1 60); do
  [ "$(find "$STATE_DIR/batch/tasks" -name '*.request' 2>/dev/null | wc -l)" -eq 0 ] && break
  sleep 0.5
done
async_du_after=$(du -sm "$STATE_DIR" 2>/dev/null | awk '{print $1}')
async_errors=$(grep -c 'CamelExecutionException\|Queue full' "$GW_LOG" || true)
report "50 async storage" "100 x 3.9 MB async, 4 streams, ${async_secs}s" \
  "${async_counts}(not sent in 80 s: $((100 - $(wc -l < "$ASYNC_TMP/statuses")))), answer p50 ${async_p50} | state ${async_du} MiB at the end of sending, ${async_du_after} MiB once run | queue-full errors in log: $async_errors"
rm -rf "$ASYNC_TMP"
