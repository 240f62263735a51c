// SPDX-License-Identifier: MIT
/*
 * inc_decompress_engine - receive-side INCEPTIONN engine: decompresses
 * marked frames (matching ToS + IP protocol 253) back to the original TCP
 * segment; every other frame passes unchanged. Byte-identical to
 * inc_frame_decompress() (sw-model/src/frame.c, docs/wire-format.md) with
 * cfg {tos_value, tos_mask, max_frame = MAX_FRAME}.
 *
 * Three store-and-forward stages, each with two frame slots:
 *
 *   s_axis -> [1 ingest] --RAM_IN (2 slots)--> [2 process] --RAM_OUT (2 slots)--> [3 output] -> m_axis
 *                 |  header capture (160 B)        |  copy, or header + burst buffer
 *                 |  -> 2-cycle decision           |  + decompress unit + packer,
 *                 v    -> metadata FIFO 1 -------> |  TCP checksum over the output
 *                                                  v  -> metadata FIFO 2 (patches) -> [3]
 *
 * 1 ingest: writes the frame into an input slot; inc_tos_matcher (RX = 1)
 *   parses the headers (checks 1-11 of docs/wire-format.md); the engine
 *   captures the first 160 bytes for the shim (the largest header + shim is
 *   18 + 60 + 60 + 4 = 142) and the addresses, and two cycles after the end
 *   of the frame decides in the model's order: oversize, disabled, checks
 *   1-11, not_marked, bad_shim, and the part of bad_stream that needs no
 *   stream walk (payload - 4 < tail).
 * 2 process: a frame to bypass (or a malformed one) is copied to an output
 *   slot. A candidate for decompression is rebuilt there: its header bytes,
 *   then the stream through inc_burst_buffer + inc_decompress_unit (one
 *   group per cycle), then the raw tail, packed to beats at the output byte
 *   offset by inc_decompress_packer; the TCP checksum is summed over the
 *   written beats. If the stream did not occupy exactly payload - 4 - tail
 *   bytes, or a padding lane had a non-zero tag, the frame is malformed
 *   (bad_stream) and is copied instead, so the output is the input frame.
 *   Stage 2 is a front end (reader, burst buffer, unit, feeding the packer)
 *   and a back end (packer output to the slot, checksum, finishing) that
 *   overlap: the next frame's header enters the packer while the previous
 *   frame's last beats are still written.
 * 3 output: reads the output slot, patches IP total length, protocol, IP and
 *   TCP checksums of a decompressed frame, and streams it out through a
 *   register FIFO (tready is registered).
 *
 * Frame length limits: a frame longer than MAX_FRAME is dropped (no output,
 * outcome dropped, reason oversize), also when the direction is disabled;
 * only its first MAX_FRAME bytes touch the slot. With cfg_enable = 0 every
 * other frame is copied unchanged with reason disabled.
 *
 * Reset (synchronous, active high) returns every stage to idle and empties
 * the slots and FIFOs: frames inside the engine are lost and a frame being
 * sent on m_axis stops without tlast. The next beat accepted after reset
 * starts a new frame, so the upstream and downstream sides must be reset
 * (or resynchronised to a frame boundary) together with the engine.
 * Nothing else survives a reset; the frames sent afterwards are unaffected
 * (sim/rx_engine_tb tests this).
 *
 * DATA_WIDTH is 256: the stream format has eight values per group, so one
 * group per cycle fills one 256-bit beat (a 512-bit version needs two
 * decompress units per cycle).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "inc_regs.vh"

// Receive-side decompression engine (AXI4-Stream in and out).
module inc_decompress_engine #(
    parameter DATA_WIDTH = 256,  // AXI4-Stream data width in bits; 256 only (one group per beat)
    parameter MAX_FRAME  = 9018  // largest frame in bytes (no FCS), 64..65535; longer frames are dropped
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,
    input  wire                    s_axis_tlast,

    output wire [DATA_WIDTH-1:0]   m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast,

    input  wire                    cfg_enable,
    input  wire [7:0]              cfg_tos_value,
    input  wire [7:0]              cfg_tos_mask,

    output reg                     stat_valid,
    output reg  [2:0]              stat_outcome,
    output reg  [4:0]              stat_reason,
    output reg  [15:0]             stat_bytes_in,
    output reg  [15:0]             stat_bytes_out
);

localparam BYTES     = DATA_WIDTH / 8;
localparam KW        = $clog2(BYTES + 1);                 // byte count within a beat
localparam SLOT_USED = (MAX_FRAME + BYTES - 1) / BYTES;   // beats of the largest frame
localparam SAW       = $clog2(SLOT_USED);                 // beat address within a slot
localparam HDR_BYTES = 160;
localparam HDR_BEATS = (HDR_BYTES + BYTES - 1) / BYTES;
localparam [11:0] SLOT_USED12 = SLOT_USED[11:0];
localparam [17:0] MAX_FRAME18 = MAX_FRAME[17:0];

initial begin
    if (DATA_WIDTH != 256) begin
        $error("inc_decompress_engine: DATA_WIDTH must be 256 (one 8-value group per beat)");
        $finish;
    end
    if (MAX_FRAME < 64 || MAX_FRAME > 65535) begin
        $error("inc_decompress_engine: MAX_FRAME must be in 64..65535");
        $finish;
    end
end

localparam [2:0] OUT_BYPASS = `INC_OUT_BYPASS, OUT_DECOMPRESSED = `INC_OUT_DECOMPRESSED,
                 OUT_MALFORMED = `INC_OUT_MALFORMED, OUT_DROPPED = `INC_OUT_DROPPED;
localparam [4:0] R_NONE = `INC_R_NONE, R_NOT_MARKED = `INC_R_NOT_MARKED,
                 R_BAD_SHIM = `INC_R_BAD_SHIM, R_BAD_STREAM = `INC_R_BAD_STREAM,
                 R_OVERSIZE = `INC_R_OVERSIZE, R_DISABLED = `INC_R_DISABLED;

integer i;

// ---------------------------------------------------------------------------
// Frame slot RAMs: {slot, beat}, written by one stage, read by the next.
// ---------------------------------------------------------------------------
reg [DATA_WIDTH-1:0] ram_in  [0:(2 << SAW)-1];
reg [DATA_WIDTH-1:0] ram_out [0:(2 << SAW)-1];

// ---------------------------------------------------------------------------
// Stage 1: ingest
// ---------------------------------------------------------------------------
reg                    in_frame_reg;   // inside a frame
reg                    in_slot_reg;    // slot of the frame being received
reg  [1:0]             in_used_reg;    // slots allocated and not yet freed by stage 2
reg  [16:0]            in_len_reg;     // bytes so far, saturating
reg  [11:0]            in_beat_reg;    // beat index, saturating
reg  [8*HDR_BYTES-1:0] hdr_reg;
reg                    en_reg;

wire in_free;                          // stage 2 releases its input slot
wire in_take = s_axis_tvalid && s_axis_tready;

assign s_axis_tready = in_frame_reg || in_used_reg != 2'd2;

reg [KW-1:0]           keep_bytes;     // tkeep is contiguous from lane 0
reg [16:0]             len_next;
reg [8*HDR_BYTES-1:0]  hdr_next;

always @* begin
    keep_bytes = {KW{1'b0}};
    for (i = 0; i < BYTES; i = i + 1) begin
        if (s_axis_tkeep[i]) begin
            keep_bytes = i[KW-1:0] + 1'b1;
        end
    end
    len_next = (in_frame_reg ? in_len_reg : 17'd0);
    len_next = (len_next > 17'h1ffff - BYTES) ? 17'h1ffff : len_next + {{(17-KW){1'b0}}, keep_bytes};
    hdr_next = hdr_reg;
    for (i = 0; i < HDR_BEATS; i = i + 1) begin
        if ((in_frame_reg ? in_beat_reg : 12'd0) == i[11:0]) begin
            hdr_next[DATA_WIDTH*i +: DATA_WIDTH] = s_axis_tdata;
        end
    end
end

wire [11:0] in_beat_cur = in_frame_reg ? in_beat_reg : 12'd0;
wire        in_slot_cur = in_slot_reg;

always @(posedge clk) begin
    if (in_take && in_beat_cur < SLOT_USED12) begin
        ram_in[{in_slot_cur, in_beat_cur[SAW-1:0]}] <= s_axis_tdata;
    end
end

// Decision pipeline registers.
reg                    d1_valid_reg;
reg  [8*HDR_BYTES-1:0] d1_hdr_reg;
reg  [16:0]            d1_len_reg;
reg                    d1_en_reg;

always @(posedge clk) begin
    d1_valid_reg <= 1'b0;
    if (in_take) begin
        hdr_reg    <= hdr_next;
        in_len_reg <= len_next;
        in_beat_reg <= (in_beat_cur == 12'hfff) ? 12'hfff : in_beat_cur + 12'd1;
        if (!in_frame_reg) begin
            in_frame_reg <= 1'b1;
            en_reg   <= cfg_enable;
        end
        if (s_axis_tlast) begin
            in_frame_reg <= 1'b0;
            in_slot_reg  <= !in_slot_reg;
            d1_valid_reg <= 1'b1;
            d1_hdr_reg   <= hdr_next;
            d1_len_reg   <= len_next;
            d1_en_reg    <= in_frame_reg ? en_reg : cfg_enable;
        end
    end
    in_used_reg <= in_used_reg + {1'b0, in_take && !in_frame_reg} - {1'b0, in_free};
    if (rst) begin
        in_frame_reg <= 1'b0;
        in_slot_reg  <= 1'b0;
        in_used_reg  <= 2'd0;
        d1_valid_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Decision, cycle 1: extract the header fields.
//
//   offset   0        6        12         14/18 (L3)          L4 = L3 + IHL*4      P = L4 + THL
//          +--------+--------+----------+[802.1Q]+-----------+----------------------+------------+
//          | dst    | src    | type     |        | IPv4 hdr  | TCP hdr              | shim 4 B   |
//          +--------+--------+----------+--------+-----------+----------------------+------------+
//   L3+0 ver/IHL, +1 ToS, +2 total, +6 flags/frag, +8 TTL, +9 proto, +10 csum, +12 saddr, +16 daddr
//   L4+12 data offset; P+0 magic 0x49, P+1 version 1, P+2 original payload length (BE)
// ---------------------------------------------------------------------------
function [7:0] hb;   // header byte at an offset (constant at every use)
    input [8*HDR_BYTES-1:0] h;
    input [7:0]             off;
    begin
        hb = h[{off, 3'b000} +: 8];
    end
endfunction

// Every header field sits at one of a few offsets (L3 is 14 or 18, IHL and
// the data offset take 11 values each): select among those positions
// explicitly rather than shifting the whole 160-byte header.
function [7:0] ipb;  // byte L3 + c of the IPv4 header
    input [8*HDR_BYTES-1:0] h;
    input                   vlan;
    input [7:0]             c;
    begin
        ipb = vlan ? hb(h, 8'd18 + c) : hb(h, 8'd14 + c);
    end
endfunction

wire        x_vlan  = {hb(d1_hdr_reg, 8'd12), hb(d1_hdr_reg, 8'd13)} == 16'h8100;
/* verilator lint_off UNUSEDSIGNAL */ // IHL and the data offset nibble only
wire [7:0]  x_vihl  = ipb(d1_hdr_reg, x_vlan, 8'd0);
reg  [7:0]  x_doffb;   // L4 + 12: data offset in the high nibble
/* verilator lint_on UNUSEDSIGNAL */
reg  [31:0] x_shim;    // P .. P + 3
reg  [4:0]  x_hsum;    // IHL + data offset: P = L3 + 4 * x_hsum
reg  [17:0] x_sum_addr;

always @* begin
    x_doffb = 8'd0;
    for (i = 5; i < 16; i = i + 1) begin
        if (x_vihl[3:0] == i[3:0]) begin
            x_doffb = ipb(d1_hdr_reg, x_vlan, 8'd12 + 4 * i[7:0]);
        end
    end
    x_hsum = {1'b0, x_vihl[3:0]} + {1'b0, x_doffb[7:4]};
    x_shim = 32'd0;
    for (i = 0; i < 31; i = i + 1) begin
        if (x_hsum == i[4:0]) begin
            x_shim = {ipb(d1_hdr_reg, x_vlan, 4 * i[7:0]), ipb(d1_hdr_reg, x_vlan, 4 * i[7:0] + 8'd1),
                      ipb(d1_hdr_reg, x_vlan, 4 * i[7:0] + 8'd2), ipb(d1_hdr_reg, x_vlan, 4 * i[7:0] + 8'd3)};
        end
    end
    // source and destination addresses (L3 + 12 .. L3 + 19)
    x_sum_addr = 18'd0;
    for (i = 6; i < 10; i = i + 1) begin
        x_sum_addr = x_sum_addr + {2'd0, ipb(d1_hdr_reg, x_vlan, 2 * i[7:0]),
                                   ipb(d1_hdr_reg, x_vlan, 2 * i[7:0] + 8'd1)};
    end
end

// Two register stages, to meet the matcher's result (m_done three cycles
// after the tlast beat).
reg        x1_valid_reg, x1_en_reg, x_valid_reg, x_en_reg;
reg [16:0] x1_len_reg, x_len_reg;
reg [31:0] x1_shim_reg, x_shim_reg;
reg [17:0] x1_sum_addr_reg, x_sum_addr_reg;

always @(posedge clk) begin
    x1_valid_reg    <= d1_valid_reg;
    x1_en_reg       <= d1_en_reg;
    x1_len_reg      <= d1_len_reg;
    x1_shim_reg     <= x_shim;
    x1_sum_addr_reg <= x_sum_addr;
    x_valid_reg     <= x1_valid_reg;
    x_en_reg        <= x1_en_reg;
    x_len_reg       <= x1_len_reg;
    x_shim_reg      <= x1_shim_reg;
    x_sum_addr_reg  <= x1_sum_addr_reg;
    if (rst) begin
        x1_valid_reg <= 1'b0;
        x_valid_reg  <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Decision, cycle 2: the checks in the model's order -> metadata FIFO 1.
// inc_tos_matcher (RX = 1) gives checks 1-11 and the parsed header in the
// same cycle as x_valid_reg (m_done; a simulation check below watches it).
// ---------------------------------------------------------------------------
/* verilator lint_off UNUSEDSIGNAL */ // parts of the parse the engine does not need
wire        mt_done, mt_vlan;
wire [4:0]  mt_reason;
wire [15:0] mt_frame_len, mt_ip_total, mt_payload_len, mt_csum_rest;
wire [7:0]  mt_l3, mt_ip_hlen, mt_tcp_hlen, mt_payload_off, mt_proto, mt_tos, mt_ttl;
/* verilator lint_on UNUSEDSIGNAL */

/* verilator lint_off PINCONNECTEMPTY */ // the live view is not used
inc_tos_matcher #(.DATA_WIDTH(DATA_WIDTH), .RX(1)) matcher (
    .clk(clk), .rst(rst),
    .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_beat(in_take), .s_tlast(s_axis_tlast),
    .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(), .cur_vlan(), .cur_l3_off(), .cur_ip_hlen(), .cur_tcp_hlen(),
    .cur_ip_total(), .cur_payload_off(), .cur_payload_len(),
    .m_done(mt_done), .m_reason(mt_reason), .m_frame_len(mt_frame_len), .m_vlan(mt_vlan),
    .m_l3_off(mt_l3), .m_ip_hlen(mt_ip_hlen), .m_tcp_hlen(mt_tcp_hlen),
    .m_ip_total(mt_ip_total), .m_payload_off(mt_payload_off), .m_payload_len(mt_payload_len),
    .m_proto(mt_proto), .m_tos(mt_tos), .m_ttl(mt_ttl), .m_csum_rest(mt_csum_rest)
);
/* verilator lint_on PINCONNECTEMPTY */

`ifndef SYNTHESIS
always @(posedge clk) begin
    if (!rst && mt_done != x_valid_reg) begin
        $display("inc_decompress_engine: matcher result out of step with the decision pipeline");
        $stop;
    end
end
`endif

function [15:0] fold;   // one's-complement fold of a sum, not complemented
    input [31:0] s;
    reg   [31:0] t;
    begin
        t    = {16'd0, s[15:0]} + {16'd0, s[31:16]};
        t    = {16'd0, t[15:0]} + {16'd0, t[31:16]};
        fold = t[15:0];
    end
endfunction

wire [7:0]  y_l3        = mt_l3;
wire [7:0]  y_ihl4      = mt_ip_hlen;
wire [7:0]  x_l4_reg    = mt_l3 + mt_ip_hlen;
wire [7:0]  x_poff_reg  = mt_payload_off;
wire [16:0] y_len       = x_len_reg;
wire [15:0] y_paylen    = mt_payload_len;
wire [15:0] x_orig_reg  = x_shim_reg[15:0];
wire [16:0] y_orig_tot  = {9'd0, y_ihl4} + {9'd0, mt_tcp_hlen} + {1'b0, x_orig_reg};
wire [17:0] y_out_len   = {10'd0, y_l3} + {1'b0, y_orig_tot};
wire [15:0] y_avail     = y_paylen - 16'd4;
wire [1:0]  y_tail      = x_orig_reg[1:0];

reg [2:0] y_outcome;
reg [4:0] y_reason;
reg       y_dec;

always @* begin
    y_outcome = OUT_BYPASS;
    y_reason  = R_NONE;
    y_dec     = 1'b0;
    if ({1'b0, y_len} > MAX_FRAME18) begin
        y_outcome = OUT_DROPPED;
        y_reason  = R_OVERSIZE;
    end else if (!x_en_reg) begin
        y_reason = R_DISABLED;
    end else if (mt_reason != R_NONE) begin           // checks 1-11
        y_reason = mt_reason;
    end else if (mt_proto != 8'd253) begin
        y_reason = R_NOT_MARKED;
    end else if (y_paylen < 16'd4 || x_shim_reg[31:24] != 8'h49 || x_shim_reg[23:16] != 8'h01) begin
        y_outcome = OUT_MALFORMED;
        y_reason  = R_BAD_SHIM;
    end else if (y_orig_tot > 17'd65535 || y_out_len > MAX_FRAME18) begin
        y_outcome = OUT_MALFORMED;
        y_reason  = R_BAD_SHIM;
    end else if (y_avail < {14'd0, y_tail}) begin
        y_outcome = OUT_MALFORMED;
        y_reason  = R_BAD_STREAM;
    end else begin
        y_outcome = OUT_DECOMPRESSED;
        y_dec     = 1'b1;
    end
end

// New IP header checksum (total = original, protocol 6) and the TCP
// pseudo-header sum (addresses, protocol 6, TCP length).
wire [31:0] y_ip_sum  = {16'd0, mt_csum_rest} + {16'd0, y_orig_tot[15:0]} + {16'd0, mt_ttl, 8'd6};
wire [15:0] y_ip_csum = ~fold(y_ip_sum);
wire [20:0] y_pseudo  = {3'd0, x_sum_addr_reg} + 21'd6 + {5'd0, y_orig_tot[15:0] - {8'd0, y_ihl4}};

// Metadata FIFO 1 entry.
localparam M1W = 1 + 1 + 3 + 5 + 17 + 8 + 8 + 8 + 14 + 2 + 16 + 16 + 16 + 16 + 21;
wire [M1W-1:0] m1_in = {y_outcome == OUT_DROPPED, y_dec, y_outcome, y_reason, y_len,
                        y_l3, x_l4_reg, x_poff_reg, x_orig_reg[15:2], y_tail,
                        y_avail - {14'd0, y_tail}, y_out_len[15:0], y_orig_tot[15:0],
                        y_ip_csum, y_pseudo};
wire [M1W-1:0] m1_out;
wire           m1_valid;
reg            m1_pop;

// Full/level outputs unused where the slot accounting bounds the entries.
/* verilator lint_off PINCONNECTEMPTY */
inc_decompress_fifo #(.WIDTH(M1W), .DEPTH(2)) m1_fifo (
    .clk(clk), .rst(rst),
    .in_data(m1_in), .in_valid(x_valid_reg), .in_ready(),
    .out_data(m1_out), .out_valid(m1_valid), .out_ready(m1_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

wire        m1_drop    = m1_out[M1W-1];
wire        m1_dec     = m1_out[M1W-2];
wire [2:0]  m1_outcome = m1_out[M1W-3 -: 3];
wire [4:0]  m1_reason  = m1_out[M1W-6 -: 5];
wire [16:0] m1_len     = m1_out[M1W-11 -: 17];
wire [7:0]  m1_l3      = m1_out[M1W-28 -: 8];
wire [7:0]  m1_l4      = m1_out[M1W-36 -: 8];
wire [7:0]  m1_poff    = m1_out[M1W-44 -: 8];
wire [13:0] m1_n       = m1_out[M1W-52 -: 14];
wire [1:0]  m1_tail    = m1_out[M1W-66 -: 2];
wire [15:0] m1_sbytes  = m1_out[M1W-68 -: 16];
wire [15:0] m1_out_len = m1_out[M1W-84 -: 16];
wire [15:0] m1_ip_tot  = m1_out[M1W-100 -: 16];
wire [15:0] m1_ip_csum = m1_out[M1W-116 -: 16];
wire [20:0] m1_pseudo  = m1_out[20:0];

// ---------------------------------------------------------------------------
// Stage 2: process (copy, or rebuild with the decompressed payload)
//
// A front end (F) reads the input slot and feeds the packer: header chunks,
// then the stream through the burst buffer and the unit, then the tail; or
// the whole frame for a copy. A back end (B) writes the packer's beats to
// the output slot, sums the TCP checksum and finishes the frame (metadata
// FIFO 2, statistics) one cycle after its last beat. F starts the next
// frame while B still drains the previous one; per frame F pushes a start
// entry (what B needs: offsets, lengths, outcome) and an end entry (redo:
// the stream was malformed, so the frame follows again as a copy).
// ---------------------------------------------------------------------------
localparam [2:0] F_IDLE = 3'd0, F_HDR = 3'd1, F_SKIP = 3'd2, F_GROUPS = 3'd3,
                 F_TAIL = 3'd4, F_REDO = 3'd5;

reg [2:0]  st_reg;
reg        copy_reg;          // F: copying the input frame unchanged
reg [15:0] p_len_reg, p_sbytes_reg;
reg [4:0]  p_poff_reg;        // P mod 32 (the stream starts at P + 4)
reg [13:0] p_nleft_reg;       // values still to decode
reg [1:0]  p_tail_reg;
reg [15:0] hdr_left_reg;      // bytes of the copy / header phase still to pack
reg [15:0] consumed_reg;      // stream bytes taken by groups
reg        pad_bad_reg;
reg [4:0]  skip_reg;
reg        rd_slot_reg;       // input slot F reads
reg        wr_slot_reg;       // output slot B writes
reg [1:0]  out_used_reg;      // output slots written and not yet read out
reg [1:0]  b_cnt_reg;         // frames F started that B has not finished
reg [SAW-1:0] wbeat_reg;      // output beat being written

wire out_free;                // stage 3 releases its output slot

// Reader of RAM_IN into a 4-entry prefetch FIFO.
reg           ra_on_reg;      // issuing reads
reg           ra_unl_reg;     // unlimited (stream phase): no beat count
reg [SAW-1:0] ra_beat_reg;
reg [11:0]    ra_left_reg;
reg           ra_fly_reg;     // a read issued last cycle
reg           ra_flush;
reg [DATA_WIDTH-1:0] ra_q_reg;
wire [2:0]    rf_count;
wire [DATA_WIDTH-1:0] rf_data;
wire          rf_valid;
reg           rf_pop;

wire ra_issue = ra_on_reg && (ra_unl_reg || ra_left_reg != 12'd0) &&
                ({1'b0, rf_count} + {3'd0, ra_fly_reg} < 4'd3) && !ra_flush;

always @(posedge clk) begin
    if (ra_issue) begin
        ra_q_reg <= ram_in[{rd_slot_reg, ra_beat_reg}];
    end
end

// Full/level outputs unused where the slot accounting bounds the entries.
/* verilator lint_off PINCONNECTEMPTY */
inc_decompress_fifo #(.WIDTH(DATA_WIDTH), .DEPTH(4)) rf_fifo (
    .clk(clk), .rst(rst || ra_flush),
    .in_data(ra_q_reg), .in_valid(ra_fly_reg && !ra_flush), .in_ready(),
    .out_data(rf_data), .out_valid(rf_valid), .out_ready(rf_pop), .count(rf_count)
);
/* verilator lint_on PINCONNECTEMPTY */

// Burst buffer and decompress unit.
/* verilator lint_off UNUSEDSIGNAL */
wire [2*DATA_WIDTH+15:0] bb_win;   // a group is at most 34 bytes: the rest is unused
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0]  bb_count;
reg  [6:0]  bb_consume;
wire        bb_s_ready;
reg         bb_flush;
reg         bb_feed;           // the burst buffer is the reader's consumer

inc_burst_buffer #(.DATA_WIDTH(DATA_WIDTH)) bb (
    .clk(clk), .rst(rst),
    .s_data(rf_data), .s_valid(rf_valid && bb_feed), .s_ready(bb_s_ready),
    .win_data(bb_win), .win_count(bb_count), .consume_bytes(bb_consume), .flush(bb_flush)
);

wire [5:0]  du_gsize;
wire        du_pad_ok;
reg         du_valid, du_raw, du_last;
reg  [3:0]  du_nvalid;
wire [255:0] du_data;
wire [5:0]  du_count;
wire        du_out_valid, du_out_last;

inc_decompress_unit du (
    .clk(clk), .rst(rst),
    .in_window(bb_win[271:0]), .in_valid(du_valid), .in_nvalid(du_nvalid),
    .in_raw(du_raw), .in_raw_count(p_tail_reg), .in_last(du_last),
    .group_size(du_gsize), .pad_ok(du_pad_ok),
    .out_data(du_data), .out_count(du_count), .out_valid(du_out_valid), .out_last(du_out_last)
);

// Packer: fed by the header/copy phase or by the decompress unit.
reg  [DATA_WIDTH-1:0] pk_in_data;
reg  [KW-1:0]         pk_in_count;
reg                   pk_in_valid, pk_in_last;
wire [DATA_WIDTH-1:0] pk_data;
wire [KW-1:0]         pk_count;
wire                  pk_valid, pk_last;

/* verilator lint_off PINCONNECTEMPTY */ // in_ready: nothing is sent during a flush
inc_decompress_packer #(.DATA_WIDTH(DATA_WIDTH)) pk (
    .clk(clk), .rst(rst),
    .in_data(pk_in_data), .in_count(pk_in_count), .in_valid(pk_in_valid), .in_last(pk_in_last),
    .in_ready(),
    .out_data(pk_data), .out_count(pk_count), .out_valid(pk_valid), .out_last(pk_last)
);
/* verilator lint_on PINCONNECTEMPTY */

// Beats of a byte count: ceil(n / 32).
wire [11:0] m1_len_beats  = m1_len[16:5] + {11'd0, |m1_len[4:0]};
wire [11:0] p_len_beats   = {1'b0, p_len_reg[15:5]} + {11'd0, |p_len_reg[4:0]};
wire [15:0] hdr_chunk = (hdr_left_reg > BYTES) ? BYTES[15:0] : hdr_left_reg;

// Start and end entries from F to B.
localparam SQW = 1 + 3 + 5 + 16 + 16 + 16 + 16 + 8 + 8 + 21;
reg  [SQW-1:0] sq_in;
reg            sq_push;
wire [SQW-1:0] sq_out;
wire [2:0]     sq_count;
reg            eq_in, eq_push;
wire           eq_out;
reg            bq_pop;        // B takes both heads at a frame's last beat

// Full/level outputs unused where the slot accounting bounds the entries.
/* verilator lint_off PINCONNECTEMPTY */
inc_decompress_fifo #(.WIDTH(SQW), .DEPTH(4)) sq_fifo (
    .clk(clk), .rst(rst),
    .in_data(sq_in), .in_valid(sq_push), .in_ready(),
    .out_data(sq_out), .out_valid(), .out_ready(bq_pop), .count(sq_count)
);
inc_decompress_fifo #(.WIDTH(1), .DEPTH(4)) eq_fifo (
    .clk(clk), .rst(rst),
    .in_data(eq_in), .in_valid(eq_push), .in_ready(),
    .out_data(eq_out), .out_valid(), .out_ready(bq_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

wire        sq_copy    = sq_out[SQW-1];
wire [2:0]  sq_outcome = sq_out[SQW-2 -: 3];
wire [4:0]  sq_reason  = sq_out[SQW-5 -: 5];
wire [15:0] sq_len     = sq_out[SQW-10 -: 16];
wire [15:0] sq_out_len = sq_out[SQW-26 -: 16];
wire [15:0] sq_ip_tot  = sq_out[SQW-42 -: 16];
wire [15:0] sq_ip_csum = sq_out[SQW-58 -: 16];
wire [7:0]  sq_l3      = sq_out[SQW-74 -: 8];
wire [7:0]  sq_l4      = sq_out[SQW-82 -: 8];
wire [20:0] sq_pseudo  = sq_out[20:0];

reg        f_drop;            // F retires a dropped frame (statistics)
reg        f_free;            // F is done with its input slot
reg        fin_reg;           // B finishes a frame this cycle

always @* begin
    pk_in_data  = rf_data;
    pk_in_count = hdr_chunk[KW-1:0];
    pk_in_valid = 1'b0;
    pk_in_last  = 1'b0;
    rf_pop      = 1'b0;
    bb_feed     = 1'b0;
    bb_consume  = 7'd0;
    bb_flush    = 1'b0;
    ra_flush    = 1'b0;
    du_valid    = 1'b0;
    du_raw      = 1'b0;
    du_last     = 1'b0;
    du_nvalid   = (p_nleft_reg >= 14'd8) ? 4'd8 : p_nleft_reg[3:0];
    m1_pop      = 1'b0;
    f_drop      = 1'b0;
    f_free      = 1'b0;
    sq_push     = 1'b0;
    sq_in       = {!m1_dec, m1_outcome, m1_reason, m1_len[15:0], m1_out_len, m1_ip_tot,
                   m1_ip_csum, m1_l3, m1_l4, m1_pseudo};
    eq_push     = 1'b0;
    eq_in       = 1'b0;
    case (st_reg)
        F_IDLE: begin
            bb_flush = 1'b1;
            ra_flush = 1'b1;
            if (m1_valid && sq_count < 3'd3) begin
                if (m1_drop) begin
                    // Dropped frames wait until B is empty, so that their
                    // statistics pulse keeps the frame order.
                    m1_pop = b_cnt_reg == 2'd0 && !fin_reg;
                    f_drop = m1_pop;
                    f_free = m1_pop;
                end else begin
                    m1_pop  = {1'b0, out_used_reg} + {1'b0, b_cnt_reg} < 3'd2;
                    sq_push = m1_pop;
                end
            end
        end
        F_HDR: begin
            rf_pop      = rf_valid;
            pk_in_valid = rf_valid;
            // The reader runs on past the header of a frame to decompress;
            // a last header beat that already holds P + 4 (27 header bytes
            // or fewer) goes to the burst buffer too (it is empty: ready).
            bb_feed     = !copy_reg && hdr_left_reg <= 16'd27;
            pk_in_last  = copy_reg && hdr_left_reg <= BYTES;
            if (rf_valid && copy_reg && hdr_left_reg <= BYTES) begin
                eq_push = 1'b1;
                f_free  = 1'b1;
            end
        end
        F_SKIP: begin
            bb_feed = 1'b1;
            rf_pop  = rf_valid && bb_s_ready;
            if (bb_count >= {2'b00, skip_reg}) begin
                bb_consume = {2'b00, skip_reg};
            end
        end
        F_GROUPS: begin
            bb_feed = 1'b1;
            rf_pop  = rf_valid && bb_s_ready;
            if (bb_count >= 7'd2 && bb_count >= {1'b0, du_gsize}) begin
                bb_consume = {1'b0, du_gsize};
                du_valid   = 1'b1;
            end
        end
        F_TAIL: begin
            bb_feed = 1'b1;
            rf_pop  = rf_valid && bb_s_ready;
            if (bb_count >= {5'd0, p_tail_reg}) begin
                bb_consume = {5'd0, p_tail_reg};
                du_valid   = 1'b1;
                du_raw     = 1'b1;
                du_last    = 1'b1;
                eq_push    = 1'b1;
                // The stream must have taken exactly payload - 4 - tail
                // bytes with tag 0 in every padding lane.
                eq_in      = consumed_reg != p_sbytes_reg || pad_bad_reg;
                f_free     = !eq_in;
            end
        end
        F_REDO: begin
            // Malformed stream: the frame follows again, copied unchanged.
            bb_flush = 1'b1;
            ra_flush = 1'b1;
            sq_push  = 1'b1;
            sq_in    = {1'b1, OUT_MALFORMED, R_BAD_STREAM, p_len_reg, {(SQW-25){1'b0}}};
        end
        default: begin
        end
    endcase
    if (du_out_valid) begin
        pk_in_data  = du_data;
        pk_in_count = du_count;
        pk_in_valid = 1'b1;
        pk_in_last  = du_out_last;
    end
    bq_pop = pk_valid && pk_last;
end

// Per-beat TCP checksum of the written output: bytes from L4 to the end,
// with the checksum field (L4+16, L4+17) taken as zero.
reg [19:0] beat_sum;
reg [7:0]  cb0, cb1;
reg [15:0] cboff;

always @* begin
    beat_sum = 20'd0;
    for (i = 0; i < BYTES / 2; i = i + 1) begin
        cboff = {{(11-SAW){1'b0}}, wbeat_reg, 5'd0} + {11'd0, i[3:0], 1'b0};
        cb0 = pk_data[16*i +: 8];
        cb1 = pk_data[16*i + 8 +: 8];
        if (cboff < {8'd0, sq_l4} || cboff == {8'd0, sq_l4} + 16'd16 ||
            {i[4:0], 1'b0} >= pk_count) begin
            cb0 = 8'd0;
        end
        if (cboff < {8'd0, sq_l4} || cboff == {8'd0, sq_l4} + 16'd16 ||
            {i[4:0], 1'b1} >= pk_count) begin
            cb1 = 8'd0;
        end
        beat_sum = beat_sum + {4'd0, cb0, cb1};
    end
end

reg [19:0] bsum_reg;
reg        bsum_valid_reg;
reg [31:0] csum_acc_reg;
reg        disc_reg;          // B discarded a malformed frame's first pass
reg        stat_pend;
reg [2:0]  stat_o;
reg [4:0]  stat_r;
reg [15:0] stat_bi, stat_bo;
reg        fin_copy_reg;
reg [2:0]  fin_outcome_reg;
reg [4:0]  fin_reason_reg;
reg [15:0] fin_len_reg, fin_out_len_reg, fin_ip_tot_reg, fin_ip_csum_reg;
reg [7:0]  fin_l3_reg, fin_l4_reg;
reg [20:0] fin_pseudo_reg;

always @(posedge clk) begin
    if (pk_valid && {{(12-SAW){1'b0}}, wbeat_reg} < SLOT_USED12) begin
        ram_out[{wr_slot_reg, wbeat_reg}] <= pk_data;
    end
end

// In the finishing cycle the last beat's sum is still in bsum_reg.
wire [15:0] tcp_csum = ~fold(csum_acc_reg + {11'd0, fin_pseudo_reg} +
                             (bsum_valid_reg ? {12'd0, bsum_reg} : 32'd0));

always @(posedge clk) begin
    // ---- F ----
    if (ra_issue) begin
        ra_beat_reg <= ra_beat_reg + 1'b1;
        if (!ra_unl_reg) begin
            ra_left_reg <= ra_left_reg - 12'd1;
        end
    end
    ra_fly_reg <= ra_issue;
    if (rf_pop && st_reg == F_HDR) begin
        hdr_left_reg <= hdr_left_reg - hdr_chunk;
    end
    if (f_free) begin
        rd_slot_reg <= !rd_slot_reg;
    end
    case (st_reg)
        F_IDLE: begin
            if (m1_pop && !m1_drop) begin
                copy_reg     <= !m1_dec;
                p_len_reg    <= m1_len[15:0];
                p_sbytes_reg <= m1_sbytes;
                p_poff_reg   <= m1_poff[4:0];
                p_nleft_reg  <= m1_n;
                p_tail_reg   <= m1_tail;
                consumed_reg <= 16'd0;
                pad_bad_reg  <= 1'b0;
                hdr_left_reg <= m1_dec ? {8'd0, m1_poff} : m1_len[15:0];
                ra_on_reg    <= 1'b1;
                ra_unl_reg   <= m1_dec;
                ra_beat_reg  <= {SAW{1'b0}};
                ra_left_reg  <= m1_len_beats;
                st_reg       <= F_HDR;
            end
        end
        F_HDR: begin
            if (rf_pop && hdr_left_reg <= BYTES) begin
                if (copy_reg) begin
                    st_reg    <= F_IDLE;
                    ra_on_reg <= 1'b0;
                end else begin
                    // Stream phase: the reader goes on with the next beats.
                    skip_reg    <= p_poff_reg[4:0] + 5'd4;
                    st_reg      <= F_SKIP;
                end
            end
        end
        F_SKIP: begin
            if (bb_count >= {2'b00, skip_reg}) begin
                st_reg <= (p_nleft_reg == 14'd0) ? F_TAIL : F_GROUPS;
            end
        end
        F_GROUPS: begin
            if (du_valid) begin
                consumed_reg <= consumed_reg + {10'd0, du_gsize};
                if (!du_pad_ok) begin
                    pad_bad_reg <= 1'b1;
                end
                p_nleft_reg <= p_nleft_reg - {10'd0, du_nvalid};
                if (p_nleft_reg <= 14'd8) begin
                    st_reg <= F_TAIL;
                end
            end
        end
        F_TAIL: begin
            if (du_valid) begin
                ra_on_reg <= 1'b0;
                st_reg    <= eq_in ? F_REDO : F_IDLE;
            end
        end
        F_REDO: begin
            copy_reg     <= 1'b1;
            hdr_left_reg <= p_len_reg;
            ra_on_reg    <= 1'b1;
            ra_unl_reg   <= 1'b0;
            ra_beat_reg  <= {SAW{1'b0}};
            ra_left_reg  <= p_len_beats;
            st_reg       <= F_HDR;
        end
        default: begin
            st_reg <= F_IDLE;
        end
    endcase

    // ---- B ----
    stat_pend      <= 1'b0;
    fin_reg        <= 1'b0;
    disc_reg       <= 1'b0;
    bsum_valid_reg <= pk_valid;
    bsum_reg       <= beat_sum;
    if (bsum_valid_reg) begin
        csum_acc_reg <= csum_acc_reg + {12'd0, bsum_reg};
    end
    if (pk_valid) begin
        wbeat_reg <= wbeat_reg + 1'b1;
    end
    if (bq_pop) begin
        wbeat_reg <= {SAW{1'b0}};
        if (eq_out) begin
            disc_reg     <= 1'b1;
            csum_acc_reg <= 32'd0;
        end else begin
            fin_reg         <= 1'b1;
            fin_copy_reg    <= sq_copy;
            fin_outcome_reg <= sq_outcome;
            fin_reason_reg  <= sq_reason;
            fin_len_reg     <= sq_len;
            fin_out_len_reg <= sq_out_len;
            fin_ip_tot_reg  <= sq_ip_tot;
            fin_ip_csum_reg <= sq_ip_csum;
            fin_l3_reg      <= sq_l3;
            fin_l4_reg      <= sq_l4;
            fin_pseudo_reg  <= sq_pseudo;
            wr_slot_reg     <= !wr_slot_reg;
        end
    end
    if (fin_reg || disc_reg) begin
        csum_acc_reg <= 32'd0;
    end
    if (fin_reg) begin
        stat_pend <= 1'b1;
        stat_o    <= fin_outcome_reg;
        stat_r    <= fin_reason_reg;
        stat_bi   <= fin_len_reg;
        stat_bo   <= fin_copy_reg ? fin_len_reg : fin_out_len_reg;
    end else if (f_drop) begin
        stat_pend <= 1'b1;
        stat_o    <= m1_outcome;
        stat_r    <= m1_reason;
        stat_bi   <= m1_len[16] ? 16'hffff : m1_len[15:0];
        stat_bo   <= 16'd0;
    end
    b_cnt_reg    <= b_cnt_reg + {1'b0, m1_pop && !m1_drop} - {1'b0, fin_reg};
    out_used_reg <= out_used_reg + {1'b0, fin_reg} - {1'b0, out_free};

    if (rst) begin
        st_reg         <= F_IDLE;
        rd_slot_reg    <= 1'b0;
        wr_slot_reg    <= 1'b0;
        ra_on_reg      <= 1'b0;
        ra_fly_reg     <= 1'b0;
        stat_pend      <= 1'b0;
        fin_reg        <= 1'b0;
        disc_reg       <= 1'b0;
        bsum_valid_reg <= 1'b0;
        csum_acc_reg   <= 32'd0;
        wbeat_reg      <= {SAW{1'b0}};
        b_cnt_reg      <= 2'd0;
        out_used_reg   <= 2'd0;
    end
end

assign in_free = f_free;

always @(posedge clk) begin
    stat_valid     <= stat_pend;
    stat_outcome   <= stat_o;
    stat_reason    <= stat_r;
    stat_bytes_in  <= stat_bi;
    stat_bytes_out <= stat_bo;
    if (rst) begin
        stat_valid <= 1'b0;
    end
end

// Metadata FIFO 2: what stage 3 needs to read and patch an output slot.
localparam M2W = 1 + 16 + 16 + 16 + 16 + 8 + 8;
wire [M2W-1:0] m2_in = {!fin_copy_reg, fin_copy_reg ? fin_len_reg : fin_out_len_reg,
                        fin_ip_tot_reg, fin_ip_csum_reg, tcp_csum, fin_l3_reg, fin_l4_reg};
wire [M2W-1:0] m2_out;
wire           m2_valid;
reg            m2_pop;

/* verilator lint_off PINCONNECTEMPTY */
inc_decompress_fifo #(.WIDTH(M2W), .DEPTH(2)) m2_fifo (
    .clk(clk), .rst(rst),
    .in_data(m2_in), .in_valid(fin_reg), .in_ready(),
    .out_data(m2_out), .out_valid(m2_valid), .out_ready(m2_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

// ---------------------------------------------------------------------------
// Stage 3: output with header patches
// ---------------------------------------------------------------------------
reg           o_on_reg;
reg           o_slot_reg;
reg [SAW-1:0] o_beat_reg;
reg [11:0]    o_left_reg;
reg           o_patch_reg;
reg [4:0]     o_len_reg;          // frame length mod 32 (bytes of the last beat)
reg [15:0]    o_ip_tot_reg, o_ip_csum_reg, o_tcp_csum_reg;
reg [7:0]     o_l3_reg, o_l4_reg;
reg           o_fly_reg, o_fly_last_reg;
reg [SAW-1:0] o_fly_beat_reg;
reg [DATA_WIDTH-1:0] o_q_reg;
wire [2:0]    of_count;
reg           of_pop;

wire o_issue = o_on_reg && ({1'b0, of_count} + {3'd0, o_fly_reg} < 4'd3);
assign out_free = o_issue && o_left_reg == 12'd1;

always @(posedge clk) begin
    if (o_issue) begin
        o_q_reg <= ram_out[{o_slot_reg, o_beat_reg}];
    end
end

wire [15:0] m2_len       = m2_out[M2W-2 -: 16];
wire [11:0] m2_len_beats = {1'b0, m2_len[15:5]} + {11'd0, |m2_len[4:0]};

always @* begin
    m2_pop = !o_on_reg && m2_valid;
end

always @(posedge clk) begin
    o_fly_reg      <= o_issue;
    o_fly_last_reg <= o_issue && o_left_reg == 12'd1;
    o_fly_beat_reg <= o_beat_reg;
    if (m2_pop) begin
        o_on_reg       <= 1'b1;
        o_beat_reg     <= {SAW{1'b0}};
        o_left_reg     <= m2_len_beats;
        o_patch_reg    <= m2_out[M2W-1];
        o_len_reg      <= m2_out[M2W-13 -: 5];
        o_ip_tot_reg   <= m2_out[M2W-18 -: 16];
        o_ip_csum_reg  <= m2_out[M2W-34 -: 16];
        o_tcp_csum_reg <= m2_out[M2W-50 -: 16];
        o_l3_reg       <= m2_out[15:8];
        o_l4_reg       <= m2_out[7:0];
    end
    if (o_issue) begin
        o_beat_reg <= o_beat_reg + 1'b1;
        o_left_reg <= o_left_reg - 12'd1;
        if (o_left_reg == 12'd1) begin
            o_on_reg   <= 1'b0;
            o_slot_reg <= !o_slot_reg;
        end
    end
    if (rst) begin
        o_on_reg   <= 1'b0;
        o_slot_reg <= 1'b0;
        o_fly_reg  <= 1'b0;
    end
end

// Patch the landing beat: IP total (L3+2), protocol (L3+9), IP checksum
// (L3+10) and TCP checksum (L4+16) of a decompressed frame.
reg [DATA_WIDTH-1:0] o_patched;
reg [15:0]           o_boff;
reg [KW-1:0]         o_keep_bytes;

always @* begin
    o_patched = o_q_reg;
    for (i = 0; i < BYTES; i = i + 1) begin
        o_boff = {{(11-SAW){1'b0}}, o_fly_beat_reg, i[4:0]};
        if (o_patch_reg) begin
            if (o_boff == {8'd0, o_l3_reg} + 16'd2)  o_patched[8*i +: 8] = o_ip_tot_reg[15:8];
            if (o_boff == {8'd0, o_l3_reg} + 16'd3)  o_patched[8*i +: 8] = o_ip_tot_reg[7:0];
            if (o_boff == {8'd0, o_l3_reg} + 16'd9)  o_patched[8*i +: 8] = 8'd6;
            if (o_boff == {8'd0, o_l3_reg} + 16'd10) o_patched[8*i +: 8] = o_ip_csum_reg[15:8];
            if (o_boff == {8'd0, o_l3_reg} + 16'd11) o_patched[8*i +: 8] = o_ip_csum_reg[7:0];
            if (o_boff == {8'd0, o_l4_reg} + 16'd16) o_patched[8*i +: 8] = o_tcp_csum_reg[15:8];
            if (o_boff == {8'd0, o_l4_reg} + 16'd17) o_patched[8*i +: 8] = o_tcp_csum_reg[7:0];
        end
    end
    o_keep_bytes = (o_fly_last_reg && o_len_reg[4:0] != 5'd0) ? {1'b0, o_len_reg[4:0]}
                                                                : BYTES[KW-1:0];
end

wire [DATA_WIDTH+KW:0] of_in = {o_fly_last_reg, o_keep_bytes, o_patched};
wire [DATA_WIDTH+KW:0] of_out;
wire                   of_valid;

// Full/level outputs unused where the slot accounting bounds the entries.
/* verilator lint_off PINCONNECTEMPTY */
inc_decompress_fifo #(.WIDTH(DATA_WIDTH + KW + 1), .DEPTH(4)) of_fifo (
    .clk(clk), .rst(rst),
    .in_data(of_in), .in_valid(o_fly_reg), .in_ready(),
    .out_data(of_out), .out_valid(of_valid), .out_ready(of_pop), .count(of_count)
);
/* verilator lint_on PINCONNECTEMPTY */

always @* begin
    of_pop = m_axis_tready;
end

wire [KW-1:0] of_keep = of_out[DATA_WIDTH +: KW];

assign m_axis_tdata  = of_out[DATA_WIDTH-1:0];
assign m_axis_tkeep  = ~({BYTES{1'b1}} << of_keep);
assign m_axis_tvalid = of_valid;
assign m_axis_tlast  = of_out[DATA_WIDTH+KW];

endmodule

`resetall
