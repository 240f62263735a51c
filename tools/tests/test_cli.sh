#!/usr/bin/env bash
# Suite cli: inc-codec and inc-pcap end to end on files - round trips, the
# golden vector of docs/wire-format.md, the committed real captures, output
# pcaps read back by tshark and tcpdump (when installed), and bad input
# giving a non-zero exit and exactly one line on stderr.
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
bin=${INC_BIN:-build/bin}
fix=tests/fixtures
codec=$bin/inc-codec
pcapt=$bin/inc-pcap
gen=$bin/inc-tcpgen
t=$(mktemp -d /tmp/inc-cli.XXXXXX)
trap 'rm -rf "$t"' EXIT
. tests/lib.sh

check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else ko "$d"; fi
}
# expect_fail DESCRIPTION COMMAND... (stdin from the caller): non-zero exit,
# exactly one line on stderr, prefixed with the tool name.
expect_fail() {
	local d=$1; shift
	local rc lines
	"$@" >"$t/ef.out" 2>"$t/ef.err"
	rc=$?
	lines=$(wc -l <"$t/ef.err")
	if [ "$rc" -ne 0 ] && [ "$lines" -eq 1 ] && grep -q '^inc-[a-z]*: ' "$t/ef.err"; then
		ok "$d"
	else
		ko "$d: exit $rc, $lines stderr lines: $(head -c 300 "$t/ef.err")"
	fi
}
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }
kv() { # kv KEY FILE: value of KEY=... in a --kv line
	tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"
}

# ---- inc-codec ----------------------------------------------------------
check "codec --help" bash -c "$codec --help | grep -q 'usage: inc-codec'"

# docs/wire-format.md example: 0.75 0.01 0.03 0.0012 -2.5 at eb 10.
printf '\x00\x00\x40\x3f\x0a\xd7\x23\x3c\x8f\xc2\xf5\x3c\x52\x49\x9d\x3a\x00\x00\x20\xc0' >"$t/v.f32"
$codec compress --error-bound 10 <"$t/v.f32" >"$t/v.bin"
check "codec golden stream" test "$(hex "$t/v.bin")" = "160300600103000020c0"
$codec decompress --error-bound 10 --count 5 <"$t/v.bin" >"$t/v.out"
check "codec golden decode" test "$(hex "$t/v.out")" = \
	"0000403f0000003c0000c03c00000000000020c0"
$codec compress --error-bound=2^-10 <"$t/v.f32" | cmp -s - "$t/v.bin"
check "codec 2^-N and --opt=value forms" test "${PIPESTATUS[0]}${?}" = 00

# Gradient-like data: sizes, the round trip and idempotence at 3 bounds.
$gen gen --bytes 400000 --seed 7 >"$t/g.f32"
for eb in 6 8 10; do
	$codec compress --error-bound $eb <"$t/g.f32" >"$t/g$eb.bin"
	check "codec eb $eb compress" test -s "$t/g$eb.bin"
	sz=$(stat -c %s "$t/g$eb.bin")
	check "codec eb $eb ratio > 4 ($sz bytes)" test "$sz" -lt 100000
	$codec decompress --error-bound $eb --count 100000 <"$t/g$eb.bin" >"$t/g$eb.out"
	check "codec eb $eb decompress length" test "$(stat -c %s "$t/g$eb.out")" -eq 400000
	$codec compress --error-bound $eb <"$t/g$eb.out" | cmp -s - "$t/g$eb.bin"
	check "codec eb $eb idempotent" test "${PIPESTATUS[1]}" -eq 0
done
check "codec bounds differ" bash -c "! cmp -s $t/g6.bin $t/g10.bin"
: | $codec compress >"$t/empty.bin"
check "codec empty input" test ! -s "$t/empty.bin"
: | $codec decompress --count 0 >"$t/empty.out"
check "codec empty stream" test ! -s "$t/empty.out"

