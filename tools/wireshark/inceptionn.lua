-- SPDX-License-Identifier: MIT
--
-- inceptionn.lua - Wireshark/tshark dissector for INCEPTIONN compressed
-- frames (frame format version 2, docs/wire-format.md; groups and classes,
-- docs/codec.md).
--
-- A compressed frame is an IPv4 packet of protocol 253 whose payload is the
-- unchanged TCP header, then the 6-byte shim (magic 0x49, version, original
-- TCP payload length L, tag-word sum, both big-endian), the stream of
-- ceil(n/8) groups for n = floor(L/4) values, and the last L mod 4 payload
-- bytes raw. A group is a little-endian 16-bit tag word (lane i's tag in
-- bits 2i+1..2i) and the payloads of its lanes: 0, 1, 2 or 4 bytes for tags
-- 0..3, the paper's 2/10/18/34-bit classes. Frames that are not compressed
-- are left to Wireshark's own TCP dissector.
--
-- Load:    tshark -X lua_script:tools/wireshark/inceptionn.lua -r c.pcap
-- Install: make install PREFIX=DIR puts it at DIR/lib/wireshark/plugins/
--          (copy it to ~/.local/lib/wireshark/plugins/ for a user install).
--
-- Fields (stable names; see docs/tools.md):
--   inceptionn.version       shim version (2)
--   inceptionn.orig_len      original TCP payload length L, bytes
--   inceptionn.tag_sum       tag-word sum carried in the shim
--   inceptionn.tag_sum_ok    the stream's tag words sum to it (mod 2^16)
--   inceptionn.groups        groups in the stream, ceil(n/8)
--   inceptionn.values_2bit / _10bit / _18bit / _34bit
--                            values of each class (tags 0/1/2/3)
--   inceptionn.payload_len   compressed payload: shim + stream + tail, bytes
--   inceptionn.ratio         orig_len / payload_len
--   inceptionn.stream_len    stream bytes
--   inceptionn.stream_ok     the stream has exactly the bytes its tag words
--                            say, and no padding lane has a tag
-- and the TCP header's inceptionn.srcport, .dstport, .seq, .ack.

local p = Proto("inceptionn", "INCEPTIONN compressed TCP segment")

local f = {
	srcport = ProtoField.uint16("inceptionn.srcport", "Source port"),
	dstport = ProtoField.uint16("inceptionn.dstport", "Destination port"),
	seq = ProtoField.uint32("inceptionn.seq", "Sequence number (raw)"),
	ack = ProtoField.uint32("inceptionn.ack", "Acknowledgment number (raw)"),
	tcp_hlen = ProtoField.uint8("inceptionn.tcp_hlen", "TCP header length"),
	tcp_csum = ProtoField.uint16("inceptionn.tcp_checksum",
		"TCP checksum (of the restored segment)", base.HEX),
	magic = ProtoField.uint8("inceptionn.magic", "Magic", base.HEX),
	version = ProtoField.uint8("inceptionn.version", "Version"),
	orig_len = ProtoField.uint16("inceptionn.orig_len", "Original TCP payload length"),
	tag_sum = ProtoField.uint16("inceptionn.tag_sum", "Tag-word sum", base.HEX),
	tag_sum_ok = ProtoField.bool("inceptionn.tag_sum_ok", "Tag-word sum correct"),
	tag_sum_calc = ProtoField.uint16("inceptionn.tag_sum_calc", "Tag-word sum of the stream", base.HEX),
	groups = ProtoField.uint32("inceptionn.groups", "Groups"),
	v2 = ProtoField.uint32("inceptionn.values_2bit", "Values, 2-bit class (tag 0)"),
	v10 = ProtoField.uint32("inceptionn.values_10bit", "Values, 10-bit class (tag 1)"),
	v18 = ProtoField.uint32("inceptionn.values_18bit", "Values, 18-bit class (tag 2)"),
	v34 = ProtoField.uint32("inceptionn.values_34bit", "Values, 34-bit class (tag 3, raw)"),
	payload_len = ProtoField.uint32("inceptionn.payload_len", "Compressed payload length"),
	ratio = ProtoField.double("inceptionn.ratio", "Compression ratio (original / compressed payload)"),
	stream_len = ProtoField.uint32("inceptionn.stream_len", "Stream length"),
	stream_ok = ProtoField.bool("inceptionn.stream_ok", "Stream well-formed"),
	tail = ProtoField.bytes("inceptionn.tail", "Raw tail"),
}
p.fields = f

