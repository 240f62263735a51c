#!/usr/bin/python3
"""accuracy-table.py OUT RES ITERS WORKERS "MODELS" [SEED] - the "Equal accuracy"
section of docs/results.md from the logs of experiments/train-accuracy.sh
(OUT/<model>-<run>.json, inc-train's JSON lines), printed to stdout, and
one accuracy-vs-iteration plot per model (RES/accuracy-<model>.png, gnuplot).
"""
import json
import os
import re
import subprocess
import sys

RUNS = [  # name, label, paper's figure beside it
    ("inc", "INC (uncompressed)", "baseline"),
    ("inc-c10-default", "INC+C defaults (2^-10, EF, balanced scaling at 8 after a 2 % warm-up)",
     "the defaults (docs/results.md, \"Equal accuracy by default\")"),
    ("inc-c6", "INC+C 2^-6", "Fig. 14: < 2 points below, ~15x"),
    ("inc-c6-ef", "INC+C 2^-6 EF", ""),
    ("inc-c8", "INC+C 2^-8", "Fig. 14: between 2^-6 and 2^-10"),
    ("inc-c8-ef", "INC+C 2^-8 EF", ""),
    ("inc-c10", "INC+C 2^-10", "Fig. 13/14: ~1.5 points below at equal epochs, "
                               "1-2 more epochs to catch up"),
    ("inc-c10-ef", "INC+C 2^-10 EF", ""),
    ("inc-c10-ef-s2", "INC+C 2^-10 EF, scaled (K=2)", ""),
    ("inc-c10-ef-s3", "INC+C 2^-10 EF, scaled (K=3)", ""),
    ("inc-c10-ef-r12", "INC+C 2^-10 EF, scaled (ratio 12)", ""),
    ("inc-c10-ef-r10", "INC+C 2^-10 EF, scaled (ratio 10)", ""),
    ("cnat", "C_nat", "(natural compression paper: unbiased, 4x)"),
    ("t16", "16b-T", "Fig. 14: 2x, loses accuracy on larger nets"),
    ("t16-ef", "16b-T EF", ""),
]


def load(path):
    """(config, evals [(iter, acc)], summary) of one log; None if absent."""
    if not os.path.exists(path):
        return None
    cfg, evals, summ = {}, [], None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError as e:
                sys.exit("accuracy-table: %s:%d: malformed JSON (%s)" % (path, no, e))
            t = rec.get("type")
            if t == "config":
                cfg = rec
            elif t == "eval":
                evals.append((rec["iter"], rec["accuracy"]))
            elif t == "summary":
                summ = rec
    return cfg, evals, summ


