#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""plots.py STUDY.jsonl RATIOS.tsv - the plots and tables of simulate/study.sh.

Reads the inc-sim lines that study.sh collected (and RATIOS.tsv, its
record of each network's compression ratio and where it came from) and
writes, with gnuplot, docs/results/sim-fig15-10g.png, sim-scaling.png,
sim-speedup.png and sim-nic-vs-host.png (SIM_PNG_DIR: elsewhere), and
section.md beside STUDY.jsonl: the tables of docs/results.md's "Past one
machine" section.

plots.py --tta STUDY.jsonl [MORE.jsonl ...] - only the table "Time to equal
accuracy at scale" (printed, and written to tta.md beside STUDY.jsonl), from
the inc-sim lines already there: HDC's measured iterations to the target
(tta_source()) times the simulated iteration at each link rate and worker
count. Its INC+C cases are study.sh's "tta" ones (study.sh -t runs only
those, into OUT/tta.jsonl).
plots.py --tta-ratio - prints the INC+C run's ratio that those cases use.
"""
import json
import os
import re
import subprocess
import sys

MODELS = ["hdc", "alexnet", "vgg16", "resnet50"]
NAMES = {"hdc": "HDC", "alexnet": "AlexNet", "vgg16": "VGG-16", "resnet50": "ResNet-50"}
LINKS = [10, 25, 100]
OUT = "build/simulate"   # main() sets it to the study file's folder
PNG = os.environ.get("SIM_PNG_DIR", "docs/results")


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            s = d["sim"]
            s["case"] = d["case"]
            s["model"] = d["model"]
            rows.append(s)
    return rows


def run_label(s):
    if s["scheme"] == "wa":
        return "WA" if s["compression"] == "none" else "WA+C"
    return {"none": "INC", "nic": "INC+C", "software": "INC+C (host codec)"}[s["compression"]]


def pick(rows, **kw):
    return [r for r in rows if all(r.get(k) == v for k, v in kw.items())]


def one(rows, **kw):
    r = pick(rows, **kw)
    return r[0] if r else None


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def dat(name, lines):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def fig15(rows):
    """Fig. 15 as the paper draws it: WA and INC without compression, 4-8
    workers, each model's exchange normalised to its own 4-worker WA; the
    simulation (summation charged) beside the paper's formula."""
    f = pick(rows, case="fig15")
    models = [m for m in MODELS if pick(f, model=m)]
    ps = sorted({r["workers"] for r in f})
    norm = ["| model | workers | WA sim | WA paper formula | INC sim | INC paper formula |",
            "|---|---|---|---|---|---|"]
    ms = ["| model | workers | WA sim | WA paper formula | INC sim | INC paper formula |",
          "|---|---|---|---|---|---|"]
    plots = []
    for m in models:
        w4 = one(f, model=m, workers=ps[0], scheme="wa")
        lines = []
        for p in ps:
            wa, inc = one(f, model=m, workers=p, scheme="wa"), one(f, model=m, workers=p, scheme="inc")
            v = [wa["exchange_ms"] / w4["exchange_ms"], wa["paper_formula_ms"] / w4["paper_formula_ms"],
                 inc["exchange_ms"] / w4["exchange_ms"], inc["paper_formula_ms"] / w4["paper_formula_ms"]]
            lines.append(f"{p} " + " ".join("%.4f" % x for x in v))
            norm.append(f"| {NAMES[m]} | {p} | " + " | ".join("%.2f" % x for x in v) + " |")
            ms.append(f"| {NAMES[m]} | {p} | %.1f | %.1f | %.1f | %.1f |" % (
                wa["exchange_ms"], wa["paper_formula_ms"], inc["exchange_ms"], inc["paper_formula_ms"]))
        plots.append((m, dat(f"fig15-{m}.dat", lines)))
    rows_n = (len(plots) + 1) // 2
    script = [f'set terminal pngcairo size 1300,{380 * rows_n + 40} font ",10"',
              f'set output "{PNG}/sim-fig15-10g.png"',
              f'set multiplot layout {rows_n},2 title "Fig. 15 at 10 Gbit/s (simulated, no compression): '
              f'gradient exchange normalised to each model\'s 4-worker WA; solid: simulated, hatched: the paper\'s formula"',
              "set style data histogram; set style histogram cluster gap 1; set boxwidth 0.9",
              "set style fill solid 0.85 border -1; set grid ytics; set yrange [0:2.3]",
              "set key top left font ',9'; set xlabel 'workers'; set ylabel 'exchange / 4-worker WA'"]
    for m, d in plots:
        script.append(f'set title "{NAMES[m]}"')
        script.append(f'plot "{d}" u 2:xtic(1) lc 1 t "WA (sim)", "" u 3 lc 1 fs pattern 4 t "WA (paper formula)", '
                      f'"" u 4 lc 2 t "INC (sim)", "" u 5 lc 2 fs pattern 4 t "INC (paper formula)"')
    script.append("unset multiplot")
    if plots:
        gnuplot("\n".join(script) + "\n")
    # the constants the formula was evaluated with, from the rows themselves
    r = f[0] if f else None
    consts = []
    if r:
        consts = ["alpha %g us (the study's one-way latency), beta 1/(%g Gbit/s) = %.3f ns per byte, "
                  "gamma 1/(%.2f GB/s) = %.3f ns per byte (the host's summation, from an inc-train log's sum timer)"
                  % (r["latency_us"], r["link_gbps"], 8 / r["link_gbps"], r["sum_gbps"], 1 / r["sum_gbps"])]
    return norm, ms, consts


