#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""timing-test.py - unit tests of the clock estimate (synth/timing.py) on
small hand-made netlists in Yosys JSON form, each expected delay written out
from the delay table (synth/xc7-2-delays.txt) by hand:
  - a chain of four LUTs between two flip-flops;
  - a 32-bit adder (two 32-bit registers, a LUT2 per bit, eight CARRY4 on
    the dedicated chain, a result register);
  - block RAM to flip-flop and flip-flop to block RAM address;
  - LUT6 into MUXF7 into MUXF8 (dedicated links, no routing);
  - the worst path's cells, LUT levels and end point order; a
    combinational loop refused;
  - the same netlists through OpenSTA (the Liberty library of
    synth/xc7-liberty.py, synth/sta.tcl, a 4.0 ns clock): the worst slack
    gives timing.py's worst delay, so the two engines cross-check each other
    (make synth times with OpenSTA and reports the difference per top).
Last line "N passed, N failed".
"""
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


STA_CASES = []   # (what, Build, timing.py's worst delay)
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # synth/


def verilog(doc):
    """The hand-made netlist as structural Verilog for OpenSTA."""
    m = doc["modules"]["t"]

    def net(b):
        return "1'b%s" % b if isinstance(b, str) else "n%d" % b
    bits = {b for c in m["cells"].values() for v in c["connections"].values() for b in v
            if isinstance(b, int)}
    lines = ["module t (clk);", "  input clk;"]
    lines += ["  wire n%d;" % b for b in sorted(bits) if b != 2]
    lines.append("  assign n2 = clk;" if 2 in bits else "")
    for name, c in m["cells"].items():
        conns = []
        for p, v in c["connections"].items():
            conns.append(".%s(%s)" % (p, net(v[0]) if len(v) == 1 else
                                      "{%s}" % ", ".join(net(b) for b in reversed(v))))
        lines.append("  %s %s (%s);" % (c["type"], name, ", ".join(conns)))
    return "\n".join(lines + ["endmodule", ""])


def sta_worst(doc):
    """OpenSTA's worst delay (period - worst slack) on a hand-made netlist."""
    spec = importlib.util.spec_from_file_location("sta_report", os.path.join(HERE, "sta-report.py"))
    rep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rep)
    with tempfile.TemporaryDirectory() as tmp:
        j, v, lib = (os.path.join(tmp, n) for n in ("t.json", "t.v", "t.lib"))
        sdc, out = os.path.join(tmp, "t.sdc"), os.path.join(tmp, "t.sta.txt")
        with open(j, "w") as f:
            json.dump(doc, f)
        with open(v, "w") as f:
            f.write(verilog(doc))
        with open(sdc, "w") as f:
            f.write("create_clock -name inc_clk -period 4.000 [get_ports clk]\n")
        with open(lib, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "xc7-liberty.py"), j, "--top", "t"],
                           stdout=f, check=True)
        env = dict(os.environ, STA_LIB=lib, STA_NETLIST=v, STA_TOP="t", STA_SDC=sdc)
        with open(out, "w") as f:
            subprocess.run(["sta", "-no_splash", "-exit", os.path.join(HERE, "sta.tcl")],
                           stdout=f, stderr=subprocess.STDOUT, env=env, check=False)
        eps = rep.endpoints(out)
        if not eps:
            with open(out) as f:
                print(f.read()[-2000:])
            return None
        return 4.0 - eps[0][0]


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
STA_CASES.append(("4-LUT chain", b, w))
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
STA_CASES.append(("32-bit adder", b, w))
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
STA_CASES.append(("BRAM -> FF", b, w))
b = Build()
q = b.ff("q", b.bit())
b.cell("ram", "RAMB18E1", {"CLKARDCLK": [2], "ADDRARDADDR": [q]}, {"DOADO": [b.bit()]})
w, _ = worst(b)
want = D["ff_clk_to_q"] + D["net_hop"] + D["bram_setup"]   # DO goes nowhere
check(close(w, want), "FF -> BRAM address: %.4f ns, expected %.4f" % (w, want))
STA_CASES.append(("FF -> BRAM address", b, w))

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
STA_CASES.append(("LUT6 -> MUXF7 -> MUXF8", b, w))

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

# 6. OpenSTA on the same netlists agrees with timing.py (reports to 1 ps)
if shutil.which("sta") is None:
    check(False, "OpenSTA: sta not found (apt-get install opensta)")
else:
    for what, b, w in STA_CASES:
        s = sta_worst(b.doc())
        check(s is not None and abs(s - w) < 0.0015,
              "OpenSTA %s: %s ns, timing.py %.4f ns" % (what, s, w))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
