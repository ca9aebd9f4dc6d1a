# A 4 MB multipart upload to /v1/audio/transcriptions whose boundary is 6,000 characters, the body made of near-matches
# of it (the worst case of a plain search), timed; then the same 4 MB with a short boundary.
(
  tmp=$(mktemp -d)
  python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
long_b = "-" * 5999 + "x"
near = ("--" + long_b[:-1] + "\r\n").encode()
open(d + "/long", "wb").write((near * (4_000_000 // len(near) + 1))[:4_000_000])
short_b = "b0undary"
head = ("--" + short_b + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--" + short_b
        + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n").encode()
tail = ("\r\n--" + short_b + "--\r\n").encode()
open(d + "/short", "wb").write(head + b"-" * (4_000_000 - len(head) - len(tail)) + tail)
open(d + "/long.boundary", "w").write(long_b)
PY
  send() {
    curl -s -o "$tmp/answer.$1" -w '%{http_code} in %{time_total} s' -m 60 -X POST -T "$tmp/$1" \
      -H "Content-Type: multipart/form-data; boundary=$2" -H "Authorization: Bearer $TOKEN_A" \
      "$GW/v1/audio/transcriptions" 2>/dev/null || true
  }
  long=$(send long "$(cat "$tmp/long.boundary")")
  short=$(send short b0undary)
  report "30 multipart boundary" "4 MB, 6,000-char boundary; 4 MB, short boundary" "long: $long | short: $short"
  rm -rf "$tmp"
)
