#!/usr/bin/env bash
# netns-cluster.sh - an emulated cluster: N network namespaces PREFIX-0 ..
# PREFIX-(N-1), each with eth0 = 10.99.0.(i+1)/24, joined by veth pairs to a
# bridge br0 in namespace PREFIX-br. Every link is rate-limited with tbf in
# both directions (default 1gbit), with TSO/GSO/GRO off so the bridge sees
# real MTU-sized frames. Needs root. Nothing is added to the caller's
# namespace, and `down` removes everything.
#
#   netns-cluster.sh up   [-p PREFIX] [-n N] [-r RATE] [-m MTU] [-d DELAY] [-o] [-x]
#   netns-cluster.sh down [-p PREFIX]
#   netns-cluster.sh exec [-p PREFIX] RANK CMD...   (run in node RANK)
#   netns-cluster.sh br   [-p PREFIX] CMD...        (run in the bridge namespace)
#   netns-cluster.sh addr [-p PREFIX] RANK          (print node RANK's address)
#
# RATE is a tc rate (1gbit, 100mbit, 10gbit); DELAY an optional netem delay
# per direction (e.g. 50us). -o keeps TSO/GSO/GRO on (cheaper on the CPU, but
# the bridge then sees up to 64 KiB super-frames instead of MTU frames).
# -x: no bridge; the ports v0..v(N-1) in PREFIX-br stay unbridged for a
# user-space switch (cluster/nic_switch.c), and the nodes compute
# their TCP checksums in software (TX checksum offload off); with -o as
# well the nodes keep TX checksum offload and TSO, and the switch fills in
# checksums and cuts super-frames itself. PREFIX: at most 32 characters
# (default inccl).
set -eu
cmd=${1:-}; [ $# -gt 0 ] && shift
prefix=inccl n=4 rate=1gbit mtu=1500 delay= offload=off nobridge=
while getopts "p:n:r:m:d:ox" o; do
	case $o in
	p) prefix=$OPTARG ;;
	n) n=$OPTARG ;;
	r) rate=$OPTARG ;;
	m) mtu=$OPTARG ;;
	d) delay=$OPTARG ;;
	o) offload=on ;;
	x) nobridge=1 ;;
	*) echo "netns-cluster: bad option" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ ${#prefix} -le 32 ] || { echo "netns-cluster: prefix longer than 32" >&2; exit 2; }
br=$prefix-br

down() {
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-([0-9]+|br)\$" || true); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
}

shape() {  # NS DEV: rate limit (and delay) the egress of DEV, offloads off
	local ns=$1 dev=$2 burst
	ip netns exec "$ns" ethtool -K "$dev" tso $offload gso $offload gro $offload >/dev/null 2>&1 || true
	burst=256kb
	if [ -n "$delay" ]; then
		ip netns exec "$ns" tc qdisc add dev "$dev" root handle 1: netem delay "$delay" limit 100000
		ip netns exec "$ns" tc qdisc add dev "$dev" parent 1:1 handle 10: tbf rate "$rate" burst $burst latency 20ms
	else
		ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$rate" burst $burst latency 20ms
	fi
}

case $cmd in
up)
	[ "$n" -ge 1 ] && [ "$n" -le 200 ] || { echo "netns-cluster: -n 1..200" >&2; exit 2; }
	down
	ip netns add "$br"
	ip -n "$br" link set lo up
	if [ -z "$nobridge" ]; then
		ip -n "$br" link add br0 type bridge
		ip -n "$br" link set br0 mtu "$mtu" up
	fi
	for ((i = 0; i < n; i++)); do
		ns=$prefix-$i
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ip -n "$ns" link add eth0 mtu "$mtu" type veth peer name "v$i" mtu "$mtu" netns "$br"
		ip -n "$ns" addr add "10.99.0.$((i + 1))/24" dev eth0
		ip -n "$ns" link set eth0 up
		if [ -z "$nobridge" ]; then
			ip -n "$br" link set "v$i" master br0 up
		else
			ip -n "$br" link set "v$i" up
			[ "$offload" = on ] || ip netns exec "$ns" ethtool -K eth0 tx off >/dev/null 2>&1 || true
		fi
		shape "$ns" eth0
		shape "$br" "v$i"
	done
	echo "netns-cluster: $n nodes $prefix-0..$prefix-$((n - 1)), 10.99.0.1-$n, $rate per link${delay:+, delay $delay}"
	;;
down)
	down
	;;
exec)
	[ $# -ge 2 ] || { echo "netns-cluster: exec RANK CMD..." >&2; exit 2; }
	r=$1; shift
	exec ip netns exec "$prefix-$r" "$@"
	;;
br)
	exec ip netns exec "$br" "$@"
	;;
addr)
	echo "10.99.0.$(( ${1:?rank} + 1 ))"
	;;
*)
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
