#!/usr/bin/env bash
# userlib-layers.sh OBJECT... - libinceptionn keeps its layers (suite
# userlib-layers). The layers are written once, in the table under "The
# library's layers" in docs/userlib.md (top to bottom, a row per layer, its
# files in backticks); this reads them from there and checks:
#  - every file of userlib/src has exactly one layer, and every file the
#    table names exists (inc_internal.h, which declares for every layer,
#    instead has one section per layer, bottom-up, each headed
#    "Layer NAME:", NAME a row of the table);
#  - every call (or read) from one file into a symbol another file defines
#    goes to the same layer or down, never up; taken from the objects'
#    symbol tables (nm: what each object defines, what it leaves undefined),
#    one object per source file, named after it;
#  - no file is on a call cycle (within a layer too).
# The objects are the library's (make passes them: the flavour without
# MPI and, when mpicc exists, boot_mpi.o). Prints the call graph, one line
# per check and "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.." || exit 2
doc=docs/userlib.md
src=userlib/src
[ $# -gt 0 ] || { echo "usage: userlib-layers.sh OBJECT..." >&2; exit 2; }
for o in "$@"; do
	[ -f "$o" ] || { echo "userlib-layers: no object $o" >&2; exit 2; }
done
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The table: "LEVEL LAYER-NAME<TAB>FILE" per file, LEVEL 1 for the bottom
# row; the layers alone ("LEVEL LAYER-NAME<TAB>") top to bottom.
awk -v layers="$tmp/layers" '
	/^\*\*The library.s layers\*\*/ { sect = 1; next }
	sect && /^\| *layer *\|/ { tab = 1; next }
	tab && /^\|[-| ]*$/ { next }
	tab && !/^\|/ { exit }
	tab {
		split($0, cell, "|")
		name = cell[2]; gsub(/^ +| +$/, "", name)
		rows[++nr] = name
		files = cell[3]
		while (match(files, /`[^`]*`/)) {
			f = substr(files, RSTART + 1, RLENGTH - 2)
			files = substr(files, RSTART + RLENGTH)
			if (f ~ /^[A-Za-z0-9_.-]+\.[ch]$/)
				list[nr] = list[nr] " " f
		}
	}
	END {
		for (i = 1; i <= nr; i++) {
			m = split(list[i], fs, " ")
			for (j = 1; j <= m; j++)
				printf "%d %s\t%s\n", nr - i + 1, rows[i], fs[j]
			printf "%d %s\t\n", nr - i + 1, rows[i] >layers
		}
	}' "$doc" >"$tmp/table"
if [ ! -s "$tmp/layers" ]; then
	ko "$doc: no layer table (a \"| layer | files |\" table after \"**The library's layers**\")"
	finish
fi
echo "layers, top to bottom (from $doc):"
sed -E 's/^[0-9]+ (.*)\t$/  \1/' "$tmp/layers"
cut -f2 "$tmp/table" | sort | uniq -d >"$tmp/twice"

# level FILE: the layer's level (empty: none); lname LEVEL: its name.
level() { awk -F'\t' -v f="$1" '$2 == f { split($1, a, " "); print a[1]; exit }' "$tmp/table"; }
lname() { awk -v l="$1" '$1 == l { sub(/^[0-9]+ /, ""); sub(/\t$/, ""); print; exit }' "$tmp/layers"; }

# 1. Every file has exactly one layer; the table names no missing file.
for p in "$src"/*.c "$src"/*.h; do
	f=${p##*/}
	[ "$f" = inc_internal.h ] && continue
	if grep -qxF "$f" "$tmp/twice"; then
		ko "$f is in more than one row of $doc's layer table"
	elif [ -n "$(level "$f")" ]; then
		ok "$f: layer $(lname "$(level "$f")")"
	else
		ko "$f has no layer: add it to a row of $doc's layer table"
	fi
done
while IFS=$'\t' read -r lv f; do
	[ -e "$src/$f" ] || ko "$doc's layer table names $f (layer ${lv#* }), which is not in $src"
done <"$tmp/table"

# 2. inc_internal.h: sections "Layer NAME:" bottom-up, NAME from the table.
sed -nE 's@^/\* Layer ([^:]+):.*@\1@p' "$src/inc_internal.h" >"$tmp/sections"
prev=0 prevname="" bad=0
while IFS= read -r s; do
	lv=$(awk -v s="$s" '{ l = $1; sub(/^[0-9]+ /, ""); sub(/\t$/, "") } $0 == s { print l; exit }' "$tmp/layers")
	if [ -z "$lv" ]; then
		ko "inc_internal.h: section \"Layer $s\" names no layer of $doc"; bad=1
		continue
	elif [ "$lv" -le "$prev" ]; then
		ko "inc_internal.h: section \"Layer $s\" follows \"Layer $prevname\", not a layer below it (sections go bottom-up)"
		bad=1
	fi
	prev=$lv prevname=$s
done <"$tmp/sections"
if [ ! -s "$tmp/sections" ]; then
	ko "inc_internal.h has no \"Layer NAME:\" section headings"
elif [ $bad -eq 0 ]; then
	ok "inc_internal.h: $(wc -l <"$tmp/sections") sections bottom-up, each a layer of $doc"
fi

# 3. The call graph: "caller callee symbol", symbols of the library only.
for o in "$@"; do
	f=$(basename "$o" .o)
	nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print $3, f }'
done | sort -u >"$tmp/defs"
for o in "$@"; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done | sort -u >"$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2 ".c", $3 ".c", $1 }' | sort -u >"$tmp/calls"
awk '{ print $1, $2 }' "$tmp/calls" | sort -u >"$tmp/edges"
echo "call graph (caller -> callee):"
awk '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "  " k " ->" a[k] }' "$tmp/edges" | sort

for o in "$@"; do
	f=$(basename "$o" .o).c
	[ -e "$src/$f" ] || { ko "object $o: no source $src/$f"; continue; }
	lf=$(level "$f")
	[ -n "$lf" ] || continue	# reported above
	up=0
	while read -r caller callee sym; do
		[ "$caller" = "$f" ] || continue
		lc=$(level "$callee")
		if [ -z "$lc" ]; then
			continue	# reported above
		elif [ "$lc" -gt "$lf" ]; then
			ko "$f (layer $(lname "$lf")) calls $sym of $callee (layer $(lname "$lc"), above it)"
			up=$((up + 1))
		fi
	done <"$tmp/calls"
	[ $up -eq 0 ] && ok "$f calls only its own layer and those below"
	# On a cycle when it reaches itself.
	reach=$(awk -v s="${f}" '
		{ e[$1] = e[$1] " " $2 }
		END {
			n = split(e[s], q, " "); head = 1; found = 0
			while (head <= n) {
				x = q[head++]
				if (x == s) { found = 1; break }
				if (seen[x]++) continue
				m = split(e[x], nx, " ")
				for (i = 1; i <= m; i++) q[++n] = nx[i]
			}
			print found
		}' "$tmp/edges")
	if [ "$reach" = 1 ]; then
		ko "$f is on a call cycle"
	else
		ok "$f is on no call cycle"
	fi
done
# A source file whose object was not given (boot_mpi.c without mpicc).
for p in "$src"/*.c; do
	f=${p##*/}
	found=0
	for o in "$@"; do [ "$(basename "$o" .o).c" = "$f" ] && found=1; done
	[ $found -eq 1 ] || skip "$f: no object given, its calls not checked"
done
finish
