#!/usr/bin/env bash
# Suite train-layers: the trainer reads top to bottom. No cycle in the
# graph "file A calls (or reads) a symbol defined in file B" among
# train/src/*.c, taken from the objects' symbol tables (nm: what each
# object defines, what it leaves undefined; symbols defined outside the
# trainer, libinceptionn's or libc's, are left out). The same check as
# userlib-layers, over the trainer's objects.
#
#   train-layers.sh OBJ...   the objects of train/src/*.c, inc_train.c's included
#
# Prints the edges, then one check per object and "N passed, N failed".
set -u
[ $# -gt 0 ] || { echo "usage: train-layers.sh OBJ..." >&2; exit 2; }
for o in "$@"; do
	[ -f "$o" ] || { echo "train-layers: $o: no such object" >&2; exit 2; }
done
. "$(dirname "$0")/../../tests/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
	nm --defined-only -g "$o" | awk -v f="$(basename "$o" .o)" 'NF == 3 { print $3, f }'
done | sort -u >"$tmp/defs"
for o in "$@"; do
	nm -u "$o" | awk -v f="$(basename "$o" .o)" '{ print $NF, f }'
done | sort -u >"$tmp/uses"
# edges: user -> definer
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
echo "call graph (caller -> callee):"
awk '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "  " k " ->" a[k] }' "$tmp/edges" | sort
# A file is on a cycle when it reaches itself; the cycle is printed.
for o in "$@"; do
	f=$(basename "$o" .o)
	path=$(awk -v s="$f" '
		{ e[$1] = e[$1] " " $2 }
		END {
			n = split(e[s], q, " ")
			for (i = 1; i <= n; i++) from[q[i]] = s
			head = 1
			while (head <= n) {
				x = q[head++]
				if (x == s) {
					p = s; y = from[s]
					while (y != s) { p = y " -> " p; y = from[y] }
					print s " -> " p
					exit
				}
				if (seen[x]++) continue
				m = split(e[x], nx, " ")
				for (i = 1; i <= m; i++)
					if (!(nx[i] in from)) { from[nx[i]] = x; q[++n] = nx[i] }
			}
		}' "$tmp/edges")
	if [ -n "$path" ]; then
		ko "$f.c is on a call cycle: $path"
	else
		ok "$f.c is on no call cycle"
	fi
done
finish
