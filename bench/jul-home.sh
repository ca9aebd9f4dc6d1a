#!/usr/bin/env bash
# A home for coldstart.sh's COLD_HOME_<name> whose gateway logs through java.util.logging instead of log4j: what log4j
# costs a start, with nothing else changed.
#
#   bench/jul-home.sh DIR       (run from the repository after mvn package, under the build lock: its training run
#                               is a start of the gateway)
#   ROUNDS=6 BURST_N=0 VARIANTS="aot jul" COLD_HOME_jul=DIR \
#     COLD_FLAGS_jul="-Djava.util.logging.config.file=DIR/logging.properties" bench/coldstart.sh
#
# DIR gets target/keypool.jar as built, and a copy of target/lib in which log4j-slf4j2-impl's file holds slf4j's JDK
# logging binding (org.slf4j:slf4j-jdk14 of the slf4j-api version in lib/, from the local Maven repository) and
# log4j-api's and log4j-core's files are left out: the jar's manifest names its class path, so the binding takes the
# name of the one it replaces and a missing entry is skipped. Beside them a logging.properties with log4j2.properties'
# levels and a line of the same shape (java.util.logging's SimpleFormatter has no thread name), application.properties
# and routes/ copied, and the AOT cache of that jar and lib/ from the build's training run (deploy/aot-cache.sh) with
# the same logging.properties. SLF4J_BINDING=slf4j-nop puts slf4j's no-op binding there instead: a start that logs
# nothing, the most any logging can give. A measuring tool, not a way to ship: java.util.logging's LogManager closes
# its handlers in a shutdown hook of its own, so the lines of a graceful stop are lost.
set -euo pipefail
{
[ $# -eq 1 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
ROOT=$(pwd)
HOME_DIR=$(mkdir -p "$1" && cd "$1" && pwd)
die() { echo "jul-home: $*" >&2; exit 1; }
[ -f "$ROOT/target/keypool.jar" ] && [ -d "$ROOT/target/lib" ] \
  || die "no target/keypool.jar and target/lib: mvn -B -q package -DskipTests first"
slf4j_api=$(ls "$ROOT"/target/lib/slf4j-api-*.jar 2>/dev/null | head -1)
[ -n "$slf4j_api" ] || die "no slf4j-api in target/lib"
version=$(basename "$slf4j_api" .jar)
version=${version#slf4j-api-}
artifact=${SLF4J_BINDING:-slf4j-jdk14}
binding=${MAVEN_REPO:-$HOME/.m2/repository}/org/slf4j/$artifact/$version/$artifact-$version.jar
[ -f "$binding" ] || die "no $binding: mvn dependency:get -Dartifact=org.slf4j:$artifact:$version -Dtransitive=false"
impl=$(ls "$ROOT"/target/lib/log4j-slf4j2-impl-*.jar 2>/dev/null | head -1)
[ -n "$impl" ] || die "no log4j-slf4j2-impl in target/lib"

rm -rf "$HOME_DIR/target" "$HOME_DIR/routes"
mkdir -p "$HOME_DIR/target"
cp -p "$ROOT/target/keypool.jar" "$HOME_DIR/target/"
cp -rp "$ROOT/target/lib" "$HOME_DIR/target/"
rm -f "$HOME_DIR"/target/lib/log4j-api-*.jar "$HOME_DIR"/target/lib/log4j-core-*.jar
cp "$binding" "$HOME_DIR/target/lib/$(basename "$impl")"
cp "$ROOT/application.properties" "$HOME_DIR/"
# a copy, not a link: Camel's file: resolver does not list a linked directory's files
cp -r "$ROOT/routes" "$HOME_DIR/"
cat > "$HOME_DIR/logging.properties" << 'EOF'
# java.util.logging with log4j2.properties' levels, a line of the same shape (the logger's whole name, no thread)
handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = ALL
java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
java.util.logging.SimpleFormatter.format = %1$tH:%1$tM:%1$tS.%1$tL %4$-7s %3$s - %5$s%6$s%n
org.apache.camel.processor.errorhandler.level = WARNING
io.vertx.ext.web.RoutingContext.level = OFF
org.flywaydb.level = WARNING
com.zaxxer.hikari.level = WARNING
org.apache.camel.component.platform.http.main.MainHttpServerUtil.level = WARNING
EOF
echo "jul-home: $HOME_DIR with $(basename "$binding") as $(basename "$impl"), without log4j-api and log4j-core"
# the training run with the flags the gateway runs with (the Dockerfile's, as deploy/aot-cache.sh reads them) and the
# logging configuration the starts will use
JAVA_OPTS="$(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/Dockerfile")"
JAVA_OPTS="$JAVA_OPTS -Djava.util.logging.config.file=$HOME_DIR/logging.properties"
export JAVA_OPTS
(cd "$HOME_DIR" && bash "$ROOT/deploy/aot-cache.sh" target/keypool.aot)
exit 0
}
