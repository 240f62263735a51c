#!/usr/bin/env bash
# deps-check.sh - make demo's package list covers what make demo compiles
# and links. Dry-runs the build of the demo's targets, collects every
# system header the compiler reads (cc -M) and every library on the link
# lines (-lX), finds the Debian package that owns each, and checks that
# the package is in `deps.sh demo`'s list or is pulled in by one of its
# packages (Depends / Pre-Depends, transitively) or is Essential.
# A header or library whose package the demo's list does not bring fails.
cd "$(dirname "$0")/.." || exit
. tests/lib.sh
command -v dpkg-query >/dev/null || skip_all "deps-check: not a Debian system"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
targets=$(make --no-print-directory -s print-demo-targets BUILD="$tmp/b") || { ko "make print-demo-targets"; finish; }
make --no-print-directory -n -B BUILD="$tmp/b" $targets >"$tmp/cmds" 2>&1 || { ko "make -n of the demo's targets"; finish; }
[ -s "$tmp/cmds" ] && ok "the demo's build commands ($(wc -l <"$tmp/cmds") lines)" || ko "no build commands"

# Headers: each compile line rerun with -M (no object written).
: >"$tmp/files"
ncomp=0
while IFS= read -r line; do
	case $line in cc\ *-c\ *|gcc\ *-c\ *) ;; *) continue ;; esac
	cmd=$(sed -E 's/ -o [^ ]+//; s/ -c / -M -c /' <<<"$line")
	eval "$cmd" 2>"$tmp/err" | tr ' \\' '\n\n' | grep '^/' >>"$tmp/files" || true
	if [ -s "$tmp/err" ]; then ko "cc -M: $(head -n 1 "$tmp/err")"; fi
	ncomp=$((ncomp + 1))
done <"$tmp/cmds"
[ "$ncomp" -gt 5 ] && ok "$ncomp compile lines scanned" || ko "only $ncomp compile lines found"
# Libraries: every -lX resolved the way the linker would.
for l in $(grep -o -- ' -l[A-Za-z0-9_+]*' "$tmp/cmds" | sort -u); do
	name=${l#-l}
	f=$(cc -print-file-name="lib$name.so")
	[ "$f" = "lib$name.so" ] && f=$(cc -print-file-name="lib$name.a")
	case $f in /*) echo "$f" >>"$tmp/files" ;; *) ko "-l$name: no lib$name.so or .a on this machine" ;; esac
done
sort -u "$tmp/files" -o "$tmp/files"

# The closure of the demo's packages.
demo=$(scripts/deps.sh --list demo)
declare -A have
queue=($demo)
while [ ${#queue[@]} -gt 0 ]; do
	p=${queue[0]}; queue=("${queue[@]:1}")
	p=${p%%:*}
	[ -n "${have[$p]:-}" ] && continue
	have[$p]=1
	deps=$(dpkg-query -W -f='${Depends}, ${Pre-Depends}' "$p" 2>/dev/null) || continue
	for d in $(tr ',|' '\n\n' <<<"$deps" | sed -E 's/\(.*\)//; s/:any//' | tr -d ' '); do
		[ -n "$d" ] && [ -z "${have[$d]:-}" ] && queue+=("$d")
	done
	# Virtual packages (e.g. libz-dev) are provided by real ones.
done
for p in $(dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }'); do
	have[$p]=1
done

# Each file's owner from one dpkg -S of every path (each call reads the
# whole database: one per file took a minute), by its real path, else by
# its path as the compiler named it
# (reals[i], names[i]: each existing file's real path and its path as
# named, absolute)
reals=() names=()
while IFS= read -r f; do
	r=$(realpath -e "$f" 2>/dev/null) || continue
	reals+=("$r") names+=("$(realpath -s "$f")")
done <"$tmp/files"
declare -A owner_of
while IFS= read -r l; do
	case $l in diversion\ *) continue ;; esac
	o=${l%%: /*} o=${o%%,*}
	owner_of[/${l#*: /}]=${o%%:*}
done < <([ ${#reals[@]} -gt 0 ] && dpkg -S "${reals[@]}" "${names[@]}" 2>/dev/null)

missing=0 checked=0
# A file reached through /etc/alternatives (cblas.h, libblas.so) counts as
# covered when any package of its alternatives group is in the closure:
# which one a machine selects is that machine's choice.
alt_owners() {
	local name grp
	name=$(basename "$(readlink "$1")")
	if [ -e "/var/lib/dpkg/alternatives/$name" ]; then
		grp=$name
	else
		grp=$(grep -lx "$name" /var/lib/dpkg/alternatives/* 2>/dev/null | head -n 1)
	fi
	[ -n "$grp" ] || return 1
	update-alternatives --list "$(basename "$grp")" 2>/dev/null | while read -r t; do
		dpkg -S "$t" 2>/dev/null | cut -d: -f1
	done
}
for i in "${!reals[@]}"; do
	r=${reals[$i]} f=${names[$i]}
	case $r in "$PWD"/*|/tmp/*) continue ;; esac
	case $(readlink "$f") in /etc/alternatives/*)
		found=0
		for o in $(alt_owners "$f"); do [ -n "${have[$o]:-}" ] && found=1; done
		checked=$((checked + 1))
		[ $found -eq 1 ] && continue
		ko "$f (alternatives): no package of its group in deps.sh demo's list"
		missing=$((missing + 1)); continue ;;
	esac
	owner=${owner_of[$r]:-${owner_of[$f]:-}}
	[ -n "$owner" ] || { ko "$f: no package owns it"; missing=$((missing + 1)); continue; }
	checked=$((checked + 1))
	[ -n "${have[$owner]:-}" ] && continue
	ko "$f comes from $owner, which deps.sh demo does not install"
	missing=$((missing + 1))
done
[ "$missing" -eq 0 ] && ok "$checked headers and libraries, all from the demo's packages"
finish
