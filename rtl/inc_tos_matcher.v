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
 * Two views of the parse, both from a free-running pipeline behind the
 * capture registers (stages A..E below; every path one carry chain or a
 * few LUT levels, for 250 MHz):
 *  - cur_*: the live view, CUR_LAT = 3 cycles behind the capture: in the
 *    cycle after beat i was accepted plus CUR_LAT, it is the parse of beats
 *    0..i. cur_hdr_valid is high once the beat holding the TCP data-offset
 *    byte has been captured (IHL and the tag come earlier), until the next
 *    frame's first beat (so still for the capture of the cycle after the
 *    tlast beat). cur_hdr_ok: IHL >= 5, data offset >= 5 and IHL*4 + THL <=
 *    the IP total length. The store-and-forward engines use the view to
 *    realign the payload while the frame streams in; the values are only
 *    meaningful when the frame turns out to be well formed.
 *  - m_*: a snapshot of the end of the frame, with m_done pulsing one
 *    cycle M_LAT = 6 cycles after the tlast beat, held until the next
 *    m_done. m_reason is enum inc_reason for checks 1-11 in the model's
 *    order (INC_R_NONE when all pass); m_frame_len saturates at 65535.
 * The engines pipeline their own paths to meet these latencies; each
 * checks in simulation that the matcher's result arrives in step.
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
    output wire                    cur_hdr_ok,
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
    output wire [7:0]              m_hdr_len,     // m_ip_hlen + m_tcp_hlen
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

`include "inc_lsum.vh"


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
reg [15:0]            len_reg = 0;       // bytes of the frame's beats before its tlast beat
reg [KEEP_W-1:0]      lastk_reg = 0;     // bytes of the tlast beat
reg [7:0]             tos_value_reg = 0, tos_mask_reg = 0;
reg                   end_reg = 0;       // the previous cycle took tlast

// bytes of this beat: tkeep is contiguous from lane 0, so the count is the
// highest set lane + 1, decoded as a thermometer code (inc_lsum.vh)
/* verilator lint_off UNUSEDSIGNAL */
wire [6:0]       keep_cnt7 = inc_keep_count({{(64-DB){1'b0}}, s_tkeep});
/* verilator lint_on UNUSEDSIGNAL */
wire [KEEP_W-1:0] keep_cnt = keep_cnt7[KEEP_W-1:0];

// Beat index of this beat: the first beat after an end restarts at 0.
wire [CNT_W-1:0] beat_idx = end_reg ? {CNT_W{1'b0}} : beat_reg;
wire [15:0]      len_base = end_reg ? 16'd0 : len_reg;
// every beat but the last is full (AXI4-Stream as the engines take it), so
// the count adds a constant; the last beat's bytes join in stage A
wire [16:0]      len_sum  = {1'b0, len_base} + DB;

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
        if (s_tlast) begin
            len_reg   <= len_base;
            lastk_reg <= keep_cnt;
        end else begin
            len_reg <= len_sum[16] ? 16'hffff : len_sum[15:0];
        end
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
// Parse pipeline: free-running stages A..E behind the capture registers.
// Every stage registers every cycle, so stage k holds the parse of the
// capture registers as they were k cycles earlier, and the end-of-frame
// flag (end_reg) travels with them: m_done is E's copy of it.
//   A  vlan, the IPv4 fields at L3, the header words (masked by IHL), the
//      data-offset nibble candidates
//   B  offsets from IHL, the data offset, simple checks, five carry-save
//      levels of the two checksum sums
//   C  TCP header length, payload offset and length (the live view),
//      length checks, the last carry-save levels (two words per sum)
//   D  checksum verdict, the rest sum without its end-around carry
//   E  the reason in the model's order, the snapshot (outputs)
// ------------------------------------------------------------------------
// byte k of the captured header (a part-select, not a function, so that
// continuous assignments stay sensitive to hdr_reg in every simulator)
`define INC_HB(k) hdr_reg[(k)*8 +: 8]

function [15:0] be16;   // big-endian 16-bit word from two bytes
    input [7:0] hi, lo;
    be16 = {hi, lo};
endfunction

// ---- stage A --------------------------------------------------------------
wire [15:0] type1 = be16(`INC_HB(12), `INC_HB(13));
wire [15:0] type2 = be16(`INC_HB(16), `INC_HB(17));
wire        vlan  = type1 == 16'h8100;
wire [7:0]  ip_vihl = vlan ? `INC_HB(18) : `INC_HB(14);
wire [7:0]  ip_tos  = vlan ? `INC_HB(19) : `INC_HB(15);
wire [15:0] ip_frag = vlan ? be16(`INC_HB(24), `INC_HB(25)) : be16(`INC_HB(20), `INC_HB(21));

