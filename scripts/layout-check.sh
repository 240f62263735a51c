#!/usr/bin/env bash
# layout-check.sh - the maps match the tree (suite `layout`):
#  - every folder at the top of the repository has a row in README.md's
#    Layout table (`folder/`);
#  - every source file of a part folder (C, C++, headers, Verilog, Python,
#    shell, make fragments, Yosys/Tcl scripts; its tests/ included) is named
#    in that folder's README.md: by its path or file name in backticks, or
#    by a backticked glob that matches it (`userlib-*.sh`);
#  - every suite of `make test` has a line with a description in `make help`.
# Only files git tracks count. Last line "N passed, N failed, N skipped".
cd "$(dirname "$0")/.."
. tests/lib.sh
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || skip_all "layout: not a git checkout"

# The backticked words of a markdown file, one per line (a word of a
# path-like token list such as `src/a.c`, `b.h` counts one by one).
ticks() {
	grep -o '`[^`]*`' "$1" | tr -d '`' | tr ' ,' '\n\n' | sed -e 's/[():;]*$//' -e 's/^[(]//' | grep -v '^$' | sort -u
}
# covered FILE (relative to the part folder) TICKFILE
covered() {
	local f=$1 base stem t
	base=${f##*/}
	stem=$base
	case $base in *.v) stem=${base%.v} ;; esac	# a Verilog module by its name
	while IFS= read -r t; do
		case $t in
		"$f" | "$base" | "$stem" | */"$f" | */"$base") return 0 ;;
		*'*'* | *'?'* | *'['*)
			# shellcheck disable=SC2053
			[[ $f == $t || $base == $t || $f == */$t ]] && return 0 ;;
		esac
	done <"$2"
	return 1
}

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 1. README.md's Layout table names every top folder.
awk '/^## Layout/ { f = 1; next } /^## / { f = 0 } f' README.md >"$tmp/layout"
top_missing=0
for d in $(git ls-files | awk -F/ 'NF > 1 { print $1 }' | sort -u); do
	grep -q "^| \`$d/\`" "$tmp/layout" || { ko "README.md's Layout table has no row for $d/"; top_missing=$((top_missing + 1)); }
done
[ $top_missing -eq 0 ] && ok "README.md's Layout table names every top folder"

# 2. Each part folder's README names its source files.
parts="sw-model rtl sim driver userlib train python tools synth cluster experiments scripts tests"
for p in $parts; do
	[ -d "$p" ] || continue
	if [ ! -f "$p/README.md" ]; then ko "$p/ has no README.md"; continue; fi
	ticks "$p/README.md" >"$tmp/ticks"
	n=0 miss=()
	while IFS= read -r f; do
		rel=${f#"$p"/}
		case $rel in tests/fixtures/*) continue ;; esac
		n=$((n + 1))
		covered "$rel" "$tmp/ticks" || miss+=("$rel")
	done < <(git ls-files -- "$p" | grep -E '\.(c|h|cpp|v|vh|py|sh|mk|ys|tcl|lua)$')
	if [ ${#miss[@]} -eq 0 ]; then
		ok "$p/README.md names all $n source files"
	else
		ko "$p/README.md does not name: ${miss[*]}"
	fi
done

# 3. make help describes every suite.
make --no-print-directory -s help >"$tmp/help" 2>/dev/null || ko "make help failed"
suites=$(make --no-print-directory -s print-test-suites 2>/dev/null)
[ -n "$suites" ] || ko "make print-test-suites printed nothing"
nd=0
for s in $suites; do
	grep -qE "^  $s +[^ ]" "$tmp/help" || { ko "suite $s: no description line in make help (DESC_$s)"; nd=$((nd + 1)); }
done
[ -n "$suites" ] && [ $nd -eq 0 ] && ok "make help describes all $(wc -w <<<"$suites") suites"
finish
