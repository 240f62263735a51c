#!/usr/bin/env bash
# Suite train-rtl: inc-train over the RTL NICs. A short LeNet job (3
# workers, 20 iterations, compression nic, schemes inc and wa) runs twice on
# the emulated cluster: through nic-switch (the model's NICs) and through
# nic-switch-rtl -b rtl -x (Verilated compress/decompress engines per node,
# cross-checked frame by frame with the model, CSR counters compared with
# the switch's counts at the end). Each run's replicas must be
# bit-identical; the RTL run must end with the same weights (digest) and
# accuracy as the model run, since the NIC quantises per value whatever the
# segmentation. Needs root. Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. tests/lib.sh
require_root train-rtl
args=(--model lenet --iterations 20 --seed 3 --lr 0.05 --compression nic --quiet --check-every 5)
port=29820
for s in inc wa; do
	for b in model rtl; do
		opt=(); [ $b = rtl ] && opt=(-R)
		port=$((port + 1))
		timeout 600 cluster/train-cluster.sh -q -w 3 -r 2000 -P $port "${opt[@]}" -- \
			"${args[@]}" --scheme $s >"$tmp/$s-$b.out" 2>&1
		rc=$?
		grep -E '^rtl: ' "$tmp/$s-$b.out"
		[ $rc -eq 0 ] && ok "$s over the $b NICs: every rank finished" \
			|| { ko "$s over the $b NICs: exit status $rc"; tail -n 5 "$tmp/$s-$b.out"; }
		d=$(sed -nE 's/^inc-train: rank [0-9]+ .* weights ([0-9a-f]+)$/\1/p' "$tmp/$s-$b.out" | sort -u)
		nr=$(grep -c '^inc-train: rank ' "$tmp/$s-$b.out")
		[ "$nr" -ge 3 ] && [ "$(wc -l <<<"$d")" -eq 1 ] && ok "$s over the $b NICs: $nr replicas bit-identical ($d)" \
			|| ko "$s over the $b NICs: replicas differ or missing: $d"
		eval "dig_$b=\$d"
		eval "acc_$b=\$(sed -nE 's/^inc-train: rank 0 .* test-accuracy ([0-9.]+) .*/\1/p' \"\$tmp/\$s-\$b.out\")"
	done
	[ -n "$dig_rtl" ] && [ "$dig_rtl" = "$dig_model" ] \
		&& ok "$s: the RTL NICs give the model NICs' weights ($dig_rtl) and accuracy ($acc_rtl% = $acc_model%)" \
		|| ko "$s: RTL weights $dig_rtl ($acc_rtl%) differ from the model's $dig_model ($acc_model%)"
	grep -q 'CSR counters equal' "$tmp/$s-rtl.out" && ok "$s: RTL NICs' CSR counters equal the switch's counts" \
		|| ko "$s: no CSR counter agreement reported"
done
finish
