#!/usr/bin/env bash
# One of the load benchmarks of bench/ run for several builds, the builds alternated run by run; then each of its
# figures per build: the median and the spread (lowest-highest) over the runs, and whether each build's median lies
# within the runs' spread of the first build's (the medians' difference no larger than the wider of the two spreads).
#
#   BUILDS="before=/work/base-87cf014 after=." bench/alternate.sh quota|quota-cost|tenants|batch|redis
#
# Each run is the bench's own script, shortened where a shorter run still resolves its figures (any knob set in the
# environment wins; bench/README.md, "Alternated with the build before", says what each resolves):
#   quota       bench/run.sh quota, its first part: 4 keys x 120 rpm offered 2x for QUOTA_S=62 s (one minute's window
#               refilled), JIT_WARMUP=10: upstream 429s, the share of the limit used, the wait of the 200s
#   quota-cost  the quota bookkeeping through bench/builds.sh: per build two gateways, on bench/keypool-quota.yaml
#               without limits (none) and with rpm and tpm never reached (limits), all started at once and warmed
#               (JIT_WARMUP=10), then RUNS rounds (default 3) of cells lat1-0 and cpu64 (WARMUP=1 DURATION=4):
#               limits less none, paired round by round, in added p50 at 1 connection and CPU per request
#   tenants     bench/run.sh tenants, TENANTS_S=25 JIT_WARMUP=10: the steady tenant's 200s and p99 beside the noisy one
#   batch       bench/batch.sh, LINES=2400 (one cycle of the keys' minute and the first lines of the next)
#               INTERACTIVE_S=15 BATCH_WARMUP_S=5, about 155 s a run: the share of the keys' limit the batch used, the
#               interactive p99 during / alone
#   redis       bench/redis.sh, CALLS=1000 ROUNDS=3 COOLINGS=200: Redis's added p50, a cooling seen by the other instance
# Every build is a checkout with target/keypool.jar packaged (mvn -B -o -q package -DskipTests -Daot.skip=true; redis:
# its test classes compiled, as it runs its SharedStateBench under Maven); the scripts and their configs are this
# checkout's, the jar (redis: the classes) the build's (KEYPOOL_HOME), the JVM flags the shipped ones of this checkout,
# the AOT cache off unless AOT_CACHE says otherwise.
#
# Knobs: BUILDS (name=DIR ...), RUNS=1 (quota-cost: 3; runs of each build in this call, the order turned from run to
# run; 0: only the summary of the runs already in BENCH_OUT), BENCH_OUT
# (the directory of the comparison; runs already in it are kept and pooled with this call's, so that several calls, one
# hold of the machine each, add up to one comparison: the runs continue where the last call stopped), and those of the
# scripts (GW_PORT, PRIMARY_PORT, BACKUP_PORT, JAVA_HOME, ...). A run that fails is reported and left out.
set -euo pipefail
{
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH=${1:-}
BUILDS=${BUILDS:-}
case "$BENCH" in
  quota) script=(run.sh quota)
    export QUOTA_PARTS=${QUOTA_PARTS:-limit} QUOTA_S=${QUOTA_S:-62} JIT_WARMUP=${JIT_WARMUP:-10} ;;
  quota-cost) script=(builds.sh); RUNS=${RUNS:-3}
    export CELLS=${CELLS:-lat1-0 cpu64} JIT_WARMUP=${JIT_WARMUP:-10} WARMUP=${WARMUP:-1} DURATION=${DURATION:-4} ;;
  tenants) script=(run.sh tenants)
    export TENANTS_S=${TENANTS_S:-25} JIT_WARMUP=${JIT_WARMUP:-10} ;;
  batch) script=(batch.sh)
    export LINES=${LINES:-2400} INTERACTIVE_S=${INTERACTIVE_S:-15} BATCH_WARMUP_S=${BATCH_WARMUP_S:-5} ;;
  redis) script=(redis.sh)
    export CALLS=${CALLS:-1000} ROUNDS=${ROUNDS:-3} COOLINGS=${COOLINGS:-200} ;;
  *) echo "usage: BUILDS=\"name=DIR ...\" $0 quota|quota-cost|tenants|batch|redis" >&2; exit 2 ;;
