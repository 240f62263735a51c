#!/usr/bin/env bash
# Suite tools-safety: the capture tools never destroy or half-write a file.
# inc-pcap and inc-rtl-pcap refuse an output that is their input (the file
# left unchanged), leave an existing output as it was when they fail midway
# (no temporary left behind), treat frames with a wrong TCP checksum of
# their own (checksum offload) alike (compressed, counted as
# input_tcp_csum, every frame written), and never cut a restored frame to a
# small input snapshot length. inc-codec refuses stdin and stdout being the
# same file. inc-rtl-pcap's checks skip when it is not built.
# Last line: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/../.."
bin=${INC_BIN:-build/bin}
rtl=${INC_RTL_BIN:-build/bin}/inc-rtl-pcap
py=/usr/bin/python3
t=$(mktemp -d /tmp/inc-safety.XXXXXX)
trap 'rm -rf "$t"' EXIT
. tests/lib.sh

check() { # check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else ko "$d"; fi
}
kv() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p"; }
frames() { $bin/inc-pcap stats "$1" --kv | tr ' ' '\n' | sed -n 's/^frames=//p'; }

$py tools/tests/mkcap.py "$t/good.pcap" --frames 6
$py tools/tests/mkcap.py "$t/off.pcap" --frames 6 --bad-csum 1,4

# ---- output == input ----------------------------------------------------
cp tests/fixtures/inc-plain.pcap "$t/x.pcap"
sum0=$(md5sum <"$t/x.pcap")
for m in compress decompress; do
	$bin/inc-pcap $m "$t/x.pcap" "$t/x.pcap" >/dev/null 2>"$t/err"
	rc=$?
	check "inc-pcap $m x x: refused (rc $rc), input unchanged" \
		test "$rc" -ne 0 -a "$(md5sum <"$t/x.pcap")" = "$sum0"
	ln -sf x.pcap "$t/link.pcap"
	$bin/inc-pcap $m "$t/x.pcap" "$t/link.pcap" >/dev/null 2>&1
	check "inc-pcap $m x link-to-x: refused, input unchanged" \
		test $? -ne 0 -a "$(md5sum <"$t/x.pcap")" = "$sum0"
done
check "the refusal names the file" grep -q 'is the input' "$t/err"
if [ -x "$rtl" ]; then
	for m in compress decompress; do
		$rtl $m "$t/x.pcap" "$t/x.pcap" >/dev/null 2>"$t/err"
		rc=$?
		check "inc-rtl-pcap $m x x: refused (rc $rc), input unchanged" \
			test "$rc" -ne 0 -a "$(md5sum <"$t/x.pcap")" = "$sum0"
	done
	check "inc-rtl-pcap's refusal names the file" grep -q 'is the input' "$t/err"
else
	skip "inc-rtl-pcap x x ($rtl not built)"
fi
cp "$t/good.pcap" "$t/y.f32"
$bin/inc-codec compress <"$t/y.f32" >>"$t/y.f32" 2>"$t/err"
check "inc-codec with stdin and stdout the same file: refused" \
	test $? -ne 0 -a "$(md5sum <"$t/y.f32")" = "$(md5sum <"$t/good.pcap")"

# ---- a failure midway leaves the old output as it was --------------------
sz=$(stat -c %s tests/fixtures/inc-plain.pcap)
head -c $((sz - 7)) tests/fixtures/inc-plain.pcap >"$t/cut.pcap"
echo "old output" >"$t/out.pcap"
$bin/inc-pcap compress "$t/cut.pcap" "$t/out.pcap" >/dev/null 2>&1
rc=$?
check "inc-pcap on a capture cut mid-record: fails (rc $rc)" test "$rc" -ne 0
check "... and the existing output is unchanged" test "$(cat "$t/out.pcap")" = "old output"
check "... and no temporary is left" test "$(ls "$t" | grep -c '^out\.pcap\.')" = 0
$bin/inc-pcap compress tests/fixtures/inc-plain.pcap "$t/new.pcap" 2>/dev/null
check "inc-pcap writes a new output (mode from umask: $(stat -c %a "$t/new.pcap"))" \
	test "$(stat -c %a "$t/new.pcap")" = "$(printf '%o' $((0666 & ~$(umask))))"
mkdir -p "$t/real"
echo "old" >"$t/real/target.pcap"
ln -sf real/target.pcap "$t/viasym.pcap"
$bin/inc-pcap compress tests/fixtures/inc-plain.pcap "$t/viasym.pcap" 2>/dev/null
check "an output through a symbolic link: the link stays, its target is written" \
	test -L "$t/viasym.pcap" -a "$(frames "$t/real/target.pcap")" = "$(frames tests/fixtures/inc-plain.pcap)"
