#!/usr/bin/env bash
# Build the initramfs of the driver test VM (driver/tests/qemu-driver-test.sh):
# static busybox, the host's iproute2 ip and ethtool with their shared
# libraries, the kernel modules the test needs (veth, e1000, 8021q, from Debian's
# linux-image for KREL), inceptionn.ko, the static test programs and
# driver/tests/initramfs-driver-init.sh as /init.
#
#   driver/tests/initramfs-driver.sh OUT.cpio.gz KREL INCEPTIONN.KO VMBINDIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 OUT.cpio.gz KREL INCEPTIONN.KO VMBINDIR" >&2; exit 2; }
out=$1 krel=$2 ko=$3 vmbin=$4
here=$(cd "$(dirname "$0")" && pwd)
moddir=/lib/modules/$krel
[ -d "$moddir" ] || { echo "initramfs: no $moddir (apt-get install linux-image-amd64)" >&2; exit 1; }
for t in /usr/bin/busybox /usr/sbin/ip /usr/sbin/ethtool; do
	[ -x "$t" ] || { echo "initramfs: $t missing (scripts/deps.sh)" >&2; exit 1; }
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,opt/bin,lib,lib64,proc,sys,dev,tmp,run,modules,tests,etc}
mkdir -p "$root/var" && ln -s ../run "$root/var/run"
cp /usr/bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"

# Host tools with their libraries (resolved by ldd, copied to the same paths).
for t in /usr/sbin/ip /usr/sbin/ethtool; do
	cp "$t" "$root/opt/bin/"
	for lib in $(ldd "$t" | awk '/=> \//{print $3} /^\t\/lib/{print $1}'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

# Kernel modules: the test's own list plus their dependencies (modules.dep).
add_module() {
	local name=$1 path dep
	path=$(grep -E "(^|/)$name\.ko(\.(xz|zst|gz))?:" "$moddir/modules.dep" | head -n 1 | cut -d: -f1)
	[ -n "$path" ] || { echo "initramfs: module $name not in $moddir" >&2; exit 1; }
	for dep in $(awk -F: -v p="$path" '$1 == p {print $2}' "$moddir/modules.dep"); do
		add_module "$(basename "${dep%%.ko*}")"
	done
	[ -e "$root/modules/$name.ko" ] && return 0
	case "$path" in
	*.ko.xz)  xz -dc "$moddir/$path" >"$root/modules/$name.ko" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$root/modules/$name.ko" ;;
	*.ko.gz)  gzip -dc "$moddir/$path" >"$root/modules/$name.ko" ;;
	*)        cp "$moddir/$path" "$root/modules/$name.ko" ;;
	esac
	echo "$name" >>"$root/modules/order"
}
: >"$root/modules/order"
add_module veth
add_module e1000
add_module 8021q
cp "$ko" "$root/modules/inceptionn.ko"

cp "$vmbin"/inc-vm-* "$root/tests/"
cp "$here/initramfs-driver-init.sh" "$root/init"
chmod 755 "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
