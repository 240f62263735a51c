#!/usr/bin/env bash
# fresh-machine.sh - `make demo` on a fresh Debian 12 machine, timed.
# Debootstraps a minimal bookworm (minbase) from this machine's Debian
# mirror, installs only make, git and ca-certificates there, clones the
# committed HEAD of this repository into it and runs `make demo` in a
# chroot: the demo installs its own packages (scripts/deps.sh demo), builds
# only what it uses and trains. Prints the time of `make demo`, packages
# included. Needs root and network access to the mirror.
#
#   fresh-machine.sh [-k] [-d DIR] [-- MAKE-ARGS...]
#
#   -d DIR   work folder (default /var/tmp/inc-fresh): DIR/base is the
#            debootstrapped system, reused when present; each run copies it
#            to DIR/run, so every run starts without the project's packages
#   -k       keep DIR/run after the run (default: removed)
#   MAKE-ARGS  instead of `demo` (e.g. `-- demo-capture`)
#
# The chroot gets /proc, /sys, /dev, /dev/pts and a tmpfs on /run of its
# own (the cluster's namespaces are named in the chroot's /run/netns, apart
# from the host's); every mount under DIR/run is undone on exit, whatever
# the exit path. The log is DIR/make.log.
set -eu
dir=/var/tmp/inc-fresh keep=0
while getopts "d:k" o; do
	case $o in
	d) dir=$OPTARG ;;
	k) keep=1 ;;
	*) echo "usage: fresh-machine.sh [-k] [-d DIR] [-- MAKE-ARGS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
goals=("$@"); [ ${#goals[@]} -eq 0 ] && goals=(demo)
repo=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "fresh-machine: debootstrap missing (make deps installs it)" >&2; exit 1; }

# The mirror this machine uses (deb822 sources first, then sources.list).
mirror=
if [ -r /etc/apt/sources.list.d/debian.sources ]; then
	mirror=$(awk '$1 == "URIs:" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}

base=$dir/base run=$dir/run log=$dir/make.log
mkdir -p "$dir"

undo_mounts() {  # every mount under $run, deepest first
	local m
	[ -d "$run" ] || return 0
	for m in $(awk -v r="$run" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$m" 2>/dev/null || true
	done
}
cleanup() {
	undo_mounts
	if [ $keep -eq 0 ] && [ -d "$run" ]; then
		# Only once nothing is mounted below it any more.
		awk -v r="$run" 'index($2, r) == 1 { f = 1 } END { exit f }' /proc/self/mounts && rm -rf "$run"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -e "$base/.inc-base-done" ]; then
	echo "fresh-machine: debootstrap bookworm (minbase) from $mirror into $base"
	rm -rf "$base"
	t0=$(date +%s)
	debootstrap --variant=minbase --include=make,git,ca-certificates \
		bookworm "$base" "$mirror" >"$dir/debootstrap.log" 2>&1 || {
		echo "fresh-machine: debootstrap failed; see $dir/debootstrap.log" >&2
		tail -n 20 "$dir/debootstrap.log" >&2; exit 1; }
	# The same suites as this machine (updates, security), no recommends.
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		rm -f "$base/etc/apt/sources.list"
		cp /etc/apt/sources.list.d/debian.sources "$base/etc/apt/sources.list.d/"
	fi
	printf '#!/bin/sh\nexit 101\n' >"$base/usr/sbin/policy-rc.d"
	chmod +x "$base/usr/sbin/policy-rc.d"
	touch "$base/.inc-base-done"
	echo "fresh-machine: base system in $(( $(date +%s) - t0 )) s"
fi

undo_mounts
rm -rf "$run"
cp -a "$base" "$run"
cp /etc/resolv.conf "$run/etc/resolv.conf"
# The chroot's / a mount point of its own, as on a machine (ip netns exec
# makes / a slave mount, which fails on a plain folder).
mount --bind "$run" "$run"
mount -t proc proc "$run/proc"
mount --bind /sys "$run/sys"
mount --bind /dev "$run/dev"
mount --bind /dev/pts "$run/dev/pts"
mount -t tmpfs -o mode=755 tmpfs "$run/run"
mkdir -p "$run/dev/shm" && mount -t tmpfs -o mode=1777 tmpfs "$run/dev/shm"
mkdir -p "$run/mnt/src"
mount --bind "$repo" "$run/mnt/src"
mount -o remount,bind,ro "$run/mnt/src"

in_chroot() {
	chroot "$run" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
pkgs_before=$(in_chroot dpkg-query -W -f='.\n' | wc -l)
in_chroot git -c safe.directory='*' clone -q /mnt/src /root/inceptionn
head=$(in_chroot git -C /root/inceptionn rev-parse --short HEAD)
echo "fresh-machine: $pkgs_before packages installed; clone of $head; make ${goals[*]} (log $log)"
t0=$(date +%s)
rc=0
in_chroot bash -c 'cd /root/inceptionn && exec make "$@"' make "${goals[@]}" >"$log" 2>&1 || rc=$?
secs=$(( $(date +%s) - t0 ))
pkgs_after=$(in_chroot dpkg-query -W -f='.\n' | wc -l)
if [ $rc -ne 0 ]; then
	tail -n 30 "$log"
	echo "fresh-machine: make ${goals[*]} failed (rc $rc) after $secs s at $head" >&2
	exit 1
fi
tail -n 12 "$log"
echo "fresh-machine: make ${goals[*]} succeeded in $secs s at $head ($((pkgs_after - pkgs_before)) packages installed by it)"
