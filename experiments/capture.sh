#!/usr/bin/env bash
# Make real captures of INCEPTIONN traffic: two network namespaces joined by
# a veth pair, segmentation and checksum offloads off (frames are MTU sized
# and carry real checksums, as on a NIC without offloads), float32
# gradient-like data over TCP on sockets tagged with IP_TOS 0x28 (set before
# connect() and on the listening socket, checked with getsockopt), plus
# untagged TCP, tagged and untagged UDP (one datagram fragmented) and ICMP.
# tcpdump records the veth end of the sending namespace.
#
# usage: experiments/capture.sh [--out DIR] [--variant NAME]... [--bytes N] [--quiet]
#   --out DIR       where to write inc-<variant>.pcap (default tests/fixtures);
#                   plain also writes inc-plain-snap96.pcap (snapshot length 96)
#   --variant NAME  plain  MTU 1500, TCP timestamps on (the Linux default)
#               vlan   one 802.1Q tag (VID 100, a vlan device on the veth), ECN on;
#                      without vlan devices in the kernel, tc BPF programs
#                      (tools/inc_vlan.bpf.c) push/pop the tag on the veth; if
#                      that fails too, the tag is inserted into the captured
#                      frames afterwards (capture-vlan-tag.py)
#               jumbo  MTU 9000, TCP timestamps off (no TCP options in data)
#                   default: all three
#   --bytes N       tagged bytes the client sends (multiple of 4; default per variant)
#
# Needs root, iproute2 with netns, ethtool, tcpdump and build/bin/inc-tcpgen
# (make build/bin/inc-tcpgen). Everything it creates is removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

out=tests/fixtures
variants=()
bytes=""
quiet=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--variant) variants+=("$2"); shift 2 ;;
	--bytes) bytes=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "capture.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done
