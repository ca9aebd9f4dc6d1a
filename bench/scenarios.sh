#!/usr/bin/env bash
# The design's four load scenarios, each printing its figures:
#   1. normal         baseline RPS and p99 (wrk, 64 connections, upstream 50 ms)
#   2. hot model      every request the same model: the spread of the calls over the channel's 8 keys (max/min)
#   3. fault          a fault injected over POST /admin/faults on one key: time to the key's removal, requests failed
#                     meanwhile (target 0), time from the fault's end to the key's re-admission by a health probe
#   4. overload       2x the keys' rpm offered open loop: the share refused with 429 quota_exhausted, and the
#                     upstream's peak rate (never over the keys' limits: the fake enforces them too and counts refusals)
#
#   bench/scenarios.sh        (= bench/run.sh scenarios with bench/keypool-scenarios.yaml; ~4 minutes)
#
# Same prerequisites and knobs as bench/run.sh (JAVA_HOME, KEYPOOL_JAVA_OPTS, JIT_WARMUP, SCEN_* ...); the JIT
# warm-up defaults to 30 s here.
set -euo pipefail
export JIT_WARMUP=${JIT_WARMUP:-30}
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/run.sh" scenarios "$@"
