# tests/lib.sh - the shell suites' shared result helpers. Source it, call
# ok / ko / skip per check, and end with `finish`, which prints the line
# scripts/run-tests.sh sums ("N passed, N failed[, N skipped]") and sets the
# exit status. A suite that cannot run here at all (not root, a missing
# tool) calls `skip_all REASON`: one skipped result, exit 0.
pass=0 fail=0 skipped=0
ok()   { pass=$((pass + 1)); echo "ok   $*"; }
ko()   { fail=$((fail + 1)); echo "FAIL $*"; }
skip() { skipped=$((skipped + 1)); echo "skip $*"; }
finish() {
	echo "$pass passed, $fail failed, $skipped skipped"
	[ "$fail" -eq 0 ]
	exit
}
skip_all() {
	echo "skip $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
# require_root SUITE: skip the whole suite when not root.
require_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "$1 needs root (network namespaces or modules)"
}
