#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""flip-frames.py IN.pcap OUT.pcap [MAX] - a lossy link's capture: every
compressed frame of IN (IPv4 protocol 253, docs/wire-format.md) is written
as it is and then as copies with one bit flipped: in the shim's tag-word
sum, in the shim's magic, in the middle of the stream, and in the last
tail byte when there is a tail. Other frames are copied. At most MAX
compressed frames (default 40) get flipped copies. Prints how many copies
it wrote per place."""
import struct
import sys


def read_pcap(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        e = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        e = '>'
    else:
        sys.exit('flip-frames: %s: not a pcap file' % path)
    recs, off = [], 24
    while off + 16 <= len(data):
        ts, us, cap, ln = struct.unpack(e + 'IIII', data[off:off + 16])
        recs.append((ts, us, ln, bytearray(data[off + 16:off + 16 + cap])))
        off += 16 + cap
    return data[:24], e, recs


def layout(fr):
    """(P, S, T) of a compressed frame, else None."""
    l3 = 14
    if len(fr) < 18:
        return None
    et = fr[12] << 8 | fr[13]
    if et == 0x8100:
        l3 = 18
        et = fr[16] << 8 | fr[17]
    if et != 0x0800 or len(fr) < l3 + 20 or fr[l3] >> 4 != 4 or fr[l3 + 9] != 253:
        return None
    ihl = (fr[l3] & 15) * 4
    total = fr[l3 + 2] << 8 | fr[l3 + 3]
    l4 = l3 + ihl
    if len(fr) < l4 + 20 or len(fr) < l3 + total:
        return None
    thl = (fr[l4 + 12] >> 4) * 4
    p = l4 + thl
    if p + 6 > l3 + total or fr[p] != 0x49:
        return None
    ln = fr[p + 2] << 8 | fr[p + 3]
    t = ln % 4
    s = l3 + total - p - 6 - t
    if s <= 0:
        return None
    return p, s, t


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: flip-frames.py IN.pcap OUT.pcap [MAX]')
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    head, e, recs = read_pcap(sys.argv[1])
    out, n, counts = [], 0, {'shim_sum': 0, 'shim_magic': 0, 'stream': 0, 'tail': 0}
    for ts, us, ln, fr in recs:
        out.append((ts, us, ln, fr))
        lay = layout(fr) if len(fr) == ln else None
        if lay is None or n >= limit:
            continue
        n += 1
        p, s, t = lay
        flips = [('shim_sum', p + 5, 0x01), ('shim_magic', p, 0x10),
                 ('stream', p + 6 + s // 2, 1 << (n % 8))]
        if t:
            flips.append(('tail', p + 6 + s + t - 1, 0x80))
        for name, at, bit in flips:
            g = bytearray(fr)
            g[at] ^= bit
            out.append((ts, us, ln, g))
            counts[name] += 1
    with open(sys.argv[2], 'wb') as f:
        f.write(head)
        for ts, us, ln, fr in out:
            f.write(struct.pack(e + 'IIII', ts, us, len(fr), ln))
            f.write(fr)
    print('flip-frames: %d compressed frames, copies: %s' %
          (n, ', '.join('%s %d' % kv for kv in counts.items())))


main()
