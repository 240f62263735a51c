#!/usr/bin/env bash
# Suite driver-qemu: driver/tests/qemu-driver-test.sh once per Debian kernel
# this machine has both the headers and the image of (make deps installs
# the 6.1 and 6.12 lines Debian 12 ships), each with the module built
# against it. Test lines are printed with the kernel in front; the last
# line sums them: "N passed, N failed".
#   driver/tests/qemu-driver-kernels.sh "KREL..." DRIVER_BUILD_DIR VMBINDIR
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 \"KREL...\" DRIVER_BUILD_DIR VMBINDIR" >&2; exit 2; }
krels=$1 drvdir=$2 vmbin=$3
cd "$(dirname "$0")/../.."
. tests/lib.sh
if [ -z "$krels" ]; then
	ko "driver-qemu: no Debian kernel with both linux-headers-*-amd64 and /boot/vmlinuz-* (scripts/deps.sh installs them)"
	finish
fi
for k in $krels; do
	echo "=== kernel $k"
	out=$(driver/tests/qemu-driver-test.sh "$k" "$drvdir/$k/inceptionn.ko" "$vmbin" 2>&1)
	sed -n '$!p' <<<"$out" | sed "s/^\\(PASS\\|FAIL\\) /\\1 [$k] /"
	last=$(tail -n 1 <<<"$out")
	p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$last")
	f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$last")
	if [ -z "$p" ]; then
		echo "FAIL [$k] no result: $last"
		p=0 f=1
	fi
	echo "kernel $k: $last"
	pass=$((pass + p)); fail=$((fail + f))
done
finish