def ratio_table(path):
    t = ["| model | compression ratio | from |", "|---|---|---|"]
    with open(path) as f:
        for line in f:
            m, r, src = line.rstrip("\n").split("\t", 2)
            t.append(f"| {NAMES.get(m, m)} | {float(r):.2f} | {src} |")
    return t


def scaling(rows):
    s = pick(rows, case="scale")
    ps = sorted({r["workers"] for r in s})
    plots = []
    for mi, m in enumerate(MODELS):
        for g in LINKS:
            lines = []
            for p in ps:
                cells = [str(p)]
                for sch, comp, topo in (("wa", "none", "star"), ("inc", "none", "star"), ("inc", "nic", "star"),
                                        ("inc", "software", "star"), ("inc", "nic", "fattree")):
                    r = one(s, model=m, link_gbps=g, workers=p, scheme=sch, compression=comp, topology=topo)
                    cells.append("%.4f" % r["iter_ms"] if r else "NaN")
                lines.append(" ".join(cells))
            if any(c != "NaN" for ln in lines for c in ln.split()[1:]):
                plots.append((m, g, dat(f"scale-{m}-{g}.dat", lines)))
    if not plots:
        return
    script = [f'set terminal pngcairo size 1500,{330 * len(MODELS)} font ",9"',
              f'set output "{PNG}/sim-scaling.png"',
              f'set multiplot layout {len(MODELS)},{len(LINKS)} title "Iteration time vs workers (simulated; sync schedule; star unless marked)"',
              "set logscale xy; set grid; set key top left font ',8'; set xrange [3:1400]",
              'set xlabel "workers"; set ylabel "iteration (ms)"']
    for m, g, d in plots:
        script.append(f'set title "{NAMES[m]}, {g} Gbit/s"')
        script.append(f'plot "{d}" u 1:2 w lp pt 7 lc 1 t "WA", "" u 1:3 w lp pt 7 lc 2 t "INC", '
                      f'"" u 1:4 w lp pt 7 lc 4 t "INC+C (NIC)", "" u 1:5 w lp pt 6 lc 7 t "INC+C (host codec)", '
                      f'"" u 1:6 w lp pt 4 dt 2 lc 4 t "INC+C (NIC), fat tree 4:1"')
    script.append("unset multiplot")
    gnuplot("\n".join(script) + "\n")


