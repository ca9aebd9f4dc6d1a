#!/usr/bin/env python3
# What the requests in flight hold, from a heap dump taken while N of them were held (jcmd <pid> GC.heap_dump FILE
# during bench/run.sh's held streams or a burst): shallow bytes per request by class, by (class <- the object that
# refers to it <- the one that refers to that), byte arrays by size and holder, and the longer chains of the classes
# named in CLASSES. Each object is counted under one holder, the first the dump names: a picture of who keeps what,
# not a dominator tree (Eclipse MAT gives one; this needs nothing but Python). Sizes are the dump's: references of 8
# bytes and a 16-byte header each, larger than in a JVM with compressed references and compact headers.
#
#   python3 bench/heap-holders.py DUMP N [TOP] [CLASSES]      e.g. ... heap.hprof 3000 80 'byte[],java.util.EnumMap'
import sys, struct, mmap, collections

path, n = sys.argv[1], float(sys.argv[2])
top = int(sys.argv[3]) if len(sys.argv) > 3 else 80
f = open(path, 'rb'); m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
hdr_end = m.find(b'\0') + 1
idsize = struct.unpack('>I', m[hdr_end:hdr_end + 4])[0]
pos = hdr_end + 12
ID = '>Q' if idsize == 8 else '>I'
def rid(p): return struct.unpack_from(ID, m, p)[0]
TSIZE = {2: idsize, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
PRIM = {4: 'boolean', 5: 'char', 6: 'float', 7: 'double', 8: 'byte', 9: 'short', 10: 'int', 11: 'long'}
strings = {}; classname = {}; supers = {}; fields = {}; isize = {}
objclass = {}; objsize = {}; parent = {}
pending = []  # (obj, class, data offset, len) for instances, resolved after all class dumps
arrays = []   # (obj, offset, count)
end = len(m)
while pos < end:
    tag = m[pos]; length = struct.unpack_from('>I', m, pos + 5)[0]; body = pos + 9; pos = body + length
    if tag == 0x01:
        strings[rid(body)] = m[body + idsize:body + length].decode('utf-8', 'replace')
    elif tag == 0x02:
        classname[rid(body + 4)] = rid(body + 8 + idsize)
    elif tag in (0x0C, 0x1C):
        p = body; e = body + length
        while p < e:
            st = m[p]; p += 1
            if st == 0xFF: p += idsize
            elif st == 0x01: p += 2 * idsize
            elif st in (0x02, 0x03): p += idsize + 8
            elif st in (0x04, 0x06): p += idsize + 4
            elif st in (0x05, 0x07): p += idsize
            elif st == 0x08: p += idsize + 8
            elif st == 0x20:
                cid = rid(p); sup = rid(p + 4 + idsize); p += 4 + 7 * idsize
                isize[cid] = struct.unpack_from('>I', m, p)[0]; p += 4
                cp = struct.unpack_from('>H', m, p)[0]; p += 2
                for _ in range(cp):
                    t = m[p + 2]; p += 3 + TSIZE[t]
                sc = struct.unpack_from('>H', m, p)[0]; p += 2
                for _ in range(sc):
                    t = m[p + idsize]; p += idsize + 1 + TSIZE[t]
                fc = struct.unpack_from('>H', m, p)[0]; p += 2
                fl = []
                for _ in range(fc):
                    fl.append(m[p + idsize]); p += idsize + 1
                supers[cid] = sup; fields[cid] = fl
            elif st == 0x21:
                oid = rid(p); cid = rid(p + 4 + idsize); ln = struct.unpack_from('>I', m, p + 4 + 2 * idsize)[0]
                d = p + 8 + 2 * idsize
                objclass[oid] = cid; objsize[oid] = ln
                pending.append((oid, cid, d)); p = d + ln
            elif st == 0x22:
                oid = rid(p); cnt = struct.unpack_from('>I', m, p + 4 + idsize)[0]; acid = rid(p + 8 + idsize)
                d = p + 8 + 2 * idsize
                objclass[oid] = acid; objsize[oid] = cnt * idsize
                arrays.append((oid, d, cnt)); p = d + cnt * idsize
            elif st == 0x23:
                oid = rid(p); cnt = struct.unpack_from('>I', m, p + 4 + idsize)[0]; t = m[p + 8 + idsize]
                objclass[oid] = 'prim:' + PRIM[t]; objsize[oid] = cnt * TSIZE[t]
                p += 9 + idsize + cnt * TSIZE[t]
            else:
                raise SystemExit('unknown sub-record %x at %d' % (st, p))
def cname(c):
    if isinstance(c, str): return c[5:] + '[]'
    return strings.get(classname.get(c), '?%x' % c).replace('/', '.')
layout = {}
def refs_of(cid):
    if cid in layout: return layout[cid]
    offs = []; off = 0; c = cid
    while c and c in fields:
        for t in fields[c]:
            if t == 2: offs.append(off)
            off += TSIZE[t]
        c = supers.get(c)
    layout[cid] = offs; return offs
for oid, cid, d in pending:
    for o in refs_of(cid):
        r = rid(d + o)
        if r and r not in parent: parent[r] = oid
for oid, d, cnt in arrays:
    for i in range(cnt):
        r = rid(d + i * idsize)
        if r and r not in parent: parent[r] = oid
def cls(o):
    c = objclass.get(o)
    return cname(c) if c is not None else '-'
groups = collections.Counter(); counts = collections.Counter()
by_class = collections.Counter()
bsizes = collections.Counter()
for o, c in objclass.items():
    s = objsize[o] + 16
    p1 = parent.get(o); p2 = parent.get(p1) if p1 else None
    k = (cls(o), cls(p1) if p1 else 'root', cls(p2) if p2 else 'root')
    groups[k] += s; counts[k] += 1; by_class[cls(o)] += s
    if c == 'prim:byte':
        b = objsize[o]
        bk = '<=32' if b <= 32 else '<=128' if b <= 128 else '<=512' if b <= 512 else '<=1024' if b <= 1024 else '<=4096' if b <= 4096 else '>4096'
        bsizes[(bk, cls(p1) if p1 else 'root')] += s
print('objects %d, bytes %.1f MB (shallow, +16 B header each)' % (len(objclass), sum(by_class.values()) / 1e6))
print('--- by class, per request'); 
for k, v in by_class.most_common(40): print('%8.0f  %s' % (v / n, k))
print('--- by (class <- referrer <- its referrer), per request')
for k, v in groups.most_common(top): print('%8.0f %6.2f  %s <- %s <- %s' % (v / n, counts[k] / n, *k))
print('--- byte[] by size and referrer, per request')
for k, v in bsizes.most_common(30): print('%8.0f  %s %s' % (v / n, *k))
print('--- deeper chains of chosen classes')
want = set(sys.argv[4].split(',')) if len(sys.argv) > 4 else set()
chains = collections.Counter(); sizes = collections.Counter()
for o, c in objclass.items():
    k0 = cls(o)
    if k0 not in want: continue
    chain = [k0 + ('(%d)' % objsize[o] if c == 'prim:byte' and objsize[o] > 256 else '')]
    p = parent.get(o)
    for _ in range(6):
        if not p: break
        chain.append(cls(p).split('.')[-1]); p = parent.get(p)
    chains[' <- '.join(chain)] += objsize[o] + 16
for k, v in chains.most_common(60): print('%8.0f  %s' % (v / n, k))
