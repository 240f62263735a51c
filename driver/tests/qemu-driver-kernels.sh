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
# kernel KREL: one kernel's run, its test lines with the kernel in front
kernel() {
	local k=$1 out last
	echo "=== kernel $k"
	out=$(driver/tests/qemu-driver-test.sh "$k" "$drvdir/$k/inceptionn.ko" "$vmbin" 2>&1)
	sed -n '$!p' <<<"$out" | sed "s/^\\(PASS\\|FAIL\\) /\\1 [$k] /"
	last=$(tail -n 1 <<<"$out")
	echo "kernel $k: $last"
}
# the kernels side by side (a VM keeps about one core busy), their lines
# in order; each kernel's last line is summed
pool_done() {
	local last k p f
	last=$(tail -n 1 "$2")   # kernel()'s "kernel KREL: LAST"
	k=${last#kernel } k=${k%%: *} last=${last#*: }
	p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' <<<"$last")
	f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' <<<"$last")
	if [ -z "$p" ]; then
		echo "FAIL [$k] no result: $last"
		p=0 f=1
	fi
	pass=$((pass + p)); fail=$((fail + f))
}
pool_init
for k in $krels; do pool_run kernel "$k"; done
pool_wait
finish
