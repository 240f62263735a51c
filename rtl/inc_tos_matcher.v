// SPDX-License-Identifier: MIT
/*
 * inc_tos_matcher.v - streaming Ethernet / 802.1Q / IPv4 / TCP header parser
 * that gives the bypass reason of checks 1-11 of the decision order in
 * docs/wire-format.md (the model's parse() in sw-model/src/frame.c).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * The matcher watches the accepted beats of a frame (s_beat = tvalid &&
 * tready of the engine's input) and captures the first HDR_BYTES = 92 bytes
 * into registers: enough for an 802.1Q tag, a 60-byte IPv4 header and the
 * data-offset byte of the TCP header (at most 18 + 60 + 12 = byte 90).
 *
 *  byte  0.. 5  destination MAC          byte 12..13  EtherType / TPID 0x8100
 *  byte  6..11  source MAC               byte 14..17  [TCI, inner EtherType]
 *
 *  IPv4 at L3 = 14 (18 with a tag):
 *  +0 ver/IHL | +1 ToS | +2..3 total length | +4..5 id | +6..7 flags/frag
 *  +8 TTL     | +9 protocol | +10..11 checksum | +12..19 addresses
 *  +20..IHL*4-1 options
 *  TCP at L4 = L3 + IHL*4:  +12 data offset (high nibble)
 *
 * Two views of the parse:
 *  - cur_*: live, combinational from the capture registers. cur_hdr_valid is
 *    high once the beat holding the TCP data-offset byte has been captured
 *    (IHL and the tag come earlier), from then until the next frame's first
 *    beat (so still in the cycle after the tlast beat). The store-and-forward engines use it to realign the payload while
 *    the frame streams in; the values are only meaningful when the frame
 *    turns out to be well formed.
 *  - m_*: a snapshot registered at the end of the frame, with m_done
 *    pulsing one cycle; it is presented three cycles after the tlast beat
 *    (the cycle after tlast registers each check and the checksum sums, the
 *    next one folds the sums and picks the reason) and held until the next
 *    m_done. m_reason is enum inc_reason for checks 1-11 in the
 *    model's order (INC_R_NONE when all pass); m_frame_len saturates at 65535.
 *
 * The frame length is only known at tlast, so every check completes at the
 * end of the frame: fine for store-and-forward engines. The ToS
 * compare value and mask are sampled on the first beat of each frame.
 */
module inc_tos_matcher #(
    // AXI4-Stream data width in bits; a multiple of 64, at least 256 (the
    // first beat then holds the EtherType and the IP version/IHL byte)
    parameter DATA_WIDTH = 256,
    // 0: transmit (protocol must be TCP); 1: receive (TCP or 253, the marker)
    parameter RX = 0
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [DATA_WIDTH-1:0]   s_tdata,
    input  wire [DATA_WIDTH/8-1:0] s_tkeep,
    input  wire                    s_beat,    // a beat is accepted this cycle
    input  wire                    s_tlast,

    input  wire [7:0]              cfg_tos_value,
    input  wire [7:0]              cfg_tos_mask,

    // live view (valid when cur_hdr_valid; see above)
    output wire                    cur_hdr_valid,
    output wire                    cur_vlan,
    output wire [7:0]              cur_l3_off,
    output wire [7:0]              cur_ip_hlen,
    output wire [7:0]              cur_tcp_hlen,
    output wire [15:0]             cur_ip_total,
    output wire [7:0]              cur_payload_off,
    output wire [15:0]             cur_payload_len,

    // end-of-frame snapshot
    output wire                    m_done,
    output wire [4:0]              m_reason,
    output wire [15:0]             m_frame_len,
    output wire                    m_vlan,
    output wire [7:0]              m_l3_off,
    output wire [7:0]              m_ip_hlen,
    output wire [7:0]              m_tcp_hlen,
    output wire [15:0]             m_ip_total,
    output wire [7:0]              m_payload_off,
    output wire [15:0]             m_payload_len,
    output wire [7:0]              m_proto,
    output wire [7:0]              m_tos,
    output wire [7:0]              m_ttl,
    // one's-complement sum (folded to 16 bits, not complemented) of the IP
    // header words other than total length (+2), TTL/protocol (+8) and the
    // checksum (+10): new checksum = ~fold(m_csum_rest + total + TTL:proto)
    output wire [15:0]             m_csum_rest
);