esac
RUNS=${RUNS:-1}
# no build on an AOT cache (lib.sh's aot_flags), so that a build packaged with one and one without compare as equals
export AOT_CACHE=${AOT_CACHE:-off}
[ -n "$BUILDS" ] || { echo "$0: BUILDS is empty: name=DIR for each build to compare" >&2; exit 1; }
OUT=${BENCH_OUT:-$BENCH_DIR/results/alternate-$BENCH-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
# every figure of every run: "run build figure value"; every run: "build run started_utc seconds ok|failed"
touch "$OUT/figures.txt" "$OUT/runs.txt"
read -r -a specs <<< "$BUILDS"
names=(); declare -A DIR
for spec in "${specs[@]}"; do
  name=${spec%%=*}
  [ "$name" != "$spec" ] && [[ "$name" =~ ^[A-Za-z0-9_]+$ ]] || { echo "$0: '$spec' is not name=DIR" >&2; exit 1; }
  DIR[$name]=$(cd "${spec#*=}" && pwd) || { echo "$0: no directory ${spec#*=}" >&2; exit 1; }
  [ -f "${DIR[$name]}/target/keypool.jar" ] || { echo "$0: no ${DIR[$name]}/target/keypool.jar: package that build first" >&2; exit 1; }
  names+=("$name")
done
n=${#names[@]}
runs_of() { awk -v b="$1" '$1 == b' "$OUT/runs.txt" | wc -l; }
turned=$(runs_of "${names[0]}")
echo "$BENCH: builds ${BUILDS}; $RUNS run(s) each in this call, $(date -u +%Y-%m-%dT%H:%M:%SZ), load average $(cut -d' ' -f1-3 /proc/loadavg); $OUT"
# quota-cost: one call of bench/builds.sh alternates all the gateways round by round; a round is a run of each build
if [ "$BENCH" = quota-cost ] && [ "$RUNS" -gt 0 ]; then
  rpm=$(sed -n 's/^ *rpm: \([0-9]*\)$/\1/p' "$BENCH_DIR/keypool-quota.yaml" | head -1)
  sed "/^ *rpm: $rpm\$/d" "$BENCH_DIR/keypool-quota.yaml" > "$OUT/quota-none.yaml"
  sed "s/^\( *\)rpm: $rpm\$/\1rpm: 1000000000\n\1tpm: 1000000000/" "$BENCH_DIR/keypool-quota.yaml" > "$OUT/quota-limits.yaml"
  gateways=""
  for name in "${names[@]}"; do
    gateways="$gateways ${name}_none=${DIR[$name]}:$OUT/quota-none.yaml ${name}_limits=${DIR[$name]}:$OUT/quota-limits.yaml"
  done
  call=$(( $(runs_of "${names[0]}") + 1 ))
  started=$(date +%s)
  BUILDS=$gateways ROUNDS=$RUNS BENCH_OUT=$OUT/builds-$call "$BENCH_DIR/builds.sh" > "$OUT/builds-$call.log" 2>&1 \
    || { echo "bench/builds.sh FAILED ($OUT/builds-$call.log):"; tail -5 "$OUT/builds-$call.log"; }
  for name in "${names[@]}"; do
    first=$(runs_of "$name")
    # cells.txt: "round cell gateway µs/request ÷direct added_p50_ms added_p99_ms"
    awk -v b="$name" -v first="$first" '$3 == b "_none" || $3 == b "_limits" { k = $1 " " $2; v[k " " substr($3, length(b) + 2)] = $0; r[$1] = 1; c[$2] = 1 }
      END { for (i in r) for (j in c) { n = v[i " " j " none"]; l = v[i " " j " limits"]; if (n == "" || l == "") continue
              split(n, a, " "); split(l, z, " ")
              printf "%d %s quota_cost_cpu_us_%s %.1f\n", first + i, b, j, z[4] - a[4]
              if (j ~ /^lat1/) printf "%d %s quota_cost_added_p50_ms_%s %.3f\n", first + i, b, j, z[6] - a[6] } }' \
      "$OUT/builds-$call/cells.txt" | sort -n >> "$OUT/figures.txt"
    for i in $(seq 1 "$RUNS"); do echo "$name $((first + i)) $(date -u -d "@$started" +%H:%M:%S) $(( $(date +%s) - started )) ok" >> "$OUT/runs.txt"; done
  done
  RUNS=0
fi
for run in $(seq 1 "$RUNS"); do
  for k in $(seq 0 $((n - 1))); do
    name=${names[$(( (k + turned + run - 1) % n ))]}
    idx=$(( $(runs_of "$name") + 1 ))
    dir=$OUT/$name-$idx
    started=$(date +%s)
    rm -rf "$dir"
    if KEYPOOL_HOME=${DIR[$name]} BENCH_OUT=$dir "$BENCH_DIR/${script[0]}" "${script[@]:1}" > "$OUT/$name-$idx.log" 2>&1 \
        && [ -s "$dir/figures.txt" ]; then
      awk -v r="$idx" -v b="$name" 'NF == 2 {print r, b, $1, $2}' "$dir/figures.txt" >> "$OUT/figures.txt"
      echo "$name $idx $(date -u -d "@$started" +%H:%M:%S) $(( $(date +%s) - started )) ok" >> "$OUT/runs.txt"
      echo "$name run $idx: $(( $(date +%s) - started )) s; $(tr '\n' ' ' < "$dir/figures.txt")"
    else
      echo "$name $idx $(date -u -d "@$started" +%H:%M:%S) $(( $(date +%s) - started )) failed" >> "$OUT/runs.txt"
      echo "$name run $idx FAILED after $(( $(date +%s) - started )) s ($OUT/$name-$idx.log):"; tail -5 "$OUT/$name-$idx.log"
    fi
  done
done
# per figure and build: median (lowest-highest, runs); each build against the first of BUILDS
node -e '
  const fs = require("fs"), [file, runsFile, order] = process.argv.slice(1);
  const rows = fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean)
    .map(l => { const [r, b, f, v] = l.split(" "); return { r: +r, b, f, v: +v }; });
  const when = fs.readFileSync(runsFile, "utf8").trim().split("\n").filter(l => l.endsWith(" ok")).map(l => l.split(" ")[2]).sort();
  const builds = [...new Set([...order.split(" "), ...rows.map(x => x.b)])].filter(b => rows.some(x => x.b === b));
  const med = a => { const s = [...a].sort((x, y) => x - y), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const num = x => +x.toFixed(4);
  console.log(`\n${builds.map(b => `${b} ${new Set(rows.filter(x => x.b === b).map(x => x.r)).size} runs`).join(", ")}, ${when[0]}-${when[when.length - 1]} UTC (run starts)`);
  const against = builds.length > 1;
  console.log(`| figure | ${builds.map(b => b + ": median (lowest-highest)").join(" | ")} |` +
    (against ? ` ${builds.slice(1).map(b => b + " - " + builds[0]).join(" | ")} | within the spread |` : ""));
  console.log(`|---|${builds.map(() => "---|").join("")}` + (against ? `${builds.slice(1).map(() => "---|").join("")}---|` : ""));
  for (const f of [...new Set(rows.map(x => x.f))]) {
    const v = Object.fromEntries(builds.map(b => [b, rows.filter(x => x.f === f && x.b === b).map(x => x.v)]));
    const cell = a => a.length ? `${num(med(a))} (${num(Math.min(...a))}-${num(Math.max(...a))})` : "-";
    const ref = v[builds[0]];
    const verdicts = builds.slice(1).map(b => {
      const a = v[b];
      if (!a.length || !ref.length) return "-";
      const d = med(a) - med(ref), spread = Math.max(Math.max(...a) - Math.min(...a), Math.max(...ref) - Math.min(...ref));
      if (d === 0) return "yes (same)";
      if (a.length < 2 && ref.length < 2) return "one run each: no spread";
      return Math.abs(d) <= spread ? "yes" : `NO: ${d > 0 ? "higher" : "lower"} by ${num(Math.abs(d) - spread)} past the spread`;
    });
    const diffs = builds.slice(1).map(b => v[b].length && ref.length ? (med(v[b]) - med(ref) >= 0 ? "+" : "") + num(med(v[b]) - med(ref)) : "-");
    console.log(`| ${f} | ${builds.map(b => cell(v[b])).join(" | ")} |` + (against ? ` ${diffs.join(" | ")} | ${verdicts.join("; ")} |` : ""));
  }' "$OUT/figures.txt" "$OUT/runs.txt" "${names[*]}" | tee "$OUT/summary.txt"
echo "summary: $OUT/summary.txt"
exit 0
}
