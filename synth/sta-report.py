#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sta-report.py - the clock figure of one top from its OpenSTA reports
(synth/sta.tcl), with register names, and the cross-check against
synth/timing.py on the same netlist.

    sta-report.py NETLIST.json --top NAME [--name LABEL] --period NS STA.txt [LOW.txt HIGH.txt]

STA.txt is the full report at net_hop, LOW/HIGH the reports at net_hop_low
and net_hop_high. Prints one line (worst delay = period - worst slack, the
clock it allows, the range over the hop figures), then the ten worst end
points as OpenSTA ranks them, each with the register it ends at (the net its
cell drives: Yosys names the cells $auto$...), then timing.py's worst end
point and delay on the same netlist and whether the two agree: same end
point (or one of equal delay) and delays within MARGIN_NS. Exit status 1
when they do not agree.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402

MARGIN_NS = 0.005    # the reports round to 1 ps; the two engines sum the same arcs

ROW = re.compile(r"^(\S+)/(\S+) \((\S+)\)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)")
OUT = re.compile(r"^(\S+) \(output\)\s+(-?[0-9.]+)\s+(-?[0-9.]+)\s+(-?[0-9.]+)")


def endpoints(path):
    """[(slack, instance or port, pin, cell type)] from the end-point table."""
    rows, on = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("== worst end points"):
                on = True
                continue
            if on and line.startswith("== "):
                break
            if not on:
                continue
            m = ROW.match(line)
            if m:
                rows.append((float(m.group(6)), m.group(1), m.group(2), m.group(3)))
                continue
            m = OUT.match(line)
            if m:
                rows.append((float(m.group(4)), m.group(1), "", "output"))
    return rows


def lut_levels(path):
    """LUTs on the worst path of the full report."""
    n, on = 0, False
    with open(path) as f:
        for line in f:
            if line.startswith("== worst path"):
                on = True
            elif line.startswith("== "):
                on = False
            elif on and re.search(r"/O \((LUT[1-6]|INV)\)$", line.rstrip()):
                n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("netlist")
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--top", required=True)
    ap.add_argument("--name", help="the label of the report (default: the top)")
    ap.add_argument("--period", type=float, required=True)
    ap.add_argument("--delays", default=timing.DEFAULT_DELAYS)
    a = ap.parse_args()
    eps = [endpoints(r) for r in a.reports]
    for r, e in zip(a.reports, eps):
        if not e:
            sys.exit("sta-report: %s: no end points (OpenSTA failed? see the file)" % r)
    worst = a.period - eps[0][0][0]
    rng = ""
    if len(eps) == 3:
        lo, hi = a.period - eps[1][0][0], a.period - eps[2][0][0]
        rng = " (%.0f..%.0f MHz at 0.65..0.30 ns per hop)" % (1000.0 / hi, 1000.0 / lo)
    print("%-22s OpenSTA worst slack %.3f ns at %.3f ns: worst path %.3f ns -> Fmax %.0f MHz%s, "
          "%d LUT levels" % (a.name or a.top, eps[0][0][0], a.period, worst, 1000.0 / worst, rng,
                             lut_levels(a.reports[0])))
    with open(a.netlist) as f:
        doc = json.load(f)
    nl = timing.Netlist(doc, a.top)
    bitname = {}          # bit -> "net[i]" for the register names
    for nname, n in doc["modules"][a.top].get("netnames", {}).items():
        if n.get("hide_name", 0):
            continue
        for i, b in enumerate(n["bits"]):
            if isinstance(b, int) and nl.name(b) == nname:
                bitname[b] = "%s[%d]" % (nname, i) if len(n["bits"]) > 1 else nname

    def reg(inst):
        c = nl.cells.get(inst)
        if c is None:
            return inst
        for p in ("Q", "DOADO", "DOBDO", "P", "DOA", "O", "SPO"):
            bits = c.get("connections", {}).get(p)
            if bits and isinstance(bits[0], int):
                return bitname.get(bits[0], nl.name(bits[0]))
        return inst
    print("ten worst end points (OpenSTA, delay = period - slack):")
    for slack, inst, pin, t in eps[0][:10]:
        inst_u = inst.replace("\\", "")
        print("  %7.3f ns  %-8s %s.%s  (%s)" % (a.period - slack, t, reg(inst_u), pin,
                                                timing.short(inst_u, 40)))
    # The cross-check: timing.py on the same netlist and delay table.
    d = timing.load_delays(a.delays)
    tm = timing.Timer(nl, d, d["net_hop"])
    teps = tm.endpoints()
    tw, tdesc, _ = teps[0]

    def tcell(desc):
        m = re.match(r"\S+ \S+ \((\S+)\)\.", desc)
        return m.group(1) if m else desc
    # Ties: any end point of the worst delay in one report may be the other's.
    a_set = {timing.short(e[1].replace("\\", ""), 40) if e[3] != "output" else "output"
             for e in eps[0] if abs(e[0] - eps[0][0][0]) < MARGIN_NS}
    b_set = {tcell(e[1]) if not e[1].startswith("output") else "output"
             for e in teps if tw - e[0] < MARGIN_NS}
    same = bool(a_set & b_set)
    ok = same and abs(tw - worst) <= MARGIN_NS
    print("timing.py cross-check: worst %.3f ns at %s; OpenSTA %.3f ns: %s" %
          (tw, timing.short(tdesc, 90), worst,
           "same end point, delays within %.3f ns" % MARGIN_NS if ok else
           "DIFFERENT (%s, delay difference %.3f ns)" % ("end point" if not same else "delay",
                                                         tw - worst)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