def diverged(path):
    """The iteration at which inc-train found the loss not finite, or None."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        m = re.search(r"loss is not finite at iteration (\d+)", f.read())
    return m.group(1) if m else None


def main():
    out, res, iters, workers, models = sys.argv[1:6]
    seed = sys.argv[6] if len(sys.argv) > 6 else "1"
    print("## Equal accuracy: error feedback over the whole schedule")
    print()
    print("Written by `make accuracy` (experiments/train-accuracy.sh): %s workers on "
          "loopback (`inc-run -n %s inc-train --scheme inc --seed %s ...`), Table I's "
          "schedule: %s iterations, batch 25 per worker, lr 0.1 divided by 5 every "
          "2000 iterations, momentum 0.9; compression in software mode, whose values "
          "are the NICs' (with error feedback `nic` delivers the same bits: "
          "`make test-train-ef`). *Reaches* is the first evaluation (every %d "
          "iterations) at which a run's test accuracy is at least the uncompressed "
          "run's final accuracy minus 0.3 points; *ratio* is the size of the "
          "gradients over what the codec sent (the values actually sent: gradient "
          "plus residual with error feedback; truncation: the nominal 32/(32-T))."
          % (workers, workers, seed, iters, max(int(iters) // 40, 1)))
    print()
    for m in models.split():
        logs = {name: load(os.path.join(out, "%s-%s.json" % (m, name))) for name, _, _ in RUNS}
        base = logs.get("inc")
        if not base or not base[2]:
            print("(%s: no complete uncompressed run)" % m)
            continue
        target = base[2]["accuracy"] - 0.3
        title = {"hdc": "HDC", "lenet": "LeNet"}.get(m, m)
        print("### %s" % title)
        print()
        print("| run | final accuracy | vs INC | reaches INC - 0.3 at | ratio | paper |")
        print("|---|---|---|---|---|---|")
        curves = []
        for name, label, paper in RUNS:
            lg = logs.get(name)
            div = diverged(os.path.join(out, "%s-%s.out" % (m, name)))
            if lg and not lg[2] and div:
                print("| %s | diverged (loss not finite at iteration %s) | | never | | %s |" % (
                    label, div, paper))
                continue
            if not lg or not lg[2]:
                continue
            cfg, evals, s = lg
            reach = next((it for it, a in evals if a >= target), None)
            ratio = s.get("codec_ratio", 0) or 0
            if cfg.get("compression") == "none":
                ratio = 1.0
            if cfg.get("truncate"):
                ratio = 32.0 / (32 - cfg["truncate"])
            ratio_s = "%.1fx" % ratio if ratio else "1x"
            warm = cfg.get("warmup_iters", 0) or 0
            if ratio and warm and not cfg.get("warmup_error_bound"):
                # codec_ratio covers the compressed iterations; the warm-up's
                # values travel at 32 bits
                w = float(warm) / cfg["iterations"]
                ratio_s = "%.1fx (%.1fx after the warm-up)" % (1.0 / ((1 - w) / ratio + w), ratio)
            print("| %s | %.2f %% | %+.2f | %s | %s | %s |" % (
                label, s["accuracy"], s["accuracy"] - base[2]["accuracy"],
                "iteration %d" % reach if reach is not None else "never",
                ratio_s, paper))
            dat = os.path.join(out, "%s-%s.dat" % (m, name))
            with open(dat, "w") as f:
                for it, a in evals:
                    f.write("%d %.2f\n" % (it, a))
            curves.append((dat, label, name))
        print()
        png = os.path.join(res, "accuracy-%s.png" % m)
        # one colour per setting; without feedback dashed, with it solid;
        # gnuplot's enhanced text: 2^{-10}, C\_nat
        colours = {"inc": "black", "inc-c6": "#1b9e77", "inc-c8": "#d95f02",
                   "inc-c10": "#7570b3", "inc-c10-ef-s2": "#e7298a",
                   "inc-c10-ef-s3": "#66a61e", "inc-c10-ef-r12": "#e6ab02",
                   "inc-c10-ef-r10": "#1f78b4", "cnat": "#a6761d", "t16": "#666666"}
        plot = ", ".join("'%s' using 1:2 with lines lw 2 dt %d lc rgb '%s' title '%s'" % (
            d, 1 if name == "inc" or "-ef" in name else 2,
            colours.get(name, colours.get(name.replace("-ef", ""), "gray")),
            re.sub(r"2\^-(\d+)", r"2^{-\1}", l).replace("_", "\\_"))
            for d, l, name in curves)
        gp = ("set terminal pngcairo size 960,600 font 'Sans,11'\n"
              "set output '%s'\nset title '%s: test accuracy over the schedule (%s workers)'\n"
              "set xlabel 'iteration'\nset ylabel 'test accuracy (%%)'\nset key bottom right\n"
              "set grid\nset yrange [%g:*]\nset arrow from graph 0, first %g to graph 1, first %g "
              "nohead dt 2 lc rgb 'gray'\nplot %s\n" % (
                  png, title, workers, max(target - 8, 0), target, target, plot))
        subprocess.run(["gnuplot"], input=gp.encode(), check=True)
        # seed 1's section goes into docs/results.md, another seed's beside its plots
        print("![%s accuracy](%s)" % (m, os.path.relpath(png, "docs") if seed == "1"
                                      else os.path.basename(png)))
        print()
        print("The dashed line is INC's final accuracy minus 0.3 points.")
        print()


if __name__ == "__main__":
    main()