local e_sum = ProtoExpert.new("inceptionn.tag_sum_bad", "Tag-word sum wrong: the receiver drops this frame",
	expert.group.CHECKSUM, expert.severity.ERROR)
local e_stream = ProtoExpert.new("inceptionn.stream_bad", "Malformed stream: the receiver passes it on unchanged",
	expert.group.MALFORMED, expert.severity.ERROR)
local e_shim = ProtoExpert.new("inceptionn.shim_bad", "Not a version 2 shim",
	expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_sum, e_stream, e_shim }

local band, rshift = bit32.band, bit32.rshift
local tag_bytes = { [0] = 0, 1, 2, 4 }

function p.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	if len < 20 then return 0 end
	local thl = rshift(tvb(12, 1):uint(), 4) * 4
	pinfo.cols.protocol = "INCEPTIONN"
	local t = tree:add(p, tvb(), "INCEPTIONN compressed TCP segment")
	t:add(f.srcport, tvb(0, 2))
	t:add(f.dstport, tvb(2, 2))
	t:add(f.seq, tvb(4, 4))
	t:add(f.ack, tvb(8, 4))
	t:add(f.tcp_hlen, tvb(12, 1), thl)
	t:add(f.tcp_csum, tvb(16, 2))
	if thl < 20 or len < thl + 6 then
		t:add_proto_expert_info(e_shim)
		return len
	end
	local s = thl
	t:add(f.magic, tvb(s, 1))
	t:add(f.version, tvb(s + 1, 1))
	local ver = tvb(s + 1, 1):uint()
	if tvb(s, 1):uint() ~= 0x49 or ver ~= 2 then
		t:add_proto_expert_info(e_shim)
		return len
	end
	local L = tvb(s + 2, 2):uint()
	local carried = tvb(s + 4, 2):uint()
	t:add(f.orig_len, tvb(s + 2, 2))
	t:add(f.tag_sum, tvb(s + 4, 2))

	-- Walk the groups: n values, 8 per group.
	local n, tail = math.floor(L / 4), L % 4
	local avail = len - s - 6 - tail
	local pos, sum, ok = s + 6, 0, avail >= 0
	local c = { [0] = 0, 0, 0, 0 }
	local groups, i = 0, 0
	while ok and i < n do
		if pos + 2 > s + 6 + avail then ok = false break end
		local tw = tvb(pos, 2):le_uint()
		local lanes = math.min(8, n - i)
		local size = 2
		for j = 0, 7 do
			local tag = band(rshift(tw, 2 * j), 3)
			size = size + tag_bytes[tag]
			if j < lanes then
				c[tag] = c[tag] + 1
			elseif tag ~= 0 then
				ok = false
			end
		end
		sum = sum + tw
		groups = groups + 1
		pos = pos + size
		i = i + 8
		if pos > s + 6 + avail then ok = false end
	end
	if ok and pos ~= s + 6 + avail then ok = false end
	sum = sum % 65536

	local payload = len - s
	t:add(f.groups, groups):set_generated()
	t:add(f.v2, c[0]):set_generated()
	t:add(f.v10, c[1]):set_generated()
	t:add(f.v18, c[2]):set_generated()
	t:add(f.v34, c[3]):set_generated()
	t:add(f.stream_len, math.max(avail, 0)):set_generated()
	t:add(f.payload_len, payload):set_generated()
	t:add(f.ratio, payload > 0 and L / payload or 0):set_generated()
	local si = t:add(f.stream_ok, ok)
	si:set_generated()
	if not ok then si:add_proto_expert_info(e_stream) end
	t:add(f.tag_sum_calc, sum):set_generated()
	local ti = t:add(f.tag_sum_ok, ok and sum == carried)
	ti:set_generated()
	if ok and sum ~= carried then ti:add_proto_expert_info(e_sum) end
	if tail > 0 and avail >= 0 then t:add(f.tail, tvb(len - tail, tail)) end

	pinfo.cols.info = string.format("%d -> %d INCEPTIONN v%d Len=%d -> %d (%.2fx), %d values%s",
		tvb(0, 2):uint(), tvb(2, 2):uint(), ver, L, payload, payload > 0 and L / payload or 0,
		n, (not ok and " [malformed stream]") or (sum ~= carried and " [tag-word sum wrong]") or "")
	return len
end

DissectorTable.get("ip.proto"):add(253, p)
