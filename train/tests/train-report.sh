#!/usr/bin/env bash
# Suite train-report: `inc-train report` on logs a user or a damaged file
# can give it. Every field is checked for type and range and a bad one is
# named as FILE:LINE: field NAME; absurd worker counts are refused instead
# of driving a loop (the report answers within seconds, here under a 60 s
# guard that only turns a hang into a failure); names come from the
# compression table and the model and schedule lists. inc-train --log
# /dev/full fails. Last line: "N passed, N failed, N skipped".
# Usage: train-report.sh INC-TRAIN
set -u
cd "$(dirname "$0")/../.."
train=${1:-build/bin/inc-train}
t=$(mktemp -d /tmp/inc-report.XXXXXX)
trap 'rm -rf "$t"' EXIT
. tests/lib.sh

config() { # config WORKERS [EXTRA-FIELDS]
	printf '{"type":"config","model":"hdc","scheme":"inc","compression":"software","error_bound":10,"truncate":0,"workers":%s,"iterations":20,"schedule":"sync","error_feedback":true%s}\n' "$1" "${2:-}"
}
evalrec() { printf '{"type":"eval","iter":20,"time":1.0,"accuracy":71.5,"test_loss":0.8}\n'; }
summary() { # summary [EXTRA-FIELDS]
	printf '{"type":"summary","iterations":20,"train_s":1.0,"iter_ms":50.0,"data_ms":1,"forward_ms":10,"backward_ms":20,"sum_ms":2,"comm_ms":15,"update_ms":2,"codec_ms":1,"bytes_sent":1000,"bytes_per_iter":50.0,"codec_ratio":4.5,"share2":0.5,"share10":0.3,"share18":0.1,"share34":0.1,"accuracy":71.5,"test_loss":0.8,"loss":0.7%s}\n' "${1:-}"
}
# refused NAME EXPECTED-TEXT LOG...: exit 2 within the guard, one line
# naming the expected text, and no report written.
refused() {
	local d=$1 want=$2 rc err
	shift 2
	rm -rf "$t/out"
	err=$(timeout 60 "$train" report "$@" --out "$t/out" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$err" && [ "$(wc -l <<<"$err")" -eq 1 ] &&
	   [ ! -e "$t/out/report.md" ]; then
		ok "$d: $err"
	else
		ko "$d: exit $rc, '$err' (want '$want')"
	fi
}

{ config 1; evalrec; summary; } >"$t/w1.json"
{ config 2; evalrec; summary; } >"$t/w2.json"
{ config 65536; evalrec; summary; } >"$t/w65536.json"
rm -rf "$t/out"
timeout 60 "$train" report "$t/w1.json" "$t/w2.json" --out "$t/out" >/dev/null 2>&1
[ $? -eq 0 ] && [ -s "$t/out/report.md" ] && ok "a good hand-written log: report written" \
	|| ko "a good hand-written log: no report"
timeout 60 "$train" report "$t/w1.json" "$t/w65536.json" --out "$t/out" >/dev/null 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -vc '^#' "$t/out/fig15-0.dat")" -eq 2 ] \
	&& ok "workers 1 and 65536: answered, two points on the scaling curve" \
	|| ko "workers 1 and 65536: exit $rc"

