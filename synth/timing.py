#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""timing.py - clock estimate of a Yosys 7-series netlist (write_json after
synth_xilinx -flatten): static timing over the mapped cells with a per-arc
delay table (synth/xc7-2-delays.txt, Virtex-7 -2).

Start points: flip-flop and SRL outputs (clock to Q), block RAM and DSP
outputs, top-level inputs (time 0). End points: flip-flop D/CE/R/S, block
RAM and DSP inputs, LUT RAM write inputs (setup added), top-level outputs.
Combinational arcs: LUTs, MUXF7/MUXF8, CARRY4 (entry, CI to CO per stage,
CI to O), LUT RAM and SRL read addresses. Every connection costs one
net_hop except the dedicated ones (CARRY4 CO[3] to CI, LUT to MUXF7,
MUXF7 to MUXF8). Prints the worst register-to-register delay and the clock
it allows (also at net_hop_low / net_hop_high), the worst path as cells
with their RTL source and output nets, its LUT levels, and the ten worst
end points.

    timing.py NETLIST.json [--top NAME] [--delays FILE] [--paths N] [--brief]
              [--skip TEXT]...   (end points whose register name contains TEXT
                                  left out, to see the next limit)

The estimate ignores placement and fanout: routing is one figure per hop.
"""
import argparse
import json
import os
import sys

NEG = float("-inf")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DELAYS = os.path.join(HERE, "xc7-2-delays.txt")

CLOCK_PINS = {"C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK", "CLKA", "CLKB"}
FF_TYPES = {"FDRE", "FDSE", "FDCE", "FDPE", "FDRE_1", "FDSE_1", "FDCE_1", "FDPE_1"}
BRAM_TYPES = {"RAMB18E1", "RAMB36E1"}
PASS_TYPES = {"BUFG", "IBUF", "OBUF", "BUFGCTRL", "BUF"}


def load_delays(path):
    d = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) == 2:
                d[line[0]] = float(line[1])
    need = ["ff_clk_to_q", "ff_setup_d", "ff_setup_ce", "ff_setup_sr", "lut", "lutram_read",
            "lutram_setup", "srl", "muxf7", "muxf8", "carry_in", "carry_ci_co", "carry_ci_o",
            "bram_clk_to_q", "bram_setup", "dsp_clk_to_q", "dsp_setup", "net_hop",
            "net_hop_low", "net_hop_high"]
    missing = [k for k in need if k not in d]
    if missing:
        sys.exit("timing: %s: missing %s" % (path, ", ".join(missing)))
    return d


def is_lutram(t):
    return t.startswith("RAM") and t not in BRAM_TYPES


def is_addr(port):
    return port.startswith("ADDR") or port.startswith("DPRA") or port == "A" or \
        (port.startswith("A") and port[1:].isdigit())


class Netlist:
    def __init__(self, doc, top):
        mods = doc.get("modules", {})
        if top is None:
            tops = [m for m, v in mods.items() if v.get("attributes", {}).get("top")]
            top = tops[0] if len(tops) == 1 else (list(mods)[0] if len(mods) == 1 else None)
        if top not in mods:
            sys.exit("timing: top module not found (use --top; have %s)" % ", ".join(mods))
        m = mods[top]
        self.top = top
        self.cells = m.get("cells", {})
        self.driver = {}      # bit -> (cell, port, index) or ("<in>", port, index)
        self.names = {}       # bit -> net name
        self.netsrc = {}      # bit -> RTL source of a named net
        for pname, p in m.get("ports", {}).items():
            for i, b in enumerate(p["bits"]):
                if p["direction"] == "input" and isinstance(b, int):
                    self.driver[b] = ("<in>", pname, i)
        self.outputs = [(pname, i, b) for pname, p in m.get("ports", {}).items()
                        if p["direction"] == "output" for i, b in enumerate(p["bits"])
                        if isinstance(b, int)]
        for cname, c in self.cells.items():
            dirs = c.get("port_directions", {})
            for port, bits in c.get("connections", {}).items():
                if dirs.get(port) == "output":
                    for i, b in enumerate(bits):
                        if isinstance(b, int):
                            self.driver[b] = (cname, port, i)
        for nname, n in m.get("netnames", {}).items():
            hidden = n.get("hide_name", 0)
            for b in n["bits"]:
                if not isinstance(b, int):
                    continue
                old = self.names.get(b)
                if old is None or (old[0] and not hidden) or \
                        (old[0] == hidden and len(nname) < len(old[1])):
                    self.names[b] = (hidden, nname)
                src = n.get("attributes", {}).get("src", "")
                if src and not hidden and b not in self.netsrc:
                    self.netsrc[b] = src.split("|")[0]

    def name(self, b):
        n = self.names.get(b)
        return n[1] if n else "$%s" % b

    def src(self, cname, out_bit=None):
        """The RTL line of a cell: its own source, or, for cells made by
        Yosys's technology maps (LUTs, carry chains), the output net's."""
        s = self.cells[cname].get("attributes", {}).get("src", "").split("|")[0]
        if (not s or "/share/yosys/" in s) and out_bit is not None:
            s = self.netsrc.get(out_bit, "")
        return s

    def reg_name(self, cname):
        """A register by the net it drives (Yosys names the cells $auto$...)."""
        c = self.cells[cname]
        for p in ("Q", "DOADO", "DOBDO", "P"):
            bits = c.get("connections", {}).get(p)
            if bits and isinstance(bits[0], int):
                return self.name(bits[0])
        return cname


class Timer:
    """Arrival times with one net-hop figure."""

    def __init__(self, nl, d, net):
        self.nl, self.d, self.net = nl, d, net
        self.arr = {}         # bit -> arrival (ns)
        self.pred = {}        # bit -> (input bit, cell, in pin) of the worst arc

    def hop(self, b, cell, pin):
        """Net delay from the driver of bit b to pin of cell."""
        drv = self.nl.driver.get(b)
        if drv is None or drv[0] == "<in>":
            return self.net
        dt = self.nl.cells[drv[0]]["type"]
        t = self.nl.cells[cell]["type"]
        if t == "CARRY4" and pin == "CI" and dt == "CARRY4" and drv[1] == "CO" and drv[2] == 3:
            return 0.0
        if t == "MUXF7" and pin in ("I0", "I1") and dt.startswith("LUT"):
            return 0.0
        if t == "MUXF8" and pin in ("I0", "I1") and dt == "MUXF7":
            return 0.0
        return self.net

    def arcs(self, cell, port, idx):
        """(input pin, input index, arc delay) list for an output bit, or a
        start-point delay (float) for a sequential output."""
        c = self.nl.cells[cell]
        t, d = c["type"], self.d
        conns = c.get("connections", {})
        dirs = c.get("port_directions", {})
        ins = [(p, i) for p, bits in conns.items() if dirs.get(p) == "input"
               for i in range(len(bits)) if p not in CLOCK_PINS]
        if t in FF_TYPES:
            return d["ff_clk_to_q"]
        if t in BRAM_TYPES:
            return d["bram_clk_to_q"]
        if t.startswith("DSP48"):
            return d["dsp_clk_to_q"]
        if t.startswith("LUT") or t == "INV":
            return [(p, i, d["lut"]) for p, i in ins]
        if t == "MUXF7":
            return [(p, i, d["muxf7"]) for p, i in ins]
        if t == "MUXF8":
            return [(p, i, d["muxf8"]) for p, i in ins]
        if t == "CARRY4":
            out = []
            for p, i in ins:
                if p == "CI":
                    out.append((p, i, d["carry_ci_co"] if port == "CO" and idx == 3
                                else d["carry_ci_o"]))
                elif p == "CYINIT" or ((p in ("S", "DI")) and i <= idx):
                    out.append((p, i, d["carry_in"]))
            return out
        if t.startswith("SRL"):
            return [(p, i, d["srl"]) for p, i in ins if is_addr(p)] + [("<clk>", 0, d["srl"])]
        if is_lutram(t):
            return [(p, i, d["lutram_read"]) for p, i in ins if is_addr(p)]
        if t in PASS_TYPES:
            return [(p, i, 0.0) for p, i in ins]
        print("timing: unknown cell type %s (%s): treated as a LUT" % (t, cell), file=sys.stderr)
        return [(p, i, d["lut"]) for p, i in ins]

    def arrival(self, b0):
        """Arrival time of bit b0 (iterative depth-first walk)."""
        if b0 in self.arr:
            return self.arr[b0]
        stack, visiting = [(b0, False)], set()
        while stack:
            b, expanded = stack.pop()
            if b in self.arr:
                continue
            drv = self.nl.driver.get(b)
            if drv is None or drv[0] == "<in>":
                self.arr[b] = 0.0
                continue
            cell, port, idx = drv
            a = self.arcs(cell, port, idx)
            if isinstance(a, float):
                self.arr[b] = a
                continue
            conns = self.nl.cells[cell]["connections"]
            if not expanded:
                visiting.add(b)
                stack.append((b, True))
                for p, i, _ in a:
                    ib = conns[p][i] if p != "<clk>" else None
                    if isinstance(ib, int) and ib not in self.arr:
                        if ib in visiting:
                            sys.exit("timing: combinational loop through %s" % self.nl.name(ib))
                        stack.append((ib, False))
                continue
            visiting.discard(b)
            best, why = NEG, None
            for p, i, dl in a:
                if p == "<clk>":
                    t, w = dl, None
                else:
                    ib = conns[p][i]
                    if not isinstance(ib, int):
                        continue
                    t, w = self.arr[ib] + self.hop(ib, cell, p) + dl, (ib, cell, p)
                if t > best:
                    best, why = t, w
            self.arr[b] = best if best > NEG else 0.0
            if why:
                self.pred[b] = why
        return self.arr[b0]

    def endpoints(self):
        """[(delay, description, bit)] over every end point."""
        d, out = self.d, []
        for cname, c in self.nl.cells.items():
            t = c["type"]
            dirs = c.get("port_directions", {})
            setup = None
            for p, bits in c.get("connections", {}).items():
                if dirs.get(p) != "input" or p in CLOCK_PINS:
                    continue
                if t in FF_TYPES:
                    setup = d["ff_setup_d"] if p == "D" else d["ff_setup_ce"] if p == "CE" \
                        else d["ff_setup_sr"]
                elif t in BRAM_TYPES:
                    setup = d["bram_setup"]
                elif t.startswith("DSP48"):
                    setup = d["dsp_setup"]
                elif is_lutram(t):
                    setup = d["lutram_setup"]
                elif t.startswith("SRL") and not is_addr(p):
                    setup = d["ff_setup_d"] if p == "D" else d["ff_setup_ce"]
                else:
                    continue
                for i, b in enumerate(bits):
                    if isinstance(b, int):
                        out.append((self.arrival(b) + self.hop(b, cname, p) + setup,
                                    "%s %s (%s).%s[%d]" % (t, self.nl.reg_name(cname),
                                                          short(cname, 40), p, i), b))
        for pname, i, b in self.nl.outputs:
            out.append((self.arrival(b), "output %s[%d]" % (pname, i), b))
        out.sort(key=lambda x: -x[0])
        return out

    def path(self, b):
        """The worst path into bit b: [(cell, type, src, output net, time)]."""
        rows = []
        while True:
            drv = self.nl.driver.get(b)
            if drv is None or drv[0] == "<in>":
                rows.append(("<input>", "port", "", self.nl.name(b), self.arr.get(b, 0.0)))
                break
            cell = drv[0]
            rows.append((cell, self.nl.cells[cell]["type"], self.nl.src(cell, b), self.nl.name(b),
                         self.arr[b]))
            if b not in self.pred:
                break
            b = self.pred[b][0]
        rows.reverse()
        return rows


def short(s, n=60):
    return s if len(s) <= n else "..." + s[-(n - 3):]


def analyse(doc, top, delays, npaths=10, brief=False, out=sys.stdout, skip=()):
    nl = Netlist(doc, top)
    res = {}
    for key in ("net_hop", "net_hop_low", "net_hop_high"):
        tm = Timer(nl, delays, delays[key])
        eps = [e for e in tm.endpoints() if not any(k in e[1].split(" (")[0] for k in skip)]
        res[key] = (tm, eps)
    tm, eps = res["net_hop"]
    if not eps:
        print("%s: no timing end points" % nl.top, file=out)
        return None
    worst = eps[0][0]
    fmax = 1000.0 / worst if worst > 0 else float("inf")
    lo = 1000.0 / res["net_hop_high"][1][0][0]
    hi = 1000.0 / res["net_hop_low"][1][0][0]
    p = tm.path(eps[0][2])
    luts = sum(1 for r in p if r[1].startswith("LUT"))
    print("%-22s worst path %.3f ns -> Fmax %.0f MHz (%.0f..%.0f MHz at %.2f..%.2f ns per hop), "
          "%d cells, %d LUT levels" % (nl.top, worst, fmax, lo, hi, delays["net_hop_high"],
                                        delays["net_hop_low"], len(p), luts), file=out)
    if brief:
        return worst
    print("\nworst path (%s), net_hop %.2f ns:" % (eps[0][1], delays["net_hop"]), file=out)
    print("  %8s  %-10s %-44s %-36s %s" % ("t (ns)", "cell", "name", "output net", "RTL"), file=out)
    for cell, t, src, net, at in p:
        print("  %8.3f  %-10s %-44s %-36s %s" % (at, t, short(cell, 44), short(net, 36), src),
              file=out)
    print("  %8.3f  end point %s" % (worst, eps[0][1]), file=out)
    print("\n%d worst end points:" % npaths, file=out)
    seen = 0
    for dl, desc, _ in eps:
        print("  %8.3f ns  %s" % (dl, short(desc, 100)), file=out)
        seen += 1
        if seen == npaths:
            break
    return worst


def main():
    ap = argparse.ArgumentParser(description="clock estimate of a Yosys xc7 netlist")
    ap.add_argument("netlist")
    ap.add_argument("--top")
    ap.add_argument("--delays", default=DEFAULT_DELAYS)
    ap.add_argument("--paths", type=int, default=10)
    ap.add_argument("--brief", action="store_true")
    ap.add_argument("--skip", action="append", default=[])
    a = ap.parse_args()
    try:
        with open(a.netlist) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("timing: %s: %s" % (a.netlist, e))
    sys.setrecursionlimit(10000)
    return 0 if analyse(doc, a.top, load_delays(a.delays), a.paths, a.brief,
                        skip=a.skip) is not None else 1


if __name__ == "__main__":
    sys.exit(main())
