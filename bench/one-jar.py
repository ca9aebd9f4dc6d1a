#!/usr/bin/env python3
"""The gateway as one jar, to measure what the class path of 135 jars costs a start.

    bench/one-jar.py DIR        (run from the repository, after mvn package: target/keypool.jar and target/lib)

Makes DIR a home for bench/coldstart.sh's COLD_HOME_<variant>: DIR/target/keypool.jar holds target/keypool.jar and
every jar its manifest's Class-Path names, in that order (the first copy of an entry wins, as on the class path; the
ServiceLoader files under META-INF/services/ that several jars have are joined, Camel's TypeConverterLoader list among
them; jar signatures and module-info.class left out; Multi-Release kept), DIR/target/lib empty, application.properties
and routes/ copied; then the AOT cache of that jar from the same training run as the build's (deploy/aot-cache.sh).
A measuring tool, not a way to ship: which of Camel's per-jar property files (component.properties and its like)
each jar keeps is not merged.

    bench/one-jar.py /tmp/onejar
    ROUNDS=6 BURST_N=0 VARIANTS="aot onejar" COLD_HOME_onejar=/tmp/onejar bench/coldstart.sh
"""
import os
import re
import shutil
import subprocess
import sys
import zipfile

SIGNATURE = re.compile(r"META-INF/[^/]+\.(SF|RSA|DSA|EC)$")
SKIPPED = {"META-INF/MANIFEST.MF", "META-INF/INDEX.LIST", "module-info.class"}


def class_path(jar):
    manifest = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode()
    unfolded = re.sub(r"\r?\n ", "", manifest)
    entries = re.search(r"^Class-Path: (.*)$", unfolded, re.M)
    base = os.path.dirname(jar)
    return [jar] + ([os.path.join(base, p) for p in entries.group(1).split()] if entries else [])


def merge(jars, out, main_class):
    content, order, multi_release = {}, [], False
    for jar in jars:
        with zipfile.ZipFile(jar) as z:
            if "META-INF/MANIFEST.MF" in z.namelist():
                multi_release |= "Multi-Release: true" in z.read("META-INF/MANIFEST.MF").decode(errors="replace")
            for info in z.infolist():
                name = info.filename
                if name in SKIPPED or SIGNATURE.match(name):
                    continue
                if name.endswith("/"):
                    if name not in content:
                        content[name] = None
                        order.append(name)
                    continue
                data = z.read(name)
                if name not in content:
                    content[name] = data
                    order.append(name)
                elif name.startswith("META-INF/services/") and not name.endswith(".properties"):
                    content[name] = content[name].rstrip(b"\n") + b"\n" + data
    manifest = ["Manifest-Version: 1.0", f"Main-Class: {main_class}", "Enable-Native-Access: ALL-UNNAMED"]
    if multi_release:
        manifest.append("Multi-Release: true")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        z.writestr("META-INF/MANIFEST.MF", "\r\n".join(manifest) + "\r\n\r\n")
        for name in order:
            if content[name] is None:
                z.writestr(zipfile.ZipInfo(name), b"")
            else:
                z.writestr(name, content[name])
    return len(order)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    home = os.path.abspath(sys.argv[1])
    root = os.getcwd()
    jar = os.path.join(root, "target", "keypool.jar")
    if not os.path.isfile(jar):
        sys.exit(f"no {jar}: mvn -B -q package -DskipTests first")
    manifest = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode()
    main_class = re.search(r"^Main-Class: (\S+)", manifest, re.M).group(1)
    os.makedirs(os.path.join(home, "target", "lib"), exist_ok=True)
    jars = class_path(jar)
    entries = merge(jars, os.path.join(home, "target", "keypool.jar"), main_class)
    print(f"one-jar: {len(jars)} jars, {entries} entries in {home}/target/keypool.jar")
    shutil.copy(os.path.join(root, "application.properties"), home)
    shutil.rmtree(os.path.join(home, "routes"), ignore_errors=True)
    # a copy, not a link: Camel's file: resolver does not list a linked directory's files
    shutil.copytree(os.path.join(root, "routes"), os.path.join(home, "routes"))
    cache = os.path.join(home, "target", "keypool.aot")
    if os.path.exists(cache):
        os.remove(cache)
    subprocess.run(["bash", os.path.join(root, "deploy", "aot-cache.sh"), "target/keypool.aot"], cwd=home, check=True)


if __name__ == "__main__":
    main()
