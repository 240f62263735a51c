#!/usr/bin/env bash
# Test inceptionn.ko in a real kernel: build the initramfs
# (scripts/initramfs-driver.sh), boot Debian's kernel KREL in
# qemu-system-x86_64 with TCG (no KVM here) and a QEMU "edu" PCI device,
# and run scripts/initramfs-driver-init.sh inside. The VM prints
# "N passed, N failed"; this script prints the VM's test lines and that
# line last, or "0 passed, 1 failed" when the VM gave no result (timeout,
# crash).
#
#   scripts/qemu-driver-test.sh KREL INCEPTIONN.KO VMBINDIR
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 KREL INCEPTIONN.KO VMBINDIR" >&2; exit 2; }
krel=$1 ko=$2 vmbin=$3
cd "$(dirname "$0")/.."
work=build/driver/qemu
mkdir -p "$work"
timeout_s=${INC_QEMU_TIMEOUT:-170}
kernel=/boot/vmlinuz-$krel
[ -r "$kernel" ] || { echo "qemu: cannot read $kernel (apt-get install linux-image-amd64)"; echo "0 passed, 1 failed"; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu: qemu-system-x86_64 missing (scripts/deps.sh)"; echo "0 passed, 1 failed"; exit 1; }

start=$(date +%s)
if ! scripts/initramfs-driver.sh "$work/initramfs.cpio.gz" "$krel" "$ko" "$vmbin"; then
	echo "0 passed, 1 failed"
	exit 1
fi
log=$work/console.log
# -smp 2: the TX and RX paths run on different CPUs, as on a real host.
nice timeout --foreground -k 5 "$timeout_s" qemu-system-x86_64 \
	-accel tcg -machine q35 -cpu max -smp 2 -m 512 \
	-nographic -no-reboot -nodefaults -serial stdio \
	-device edu \
	-kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 tsc=unstable" \
	</dev/null >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$log" | grep -E '^(PASS|FAIL|driver-vm|recv|send|inject|counted|A tx|compression ratio|expect|GRO|user namespace)|WARNING|BUG|Oops|Call Trace|Kernel panic' \
	| grep -v -E '^[0-9]+ passed, [0-9]+ failed' || true
line=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
echo "driver-qemu: qemu exit $rc after ${secs}s (timeout ${timeout_s}s), console log $log"
if [ -z "$line" ]; then
	tail -n 40 "$log"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "$line"
case "$line" in
*" 0 failed") exit 0 ;;
*) exit 1 ;;
esac