# Bad input and bad options: one line, non-zero exit.
expect_fail "codec 3 bytes" $codec compress < <(printf 'abc')
expect_fail "codec 21 bytes" $codec compress < <(cat "$t/v.f32"; printf x)
expect_fail "codec no --count" $codec decompress <"$t/v.bin"
expect_fail "codec truncated" $codec decompress --count 5 < <(head -c 9 "$t/v.bin")
expect_fail "codec truncated big" $codec decompress --count 100000 < <(head -c 5000 "$t/g10.bin")
expect_fail "codec too few values" $codec decompress --count 9 <"$t/v.bin"
expect_fail "codec trailing byte" $codec decompress --count 5 < <(cat "$t/v.bin"; printf x)
expect_fail "codec padding lane tagged" $codec decompress --count 5 < <(printf '\x00\xc0\x00\x00\x80\x3f')
expect_fail "codec eb 0" $codec compress --error-bound 0 <"$t/v.f32"
expect_fail "codec eb 127" $codec compress --error-bound 127 <"$t/v.f32"
expect_fail "codec eb text" $codec compress --error-bound ten <"$t/v.f32"
expect_fail "codec eb missing" $codec compress --error-bound
expect_fail "codec count negative" $codec decompress --count -1 <"$t/v.bin"
expect_fail "codec count on compress" $codec compress --count 5 <"$t/v.f32"
expect_fail "codec unknown option" $codec compress --fast <"$t/v.f32"
expect_fail "codec unknown command" $codec squeeze
expect_fail "codec no command" $codec

# ---- inc-pcap ---------------------------------------------------------------
check "pcap --help" bash -c "$pcapt --help | grep -q 'usage: inc-pcap'"
have_tshark=0; command -v tshark >/dev/null && have_tshark=1
have_tcpdump=0; command -v tcpdump >/dev/null && have_tcpdump=1
nframes() { # frames in a capture, through tshark, tcpdump or inc-pcap
	if [ $have_tshark -eq 1 ]; then
		tshark -r "$1" 2>/dev/null | wc -l
	else
		$pcapt stats "$1" --kv | tr ' ' '\n' | sed -n 's/^frames=//p'
	fi
}

for cap in plain vlan jumbo; do
	in=$fix/inc-$cap.pcap
	[ -f "$in" ] || { ko "missing fixture $in"; continue; }
	$pcapt compress "$in" "$t/$cap.c.pcap" --kv 2>"$t/$cap.c.kv"
	check "$cap compress exit" test $? -eq 0
	$pcapt decompress "$t/$cap.c.pcap" "$t/$cap.d.pcap" --kv 2>"$t/$cap.d.kv"
	check "$cap decompress exit" test $? -eq 0
	$pcapt stats "$in" --kv >"$t/$cap.s.kv"
	nc=$(kv compressed "$t/$cap.c.kv")
	nd=$(kv decompressed "$t/$cap.d.kv")
	check "$cap: frames compressed ($nc)" test "${nc:-0}" -gt 10
	check "$cap: all decompressed ($nd of $nc)" test "${nd:-0}" = "${nc:-x}"
	check "$cap: no malformed" test "$(kv malformed "$t/$cap.d.kv")" = 0
	check "$cap: stats agrees with compress" test "$(kv compressed "$t/$cap.s.kv")" = "$nc"
	check "$cap: smaller" test "$(stat -c %s "$t/$cap.c.pcap")" -lt "$(stat -c %s "$in")"
	check "$cap: restored size" test "$(stat -c %s "$t/$cap.d.pcap")" -eq "$(stat -c %s "$in")"
	tos=$(kv reason_tos "$t/$cap.s.kv")
	check "$cap: untagged frames bypassed ($tos)" test "${tos:-0}" -gt 0
	check "$cap: ratio > 1" awk -v r="$(kv ratio "$t/$cap.s.kv")" 'BEGIN { exit !(r > 1.5) }'
	err=$(kv max_abs_error "$t/$cap.s.kv")
	check "$cap: max error $err < 2^-7" awk -v e="$err" 'BEGIN { exit !(e > 0 && e < 0.0078125) }'
	n=$(nframes "$in")
	check "$cap: frame count kept" test "$(nframes "$t/$cap.c.pcap")" -eq "$n" -a \
		"$(nframes "$t/$cap.d.pcap")" -eq "$n"
	if [ $have_tshark -eq 1 ]; then
		# Timestamps kept; IPv4 header checksums valid after compress;
		# TCP checksums valid after decompress (tshark checks them).
		tshark -r "$in" -T fields -e frame.time_epoch >"$t/ts.in" 2>/dev/null
		tshark -r "$t/$cap.c.pcap" -T fields -e frame.time_epoch >"$t/ts.c" 2>/dev/null
		check "$cap: timestamps kept" cmp -s "$t/ts.in" "$t/ts.c"
		m=$(tshark -r "$t/$cap.c.pcap" -Y 'ip.proto == 253' 2>/dev/null | wc -l)
		check "$cap: tshark sees $m protocol-253 frames" test "$m" -eq "$nc"
		m=$(tshark -o ip.check_checksum:TRUE -r "$t/$cap.c.pcap" \
			-Y 'ip.checksum.status == "Bad"' 2>/dev/null | wc -l)
		check "$cap: no bad IP checksums after compress ($m)" test "$m" -eq 0
		m=$(tshark -o tcp.check_checksum:TRUE -r "$t/$cap.d.pcap" \
			-Y 'tcp.checksum.status == "Bad"' 2>/dev/null | wc -l)
		check "$cap: no bad TCP checksums after decompress ($m)" test "$m" -eq 0
		m=$(tshark -o tcp.check_checksum:TRUE -r "$t/$cap.d.pcap" \
			-Y 'tcp.checksum.status == "Good"' 2>/dev/null | wc -l)
		check "$cap: TCP checksums verified ($m)" test "$m" -gt 10
	fi
	if [ $have_tcpdump -eq 1 ]; then
		m=$(tcpdump -nr "$t/$cap.c.pcap" 2>/dev/null | wc -l)
		check "$cap: tcpdump reads the output ($m)" test "$m" -eq "$n"
	fi
