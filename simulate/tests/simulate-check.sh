#!/usr/bin/env bash
# simulate-check.sh - inc-sim against what it must agree with (suite
# `simulate`, about 10 s):
#  - the ring with zero latency and compute on a case it was not tuned to
#    (16 workers, 1 Gbit/s, 100 MB, no compression) within 10 % of the
#    alpha-beta formula 2(p-1) n/(p B) (computed here, not by inc-sim);
#  - WA's exchange grows linearly with p (4, 8, 16: x2 and x4 within 10 %)
#    while the ring's stays flat (16 vs 4 workers within the formula's
#    2(p-1)/p growth, 1.25x, +10 %);
#  - nic compression at ratio 10 cuts the link-bound exchange at least 5x;
#    at 100 Gbit/s the 256-bit engines (65 Gb/s) make it slower than none;
#  - a fat tree without oversubscription matches the star; 4:1 changes
#    neither the ring (one flow per leaf crosses the spine) nor WA (its
#    bottleneck is the aggregator's link);
#  - an inc-train log (a measured emulated-cluster run) sets the compute:
#    iter_ms - exchange_ms equals the log's data+forward+backward+update;
#  - software mode reads inc-bench's table; bad options fail with a message;
#  - the host's summation: paper_formula_ms is the paper's WA and INC
#    formulas (computed here), --sum-log reads a log's sum timer as the rate,
#    and a summation slower than the link bounds the ring's reduce-scatter.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
sim=build/bin/inc-sim
[ -x $sim ] || skip_all "simulate: $sim not built"
t=simulate/tests
jnum() { grep -o "\"$1\":[0-9.eE+-]*" | head -n 1 | cut -d: -f2; }
run() { $sim "$@" | jnum exchange_ms; }
# within A B TOL: |A/B - 1| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b - 1; exit !(r <= t && r >= -t) }'; }

# 1. ring vs the alpha-beta formula (--wire-overhead 1: the bytes given plus
# 1 % of frame headers)
n=100000000
r16=$(run --workers 16 --link-gbps 1 --latency-us 0 --compute-ms 0 --model-bytes $n --scheme inc --wire-overhead 1)
f16=$(awk -v n=$n 'BEGIN { p = 16; B = 1e9 / 8; printf "%.4f", 2 * (p - 1) * n / (p * B) * 1e3 }')
if within "$r16" "$f16" 0.10; then ok "ring, 16 workers, 1 Gbit/s, 100 MB: $r16 ms vs formula $f16 ms"
else ko "ring, 16 workers: $r16 ms vs formula $f16 ms (more than 10 % apart)"; fi

# 2. WA linear in p, ring flat
for p in 4 8 16; do
	eval "wa$p=\$(run --workers $p --link-gbps 1 --compute-ms 0 --model-bytes 20000000 --scheme wa --wire-overhead 1)"
	eval "ri$p=\$(run --workers $p --link-gbps 1 --compute-ms 0 --model-bytes 20000000 --scheme inc --wire-overhead 1)"
done
# shellcheck disable=SC2154
if within "$wa8" "$(awk -v a="$wa4" 'BEGIN { print 2 * a }')" 0.10 &&
   within "$wa16" "$(awk -v a="$wa4" 'BEGIN { print 4 * a }')" 0.10; then
	ok "WA linear in p: $wa4 / $wa8 / $wa16 ms at 4 / 8 / 16 workers"
else ko "WA not linear in p: $wa4 / $wa8 / $wa16 ms"; fi
# shellcheck disable=SC2154
if awk -v a="$ri4" -v b="$ri16" 'BEGIN { exit !(b / a >= 1.0 && b / a <= 1.25 * 1.10) }'; then
	ok "ring flat: $ri4 ms at 4, $ri16 ms at 16 workers"
else ko "ring not flat: $ri4 ms at 4, $ri16 ms at 16 workers"; fi

