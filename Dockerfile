# KeyPool image: build the jar with Maven, run it on a JRE as a non-root user.
# routes/, application.properties and keypool.yaml live in /app and can be mounted over:
#   docker run -p 8080:8080 -v $PWD/keypool.yaml:/app/keypool.yaml -v $PWD/routes:/app/routes keypool
# HTTPS on the same port (docs/operations.md, "TLS"): a PKCS12 key store readable by the keypool user, its password in
# the environment:
#   docker run -p 8080:8080 -v $PWD/tls.p12:/app/tls.p12:ro -e KEYPOOL_TLS=true -e KEYPOOL_TLS_KEY_STORE=/app/tls.p12 \
#              -e KEYPOOL_TLS_PASSWORD keypool

FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
COPY pom.xml .
# dependencies and plugins in a layer of their own (go-offline would fail: it also resolves Netty's optional
# native artifacts, whose classifier is an unset ${os.detected.*} property)
RUN mvn -B -ntp -q dependency:resolve dependency:resolve-plugins
COPY src src
# the jar carries the route files and the settings' defaults too (pom.xml: for applications that embed KeyPool)
COPY routes routes
COPY application.properties .
# no AOT cache here: the runtime stage below makes it on the JVM that will use it
RUN mvn -B -ntp -q package -DskipTests -Daot.skip=true

# Temurin 25: ~0.1 ms less added latency per request than Java 17 on the same jar (docs/decisions.md, "Temurin 25")
FROM eclipse-temurin:25-jre
RUN groupadd --system keypool && useradd --system --gid keypool --home /app keypool
WORKDIR /app
COPY --from=build /src/target/keypool.jar /app/target/keypool.jar
COPY --from=build /src/target/lib /app/target/lib
COPY routes /app/routes
COPY application.properties keypool.yaml /app/
# state.dir (quota counts that outlive a restart): writable by the service; mount a volume here to keep it across containers
RUN mkdir /app/state && chown keypool:keypool /app/state
# the JVM flags, kept here alone (bench/ reads them from this line; deploy/ and the README repeat them, DeployFilesTest
# checks): the heap and GC that hold 10,000 requests in flight at a peak RSS of ~505 MiB and keep the throughput
# (bench/README.md, inflight10k and "Where the memory is"):
# a fixed 320 MiB heap (keypool.max-in-flight is sized from it: ~25 KiB per request, 10,354 here)
# with a 32 MiB young generation, so that the old one (288 MiB) holds the ~235 MB that 9,800 streams keep alive; Parallel GC
# with 2 threads halves the young pauses that Serial took at thousands of requests a second (256 connections at 50 ms:
# 0.94 x the direct rate, against 0.76 with Serial). The JVM outside the heap holds ~140 MB (NMT: classes, JIT code,
# GC tables) and its RSS at a burst's peak ~190 MiB: TrimNativeHeapInterval
# gives back to the OS the malloc memory the JIT frees (~12 MiB), compact object headers (Java 25) cut 8% of the heap
# per request. The last flag lets Netty keep using sun.misc.Unsafe on Java 24+ without a warning
ENV JAVA_OPTS="-Xmx320m -Xmn32m -XX:+UseParallelGC -XX:ParallelGCThreads=2 -XX:TrimNativeHeapInterval=2000 -XX:+UseCompactObjectHeaders --sun-misc-unsafe-memory-access=allow"
# the AOT cache (docs/decisions.md, "The AOT cache"): a training run of this jar on this image's JVM with JAVA_OPTS
# above, through the whole request path (deploy/aot-cache.sh). It holds only for this JVM, this jar and its lib/, and
# these flags: a JAVA_OPTS that changes what it depends on (compact object headers; ZGC, which it cannot serve) makes
# the JVM refuse it with a warning and start without it. AOT_OPTS= (empty) starts without it
COPY deploy/aot-cache.sh /app/deploy/aot-cache.sh
RUN bash deploy/aot-cache.sh target/keypool.aot
ENV AOT_OPTS="-XX:AOTCache=/app/target/keypool.aot"
USER keypool
EXPOSE 8080
ENTRYPOINT ["sh", "-c", "exec java $AOT_OPTS $JAVA_OPTS -jar /app/target/keypool.jar"]