done

# --tos: match the untagged traffic instead.
$pcapt stats "$fix/inc-plain.pcap" --tos 0x00/0xfc --kv >"$t/tos0.kv"
check "--tos 0/0xfc compresses other frames" test \
	"$(kv compressed "$t/tos0.kv")" -gt 0 -a \
	"$(kv compressed "$t/tos0.kv")" != "$(kv compressed "$t/plain.s.kv")"
# Error bounds change the result.
$pcapt stats "$fix/inc-plain.pcap" --error-bound 6 --kv >"$t/eb6.kv"
check "eb 6 compresses more than eb 10" awk -v a="$(kv ratio "$t/eb6.kv")" \
	-v b="$(kv ratio "$t/plain.s.kv")" 'BEGIN { exit !(a > b) }'
# Uncompressed frames pass decompress untouched.
$pcapt decompress "$fix/inc-plain.pcap" "$t/p.d.pcap" --kv 2>"$t/p.d.kv"
check "decompress of plain capture: nothing decompressed" test "$(kv decompressed "$t/p.d.kv")" = 0
check "decompress of plain capture: identical" cmp -s "$fix/inc-plain.pcap" "$t/p.d.pcap"

# A snaplen-limited capture: short frames are passed and counted.
snap=$fix/inc-plain-snap96.pcap
if [ -f "$snap" ]; then
	$pcapt compress "$snap" "$t/snap.c.pcap" --kv 2>"$t/snap.kv"
	ct=$(kv capture_truncated "$t/snap.kv")
	check "snap96: truncated frames counted ($ct)" test "${ct:-0}" -gt 100
	if [ $have_tshark -eq 1 ]; then
		short=$(tshark -r "$snap" -Y 'frame.cap_len < frame.len' 2>/dev/null | wc -l)
		check "snap96: count matches tshark ($short)" test "$ct" -eq "$short"
	fi
	check "snap96: nothing compressed" test "$(kv compressed "$t/snap.kv")" = 0
	check "snap96: output identical" cmp -s "$snap" "$t/snap.c.pcap"
else
	ko "missing fixture $snap"
fi

