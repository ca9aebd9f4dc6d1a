# Audio uploads larger together than the heap's body budget: 12 POSTs of 20 MB to /v1/audio/transcriptions at once
# (240 MB; the shipped heap is 320 MiB and its body budget a quarter of it), each sent from a file by curl. Every one
# must reach the provider whole (it answers with the byte count and SHA-256 of what it got), sent from disk: none
# refused for the heap's budget, no OutOfMemoryError.
(
  tmp=$(mktemp -d)
  python3 - "$tmp" <<'PY'
import hashlib, sys
d = sys.argv[1]
b = "audio-abuse-boundary"
head = ("--" + b + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--" + b
        + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n").encode()
tail = ("\r\n--" + b + "--\r\n").encode()
chunk = bytes(range(256)) * 4096
h = hashlib.sha256()
with open(d + "/body", "wb") as f:
    for part in [head] + [chunk] * (20_000_000 // len(chunk)) + [tail]:
        f.write(part)
        h.update(part)
open(d + "/sha", "w").write(h.hexdigest())
PY
  before=$(grep -c OutOfMemoryError "$GW_LOG" || true)
  for i in $(seq 1 12); do
    curl -s -o "$tmp/answer.$i" -w '%{http_code} %{time_total}\n' -m 120 -X POST -T "$tmp/body" \
      -H 'Content-Type: multipart/form-data; boundary=audio-abuse-boundary' -H "Authorization: Bearer $TOKEN_B" \
      "$GW/v1/audio/transcriptions" > "$tmp/code.$i" 2>/dev/null &
  done
  wait
  codes=$(cat "$tmp"/code.* | awk '{print $1}' | sort | uniq -c | awk '{printf "%s x %s ", $1, $2}')
  slowest=$(cat "$tmp"/code.* | awk '$2 > m {m = $2} END {printf "%.1f", m}')
  whole=$(grep -l "$(cat "$tmp/sha")" "$tmp"/answer.* 2>/dev/null | wc -l)
  oom=$(( $(grep -c OutOfMemoryError "$GW_LOG" || true) - before ))
  report "35 audio uploads" "12 x 20 MB audio uploads at once (240 MB)" \
    "$(echo "$codes")| byte-exact at the provider: $whole/12 | slowest ${slowest} s | new OOM lines: $oom"
  rm -rf "$tmp"
)