def speedup(rows):
    s = pick(rows, case="scale", topology="star")
    ps = sorted({r["workers"] for r in s})
    script = [f'set terminal pngcairo size 1400,{320 * ((len(MODELS) + 1) // 2)} font ",10"',
              f'set output "{PNG}/sim-speedup.png"',
              f'set multiplot layout {(len(MODELS) + 1) // 2},2 title "Speed-up of INC+C (NIC) per iteration (simulated, star): solid over INC, dashed over WA"',
              "set logscale x; set logscale y; set grid; set key top left font ',8'; set xrange [3:1400]",
              'set xlabel "workers"; set ylabel "speed-up (x)"']
    table = ["| model | link | " + " | ".join(f"{p} w." for p in ps) + " |", "|---|---|" + "---|" * len(ps)]
    for m in MODELS:
        cols = []
        for g in LINKS:
            lines, cells_t = [], []
            for p in ps:
                c = one(s, model=m, link_gbps=g, workers=p, scheme="inc", compression="nic")
                i = one(s, model=m, link_gbps=g, workers=p, scheme="inc", compression="none")
                w = one(s, model=m, link_gbps=g, workers=p, scheme="wa", compression="none")
                if c and i and w:
                    lines.append(f'{p} {i["iter_ms"] / c["iter_ms"]:.4f} {w["iter_ms"] / c["iter_ms"]:.4f}')
                    cells_t.append(f'{i["iter_ms"] / c["iter_ms"]:.2f} / {w["iter_ms"] / c["iter_ms"]:.0f}')
                else:
                    cells_t.append("-")
            if lines:
                cols.append((g, dat(f"speedup-{m}-{g}.dat", lines)))
                table.append(f"| {NAMES[m]} | {g} Gbit/s | " + " | ".join(cells_t) + " |")
        if not cols:
            continue
        script.append(f'set title "{NAMES[m]}"')
        parts = []
        for k, (g, d) in enumerate(cols):
            parts.append(f'"{d}" u 1:2 w lp pt 7 lc {k + 1} t "{g} Gbit/s, over INC"')
            parts.append(f'"{d}" u 1:3 w l dt 2 lc {k + 1} t "{g} Gbit/s, over WA"')
        script.append("plot " + ", ".join(parts))
    script.append("unset multiplot")
    gnuplot("\n".join(script) + "\n")
    return table


def nic_vs_host(rows):
    s = pick(rows, case="scale", topology="star")
    ps = sorted({r["workers"] for r in s if r["compression"] == "software"})
    script = [f'set terminal pngcairo size 900,560 font ",11"', f'set output "{PNG}/sim-nic-vs-host.png"',
              'set title "INC+C iteration time, host codec / NIC engines (simulated, star)"',
              "set logscale x; set grid; set key outside right", 'set xlabel "workers"; set ylabel "host codec / NIC (x)"']
    parts, k = [], 0
    table = ["| model | link | " + " | ".join(f"{p} w." for p in ps) + " |", "|---|---|" + "---|" * len(ps)]
    for m in MODELS:
        for g in LINKS:
            lines, cells = [], []
            for p in ps:
                a = one(s, model=m, link_gbps=g, workers=p, scheme="inc", compression="software")
                b = one(s, model=m, link_gbps=g, workers=p, scheme="inc", compression="nic")
                if a and b:
                    lines.append(f'{p} {a["iter_ms"] / b["iter_ms"]:.4f}')
                    cells.append(f'{a["iter_ms"] / b["iter_ms"]:.2f}')
                else:
                    cells.append("-")
            if lines:
                k += 1
                parts.append(f'"{dat(f"nvh-{m}-{g}.dat", lines)}" u 1:2 w lp pt 7 lc {MODELS.index(m) + 1} '
                             f'dt {LINKS.index(g) + 1} t "{NAMES[m]} {g} Gbit/s"')
                table.append(f"| {NAMES[m]} | {g} Gbit/s | " + " | ".join(cells) + " |")
    if parts:
        gnuplot("\n".join(script) + "\nplot " + ", ".join(parts) + "\n")
    return table


