#!/usr/bin/env bash
# Suite userlib-env: one parser for every INC_* variable. Numbers are
# decimal or 0x hex for every variable (010 is ten, not octal eight);
# every refusal returns INC_E_ENV and names the variable and its value, in
# inc_strerror's text and in a line to the inc_set_log hook; INC_CODEC is
# checked; an empty INC_JOB_SECRET is refused; a tool (inc-bench) prints
# the variable on stderr. Last line: "N passed, N failed, N skipped".
# Usage: userlib-env.sh ENV-CHECK INC-BENCH
set -u
cd "$(dirname "$0")/../.."
ec=${1:-build/userlib-test/env-check}
bench=${2:-build/bin/inc-bench}
. tests/lib.sh

# run VAR=VALUE...: env-check in a world of one with those variables.
# A leading "-u NAME" unsets NAME instead.
run() {
	local un=()
	if [ "${1:-}" = -u ]; then
		un=(-u "$2")
		shift 2
	fi
	env INC_RANK=0 INC_WORLD_SIZE=1 env -u RANK -u WORLD_SIZE -u MASTER_ADDR -u MASTER_PORT \
		-u INC_LOG "${un[@]}" "$@" "$ec" 2>&1
}
# refused DESCRIPTION TEXT VAR=VALUE...: INC_E_ENV (-33) with TEXT in
# inc_strerror and in the log line.
refused() {
	local d=$1 want=$2 out
	shift 2
	out=$(run "$@")
	if grep -q '=-33' <<<"$out" && grep '^strerror=' <<<"$out" | grep -qF "$want" &&
	   grep '^log=' <<<"$out" | grep -qF "$want"; then
		ok "$d: $(sed -n 's/^strerror=//p' <<<"$out")"
	else
		ko "$d: $(tr '\n' ' ' <<<"$out")"
	fi
}
# value DESCRIPTION FIELD=N VAR=VALUE...: accepted, FIELD read as N.
value() {
	local d=$1 want=$2 out
	shift 2
	out=$(run "$@")
	if grep -q '^opts=0 ' <<<"$out" && grep -q '^init=0$' <<<"$out" &&
	   tr ' ' '\n' <<<"$(head -n 1 <<<"$out")" | grep -qx "$want"; then
		ok "$d: $want"
	else
		ko "$d: $(tr '\n' ' ' <<<"$out") (want $want)"
	fi
}

value "defaults" "timeout=30000"
value "INC_TIMEOUT_MS=010 is decimal ten" "timeout=10" INC_TIMEOUT_MS=010
value "INC_TIMEOUT_MS=0x20 is hex" "timeout=32" INC_TIMEOUT_MS=0x20
value "INC_ERROR_BOUND=0x0a, the same rule" "eb=10" INC_ERROR_BOUND=0x0a
value "INC_ERROR_BOUND=2^-12" "eb=12" INC_ERROR_BOUND=2^-12
value "INC_TOS=0x2c" "tos=44" INC_TOS=0x2c
value "INC_TOS=40" "tos=40" INC_TOS=40
value "INC_SEGMENT_BYTES=4096" "seg=4096" INC_SEGMENT_BYTES=4096
value "INC_CODEC=portable" "timeout=30000" INC_CODEC=portable

refused "INC_TIMEOUT_MS=abc" "INC_TIMEOUT_MS='abc'" INC_TIMEOUT_MS=abc
refused "INC_TIMEOUT_MS=-5" "INC_TIMEOUT_MS='-5'" INC_TIMEOUT_MS=-5
refused "INC_TIMEOUT_MS=' 5'" "INC_TIMEOUT_MS=' 5'" "INC_TIMEOUT_MS= 5"
refused "INC_TIMEOUT_MS=0x" "INC_TIMEOUT_MS='0x'" INC_TIMEOUT_MS=0x
refused "INC_TIMEOUT_MS=99999999999999999999" "INC_TIMEOUT_MS='99999999999999999999'" \
	INC_TIMEOUT_MS=99999999999999999999
