#!/usr/bin/env bash
# Suite userlib-cli: the user library's programs on their command lines.
# inc-run and inc-bench answer --help (exit 0, usage on stdout); inc-bench
# allreduce refuses counts that are not counts (-n -3 printed inf and -nan)
# and mode names that are not in the compression table (exit 2, the option
# and value named), and -m cnat selects the cnat rows (it selected nothing);
# -S (a target ratio 1..12) and -P (parts) refuse what is not one, and -F -S
# add the error-feedback and scaling rows with the codec columns.
# Last line "N passed, N failed, N skipped".
# Usage: userlib-cli.sh INC-RUN INC-BENCH
set -u
cd "$(dirname "$0")/../.."
run=${1:-build/bin/inc-run}
bench=${2:-build/bin/inc-bench}
t=$(mktemp -d /tmp/inc-ulcli.XXXXXX)
trap 'rm -rf "$t"' EXIT
. tests/lib.sh

for p in "$run" "$bench"; do
	n=$(basename "$p")
	out=$("$p" --help 2>"$t/err")
	rc=$?
	[ $rc -eq 0 ] && grep -q "^usage: $n" <<<"$out" && ok "$n --help" \
		|| ko "$n --help: exit $rc, '$(head -n 1 "$t/err")'"
done
out=$("$bench" allreduce -h 2>&1)
[ $? -eq 0 ] && grep -q -- "-m MODES" <<<"$out" && ok "inc-bench allreduce -h lists -m" \
	|| ko "inc-bench allreduce -h: '$out'"

# refused DESCRIPTION TEXT ARGS...: exit 2 before any rank starts, one line.
refused() {
	local d=$1 want=$2 rc err
	shift 2
	err=$(env -u INC_RANK -u RANK "$bench" allreduce "$@" 2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 2 ] && grep -qF -- "$want" <<<"$err" && [ "$(wc -l <<<"$err")" -eq 1 ] \
		&& ok "$d: $err" || ko "$d: exit $rc, '$err'"
}
refused "-n -3" "bad -n '-3'" -n -3
refused "-n 0" "bad -n '0'" -n 0
refused "-n 2x" "bad -n '2x'" -n 2x
refused "-w -1" "bad -w '-1'" -w -1
refused "-m bogus" "-m: unknown name 'bogus'" -m bogus
refused "-m none,zip" "-m: unknown name 'zip'" -m none,zip
refused "-a tree" "-a: unknown name 'tree'" -a tree
refused "-S 0" "bad -S '0'" -S 0
refused "-S 13" "bad -S '13'" -S 13
refused "-S 8x" "bad -S '8x'" -S 8x
refused "-S nan" "bad -S 'nan'" -S nan
refused "-P 0" "bad -P '0'" -S 8 -P 0
refused "-P 2000000" "bad -P '2000000'" -P 2000000

# -F -S 8 on 2 ranks: plain, +ef and +ef+sc rows with the codec columns.
out=$(timeout 120 "$run" -n 2 "$bench" allreduce -m software -a ring -F -S 8 -P 3 -b 64K -e 64K \
	-n 2 2>&1)
rc=$?
rows=$(grep -cE '^ +65536 +16384 +ring/sw(\+ef|\+ef\+sc)? +([0-9.]+x? +){10}[0-9.]+x$' <<<"$out")
[ $rc -eq 0 ] && [ "$rows" -eq 3 ] && ! grep -qiE 'inf|nan' <<<"$out" \
	&& ok "-F -S 8: plain, +ef, +ef+sc rows with codec time, finite" \
	|| ko "-F -S 8: exit $rc, $rows rows: $(tail -n 4 <<<"$out")"

# -m cnat on 2 ranks: the cnat rows, every number finite.
out=$(timeout 120 "$run" -n 2 "$bench" allreduce -m cnat -b 4096 -e 4096 -n 2 2>&1)
rc=$?
rows=$(grep -cE '^ +4096 +1024 +(ring|wa)/cnat ' <<<"$out")
[ $rc -eq 0 ] && [ "$rows" -eq 2 ] && ! grep -qiE 'inf|nan' <<<"$out" \
	&& ok "-m cnat: ring/cnat and wa/cnat rows, finite" || ko "-m cnat: exit $rc, $rows rows: $(tail -n 3 <<<"$out")"
finish