# 3. nic compression
c=$(run --workers 8 --link-gbps 1 --model-bytes 20000000 --scheme inc --compression nic --ratio 10 --wire-overhead 1)
if awk -v a="$c" -v b="$(run --workers 8 --link-gbps 1 --model-bytes 20000000 --scheme inc --wire-overhead 1)" \
	'BEGIN { exit !(b / a >= 5) }'; then ok "nic at ratio 10 cuts the 1 Gbit/s ring exchange >= 5x ($c ms)"
else ko "nic at ratio 10 cuts the exchange less than 5x ($c ms)"; fi
c=$(run --workers 8 --link-gbps 100 --model-bytes 100000000 --scheme inc --compression nic --ratio 10)
u=$(run --workers 8 --link-gbps 100 --model-bytes 100000000 --scheme inc)
if awk -v a="$c" -v b="$u" 'BEGIN { exit !(a > b) }'; then
	ok "100 Gbit/s: the 256-bit engines bound the ring ($c ms) above no compression ($u ms)"
else ko "100 Gbit/s: nic $c ms not above none $u ms (engines at 65 Gb/s should bound it)"; fi
if $sim --workers 8 --link-gbps 10 --model-bytes 1000000 --compression nic --ratio 10 --rtl /nonexistent.json \
	>/dev/null 2>"$t.err"; then ko "a missing --rtl file was accepted"
else ok "a missing --rtl file fails: $(head -n 1 "$t.err")"; fi

# 4. topologies
s=$(run --workers 32 --link-gbps 10 --model-bytes 50000000 --scheme inc --topology star)
f1=$(run --workers 32 --link-gbps 10 --model-bytes 50000000 --scheme inc --topology fattree --leaf 8 --oversub 1)
f4=$(run --workers 32 --link-gbps 10 --model-bytes 50000000 --scheme inc --topology fattree --leaf 8 --oversub 4)
w1=$(run --workers 32 --link-gbps 10 --model-bytes 50000000 --scheme wa --topology fattree --leaf 8 --oversub 1)
w4=$(run --workers 32 --link-gbps 10 --model-bytes 50000000 --scheme wa --topology fattree --leaf 8 --oversub 4)
if within "$f1" "$s" 0.05; then ok "fat tree 1:1 ($f1 ms) matches the star ($s ms), ring"
else ko "fat tree 1:1 ($f1 ms) vs star ($s ms)"; fi
# one ring flow per leaf crosses the spine, and WA's bottleneck is the
# aggregator's own link: neither should feel a 4:1 oversubscription
if within "$f4" "$f1" 0.05 && within "$w4" "$w1" 0.05; then
	ok "fat tree 4:1 vs 1:1: ring $f4 / $f1 ms, WA $w4 / $w1 ms (the spine is not their bottleneck)"
else ko "fat tree 4:1 vs 1:1: ring $f4 / $f1 ms, WA $w4 / $w1 ms"; fi

# 5. an inc-train log's timers
out=$($sim --from-log $t/hdc-inc-c-4.json --link-gbps 0.25 --scheme inc --compression nic)
comp=$(grep '"type":"summary"' $t/hdc-inc-c-4.json | awk -F'[,:]' '{ for (i = 1; i < NF; i++)
	if ($i ~ /"(data|forward|backward|update)_ms"/) s += $(i + 1) } END { printf "%.4f", s }')
d=$(awk -v i="$(echo "$out" | jnum iter_ms)" -v e="$(echo "$out" | jnum exchange_ms)" 'BEGIN { printf "%.4f", i - e }')
if within "$d" "$comp" 0.001 && [ "$(echo "$out" | jnum workers)" = 4 ]; then
	ok "from the log: 4 workers, compute $d ms = the log's timers $comp ms"
else ko "from the log: compute $d ms vs the log's $comp ms ($out)"; fi

