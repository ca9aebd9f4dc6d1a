#!/usr/bin/env bash
# KeyPool batch benchmark: a batch of LINES lines through the file inbox against a fake
# provider answering after LATENCY_MS, on 4 keys x 600 rpm (bench/keypool-batch.yaml); and the interactive wait p99
# (bench/quota.js, open loop) alone and while the batch runs, on the same keys.
#
#   bench/batch.sh            LINES=10000 LATENCY_MS=200 RATE=2 INTERACTIVE_S=30 BATCH_CONCURRENCY=16 BATCH_WARMUP_S=15
#
# Needs node, a JDK (JAVA_HOME or java), target/keypool.jar (mvn -B package -DskipTests). Everything on 127.0.0.1.
# Knobs (environment), besides those above: BENCH_OUT, and those bench/lib.sh reads (KEYPOOL_HOME, the repository whose
# jar runs; JAVA_HOME, KEYPOOL_JAVA_OPTS, default the Dockerfile's flags; AOT_CACHE; GW_PORT, PRIMARY_PORT, BACKUP_PORT)
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# ROOT, the ports, JAVA and the shipped JVM flags, the fakes, starting the gateway, stopping all on exit
. "$BENCH_DIR/lib.sh"
cd "$ROOT"
LINES=${LINES:-10000}
LATENCY_MS=${LATENCY_MS:-200}
RATE=${RATE:-2}
INTERACTIVE_S=${INTERACTIVE_S:-30}
BATCH_CONCURRENCY=${BATCH_CONCURRENCY:-16}
BATCH_WARMUP_S=${BATCH_WARMUP_S:-15}
OUT=${BENCH_OUT:-$BENCH_DIR/results/batch-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT/inbox" "$OUT/outbox"
[ -f target/keypool.jar ] || die "target/keypool.jar is missing: mvn -B package -DskipTests"
for p in "$GW_PORT" "$PRIMARY_PORT" "$BACKUP_PORT"; do port_busy "$p" && die "port $p on 127.0.0.1 is in use"; done

start_fakes node "$BENCH_DIR/fake-upstream.js" --port "$PRIMARY_PORT" --latency-ms "$LATENCY_MS"
java_flags
launch_gateway "$ROOT" "$OUT/gateway.log" "$BENCH_DIR/keypool-batch.yaml" -Dstate.dir="$OUT/state/" \
  -Dbatch.inbox="$OUT/inbox" -Dbatch.outbox="$OUT/outbox" -Dbatch.concurrency="$BATCH_CONCURRENCY"
await_gateway "$OUT/gateway.log" eval '[ "$(curl -s -o /dev/null -w "%{http_code}" -m 2 "$GW/observe/health" 2>/dev/null)" = 200 ]' \
  || die "the gateway did not become healthy within 60 s ($OUT/gateway.log)"

interactive() {   # the wait p99 (latency minus the fake's delay) of RATE requests/s for INTERACTIVE_S seconds
  node "$BENCH_DIR/quota.js" --url "http://127.0.0.1:$GW_PORT/v1/chat/completions" --rate "$RATE" \
    --duration-s "$INTERACTIVE_S" --fake-latency-ms "$LATENCY_MS" --capacity-per-min 2400 > "$OUT/interactive-$1.txt"
  grep '^RESULT ' "$OUT/interactive-$1.txt" | sed 's/^RESULT //'
}
field() { node -e "const r=JSON.parse(process.argv[1]); console.log(r[process.argv[2]])" "$1" "$2"; }

say "batch bench $(date -u +%Y-%m-%dT%H:%M:%SZ): $LINES lines, fake latency $LATENCY_MS ms, 4 keys x 600 rpm, batch.concurrency $BATCH_CONCURRENCY, interactive $RATE/s for $INTERACTIVE_S s; $(nproc) cores"
say "gateway: $ROOT at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), KEYPOOL_JAVA_OPTS='$KEYPOOL_JAVA_OPTS'"
# JIT warm-up: BATCH_WARMUP_S at 10/s (150 of the keys' 2,400 a minute in 15 s), then the interactive load alone
node "$BENCH_DIR/quota.js" --url "http://127.0.0.1:$GW_PORT/v1/chat/completions" --rate 10 --duration-s "$BATCH_WARMUP_S" \
  --fake-latency-ms "$LATENCY_MS" --capacity-per-min 2400 > "$OUT/warmup.txt"
alone=$(interactive alone)
# the interactive minute leaves the keys' windows before the batch starts; the fake forgets the calls so far
sleep 61
curl -s -o /dev/null -X POST "http://127.0.0.1:$PRIMARY_PORT/control/reset"

node -e '
const n = +process.argv[1];
for (let i = 0; i < n; i++) console.log(JSON.stringify({custom_id: "line-" + i, method: "POST", url: "/v1/chat/completions",
  body: {model: "gpt-4o-mini", messages: [{role: "user", content: "line-" + i}], max_tokens: 1, user: "line-" + i}}));
' "$LINES" > "$OUT/bench.tmp"
start=$(date +%s%N)
mv "$OUT/bench.tmp" "$OUT/inbox/bench.jsonl"
# lines with a result, every second (the batch's journal), kept in progress.txt
( while [ ! -f "$OUT/outbox/bench.output.jsonl" ]; do
    echo "$(( ($(date +%s%N) - start) / 1000000 )) $(cat "$OUT"/state/batch/batches/*.journal.jsonl 2>/dev/null | wc -l)"
    sleep 1
  done > "$OUT/progress.txt" ) &
PIDS+=($!)
sleep 30   # 30 s into the batch: the first minute's burst (95 % of each key's minute) is spent
during=$(interactive during-batch)
while [ ! -f "$OUT/outbox/bench.output.jsonl" ]; do sleep 0.5; done
end=$(date +%s%N)
secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
ok=$(grep -c '"status_code":200' "$OUT/outbox/bench.output.jsonl" || true)
rate=$(awk -v n="$LINES" -v s="$secs" 'BEGIN {printf "%.1f", n / s}')
# the keys allow 2400/min = 40/s; a batch may use 95 % of each key's sliding minute (the reserve line), the rest is
# the interactive clients'. From the fake's arrivals (a batch line's body carries its custom_id as `user`): the batch
# calls in each minute from its first one; the sustained rate over whole cycles (the first minute's calls fill the
# keys' windows to the batch's share; the batch then sends again as they leave the windows, so the long-run rate is
# C calls per cycle: the calls of the first m cycles over the time from the first call to the first of cycle m + 1);
# and the most calls one key got in any sliding 60 s (all calls).
curl -s "http://127.0.0.1:$PRIMARY_PORT/control/stats" > "$OUT/fake-stats.json"
calls=$(node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const batch = s.arrivals.filter((t, i) => String(s.arrivalIds[i]).startsWith("line-")).sort((a, b) => a - b);
const t0 = batch[0], perMinute = [];
for (const t of batch) { const m = Math.floor((t - t0) / 60000); perMinute[m] = (perMinute[m] || 0) + 1; }
const cycle = perMinute[0], cycles = Math.floor((batch.length - 1) / cycle);
const sustained = cycles ? cycles * cycle / ((batch[cycles * cycle] - t0) / 1000) : NaN;
const byKey = {};
s.arrivals.forEach((t, i) => (byKey[s.arrivalKeys[i]] = byKey[s.arrivalKeys[i]] || []).push(t));
let peak = 0;
for (const times of Object.values(byKey)) {
  times.sort((a, b) => a - b);
  for (let i = 0, j = 0; i < times.length; i++) { while (times[i] - times[j] >= 60000) j++; peak = Math.max(peak, i - j + 1); }
}
console.log(JSON.stringify({perMinute: perMinute.map(n => n || 0).join(", "), cycle, cycles, sustained: sustained.toFixed(1),
  cycleSeconds: cycles ? ((batch[cycles * cycle] - t0) / 1000 / cycles).toFixed(2) : "-", peakPerKey: peak}));
' "$OUT/fake-stats.json")
sustained=$(field "$calls" sustained)
# 429 quota_exhausted answers of the gateway core (batch lines held back to run again in a later round, interactive ones)
held=$(curl -s "http://127.0.0.1:$GW_PORT/observe/metrics" | awk '/^keypool_requests_total\{.*outcome="quota_exhausted"/ {n += $2} END {printf "%d", n}')
say "batch calls per minute from its first one: $(field "$calls" perMinute); most calls on one key in any 60 s: $(field "$calls" peakPerKey) of 600"
say "batch sustained over $(field "$calls" cycles) whole cycles of $(field "$calls" cycle) calls ($(field "$calls" cycleSeconds) s each): $sustained lines/s = $(awk -v r="$sustained" 'BEGIN {printf "%.1f", 100 * r / 40}') % of the keys' 40/s"
say "gateway answers quota_exhausted (lines held back for a later round, interactive requests refused): $held"
say "batch: $LINES lines ($ok answered 200) in $secs s = $rate lines/s = $(awk -v r="$rate" 'BEGIN {printf "%.1f", 100 * r / 40}') % of the keys' 40/s"
# latency = the fake's delay + the wait quota.js measures (the gateway's own time included)
lat() { node -e "const r=JSON.parse(process.argv[1]); console.log((r[process.argv[2]] + $LATENCY_MS).toFixed(1))" "$1" "$2"; }
say "interactive alone:        $(field "$alone" ok) x 200 of $(field "$alone" offered), latency p50 $(lat "$alone" waitP50Ms) ms, p99 $(lat "$alone" waitP99Ms) ms"
say "interactive during batch: $(field "$during" ok) x 200 of $(field "$during" offered), latency p50 $(lat "$during" waitP50Ms) ms, p99 $(lat "$during" waitP99Ms) ms"
say "p99 during / alone: $(node -e "const a=JSON.parse(process.argv[1]), d=JSON.parse(process.argv[2]); console.log(((d.waitP99Ms + $LATENCY_MS) / (a.waitP99Ms + $LATENCY_MS)).toFixed(3))" "$alone" "$during")"
figure batch_sustained_pct "$(awk -v r="$sustained" 'BEGIN {printf "%.1f", 100 * r / 40}')"
figure batch_whole_pct "$(awk -v r="$rate" 'BEGIN {printf "%.1f", 100 * r / 40}')"
figure batch_answered_200 "$ok"
figure batch_peak_per_key_60s "$(field "$calls" peakPerKey)"
figure interactive_p99_alone_ms "$(lat "$alone" waitP99Ms)"
figure interactive_p99_during_ms "$(lat "$during" waitP99Ms)"
figure interactive_p99_during_over_alone "$(node -e "const a=JSON.parse(process.argv[1]), d=JSON.parse(process.argv[2]); console.log(((d.waitP99Ms + $LATENCY_MS) / (a.waitP99Ms + $LATENCY_MS)).toFixed(3))" "$alone" "$during")"
say "raw outputs: $OUT"
exit 0
}
