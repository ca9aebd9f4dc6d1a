# The reference: 200 normal requests from team-b, 16 at a time, before any abuse.
ok=$(seq 1 200 | xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' -m 10 -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $TOKEN_B" -d "$CHAT_BODY" "$GW/v1/chat/completions" | sort | uniq -c | awk '{printf "%s x %s ", $1, $2}')
report "baseline" "200 chat completions, 16 at a time" "$ok"
