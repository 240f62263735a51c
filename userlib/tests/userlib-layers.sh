#!/usr/bin/env bash
# userlib-layers.sh OBJDIR - libinceptionn reads top to bottom: no cycle in
# the graph "file A calls (or reads) a symbol defined in file B" among
# userlib/src/*.c, taken from the objects' symbol tables (nm: what each
# object defines, what it leaves undefined). Prints the edges, then one
# check per object and "N passed, N failed".
set -u
dir=${1:-build/obj/userlib}
ls "$dir"/*.o >/dev/null 2>&1 || { echo "userlib-layers: no objects in $dir" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print $3, f }'
done | sort -u >"$tmp/defs"
for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk -v f="$f" '{ print $NF, f }'
done | sort -u >"$tmp/uses"
# edges: user -> definer (symbols defined outside the library are ignored)
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
echo "call graph (caller -> callee):"
awk '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "  " k " ->" a[k] }' "$tmp/edges" | sort
. "$(dirname "$0")/../../tests/lib.sh"
# A file is on a cycle when it reaches itself.
for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	reach=$(awk -v s="$f" '
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
		echo "FAIL $f.c is on a call cycle"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
finish