reg         a_end = 1'b0, a_vlan = 1'b0, a_not_ipv4 = 1'b0, a_tos_bad = 1'b0, a_frag = 1'b0;
reg [7:0]   a_vihl = 0, a_tos = 0, a_ttl = 0, a_proto = 0;
reg [15:0]  a_total = 0, a_len = 0;
reg [CNT_W-1:0] a_beat = 0;
reg [16*30-1:0] a_words = 0;       // IPv4 header words 0..29, zero from IHL*2 on
reg [4*16-1:0]  a_doffc = 0;       // data-offset nibble if IHL were i, i = 0..15

wire [16:0] a_len_sum = {1'b0, len_reg} + {{(17-KEEP_W){1'b0}}, lastk_reg};

integer w;
always @(posedge clk) begin
    a_end      <= end_reg;
    a_len      <= a_len_sum[16] ? 16'hffff : a_len_sum[15:0];   // saturates
    a_beat     <= beat_reg;
    a_vlan     <= vlan;
    a_not_ipv4 <= (vlan ? type2 : type1) != 16'h0800;
    a_vihl     <= ip_vihl;
    a_tos      <= ip_tos;
    a_tos_bad  <= (ip_tos & tos_mask_reg) != (tos_value_reg & tos_mask_reg);
    a_total    <= vlan ? be16(`INC_HB(20), `INC_HB(21)) : be16(`INC_HB(16), `INC_HB(17));
    a_frag     <= ip_frag[13:0] != 14'd0;      // MF and fragment offset; DF ignored
    a_ttl      <= vlan ? `INC_HB(26) : `INC_HB(22);
    a_proto    <= vlan ? `INC_HB(27) : `INC_HB(23);
    // the header is always captured whole when it is inside the frame:
    // L3 + 60 <= 78 < HDR_BYTES
    for (w = 0; w < 30; w = w + 1)
        a_words[16*w +: 16] <= w < 2 * ip_vihl[3:0] ?
            (vlan ? be16(`INC_HB(18 + 2*w), `INC_HB(19 + 2*w))
                  : be16(`INC_HB(14 + 2*w), `INC_HB(15 + 2*w))) : 16'd0;
    // L4 + 12 = L3 + 4*IHL + 12 <= 90
    for (w = 0; w < 16; w = w + 1)
        a_doffc[4*w +: 4] <= vlan ? hdr_reg[(30 + 4*w)*8 + 4 +: 4] : hdr_reg[(26 + 4*w)*8 + 4 +: 4];
    if (rst)
        a_end <= 1'b0;
end

// ---- stage B --------------------------------------------------------------
// The rest sum leaves out words 1 (total length), 4 (TTL/protocol) and 5
// (checksum); both sums go through the carry-save reduction of
// inc_csum_csa, five levels here and the rest in C.
localparam NR = 27;
wire [16*NR-1:0] rest_words = {a_words[16*30-1:16*6], a_words[16*3 +: 16],
                               a_words[16*2 +: 16], a_words[15:0]};
wire [16*30-1:0] csa_all_b;
wire [16*NR-1:0] csa_rest_b;
inc_csum_csa #(.N(30), .LEVELS(5)) csa_all1 (.in_words(a_words), .out_words(csa_all_b));
inc_csum_csa #(.N(NR), .LEVELS(5)) csa_rest1 (.in_words(rest_words), .out_words(csa_rest_b));

