#!/bin/sh
# /init of the driver test VM (built by driver/tests/initramfs-driver.sh, booted
# by driver/tests/qemu-driver-test.sh). Runs the inceptionn.ko tests in a real
# kernel and prints "N passed, N failed" as its last test line, then powers
# off. Everything happens inside the VM: two network namespaces joined by a
# veth pair, an inceptionn device stacked on each end, addresses from the
# private range 10.99.0.0/24 that exists only here.
# Debian's static busybox runs its own applets before PATH lookups, so
# the iproute2 ip (needed for "type inceptionn" and netns) is called by path.
export PATH=/opt/bin:/tests:/bin:/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo 4 >/proc/sys/kernel/printk

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
# check NAME CMD...: one check, passes when CMD exits 0.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else ko "$name"; fi
}
# st NS DEV COUNTER: one ethtool -S counter (empty if missing).
st() {
	/opt/bin/ip netns exec "$1" ethtool -S "$2" | awk -v k="$3:" '$1 == k { print $2 }'
}
# ge A B / gt A B with empty meaning failure.
gt() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -gt "$2" ]; }
eq() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -eq "$2" ]; }
le() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -le "$2" ]; }
# kernel log clean: no WARN, BUG, oops, sanitizer report
# A transfer from A to B: xfer ID PORT TOS KIND COUNT SEED EB. The receiver
# (in B, checking against the eb-EB round trip) runs in the background; its
# report is printed and kept in /tmp/rID; returns the receiver's status.
xfer() {
	$B inc-vm-tcp recv "$2" "$3" "$4" "$5" "$6" "$7" >/tmp/r$1 2>&1 &
	_rp=$!
	$A inc-vm-tcp send "${XFER_DST:-10.99.0.2}" "$2" "$3" "$4" "$5" "$6" >/tmp/s$1 2>&1
	wait $_rp
	_rc=$?
	cat /tmp/r$1
	return $_rc
}

klog_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t|is buggy|skb_under_panic|skb_over_panic' >/tmp/bad
	rc=$?
	[ $rc -eq 0 ] || cat /tmp/bad
	return $rc
}
t_start=$(cut -d' ' -f1 /proc/uptime)
echo "driver-vm: kernel $(uname -r), $(nproc) CPUs"

# --- module load and device set-up ---------------------------------------
for m in $(cat /modules/order); do insmod /modules/$m.ko; done
check "insmod inceptionn" insmod /modules/inceptionn.ko
# veth_pair X Y: namespaces X and Y joined by a veth pair vX - vY, all up.
veth_pair() {
	/opt/bin/ip netns add "$1"
	/opt/bin/ip netns add "$2"
	/opt/bin/ip link add "v$1" type veth peer name "v$2"
	for ns in "$1" "$2"; do
		/opt/bin/ip link set "v$ns" netns "$ns"
		/opt/bin/ip -n "$ns" link set lo up
		/opt/bin/ip -n "$ns" link set "v$ns" up
	done
}
A="/opt/bin/ip netns exec A"
B="/opt/bin/ip netns exec B"
veth_pair A B
check "ip link add type inceptionn (A)" /opt/bin/ip -n A link add link vA name inc0 type inceptionn
check "ip link add type inceptionn (B)" /opt/bin/ip -n B link add link vB name inc0 type inceptionn
/opt/bin/ip -n A addr add 10.99.0.1/24 dev inc0
/opt/bin/ip -n B addr add 10.99.0.2/24 dev inc0
/opt/bin/ip -n A link set inc0 up
/opt/bin/ip -n B link set inc0 up
check "second device on the same lower refused" \
	sh -c '! /opt/bin/ip -n A link add link vA name inc1 type inceptionn 2>/dev/null'
check "stacking on an inceptionn device refused" \
	sh -c '! /opt/bin/ip -n A link add link inc0 name inc1 type inceptionn 2>/dev/null'