{ config 2000000000; summary; } >"$t/a.json"
refused "workers 2000000000" "a.json:1: field workers: 2000000000 out of range" "$t/w1.json" "$t/a.json"
{ config 1e300; summary; } >"$t/a.json"
refused "workers 1e300" "a.json:1: field workers: 1e+300 is not an integer" "$t/w1.json" "$t/a.json"
{ config 0; summary; } >"$t/a.json"
refused "workers 0" "a.json:1: field workers: 0 out of range" "$t/a.json"
{ config 2.5; summary; } >"$t/a.json"
refused "workers 2.5" "field workers: 2.5 is not an integer" "$t/a.json"
{ config 4 | sed 's/"model":"hdc"/"model":5/'; summary; } >"$t/a.json"
refused '"model":5' "a.json:1: field model: not a string" "$t/a.json"
{ config 4 | sed 's/"model":"hdc"/"model":"resnet"/'; summary; } >"$t/a.json"
refused "an unknown model" "field model: 'resnet' is not a model" "$t/a.json"
{ config 4 | sed 's/"compression":"software"/"compression":"zip"/'; summary; } >"$t/a.json"
refused "an unknown compression" "a.json:1: field compression: 'zip' is not in the compression table" "$t/a.json"
{ config 4 | sed 's/"scheme":"inc"/"scheme":"ps"/'; summary; } >"$t/a.json"
refused "an unknown scheme" "field scheme: 'ps'" "$t/a.json"
{ config 4 | sed 's/"schedule":"sync"/"schedule":"later"/'; summary; } >"$t/a.json"
refused "an unknown schedule" "field schedule: 'later'" "$t/a.json"
{ config 4 | sed 's/"error_bound":10/"error_bound":500/'; summary; } >"$t/a.json"
refused "error bound 500" "field error_bound: 500 out of range" "$t/a.json"
{ config 4 | sed 's/"error_feedback":true/"error_feedback":"yes"/'; summary; } >"$t/a.json"
refused "error_feedback a string" "field error_feedback: not true or false" "$t/a.json"
{ config 4 | sed 's/"iterations":20/"iterations":-5/'; summary; } >"$t/a.json"
refused "iterations -5" "field iterations: -5 out of range" "$t/a.json"
{ config 4; evalrec; summary ',"iter_ms":"fast"' | sed 's/"iter_ms":50.0,//'; } >"$t/a.json"
refused '"iter_ms":"fast"' "a.json:3: field iter_ms: not a number" "$t/a.json"
{ config 4; summary | sed 's/"comm_ms":15/"comm_ms":-1/'; } >"$t/a.json"
refused "comm_ms -1" "a.json:2: field comm_ms: -1 out of range" "$t/a.json"
{ config 4; summary | sed 's/"accuracy":71.5/"accuracy":170/'; } >"$t/a.json"
refused "accuracy 170" "field accuracy: 170 out of range" "$t/a.json"
{ config 4; summary | sed 's/"share2":0.5/"share2":null/'; } >"$t/a.json"
refused "share2 null" "field share2: not a number" "$t/a.json"
{ config 4; printf '{"type":"eval","iter":3,"time":1e300,"accuracy":50}\n'; summary; } >"$t/a.json"
refused "eval time 1e300" "a.json:2: field time: 1e+300 out of range" "$t/a.json"
{ config 4; printf '{"type":"wire","bytes_wire_per_iter":"many"}\n'; summary; } >"$t/a.json"
refused "wire bytes a string" "field bytes_wire_per_iter: not a number" "$t/a.json"
{ config 4; for i in $(seq 4097); do evalrec; done; summary; } >"$t/a.json"
refused "4097 eval records" "a.json:4098: field type: more than 4096 eval records" "$t/a.json"
{ config 4; summary; } >"$t/a.json"
printf '{"type":"summary","x":"\\u0000"}' | tr -d '\n' >>"$t/a.json"
printf '\0\n' >>"$t/a.json"
refused "a NUL byte" "a.json:3: malformed record" "$t/a.json"

# A log where the report writes: refused, the log unchanged.
mkdir -p "$t/o"
cp "$t/w1.json" "$t/o/report.md"
sum=$(md5sum <"$t/o/report.md")
err=$("$train" report "$t/o/report.md" --out "$t/o" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 2 ] && [ "$(md5sum <"$t/o/report.md")" = "$sum" ] && grep -q "choose another --out" <<<"$err" \
	&& ok "a log named report.md in --out is refused and kept: $err" || ko "log in --out: exit $rc, '$err'"
cp "$t/w1.json" "$t/o/run.json"
"$train" report "$t/o/run.json" --out "$t/o" >/dev/null 2>&1 && [ -s "$t/o/report.md" ] \
	&& ok "a log of another name in --out: the report is written beside it" || ko "report beside its log"

# --log on a device that refuses writes.
err=$("$train" --quiet --iterations 4 --batch 50 --log /dev/full 2>&1 >/dev/null)
rc=$?
[ $rc -ne 0 ] && grep -q "/dev/full" <<<"$err" && ok "--log /dev/full fails (exit $rc): $err" \
	|| ko "--log /dev/full: exit $rc, '$err'"
finish
