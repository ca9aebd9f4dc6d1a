# Large bodies at once: 16 POSTs of 60 MB with a wrong token (Content-Length known, as curl -T sends a file) and 16
# with team-a's token (chunked from a pipe, no length), all at the same moment, on the shipped heap. Each must be
# answered within seconds (401, 413) without the gateway holding the bodies. Bodies come from /dev/zero: a sparse file
# and a pipe, never 60 MB in this script's memory.
(
  tmp=$(mktemp -d)
  truncate -s 60000000 "$tmp/body"
  before=$(grep -c OutOfMemoryError "$GW_LOG" || true)
  for i in $(seq 1 16); do
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 60 -X POST -T "$tmp/body" \
      -H 'Content-Type: application/json' -H 'Authorization: Bearer wrong-token' \
      "$GW/v1/chat/completions" > "$tmp/wrong.$i" 2>/dev/null &
    head -c 60000000 /dev/zero | curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -m 60 -X POST -T - \
      -H 'Content-Type: application/json' -H "Authorization: Bearer $TOKEN_A" \
      "$GW/v1/chat/completions" > "$tmp/good.$i" 2>/dev/null &
  done
  wait
  codes() { cat "$tmp"/$1.* | awk '{print $1}' | sort | uniq -c | awk '{printf "%s x %s ", $1, $2}'; }
  slowest=$(cat "$tmp"/wrong.* "$tmp"/good.* | awk '$2 > m {m = $2} END {printf "%.1f", m}')
  oom=$(( $(grep -c OutOfMemoryError "$GW_LOG" || true) - before ))
  report "10 large bodies" "16 x 60 MB wrong token + 16 x 60 MB chunked good token, at once" \
    "wrong: $(codes wrong)| good: $(codes good)| slowest ${slowest} s | new OOM lines: $oom"
  rm -rf "$tmp"
)