def iter_table(rows):
    s = pick(rows, case="scale")
    ps = sorted({r["workers"] for r in s})
    t = ["| model | link | run | " + " | ".join(f"{p} w." for p in ps) + " |", "|---|---|---|" + "---|" * len(ps)]
    for m in MODELS:
        for g in LINKS:
            for sch, comp, topo, lab in (("wa", "none", "star", "WA"), ("inc", "none", "star", "INC"),
                                         ("inc", "nic", "star", "INC+C (NIC)"),
                                         ("inc", "software", "star", "INC+C (host codec)"),
                                         ("inc", "nic", "fattree", "INC+C (NIC), fat tree 4:1"),
                                         ("inc", "none", "fattree", "INC, fat tree 4:1")):
                cells = []
                for p in ps:
                    r = one(s, model=m, link_gbps=g, workers=p, scheme=sch, compression=comp, topology=topo)
                    cells.append("%.1f" % r["iter_ms"] if r else "-")
                if any(c != "-" for c in cells):
                    t.append(f"| {NAMES[m]} | {g} | {lab} | " + " | ".join(cells) + " |")
    return t


def nic512_table(rows):
    s = pick(rows, case="nic512")
    t = ["| model | link | INC | INC+C, 256-bit engines (65 Gb/s) | INC+C, 512-bit engines (128.5 Gb/s) | INC+C, host codec |",
         "|---|---|---|---|---|---|"]
    for m in MODELS:
        for g in LINKS:
            w = one(s, model=m, link_gbps=g)
            i = one(rows, case="scale", model=m, link_gbps=g, workers=64, scheme="inc", compression="none", topology="star")
            n = one(rows, case="scale", model=m, link_gbps=g, workers=64, scheme="inc", compression="nic", topology="star")
            h = one(rows, case="scale", model=m, link_gbps=g, workers=64, scheme="inc", compression="software", topology="star")
            if w and i and n:
                t.append(f"| {NAMES[m]} | {g} Gbit/s | {i['iter_ms']:.1f} | {n['iter_ms']:.1f} | {w['iter_ms']:.1f} | "
                         + (f"{h['iter_ms']:.1f}" if h else "-") + " |")
    return t


def sched_table(rows):
    s = pick(rows, case="sched")
    t = ["| model | run | sync | WFBP | bucket (25 MB) | MG-WFBP |", "|---|---|---|---|---|---|"]
    for m in ("resnet50", "vgg16"):
        for comp, lab in (("none", "INC"), ("nic", "INC+C (NIC)")):
            cells = []
            for sch in ("sync", "wfbp", "bucket", "mgwfbp"):
                r = one(s, model=m, compression=comp, schedule=sch)
                cells.append("%.1f (%d groups)" % (r["iter_ms"], r["groups"]) if r else "-")
            t.append(f"| {NAMES[m]} | {lab} | " + " | ".join(cells) + " |")
    return t


# Time to equal accuracy at scale. The iterations to the target are
# measured (HDC, 4 workers, make time-to-accuracy): its fresh table
# build/time-to-accuracy/section.md, else the one it wrote into
# docs/results.md (TTA_MD: another file). No other network has measured
# iteration counts, so HDC only.
def tta_source():
    for path in (os.environ.get("TTA_MD"), "build/time-to-accuracy/section.md", "docs/results.md"):
        if path and os.path.exists(path):
            return path
    return None


def tta_runs(path):
    """{label: (iterations or None, wire MB per iteration)} from the table of
    the "Time to accuracy" section of PATH."""
    runs, inside = {}, path.endswith("section.md")
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                inside = line.startswith("## Time to accuracy")
                continue
            if not inside or not line.startswith("| ") or line.startswith("| run "):
                continue
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(c) < 6:
                continue
            it = re.match(r"iteration (\d+)", c[5])
            runs[c[0]] = (int(it.group(1)) if it else None, float(c[3]))
    return runs


def tta_pick(runs):
    """(WA, INC, INC+C label) of the measured table: INC+C is the INC+C run
    that reaches the target in the fewest iterations (then the fewest wire
    bytes); its ratio for inc-sim is INC's wire bytes over its own (scaling
    and error feedback included: what the NIC sends)."""
    cs = [(v[0], v[1], k) for k, v in runs.items() if k.startswith("INC+C") and v[0]]
    return "WA", "INC", (min(cs)[2] if cs else None)