check "sysfs defaults" sh -c "[ \"\$($A cat /sys/class/net/inc0/inceptionn/tos_value)\" = 0x28 ] &&
	[ \"\$($A cat /sys/class/net/inc0/inceptionn/tos_mask)\" = 0xfc ] &&
	[ \"\$($A cat /sys/class/net/inc0/inceptionn/eb)\" = 10 ] &&
	[ \"\$($A cat /sys/class/net/inc0/inceptionn/offload)\" = software ]"
check "eb out of range refused" sh -c "! $A sh -c 'echo 0 >/sys/class/net/inc0/inceptionn/eb' 2>/dev/null &&
	! $A sh -c 'echo 127 >/sys/class/net/inc0/inceptionn/eb' 2>/dev/null"
# A user namespace has no CAP_NET_ADMIN over netns A (owned by the initial
# one): the file's owner matches (uid 0 mapped), so only the driver's own
# check can refuse the write.
$A unshare -U -r sh -c 'id -u; echo 5 >/sys/class/net/inc0/inceptionn/eb' >/tmp/userns 2>&1
echo "user namespace write: $(tr '\n' ' ' </tmp/userns)"
check "sysfs write without CAP_NET_ADMIN refused (EPERM)" sh -c "head -n 1 /tmp/userns | grep -qx 0 &&
	grep -q 'Operation not permitted' /tmp/userns &&
	[ \"\$($A cat /sys/class/net/inc0/inceptionn/eb)\" = 10 ]"
check "ethtool -i" sh -c "$A ethtool -i inc0 | grep -q 'driver: inceptionn'"
check "ping over the stacked devices" $A ping -c 2 -W 3 10.99.0.2 >/dev/null

# --- untagged transfer: bit-exact, nothing compressed ---------------------
cmp0=$(st A inc0 tx_compressed_frames)
xfer 1 5001 0 bytes 3000003 11 10
rc=$?
check "untagged 3000003 bytes arrive bit-exact" [ $rc -eq 0 ]
check "untagged traffic not compressed" eq "$(st A inc0 tx_compressed_frames)" "$cmp0"
check "untagged traffic counted as ToS bypass" gt "$(st A inc0 tx_bypass_tos)" 0

# --- tagged float transfer: codec round trip, compression ratio > 1 ------
# A packet tap on A's lower device meanwhile: every compressed skb the
# driver queues passes the tap path, which logs "protocol 0800 is buggy"
# when its network header offset lies outside the frame.
$A inc-vm-inject tap vA >/tmp/tap 2>&1 &
tap_pid=$!
sleep 0.5
xfer 2 5002 0x28 floats 8000000 22 10
rc=$?
kill $tap_pid; wait $tap_pid
cat /tmp/tap
tapm=$(sed -n 's/.* marked=\([0-9]*\).*/\1/p' /tmp/tap)
check "packet tap on the lower device saw the compressed frames" gt "${tapm:-0}" 1000
check "no skb with bad header offsets on the lower device (tap path)" sh -c "! dmesg | grep -q 'is buggy'"
check "tagged 2000000 floats arrive as the codec round trip (eb 10)" [ $rc -eq 0 ]
check "some values were lossy (the codec really ran)" \
	sh -c "grep -q '(0 of them lossy)' /tmp/r2 && exit 1; exit 0"
unch=$(sed -n 's/.*lossy), \([0-9]*\) unchanged.*/\1/p' /tmp/r2)
ns=$(st A inc0 tx_bypass_not_smaller)
check "values unchanged only if a frame was not smaller" sh -c "[ '$unch' = 0 ] || [ '${ns:-0}' -gt 0 ]"
txc=$(st A inc0 tx_compressed_frames)
bin=$(st A inc0 tx_compressed_bytes_in)
bout=$(st A inc0 tx_compressed_bytes_out)
pin=$(st A inc0 tx_compressed_payload_in)
pout=$(st A inc0 tx_compressed_payload_out)
rxd=$(st B inc0 rx_decompressed_frames)
echo "A tx: compressed $txc frames, $bin -> $bout bytes (frames), $pin -> $pout bytes (payload);" \
	"B rx: decompressed $rxd; segmented $(st A inc0 tx_gso_segmented) GSO packets;" \
	"not_smaller $ns; values 0/8/16/32-bit: $(st A inc0 tx_values_0bit)" \
	"$(st A inc0 tx_values_8bit) $(st A inc0 tx_values_16bit) $(st A inc0 tx_values_raw)"
awk -v i="$bin" -v o="$bout" -v pi="$pin" -v po="$pout" \
	'BEGIN { if (o > 0 && po > 0) printf "compression ratio: frames %.2f, payload %.2f\n", i / o, pi / po }'
echo "ethtool -S inc0 on A, non-zero counters:"
$A ethtool -S inc0 | grep -v ': 0$'
echo "ethtool -S inc0 on B, non-zero counters:"
$B ethtool -S inc0 | grep -v ': 0$'
check "tagged frames compressed on A" gt "$txc" 1000
check "frame compression ratio above 1" gt "$bin" "$bout"
check "B decompressed exactly what A compressed ($txc)" eq "${rxd:-0}" "${txc:-0}"
check "B decompressed bytes restore the sizes" gt "$(st B inc0 rx_decompressed_bytes_out)" "$(st B inc0 rx_decompressed_bytes_in)"
check "no malformed frames in a clean transfer" eq "$($B ethtool -S inc0 | awk '/rx_malformed_/ { s += $2 } END { print s + 0 }')" 0
check "ACKs of the tagged flow bypass as no_payload" gt "$(st B inc0 tx_bypass_no_payload)" 0

# --- GRO on the receiving veth: merges plain TCP, never compressed frames --
if $B ethtool -K vB gro on 2>/dev/null; then
	p0=$(st B inc0 rx_packets)
	b0=$(st B inc0 rx_bytes)
	xfer 5 5005 0 bytes 2000000 55 10
	rc=$?
	check "GRO on: untagged bytes arrive bit-exact" [ $rc -eq 0 ]
	np=$(( $(st B inc0 rx_packets) - p0 ))
	nb=$(( $(st B inc0 rx_bytes) - b0 ))
	echo "GRO on: B's inc0 got $nb bytes in $np packets (plain TCP)"
	check "GRO on vB merges plain TCP (average packet above 1514 bytes)" gt "$(( nb / (np > 0 ? np : 1) ))" 1514
	c0=$(st A inc0 tx_compressed_frames)
	x0=$(st A inc0 tx_dropped)
	d0=$(st B inc0 rx_decompressed_frames)
	o0=$(st B inc0 rx_decompressed_bytes_out)
	xfer 6 5006 0x28 floats 2000000 66 10
	rc=$?
	check "GRO on: tagged floats arrive as the codec round trip" [ $rc -eq 0 ]
	nc=$(( $(st A inc0 tx_compressed_frames) - c0 ))
	nx=$(( $(st A inc0 tx_dropped) - x0 ))
	nd=$(( $(st B inc0 rx_decompressed_frames) - d0 ))
	no=$(( $(st B inc0 rx_decompressed_bytes_out) - o0 ))
	echo "GRO on: A compressed $nc, dropped $nx; B decompressed $nd frames, $no bytes"
	check "GRO on: every compressed frame decompressed on its own" \
		sh -c "[ $nd -gt 0 ] && [ $nd -le $nc ] && [ $(( nc - nd )) -le $nx ] && [ $(( no / (nd > 0 ? nd : 1) )) -le 1514 ]"
	check "GRO on: no malformed frames" eq "$($B ethtool -S inc0 | awk '/rx_malformed_/ { s += $2 } END { print s + 0 }')" 0
	$B ethtool -K vB gro off
else
	ko "ethtool -K vB gro on"
fi

# --- configuration: eb 6 on the sender, then TX disabled -----------------
$A sh -c 'echo 6 >/sys/class/net/inc0/inceptionn/eb'
xfer 3 5003 0x28 floats 400000 33 6
rc=$?
check "eb 6 set through sysfs: values are the eb-6 round trip" [ $rc -eq 0 ]
$A sh -c 'echo 10 >/sys/class/net/inc0/inceptionn/eb; echo 0 >/sys/class/net/inc0/inceptionn/tx_enable'
cmp0=$(st A inc0 tx_compressed_frames)
xfer 4 5004 0x28 bytes 400000 44 10
rc=$?
check "tx_enable 0: tagged bytes arrive bit-exact" [ $rc -eq 0 ]
check "tx_enable 0: nothing compressed" eq "$(st A inc0 tx_compressed_frames)" "$cmp0"
check "tx_enable 0: counted as disabled" gt "$(st A inc0 tx_bypass_disabled)" 0
$A sh -c 'echo 1 >/sys/class/net/inc0/inceptionn/tx_enable'

# --- configuration changed during tagged transfers -----------------------
# One change per transfer of 6000000 floats A -> B, made while it flows;
# every value must arrive as a codec round trip or unchanged, and the
# kernel log stay clean. midxfer ID PORT EB[,EB2] WHAT CMD...: CMD after
# 0.4 s, WHAT names it.
midxfer() {
	_id=$1 _port=$2 _eb=$3 _what=$4
	shift 4
	xfer "$_id" "$_port" 0x28 floats 24000000 "$_id$_id" "$_eb" >/tmp/x$_id 2>&1 &
	_xp=$!
	sleep 0.4
	sh -c "$*"
	wait $_xp
	_rc=$?
	cat /tmp/x$_id
	check "during a transfer, $_what: every value a round trip or unchanged" [ $_rc -eq 0 ]
}
byp0=$(st A inc0 tx_bypass_tos)
midxfer 11 5011 10,8 "A's eb 10 -> 8 -> 10" \
	"$A sh -c 'echo 8 >/sys/class/net/inc0/inceptionn/eb'; sleep 0.4; $A sh -c 'echo 10 >/sys/class/net/inc0/inceptionn/eb'"
midxfer 12 5012 10 "A's tos_value 0x28 -> 0x30 -> 0x28 (frames pass uncompressed)" \
	"$A sh -c 'echo 0x30 >/sys/class/net/inc0/inceptionn/tos_value'; sleep 0.4; $A sh -c 'echo 0x28 >/sys/class/net/inc0/inceptionn/tos_value'"
check "the other tos_value bypassed frames" gt "$(st A inc0 tx_bypass_tos)" "$byp0"
midxfer 13 5013 10 "B's rx_enable 1 -> 0 -> 1 (compressed frames dropped, retransmitted)" \
	"$B sh -c 'echo 0 >/sys/class/net/inc0/inceptionn/rx_enable'; sleep 0.4; $B sh -c 'echo 1 >/sys/class/net/inc0/inceptionn/rx_enable'"
midxfer 14 5014 10 "A's MTU 1500 -> 1400 -> 1500" \
	"/opt/bin/ip -n A link set dev vA mtu 1400; /opt/bin/ip -n A link set dev inc0 mtu 1400; sleep 0.4; /opt/bin/ip -n A link set dev vA mtu 1500; /opt/bin/ip -n A link set dev inc0 mtu 1500"
check "MTU back at 1500" sh -c "/opt/bin/ip -n A link show dev inc0 | grep -q 'mtu 1500'"
midxfer 15 5015 10 "A's tos_mask 0xfc -> 0xff -> 0xfc" \
	"$A sh -c 'echo 0xff >/sys/class/net/inc0/inceptionn/tos_mask'; sleep 0.4; $A sh -c 'echo 0xfc >/sys/class/net/inc0/inceptionn/tos_mask'"
# Racing writers: two loops rewrite A's eb (10/8) and tos_mask and B's
# rx_enable (kept on) and read every attribute while the transfer runs.
midxfer 16 5016 10,8 "200 racing sysfs writes and reads on both ends" \
	"$A sh -c 'i=0; while [ \$i -lt 50 ]; do echo 8 >/sys/class/net/inc0/inceptionn/eb; echo 0xff >/sys/class/net/inc0/inceptionn/tos_mask; echo 10 >/sys/class/net/inc0/inceptionn/eb; echo 0xfc >/sys/class/net/inc0/inceptionn/tos_mask; i=\$((i + 1)); done' &
	 $B sh -c 'i=0; while [ \$i -lt 100 ]; do echo 1 >/sys/class/net/inc0/inceptionn/rx_enable; cat /sys/class/net/inc0/inceptionn/* >/dev/null; i=\$((i + 1)); done'; wait"
check "after the racing writes: eb 10, tos_mask 0xfc" sh -c \
	"[ \"\$($A cat /sys/class/net/inc0/inceptionn/eb)\" = 10 ] && [ \"\$($A cat /sys/class/net/inc0/inceptionn/tos_mask)\" = 0xfc ]"
check "changes during transfers: kernel log clean" klog_clean

# --- a VLAN device on top of inc0 ----------------------------------------
# The 802.1Q device tags in software (inc0 offers no VLAN offload), so inc0
# and the model see the tag in line; on receive the core moves it into the
# skb's metadata before inc0's handler and the VLAN device takes the frame.
/opt/bin/ip -n A link add link inc0 name inc0.7 type vlan id 7
/opt/bin/ip -n B link add link inc0 name inc0.7 type vlan id 7
/opt/bin/ip -n A addr add 10.97.0.1/24 dev inc0.7
/opt/bin/ip -n B addr add 10.97.0.2/24 dev inc0.7
/opt/bin/ip -n A link set inc0.7 up
/opt/bin/ip -n B link set inc0.7 up
check "VLAN on inc0: ping" $A ping -c 2 -W 3 10.97.0.2 >/dev/null
c0=$(st A inc0 tx_compressed_frames) d0=$(st B inc0 rx_decompressed_frames)
XFER_DST=10.97.0.2 xfer 51 5051 0x28 floats 2000000 51 10
rc=$?
c1=$(st A inc0 tx_compressed_frames) d1=$(st B inc0 rx_decompressed_frames)
echo "VLAN on inc0: A compressed $((c1 - c0)) frames, B decompressed $((d1 - d0))"
check "VLAN on inc0: tagged 500000 floats arrive as the codec round trip" [ $rc -eq 0 ]
check "VLAN on inc0: tagged frames compressed and every one decompressed" sh -c \
	"[ $((c1 - c0)) -gt 100 ] && [ $((d1 - d0)) -eq $((c1 - c0)) ]"
/opt/bin/ip -n A link del inc0.7
/opt/bin/ip -n B link del inc0.7

# --- the lower device moved to another namespace and back ----------------
# inc0 stays bound (like macvlan) and reports the lower's namespace
# (rtnl_link_ops.get_link_net: IFLA_LINK_NETNSID, "link-netns" in ip -d).
/opt/bin/ip netns add M
check "lower moved to another namespace: inc0 stays, ip -d link shows link-netns" sh -c \
	"/opt/bin/ip -n A link set vA netns M && /opt/bin/ip -n A link show inc0 >/dev/null &&
	 /opt/bin/ip -n A -d link show inc0 | grep -q 'link-netns'"
check "lower moved back: inc0 carries traffic again" sh -c \
	"/opt/bin/ip -n M link set vA netns A && /opt/bin/ip -n A link set vA up && sleep 1 &&
	 ! /opt/bin/ip -n A -d link show inc0 | grep -q 'link-netns' &&
	 $A ping -c 2 -W 3 10.99.0.2 >/dev/null"
/opt/bin/ip netns del M

# --- a real NIC driver under inc0: two e1000 joined by QEMU sockets -----
# 06.0 and 07.0 are e1000 NICs whose frames travel through UDP sockets on
# the host's loopback: each goes into its own namespace (E, F) with inc0 on
# top, and tagged and untagged TCP cross the e1000 driver, its DMA rings
# and QEMU's emulation instead of a veth.
eE=$(ls /sys/bus/pci/devices/0000:00:06.0/net/ 2>/dev/null | head -n 1)
eF=$(ls /sys/bus/pci/devices/0000:00:07.0/net/ 2>/dev/null | head -n 1)
if [ -n "$eE" ] && [ -n "$eF" ]; then
	for p in "E $eE 10.98.0.1" "F $eF 10.98.0.2"; do
		set -- $p
		/opt/bin/ip netns add "$1"
		/opt/bin/ip link set "$2" netns "$1"
		/opt/bin/ip -n "$1" link set lo up
		/opt/bin/ip -n "$1" link set "$2" up
		check "ip link add type inceptionn on an e1000 ($1)" \
			/opt/bin/ip -n "$1" link add link "$2" name inc0 type inceptionn
		/opt/bin/ip -n "$1" addr add "$3/24" dev inc0
		/opt/bin/ip -n "$1" link set inc0 up
	done
	sA=$A sB=$B
	A="/opt/bin/ip netns exec E" B="/opt/bin/ip netns exec F"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		$A ping -c 1 -W 1 10.98.0.2 >/dev/null 2>&1 && break
	done
	check "e1000 lower: ping over the stacked devices" $A ping -c 2 -W 3 10.98.0.2 >/dev/null
	c0=$(st E inc0 tx_compressed_frames)
	# INC_VM_TS=1: the sender counts its software TX timestamps (made by
	# the e1000 driver from the skb's socket) and reads its write memory
	# after the transfer (SO_MEMINFO): both need the socket owner that
	# the driver moves onto each compressed skb.
	INC_VM_TS=1 XFER_DST=10.98.0.2 xfer 41 5041 0 bytes 1000003 41 10
	rc=$?
	check "e1000 lower: untagged 1000003 bytes arrive bit-exact, none compressed" sh -c \
		"[ $rc -eq 0 ] && [ $(st E inc0 tx_compressed_frames) -eq $c0 ]"
	INC_VM_TS=1 XFER_DST=10.98.0.2 xfer 42 5042 0x28 floats 4000000 42 10
	rc=$?
	txc=$(st E inc0 tx_compressed_frames) rxd=$(st F inc0 rx_decompressed_frames)
	echo "e1000 lower: E compressed $txc frames ($(st E inc0 tx_compressed_bytes_in) -> $(st E inc0 tx_compressed_bytes_out) bytes), F decompressed $rxd"
	check "e1000 lower: tagged 1000000 floats arrive as the codec round trip" [ $rc -eq 0 ]
	check "e1000 lower: frames compressed on E and F decompressed exactly those" sh -c \
		"[ ${txc:-0} -gt 100 ] && [ ${rxd:-0} -eq ${txc:-0} ]"
	cat /tmp/s41 /tmp/s42
	ts41=$(sed -nE 's/.*tx timestamps ([0-9]+).*/\1/p' /tmp/s41) ts42=$(sed -nE 's/.*tx timestamps ([0-9]+).*/\1/p' /tmp/s42)
	wm41=$(sed -nE 's/.*wmem_alloc ([0-9]+).*/\1/p' /tmp/s41) wm42=$(sed -nE 's/.*wmem_alloc ([0-9]+).*/\1/p' /tmp/s42)
	check "e1000 lower: TX timestamps reach the sender, untagged ($ts41) and tagged ($ts42)" sh -c \
		"[ ${ts41:-0} -gt 0 ] && [ ${ts42:-0} -gt 0 ]"
	check "e1000 lower: the sender's write memory back to 0 after each transfer" sh -c \
		"[ '$wm41' = 0 ] && [ '$wm42' = 0 ]"
	check "e1000 lower: kernel log clean" klog_clean
	A=$sA B=$sB
	/opt/bin/ip netns del E
	/opt/bin/ip netns del F
else
	ko "e1000 NICs at 06.0 and 07.0 present"
fi

# --- malformed marked frames through AF_PACKET ---------------------------
macB=$($B cat /sys/class/net/vB/address)
inject_rx() {   # MODE COUNT SEED: send on vA, compare B's counters
	m0=$(st B inc0 rx_malformed_bad_shim)
	s0=$(st B inc0 rx_malformed_bad_stream)
	d0=$(st B inc0 rx_decompressed_frames)
	c0=$(st B inc0 rx_malformed_bad_payload_csum)
	v0=$(st B inc0 rx_malformed_old_version)
	$B inc-vm-inject expect inc0 "$macB" "$1" "$2" "$3" >/tmp/exp 2>&1 &
	ep=$!
	sleep 1
	line=$($A inc-vm-inject send vA "$macB" rx "$1" "$2" "$3" | tail -n 1)
	echo "inject rx $1: $line"
	wait $ep
	erc=$?
	echo "B's inc0: $(tail -n 1 /tmp/exp)"
	check "inject $1: every frame reaches B's inc0 exactly as inc_frame_decompress predicts" [ $erc -eq 0 ]
	em=$(echo "$line" | sed -n 's/.* bad_shim=\([0-9]*\).*/\1/p')
	es=$(echo "$line" | sed -n 's/.* bad_stream=\([0-9]*\).*/\1/p')
	ed=$(echo "$line" | sed -n 's/.* decompressed=\([0-9]*\).*/\1/p')
	gm=$(( $(st B inc0 rx_malformed_bad_shim) - m0 ))
	gs=$(( $(st B inc0 rx_malformed_bad_stream) - s0 ))
	gd=$(( $(st B inc0 rx_decompressed_frames) - d0 ))
	ec=$(echo "$line" | sed -n 's/.* bad_payload_csum=\([0-9]*\).*/\1/p')
	ev=$(echo "$line" | sed -n 's/.* old_version=\([0-9]*\).*/\1/p')
	ex=$(echo "$line" | sed -n 's/.* corrupt=\([0-9]*\).*/\1/p')
	gc=$(( $(st B inc0 rx_malformed_bad_payload_csum) - c0 ))
	gv=$(( $(st B inc0 rx_malformed_old_version) - v0 ))
	echo "counted on B: bad_shim $gm bad_stream $gs old_version $gv bad_payload_csum $gc decompressed $gd"
	check "inject $1: rx_malformed_bad_shim counts them ($em)" eq "$gm" "$em"
	check "inject $1: rx_malformed_bad_stream counts them ($es)" eq "$gs" "$es"
	check "inject $1: rx_malformed_old_version counts them ($ev)" eq "$gv" "$ev"
	check "inject $1: payload checksum drops counted ($ec)" eq "$gc" "$ec"
	check "inject $1: valid marked frames decompressed ($ed)" eq "$gd" "$ed"
	check "inject $1: no frame delivered with other contents" eq "$ex" 0
}
inject_rx marked 400 5
check "marked injection produced malformed frames" gt "$em$es" 0
inject_rx random 3000 6
# Format v2 integrity: every single-bit flip of the shim, stream and tail
# of three compressed frames is refused by B's decompressor.
inject_rx flips 3100 8
check "flips: most are dropped by the payload checksum" gt "$gc" 1000
c0=$(st A inc0 tx_compressed_frames)
$A inc-vm-inject send inc0 "$macB" tx random 2000 7 vA >/tmp/inj 2>&1
irc=$?
line=$(tail -n 1 /tmp/inj)
echo "inject tx random: $line"
echo "leaving on vA: $(grep bit-exact /tmp/inj)"
check "random frames through inc0 leave on vA exactly as inc_frame_compress predicts" [ $irc -eq 0 ]
ec=$(echo "$line" | sed -n 's/.* compressed=\([0-9]*\).*/\1/p')
check "random frames sent through inc0: tx_compressed counts the model's ($ec)" \
	eq "$(( $(st A inc0 tx_compressed_frames) - c0 ))" "$ec"
check "ping still works after the injections" $A ping -c 1 -W 3 10.99.0.2 >/dev/null
check "kernel log clean after traffic" klog_clean

# --- addresses and receive modes ---------------------------------------------
# A second pair in namespaces C and D: inc0 in C is given its own address at
# creation, inc0 in D takes over its lower's. Frames for C's address must be
# received (the lower has it in its unicast filter, and the handler classes
# them for inc0), changes must take effect, D's device must follow its
# lower's address, and promiscuous/multicast state must reach the lower.
C="/opt/bin/ip netns exec C"
D="/opt/bin/ip netns exec D"
veth_pair C D
check "an address given at creation is accepted" \
	/opt/bin/ip -n C link add link vC name inc0 address 02:00:00:00:0c:01 type inceptionn
check "a multicast address at creation is refused" \
	sh -c '! /opt/bin/ip -n D link add link vD name inc0 address 01:00:5e:00:00:01 type inceptionn 2>/dev/null'
/opt/bin/ip -n D link add link vD name inc0 type inceptionn
/opt/bin/ip -n C addr add 10.98.0.1/24 dev inc0
/opt/bin/ip -n D addr add 10.98.0.2/24 dev inc0
/opt/bin/ip -n C link set inc0 up
/opt/bin/ip -n D link set inc0 up
check "the given address is honoured" [ "$($C cat /sys/class/net/inc0/address)" = 02:00:00:00:0c:01 ]
check "the lower takes it into its unicast filter (veth: promiscuous)" \
	sh -c "[ \$(( \$($C cat /sys/class/net/vC/flags) & 0x100 )) -ne 0 ]"
check "frames for the given address are received (ping)" $D ping -c 2 -W 3 10.98.0.1 >/dev/null
$C /opt/bin/ip link set inc0 address 02:00:00:00:0c:02
$D /opt/bin/ip neigh flush dev inc0
check "a changed address takes effect (ping)" sh -c "[ \"\$($C cat /sys/class/net/inc0/address)\" = 02:00:00:00:0c:02 ] &&
	$D ping -c 2 -W 3 10.98.0.1 >/dev/null"
$D /opt/bin/ip link set vD address 02:00:00:00:0d:0d
check "without a given address the device follows its lower's" \
	[ "$($D cat /sys/class/net/inc0/address)" = 02:00:00:00:0d:0d ]
$C /opt/bin/ip neigh flush dev inc0
check "and is reached there (ping)" $C ping -c 2 -W 3 10.98.0.2 >/dev/null
check "the lower is not promiscuous to begin with" \
	sh -c "[ \$(( \$($D cat /sys/class/net/vD/flags) & 0x100 )) -eq 0 ]"
$D /opt/bin/ip link set inc0 promisc on
check "promiscuous mode reaches the lower device" \
	sh -c "[ \$(( \$($D cat /sys/class/net/vD/flags) & 0x100 )) -ne 0 ]"
$D /opt/bin/ip link set inc0 promisc off
check "and is taken back" sh -c "[ \$(( \$($D cat /sys/class/net/vD/flags) & 0x100 )) -eq 0 ]"
$D /opt/bin/ip maddr add 33:33:00:00:12:34 dev inc0
check "a multicast address reaches the lower's list" \
	sh -c "$D /opt/bin/ip maddr show dev vD | grep -q 33:33:00:00:12:34"
$D /opt/bin/ip maddr del 33:33:00:00:12:34 dev inc0
check "and leaves it" sh -c "! $D /opt/bin/ip maddr show dev vD | grep -q 33:33:00:00:12:34"
/opt/bin/ip netns del C
/opt/bin/ip netns del D
check "kernel log clean after the address tests" klog_clean

# --- PCI path: a device that is not INCEPTIONN is refused -----------------
if grep -q 0x11e8 /sys/bus/pci/devices/*/device 2>/dev/null; then
	echo "1234 11e8" >/sys/bus/pci/drivers/inceptionn/new_id 2>/dev/null
	sleep 1
	check "PCI probe checks the ID register (QEMU edu device refused)" \
		sh -c "dmesg | grep -q 'not INCEPTIONN engines' && ! ls /sys/bus/pci/drivers/inceptionn | grep -q '^0000:'"
fi

# --- delete, unload and reload 50 times ----------------------------------
check "ip link del inc0" /opt/bin/ip -n A link del inc0
echo "driver-vm: reload cycles start at $(cut -d' ' -f1 /proc/uptime) s"
n=0
while [ $n -lt 50 ]; do
	rmmod inceptionn || break
	insmod /modules/inceptionn.ko || break
	/opt/bin/ip -n A link add link vA name inc0 type inceptionn || break
	/opt/bin/ip -n A link set inc0 up || break
	n=$((n + 1))
done
check "50 unload/reload cycles with a live device ($n)" [ $n -eq 50 ]
check "rmmod after the cycles" rmmod inceptionn
check "lower devices survive" /opt/bin/ip -n A link show vA >/dev/null
echo "driver-vm: reload cycles done at $(cut -d' ' -f1 /proc/uptime) s"

# --- FPGA path against the register map: CSR block stand-in in slot 5 ----
# QEMU's ivshmem (1af4:1110) at 05.0 exposes the preset register words in
# BAR 2; the e1000 NIC at 05.1 is the lower device in the same slot.
fdev=/sys/bus/pci/devices/0000:00:05.0
if [ -e $fdev ] && [ -d /sys/bus/pci/devices/0000:00:05.1/net ]; then
	check "insmod csr_bar=2" insmod /modules/inceptionn.ko csr_bar=2
	echo "1af4 1110" >/sys/bus/pci/drivers/inceptionn/new_id
	sleep 1
	check "PCI probe accepts the ID/version/caps words" sh -c \
		"dmesg | grep -q '0000:00:05.0: INCEPTIONN engines v1.1 (wire format 2), TX, RX, 256-bit stream, max frame 9018'"
	eth=$(ls /sys/bus/pci/devices/0000:00:05.1/net/ | head -n 1)
	check "ip link add on the FPGA NIC ($eth)" /opt/bin/ip link add link "$eth" name incf type inceptionn
	check "offload is the FPGA" [ "$(cat /sys/class/net/incf/inceptionn/offload)" = "fpga 0000:00:05.0" ]
	bar=$(sed -n 3p $fdev/resource | cut -d' ' -f1)
	reg() { echo $(( $(devmem $(printf '0x%x' $((bar + $1))) 32) )); }
	echo "CSR after create: CTRL $(reg 0x10) TOS $(reg 0x14) EB $(reg 0x18) SCRATCH $(reg 0x0c)"
	check "create programs CTRL=TX|RX, TOS=0xfc28, EB=10" \
		sh -c "[ $(reg 0x10) -eq 3 ] && [ $(reg 0x14) -eq $((0xfc28)) ] && [ $(reg 0x18) -eq 10 ]"
	echo 0x30 >/sys/class/net/incf/inceptionn/tos_value
	echo 7 >/sys/class/net/incf/inceptionn/eb
	echo 0 >/sys/class/net/incf/inceptionn/tx_enable
	echo "CSR after sysfs: CTRL $(reg 0x10) TOS $(reg 0x14) EB $(reg 0x18)"
	check "sysfs programs CTRL=RX, TOS=0xfc30, EB=7" \
		sh -c "[ $(reg 0x10) -eq 2 ] && [ $(reg 0x14) -eq $((0xfc30)) ] && [ $(reg 0x18) -eq 7 ]"
	check "ethtool -S shows the engine counters (64-bit LO/HI)" sh -c \
		"[ \"\$(ethtool -S incf | awk '\$1 == \"hw_tx_compressed:\" { print \$2 }')\" = 4294968530 ] &&
		 [ \"\$(ethtool -S incf | awk '\$1 == \"hw_rx_reason_bad_stream:\" { print \$2 }')\" = 77 ]"
	check "ethtool -i names the PCI function" sh -c "ethtool -i incf | grep -q 'bus-info: 0000:00:05.0'"
	check "ip link del on the FPGA NIC" /opt/bin/ip link del incf
	check "deleting the device disables the engines (CTRL=0)" [ "$(reg 0x10)" -eq 0 ]
	/opt/bin/ip link add link "$eth" name incf type inceptionn
	/opt/bin/ip link set "$eth" up
	/opt/bin/ip link set incf up
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(cat /sys/class/net/incf/carrier 2>/dev/null)" = 1 ] && break
		sleep 0.5
	done
	# One owner per slot: the second NIC function (05.2) is refused.
	eth2=$(ls /sys/bus/pci/devices/0000:00:05.2/net/ 2>/dev/null | head -n 1)
	check "a second device in the slot is refused (the engines belong to incf)" sh -c \
		"[ -n '$eth2' ] && ! /opt/bin/ip link add link '$eth2' name incg type inceptionn 2>/tmp/incg.err &&
		 grep -q 'belong to another inceptionn device' /tmp/incg.err && ! /opt/bin/ip link show incg 2>/dev/null"
	# Frames sent on incf: the FPGA path passes them to the NIC untouched,
	# the software path compresses or counts a bypass for each.
	swtx() { ethtool -S incf | awk '$1 == "tx_compressed_frames:" || $1 == "tx_dropped:" ||
		$1 ~ /^tx_bypass_/ { s += $2 } END { print s + 0 }'; }
	macf=$(cat /sys/class/net/incf/address)
	txp() { ethtool -S incf | awk '$1 == "tx_packets:" { print $2 }'; }
	# 40 random frames on incf (AF_PACKET); prints how many went out
	send_incf() {
		inc-vm-inject send incf "$macf" tx random 40 5 2>/dev/null |
			sed -nE 's/.*expect sent=([0-9]+).*/\1/p'
	}
	t0=$(swtx) p0=$(txp)
	sent=$(send_incf)
	echo "FPGA path: $sent frames sent, software counters $t0 -> $(swtx), tx_packets $p0 -> $(txp)"
	check "FPGA path: frames on incf go to the NIC without the software codec" sh -c \
		"[ '${sent:-0}' -gt 0 ] && [ $(swtx) -eq $t0 ] && [ $(txp) -ge $((p0 + ${sent:-0})) ]"
	echo 0000:00:05.0 >/sys/bus/pci/drivers/inceptionn/unbind
	check "after unbind: offload reports the engines removed" \
		[ "$(cat /sys/class/net/incf/inceptionn/offload)" = "software (fpga 0000:00:05.0 removed)" ]
	t0=$(swtx)
	sent=$(send_incf)
	t1=$(swtx)
	echo "after unbind: $sent frames sent, software counters $t0 -> $t1"
	# (at least: the device's own frames, e.g. IPv6 neighbour discovery,
	# pass the same path)
	check "after unbind: the software datapath counts every frame sent" sh -c \
		"[ '${sent:-0}' -gt 0 ] && [ $t1 -ge $((t0 + ${sent:-0})) ]"
	check "after unbind: sysfs configuration still works" sh -c \
		"echo 8 >/sys/class/net/incf/inceptionn/eb && [ \"\$(cat /sys/class/net/incf/inceptionn/eb)\" = 8 ]"
	check "after unbind: the second function can take the slot" sh -c \
		"/opt/bin/ip link add link '$eth2' name incg type inceptionn &&
		 [ \"\$(cat /sys/class/net/incg/inceptionn/offload)\" = software ] && /opt/bin/ip link del incg"
else
	ko "FPGA stand-in devices present"
fi
# --- the lower device or the namespace goes away under a live device -----
/opt/bin/ip -n A link add link vA name inc0 type inceptionn
/opt/bin/ip -n A link set inc0 up
check "deleting the lower device (veth pair) deletes inc0" sh -c \
	"/opt/bin/ip -n A link del vA && ! /opt/bin/ip -n A link show inc0 2>/dev/null && ! /opt/bin/ip -n B link show vB 2>/dev/null"
/opt/bin/ip netns add C
/opt/bin/ip -n C link add vC type veth peer name vD
/opt/bin/ip -n C link set vC up
/opt/bin/ip -n C link add link vC name inc0 type inceptionn
/opt/bin/ip -n C link add link vD name inc1 type inceptionn
/opt/bin/ip -n C link set inc0 up
check "deleting a namespace with stacked devices" /opt/bin/ip netns del C
sleep 2
check "final rmmod" rmmod inceptionn
check "kernel log clean at the end" klog_clean

t_end=$(cut -d' ' -f1 /proc/uptime)
echo "driver-vm: tests took $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }') s"
echo "$pass passed, $fail failed"
sync
poweroff -f
