# The JVM flags KeyPool ships with, from the one place that holds them: the Dockerfile's ENV JAVA_OPTS (the image runs
# them; deploy/ and the README repeat them, and DeployFilesTest fails when they drift). Sourced by lib.sh, abuse.sh
# and cluster.sh after they set BENCH_DIR.
#
#   shipped_java_opts FEATURE    the flags for a JVM of that feature version (17, 21, 25...), less those it does not
#                                know: compact object headers before 25, the Unsafe switch before 24
shipped_java_opts() {
  local feature=${1%%.*} opts
  opts=$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$BENCH_DIR/../Dockerfile")
  [ -n "$opts" ] || { echo "no ENV JAVA_OPTS=\"...\" in $BENCH_DIR/../Dockerfile" >&2; return 1; }
  [ "$feature" -ge 25 ] 2>/dev/null || opts=${opts//-XX:+UseCompactObjectHeaders/}
  [ "$feature" -ge 24 ] 2>/dev/null || opts=${opts//--sun-misc-unsafe-memory-access=allow/}
  # shellcheck disable=SC2086  # one line, single spaces
  echo $opts
}