refused "INC_ERROR_BOUND=0" "INC_ERROR_BOUND='0': want an exponent 1..126" INC_ERROR_BOUND=0
refused "INC_ERROR_BOUND=10.5" "INC_ERROR_BOUND='10.5'" INC_ERROR_BOUND=10.5
refused "INC_COMPRESSION=zip" "INC_COMPRESSION='zip': want one of none, nic" INC_COMPRESSION=zip
refused "INC_CODEC=bogus" "INC_CODEC='bogus': want one of auto, portable, avx2, avx512" INC_CODEC=bogus
refused "INC_ALGO=tree" "INC_ALGO='tree'" INC_ALGO=tree
refused "INC_SEGMENT_BYTES=100" "INC_SEGMENT_BYTES='100': want a multiple of 32" INC_SEGMENT_BYTES=100
refused "INC_TOS=256" "INC_TOS='256'" INC_TOS=256
refused "INC_SEED=x" "INC_SEED='x'" INC_SEED=x
refused "INC_SKETCH_GAMMA=0" "INC_SKETCH_GAMMA='0'" INC_SKETCH_GAMMA=0
refused "INC_ERROR_FEEDBACK=maybe" "INC_ERROR_FEEDBACK='maybe'" INC_ERROR_FEEDBACK=maybe
refused "an empty INC_JOB_SECRET" "INC_JOB_SECRET='': empty" INC_JOB_SECRET=
refused "INC_JOB_ID with a space" "INC_JOB_ID='a b'" "INC_JOB_ID=a b"
refused "INC_HELLO_TIMEOUT_MS=0" "INC_HELLO_TIMEOUT_MS='0'" INC_HELLO_TIMEOUT_MS=0
refused "INC_WORLD_SIZE=two" "INC_WORLD_SIZE='two'" INC_WORLD_SIZE=two
refused "INC_RANK=5 of 2" "INC_RANK='5': want a number 0..1" INC_RANK=5 INC_WORLD_SIZE=2
refused "RANK=x (the fallback named)" "RANK='x'" -u INC_RANK RANK=x
refused "no rank at all" "INC_RANK: not set" -u INC_RANK
refused "INC_MASTER_PORT=99999" "INC_MASTER_PORT='99999': want a port 1..65535" \
	INC_WORLD_SIZE=2 INC_MASTER_ADDR=127.0.0.1 INC_MASTER_PORT=99999
refused "no master address" "INC_MASTER_ADDR: not set" INC_WORLD_SIZE=2 INC_MASTER_PORT=5000
# A secret longer than the key (256 bytes) is refused without showing it.
long=s3cr3t$(printf 'x%.0s' $(seq 300))
out=$(run INC_JOB_SECRET="$long")
grep -q "init=-33" <<<"$out" && grep -q "INC_JOB_SECRET" <<<"$out" && ! grep -q "s3cr3t" <<<"$out" \
	&& ok "a 306-byte INC_JOB_SECRET is refused without printing it" \
	|| ko "a 306-byte INC_JOB_SECRET: $(head -c 300 <<<"$out")"
# The port is read as a number, then given to the resolver in decimal.
out=$(run INC_WORLD_SIZE=2 INC_RANK=1 INC_MASTER_ADDR=127.0.0.1 INC_MASTER_PORT=0x9 \
	INC_TIMEOUT_MS=200)
grep -q '^init=-3[0-9]$' <<<"$out" && ! grep -q 'init=-33' <<<"$out" \
	&& ok "INC_MASTER_PORT=0x9 is read (port 9: nobody there, not an environment error)" \
	|| ko "INC_MASTER_PORT=0x9: $(tr '\n' ' ' <<<"$out")"

# A tool prints the variable and the value on stderr.
err=$(env -u RANK -u WORLD_SIZE INC_RANK=0 INC_WORLD_SIZE=1 INC_TIMEOUT_MS=010x \
	"$bench" allreduce -b 4096 -e 4096 -n 1 2>&1 >/dev/null)
grep -qF "INC_TIMEOUT_MS='010x'" <<<"$err" && ok "inc-bench names it: $err" \
	|| ko "inc-bench: '$err'"
finish
