#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""timing-test.py - unit tests of the clock estimate (scripts/timing.py) on
small hand-made netlists in Yosys JSON form, each expected delay written out
from the delay table (synth/xc7-2-delays.txt) by hand:
  - a chain of four LUTs between two flip-flops;
  - a 32-bit adder (two 32-bit registers, a LUT2 per bit, eight CARRY4 on
    the dedicated chain, a result register);
  - block RAM to flip-flop and flip-flop to block RAM address;
  - LUT6 into MUXF7 into MUXF8 (dedicated links, no routing);
  - the worst path's cells, LUT levels and end point order; a
    combinational loop refused.
Last line "N passed, N failed".
"""
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

D = timing.load_delays(timing.DEFAULT_DELAYS)
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s" % what)


class Build:
    """A tiny netlist under construction: bits are ints from 2 up."""

    def __init__(self):
        self.cells, self.next = {}, 2

    def bit(self):
        self.next += 1
        return self.next

    def cell(self, name, typ, ins, outs):
        conns, dirs = {}, {}
        for p, bits in ins.items():
            conns[p], dirs[p] = bits, "input"
        for p, bits in outs.items():
            conns[p], dirs[p] = bits, "output"
        self.cells[name] = {"type": typ, "connections": conns, "port_directions": dirs,
                            "attributes": {"src": "test.v:%d" % (len(self.cells) + 1)}}

    def ff(self, name, d, clk=2):
        q = self.bit()
        self.cell(name, "FDRE", {"C": [clk], "CE": ["1"], "R": ["0"], "D": [d]}, {"Q": [q]})
        return q

    def doc(self):
        return {"modules": {"t": {"attributes": {"top": 1},
                                  "ports": {"clk": {"direction": "input", "bits": [2]}},
                                  "cells": self.cells, "netnames": {}}}}


def worst(b):
    out = io.StringIO()
    w = timing.analyse(b.doc(), None, D, out=out)
    return w, out.getvalue()


def close(a, b):
    return abs(a - b) < 1e-9


# 1. four LUTs between two flip-flops
b = Build()
x = b.ff("src", b.bit())
for k in range(4):
    y = b.bit()
    b.cell("lut%d" % k, "LUT1", {"I0": [x]}, {"O": [y]})
    x = y
b.ff("dst", x)
want = D["ff_clk_to_q"] + 4 * (D["net_hop"] + D["lut"]) + D["net_hop"] + D["ff_setup_d"]
w, text = worst(b)
check(close(w, want), "4-LUT chain: %.4f ns, expected %.4f" % (w, want))
check("4 LUT levels" in text, "4-LUT chain: LUT levels reported\n" + text)
check("(dst).D[0]" in text.split("worst path (")[1].split("\n")[0],
      "4-LUT chain: end point named")
tm = timing.Timer(timing.Netlist(b.doc(), None), D, D["net_hop"])
eps = tm.endpoints()
path = [r[0] for r in tm.path(eps[0][2])]
check(path == ["src", "lut0", "lut1", "lut2", "lut3"], "4-LUT chain: path cells %s" % path)

# 2. a 32-bit adder: r = a + b, registered
b = Build()
a_q = [b.ff("a%d" % i, b.bit()) for i in range(32)]
b_q = [b.ff("b%d" % i, b.bit()) for i in range(32)]
ci = "0"
sums = []
for c in range(8):
    s_bits, o_bits, co_bits = [], [b.bit() for _ in range(4)], [b.bit() for _ in range(4)]
    for k in range(4):
        i = 4 * c + k
        s = b.bit()
        b.cell("x%d" % i, "LUT2", {"I0": [a_q[i]], "I1": [b_q[i]]}, {"O": [s]})
        s_bits.append(s)
    b.cell("carry%d" % c, "CARRY4",
           {"CI": [ci], "CYINIT": ["0"], "DI": [a_q[4 * c + k] for k in range(4)], "S": s_bits},
           {"O": o_bits, "CO": co_bits})
    sums += o_bits
    ci = co_bits[3]
for i in range(32):
    b.ff("r%d" % i, sums[i])
# worst: a0/b0 -> LUT2 -> S[0] of carry0 -> CO[3] -> CI ... carry7 CI -> O[3] -> r31
want = (D["ff_clk_to_q"] + D["net_hop"] + D["lut"] + D["net_hop"] + D["carry_in"] +
        6 * D["carry_ci_co"] + D["carry_ci_o"] + D["net_hop"] + D["ff_setup_d"])
w, text = worst(b)
check(close(w, want), "32-bit adder: %.4f ns, expected %.4f" % (w, want))
# CI -> O[k] is one figure for every k of the last CARRY4: r28..r31 tie
check(any("(r%d).D[0]" % i in text.split("worst path (")[1].split("\n")[0] for i in range(28, 32)),
      "32-bit adder: end point in the last CARRY4's bits")
check("1 LUT levels" in text, "32-bit adder: one LUT level")

# 3. block RAM to flip-flop, flip-flop to block RAM
b = Build()
do = b.bit()
b.cell("ram", "RAMB36E1", {"CLKARDCLK": [2], "ADDRARDADDR": [b.bit()]}, {"DOADO": [do]})
b.ff("q", do)
w, _ = worst(b)
want = D["bram_clk_to_q"] + D["net_hop"] + D["ff_setup_d"]
check(close(w, want), "BRAM -> FF: %.4f ns, expected %.4f" % (w, want))
b = Build()
q = b.ff("q", b.bit())
b.cell("ram", "RAMB18E1", {"CLKARDCLK": [2], "ADDRARDADDR": [q]}, {"DOADO": [b.bit()]})
w, _ = worst(b)
want = D["ff_clk_to_q"] + D["net_hop"] + D["bram_setup"]   # DO goes nowhere
check(close(w, want), "FF -> BRAM address: %.4f ns, expected %.4f" % (w, want))

# 4. LUT6 -> MUXF7 -> MUXF8: dedicated links
b = Build()
q = b.ff("q", b.bit())
l0, l1, l2, l3, m0, m1, m8 = (b.bit() for _ in range(7))
for n, o in (("l0", l0), ("l1", l1), ("l2", l2), ("l3", l3)):
    b.cell(n, "LUT6", {"I0": [q]}, {"O": [o]})
b.cell("m0", "MUXF7", {"I0": [l0], "I1": [l1], "S": ["0"]}, {"O": [m0]})
b.cell("m1", "MUXF7", {"I0": [l2], "I1": [l3], "S": ["0"]}, {"O": [m1]})
b.cell("m8", "MUXF8", {"I0": [m0], "I1": [m1], "S": ["0"]}, {"O": [m8]})
b.ff("r", m8)
want = (D["ff_clk_to_q"] + D["net_hop"] + D["lut"] + D["muxf7"] + D["muxf8"] + D["net_hop"] +
        D["ff_setup_d"])
w, _ = worst(b)
check(close(w, want), "LUT6 -> MUXF7 -> MUXF8: %.4f ns, expected %.4f" % (w, want))

# 5. end points in order; a loop is refused
b = Build()
q = b.ff("q", b.bit())
y = b.bit()
b.cell("l", "LUT1", {"I0": [q]}, {"O": [y]})
b.ff("near", q)
b.ff("far", y)
tm = timing.Timer(timing.Netlist(b.doc(), None), D, D["net_hop"])
eps = tm.endpoints()
check([e[1].split(" ")[2] for e in eps[:2]] == ["(far).D[0]", "(near).D[0]"],
      "end points worst first: %s" % [e[1] for e in eps[:3]])
b = Build()
u, v = b.bit(), b.bit()
b.cell("la", "LUT1", {"I0": [v]}, {"O": [u]})
b.cell("lb", "LUT1", {"I0": [u]}, {"O": [v]})
b.ff("f", u)
try:
    worst(b)
    check(False, "combinational loop accepted")
except SystemExit as e:
    check("loop" in str(e), "combinational loop: %s" % e)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