# 6. software mode and bad options
sw=$(run --workers 8 --link-gbps 10 --model-bytes 100000000 --scheme inc --compression software --ratio 9 --bench $t/inc-bench-codec.txt)
nic=$(run --workers 8 --link-gbps 10 --model-bytes 100000000 --scheme inc --compression nic --ratio 9)
if awk -v a="$sw" -v b="$nic" 'BEGIN { exit !(a > b) }'; then ok "software codec ($sw ms) slower than the NIC ($nic ms) at 10 Gbit/s"
else ko "software codec ($sw ms) not slower than the NIC ($nic ms)"; fi
for bad in "--scheme foo" "--compression nic" "--compression software --ratio 9" "--workers 0" "--link-gbps x"; do
	# shellcheck disable=SC2086
	if $sim --workers 4 --link-gbps 1 --model-bytes 1000000 $bad >/dev/null 2>"$t.err"; then
		ko "accepted: $bad"
	elif [ -s "$t.err" ]; then ok "refused with a message: $bad ($(head -n 1 "$t.err"))"
	else ko "refused without a message: $bad"; fi
done

# 7. the host's summation and the paper's formula (Sec. VIII-D, log base 2)
n=50000000
for sc in wa inc; do
	got=$($sim --workers 8 --link-gbps 10 --latency-us 5 --compute-ms 0 --model-bytes $n --scheme $sc \
		--sum-gbps 5 | jnum paper_formula_ms)
	want=$(awk -v n=$n -v sc=$sc 'BEGIN { p = 8; a = 5e-6; b = 8 / 10e9; g = 1 / 5e9; l = log(p) / log(2)
		t = sc == "wa" ? (1 + l) * a + (p + l) * n * b + (p - 1) * n * g \
			       : 2 * (p - 1) * a + 2 * (p - 1) / p * n * b + (p - 1) / p * n * g
		printf "%.4f", t * 1e3 }')
	if within "$got" "$want" 0.0001; then ok "paper's formula, $sc, 8 workers: $got ms"
	else ko "paper's formula, $sc, 8 workers: inc-sim $got ms, here $want ms"; fi
done
rate=$($sim --workers 4 --link-gbps 10 --model-bytes 1000000 --sum-log $t/hdc-inc-c-4.json | jnum sum_gbps)
want=$(awk -F'[,:]' '/"type":"config"/ { for (i = 1; i < NF; i++) if ($i == "\"params\"") n = $(i + 1) * 4 }
	/"type":"summary"/ { for (i = 1; i < NF; i++) if ($i == "\"sum_ms\"") ms = $(i + 1) }
	END { printf "%.4f", 0.75 * n / (ms * 1e-3) / 1e9 }' $t/hdc-inc-c-4.json)
if within "$rate" "$want" 0.001; then ok "--sum-log: $rate GB/s, 3/4 of the log's gradient bytes over its sum timer"
else ko "--sum-log: $rate GB/s, expected $want"; fi
# summing at 0.05 GB/s behind a 1 Gbit/s (0.125 GB/s) link: the p-1
# reduce-scatter steps run at the sum's rate, the all-gather at the link's
fast=$(run --workers 4 --link-gbps 1 --latency-us 0 --compute-ms 0 --model-bytes 20000000 --scheme inc --wire-overhead 1)
slow=$(run --workers 4 --link-gbps 1 --latency-us 0 --compute-ms 0 --model-bytes 20000000 --scheme inc --wire-overhead 1 --sum-gbps 0.05)
want=$(awk 'BEGIN { c = 20000000 / 4; printf "%.4f", 3 * (c / 0.05e9 + c / 0.125e9) * 1e3 }')
if within "$slow" "$want" 0.10 && awk -v a="$slow" -v b="$fast" 'BEGIN { exit !(a > 1.5 * b) }'; then
	ok "a 0.05 GB/s summation bounds the reduce-scatter: $slow ms (estimate $want, link only $fast)"
else ko "a 0.05 GB/s summation: $slow ms, estimate $want ms, link only $fast ms"; fi
if $sim --workers 4 --link-gbps 1 --model-bytes 1000000 --sum-gbps 1 --sum-log $t/hdc-inc-c-4.json >/dev/null 2>"$t.err"; then
	ko "accepted both --sum-gbps and --sum-log"
else ok "refused with a message: --sum-gbps with --sum-log ($(head -n 1 "$t.err"))"; fi
rm -f "$t.err"
finish