# pcapng and nanosecond pcap input give the same output as the pcap.
if command -v editcap >/dev/null; then
	editcap -F pcapng "$fix/inc-jumbo.pcap" "$t/j.pcapng"
	editcap -F nsecpcap "$fix/inc-jumbo.pcap" "$t/jn.pcap"
	$pcapt compress "$t/j.pcapng" "$t/j.ng.c.pcap" 2>/dev/null
	check "pcapng input" cmp -s "$t/j.ng.c.pcap" "$t/jumbo.c.pcap"
	$pcapt compress "$t/jn.pcap" "$t/jn.c.pcap" 2>/dev/null
	check "nanosecond pcap input" cmp -s "$t/jn.c.pcap" "$t/jumbo.c.pcap"
fi
# --max-frame: longer frames are dropped from the output and counted.
$pcapt compress "$fix/inc-plain.pcap" "$t/mf.pcap" --max-frame 1000 --kv 2>"$t/mf.kv"
dr=$(kv dropped "$t/mf.kv")
check "--max-frame drops ($dr)" test "${dr:-0}" -gt 100
check "--max-frame: dropped frames omitted" test \
	$(( $(nframes "$t/mf.pcap") + dr )) -eq "$(nframes "$fix/inc-plain.pcap")"
check "--max-frame: counted as dropped for oversize, not as bypassed" test \
	"$(kv reason_oversize "$t/mf.kv")" = "$dr" -a \
	$(( $(kv bypassed "$t/mf.kv") + $(kv compressed "$t/mf.kv") + dr )) -eq "$(kv frames "$t/mf.kv")"
# Format v2: a compressed frame corrupted on the wire (one bit of its TCP
# checksum) is dropped on decompression and counted by reason.
"$pcapt" compress "$fix/inc-plain.pcap" "$t/v2c.pcap" --kv >"$t/v2c.kv" 2>&1
nflip=$("${PADDED:-build/tests/padded}" flip "$t/v2c.pcap" "$t/v2f.pcap" | sed -n 's/^flipped //p')
$pcapt decompress "$t/v2f.pcap" "$t/v2d.pcap" --kv >"$t/v2d.kv" 2>&1
check "a flipped checksum bit drops every compressed frame ($nflip)" test \
	"${nflip:-0}" -gt 100 -a "$(kv dropped "$t/v2d.kv")" = "$nflip" -a \
	"$(kv reason_bad_payload_csum "$t/v2d.kv")" = "$nflip"

# Output to stdout.
$pcapt compress "$fix/inc-jumbo.pcap" - 2>/dev/null >"$t/stdout.pcap"
check "compress to stdout" cmp -s "$t/stdout.pcap" "$t/jumbo.c.pcap"

# Bad input and bad options.
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x65\x00\x00\x00' >"$t/raw.pcap"
expect_fail "pcap not Ethernet" $pcapt stats "$t/raw.pcap"
head -c 5000 "$fix/inc-plain.pcap" >"$t/trunc.pcap"
expect_fail "pcap truncated file" $pcapt compress "$t/trunc.pcap" "$t/x.pcap"
printf 'not a capture at all' >"$t/junk.pcap"
expect_fail "pcap junk file" $pcapt stats "$t/junk.pcap"
expect_fail "pcap missing file" $pcapt stats "$t/does-not-exist.pcap"
expect_fail "pcap no input" $pcapt stats
expect_fail "pcap unknown command" $pcapt squash "$fix/inc-plain.pcap"
expect_fail "pcap no command" $pcapt
expect_fail "pcap bad eb" $pcapt stats "$fix/inc-plain.pcap" --error-bound 200
expect_fail "pcap bad tos" $pcapt stats "$fix/inc-plain.pcap" --tos 0x128
expect_fail "pcap bad tos mask" $pcapt stats "$fix/inc-plain.pcap" --tos 0x28/mask
expect_fail "pcap unknown option" $pcapt stats "$fix/inc-plain.pcap" --quick
expect_fail "pcap stats with output" $pcapt stats "$fix/inc-plain.pcap" "$t/o.pcap"
cp "$fix/inc-plain.pcap" "$t/same.pcap"
expect_fail "pcap output = input" $pcapt compress "$t/same.pcap" "$t/same.pcap"
check "pcap input kept" cmp -s "$t/same.pcap" "$fix/inc-plain.pcap"
expect_fail "pcap unwritable output" $pcapt compress "$fix/inc-plain.pcap" "$t/no/such/dir/o.pcap"

finish
