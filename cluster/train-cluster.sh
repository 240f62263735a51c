#!/usr/bin/env bash
# train-cluster.sh - run one inc-train job on an emulated cluster: one
# network namespace per rank (cluster/netns-cluster.sh -x) joined by the
# user-space NIC switch (nic-switch), which passes every frame through the
# model's frame compress (sender's NIC) and decompress (receiver's NIC) and
# paces each link at RATE Mbit/s of *wire* bytes, so compressed frames take
# less link time, as on real links. Every scheme goes through the same
# switch: untagged frames are forwarded unchanged and paced at their size.
#
#   train-cluster.sh [-w WORKERS] [-r MBIT] [-m MTU] [-d DELAY] [-p PREFIX] [-P PORT]
#                    [-t TIMEOUT_MS] [-W PCAP] [-c N] [-R] [-F] [-q] [-e PROGRAM] -- INC-TRAIN-ARGS...
#
# The nodes hand their ports TCP super-frames of up to 64 KiB (TSO/GSO) with
# checksums left to fill in, as hosts do with NICs that offload them; the
# switch's NICs cut them into MTU-sized segments, compress, pace and
# decompress each segment, and pass a super-frame's segments up as one
# packet again (nic-switch, "Super-frames"). The wire, the NICs' work and
# the figures are per segment, the kernel's work per super-frame. -F: no
# offloads (every frame MTU-sized from the nodes' stacks, as before).
#
# -e PROGRAM: run PROGRAM ARGS... on every rank instead of build/bin/inc-train
# (e.g. -e /usr/bin/python3 -- examples/pytorch/train_fashion_mnist.py ...,
# which reads the same INC_* variables; docs/pytorch.md).
# -W PCAP: the switch writes every frame as it crosses the wire (compressed
# when the sender's NIC compressed it) to PCAP (nic-switch -w). -c N: the
# switch cross-checks every Nth frame of its fast NICs with the model
# (nic-switch -c; default 64, 1 = every frame, 0 or '' = none); a difference
# fails the run (exit status 3). NIC_SWITCH=PATH runs another build of the
# switch (e.g. an older one, to compare).
#
# -R: the NICs are the RTL (build/userlib-test/nic-switch-rtl -b rtl -x:
# every frame through a Verilated compress engine of the sender's NIC and
# decompress engine of the receiver's, cross-checked with the model; make
# nic-switch-rtl). The switch then forwards a few thousand frames per
# second, so keep jobs small (e.g. --model lenet); a cross-check difference
# or CSR counters that disagree with the switch fail the run.
#
# MTU default 9000 (jumbo frames, as datacenter links run them: the switch
# forwards a bounded number of frames per second, and fewer, larger frames
# let it keep up with the links; -m 1500 for standard frames).
# WORKERS (default 4) computing ranks; --scheme wa in the arguments adds the
# aggregator (rank 0), so WORKERS + 1 namespaces. RATE default 1000 (1 Gbit/s),
# DELAY an optional one-way latency added by the switch to every frame
# (e.g. 50us or 1ms; nic-switch -l, no netem needed). When the
# arguments contain --log FILE, the switch's counters are appended to FILE
# as a {"type":"wire",...} record (bytes the emulated wire carried). Rank
# outputs go to stdout (final lines) and to the log directory below.
# Needs root; removes its namespaces on exit. Exit status: 0 when every rank
# succeeded, else the first failing rank's status.
set -u
cd "$(dirname "$0")/.."
workers=4 rate=1000 mtu=9000 delay= prefix=inctr$$ port=29600 timeout_ms=30000 quiet= rtl=
pcap= xcheck=64 train=build/bin/inc-train offload=-o
while getopts "w:r:m:d:p:P:t:W:c:RqFe:" o; do
	case $o in
	w) workers=$OPTARG ;;
	r) rate=$OPTARG ;;
	m) mtu=$OPTARG ;;
	d) delay=$OPTARG ;;
	p) prefix=$OPTARG ;;
	P) port=$OPTARG ;;
	t) timeout_ms=$OPTARG ;;
	W) pcap=$OPTARG ;;
	c) xcheck=$OPTARG ;;
	q) quiet=1 ;;
	R) rtl=1 ;;
	F) offload= ;;
	e) train=$OPTARG ;;
	*) echo "train-cluster: bad option (see the header of $0)" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
sw=${NIC_SWITCH:-build/userlib-test/nic-switch} swargs=()
[ -n "$xcheck" ] && swargs+=(-c "$xcheck")
[ -n "$rtl" ] && { sw=build/userlib-test/nic-switch-rtl; swargs=(-b rtl -x); }
[ -n "$pcap" ] && swargs+=(-w "$(realpath -m "$pcap")")
cl=cluster/netns-cluster.sh
for f in "$train" "$sw"; do
	[ -x "$f" ] || { echo "train-cluster: $f missing (make all $sw)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "train-cluster: needs root (network namespaces)" >&2; exit 2; }
case $workers in ''|*[!0-9]*) echo "train-cluster: -w takes a number" >&2; exit 2 ;; esac
[ "$workers" -ge 1 ] && [ "$workers" -le 15 ] || { echo "train-cluster: -w 1..15" >&2; exit 2; }

# Scheme, error bound and log file from the trainer's arguments.
scheme=inc eb=10 log= prev=
for a in "$@"; do
	case $prev in
	--scheme) scheme=$a ;;
	--error-bound) eb=$a ;;
	--log) log=$a ;;
	esac
	prev=$a
