#!/usr/bin/env bash
# Suite train-unit: gradient checks of every layer (test-layers), the
# schedules' merge planners (test-plan), the data order's shards
# (test-data: disjoint per iteration, an epoch covers the set), the IDX
# reader's errors on missing, corrupt, truncated and mis-shaped files, the
# command line's errors and refusals (options that would do nothing), and
# seeded single-process training: the loss falls and the same command twice
# gives bit-identical weights; the report (a malformed line named, labels
# from the compression table with EF), gossip's codec statistics. Last line
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
dir=${1:-build/train-test}
train=build/bin/inc-train
data=/usr/share/datasets/fashion-mnist
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in test-layers test-plan test-data; do
	out=$("$dir/$t" 2>&1)
	echo "$out" | sed 's/^/  /'
	p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$out")
	f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$out")
	[ -n "$p" ] || { p=0; f=1; }
	pass=$((pass + p)); fail=$((fail + f))
done

# expect STATUS PATTERN ARGS...: inc-train exits STATUS with one stderr line
# matching PATTERN.
expect() {
	local st=$1 pat=$2 rc err
	shift 2
	err=$(timeout 60 "$train" --quiet "$@" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq "$st" ] && grep -qE -e "$pat" <<<"$err" && [ "$(wc -l <<<"$err")" -eq 1 ]; then
		ok "exit $st, '$err' ($*)"
	else
		ko "expected exit $st and /$pat/, got exit $rc: $err ($*)"
	fi
}

[ -f "$data/train-images-idx3-ubyte.gz" ] || { ko "no Fashion-MNIST in $data (make deps)"; finish; }

