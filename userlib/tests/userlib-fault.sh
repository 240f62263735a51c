#!/usr/bin/env bash
# Suite userlib-fault: an allocation that fails on one rank inside a ring,
# WA or sketch all-reduce (userlib/tests/fault_check.c: the test's malloc
# wrappers fail the victim's next large allocation) fails every rank: the
# victim with INC_E_NOMEM, the others within 1 s of it (timeout 30 s); a
# later call fails fast, nothing crashes under ASan/UBSan. Last line
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
fc=${1:-build/userlib-test/fault-check}
. tests/lib.sh
one() {
	local out p f
	out=$(timeout 120 "$fc" "$@" 2>&1)
	echo "$out" | grep -vE '^[0-9]+ passed' | sed 's/^/  /'
	p=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' | tail -n 1)
	f=$(echo "$out" | sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' | tail -n 1)
	[ -z "$p" ] && { p=0; f=1; echo "  no result line: $*"; }
	echo "fault-check $*: $p passed, $f failed"
	pass=$((pass + p)); fail=$((fail + f))
}
one -n 4 -v 1 -m none
one -n 4 -v 0 -m nic
one -n 4 -v 3 -m software
one -n 2 -v 1 -m none
one -n 4 -v 0 -a wa -m none
one -n 4 -v 2 -a wa -m software
one -n 3 -v 1 -a wa -m nic
one -n 4 -v 1 -m sketch
one -n 3 -v 2 -m inc+sketch
one -n 4 -v 3 -a wa -m sketch
finish
