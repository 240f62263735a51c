#!/usr/bin/env bash
# Test inceptionn.ko in a real kernel: build the initramfs
# (driver/tests/initramfs-driver.sh), boot Debian's kernel KREL in
# qemu-system-x86_64 with TCG (no KVM here), a QEMU "edu" PCI device and
# a memory-backed stand-in for the engines' CSR block (see below),
# and run driver/tests/initramfs-driver-init.sh inside. The VM prints
# "N passed, N failed"; this script prints the VM's test lines and that
# line last (plus one check the host makes on the CSR stand-in's file), or
# "0 passed, 1 failed" when the VM gave no result (timeout, crash).
#
#   driver/tests/qemu-driver-test.sh KREL INCEPTIONN.KO VMBINDIR
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: $0 KREL INCEPTIONN.KO VMBINDIR" >&2; exit 2; }
krel=$1 ko=$2 vmbin=$3
cd "$(dirname "$0")/../.."
work=build/driver/qemu/$krel
mkdir -p "$work"
timeout_s=${INC_QEMU_TIMEOUT:-400}
kernel=/boot/vmlinuz-$krel
[ -r "$kernel" ] || { echo "qemu: cannot read $kernel (apt-get install linux-image-amd64)"; echo "0 passed, 1 failed"; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "qemu: qemu-system-x86_64 missing (scripts/deps.sh)"; echo "0 passed, 1 failed"; exit 1; }

start=$(date +%s)
if ! driver/tests/initramfs-driver.sh "$work/initramfs.cpio.gz" "$krel" "$ko" "$vmbin"; then
	echo "0 passed, 1 failed"
	exit 1
fi
# Stand-in for the FPGA's CSR block: a memory BAR (QEMU ivshmem, BAR 2) in
# slot 5 next to two e1000 NICs (5.1 and 5.2, no backend: nothing leaves
# the VM; 5.2 is the second function that must not get the engines),
# backed by this file with the ID/version/caps words and two counters
# preset (offsets from sw-model/include/inc_regs.h; the guest loads the
# module with csr_bar=2). Plain memory: no counter clear or LO/HI latch.
regs=$work/csr.bin
le32() {       # OFFSET VALUE: one little-endian 32-bit word into $regs
	local v=$(($2))
	printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $((v >> 8 & 255)) \
		$((v >> 16 & 255)) $((v >> 24 & 255)))" | dd of="$regs" bs=1 seek=$(($1)) conv=notrunc status=none
}
rm -f "$regs"
truncate -s 1M "$regs"
le32 0x000 0x494e4345           # INC_REG_ID = INC_ID_VALUE
# INC_REG_VERSION from the register map, so the guest sees this build's
# major and wire format version.
le32 0x004 "$(sed -n 's/^#define INC_VERSION_VALUE *\(0x[0-9a-fA-F]*\).*/\1/p' sw-model/include/inc_regs.h)"
le32 0x008 0x233a2007           # INC_REG_CAPS: TX|RX|VLAN, 32-byte beat, 9018
le32 0x108 1234                 # TX outcome compressed, LO
le32 0x10c 1                    #   HI -> 4294968530
le32 0x2b0 77                   # RX reason bad_stream (14), LO
log=$work/console.log
# Two more e1000 NICs (06.0, 07.0) joined to each other by a pair of UDP
# sockets on the host's loopback (QEMU's socket netdev): a real NIC driver
# under inc0 in the VM's namespaces E and F. Ports from the PID, so that
# runs side by side do not meet.
port=$((20000 + $$ % 10000 * 2))
# -smp 2: the TX and RX paths run on different CPUs, as on a real host.
# thread=single: the two vCPUs take turns on one host thread. With a
# thread each (QEMU's default), a vCPU can still run code that the other
# has just patched: the guest kernel's live patching of a static key
# (text_poke_bp's int3, here net_get_random_once's in inet_ehashfn at the
# first TCP connection) then traps with no patch in progress, "Oops:
# int3", and the VM panics; seen once on 6.12, the module in no frame.
# Taking turns costs nothing here: both kernels' tests take about a minute on a
# 2-core host either way (64-74 s measured).
nice timeout --foreground -k 5 "$timeout_s" qemu-system-x86_64 \
	-accel tcg,thread=single -machine q35 -cpu max -smp 2 -m 512 \
	-nographic -no-reboot -nodefaults -serial stdio \
	-device edu \
	-object memory-backend-file,id=incregs,share=on,mem-path="$regs",size=1M \
	-device ivshmem-plain,memdev=incregs,addr=05.0,multifunction=on \
	-device e1000,addr=05.1 \
	-device e1000,addr=05.2 \
	-netdev socket,id=nE,udp=127.0.0.1:$((port + 1)),localaddr=127.0.0.1:$port \
	-device e1000,netdev=nE,addr=06.0 \
	-netdev socket,id=nF,udp=127.0.0.1:$port,localaddr=127.0.0.1:$((port + 1)) \
	-device e1000,netdev=nF,addr=07.0 \
	-kernel "$kernel" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 tsc=unstable iomem=relaxed" \
	</dev/null >"$log" 2>&1
rc=$?
secs=$(( $(date +%s) - start ))
tr -d '\r' <"$log" | grep -E '^(PASS|FAIL|driver-vm|recv|send|inject|counted|A tx|compression ratio|expect|GRO|user namespace|CSR|B.s inc0|leaving on)|WARNING|BUG|Oops|Call Trace|Kernel panic' \
	| grep -v -E '^[0-9]+ passed, [0-9]+ failed' || true
line=$(tr -d '\r' <"$log" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
echo "driver-qemu: qemu exit $rc after ${secs}s (timeout ${timeout_s}s), console log $log"
if [ -z "$line" ]; then
	tail -n 40 "$log"
	echo "0 passed, 1 failed"
	exit 1
fi
# One check on the host: the final rmmod (with a device bound to the CSR
# stand-in) must leave the engines disabled, CTRL (0x10) = 0, in the file.
p=${line%% passed*}
f=${line#*passed, }
f=${f%% failed*}
ctrl=$(od -An -tu4 -j 16 -N 4 "$regs" | tr -d ' ')
if [ "$ctrl" = 0 ] && grep -q 'PASS deleting the device disables the engines' <(tr -d '\r' <"$log"); then
	echo "PASS host: CSR CTRL is 0 after the final rmmod"
	p=$((p + 1))
else
	echo "FAIL host: CSR CTRL is '$ctrl' after the final rmmod"
	f=$((f + 1))
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