# Data sets built from the real files: one broken thing each.
mk() { mkdir -p "$tmp/$1"; cp "$data"/*.gz "$tmp/$1/"; }
expect 2 "/nonexistent/train-images-idx3-ubyte.gz: no such file .*dataset-fashion-mnist" \
	--data /nonexistent --iterations 1
mk nolabels; rm "$tmp/nolabels/t10k-labels-idx1-ubyte.gz"
expect 2 "nolabels/t10k-labels-idx1-ubyte.gz: no such file" --data "$tmp/nolabels" --iterations 1
mk magic; zcat "$data/train-images-idx3-ubyte.gz" | { printf '\x00\x00\x08\x01'; tail -c +5; } \
	| gzip -1 >"$tmp/magic/train-images-idx3-ubyte.gz"
expect 2 "magic/train-images-idx3-ubyte.gz: not an IDX image file \(magic 0x00000801" \
	--data "$tmp/magic" --iterations 1
mk trunc; rm "$tmp/trunc/t10k-images-idx3-ubyte.gz"
zcat "$data/t10k-images-idx3-ubyte.gz" | head -c 1000000 >"$tmp/trunc/t10k-images-idx3-ubyte"
expect 2 "trunc/t10k-images-idx3-ubyte: truncated: the pixels needs 7840000 bytes, the file has 999984" \
	--data "$tmp/trunc" --iterations 1
mk gztrunc; head -c 300000 "$data/t10k-images-idx3-ubyte.gz" >"$tmp/gztrunc/t10k-images-idx3-ubyte.gz"
expect 2 "gztrunc/t10k-images-idx3-ubyte.gz: (truncated|corrupt)" --data "$tmp/gztrunc" --iterations 1
mk dims; zcat "$data/t10k-images-idx3-ubyte.gz" | { dd bs=1 count=8 status=none; printf '\x00\x00\x00\x20\x00\x00\x00\x1c'; tail -c +9; } \
	| gzip -1 >"$tmp/dims/t10k-images-idx3-ubyte.gz"
expect 2 "dims/t10k-images-idx3-ubyte.gz: 10000 images of 32x28, expected 28x28" \
	--data "$tmp/dims" --iterations 1
mk count; zcat "$data/t10k-labels-idx1-ubyte.gz" | head -c 5008 | gzip -1 >"$tmp/count/t10k-labels-idx1-ubyte.gz"
expect 2 "count/t10k-labels-idx1-ubyte.gz: (truncated|.*labels for)" --data "$tmp/count" --iterations 1
mk label; zcat "$data/t10k-labels-idx1-ubyte.gz" | { dd bs=1 count=8 status=none; printf '\x0c'; tail -c +2; } \
	| gzip -1 >"$tmp/label/t10k-labels-idx1-ubyte.gz"
expect 2 "label 12 of sample 0 is outside 0..9" --data "$tmp/label" --iterations 1
# The plain (uncompressed) MNIST spelling of the files works too.
mkdir -p "$tmp/plain"
for f in "$data"/*.gz; do zcat "$f" >"$tmp/plain/$(basename "$f" .gz)"; done
l=$("$train" --quiet --data "$tmp/plain" --iterations 3 --batch 50 2>&1)
grep -qE "^inc-train: rank 0 iterations 3 test-accuracy" <<<"$l" && ok "uncompressed IDX files load" \
	|| ko "uncompressed IDX files: $l"

# Command line.
expect 2 "--model: 'vgg' is not hdc or lenet" --model vgg
expect 2 "--iterations: '0' is not an integer" --iterations 0
expect 2 "--compression: 'zip' is not none, nic, software, cnat, cnat-det, sketch or inc\+sketch" --compression zip
expect 2 "--scheme: 'ps' is not inc or wa" --scheme ps
expect 2 "--compression sketch needs --scheme inc" --compression sketch --scheme wa
expect 2 "--compression inc\+sketch does not go with --schedule gossip" --compression inc+sketch --schedule gossip
expect 2 "--schedule: 'gather' is not sync, wfbp, bucket, mgwfbp or gossip" --schedule gather
expect 2 "--schedule gossip needs --scheme inc" --schedule gossip --scheme wa
expect 2 "--schedule wfbp needs --scheme inc" --schedule wfbp --scheme wa
expect 2 "--bucket-kb: '0' is not an integer" --schedule bucket --bucket-kb 0
expect 2 "--error-bound: '0' is not an integer in \[1, 126\]" --error-bound 0
expect 2 "--truncate: '32' is not an integer in \[0, 31\]" --truncate 32
# Options that would do nothing are refused.
expect 2 "--truncate does not go with --schedule gossip" --schedule gossip --truncate 16
expect 2 "--save-grads needs --schedule sync" --schedule wfbp --save-grads "$tmp/g.bin"
expect 2 "--save-grads needs --schedule sync" --schedule gossip --save-grads "$tmp/g.bin"
expect 2 "--bucket-kb needs --schedule bucket" --schedule wfbp --bucket-kb 256
expect 2 "--error-feedback does not go with --schedule gossip" --schedule gossip --error-feedback
expect 2 "--error-feedback needs a lossy compression \(nic, software, cnat, cnat-det, inc\+sketch\)" \
	--error-feedback
expect 2 "--scheme wa needs at least 2 ranks" --scheme wa --iterations 2
expect 1 "training diverged \(loss is not finite" --iterations 2000 --lr 5

# Seeded single-process training: the loss falls, the run repeats exactly.
a=$("$train" --quiet --iterations 60 --batch 100 --lr 0.05 --seed 7 --log "$tmp/a.json" --save "$tmp/a.bin" 2>&1)
b=$("$train" --quiet --iterations 60 --batch 100 --lr 0.05 --seed 7 --save "$tmp/b.bin" 2>&1)
c=$("$train" --quiet --iterations 60 --batch 100 --lr 0.05 --seed 8 2>&1)
echo "  $a"
first=$(grep '"type":"iter"' "$tmp/a.json" | head -n 1 | grep -o '"loss":[0-9.]*' | cut -d: -f2)
last=$(grep -o '"loss":[0-9.]*' "$tmp/a.json" | tail -n 1 | cut -d: -f2)
acc=$(sed -nE 's/.*test-accuracy ([0-9.]+).*/\1/p' <<<"$a")
awk -v f="$first" -v l="$last" 'BEGIN { exit !(l < 0.6 * f) }' && ok "loss falls from $first to $last" \
	|| ko "loss does not fall: $first -> $last"
awk -v a="$acc" 'BEGIN { exit !(a > 65) }' && ok "test accuracy $acc% after 60 iterations (> 65%)" \
	|| ko "test accuracy $acc% after 60 iterations"
[ "$a" = "$b" ] && cmp -s "$tmp/a.bin" "$tmp/b.bin" && ok "same seed: bit-identical weights and output" \
	|| ko "same seed differs: '$a' vs '$b'"
[ "$(awk '{print $NF}' <<<"$a")" != "$(awk '{print $NF}' <<<"$c")" ] && ok "another seed gives other weights" \
	|| ko "seed 8 gives the same weights as seed 7"
[ "$(stat -c %s "$tmp/a.bin")" -eq $((1149010 * 4)) ] && ok "--save writes 1149010 float32 values" \
	|| ko "--save size $(stat -c %s "$tmp/a.bin")"
l=$("$train" --quiet --model lenet --iterations 40 --batch 50 --lr 0.05 2>&1)
acc=$(sed -nE 's/.*test-accuracy ([0-9.]+).*/\1/p' <<<"$l")
awk -v a="${acc:-0}" 'BEGIN { exit !(a > 50) }' && ok "lenet trains: $acc% after 40 iterations" \
	|| ko "lenet: $l"

# The report on a real log: every plot and the table.
"$train" report "$tmp/a.json" --out "$tmp/rep" >/dev/null 2>&1
for f in fig12-breakdown.png fig13-accuracy.png fig14-compression.png report.md; do
	[ -s "$tmp/rep/$f" ] && ok "report writes $f" || ko "report did not write $f"
done
head -c 8 "$tmp/rep/fig13-accuracy.png" | od -An -tx1 | grep -q "89 50 4e 47" && ok "fig13 is a PNG" \
	|| ko "fig13 is not a PNG"
"$train" report "$tmp/rep/report.md" --out "$tmp/rep2" >/dev/null 2>&1 && ko "report accepts a non-log" \
	|| ok "report refuses a file that is not an inc-train log"
# A damaged line is named by file and line.
sed '3s/"loss":/"loss" /' "$tmp/a.json" >"$tmp/bad.json"
err=$("$train" report "$tmp/bad.json" --out "$tmp/rep3" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "bad.json:3: malformed record" <<<"$err" && ok "report names the malformed line: $err" \
	|| ko "report on a damaged line 3: exit $rc, '$err'"
# Labels from the library's compression table, error feedback shown;
# gossip's codec statistics (of the models sent) are taken.
"$train" --quiet --iterations 20 --batch 50 --compression software --log "$tmp/ef.json" >/dev/null 2>&1
"$train" --quiet --iterations 20 --batch 50 --compression software --no-error-feedback \
	--log "$tmp/noef.json" >/dev/null 2>&1
"$train" report "$tmp/ef.json" "$tmp/noef.json" --out "$tmp/rep4" >/dev/null 2>&1
grep -q '^| INC+C(sw) EF | ' "$tmp/rep4/report.md" && grep -q '^| INC+C(sw) | ' "$tmp/rep4/report.md" \
	&& ok "report labels: INC+C(sw) EF with error feedback, INC+C(sw) without" \
	|| ko "report labels: $(grep -o '^| [^|]* |' "$tmp/rep4/report.md" | head -n 4 | tr '\n' ' ')"
"$train" --quiet --iterations 20 --batch 50 --schedule gossip --stats-every 5 --log "$tmp/gossip.json" \
	>/dev/null 2>&1
r=$(sed -nE 's/.*"type":"summary".*"codec_ratio":([0-9.]+).*/\1/p' "$tmp/gossip.json")
awk -v r="${r:-0}" 'BEGIN { exit !(r > 1) }' && ok "gossip: codec statistics of the models sent, ratio ${r}x" \
	|| ko "gossip: codec statistics read ratio ${r:-?}"
finish