localparam DB        = DATA_WIDTH / 8;   // bytes per beat
localparam HDR_BYTES = 92;               // captured prefix of the frame
localparam CNT_W     = 12;               // beat counter (saturating)
localparam KEEP_W    = $clog2(DB + 1);

// enum inc_reason (sw-model/include/inc_model.h)
localparam [4:0] R_NONE = 5'd0, R_NOT_IPV4 = 5'd1, R_TRUNCATED = 5'd2,
                 R_BAD_IP_HEADER = 5'd3, R_BAD_IP_CSUM = 5'd4,
                 R_BAD_LENGTH = 5'd5, R_FRAGMENT = 5'd6, R_TOS = 5'd7,
                 R_NOT_TCP = 5'd8, R_BAD_TCP_HEADER = 5'd9;

initial begin
    if (DATA_WIDTH < 256 || DATA_WIDTH % 64 != 0) begin
        $error("inc_tos_matcher: DATA_WIDTH must be a multiple of 64, >= 256");
        $finish;
    end
end

// ------------------------------------------------------------------------
// Capture
// ------------------------------------------------------------------------
reg [HDR_BYTES*8-1:0] hdr_reg = 0;       // byte k at [k*8 +: 8]
reg [CNT_W-1:0]       beat_reg = 0;      // beats accepted in this frame
reg [15:0]            len_reg = 0;       // bytes accepted in this frame
reg [7:0]             tos_value_reg = 0, tos_mask_reg = 0;
reg                   end_reg = 0;       // the previous cycle took tlast

