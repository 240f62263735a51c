#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""xc7-liberty.py - a Liberty library for static timing (OpenSTA) of a Yosys
7-series netlist, generated from the per-arc delay table
synth/xc7-2-delays.txt (Virtex-7 -2).

The cells are the ones the netlist uses (Yosys JSON after synth_xilinx
-flatten: the types, their pins, directions and bus widths); their arcs are
the delay table's, the same as synth/timing.py's:

  - flip-flops (FDRE/FDSE/FDCE/FDPE): C -> Q ff_clk_to_q; D setup ff_setup_d,
    CE ff_setup_ce, R/S/CLR/PRE ff_setup_sr (all timed as synchronous);
  - LUT1..LUT6, INV: every input -> O, lut;
  - MUXF7 / MUXF8: I0, I1, S -> O, muxf7 / muxf8;
  - CARRY4: S[i], DI[i] -> CO[j], O[j] for i <= j and CYINIT -> all,
    carry_in; CI -> CO[3] carry_ci_co, CI -> the other outputs carry_ci_o;
  - block RAM (RAMB18E1/RAMB36E1): clock -> outputs bram_clk_to_q, every
    input bram_setup;
  - LUT RAM (RAM32M, RAM64M, RAM32X1D, ...): read address -> outputs
    lutram_read, every input lutram_setup;
  - SRL16E/SRLC32E: address -> Q and clock -> Q srl, D and CE setup;
  - DSP48E1: clock -> outputs dsp_clk_to_q, inputs dsp_setup.