if [ -x "$rtl" ]; then
	echo "old output" >"$t/out.pcap"
	$rtl compress "$t/cut.pcap" "$t/out.pcap" >/dev/null 2>&1
	rc=$?
	check "inc-rtl-pcap on a cut capture: fails (rc $rc), output unchanged, no temporary" \
		test "$rc" -ne 0 -a "$(cat "$t/out.pcap")" = "old output" -a \
		"$(ls "$t" | grep -c '^out\.pcap\.')" = 0
fi

# ---- frames with a wrong TCP checksum of their own -----------------------
$bin/inc-pcap compress "$t/off.pcap" "$t/off-c.pcap" --kv 2>"$t/kv"
rc=$?
check "inc-pcap compress, 2 of 6 frames with checksum 0: rc $rc" test "$rc" -eq 0
check "... every frame written ($(frames "$t/off-c.pcap"))" test "$(frames "$t/off-c.pcap")" = 6
check "... counted as input_tcp_csum=$(kv input_tcp_csum "$t/kv")" test "$(kv input_tcp_csum "$t/kv")" = 2
check "... all 6 compressed" test "$(kv compressed "$t/kv")" = 6
$bin/inc-pcap stats "$t/off.pcap" --kv >"$t/kv"
check "inc-pcap stats counts them too" test "$(kv input_tcp_csum "$t/kv")" = 2
$bin/inc-pcap compress "$t/good.pcap" "$t/good-c.pcap" --kv 2>"$t/kv"
check "frames with right checksums: input_tcp_csum=0" test "$(kv input_tcp_csum "$t/kv")" = 0
$bin/inc-pcap decompress "$t/off-c.pcap" "$t/off-d.pcap" --kv 2>"$t/kv"
check "their decompression drops exactly those 2 (bad_payload_csum)" \
	test "$(kv reason_bad_payload_csum "$t/kv")" = 2 -a "$(frames "$t/off-d.pcap")" = 4
if [ -x "$rtl" ]; then
	$rtl compress "$t/off.pcap" "$t/off-r.pcap" >"$t/rtl.out" 2>&1
	check "inc-rtl-pcap writes inc-pcap's bytes on that capture" cmp -s "$t/off-r.pcap" "$t/off-c.pcap"
	check "inc-rtl-pcap counts input_tcp_csum=2" grep -q '^input_tcp_csum=2 ' "$t/rtl.out"
fi

# ---- a small snapshot length does not cut restored frames ----------------
# Compressed frames of 86 bytes in a capture whose snaplen says 120; each
# restores to 454 bytes.
$py - "$t/good-c.pcap" "$t/snap120.pcap" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", b, 16, 120)
open(sys.argv[2], "wb").write(b)
PY
$bin/inc-pcap decompress "$t/snap120.pcap" "$t/snap-d.pcap" 2>/dev/null
reclens() { # reclens FILE: "snaplen caplen/len caplen/len ..."
	$py - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
out, off = [str(struct.unpack_from("<I", b, 16)[0])], 24
while off + 16 <= len(b):
    cl, ln = struct.unpack_from("<II", b, off + 8)
    out.append("%d/%d" % (cl, ln))
    off += 16 + cl
print(" ".join(out))
PY
}
r=$(reclens "$t/snap-d.pcap")
check "inc-pcap decompress of a snaplen-120 capture: restored frames whole ($r)" \
	test "$r" = "9018 454/454 454/454 454/454 454/454 454/454 454/454"
if [ -x "$rtl" ]; then
	$rtl decompress "$t/snap120.pcap" "$t/snap-r.pcap" >/dev/null 2>&1
	check "inc-rtl-pcap decompress: the same bytes" cmp -s "$t/snap-r.pcap" "$t/snap-d.pcap"
fi
# An output that is not a regular file (a FIFO here; /dev/null alike) is
# written in place: a temporary renamed over it would replace the node.
mkfifo "$t/fifo"
timeout 20 cat "$t/fifo" >"$t/fifo-out" &
reader=$!
$bin/inc-pcap compress "$t/x.pcap" "$t/fifo" >/dev/null 2>"$t/err"
rc=$?
wait "$reader"
$bin/inc-pcap compress "$t/x.pcap" "$t/reg.pcap" >/dev/null 2>&1
check "inc-pcap to a FIFO: written through it (rc $rc), the FIFO stays one, the same bytes as to a file" \
	sh -c "[ $rc -eq 0 ] && [ -p '$t/fifo' ] && cmp -s '$t/fifo-out' '$t/reg.pcap'"
finish
