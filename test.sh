#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: ./test.sh (as root, or with sudo). CI runs exactly this (.ci/run).
# 1. Installs with apt what the slow tests start when a command is missing: redis-server, chromium and chromedriver
#    (DashboardBrowserTest), nginx and PostgreSQL; apt is not touched when all of them are there.
# 2. Picks the JDK: JAVA_HOME when set, else Temurin 25 where the machine has it (the runtime we measure and ship),
#    else the machine's default java (17 or newer).
# 3. mvn -B -ntp verify: unit and in-process tests (Surefire), the jar, then the @Tag("slow") tests (Failsafe).
#    The jar's AOT cache (Java 25, a training run of a minute or more) is left out: AotCacheTest makes its own.
# Arguments go to Maven as they are, e.g. ./test.sh -o, or ./test.sh -Dit.test=RedisLinkTest.
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
# nginx lives in /usr/sbin, outside a non-root PATH
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
# Debian's server binaries sit in /usr/lib/postgresql/<version>/bin, never on the PATH
compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=(postgresql)
command -v mvn >/dev/null || missing+=(maven)
if [ -z "${JAVA_HOME:-}" ] && ! command -v javac >/dev/null; then missing+=(default-jdk-headless); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}"
  $SUDO apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

TEMURIN_25=/usr/lib/jvm/temurin-25-jdk-amd64
if [ -z "${JAVA_HOME:-}" ] && [ -x "$TEMURIN_25/bin/java" ]; then
  export JAVA_HOME=$TEMURIN_25
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
# "17.0.15" or "25.0.3" -> 17 or 25
feature=$("$JAVA" -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -1)
if [ "${feature:-0}" -ge 24 ]; then
  # Maven's own Guava on Java 24+ warns about sun.misc.Unsafe at every start
  export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
echo "test.sh: Java $feature (${JAVA_HOME:-default java})"
exec mvn -B -ntp verify -Daot.skip=true "$@"
