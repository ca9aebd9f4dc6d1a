#!/usr/bin/env python3
"""Bytes allocated per request by site, from async-profiler's collapsed stacks weighed in bytes
(bench/builds.sh with PROFILE_EVENT=alloc writes them, and the requests each run answered in alloc.txt).

  python3 bench/alloc-sites.py PROFILE.collapsed REQUESTS [TOP]

Prints the bytes per request three ways: by the class allocated, by the method that allocated it (the frame under the
class), and by the first frame of KeyPool, Camel, Vert.x, Netty or Jackson seen from the allocation up (which library's
code asked for the memory)."""
import collections
import sys

OWNERS = ("dev/keypool/", "org/apache/camel/", "io/vertx/", "io/netty/", "com/fasterxml/")


def owner(frames):
    for f in reversed(frames):
        if f.startswith(OWNERS):
            return f
    return frames[-1] if frames else "?"


def main():
    path, requests = sys.argv[1], float(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    by_class, by_site, by_owner = collections.Counter(), collections.Counter(), collections.Counter()
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            allocated = frames[-1].rsplit("_[", 1)[0]
            code = frames[:-1]
            b = int(weight)
            total += b
            by_class[allocated] += b
            by_site[(allocated, code[-1] if code else "?")] += b
            by_owner[owner(code)] += b
    print(f"{total / requests:,.0f} bytes per request over {requests:,.0f} requests")
    for title, counter in (("by class", by_class), ("by allocating method", by_site), ("by first frame of a library", by_owner)):
        print(f"\n{title}:")
        for key, b in counter.most_common(top):
            name = " <- ".join(key) if isinstance(key, tuple) else key
            print(f"{b / requests:9,.0f}  {100 * b / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()
