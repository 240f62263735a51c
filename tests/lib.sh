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
# A pool of background commands, at most POOL_JOBS (default: the cores) at
# a time, whose outputs are printed whole and in the order they were
# started, each as soon as it and those before it have ended:
#   pool_init; pool_run CMD...; ...; pool_wait
# For each command, in order, pool_done RC OUTPUT_FILE is called after its
# output is printed (the caller may define it: the default does nothing).
pool_done() { :; }
pool_init() {
	_pool_dir=$(mktemp -d) _pool_n=0 _pool_shown=0 _pool_max=${POOL_JOBS:-$(nproc)}
}
pool_run() {
	while [ "$(jobs -pr | wc -l)" -ge "$_pool_max" ]; do wait -n; pool_show; done
	local f=$_pool_dir/$_pool_n
	( "$@" >"$f.out" 2>&1; echo $? >"$f.rc.tmp"; mv "$f.rc.tmp" "$f.rc" ) &
	_pool_n=$((_pool_n + 1))
}
pool_show() {
	local f
	while [ "$_pool_shown" -lt "$_pool_n" ] && [ -e "$_pool_dir/$_pool_shown.rc" ]; do
		f=$_pool_dir/$_pool_shown
		cat "$f.out"
		pool_done "$(cat "$f.rc")" "$f.out"
		_pool_shown=$((_pool_shown + 1))
	done
}
pool_wait() {
	wait
	pool_show
	rm -rf "$_pool_dir"
}