Routing is the table's one figure per hop (net_hop, or --hop): it is
folded into the cell that receives the connection (every arc from an input
pin and every setup check carries one hop), except on the dedicated links
that cost none: CARRY4 CI (from the previous CARRY4's CO[3]), MUXF7 I0/I1
(from a LUT) and MUXF8 I0/I1 (from a MUXF7). The top's inputs arrive at 0
and its outputs are required at the clock edge, so with zero input and
output delays the paths are timing.py's. Where the netlist drives a
dedicated pin from anything else (timing.py charges a hop there), the
library cannot tell; the count of such pins is printed to stderr and written
as a comment at the top of the library.

    xc7-liberty.py NETLIST.json [--top NAME] [--delays FILE] [--hop NS] > LIB
    xc7-liberty.py NETLIST.json [--top NAME] [--delays FILE] --corners PREFIX
        (PREFIX.lib, PREFIX.low.lib, PREFIX.high.lib at net_hop, net_hop_low
         and net_hop_high, the netlist read once)
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing  # noqa: E402  (the delay table reader and cell classes)

DEDICATED = {"CARRY4": {"CI"}, "MUXF7": {"I0", "I1"}, "MUXF8": {"I0", "I1"}}


def cell_ports(mod):
    """type -> {port: (direction, width)} over every instance."""
    types = {}
    for c in mod.get("cells", {}).values():
        t = c["type"]
        ports = types.setdefault(t, {})
        dirs = c.get("port_directions", {})
        for p, bits in c.get("connections", {}).items():
            d = dirs.get(p, "input")
            old = ports.get(p)
            w = max(len(bits), old[1] if old else 0)
            ports[p] = (d, w)
    return types


def non_dedicated(mod):
    """Dedicated pins (CARRY4 CI, MUXF7/8 I0/I1) driven by something other
    than the dedicated source: timing.py charges these a hop, the library
    does not."""
    drv = {}
    for cn, c in mod.get("cells", {}).items():
        dirs = c.get("port_directions", {})
        for p, bits in c.get("connections", {}).items():
            if dirs.get(p) == "output":
                for i, b in enumerate(bits):
                    if isinstance(b, int):
                        drv[b] = (c["type"], p, i)
    n = 0
    for c in mod.get("cells", {}).values():
        t = c["type"]
        for p in DEDICATED.get(t, ()):
            for b in c.get("connections", {}).get(p, []):
                if not isinstance(b, int):
                    continue         # a constant: no path
                d = drv.get(b)
                if d is None:
                    n += 1           # a top-level input
                elif t == "CARRY4" and not (d[0] == "CARRY4" and d[1] == "CO" and d[2] == 3):
                    n += 1
                elif t == "MUXF7" and not d[0].startswith("LUT"):
                    n += 1
                elif t == "MUXF8" and d[0] != "MUXF7":
                    n += 1
    return n


def fmt(x):
    return "%.4f" % x


class Lib:
    def __init__(self, d, hop):
        self.d, self.hop, self.out, self.widths = d, hop, [], set()

    def w(self, s):
        self.out.append(s)

    def arc(self, ind, related, delay, kind="combinational", sense="non_unate"):
        i = " " * ind
        self.w(i + "timing () {")
        self.w(i + '  related_pin : "%s";' % related)
        if kind == "rising_edge":
            self.w(i + "  timing_type : rising_edge;")
        else:
            self.w(i + "  timing_sense : %s;" % sense)
        for k in ("cell_rise", "cell_fall"):
            self.w(i + '  %s (scalar) { values ("%s"); }' % (k, fmt(delay)))
        for k in ("rise_transition", "fall_transition"):
            self.w(i + '  %s (scalar) { values ("0"); }' % k)
        self.w(i + "}")

    def setup(self, ind, clock, value):
        i = " " * ind
        self.w(i + "timing () {")
        self.w(i + '  related_pin : "%s";' % clock)
        self.w(i + "  timing_type : setup_rising;")
        for k in ("rise_constraint", "fall_constraint"):
            self.w(i + '  %s (scalar) { values ("%s"); }' % (k, fmt(value)))
        self.w(i + "}")

    def pin(self, name, direction, width, body):
        """A pin (width 1) or bus; body(ind, pin_name, None) writes its
        timing groups, once for the whole bus."""
        if width <= 1:
            self.w("    pin (%s) {" % name)
        else:
            self.widths.add(width)
            self.w("    bus (%s) {" % name)
            self.w("      bus_type : bus%d;" % width)
        self.w("      direction : %s;" % direction)
        if direction == "input":
            self.w("      capacitance : 0;")
        body(6, name, None)
        self.w("    }")

    def carry4(self, ports):
        d, h = self.d, self.hop
        self.w("  cell (CARRY4) {")
        self.w("    area : 1;")
        for p, (dr, wd) in sorted(ports.items()):
            if dr == "input":
                self.pin(p, "input", wd, lambda ind, n, b: None)
        for p in ("CO", "O"):
            if p not in ports:
                continue
            wd = ports[p][1]
            self.widths.add(4)
            self.w("    bus (%s) {" % p)
            self.w("      bus_type : bus4;")
            self.w("      direction : output;")
            for j in range(wd):
                self.w("      pin (%s[%d]) {" % (p, j))
                if "CI" in ports:
                    self.arc(8, "CI", d["carry_ci_co"] if p == "CO" and j == 3 else d["carry_ci_o"])
                rel = []
                if "CYINIT" in ports:
                    rel.append("CYINIT")
                for q in ("S", "DI"):
                    if q in ports:
                        rel += ["%s[%d]" % (q, i) for i in range(j + 1)]
                if rel:
                    self.arc(8, " ".join(rel), d["carry_in"] + h)
                self.w("      }")
            self.w("    }")
        self.w("  }")

    def cell(self, t, ports):
        d, h = self.d, self.hop
        if t == "CARRY4":
            return self.carry4(ports)
        ins = sorted(p for p, (dr, _) in ports.items() if dr == "input")
        outs = sorted(p for p, (dr, _) in ports.items() if dr != "input")
        clocks = [p for p in ins if p in timing.CLOCK_PINS]
        data = [p for p in ins if p not in timing.CLOCK_PINS]
        ded = DEDICATED.get(t, set())
        self.w("  cell (%s) {" % t)
        self.w("    area : 1;")
        if t in timing.FF_TYPES:
            setup = {"D": d["ff_setup_d"], "CE": d["ff_setup_ce"]}
            for p in clocks:
                self.pin(p, "input", ports[p][1], lambda ind, n, b: self.w(" " * ind + "clock : true;"))
            for p in data:
                self.pin(p, "input", ports[p][1], lambda ind, n, b, p=p: [
                    self.setup(ind, c, setup.get(p, d["ff_setup_sr"]) + h) for c in clocks])
            for p in outs:
                self.pin(p, "output", ports[p][1], lambda ind, n, b: [
                    self.arc(ind, c, d["ff_clk_to_q"], "rising_edge") for c in clocks])
        elif t in timing.BRAM_TYPES or t.startswith("DSP48") or timing.is_lutram(t) or \
                t.startswith("SRL"):
            if t in timing.BRAM_TYPES:
                c2q, su, comb = d["bram_clk_to_q"], d["bram_setup"], None
            elif t.startswith("DSP48"):
                c2q, su, comb = d["dsp_clk_to_q"], d["dsp_setup"], None
            elif t.startswith("SRL"):
                c2q, su, comb = d["srl"], d["ff_setup_d"], d["srl"]
            else:
                c2q, su, comb = None, d["lutram_setup"], d["lutram_read"]
            addr = [p for p in data if timing.is_addr(p)] if comb is not None else []
            for p in clocks:
                self.pin(p, "input", ports[p][1], lambda ind, n, b: self.w(" " * ind + "clock : true;"))
            for p in data:
                if t.startswith("SRL") and timing.is_addr(p):
                    continue         # SRL address: combinational only
                s = su
                if t.startswith("SRL") and p == "CE":
                    s = d["ff_setup_ce"]
                self.pin(p, "input", ports[p][1], lambda ind, n, b, s=s: [
                    self.setup(ind, c, s + h) for c in clocks])
            for p in addr:
                if t.startswith("SRL"):
                    self.pin(p, "input", ports[p][1], lambda ind, n, b: None)
            for p in outs:
                def body(ind, n, b):
                    if c2q is not None:
                        for c in clocks:
                            self.arc(ind, c, c2q, "rising_edge")
                    if addr:
                        self.arc(ind, " ".join(addr), comb + h)
                self.pin(p, "output", ports[p][1], body)
        else:
            if t.startswith("LUT") or t == "INV":
                dl = d["lut"]
            elif t == "MUXF7":
                dl = d["muxf7"]
            elif t == "MUXF8":
                dl = d["muxf8"]
            elif t in timing.PASS_TYPES:
                dl = 0.0             # buffers (BUFG on the clock): positive unate
            else:
                print("xc7-liberty: unknown cell type %s: timed as a LUT" % t, file=sys.stderr)
                dl = d["lut"]
            for p in ins:
                self.pin(p, "input", ports[p][1], lambda ind, n, b: None)
            hopped = [p for p in ins if p not in ded]
            plain = [p for p in ins if p in ded]
            for p in outs:
                sense = "positive_unate" if t in timing.PASS_TYPES else "non_unate"

                def body(ind, n, b):
                    if hopped:
                        self.arc(ind, " ".join(hopped), dl + h, sense=sense)
                    if plain:
                        self.arc(ind, " ".join(plain), dl, sense=sense)
                self.pin(p, "output", ports[p][1], body)
        self.w("  }")

    def text(self, name, note):
        head = ["/* %s */" % line for line in note] + [
            "library (%s) {" % name,
            "  delay_model : table_lookup;",
            '  time_unit : "1ns";',
            '  voltage_unit : "1V";',
            '  current_unit : "1mA";',
            '  pulling_resistance_unit : "1kohm";',
            '  leakage_power_unit : "1nW";',
            "  capacitive_load_unit (1, pf);",
            "  nom_process : 1;",
            "  nom_voltage : 1;",
            "  nom_temperature : 25;",
            "  input_threshold_pct_rise : 50;",
            "  input_threshold_pct_fall : 50;",
            "  output_threshold_pct_rise : 50;",
            "  output_threshold_pct_fall : 50;",
            "  slew_lower_threshold_pct_rise : 20;",
            "  slew_lower_threshold_pct_fall : 20;",
            "  slew_upper_threshold_pct_rise : 80;",
            "  slew_upper_threshold_pct_fall : 80;",
            "  default_input_pin_cap : 0;",
            "  default_output_pin_cap : 0;",
        ]
        for wd in sorted(self.widths):
            head.append("  type (bus%d) { base_type : array; data_type : bit; bit_width : %d; "
                        "bit_from : %d; bit_to : 0; downto : true; }" % (wd, wd, wd - 1))
        return "\n".join(head + self.out + ["}", ""])


def main():
    ap = argparse.ArgumentParser(description="Liberty library from the xc7 delay table")
    ap.add_argument("netlist")
    ap.add_argument("--top")
    ap.add_argument("--delays", default=timing.DEFAULT_DELAYS)
    ap.add_argument("--hop", type=float, help="ns per routing hop (default: the table's net_hop)")
    ap.add_argument("--corners", metavar="PREFIX", help="write the three hop corners")
    a = ap.parse_args()
    d = timing.load_delays(a.delays)
    try:
        with open(a.netlist) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("xc7-liberty: %s: %s" % (a.netlist, e))
    mods = doc.get("modules", {})
    top = a.top or next((m for m, v in mods.items() if v.get("attributes", {}).get("top")), None)
    if top not in mods:
        sys.exit("xc7-liberty: top module not found (use --top)")
    mod = mods[top]
    types = cell_ports(mod)
    nd = non_dedicated(mod)
    if nd:
        print("xc7-liberty: %d dedicated pins (CARRY4 CI, MUXF7/F8 I0/I1) driven from a general "
              "connection: the library times them without a hop" % nd, file=sys.stderr)
    if a.corners:
        outs = [("", d["net_hop"]), (".low", d["net_hop_low"]), (".high", d["net_hop_high"])]
    else:
        outs = [(None, d["net_hop"] if a.hop is None else a.hop)]
    for sfx, hop in outs:
        lib = Lib(d, hop)
        for t, ports in sorted(types.items()):
            lib.cell(t, ports)
        note = ["xc7-2: generated by synth/xc7-liberty.py from %s for %s" %
                (os.path.relpath(a.delays), top),
                "net_hop %.3f ns folded into the receiving pins; %d dedicated pins driven from "
                "a general connection" % (hop, nd)]
        if sfx is None:
            sys.stdout.write(lib.text("xc7_2_est", note))
        else:
            with open(a.corners + sfx + ".lib", "w") as f:
                f.write(lib.text("xc7_2_est", note))
    return 0


if __name__ == "__main__":
    sys.exit(main())