wire [3:0]  ihl     = a_vihl[3:0];
wire [7:0]  ip_hlen = {2'b00, ihl, 2'b00};
wire [7:0]  l3      = a_vlan ? 8'd18 : 8'd14;
// the beat that holds the data-offset byte L3 + IHL*4 + 12 (0..2: DB >= 32),
// the sum as gates (a function of five bits)
wire [7:0]  doff_idx  = inc_lsum(inc_lsum(l3, ip_hlen), 8'd12);
wire [7:0]  doff_beat = doff_idx >> $clog2(DB);

reg         b_end = 1'b0, b_vlan = 1'b0, b_hdr_valid = 1'b0;
reg [7:0]   b_l3 = 0, b_ip_hlen = 0, b_l4 = 0, b_tos = 0, b_ttl = 0, b_proto = 0;
reg [3:0]   b_doff = 0;
reg [15:0]  b_total = 0, b_len = 0, b_tot_m_ih = 0;
reg [16:0]  b_ip_end = 0;
reg         b_trunc_l2 = 1'b0, b_not_ipv4 = 1'b0, b_trunc_ip = 1'b0, b_bad_hdr = 1'b0;
reg         b_tos_bad = 1'b0, b_frag = 1'b0, b_not_tcp = 1'b0, b_tot_lt_ih = 1'b0;
reg [16*5-1:0] b_all = 0;          // 30 words after five levels: 5
reg [16*4-1:0] b_rest = 0;         // 27 words after five levels: 4

always @(posedge clk) begin
    b_end       <= a_end;
    b_vlan      <= a_vlan;
    b_hdr_valid <= a_beat[CNT_W-1:2] != 0 || a_beat[1:0] > doff_beat[1:0];
    b_l3        <= l3;
    b_ip_hlen   <= ip_hlen;
    b_l4        <= l3 + ip_hlen;                  // <= 78
    b_doff      <= a_doffc[4*ihl +: 4];
    b_tos       <= a_tos;
    b_ttl       <= a_ttl;
    b_proto     <= a_proto;
    b_total     <= a_total;
    b_len       <= a_len;
    b_tot_m_ih  <= a_total - {8'd0, ip_hlen};
    b_tot_lt_ih <= a_total < {8'd0, ip_hlen};
    b_ip_end    <= {9'd0, l3} + {1'b0, a_total};
    b_trunc_l2  <= !inc_lge16(a_len, 16'd14) || (a_vlan && !inc_lge16(a_len, 16'd18));
    b_not_ipv4  <= a_not_ipv4;
    b_trunc_ip  <= a_vlan ? !inc_lge16(a_len, 16'd38) : !inc_lge16(a_len, 16'd34);   // < L3 + 20
    b_bad_hdr   <= a_vihl[7:4] != 4'd4 || ihl < 4'd5;
    b_tos_bad   <= a_tos_bad;
    b_frag      <= a_frag;
    b_not_tcp   <= a_proto != 8'd6 && !(RX != 0 && a_proto == 8'd253);
    b_all       <= csa_all_b[16*5-1:0];
    b_rest      <= csa_rest_b[16*4-1:0];
    if (rst)
        b_end <= 1'b0;
end

// ---- stage C --------------------------------------------------------------
wire [16*5-1:0] csa_all_c;
wire [16*4-1:0] csa_rest_c;
inc_csum_csa #(.N(5), .LEVELS(3)) csa_all2 (.in_words(b_all), .out_words(csa_all_c));
inc_csum_csa #(.N(4), .LEVELS(2)) csa_rest2 (.in_words(b_rest), .out_words(csa_rest_c));

wire [7:0]  tcp_hlen = {2'b00, b_doff, 2'b00};

reg         c_end = 1'b0, c_vlan = 1'b0, c_hdr_valid = 1'b0, c_hdr_ok = 1'b0;
reg [7:0]   c_l3 = 0, c_ip_hlen = 0, c_tcp_hlen = 0, c_poff = 0, c_tos = 0, c_ttl = 0, c_proto = 0;
reg [15:0]  c_total = 0, c_len = 0, c_plen = 0;
reg [9:0]   c_ck = 0;
reg [31:0]  c_all = 0, c_rest = 0;  // two words each

always @(posedge clk) begin
    c_end       <= b_end;
    c_vlan      <= b_vlan;
    c_hdr_valid <= b_hdr_valid;
    c_l3        <= b_l3;
    c_ip_hlen   <= b_ip_hlen;
    c_tcp_hlen  <= tcp_hlen;
    c_poff      <= b_l4 + tcp_hlen;               // <= 138
    c_plen      <= b_tot_m_ih - {8'd0, tcp_hlen};  // meaningful when no underflow
    c_hdr_ok    <= !b_bad_hdr && b_doff >= 4'd5 && !b_tot_lt_ih &&
                   b_tot_m_ih >= {8'd0, tcp_hlen};
    c_tos       <= b_tos;
    c_ttl       <= b_ttl;
    c_proto     <= b_proto;
    c_total     <= b_total;
    c_len       <= b_len;
    // the checks other than the checksum, in the model's order
    c_ck <= {b_trunc_l2, b_not_ipv4, b_trunc_ip, b_bad_hdr, b_tos_bad,
             b_len < {8'd0, b_l4},                                        // no room for the options
             b_tot_lt_ih || b_ip_end > {1'b0, b_len} ||
                 (b_ip_end < {1'b0, b_len} && b_len > 16'd64),            // bad length
             b_frag, b_not_tcp,
             // total < IHL*4 + 20 (total < IHL*4, or total - IHL*4 < 20),
             // data offset < 5, or IHL*4 + THL > total (the last one only
             // matters when total >= IHL*4)
             b_tot_lt_ih || !inc_lge16(b_tot_m_ih, 16'd20) || b_doff < 4'd5 ||
                 !inc_lge16(b_tot_m_ih, {8'd0, tcp_hlen})};
    c_all       <= csa_all_c[31:0];
    c_rest      <= csa_rest_c[31:0];
    if (rst)
        c_end <= 1'b0;
end

// ---- stage D --------------------------------------------------------------
reg         d_end = 1'b0, d_csum_ok = 1'b0, d_vlan = 1'b0;
reg [16:0]  d_rest = 0;
reg [9:0]   d_ck = 0;
reg [7:0]   d_l3 = 0, d_ip_hlen = 0, d_tcp_hlen = 0, d_poff = 0, d_tos = 0, d_ttl = 0, d_proto = 0;
reg [15:0]  d_total = 0, d_len = 0, d_plen = 0;

always @(posedge clk) begin
    d_end      <= c_end;
    // the header sums to 0xffff (folded) iff the two words add up to
    // 0xffff or 0x1fffe (inc_csum_csa)
    d_csum_ok  <= c_all[15:0] == ~c_all[31:16] || (&c_all);
    d_rest     <= {1'b0, c_rest[15:0]} + {1'b0, c_rest[31:16]};
    d_ck       <= c_ck;
    d_vlan     <= c_vlan;
    d_l3       <= c_l3;
    d_ip_hlen  <= c_ip_hlen;
    d_tcp_hlen <= c_tcp_hlen;
    d_poff     <= c_poff;
    d_tos      <= c_tos;
    d_ttl      <= c_ttl;
    d_proto    <= c_proto;
    d_total    <= c_total;
    d_len      <= c_len;
    d_plen     <= c_plen;
    if (rst)
        d_end <= 1'b0;
end

// ---- stage E: the outputs ----------------------------------------------------
reg [4:0] reason;
always @* begin
    if (d_ck[9])                        // frame < 14 (18 with a tag)
        reason = R_TRUNCATED;
    else if (d_ck[8])
        reason = R_NOT_IPV4;
    else if (d_ck[7])                   // no room for 20 bytes of IPv4
        reason = R_TRUNCATED;
    else if (d_ck[6])
        reason = R_BAD_IP_HEADER;
    else if (d_ck[5])
        reason = R_TOS;
    else if (d_ck[4])                   // no room for the options
        reason = R_TRUNCATED;
    else if (!d_csum_ok)
        reason = R_BAD_IP_CSUM;
    else if (d_ck[3])
        reason = R_BAD_LENGTH;
    else if (d_ck[2])
        reason = R_FRAGMENT;
    else if (d_ck[1])
        reason = R_NOT_TCP;
    else if (d_ck[0])
        reason = R_BAD_TCP_HEADER;
    else
        reason = R_NONE;
end

reg        done_reg = 1'b0;
reg [4:0]  reason_reg = 0;
reg [15:0] frame_len_reg = 0, ip_total_reg = 0, payload_len_reg = 0, csum_rest_reg = 0;
reg        vlan_reg = 1'b0;
reg [7:0]  l3_reg = 0, ip_hlen_reg = 0, tcp_hlen_reg = 0, hdr_len_reg = 0, payload_off_reg = 0;
reg [7:0]  proto_reg = 0, tos_reg = 0, ttl_reg = 0;

always @(posedge clk) begin
    done_reg <= d_end;
    if (d_end) begin
        reason_reg      <= reason;
        frame_len_reg   <= d_len;
        vlan_reg        <= d_vlan;
        l3_reg          <= d_l3;
        ip_hlen_reg     <= d_ip_hlen;
        tcp_hlen_reg    <= d_tcp_hlen;
        hdr_len_reg     <= d_ip_hlen + d_tcp_hlen;
        ip_total_reg    <= d_total;
        payload_off_reg <= d_poff;
        payload_len_reg <= d_plen;
        proto_reg       <= d_proto;
        tos_reg         <= d_tos;
        ttl_reg         <= d_ttl;
        // end-around carry: the folded sum, 0 only for an all-zero header
        csum_rest_reg   <= d_rest[15:0] + {15'd0, d_rest[16]};
    end
    if (rst)
        done_reg <= 1'b0;
end

// the reductions give zero above their last word; DF and the reserved bit
/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, csa_all_b[16*30-1:16*5], csa_rest_b[16*NR-1:16*4],
                   csa_all_c[16*5-1:32], csa_rest_c[16*4-1:32], ip_frag[15:14],
                   doff_beat[7:2]};
/* verilator lint_on UNUSEDSIGNAL */

assign cur_hdr_valid   = c_hdr_valid;
assign cur_hdr_ok      = c_hdr_ok;
assign cur_vlan        = c_vlan;
assign cur_l3_off      = c_l3;
assign cur_ip_hlen     = c_ip_hlen;
assign cur_tcp_hlen    = c_tcp_hlen;
assign cur_ip_total    = c_total;
assign cur_payload_off = c_poff;
assign cur_payload_len = c_plen;

assign m_done        = done_reg;
assign m_reason      = reason_reg;
assign m_frame_len   = frame_len_reg;
assign m_vlan        = vlan_reg;
assign m_l3_off      = l3_reg;
assign m_ip_hlen     = ip_hlen_reg;
assign m_tcp_hlen    = tcp_hlen_reg;
assign m_hdr_len     = hdr_len_reg;
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