// popcount of the (contiguous) tkeep of this beat
reg [KEEP_W-1:0] keep_cnt;
integer kc;
always @* begin
    keep_cnt = 0;
    for (kc = 0; kc < DB; kc = kc + 1)
        keep_cnt = keep_cnt + {{(KEEP_W-1){1'b0}}, s_tkeep[kc]};
end

// Beat index of this beat: the first beat after an end restarts at 0.
wire [CNT_W-1:0] beat_idx = end_reg ? {CNT_W{1'b0}} : beat_reg;
wire [15:0]      len_base = end_reg ? 16'd0 : len_reg;
wire [16:0]      len_sum  = {1'b0, len_base} + {{(17-KEEP_W){1'b0}}, keep_cnt};

integer k;
always @(posedge clk) begin
    if (s_beat) begin
        for (k = 0; k < HDR_BYTES; k = k + 1)
            if ({20'd0, beat_idx} == k / DB)
                hdr_reg[k*8 +: 8] <= s_tdata[(k % DB)*8 +: 8];
        if (beat_idx == 0) begin
            tos_value_reg <= cfg_tos_value;
            tos_mask_reg  <= cfg_tos_mask;
        end
        if (beat_idx != {CNT_W{1'b1}})
            beat_reg <= beat_idx + 1'b1;
        else
            beat_reg <= beat_idx;
        len_reg <= len_sum[16] ? 16'hffff : len_sum[15:0];
    end else if (end_reg) begin
        beat_reg <= 0;
        len_reg  <= 0;
    end
    end_reg <= s_beat && s_tlast;

    if (rst) begin
        beat_reg <= 0;
        len_reg  <= 0;
        end_reg  <= 1'b0;
    end
end

// ------------------------------------------------------------------------
// Decode (combinational from the capture registers)
// ------------------------------------------------------------------------
// byte k of the captured header (a part-select, not a function, so that
// continuous assignments stay sensitive to hdr_reg in every simulator)
`define INC_HB(k) hdr_reg[(k)*8 +: 8]

wire [15:0] type1 = {`INC_HB(12), `INC_HB(13)};
wire [15:0] type2 = {`INC_HB(16), `INC_HB(17)};
wire        vlan  = type1 == 16'h8100;
wire [15:0] etype = vlan ? type2 : type1;
wire [7:0]  l3    = vlan ? 8'd18 : 8'd14;

// IPv4 header bytes 0..19 at the selected L3 offset
wire [7:0]  ip_vihl  = vlan ? `INC_HB(18) : `INC_HB(14);
wire [7:0]  ip_tos   = vlan ? `INC_HB(19) : `INC_HB(15);
wire [15:0] ip_total = vlan ? {`INC_HB(20), `INC_HB(21)} : {`INC_HB(16), `INC_HB(17)};
wire [15:0] ip_flags = vlan ? {`INC_HB(24), `INC_HB(25)} : {`INC_HB(20), `INC_HB(21)};
wire [13:0] ip_frag  = ip_flags[13:0];   // MF and fragment offset; DF ignored
wire [7:0]  ip_ttl   = vlan ? `INC_HB(26) : `INC_HB(22);
wire [7:0]  ip_proto = vlan ? `INC_HB(27) : `INC_HB(23);
wire [3:0]  ihl      = ip_vihl[3:0];
wire [7:0]  ip_hlen  = {2'b00, ihl, 2'b00};
wire [7:0]  l4       = l3 + ip_hlen;               // <= 78
wire [7:0]  doff_idx = l4 + 8'd12;                 // <= 90

// The data-offset byte sits anywhere in bytes 46..90: a byte mux.
reg [7:0] doff_byte;   // only the high nibble is the data offset
integer d;
always @* begin
    doff_byte = 8'd0;
    for (d = 0; d < HDR_BYTES; d = d + 1)
        if ({24'd0, doff_idx} == d)
            doff_byte = hdr_reg[d*8 +: 8];
end
wire [3:0]  doff     = doff_byte[7:4];
/* verilator lint_off UNUSEDSIGNAL */
wire [5:0]  unused_bits = {doff_byte[3:0], ip_flags[15:14]}; // reserved, DF
/* verilator lint_on UNUSEDSIGNAL */
wire [7:0]  tcp_hlen = {2'b00, doff, 2'b00};
wire [7:0]  poff     = l4 + tcp_hlen;              // <= 138
wire [15:0] hdr_sum  = {8'd0, ip_hlen} + {8'd0, tcp_hlen};
wire [15:0] plen     = ip_total - hdr_sum;         // meaningful when no underflow

// Header checksum: IHL*2 words from L3 (the header is always captured whole
// when it is inside the frame: L3 + 60 <= 78 < HDR_BYTES). Two balanced
// adder trees over 32 slots (30 words + 2 zeros), five levels deep: all
// words, and the words other than total length, TTL/protocol, checksum.
reg [32*21-1:0] tree_all, tree_rest;
reg [15:0]      word;
integer w, lv;
always @* begin
    tree_all  = {32*21{1'b0}};
    tree_rest = {32*21{1'b0}};
    for (w = 0; w < 30; w = w + 1) begin
        word = vlan ? {`INC_HB(18 + 2*w), `INC_HB(19 + 2*w)} : {`INC_HB(14 + 2*w), `INC_HB(15 + 2*w)};
        if (w < ihl * 2) begin
            tree_all[w*21 +: 21] = {5'd0, word};
            if (w != 1 && w != 4 && w != 5)
                tree_rest[w*21 +: 21] = {5'd0, word};
        end
    end
    // in place: at each level slot i takes slots 2i and 2i+1 (ascending i
    // only overwrites slots already read)
    for (lv = 16; lv >= 1; lv = lv / 2)
        for (w = 0; w < lv; w = w + 1) begin
            tree_all[w*21 +: 21]  = tree_all[(2*w)*21 +: 21] + tree_all[(2*w+1)*21 +: 21];
            tree_rest[w*21 +: 21] = tree_rest[(2*w)*21 +: 21] + tree_rest[(2*w+1)*21 +: 21];
        end
end
wire [20:0] sum_all  = tree_all[20:0];
wire [20:0] sum_rest = tree_rest[20:0];

function [15:0] fold;
    input [20:0] s;
    reg   [16:0] t;
    begin
        t    = {12'd0, s[20:16]} + {1'b0, s[15:0]};
        fold = t[15:0] + {15'd0, t[16]};
    end
endfunction

// Checks 1-11; len = frame length. Stage 1 (in the cycle after tlast)
// registers each check's outcome and the two checksum sums; stage 2 folds
// the sums and picks the first failing check in the model's order.
wire [15:0] len      = len_reg;
wire [16:0] ip_end   = {9'd0, l3} + {1'b0, ip_total};     // L3 + total
wire [16:0] tcp_min  = {9'd0, ip_hlen} + 17'd20;
wire [16:0] tcp_end  = {9'd0, ip_hlen} + {9'd0, tcp_hlen};

wire ck_trunc_l2  = len < 16'd14 || (vlan && len < 16'd18);
wire ck_not_ipv4  = etype != 16'h0800;
wire ck_trunc_ip  = {1'b0, len} < {9'd0, l3} + 17'd20;
wire ck_bad_hdr   = ip_vihl[7:4] != 4'd4 || ihl < 4'd5;
wire ck_tos       = (ip_tos & tos_mask_reg) != (tos_value_reg & tos_mask_reg);
wire ck_trunc_opt = {1'b0, len} < {9'd0, l3} + {9'd0, ip_hlen};
wire ck_bad_len   = ip_total < {8'd0, ip_hlen} || ip_end > {1'b0, len} ||
                    (ip_end < {1'b0, len} && len > 16'd64);
wire ck_frag      = ip_frag != 14'd0;
wire ck_not_tcp   = ip_proto != 8'd6 && !(RX != 0 && ip_proto == 8'd253);
wire ck_bad_tcp   = {1'b0, ip_total} < tcp_min || doff < 4'd5 ||
                    tcp_end > {1'b0, ip_total};

// ------------------------------------------------------------------------
// Outputs
// ------------------------------------------------------------------------
// The data-offset byte is captured once beat (doff_idx / DB) has been taken.
wire [31:0] doff_beat = {24'd0, doff_idx} / DB;
assign cur_hdr_valid   = beat_reg != 0 && {20'd0, beat_reg} > doff_beat;
assign cur_vlan        = vlan;
assign cur_l3_off      = l3;
assign cur_ip_hlen     = ip_hlen;
assign cur_tcp_hlen    = tcp_hlen;
assign cur_ip_total    = ip_total;
assign cur_payload_off = poff;
assign cur_payload_len = plen;

// stage 1: registered in the cycle after tlast (end_reg)
reg        s1_valid = 1'b0;
reg [9:0]  s1_ck = 0;                  // the checks other than the checksum
reg [20:0] s1_sum_all = 0, s1_sum_rest = 0;
reg [15:0] s1_frame_len = 0, s1_ip_total = 0, s1_payload_len = 0;
reg        s1_vlan = 1'b0;
reg [7:0]  s1_l3 = 0, s1_ip_hlen = 0, s1_tcp_hlen = 0, s1_payload_off = 0;
reg [7:0]  s1_proto = 0, s1_tos = 0, s1_ttl = 0;

always @(posedge clk) begin
    s1_valid <= end_reg;
    if (end_reg) begin
        s1_ck          <= {ck_trunc_l2, ck_not_ipv4, ck_trunc_ip, ck_bad_hdr, ck_tos,
                           ck_trunc_opt, ck_bad_len, ck_frag, ck_not_tcp, ck_bad_tcp};
        s1_sum_all     <= sum_all;
        s1_sum_rest    <= sum_rest;
        s1_frame_len   <= len_reg;
        s1_vlan        <= vlan;
        s1_l3          <= l3;
        s1_ip_hlen     <= ip_hlen;
        s1_tcp_hlen    <= tcp_hlen;
        s1_ip_total    <= ip_total;
        s1_payload_off <= poff;
        s1_payload_len <= plen;
        s1_proto       <= ip_proto;
        s1_tos         <= ip_tos;
        s1_ttl         <= ip_ttl;
    end
    if (rst)
        s1_valid <= 1'b0;
end

wire [15:0] csum_fold = fold(s1_sum_all);
wire [15:0] rest_fold = fold(s1_sum_rest);

reg [4:0] reason;
always @* begin
    if (s1_ck[9])                       // frame < 14 (18 with a tag)
        reason = R_TRUNCATED;
    else if (s1_ck[8])
        reason = R_NOT_IPV4;
    else if (s1_ck[7])                  // no room for 20 bytes of IPv4
        reason = R_TRUNCATED;
    else if (s1_ck[6])
        reason = R_BAD_IP_HEADER;
    else if (s1_ck[5])
        reason = R_TOS;
    else if (s1_ck[4])                  // no room for the options
        reason = R_TRUNCATED;
    else if (csum_fold != 16'hffff)
        reason = R_BAD_IP_CSUM;
    else if (s1_ck[3])
        reason = R_BAD_LENGTH;
    else if (s1_ck[2])
        reason = R_FRAGMENT;
    else if (s1_ck[1])
        reason = R_NOT_TCP;
    else if (s1_ck[0])
        reason = R_BAD_TCP_HEADER;
    else
        reason = R_NONE;
end

// stage 2: the outputs
reg        done_reg = 1'b0;
reg [4:0]  reason_reg = 0;
reg [15:0] frame_len_reg = 0, ip_total_reg = 0, payload_len_reg = 0, csum_rest_reg = 0;
reg        vlan_reg = 1'b0;
reg [7:0]  l3_reg = 0, ip_hlen_reg = 0, tcp_hlen_reg = 0, payload_off_reg = 0;
reg [7:0]  proto_reg = 0, tos_reg = 0, ttl_reg = 0;

always @(posedge clk) begin
    done_reg <= s1_valid;
    if (s1_valid) begin
        reason_reg      <= reason;
        frame_len_reg   <= s1_frame_len;
        vlan_reg        <= s1_vlan;
        l3_reg          <= s1_l3;
        ip_hlen_reg     <= s1_ip_hlen;
        tcp_hlen_reg    <= s1_tcp_hlen;
        ip_total_reg    <= s1_ip_total;
        payload_off_reg <= s1_payload_off;
        payload_len_reg <= s1_payload_len;
        proto_reg       <= s1_proto;
        tos_reg         <= s1_tos;
        ttl_reg         <= s1_ttl;
        csum_rest_reg   <= rest_fold;
    end
    if (rst)
        done_reg <= 1'b0;
end

assign m_done        = done_reg;
assign m_reason      = reason_reg;
assign m_frame_len   = frame_len_reg;
assign m_vlan        = vlan_reg;
assign m_l3_off      = l3_reg;
assign m_ip_hlen     = ip_hlen_reg;
assign m_tcp_hlen    = tcp_hlen_reg;
assign m_ip_total    = ip_total_reg;
assign m_payload_off = payload_off_reg;
assign m_payload_len = payload_len_reg;
assign m_proto       = proto_reg;
assign m_tos         = tos_reg;
assign m_ttl         = ttl_reg;
assign m_csum_rest   = csum_rest_reg;

endmodule

`undef INC_HB

`resetall