done
n=$workers
[ "$scheme" = wa ] && n=$((workers + 1))
[ "$n" -le 16 ] || { echo "train-cluster: at most 16 ranks (nic-switch ports)" >&2; exit 2; }

tmp=$(mktemp -d)
swpid=
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$swpid" ] && kill "$swpid" 2>/dev/null
	"$cl" down -p "$prefix"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

lat_us=
if [ -n "$delay" ]; then
	lat_us=$(awk -v d="$delay" 'BEGIN { v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
		if (u == "us" || u == "") print v; else if (u == "ms") print v * 1000;
		else if (u == "s") print v * 1e6; else print "bad" }')
	[ "$lat_us" = bad ] && { echo "train-cluster: -d '$delay': want a time like 100us or 1ms" >&2; exit 2; }
fi
"$cl" up -p "$prefix" -n "$n" -x $offload -r 40gbit -m "$mtu" >/dev/null ||
	{ echo "train-cluster: could not create the namespaces" >&2; exit 1; }
ports=()
for ((i = 0; i < n; i++)); do ports+=("v$i"); done
"$cl" br -p "$prefix" "$sw" "${swargs[@]}" -e "$eb" -r "$rate" ${lat_us:+-l "$lat_us"} "${ports[@]}" >"$tmp/switch.log" 2>&1 &
swpid=$!
for _ in $(seq 100); do grep -qs "nic-switch:" "$tmp/switch.log" && break; sleep 0.05; done
grep -q "nic-switch:" "$tmp/switch.log" ||
	{ echo "train-cluster: nic-switch did not start:" >&2; cat "$tmp/switch.log" >&2; exit 1; }

[ -n "$quiet" ] || echo "train-cluster: $n ranks ($scheme, $workers workers) on ${rate} Mbit/s links${delay:+, delay $delay}"
for ((i = 0; i < n; i++)); do
	err=$tmp/rank$i.err
	# rank 0's progress goes to the terminal as it comes
	[ "$i" -eq 0 ] && [ -z "$quiet" ] && err=/dev/stderr
	"$cl" exec -p "$prefix" "$i" env INC_RANK="$i" INC_WORLD_SIZE="$n" \
		INC_MASTER_ADDR=10.99.0.1 INC_MASTER_PORT="$port" INC_TIMEOUT_MS="$timeout_ms" \
		"$train" "$@" >"$tmp/rank$i.out" 2>"$err" &
	pids+=($!)
done
rc=0
for ((i = 0; i < n; i++)); do
	wait "${pids[$i]}"; r=$?
	[ $rc -eq 0 ] && [ $r -ne 0 ] && rc=$r
done
pids=()
for ((i = 0; i < n; i++)); do
	cat "$tmp/rank$i.out"
	[ -f "$tmp/rank$i.err" ] && grep -v '^inc-train: iter ' "$tmp/rank$i.err" >&2
done
kill "$swpid" 2>/dev/null; wait "$swpid" 2>/dev/null; swrc=$?; swpid=
stats=$(grep -E '^frames ' "$tmp/switch.log")
[ -n "$quiet" ] || echo "nic-switch: $stats"
grep -E '^nic-switch: (misaligned|[0-9]+ tagged)' "$tmp/switch.log" >&2
if [ -z "$rtl" ] && [ "$swrc" -ne 0 ] && [ "$swrc" -ne 143 ]; then
	echo "train-cluster: nic-switch exit status $swrc:" >&2
	grep -E '^nic-switch: ' "$tmp/switch.log" | tail -n 5 >&2
	[ $rc -eq 0 ] && rc=$swrc
fi
if [ -n "$rtl" ]; then
	grep -E '^rtl: ' "$tmp/switch.log"
	if [ "$swrc" -ne 0 ]; then
		echo "train-cluster: nic-switch-rtl exit status $swrc:" >&2
		grep -E '^nic-switch: ' "$tmp/switch.log" | tail -n 5 >&2
		[ $rc -eq 0 ] && rc=$swrc
	fi
fi
if [ -n "$log" ] && [ -f "$log" ] && [ -n "$stats" ]; then
	iters=$(sed -nE 's/.*"type":"summary","iterations":([0-9]+).*/\1/p' "$log")
	set -- $stats
	# frames F compressed C bypassed B malformed M bytes_in I bytes_wire W dropped D bad_payload_csum X misaligned A
	# cpu_ms U codec_ms K xcheck_ms Y link_ms L elapsed_ms E (the RTL switch stops at A)
	# segmented S coalesced C gso_dropped G gso_other O kernel_dropped KD
	printf '{"type":"wire","frames":%s,"compressed":%s,"bypassed":%s,"malformed":%s,"bytes_in":%s,"bytes_wire":%s,"dropped":%s,"bad_payload_csum":%s,"misaligned":%s,"rate_mbit":%s,"bytes_wire_per_iter":%s,"switch_cpu_ms":%s,"switch_codec_ms":%s,"switch_xcheck_ms":%s,"link_busy_ms":%s,"switch_elapsed_ms":%s,"kernel_dropped":%s}\n' \
		"$2" "$4" "$6" "$8" "${10}" "${12}" "${14}" "${16:-0}" "${18:-0}" "$rate" \
		"$(( ${12} / ${iters:-1} ))" "${20:-null}" "${22:-null}" "${24:-null}" "${26:-null}" \
		"${28:-null}" "${38:-null}" >>"$log"
fi
exit $rc
