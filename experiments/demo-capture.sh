#!/usr/bin/env bash
# make demo: real TCP traffic carrying float32 gradient-like data (sockets
# tagged with IP_TOS 0x28, plus untagged TCP, UDP and ICMP) between two
# network namespaces, captured live when running as root with netns
# support, otherwise the committed capture tests/fixtures/inc-plain.pcap;
# then every frame through the bit-exact model at error bounds 2^-6, 2^-8
# and 2^-10, with a table per bound: frames matched/compressed/bypassed,
# bytes before and after, compression ratio, the 2/10/18/34-bit shares
# (the paper's Table III form) and the largest absolute error.
#
# usage: experiments/demo-capture.sh [--capture FILE.pcap] [--bytes N]
#   --capture FILE  use this Ethernet capture instead of capturing
#   --bytes N       tagged bytes to send in the live capture (default 1 MiB)
set -euo pipefail
cd "$(dirname "$0")/.."

capture=""
bytes=1048576
while [ $# -gt 0 ]; do
	case "$1" in
	--capture) capture=$2; shift 2 ;;
	--bytes) bytes=$2; shift 2 ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
	esac
done

pcapt=build/bin/inc-pcap
if [ ! -x "$pcapt" ] || [ ! -x build/bin/inc-tcpgen ]; then
	make --no-print-directory tools >/dev/null
fi
tmp=$(mktemp -d /tmp/inc-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# ---- the traffic ------------------------------------------------------------
source_note=""
if [ -n "$capture" ]; then
	source_note="capture given on the command line: $capture"
else
	why=""
	if [ "$(id -u)" -ne 0 ]; then
		why="not running as root"
	elif ! command -v tcpdump >/dev/null || ! command -v ethtool >/dev/null; then
		why="tcpdump or ethtool missing"
	elif ! ip netns add "inc-demo-probe-$$" 2>/dev/null; then
		why="no network namespace support"
	else
		ip netns del "inc-demo-probe-$$"
	fi
	if [ -z "$why" ]; then
		echo "Capturing: $bytes bytes of gradient-like float32 over TCP with IP_TOS 0x28,"
		echo "plus untagged TCP, UDP and ICMP, between two network namespaces (veth,"
		echo "segmentation and checksum offloads off) ..."
		if timeout 40 experiments/capture.sh --out "$tmp" --variant plain \
			--bytes "$bytes" --quiet 2>"$tmp/capture.err"; then
			capture=$tmp/inc-plain.pcap
			source_note="LIVE capture made just now (experiments/capture.sh, tcpdump on the veth)"
		else
			why="live capture failed: $(tail -n 1 "$tmp/capture.err")"
		fi
	fi
	if [ -z "$capture" ]; then
		capture=tests/fixtures/inc-plain.pcap
		source_note="COMMITTED capture $capture (made by experiments/capture.sh; $why)"
	fi
fi
[ -f "$capture" ] || { echo "demo.sh: no capture $capture" >&2; exit 1; }

# ---- through the model --------------------------------------------------------
kv() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }
for eb in 6 8 10; do
	$pcapt stats "$capture" --error-bound "$eb" --kv >"$tmp/eb$eb.kv"
done
# Round trip at 2^-10 through files, as a receiver would see it.
$pcapt compress "$capture" "$tmp/c.pcap" --kv 2>"$tmp/c.kv"
$pcapt decompress "$tmp/c.pcap" "$tmp/d.pcap" --kv 2>"$tmp/d.kv"

echo
echo "INCEPTIONN demo: real TCP traffic through the bit-exact model (sw-model)"
echo "source:  $source_note"
echo "frames:  $(kv frames "$tmp/eb10.kv") in the capture, $(kv matched "$tmp/eb10.kv") with a matching ToS (0x28, mask 0xfc)"
echo
printf '%-7s %8s %11s %9s %14s %13s %7s %14s\n' \
	"bound" "matched" "compressed" "bypassed" "bytes before" "bytes after" "ratio" "payload ratio"
for eb in 6 8 10; do
	f=$tmp/eb$eb.kv
	printf '%-7s %8s %11s %9s %14s %13s %6.2fx %13.2fx\n' "2^-$eb" \
		"$(kv matched "$f")" "$(kv compressed "$f")" "$(kv bypassed "$f")" \
		"$(kv bytes_before "$f")" "$(kv bytes_after "$f")" \
		"$(kv ratio "$f")" "$(kv payload_ratio "$f")"
done
echo
echo "bypassed frames by reason:"
for eb in 6 8 10; do
	printf '  2^-%-3s %s\n' "$eb" "$(tr ' ' '\n' <"$tmp/eb$eb.kv" | sed -n 's/^reason_//p' |
		tr '=' ' ' | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')$(
		ct=$(kv capture_truncated "$tmp/eb$eb.kv"); [ "$ct" != 0 ] && echo ", capture_truncated $ct")"
done
echo
echo "compressed values (Table III form: share of values sent as 2/10/18/34 bits):"
printf '%-7s %10s %8s %8s %8s %8s %22s\n' "bound" "values" "2-bit" "10-bit" "18-bit" "34-bit" "largest abs error"
for eb in 6 8 10; do
	f=$tmp/eb$eb.kv
	e=$(kv max_abs_error "$f")
	printf '%-7s %10s %7.1f%% %7.1f%% %7.1f%% %7.1f%% %12.6g (2^%s)\n' "2^-$eb" \
		"$(kv values "$f")" "$(kv share2 "$f")" "$(kv share10 "$f")" \
		"$(kv share18 "$f")" "$(kv share34 "$f")" "$e" \
		"$(awk -v e="$e" 'BEGIN { if (e > 0) printf "%.2f", log(e) / log(2); else printf "-inf" }')"
done
echo
echo "round trip at 2^-10 through pcap files (inc-pcap compress, then decompress):"
echo "  $(kv compressed "$tmp/c.kv") frames compressed, $(kv decompressed "$tmp/d.kv") decompressed back, $(kv malformed "$tmp/d.kv") malformed;" \
	"restored capture $(stat -c %s "$tmp/d.pcap") bytes, original $(stat -c %s "$capture")"
if command -v tshark >/dev/null; then
	good=$(tshark -o tcp.check_checksum:TRUE -r "$tmp/d.pcap" -Y 'tcp.checksum.status == "Good"' 2>/dev/null | wc -l)
	badc=$(tshark -o tcp.check_checksum:TRUE -r "$tmp/d.pcap" -Y 'tcp.checksum.status == "Bad"' 2>/dev/null | wc -l)
	echo "  tshark on the restored capture: $good TCP checksums good, $badc bad"
fi
echo
echo "Notes: ratio = all captured bytes before/after; payload ratio = TCP payload of the"
echo "compressed frames before/after (shim and stream included). The largest error is"
echo "2^-7 or below at 2^-8 and 2^-10: 8-bit-class values are truncated to multiples of"
echo "2^-7 (docs/codec.md). Paper, Table III, AlexNet: 93.0/7.0/0.0/0.1% at 2^-6,"
echo "82.5/14.8/2.6/0.1% at 2^-8, 74.9/3.9/21.1/0.1% at 2^-10."