[ ${#variants[@]} -eq 0 ] && variants=(plain vlan jumbo)

say() { [ "$quiet" -eq 1 ] || echo "$@"; }
die() { echo "capture.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, tcpdump)"
for t in ip ethtool tcpdump ping; do
	command -v "$t" >/dev/null || die "missing $t (run make deps)"
done
gen=$PWD/build/bin/inc-tcpgen
[ -x "$gen" ] || die "missing $gen (run make build/bin/inc-tcpgen)"
mkdir -p "$out"

# Names unique to this run; the trap removes whatever exists.
id=$$
nsa=inc-cap-a-$id
nsb=inc-cap-b-$id
va=inca$id
vb=incb$id
work=$(mktemp -d /tmp/inc-capture.XXXXXX)
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	pids=()
	ip netns del "$nsa" 2>/dev/null || true
	ip netns del "$nsb" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ina() { ip netns exec "$nsa" "$@"; }
inb() { ip netns exec "$nsb" "$@"; }

# Segmentation, GRO and checksum offloads off on a device.
offloads_off() {
	local ns=$1 dev=$2
	ip netns exec "$ns" ethtool -K "$dev" tso off gso off gro off tx off rx off \
		>/dev/null 2>&1 || ip netns exec "$ns" ethtool -K "$dev" tso off gso off \
		gro off tx off >/dev/null
}

# Wait (up to 5 s) for a file to exist and, if given, to contain a pattern.
wait_for() {
	local f=$1 pat=${2:-} i
	for i in $(seq 100); do
		if [ -e "$f" ] && { [ -z "$pat" ] || grep -q "$pat" "$f"; }; then
			return 0
		fi
		sleep 0.05
	done
	die "timed out waiting for $f ${pat:+($pat)}"
}

# No vlan devices (kernel without 802.1Q): tag in the kernel with tc BPF
# programs instead (tools/inc_vlan.bpf.c): push VID 100 on egress of both
# veth ends, pop it on ingress. Returns non-zero if that is not possible.
vlan_bpf() {
	local obj=$work/inc_vlan.bpf.o ns dev
	command -v clang >/dev/null && command -v tc >/dev/null || return 1
	clang -O2 -target bpf -c tools/inc_vlan.bpf.c -o "$obj" 2>/dev/null || return 1
	for ns in "$nsa:$va" "$nsb:$vb"; do
		dev=${ns#*:}
		ns=${ns%%:*}
		ip netns exec "$ns" tc qdisc add dev "$dev" clsact 2>/dev/null &&
		ip netns exec "$ns" tc filter add dev "$dev" egress bpf da obj "$obj" \
			sec tc/push 2>/dev/null &&
		ip netns exec "$ns" tc filter add dev "$dev" ingress bpf da obj "$obj" \
			sec tc/pop 2>/dev/null || {
			ip netns exec "$nsa" tc qdisc del dev "$va" clsact 2>/dev/null
			ip netns exec "$nsb" tc qdisc del dev "$vb" clsact 2>/dev/null
			return 1
		}
	done
}

capture_variant() {
	local variant=$1 mtu=1500 vlan=0 ts=1 ecn=0 nbytes reply untagged
	local a=10.77.0.1 b=10.77.0.2 deva=$va devb=$vb file
	case "$variant" in
	plain) nbytes=${bytes:-262144} ;;
	vlan) nbytes=${bytes:-98304}; vlan=1; ecn=1; a=10.77.1.1; b=10.77.1.2 ;;
	jumbo) nbytes=${bytes:-262144}; mtu=9000; ts=0 ;;
	*) die "unknown variant '$variant' (plain, vlan, jumbo)" ;;
	esac
	reply=$((nbytes / 4 / 4 * 4))
	untagged=$((nbytes / 4 / 4 * 4))
	file=$out/inc-$variant.pcap

	ip netns add "$nsa"
	ip netns add "$nsb"
	ip link add "$va" type veth peer name "$vb"
	ip link set "$va" netns "$nsa"
	ip link set "$vb" netns "$nsb"
	for ns in "$nsa" "$nsb"; do
		ip netns exec "$ns" ip link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_timestamps=$ts
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=$ecn
	done
	ina ip link set "$va" mtu "$mtu" up
	inb ip link set "$vb" mtu "$mtu" up
	offloads_off "$nsa" "$va"
	offloads_off "$nsb" "$vb"
	if [ "$vlan" -eq 1 ] && ina ip link add link "$va" name "$va.100" \
			type vlan id 100 2>/dev/null; then
		inb ip link add link "$vb" name "$vb.100" type vlan id 100
		vlan=2
		deva=$va.100
		devb=$vb.100
		ina ip link set "$deva" mtu "$mtu" up
		inb ip link set "$devb" mtu "$mtu" up
		offloads_off "$nsa" "$deva"
		offloads_off "$nsb" "$devb"
	elif [ "$vlan" -eq 1 ] && vlan_bpf; then
		vlan=3
	fi
	ina ip addr add "$a/24" dev "$deva"
	inb ip addr add "$b/24" dev "$devb"

	# tcpdump on the veth end itself, so VLAN tags are in the frames.
	ip netns exec "$nsa" tcpdump -i "$va" -s 0 -U --immediate-mode -n -Z root -w "$work/cap.pcap" \
		>"$work/tcpdump.log" 2>&1 &
	local tcpdump_pid=$! snap_pid=""
	pids+=("$tcpdump_pid")
	wait_for "$work/tcpdump.log" "listening on"
	if [ "$variant" = plain ]; then
		# The same traffic with a 96-byte snapshot length: frames whose
		# captured length is shorter than their length on the wire.
		ip netns exec "$nsa" tcpdump -i "$va" -s 96 -U --immediate-mode -n \
			-Z root -w "$work/snap96.pcap" >"$work/tcpdump96.log" 2>&1 &
		snap_pid=$!
		pids+=("$snap_pid")
		wait_for "$work/tcpdump96.log" "listening on"
	fi

	# Tagged TCP: gradient-like data one way, a reply the other way.
	ip netns exec "$nsb" "$gen" server --port 5201 --tos 0x28 --reply "$reply" \
		--ready "$work/ready1" >"$work/server1.log" &
	local srv1=$! srv2
	pids+=("$srv1")
	wait_for "$work/ready1"
	ina "$gen" client --addr "$b" --port 5201 --tos 0x28 --bytes "$nbytes" \
		--seed 1 >"$work/client1.log"
	# Untagged TCP carrying the same kind of data.
	ip netns exec "$nsb" "$gen" server --port 5202 --tos 0 --ready "$work/ready2" \
		>"$work/server2.log" &
	srv2=$!
	pids+=("$srv2")
	wait_for "$work/ready2"
	ina "$gen" client --addr "$b" --port 5202 --tos 0 --bytes "$untagged" \
		--seed 2 >"$work/client2.log"
	# UDP, tagged (one datagram larger than the MTU: IP fragments) and
	# untagged; nobody listens, so B answers with ICMP port unreachable.
	ina "$gen" udp --addr "$b" --port 5301 --tos 0x28 --count 3 --size 1024 \
		--seed 3 >"$work/udp.log"
	ina "$gen" udp --addr "$b" --port 5302 --tos 0x28 --count 1 \
		--size $((mtu + 1000)) --seed 4 >>"$work/udp.log"
	ina "$gen" udp --addr "$b" --port 5303 --tos 0 --count 2 --size 200 \
		--seed 5 >>"$work/udp.log"
	# ICMP echo, untagged and tagged.
	ina ping -q -c 2 -i 0.2 "$b" >/dev/null
	ina ping -q -c 2 -i 0.2 -Q 0x28 "$b" >/dev/null

	wait "$srv1" "$srv2"
	sleep 0.5
	kill -TERM "$tcpdump_pid" $snap_pid
	wait "$tcpdump_pid" $snap_pid || true
	pids=()
	if [ "$vlan" -eq 1 ]; then
		# The kernel has no 802.1Q support (CONFIG_VLAN_8021Q): tag the
		# captured frames afterwards, as a trunk port would.
		experiments/capture-vlan-tag.py 100 "$work/cap.pcap" "$file"
		say "$variant: no 802.1Q or tc BPF in this kernel; VLAN tag 100 inserted into the captured frames"
	else
		[ "$vlan" -eq 3 ] && say "$variant: no vlan devices in this kernel; VLAN 100 pushed and popped by tc BPF on the veth"
		cp "$work/cap.pcap" "$file"
	fi
	say "$variant: $(cat "$work/client1.log")"
	say "$variant: $(cat "$work/server1.log")"
	say "$variant: $file, $(grep -Eo '[0-9]+ packets? captured' "$work/tcpdump.log" || echo '? packets'), $(stat -c %s "$file") bytes"
	if [ -n "$snap_pid" ]; then
		cp "$work/snap96.pcap" "$out/inc-$variant-snap96.pcap"
		say "$variant: $out/inc-$variant-snap96.pcap (snapshot length 96), $(stat -c %s "$out/inc-$variant-snap96.pcap") bytes"
	fi

	ip netns del "$nsa"
	ip netns del "$nsb"
	rm -f "$work"/*
}

for v in "${variants[@]}"; do
	capture_variant "$v"
done