def tta_ratio():
    src = tta_source()
    if not src:
        return None
    runs = tta_runs(src)
    _, inc, c = tta_pick(runs)
    if not c or inc not in runs:
        return None
    return runs[inc][1] / runs[c][1]


def tta_table(rows):
    src = tta_source()
    if not src:
        return ["No measured time-to-accuracy table (make time-to-accuracy) was found."]
    runs = tta_runs(src)
    wa, inc, c = tta_pick(runs)
    s = pick(rows, model="hdc", topology="star", schedule="sync")
    ps = sorted({r["workers"] for r in s if r["case"] in ("scale", "tta")})
    t = [f"Iterations to the target from {src}: WA {runs[wa][0]}, INC {runs[inc][0]}, "
         + (f"{c} {runs[c][0]} (inc-sim ratio {runs[inc][1] / runs[c][1]:.2f}: INC's wire bytes over its own)."
            if c else "no INC+C run reaches it."), "",
         "| link | run | iterations | " + " | ".join(f"{p} w." for p in ps) + " |", "|---|---|---|" + "---|" * len(ps)]
    for g in LINKS:
        for lab, run, case, comp in (("WA", wa, "scale", "none"), ("INC", inc, "scale", "none"),
                                     ("INC+C (NIC)", c, "tta", "nic")):
            n = runs.get(run, (None, 0))[0] if run else None
            cells = []
            for p in ps:
                r = one(s, case=case, link_gbps=g, workers=p, scheme="wa" if lab == "WA" else "inc", compression=comp)
                cells.append(f"{n * r['iter_ms'] / 1000:.1f} s ({r['iter_ms']:.1f} ms)" if r and n else "-")
            t.append(f"| {g} Gbit/s | {lab} | {n if n else 'never'} | " + " | ".join(cells) + " |")
    return t


def tta_main(paths):
    global OUT
    OUT = os.path.dirname(paths[0]) or "."
    rows = [r for p in paths if os.path.exists(p) for r in load(p)]
    t = ["### Time to equal accuracy at scale (HDC, simulated iteration x measured iterations)", ""] + tta_table(rows)
    with open(os.path.join(OUT, "tta.md"), "w") as f:
        f.write("\n".join(t) + "\n")
    print("\n".join(t))


def main():
    if sys.argv[1:2] == ["--tta-ratio"]:
        r = tta_ratio()
        print("%.4f" % r if r else "")
        return
    if sys.argv[1:2] == ["--tta"]:
        tta_main(sys.argv[2:])
        return
    global OUT
    OUT = os.path.dirname(sys.argv[1]) or "."
    rows = load(sys.argv[1])
    sec = ["### Compression ratio of each network (2^-10)", ""] + ratio_table(sys.argv[2]) + [""]
    norm, ms, consts = fig15(rows)
    sec += ["### Fig. 15 at 10 Gbit/s: exchange normalised to each model's 4-worker WA", ""] + consts + [""]
    sec += norm + [""]
    sec += ["### Fig. 15 at 10 Gbit/s: exchange ms per iteration", ""] + ms + [""]
    scaling(rows)
    sp = speedup(rows)
    sec += ["### Iteration ms (sync schedule)", ""] + iter_table(rows) + [""]
    sec += ["### Speed-up of INC+C (NIC): over INC / over WA", ""] + (sp or []) + [""]
    sec += ["### Host codec / NIC engines (INC+C iteration time)", ""] + nic_vs_host(rows) + [""]
    sec += ["### The NIC's engines: 256 vs 512 bits, and the host codec (64 workers, iteration ms)", ""] + nic512_table(rows) + [""]
    sec += ["### Layer-wise schedules, 64 workers, 10 Gbit/s (iteration ms)", ""] + sched_table(rows) + [""]
    sec += ["### Time to equal accuracy at scale (HDC, simulated iteration x measured iterations)", ""] + tta_table(rows) + [""]
    with open(os.path.join(OUT, "section.md"), "w") as f:
        f.write("\n".join(sec))
    print(f"plots: {PNG}/sim-*.png, tables: {OUT}/section.md")


if __name__ == "__main__":
    main()
