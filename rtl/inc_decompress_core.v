// SPDX-License-Identifier: MIT
/*
 * inc_decompress_core - the 256-bit receive engine: decompresses
 * marked frames (matching ToS + IP protocol 253) back to the original TCP
 * segment; every other frame passes unchanged. Byte-identical to
 * inc_frame_decompress() (sw-model/src/frame.c, docs/wire-format.md) with
 * cfg {tos_value, tos_mask, max_frame = MAX_FRAME}.
 *
 * Store-and-forward, in three stages. Every frame takes one of eight slots
 * at its first beat and keeps it until its last beat has been read out:
 * the same slot (named by its base address) in the input RAM (two banks:
 * even and odd beats) and in the output RAM.
 *
 *   s_axis -> [1 ingest] -> RAM_IN ------------------------------+
 *                 | header capture (160 B)     |                   |
 *                 | -> 3-cycle decision        | stream pairs      | header bytes,
 *                 v -> metadata FIFO 1 -> [2 L D W B] -> RAM_OUT | whole bypassed
 *                                               |        |         | frames
 *                                               v        v         v
 *                                         metadata FIFO 2 -> [3 output] -> m_axis
 *
 * 1 ingest: writes the frame into its input slot; inc_tos_matcher (RX = 1)
 *   parses the headers (checks 1-11 of docs/wire-format.md); the engine
 *   captures the first 160 bytes for the shim (the largest header + shim is
 *   18 + 60 + 60 + 6 = 144) and the addresses, and six cycles after the
 *   end of the frame decides in the model's order: oversize, disabled,
 *   checks 1-11, not_marked, bad_shim / old_version, and the part of
 *   bad_stream that needs no stream walk (payload - 6 < tail). The
 *   decision also sums the TCP header (with the carried checksum) and the
 *   pseudo-header for the check of the restored segment.
 * 2 decompress: only the payload of a frame to decompress passes this
 *   stage. A launcher reads its stream, two beats per cycle, into a
 *   prefetch FIFO; inc_group_walker finds its groups in a ring of four
 *   pairs and inc_decompress_unit decodes them, one group (8 values) per
 *   cycle, then the raw tail;
 *   inc_decompress_packer writes the values to the output slot from byte P
 *   on, where the payload is summed for the TCP checksum. If the stream
 *   does not occupy exactly payload - 6 - tail bytes, or a padding lane has
 *   a non-zero tag, the frame is malformed (bad_stream) and its input is
 *   sent unchanged; if the restored segment (pseudo-header, TCP header with
 *   the carried checksum, payload) does not sum to 0xffff, the frame is
 *   dropped (bad_payload_csum) and nothing is sent. The decoder starts the next frame in the cycle that
 *   ends the previous one, so a frame costs its groups plus two cycles.
 * 3 output: reads each beat from the input slot and, for a decompressed
 *   frame, from the output slot (bytes below P from the input: the header),
 *   patches IP total length, protocol and IP checksum, and streams it
 *   out through a register FIFO (tready is registered). Frames leave back
 *   to back.
 *
 * Frame length limits: a frame longer than MAX_FRAME is dropped (no output,
 * outcome dropped, reason oversize), also when the direction is disabled;
 * only its first MAX_FRAME bytes touch the slot. With cfg_enable = 0 every
 * other frame is passed unchanged with reason disabled.
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
 * group per cycle fills one 256-bit beat. inc_decompress_engine at 512 bits
 * is two of these cores on whole frames (docs/rtl.md, "DATA_WIDTH 512").
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "inc_regs.vh"

// Receive-side decompression engine (AXI4-Stream in and out).
module inc_decompress_core #(
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
localparam SAW       = ($clog2(SLOT_USED) < 2) ? 2 : $clog2(SLOT_USED); // beat address within a slot
localparam PAW       = SAW - 1;                           // beat-pair count within a slot
localparam NSLOT     = 8;                                 // frame slots
localparam SLOT_BEATS = 2 * ((SLOT_USED + 1) / 2);        // slot stride in beats (even)
localparam AW        = $clog2(NSLOT * SLOT_BEATS);        // beat address in a frame RAM
localparam [AW-1:0] SLOT_BEATS_A = SLOT_BEATS[AW-1:0];
localparam LAST_BASE  = (NSLOT - 1) * SLOT_BEATS;
localparam [AW-1:0] LAST_BASE_A  = LAST_BASE[AW-1:0];
localparam HDR_BYTES = 160;
localparam [15:0] SHIM16 = 16'd6;                 // shim bytes (INC_WIRE_SHIM_BYTES)
localparam [8:0]  SHIM9  = 9'd6;
localparam [5:0]  SHIM6  = 6'd6;
localparam HDR_BEATS = (HDR_BYTES + BYTES - 1) / BYTES;
localparam [11:0] SLOT_USED12 = SLOT_USED[11:0];
localparam [17:0] MAX_FRAME18 = MAX_FRAME[17:0];

initial begin
    if (DATA_WIDTH != 256) begin
        $error("inc_decompress_core: DATA_WIDTH must be 256 (one 8-value group per beat)");
        $finish;
    end
    if (MAX_FRAME < 64 || MAX_FRAME > 65535) begin
        $error("inc_decompress_core: MAX_FRAME must be in 64..65535");
        $finish;
    end
end

localparam [2:0] OUT_BYPASS = `INC_OUT_BYPASS, OUT_DECOMPRESSED = `INC_OUT_DECOMPRESSED,
                 OUT_MALFORMED = `INC_OUT_MALFORMED, OUT_DROPPED = `INC_OUT_DROPPED;
localparam [4:0] R_NONE = `INC_R_NONE, R_NOT_MARKED = `INC_R_NOT_MARKED,
                 R_BAD_SHIM = `INC_R_BAD_SHIM, R_BAD_STREAM = `INC_R_BAD_STREAM,
                 R_OVERSIZE = `INC_R_OVERSIZE, R_DISABLED = `INC_R_DISABLED,
                 R_OLD_VERSION = `INC_R_OLD_VERSION,
                 R_BAD_PAYLOAD_CSUM = `INC_R_BAD_PAYLOAD_CSUM;

integer i;

// ---------------------------------------------------------------------------
// Frame slot RAMs, eight slots of SLOT_BEATS beats each (282 for 9018-byte
// frames). A frame keeps the same slot in both from ingest to the end of
// its output, named by its base: the address of its first beat, slot *
// SLOT_BEATS, carried in the metadata. The input RAM is two banks (even
// and odd beats, address = beat address / 2) so that the stream reader
// takes two beats per cycle; the output RAM is addressed by beat.
// ---------------------------------------------------------------------------
// Each bank of the input RAM is read at two addresses in a cycle (stream
// reader, output stage): two inc_ram instances written alike, as synthesis
// would duplicate one RAM with two read ports.

// ---------------------------------------------------------------------------
// Stage 1: ingest
// ---------------------------------------------------------------------------
reg                    in_frame_reg;   // inside a frame
reg  [AW-1:0]          in_base_reg;    // base of the slot of the frame being received
reg  [3:0]             in_used_reg;    // slots allocated and not yet freed by stage 3
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]             used_p1 = inc_lsum({4'd0, in_used_reg}, 8'd1);
wire [7:0]             used_m1 = inc_lsub({4'd0, in_used_reg}, 8'd1);
wire [7:0]             used_m2 = inc_lsub({4'd0, in_used_reg}, 8'd2);
/* verilator lint_on UNUSEDSIGNAL */
reg  [16:0]            in_len_reg;     // bytes of the frame's beats before the last two, saturating
reg  [KW-1:0]          in_kc_reg;      // bytes of the beat taken last cycle if it was not a last beat
reg  [AW-2:0]          in_pair_reg;    // input RAM pair of beat in_beat_reg
reg                    in_room_reg;    // in_beat_reg < SLOT_USED: the beat is stored
reg  [11:0]            in_beat_reg;    // beat index, saturating
reg  [8*HDR_BYTES-1:0] hdr_reg;
reg                    en_reg;

wire       in_free_end, in_free_empty; // slots stage 3 releases this cycle (0..2)
wire in_take = s_axis_tvalid && s_axis_tready;

assign s_axis_tready = in_frame_reg || in_used_reg != NSLOT[3:0];

// A byte count plus a beat's bytes, saturating at 2^17 - 1.
function [16:0] inc_len_add;
    input [16:0]   len;
    input [KW-1:0] bytes;
    reg   [17:0]   sum;
    begin
        sum = {1'b0, len} + {{(18-KW){1'b0}}, bytes};
        inc_len_add = sum[17] ? 17'h1ffff : sum[16:0];
    end
endfunction

reg [KW-1:0]           keep_bytes;     // tkeep is contiguous from lane 0
/* verilator lint_off UNUSEDSIGNAL */
wire [6:0]             keep_count7 = inc_keep_count({{(64-BYTES){1'b0}}, s_axis_tkeep});
/* verilator lint_on UNUSEDSIGNAL */
reg [8*HDR_BYTES-1:0]  hdr_next;

always @* begin
    keep_bytes = keep_count7[KW-1:0];
    hdr_next = hdr_reg;
    for (i = 0; i < HDR_BEATS; i = i + 1) begin
        if ((in_frame_reg ? in_beat_reg : 12'd0) == i[11:0]) begin
            hdr_next[DATA_WIDTH*i +: DATA_WIDTH] = s_axis_tdata;
        end
    end
end

wire [11:0] in_beat_cur = in_frame_reg ? in_beat_reg : 12'd0;
// The base is even: the pair address is base / 2 + beat / 2, kept as a
// register stepped on odd beats.
wire [AW-2:0] in_pair    = in_frame_reg ? in_pair_reg : in_base_reg[AW-1:1];
wire [11:0]   in_beat_nx = (in_beat_cur == 12'hfff) ? 12'hfff : in_beat_cur + 12'd1;

wire in_store = in_take && (!in_frame_reg || in_room_reg);
wire ie_we    = in_store && !in_beat_cur[0];   // even beats
wire io_we    = in_store && in_beat_cur[0];    // odd beats

// Decision pipeline registers.
reg                    d1_valid_reg;
reg  [8*HDR_BYTES-1:0] d1_hdr_reg;
reg  [16:0]            d1_len_reg;     // bytes of the beats before the last
reg  [KW-1:0]          d1_klast_reg;   // bytes of the last beat
reg                    d1_en_reg;
reg  [AW-1:0]          d1_base_reg;

always @(posedge clk) begin
    d1_valid_reg <= 1'b0;
    if (in_take) begin
        hdr_reg    <= hdr_next;
        in_beat_reg <= in_beat_nx;
        // in_beat_nx < SLOT_USED12, without the increment
        in_room_reg <= in_frame_reg ? in_beat_reg < SLOT_USED12 - 12'd1 : SLOT_USED12 > 12'd1;
        in_pair_reg <= in_pair + {{(AW-2){1'b0}}, in_beat_cur[0]};
        if (!in_frame_reg) begin
            in_frame_reg <= 1'b1;
            en_reg   <= cfg_enable;
        end
        if (s_axis_tlast) begin
            in_frame_reg <= 1'b0;
            in_base_reg  <= (in_base_reg == LAST_BASE_A) ? {AW{1'b0}} : in_base_reg + SLOT_BEATS_A;
            d1_valid_reg <= 1'b1;
            d1_hdr_reg   <= hdr_next;
            d1_len_reg   <= inc_len_add(in_len_reg, in_kc_reg);
            d1_klast_reg <= keep_bytes;
            d1_en_reg    <= in_frame_reg ? en_reg : cfg_enable;
            d1_base_reg  <= in_base_reg;
        end
    end
    // The byte count lags the beats by two cycles (a beat's keep count is
    // registered, then added): the last beat's d1 entry takes the sum so
    // far, the count of the beat before it and its own, added in x1.
    in_kc_reg  <= (in_take && !s_axis_tlast) ? keep_bytes : {KW{1'b0}};
    in_len_reg <= (in_take && s_axis_tlast) ? 17'd0 : inc_len_add(in_len_reg, in_kc_reg);
    // +1 .. -2 formed from the register as gates; the take and the late
    // releases only select
    case ({in_take && !in_frame_reg, in_free_end, in_free_empty})
        3'b100:                 in_used_reg <= used_p1[3:0];
        3'b010, 3'b001, 3'b111: in_used_reg <= used_m1[3:0];
        3'b011:                 in_used_reg <= used_m2[3:0];
        default: begin
        end
    endcase
    if (rst) begin
        in_kc_reg    <= {KW{1'b0}};
        in_len_reg   <= 17'd0;
        in_frame_reg <= 1'b0;
        in_base_reg  <= {AW{1'b0}};
        in_used_reg  <= 4'd0;
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
`include "inc_lsum.vh"

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

// Five register stages from the captured header (d1) to the decision's
// inputs (x), in step with the matcher's result (m_done six cycles after
// the tlast beat; d1 is the cycle after it):
//   x1  VLAN, IHL, data offset, the four address words; the header copied
//   x2  IHL + data offset, the shim (P .. P + 5), the TCP header words
//       (L4 .. P, the carried checksum field included) masked out of the
//       header; the address words added in pairs
//   x3, x4  the TCP header words summed by one's-complement carry-save
//       levels (inc_csum_csa): the sum only feeds a folded checksum; the
//       address sum completed in x3
//   x   the two words added with the end-around carry
// L4 and P are even, so the 16-bit words are those at even offsets; they
// lie in bytes 34 .. 137 (words TW0 .. TW0 + TWN - 1).
localparam TW0 = 17, TWN = 52;

wire        x_vlan  = {hb(d1_hdr_reg, 8'd12), hb(d1_hdr_reg, 8'd13)} == 16'h8100;
/* verilator lint_off UNUSEDSIGNAL */ // the IHL nibbles; data offset bytes: the high nibble
wire [7:0]  x_vihl_n = hb(d1_hdr_reg, 8'd14), x_vihl_v = hb(d1_hdr_reg, 8'd18);
reg  [7:0]  x_db, x_dsum;
/* verilator lint_on UNUSEDSIGNAL */
wire [3:0]  x_ihl_n = x_vihl_n[3:0], x_ihl_v = x_vihl_v[3:0];
wire [3:0]  x_ihl   = x_vlan ? x_ihl_v : x_ihl_n;
// For each IHL (index) and both layouts: the data offset (L4 + 12; none
// below IHL 5) and IHL + data offset. The IHL and the tag choose last.
reg  [63:0] x_dcand_n, x_dcand_v;
reg  [79:0] x_hcand_n, x_hcand_v;
reg  [63:0] x_addr_words;   // source and destination address, four words

always @* begin
    x_db   = 8'd0;
    x_dsum = 8'd0;
    for (i = 0; i < 16; i = i + 1) begin
        x_db   = ipb(d1_hdr_reg, 1'b0, 8'd12 + 4 * i[7:0]);
        x_dcand_n[4*i +: 4] = i < 5 ? 4'd0 : x_db[7:4];
        x_dsum = inc_lsum({4'd0, x_dcand_n[4*i +: 4]}, i[7:0]);
        x_hcand_n[5*i +: 5] = x_dsum[4:0];
        x_db   = ipb(d1_hdr_reg, 1'b1, 8'd12 + 4 * i[7:0]);
        x_dcand_v[4*i +: 4] = i < 5 ? 4'd0 : x_db[7:4];
        x_dsum = inc_lsum({4'd0, x_dcand_v[4*i +: 4]}, i[7:0]);
        x_hcand_v[5*i +: 5] = x_dsum[4:0];
    end
    // source and destination addresses (L3 + 12 .. L3 + 19)
    for (i = 6; i < 10; i = i + 1) begin
        x_addr_words[16*(i-6) +: 16] = {ipb(d1_hdr_reg, x_vlan, 2 * i[7:0]),
                                        ipb(d1_hdr_reg, x_vlan, 2 * i[7:0] + 8'd1)};
    end
end

reg                   x1_valid_reg = 1'b0, x1_en_reg = 1'b0, x1_vlan_reg = 1'b0;
reg [3:0]             x1_doff_reg = 0;
reg [4:0]             x1_hsum_reg = 0;    // IHL + data offset
reg [16:0]            x1_len_reg = 0;
reg [63:0]            x1_addr_reg = 0;
reg [AW-1:0]          x1_base_reg = 0;
reg [8*HDR_BYTES-1:0] x1_hdr_reg = 0;
// bit c: L4 / 2 > c (L4 / 2 = 7 + 2 IHL, 9 with a VLAN tag), for the word
// mask of x2 (a word at 2c is in the TCP header when c >= L4 / 2 and
// c - 2 * data offset < L4 / 2)
reg [TW0+TWN-1:0]     x1_gt_reg = 0;
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]            x_l4w = inc_lsum(x_vlan ? 8'd9 : 8'd7, {3'd0, x_ihl, 1'b0});
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    x1_valid_reg    <= d1_valid_reg;
    x1_en_reg       <= d1_en_reg;
    x1_vlan_reg     <= x_vlan;
    x1_hsum_reg     <= x_vlan ? x_hcand_v[5*x_ihl_v +: 5] : x_hcand_n[5*x_ihl_n +: 5];
    x1_doff_reg     <= x_vlan ? x_dcand_v[4*x_ihl_v +: 4] : x_dcand_n[4*x_ihl_n +: 4];
    x1_len_reg      <= inc_len_add(d1_len_reg, d1_klast_reg);
    x1_addr_reg     <= x_addr_words;
    x1_base_reg     <= d1_base_reg;
    x1_hdr_reg      <= d1_hdr_reg;
    for (i = 0; i < TW0 + TWN; i = i + 1) begin
        x1_gt_reg[i] <= !inc_lge(i[7:0], x_l4w);
    end
    if (rst)
        x1_valid_reg <= 1'b0;
end

// x2: P = L3 + 4 * (IHL + data offset); the shim; the masked TCP header words
/* verilator lint_off UNUSEDSIGNAL */
integer           dv;               // a data offset value
/* verilator lint_on UNUSEDSIGNAL */
reg               x_before_p;
reg  [47:0]       x_shim;
reg  [16*TWN-1:0] x_tcph_words;

always @* begin
    // the shim's byte select by IHL + data offset (x1), the word mask from
    // x1's thresholds
    x_shim = 48'd0;
    for (i = 0; i < 31; i = i + 1) begin
        if (x1_hsum_reg == i[4:0]) begin
            x_shim = {ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0]), ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0] + 8'd1),
                      ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0] + 8'd2), ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0] + 8'd3),
                      ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0] + 8'd4), ipb(x1_hdr_reg, x1_vlan_reg, 4 * i[7:0] + 8'd5)};
        end
    end
    // word TW0 + i: at or past L4, and before P = L4 + 4 * data offset
    // (L4 / 2 > TW0 + i - 2 * data offset: x1_gt_reg selected by the data
    // offset, 1 where the index is negative)
    for (i = 0; i < TWN; i = i + 1) begin
        x_before_p = 1'b0;
        for (dv = 0; dv < 16; dv = dv + 1) begin
            if (x1_doff_reg == dv[3:0]) begin
                x_before_p = TW0 + i < 2 * dv || x1_gt_reg[TW0 + i < 2 * dv ? 0 : TW0 + i - 2 * dv];
            end
        end
        // an AND, not a select with 0: synthesis then keeps the mask on
        // the flip-flops' D input (a select with 0 becomes their
        // synchronous reset, whose setup time is longer)
        x_tcph_words[16*i +: 16] = {16{!x1_gt_reg[TW0 + i] && x_before_p}} &
            {x1_hdr_reg[16*(TW0 + i) +: 8], x1_hdr_reg[16*(TW0 + i) + 8 +: 8]};
    end
end

reg               x2_valid_reg = 1'b0, x2_en_reg = 1'b0;
reg [16:0]        x2_len_reg = 0;
reg [47:0]        x2_shim_reg = 0;
reg [33:0]        x2_addr_reg = 0;    // the address words summed in pairs
reg [AW-1:0]      x2_base_reg = 0;
reg [16*TWN-1:0]  x2_tcph_reg = 0;

always @(posedge clk) begin
    x2_valid_reg    <= x1_valid_reg;
    x2_en_reg       <= x1_en_reg;
    x2_len_reg      <= x1_len_reg;
    x2_shim_reg     <= x_shim;
    x2_addr_reg     <= {{1'b0, x1_addr_reg[63:48]} + {1'b0, x1_addr_reg[47:32]},
                        {1'b0, x1_addr_reg[31:16]} + {1'b0, x1_addr_reg[15:0]}};
    x2_base_reg     <= x1_base_reg;
    x2_tcph_reg     <= x_tcph_words;
    if (rst)
        x2_valid_reg <= 1'b0;
end

// x3, x4: carry-save levels (52 words -> 8 -> 2)
localparam XDW = 1 + 17 + 48 + 18 + AW;
wire [16*TWN-1:0] tcph_csa3;
wire [16*8-1:0]   tcph_csa4;
inc_csum_csa #(.N(TWN), .LEVELS(5)) tcph_csa_a (.in_words(x2_tcph_reg), .out_words(tcph_csa3));

reg           x3_valid_reg = 1'b0, x4_valid_reg = 1'b0, x5_valid_reg = 1'b0;
reg [XDW-1:0] x3_reg = 0, x4_reg = 0, x5_reg = 0;
reg [16*8-1:0] x3_tcph_reg = 0;
reg [31:0]    x4_tcph_reg = 0;
reg [15:0]    x5_tcph_reg = 0;

inc_csum_csa #(.N(8), .LEVELS(4)) tcph_csa_b (.in_words(x3_tcph_reg), .out_words(tcph_csa4));
/* verilator lint_off UNUSEDSIGNAL */ // zero above the reductions' last words
wire unused_csa = &{1'b0, tcph_csa3[16*TWN-1:16*8], tcph_csa4[16*8-1:32]};
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    x3_valid_reg <= x2_valid_reg;
    x3_reg       <= {x2_en_reg, x2_len_reg, x2_shim_reg,
                     {1'b0, x2_addr_reg[33:17]} + {1'b0, x2_addr_reg[16:0]}, x2_base_reg};
    x3_tcph_reg  <= tcph_csa3[16*8-1:0];
    x4_valid_reg <= x3_valid_reg;
    // (the address sum + 6, the pseudo-header's protocol)
    x4_reg       <= {x3_reg[XDW-1:AW+18], x3_reg[AW +: 18] + 18'd6, x3_reg[AW-1:0]};
    x4_tcph_reg  <= tcph_csa4[31:0];
    x5_valid_reg <= x4_valid_reg;
    x5_reg       <= x4_reg;
    x5_tcph_reg  <= ones_add(x4_tcph_reg[15:0], x4_tcph_reg[31:16]);
    if (rst) begin
        x3_valid_reg <= 1'b0;
        x4_valid_reg <= 1'b0;
        x5_valid_reg <= 1'b0;
        // (also keeps x5_reg flip-flops rather than a shift register with
        // x4_reg, whose clock to out would sit in front of Y1's adders)
        x5_reg       <= {XDW{1'b0}};
    end
end

wire          x_valid_reg = x5_valid_reg;
wire          x_en_reg;
wire [16:0]   x_len_reg;
wire [47:0]   x_shim_reg;
wire [17:0]   x_sum6_reg;       // the address words' sum + 6
wire [AW-1:0] x_base_reg;
wire [15:0]   x_tcph_sum_reg = x5_tcph_reg;
assign {x_en_reg, x_len_reg, x_shim_reg, x_sum6_reg, x_base_reg} = x5_reg;

// ---------------------------------------------------------------------------
// Decision, cycle 2: the checks in the model's order -> metadata FIFO 1.
// inc_tos_matcher (RX = 1) gives checks 1-11 and the parsed header in the
// same cycle as x_valid_reg (m_done; a simulation check below watches it).
// ---------------------------------------------------------------------------
/* verilator lint_off UNUSEDSIGNAL */ // parts of the parse the engine does not need
wire        mt_done, mt_vlan;
wire [4:0]  mt_reason;
wire [15:0] mt_frame_len, mt_ip_total, mt_payload_len, mt_csum_rest;
wire [7:0]  mt_l3, mt_hdr_len, mt_tcp_hlen, mt_payload_off, mt_proto, mt_tos, mt_ttl;
/* verilator lint_on UNUSEDSIGNAL */

/* verilator lint_off PINCONNECTEMPTY */ // the live view is not used
inc_tos_matcher #(.DATA_WIDTH(DATA_WIDTH), .RX(1)) matcher (
    .clk(clk), .rst(rst),
    .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_beat(in_take), .s_tlast(s_axis_tlast),
    .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(), .cur_hdr_ok(), .cur_vlan(), .cur_l3_off(), .cur_ip_hlen(), .cur_tcp_hlen(),
    .cur_ip_total(), .cur_payload_off(), .cur_payload_len(),
    .m_done(mt_done), .m_reason(mt_reason), .m_frame_len(mt_frame_len), .m_vlan(mt_vlan),
    .m_l3_off(mt_l3), .m_ip_hlen(), .m_tcp_hlen(mt_tcp_hlen), .m_hdr_len(mt_hdr_len),
    .m_ip_total(mt_ip_total), .m_payload_off(mt_payload_off), .m_payload_len(mt_payload_len),
    .m_proto(mt_proto), .m_tos(mt_tos), .m_ttl(mt_ttl), .m_csum_rest(mt_csum_rest)
);
/* verilator lint_on PINCONNECTEMPTY */

`ifndef SYNTHESIS
always @(posedge clk) begin
    if (!rst && mt_done != x_valid_reg) begin
        $display("inc_decompress_core: matcher result out of step with the decision pipeline");
        $stop;
    end
end
`endif
`ifdef FORMAL
// the simulation check above, as an assertion (formal/)
always @(posedge clk) begin
    if (!rst)
        assert(mt_done == x_valid_reg);
end
`endif

// Stage Y1 (with the matcher's snapshot): the sums, one adder deep.
wire [15:0] x_orig_reg  = x_shim_reg[31:16];    // the original payload length
reg         y1_valid_reg = 1'b0, y1_en_reg = 1'b0, y1_vlan_reg = 1'b0, y1_oversize_reg = 1'b0;
reg         y1_short_reg = 1'b0, y1_magic_ok_reg = 1'b0, y1_v1_reg = 1'b0, y1_v2_reg = 1'b0, y1_marked_reg = 1'b0;
reg  [4:0]  y1_reason_reg = 0;
reg  [16:0] y1_len_reg = 0, y1_orig_tot_reg = 0, y1_tl_reg = 0;
reg  [7:0]  y1_l3_reg = 0, y1_poff_reg = 0;
reg  [7:0]  y1_pet_reg = 0;    // (P + 6) mod 64 (where the groups start in the first
                               // pair) - tail bytes, two's complement
reg  [15:0] y1_avail_reg = 0, y1_orig_reg = 0, y1_tsum_reg = 0, y1_pre_ck_reg = 0;
reg  [23:0] y1_part_reg = 0;
reg  [AW-1:0] y1_base_reg = 0;
reg  [PAW:0]  y1_pair_hi_reg = 0;
reg  [2:0]    y1_sst_reg = 0;
reg  [PAW:0]  y1_sst1n_reg = 0;     // 1 - y1_sst_reg
/* verilator lint_off UNUSEDSIGNAL */ // pair numbers fit PAW + 1 bits
wire [16:0]   y1_len_m1 = x_len_reg - 17'd1;
wire [8:0]    y1_sstart = {1'b0, mt_payload_off} + SHIM9;     // first stream byte, P + 6
wire [7:0]    y1_sst1n8 = inc_lsub(8'd1, {5'd0, y1_sstart[8:6]});
wire [15:0]   y1_sst1n16 = {{8{y1_sst1n8[7]}}, y1_sst1n8};
/* verilator lint_on UNUSEDSIGNAL */

/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] y_pe8 = inc_lsum({2'b00, mt_payload_off[5:0]}, {2'b00, SHIM6});   // mod 64 below
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    y1_valid_reg    <= x_valid_reg;
    y1_en_reg       <= x_en_reg;
    y1_vlan_reg     <= mt_vlan;
    y1_len_reg      <= x_len_reg;
    y1_oversize_reg <= {1'b0, x_len_reg} > MAX_FRAME18;
    y1_reason_reg   <= mt_reason;
    y1_marked_reg   <= mt_proto == 8'd253;
    y1_short_reg    <= mt_payload_len < SHIM16;
    y1_magic_ok_reg <= x_shim_reg[47:40] == 8'h49;
    y1_v1_reg       <= x_shim_reg[39:32] == 8'h01;
    y1_v2_reg       <= x_shim_reg[39:32] == 8'h02;
    y1_l3_reg       <= mt_l3;
    y1_poff_reg     <= mt_payload_off;
    y1_pet_reg      <= inc_lsub({2'b00, y_pe8[5:0]}, {6'd0, x_orig_reg[1:0]});
    y1_orig_reg     <= x_orig_reg;
    y1_tsum_reg     <= x_shim_reg[15:0];        // the shim's tag-word sum
    // restored IP total length IHL*4 + THL + original payload length
    y1_orig_tot_reg <= {9'd0, mt_hdr_len} + {1'b0, x_orig_reg};
    // TCP length (the restored total less the IP header)
    y1_tl_reg       <= {9'd0, mt_tcp_hlen} + {1'b0, x_orig_reg};
    y1_avail_reg    <= mt_payload_len - SHIM16;
    // new IP checksum ~fold(rest + total + TTL:6): the constant part here
    y1_pre_ck_reg   <= ones_add(mt_csum_rest, {mt_ttl, 8'd6});
    // the pseudo-header (addresses, protocol 6: x_sum6_reg) and the TCP
    // header words
    y1_part_reg     <= {6'd0, x_sum6_reg} + {8'd0, x_tcph_sum_reg};
    y1_base_reg     <= x_base_reg;
    // the launcher's pairs: the last (the frame's last beat / 2) and the
    // one holding P + 6
    y1_pair_hi_reg  <= y1_len_m1[PAW+6:6];
    y1_sst_reg      <= y1_sstart[8:6];
    y1_sst1n_reg    <= y1_sst1n16[PAW:0];
    if (rst) begin
        y1_valid_reg <= 1'b0;
        // (also keeps y1_tl_reg flip-flops: its low bits are copies of the
        // length's, which synthesis would otherwise fold into a shift
        // register with their copies before)
        y1_tl_reg    <= 17'd0;
    end
end

// Stage Y2: the decision in the model's order and the checksums, pushed
// into metadata FIFO 1.
wire [1:0]  y_tail    = y1_orig_reg[1:0];
// restored frame longer than MAX_FRAME: L3 + total > MAX_FRAME
// (compares with constants as gates, a few LUT levels; the tag chooses)
wire        y_too_big = y1_orig_tot_reg[16] ||
                        !inc_lge16(y1_vlan_reg ? MAX_FRAME18[15:0] - 16'd18 : MAX_FRAME18[15:0] - 16'd14,
                                   y1_orig_tot_reg[15:0]);

// The checks up to the version are decided from registers (pre_*); the
// size compare, the late input, only chooses at the end.
reg [2:0] pre_outcome, big_outcome, ok_outcome;
reg [4:0] pre_reason, big_reason, ok_reason;
reg       ok_dec, pre_open;         // pre_open: no verdict before the size checks
// stream bytes < tail bytes (a function of the tail and the low bits)
wire      y_short_stream = y1_avail_reg[15:2] == 14'd0 &&
                           ((!y1_avail_reg[1] && y_tail[1]) ||
                            (y1_avail_reg[1] == y_tail[1] && !y1_avail_reg[0] && y_tail[0]));

always @* begin
    pre_outcome = OUT_BYPASS;
    pre_reason  = R_NONE;
    pre_open    = 1'b0;
    if (y1_oversize_reg) begin
        pre_outcome = OUT_DROPPED;
        pre_reason  = R_OVERSIZE;
    end else if (!y1_en_reg) begin
        pre_reason = R_DISABLED;
    end else if (y1_reason_reg != R_NONE) begin         // checks 1-11
        pre_reason = y1_reason_reg;
    end else if (!y1_marked_reg) begin
        pre_reason = R_NOT_MARKED;
    end else if (y1_short_reg || !y1_magic_ok_reg) begin
        pre_outcome = OUT_MALFORMED;
        pre_reason  = R_BAD_SHIM;
    end else if (y1_v1_reg) begin                       // version 1: refused
        pre_outcome = OUT_MALFORMED;
        pre_reason  = R_OLD_VERSION;
    end else if (!y1_v2_reg) begin
        pre_outcome = OUT_MALFORMED;
        pre_reason  = R_BAD_SHIM;
    end else begin
        pre_open = 1'b1;
    end
    // without and with a restored frame that is too long; y_too_big chooses
    big_outcome = pre_outcome;
    big_reason  = pre_reason;
    ok_outcome  = pre_outcome;
    ok_reason   = pre_reason;
    ok_dec      = 1'b0;
    if (pre_open) begin
        big_outcome = OUT_MALFORMED;
        big_reason  = R_BAD_SHIM;
        if (y_short_stream) begin
            ok_outcome = OUT_MALFORMED;
            ok_reason  = R_BAD_STREAM;
        end else begin
            ok_outcome = OUT_DECOMPRESSED;
            ok_dec     = 1'b1;
        end
    end
end

wire [2:0] y_outcome = y_too_big ? big_outcome : ok_outcome;
wire [4:0] y_reason  = y_too_big ? big_reason : ok_reason;
wire       y_dec     = !y_too_big && ok_dec;

// The launcher reads from the pair holding P + 6; a frame that ends
// exactly at P + 6 (no stream byte) on a pair boundary reads its last pair
// instead (y_sst_past). Its first pair and pair count for both cases, in
// parallel from registers; the compare (as gates) chooses.
// (sst <= 2 fits PAW + 1 >= 2 bits; widened first, then cut, so that no
// replication count goes below 1 at small MAX_FRAME: PAW is 1 up to 128)
/* verilator lint_off UNUSEDSIGNAL */ // the widening's high bits
wire [PAW+3:0] y_sst_w  = {{(PAW+1){1'b0}}, y1_sst_reg};
/* verilator lint_on UNUSEDSIGNAL */
wire [PAW:0] y_sst      = y_sst_w[PAW:0];
wire         y_sst_past = !inc_lge16({{(15-PAW){1'b0}}, y1_pair_hi_reg}, {{(15-PAW){1'b0}}, y_sst});
// (base + sst as gates: synthesis would otherwise share one adder between
// the two candidates, behind their select)
function [AW-2:0] y_add3;
    input [AW-2:0] a;
    input [2:0]    b;
    reg            c, bj;
    integer        j;
    begin
        c = 1'b0;
        for (j = 0; j < AW - 1; j = j + 1) begin
            bj        = j < 3 ? b[j % 3] : 1'b0;
            y_add3[j] = a[j] ^ bj ^ c;
            c         = (a[j] & bj) | (c & (a[j] ^ bj));
        end
    end
endfunction
wire [AW-2:0] y_lpair_hi  = y1_base_reg[AW-1:1] + {{(AW-1-PAW){1'b0}}, y1_pair_hi_reg[PAW-1:0]};
wire [AW-2:0] y_lpair_sst = y_add3(y1_base_reg[AW-1:1], y1_sst_reg);
wire [PAW:0]  y_lleft_sst = y1_pair_hi_reg + y1_sst1n_reg;    // pair_hi - sst + 1
localparam LW  = (AW - 1) + (PAW + 1);    // the launcher's first pair and pair count
localparam M1W = 1 + 1 + 3 + 5 + 17 + 8 + 8 + 14 + 2 + 16 + 16 + 16 + 16 + 24 + 16 + AW + LW + 17;
reg            y2_valid_reg = 1'b0;
reg  [M1W-1:0] y2_m1_reg = 0;

// Metadata FIFO 1 entry (y2_m1_reg).
always @(posedge clk) begin
    y2_valid_reg <= y1_valid_reg;
    y2_m1_reg    <= {y_outcome == OUT_DROPPED, y_dec, y_outcome, y_reason,
                     {1'b0, y1_len_reg[16] ? 16'hffff : y1_len_reg[15:0]},   // saturated
                     y1_l3_reg, y1_poff_reg, y1_orig_reg[15:2], y_tail,
                     y1_avail_reg - {14'd0, y_tail},
                     {8'd0, y1_l3_reg} + y1_orig_tot_reg[15:0],          // output length
                     y1_orig_tot_reg[15:0],
                     ~ones_add(y1_pre_ck_reg, y1_orig_tot_reg[15:0]),     // new IP checksum
                     y1_part_reg + {7'd0, y1_tl_reg},                     // pseudo-header + TCP header
                     y1_tsum_reg, y1_base_reg,
                     y_sst_past ? y_lpair_hi : y_lpair_sst,
                     y_sst_past ? {{PAW{1'b0}}, 1'b1} : y_lleft_sst,
                     // the end of the groups in bytes from the first pair:
                     // (P + 6) mod 64 + stream bytes
                     {1'b0, y1_avail_reg} + {{9{y1_pet_reg[7]}}, y1_pet_reg}};
    if (rst)
        y2_valid_reg <= 1'b0;
end
wire [M1W-1:0] m1_out;
wire           m1_valid;
reg            m1_pop;

// Full/level outputs unused where the slot accounting bounds the entries
// (every FIFO below holds at most one entry per slot).
/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(M1W), .DEPTH(8)) m1_fifo (
    .clk(clk), .rst(rst),
    .in_data(y2_m1_reg), .in_valid(y2_valid_reg), .in_ready(),
    .out_data(m1_out), .out_valid(m1_valid), .out_ready(m1_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

wire        m1_drop    = m1_out[M1W-1];
wire        m1_dec     = m1_out[M1W-2];
wire [2:0]  m1_outcome = m1_out[M1W-3 -: 3];
wire [4:0]  m1_reason  = m1_out[M1W-6 -: 5];
/* verilator lint_off UNUSEDSIGNAL */
wire [16:0] m1_len     = m1_out[M1W-11 -: 17];   // bit 16 is 0
/* verilator lint_on UNUSEDSIGNAL */
wire [7:0]  m1_l3      = m1_out[M1W-28 -: 8];
wire [7:0]  m1_poff    = m1_out[M1W-36 -: 8];
wire [13:0] m1_n       = m1_out[M1W-44 -: 14];
wire [1:0]  m1_tail    = m1_out[M1W-58 -: 2];
wire [15:0] m1_sbytes  = m1_out[M1W-60 -: 16];
wire [15:0] m1_out_len = m1_out[M1W-76 -: 16];
wire [15:0] m1_ip_tot  = m1_out[M1W-92 -: 16];
wire [15:0] m1_ip_csum = m1_out[M1W-108 -: 16];
wire [23:0] m1_pseudo  = m1_out[17 + LW + AW + 16 +: 24];
wire [15:0] m1_tsum    = m1_out[17 + LW + AW +: 16];
wire [AW-1:0] m1_base  = m1_out[17 + LW +: AW];
wire [AW-2:0] m1_lpair = m1_out[17 + PAW + 1 +: AW - 1];  // the launcher's first pair
wire [PAW:0]  m1_lleft = m1_out[17 +: PAW + 1];         // and its pair count
wire [16:0]   m1_gend  = m1_out[16:0];                 // end of the groups (y2)

// ---------------------------------------------------------------------------
// Stage 2: decompress
//
// Only the payload of a frame to decompress passes stage 2; its header and
// every bypassed or malformed frame are read by stage 3 straight from the
// input slot. Four parts, each keeping frame order:
//  L launcher: takes metadata FIFO 1; queues every frame for B (start
//    queue); for a frame to decompress also queues the decoder's and the
//    writer's parameters and reads the input slot from the beat pair
//    holding P + 6 to the frame's last pair into the prefetch FIFO, two
//    beats per cycle, running ahead into the next frame.
//  D decoder: inc_group_walker writes the pairs into a ring of four and
//    walks the frame from P + 6, one group per cycle through the unit,
//    then the raw tail; the packer puts the first chunk at byte P mod 32.
//    The launcher tags each pair with where the stream's groups end
//    ((P + 6) mod 64 + payload - 6 - tail from the first pair): a group
//    that would reach past it ends the frame as malformed, so a frame
//    never waits for bytes it does not have. Pairs of the frame the walk
//    did not reach are released. The stream checks (bytes taken, padding
//    tags, tag-word sum) follow the chunks.
//  W writer: packer beats to the output slot from beat P / 32, and the
//    one's-complement sum of the written payload plus the header and
//    pseudo-header sum of the decision; pushes its complement (0 when the
//    carried TCP checksum verifies) at the frame's last beat.
//  B finisher: frames in order from the start queue; a bypassed, dropped
//    or malformed one at once, a decompressed one when its checksum
//    verdict and its stream verdict (end queue: bad_stream) are there; a
//    frame whose restored segment fails the checksum is dropped
//    (bad_payload_csum); one statistics pulse and one metadata FIFO 2
//    entry each.
// ---------------------------------------------------------------------------

// ---- L ----
reg            l_rd_reg;           // reading a frame's pairs
reg [AW-2:0]   l_pair_reg;         // input RAM address of the next pair
reg [PAW:0]    l_left_reg;         // pairs still to read
reg            l_one_reg;          // ... one
reg            l_fly_reg, l_fly_last_reg;
reg [11:0]     l_pe_left_reg;      // pairs before the one holding the end of the groups
reg [5:0]      l_eo_reg;           // that end's byte in its pair
reg            l_fly_lim_on_reg;   // the pair read: the walker's overrun limit
reg [6:0]      l_fly_lim_reg;
wire [2*DATA_WIDTH-1:0] l_q;           // the pair read for the stream reader
wire [2:0]     rf_count;
wire [2*DATA_WIDTH+8:0] rf_out;
wire           rf_valid, rf_ready;
reg            rf_pop;


// room in the prefetch FIFO for the pair read now: count + in flight < 3
wire l_room  = l_fly_reg ? rf_count[2:1] == 2'd0 : !rf_count[2] && rf_count[1:0] != 2'd3;
wire l_issue = l_rd_reg && l_room;

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(NSLOT*SLOT_BEATS/2)) ie_l_ram (
    .clk(clk), .wr_en(ie_we), .wr_addr(in_pair), .wr_data(s_axis_tdata),
    .rd_en(l_issue), .rd_addr(l_pair_reg), .rd_data(l_q[DATA_WIDTH-1:0])
);

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(NSLOT*SLOT_BEATS/2)) io_l_ram (
    .clk(clk), .wr_en(io_we), .wr_addr(in_pair), .wr_data(s_axis_tdata),
    .rd_en(l_issue), .rd_addr(l_pair_reg), .rd_data(l_q[2*DATA_WIDTH-1:DATA_WIDTH])
);

/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(2 * DATA_WIDTH + 9), .DEPTH(4)) rf_fifo (
    .clk(clk), .rst(rst),
    .in_data({l_fly_lim_on_reg, l_fly_lim_reg, l_fly_last_reg, l_q}), .in_valid(l_fly_reg), .in_ready(),
    .out_data(rf_out), .out_valid(rf_valid), .out_ready(rf_pop), .count(rf_count)
);
/* verilator lint_on PINCONNECTEMPTY */

wire       rf_last   = rf_out[2*DATA_WIDTH];
wire [6:0] rf_lim    = rf_out[2*DATA_WIDTH+1 +: 7];
wire       rf_lim_on = rf_out[2*DATA_WIDTH+8];


// Where W writes a frame's output: its first beat is P / 32 into the slot,
// and beats from SLOT_USED into the slot are not kept.
wire [AW-1:0] m1_wstart = m1_base + {{(AW-3){1'b0}}, m1_poff[7:5]};
wire [11:0]   m1_wroom  = (SLOT_USED12 > {9'd0, m1_poff[7:5]}) ? SLOT_USED12 - {9'd0, m1_poff[7:5]} : 12'd0;

// Start queue (L -> B), every frame. Both lengths also in beats (rounded
// up), so stage 3 loads a frame's read count without an adder.
localparam SQW = 1 + 1 + 3 + 5 + 16 + 16 + 16 + 16 + 8 + 8 + AW + 12 + 12;
wire [15:0] m1_len16 = m1_len[15:0];   // saturated in Y2
wire [SQW-1:0] sq_in = {m1_drop, !m1_dec, m1_outcome, m1_reason,
                        m1_len16, m1_out_len, m1_ip_tot, m1_ip_csum,
                        m1_l3, m1_poff, m1_base,
                        {1'b0, m1_len16[15:5]} + {11'd0, |m1_len16[4:0]},
                        {1'b0, m1_out_len[15:5]} + {11'd0, |m1_out_len[4:0]}};
wire [SQW-1:0] sq_out;
wire           sq_valid, sq_ready;
reg            b_fin;

// Decoder queue (L -> D) and writer queue (L -> W), frames to decompress.
localparam DQW = 6 + 14 + 2 + 16 + 16;
localparam WQW = AW + 12 + 24;
wire [DQW-1:0] dq_out;
wire           dq_valid, dq_ready;
wire           dq_pop;
wire [WQW-1:0] wq_out;
wire           wq_ready;
reg            wq_pop;

always @* begin
    m1_pop = m1_valid && sq_ready && dq_ready && wq_ready && (!m1_dec || !l_rd_reg);
end

/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(SQW), .DEPTH(8)) sq_fifo (
    .clk(clk), .rst(rst),
    .in_data(sq_in), .in_valid(m1_pop), .in_ready(sq_ready),
    .out_data(sq_out), .out_valid(sq_valid), .out_ready(b_fin), .count()
);
inc_fifo #(.WIDTH(DQW), .DEPTH(8)) dq_fifo (
    .clk(clk), .rst(rst),
    .in_data({m1_poff[5:0], m1_n, m1_tail, m1_sbytes, m1_tsum}), .in_valid(m1_pop && m1_dec), .in_ready(dq_ready),
    .out_data(dq_out), .out_valid(dq_valid), .out_ready(dq_pop), .count()
);
inc_fifo #(.WIDTH(WQW), .DEPTH(8)) wq_fifo (
    .clk(clk), .rst(rst),
    .in_data({m1_wstart, m1_wroom, m1_pseudo}), .in_valid(m1_pop && m1_dec), .in_ready(wq_ready),
    .out_data(wq_out), .out_valid(), .out_ready(wq_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

always @(posedge clk) begin
    l_fly_reg      <= l_issue;
    l_fly_last_reg <= l_issue && l_one_reg;
    // A group in the pair holding the end overruns past its offset there,
    // one in the pair before past 64 + that offset.
    l_fly_lim_on_reg <= l_pe_left_reg == 12'd0 || l_pe_left_reg == 12'd1;
    l_fly_lim_reg    <= {l_pe_left_reg != 12'd0, l_eo_reg};
    if (l_issue) begin
        l_pe_left_reg <= l_pe_left_reg - 12'd1;
        l_pair_reg <= l_pair_reg + 1'b1;
        l_left_reg <= l_left_reg - 1'b1;
        l_one_reg  <= l_left_reg == {{(PAW-1){1'b0}}, 2'd2};
        if (l_one_reg) begin
            l_rd_reg <= 1'b0;
        end
    end
    if (m1_pop && m1_dec) begin
        l_rd_reg   <= 1'b1;
        l_pair_reg <= m1_lpair;
        l_left_reg <= m1_lleft;
        l_one_reg  <= m1_lleft == {{PAW{1'b0}}, 1'b1};
        l_pe_left_reg <= {1'b0, m1_gend[16:6]};
        l_eo_reg      <= m1_gend[5:0];
    end
    if (rst) begin
        l_rd_reg  <= 1'b0;
        l_fly_reg <= 1'b0;
    end
end

// ---- D ----
// inc_group_walker finds the groups in the pairs (a ring of four pairs,
// one group per cycle); its chunks go to the unit one cycle after the
// decision, and the stream checks follow them.
localparam DTW = 5 + 16 + 16;      // chunk tag: P mod 32, stream bytes, the shim's tag-word sum

wire           gw_valid, gw_raw, gw_first, gw_last, gw_over;
wire [271:0]   gw_window;
wire [1:0]     gw_raw_count;
wire [3:0]     gw_nvalid;
wire [DTW-1:0] gw_tag;

inc_group_walker #(.TAGW(DTW)) gw (
    .clk(clk), .rst(rst),
    .s_data(rf_out[2*DATA_WIDTH-1:0]), .s_last(rf_last), .s_lim_on(rf_lim_on), .s_lim(rf_lim),
    .s_valid(rf_valid), .s_ready(rf_ready),
    .f_valid(dq_valid), .f_ready(dq_pop), .f_skip(dq_out[DQW-1 -: 6] + SHIM6),
    .f_values(dq_out[DQW-7 -: 14]), .f_tail(dq_out[33:32]),
    .f_tag({dq_out[DQW-2 -: 5], dq_out[31:0]}),
    .c_valid(gw_valid), .c_window(gw_window), .c_raw(gw_raw), .c_raw_count(gw_raw_count),
    .c_nvalid(gw_nvalid), .c_first(gw_first), .c_last(gw_last), .c_over(gw_over), .c_tag(gw_tag)
);

always @* begin
    rf_pop = rf_valid && rf_ready;
end

wire [5:0]   du_gsize;
wire         du_pad_ok;
wire [255:0] du_data;
wire [5:0]   du_count;
wire         du_out_valid, du_out_last;

inc_decompress_unit du (
    .clk(clk), .rst(rst),
    .in_window(gw_window), .in_valid(gw_valid), .in_nvalid(gw_nvalid),
    .in_raw(gw_raw), .in_raw_count(gw_raw_count), .in_last(gw_last),
    .group_size(du_gsize), .pad_ok(du_pad_ok),
    .out_data(du_data), .out_count(du_count), .out_valid(du_out_valid), .out_last(du_out_last)
);

// The unit's four stages, for the packer: first chunk of a frame and its
// offset, beside the chunk (du_room: 32 - du_off).
reg       du_first1_reg, du_first2_reg, du_first3_reg, du_first_reg;
reg [4:0] du_off1_reg, du_off2_reg, du_off3_reg, du_off_reg;
reg [5:0] du_room_reg;

always @(posedge clk) begin
    du_first1_reg <= gw_valid && gw_first;
    du_off1_reg   <= gw_tag[DTW-1 -: 5];
    du_first2_reg <= du_first1_reg;
    du_off2_reg   <= du_off1_reg;
    du_first3_reg <= du_first2_reg;
    du_off3_reg   <= du_off2_reg;
    du_first_reg  <= du_first3_reg;
    du_off_reg    <= du_off3_reg;
    du_room_reg   <= 6'd32 - {1'b0, du_off3_reg};
    // (the reset also keeps the last copies flip-flops: synthesis would
    // fold them with the copies before into shift registers, whose clock
    // to out is twice a flip-flop's, in front of the packer's decisions)
    if (rst) begin
        du_first_reg <= 1'b0;
        du_off_reg   <= 5'd0;
        du_room_reg  <= 6'd32;
    end
end

// Stream checks, per frame: the groups must take exactly payload - 6 -
// tail bytes (none may overrun), carry tag 0 in every padding lane, and
// their tag words must sum to the shim's value. K0 registers each chunk's
// group size, tag word and padding verdict; K1 sums them and, at the
// frame's last chunk (raw: it adds nothing), pushes the verdict to the end
// queue.
reg         k0_valid_reg = 1'b0, k0_group_reg = 1'b0, k0_last_reg = 1'b0, k0_over_reg = 1'b0;
reg         k0_pad_ok_reg = 1'b1;
reg  [5:0]  k0_gsize_reg = 6'd0;
reg  [15:0] k0_tword_reg = 16'd0, k0_sbytes_reg = 16'd0, k0_tsum_want_reg = 16'd0;
reg  [15:0] k1_bytes_reg = 16'd0;  // stream bytes the frame's groups took so far
reg  [15:0] k1_tsum_reg = 16'd0;   // their tag words (sum mod 2^16)
reg         k1_pad_bad_reg = 1'b0;

// End queue (D -> B): the stream verdict of each decompressed frame, and
// whether its tag words fail the shim's sum.
reg  eq_push = 1'b0, eq_bad = 1'b0, eq_tbad = 1'b0;
wire eq_out, eq_tout, eq_valid;

/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(2), .DEPTH(8)) eq_fifo (
    .clk(clk), .rst(rst),
    .in_data({eq_tbad, eq_bad}), .in_valid(eq_push), .in_ready(),
    .out_data({eq_tout, eq_out}), .out_valid(eq_valid), .out_ready(b_fin && !sq_out[SQW-2]), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

always @(posedge clk) begin
    k0_valid_reg     <= gw_valid;
    k0_group_reg     <= gw_valid && !gw_raw;
    k0_last_reg      <= gw_last;
    k0_over_reg      <= gw_over;
    k0_pad_ok_reg    <= du_pad_ok;
    k0_gsize_reg     <= du_gsize;
    k0_tword_reg     <= gw_window[15:0];
    k0_sbytes_reg    <= gw_tag[31:16];
    k0_tsum_want_reg <= gw_tag[15:0];
    eq_push <= k0_valid_reg && k0_last_reg;
    eq_bad  <= k0_over_reg || k1_bytes_reg != k0_sbytes_reg || k1_pad_bad_reg;
    eq_tbad <= k1_tsum_reg != k0_tsum_want_reg;
    if (k0_group_reg) begin
        k1_bytes_reg <= k1_bytes_reg + {10'd0, k0_gsize_reg};
        k1_tsum_reg  <= k1_tsum_reg + k0_tword_reg;
        if (!k0_pad_ok_reg) begin
            k1_pad_bad_reg <= 1'b1;
        end
    end
    if (k0_valid_reg && k0_last_reg) begin
        k1_bytes_reg   <= 16'd0;
        k1_tsum_reg    <= 16'd0;
        k1_pad_bad_reg <= 1'b0;
    end
    if (rst) begin
        k0_valid_reg   <= 1'b0;
        k0_group_reg   <= 1'b0;
        eq_push        <= 1'b0;
        k1_bytes_reg   <= 16'd0;
        k1_tsum_reg    <= 16'd0;
        k1_pad_bad_reg <= 1'b0;
    end
end

// Packer, fed by the unit.
wire [DATA_WIDTH-1:0] pk_data;
wire [KW-1:0]         pk_count;
wire                  pk_valid, pk_last, pk_in_ready;

inc_decompress_packer #(.DATA_WIDTH(DATA_WIDTH)) pk (
    .clk(clk), .rst(rst),
    .in_data(du_data), .in_count(du_count), .in_valid(du_out_valid),
    .in_first(du_first_reg), .in_offset({1'b0, du_off_reg}), .in_room(du_room_reg), .in_last(du_out_last),
    .in_ready(pk_in_ready),
    .out_data(pk_data), .out_count(pk_count), .out_valid(pk_valid), .out_last(pk_last)
);

`ifndef SYNTHESIS
always @(posedge clk) begin
    if (!rst && du_out_valid && !pk_in_ready) begin
        $display("inc_decompress_core: chunk offered to the packer during a flush");
        $stop;
    end
end
`endif
`ifdef FORMAL
// the simulation check above, as an assertion (formal/)
always @(posedge clk) begin
    if (!rst)
        assert(!(du_out_valid && !pk_in_ready));
end
`endif

// ---- W ----
wire [AW-1:0] wq_start  = wq_out[WQW-1 -: AW];      // RAM address of the first beat written
wire [11:0]   wq_room   = wq_out[WQW-AW-1 -: 12];   // beats that may be written
wire [23:0]   wq_pseudo = wq_out[23:0];

reg [SAW:0]   w_cnt_reg;           // beats of the frame written so far

// The restored segment's checksum, modulo 0xffff without carry chains: the
// written beat's 16-bit words (bytes below P are zero, bytes from the count
// on are cleared) registered in W0, four carry-save levels (inc_csum_csa)
// into W1, a two-word carry-save accumulator per frame, the pseudo-header
// added in W3, one end-around adder before the checksum queue. The
// reductions give all-zero words only for all-zero inputs, so the verdict
// equals the fold of the plain sum.
reg [DATA_WIDTH-1:0] w_words;
always @* begin
    for (i = 0; i < BYTES / 2; i = i + 1) begin
        w_words[16*i + 8 +: 8] = ({i[4:0], 1'b0} < pk_count) ? pk_data[16*i +: 8] : 8'd0;
        w_words[16*i +: 8]     = ({i[4:0], 1'b1} < pk_count) ? pk_data[16*i + 8 +: 8] : 8'd0;
    end
end

// The output RAM's write port is registered (the frame is read from it
// only after W3 has queued its checksum).
reg                  out_we_reg = 1'b0;
reg [AW-1:0]         out_wa_reg = 0;
reg [DATA_WIDTH-1:0] out_wd_reg = 0;

always @(posedge clk) begin
    out_we_reg <= pk_valid && {{(11-SAW){1'b0}}, w_cnt_reg} < wq_room;
    out_wa_reg <= wq_start + {{(AW-SAW-1){1'b0}}, w_cnt_reg};
    out_wd_reg <= pk_data;
    if (rst)
        out_we_reg <= 1'b0;
end

reg                  w0_valid_reg = 1'b0, w0_last_reg = 1'b0;
reg [DATA_WIDTH-1:0] w0_words_reg = 0;
reg [23:0]           w0_pseudo_reg = 0;
reg                  w1_valid_reg = 1'b0, w1_last_reg = 1'b0;
reg [63:0]           w1_words_reg = 0;
reg [23:0]           w1_pseudo_reg = 0;
reg                  w2_end_reg = 1'b0, w3_end_reg = 1'b0;
reg [31:0]           w2_tot_reg = 0, w3_pair_reg = 0;
reg [23:0]           w2_pseudo_reg = 0;
reg [31:0]           csum_acc_reg = 0;     // two words

wire [DATA_WIDTH-1:0] w_csa1;
wire [16*6-1:0]       w_csa_acc;
wire [16*4-1:0]       w_csa_ps;
inc_csum_csa #(.N(BYTES / 2), .LEVELS(4)) w_csa_a (.in_words(w0_words_reg), .out_words(w_csa1));
inc_csum_csa #(.N(6), .LEVELS(3)) w_csa_b (.in_words({w1_words_reg, csum_acc_reg}), .out_words(w_csa_acc));
inc_csum_csa #(.N(4), .LEVELS(2)) w_csa_c (.in_words({w2_tot_reg, w2_pseudo_reg[15:0], 8'd0, w2_pseudo_reg[23:16]}),
                                            .out_words(w_csa_ps));
/* verilator lint_off UNUSEDSIGNAL */ // zero above the reductions' last words
wire unused_wcsa = &{1'b0, w_csa1[DATA_WIDTH-1:64], w_csa_acc[16*6-1:32], w_csa_ps[16*4-1:32]};
/* verilator lint_on UNUSEDSIGNAL */

// The restored segment's checksum fails: the one's-complement sum of the
// two words is not 0xffff. It is 0xffff when the words add to 0xffff (one
// is the other's complement) or to 0x1fffe (both 0xffff): equality
// compares, no adder.
wire [15:0] w_pa = w3_pair_reg[15:0], w_pb = w3_pair_reg[31:16];
wire        w_csum_bad = !(w_pa == ~w_pb || (&w_pa && &w_pb));

always @* begin
    wq_pop = pk_valid && pk_last;
end

always @(posedge clk) begin
    w0_valid_reg  <= pk_valid;
    w0_last_reg   <= pk_valid && pk_last;
    w0_words_reg  <= w_words;
    w0_pseudo_reg <= wq_pseudo;
    w1_valid_reg  <= w0_valid_reg;
    w1_last_reg   <= w0_last_reg;
    w1_words_reg  <= w_csa1[63:0];
    w1_pseudo_reg <= w0_pseudo_reg;
    if (w1_valid_reg) begin
        csum_acc_reg <= w1_last_reg ? 32'd0 : w_csa_acc[31:0];
    end
    w2_end_reg    <= w1_valid_reg && w1_last_reg;
    w2_tot_reg    <= w_csa_acc[31:0];
    w2_pseudo_reg <= w1_pseudo_reg;
    w3_end_reg    <= w2_end_reg;
    w3_pair_reg   <= w_csa_ps[31:0];
    if (pk_valid) begin
        w_cnt_reg <= pk_last ? {(SAW+1){1'b0}} : w_cnt_reg + 1'b1;
    end
    if (rst) begin
        w0_valid_reg <= 1'b0;
        w0_last_reg  <= 1'b0;
        w1_valid_reg <= 1'b0;
        w1_last_reg  <= 1'b0;
        w2_end_reg   <= 1'b0;
        w3_end_reg   <= 1'b0;
        csum_acc_reg <= 32'd0;
        w_cnt_reg    <= {(SAW+1){1'b0}};
    end
end

// Checksum queue (W -> B).
wire        cq_bad;
wire        cq_valid;

/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(1), .DEPTH(8)) cq_fifo (
    .clk(clk), .rst(rst),
    .in_data(w_csum_bad), .in_valid(w3_end_reg), .in_ready(),
    .out_data(cq_bad), .out_valid(cq_valid), .out_ready(b_fin && !sq_out[SQW-2]), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

// ---- B ----
wire          sq_drop    = sq_out[SQW-1];
wire          sq_copy    = sq_out[SQW-2];
wire [2:0]    sq_outcome = sq_out[SQW-3 -: 3];
wire [4:0]    sq_reason  = sq_out[SQW-6 -: 5];
wire [15:0]   sq_len     = sq_out[SQW-11 -: 16];
wire [15:0]   sq_out_len = sq_out[SQW-27 -: 16];
wire [15:0]   sq_ip_tot  = sq_out[SQW-43 -: 16];
wire [15:0]   sq_ip_csum = sq_out[SQW-59 -: 16];
wire [7:0]    sq_l3      = sq_out[SQW-75 -: 8];
wire [7:0]    sq_poff    = sq_out[SQW-83 -: 8];
wire [AW-1:0] sq_base    = sq_out[24 +: AW];
wire [11:0]   sq_beats   = sq_out[12 +: 12];   // sq_len in beats
wire [11:0]   sq_obeats  = sq_out[0 +: 12];    // sq_out_len in beats

wire b_bad  = !sq_copy && eq_out;   // decompression failed: the input is output
// The restored segment fails its TCP checksum, or the tag words the shim's sum.
wire b_csum = !sq_copy && !eq_out && (cq_bad || eq_tout);

always @* begin
    b_fin = sq_valid && (sq_copy || (eq_valid && cq_valid));
end

always @(posedge clk) begin
    if (b_fin) begin
        stat_outcome     <= b_bad ? OUT_MALFORMED : b_csum ? OUT_DROPPED : sq_outcome;
        stat_reason      <= b_bad ? R_BAD_STREAM : b_csum ? R_BAD_PAYLOAD_CSUM : sq_reason;
        stat_bytes_in    <= sq_len;
        stat_bytes_out   <= (sq_drop || b_csum) ? 16'd0 : (sq_copy || b_bad) ? sq_len : sq_out_len;
    end
    stat_valid <= b_fin;
    if (rst) begin
        stat_valid <= 1'b0;
    end
end

// Metadata FIFO 2: what stage 3 needs to read and patch a frame, pushed
// as the frame is retired (its head is a register: a frame's slot is
// held one cycle less than with a register stage in front).
// The frame's length goes in as beats and its last beat's byte count; a
// frame with nothing to send (dropped, or empty) is flagged.
localparam M2W = 1 + 1 + AW + 12 + 5 + 8 + 16 + 16 + 8;
wire [11:0]    b_beats = (sq_copy || b_bad) ? sq_beats : sq_obeats;
wire [M2W-1:0] m2_in = {sq_drop || b_csum || b_beats == 12'd0, !sq_copy && !b_bad, sq_base,
                        b_beats, (sq_copy || b_bad) ? sq_len[4:0] : sq_out_len[4:0], sq_poff,
                        sq_ip_tot, sq_ip_csum, sq_l3};
wire [M2W-1:0] m2_out;
wire           m2_valid;
reg            m2_pop;

/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(M2W), .DEPTH(8)) m2_fifo (
    .clk(clk), .rst(rst),
    .in_data(m2_in), .in_valid(b_fin), .in_ready(),
    .out_data(m2_out), .out_valid(m2_valid), .out_ready(m2_pop), .count()
);
/* verilator lint_on PINCONNECTEMPTY */

// ---------------------------------------------------------------------------
// Stage 3: output. Each beat is read from the input slot and, for a
// decompressed frame, from the output slot: bytes below P come from the
// input (the header, the verified TCP checksum included), the rest from the
// output slot; then IP total length, protocol and IP checksum are patched. The next frame starts in the
// cycle after the previous one's last read, so frames leave back to back.
// ---------------------------------------------------------------------------
reg           o_on_reg;
reg [AW-1:0]  o_addr_reg;         // RAM address of the next beat
reg [SAW-1:0] o_beat_reg;         // the same beat within the frame
reg [11:0]    o_left_reg;
reg           o_one_reg;      // o_left_reg == 1
reg           o_patch_reg;
reg [4:0]     o_len_reg;          // frame length mod 32 (bytes of the last beat)
reg [7:0]     o_poff_reg;
reg [15:0]    o_ip_tot_reg, o_ip_csum_reg;
reg [7:0]     o_l3_reg;
reg           o_fly_reg, o_fly_last_reg, o_fly_patch_reg;
reg [SAW-1:0] o_fly_beat_reg;
wire [DATA_WIDTH-1:0] o_qie, o_qio, o_qo;   // the beat at o_addr_reg in each RAM
wire [2:0]    of_count;
reg           of_pop;

reg  o_r2_valid_reg = 1'b0;
// beats in the output FIFO or on their way to it (the read in flight and
// stage R2), as gates: the FIFO holds four
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0] o_busy = inc_lsum(inc_lsum({5'd0, of_count}, {7'd0, o_fly_reg}), {7'd0, o_r2_valid_reg});
/* verilator lint_on UNUSEDSIGNAL */
wire o_issue = o_on_reg && o_busy[7:2] == 6'd0;
wire o_end   = o_issue && o_one_reg;

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(NSLOT*SLOT_BEATS/2)) ie_o_ram (
    .clk(clk), .wr_en(ie_we), .wr_addr(in_pair), .wr_data(s_axis_tdata),
    .rd_en(o_issue), .rd_addr(o_addr_reg[AW-1:1]), .rd_data(o_qie)
);

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(NSLOT*SLOT_BEATS/2)) io_o_ram (
    .clk(clk), .wr_en(io_we), .wr_addr(in_pair), .wr_data(s_axis_tdata),
    .rd_en(o_issue), .rd_addr(o_addr_reg[AW-1:1]), .rd_data(o_qio)
);

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(NSLOT*SLOT_BEATS)) out_ram (
    .clk(clk), .wr_en(out_we_reg), .wr_addr(out_wa_reg), .wr_data(out_wd_reg),
    .rd_en(o_issue), .rd_addr(o_addr_reg), .rd_data(o_qo)
);

wire          m2_empty     = m2_out[M2W-1];   // nothing to send
wire [11:0]   m2_len_beats = m2_out[M2W-3-AW -: 12];
wire [4:0]    m2_len5      = m2_out[M2W-15-AW -: 5];

always @* begin
    m2_pop = m2_valid && (!o_on_reg || o_end);
end

// Slots released: the last read of a frame, and a frame with nothing to send.
assign in_free_end   = o_end;
assign in_free_empty = m2_pop && m2_empty;

always @(posedge clk) begin
    o_fly_reg       <= o_issue;
    o_fly_last_reg  <= o_end;
    o_fly_beat_reg  <= o_beat_reg;
    o_fly_patch_reg <= o_patch_reg;
    if (o_issue) begin
        o_beat_reg <= o_beat_reg + 1'b1;
        o_addr_reg <= o_addr_reg + 1'b1;
        o_left_reg <= o_left_reg - 12'd1;
        o_one_reg  <= o_left_reg == 12'd2;
        if (o_one_reg) begin
            o_on_reg <= 1'b0;
        end
    end
    if (m2_pop && !m2_empty) begin
        o_on_reg       <= 1'b1;
        o_beat_reg     <= {SAW{1'b0}};
        o_left_reg     <= m2_len_beats;
        o_one_reg      <= m2_len_beats == 12'd1;
        o_patch_reg    <= m2_out[M2W-2];
        o_addr_reg     <= m2_out[M2W-3 -: AW];
        o_len_reg      <= m2_len5;
        o_poff_reg     <= m2_out[M2W-20-AW -: 8];
        o_ip_tot_reg   <= m2_out[M2W-28-AW -: 16];
        o_ip_csum_reg  <= m2_out[M2W-44-AW -: 16];
        o_l3_reg       <= m2_out[7:0];
    end
    if (rst) begin
        o_on_reg  <= 1'b0;
        o_fly_reg <= 1'b0;
    end
end

// The landing beat: merge, then patch IP total (L3+2), protocol (L3+9) and
// IP checksum (L3+10) of a decompressed frame. The
// parameters of the frame are still those of the beat in flight: a new
// frame's registers load in the cycle after its predecessor's last read.
reg [DATA_WIDTH-1:0] o_patched;
reg [15:0]           o_boff;
reg [KW-1:0]         o_keep_bytes;
reg [7:0]            o_fly_poff_reg;
reg [8:0]            o_fly_l3p2_reg, o_fly_l3p3_reg, o_fly_l3p9_reg, o_fly_l3p10_reg, o_fly_l3p11_reg;
reg [15:0]           o_fly_ip_tot_reg, o_fly_ip_csum_reg;
reg [4:0]            o_fly_len_reg;

always @(posedge clk) begin
    o_fly_poff_reg     <= o_poff_reg;
    // the patched IP header bytes' offsets (L3 + 2, 3, 9, 10, 11)
    o_fly_l3p2_reg     <= {1'b0, o_l3_reg} + 9'd2;
    o_fly_l3p3_reg     <= {1'b0, o_l3_reg} + 9'd3;
    o_fly_l3p9_reg     <= {1'b0, o_l3_reg} + 9'd9;
    o_fly_l3p10_reg    <= {1'b0, o_l3_reg} + 9'd10;
    o_fly_l3p11_reg    <= {1'b0, o_l3_reg} + 9'd11;
    o_fly_ip_tot_reg   <= o_ip_tot_reg;
    o_fly_ip_csum_reg  <= o_ip_csum_reg;
    o_fly_len_reg      <= o_len_reg;
end

// In the read cycle: a select code per byte from the registers (in
// parallel with the RAM read); stage R2 registers it with the RAM data, so
// the compose is a plain mux.
localparam [2:0] OS_IN = 3'd0, OS_OUT = 3'd1, OS_TOT_H = 3'd2, OS_TOT_L = 3'd3, OS_PROTO = 3'd4,
                 OS_CS_H = 3'd5, OS_CS_L = 3'd6;
reg [3*BYTES-1:0] o_sel;
always @* begin
    for (i = 0; i < BYTES; i = i + 1) begin
        o_boff = {{(11-SAW){1'b0}}, o_fly_beat_reg, i[4:0]};
        o_sel[3*i +: 3] = OS_IN;
        if (o_fly_patch_reg) begin
            if (o_boff >= {8'd0, o_fly_poff_reg}) o_sel[3*i +: 3] = OS_OUT;
            if (o_boff == {7'd0, o_fly_l3p2_reg})  o_sel[3*i +: 3] = OS_TOT_H;
            if (o_boff == {7'd0, o_fly_l3p3_reg})  o_sel[3*i +: 3] = OS_TOT_L;
            if (o_boff == {7'd0, o_fly_l3p9_reg})  o_sel[3*i +: 3] = OS_PROTO;
            if (o_boff == {7'd0, o_fly_l3p10_reg}) o_sel[3*i +: 3] = OS_CS_H;
            if (o_boff == {7'd0, o_fly_l3p11_reg}) o_sel[3*i +: 3] = OS_CS_L;
        end
    end
    o_keep_bytes = (o_fly_last_reg && o_fly_len_reg != 5'd0) ? {1'b0, o_fly_len_reg} : BYTES[KW-1:0];
end

reg                  o_r2_last_reg = 1'b0;
reg [KW-1:0]         o_r2_keep_reg = 0;
reg [DATA_WIDTH-1:0] o_r2_qi_reg = 0, o_r2_qo_reg = 0;
reg [3*BYTES-1:0]    o_r2_sel_reg = 0;
reg [15:0]           o_r2_ip_tot_reg = 0, o_r2_ip_csum_reg = 0;

always @(posedge clk) begin
    o_r2_valid_reg   <= o_fly_reg;
    o_r2_last_reg    <= o_fly_last_reg;
    o_r2_keep_reg    <= o_keep_bytes;
    o_r2_qi_reg      <= o_fly_beat_reg[0] ? o_qio : o_qie;
    o_r2_qo_reg      <= o_qo;
    o_r2_sel_reg     <= o_sel;
    o_r2_ip_tot_reg  <= o_fly_ip_tot_reg;
    o_r2_ip_csum_reg <= o_fly_ip_csum_reg;
    if (rst)
        o_r2_valid_reg <= 1'b0;
end

always @* begin
    for (i = 0; i < BYTES; i = i + 1) begin
        case (o_r2_sel_reg[3*i +: 3])
            OS_OUT:   o_patched[8*i +: 8] = o_r2_qo_reg[8*i +: 8];
            OS_TOT_H: o_patched[8*i +: 8] = o_r2_ip_tot_reg[15:8];
            OS_TOT_L: o_patched[8*i +: 8] = o_r2_ip_tot_reg[7:0];
            OS_PROTO: o_patched[8*i +: 8] = 8'd6;
            OS_CS_H:  o_patched[8*i +: 8] = o_r2_ip_csum_reg[15:8];
            OS_CS_L:  o_patched[8*i +: 8] = o_r2_ip_csum_reg[7:0];
            default:  o_patched[8*i +: 8] = o_r2_qi_reg[8*i +: 8];
        endcase
    end
end

wire [DATA_WIDTH+KW:0] of_in = {o_r2_last_reg, o_r2_keep_reg, o_patched};
wire [DATA_WIDTH+KW:0] of_out;
wire                   of_valid;

// Full/level outputs unused: o_issue keeps room for the reads in flight.
/* verilator lint_off PINCONNECTEMPTY */
inc_fifo #(.WIDTH(DATA_WIDTH + KW + 1), .DEPTH(4)) of_fifo (
    .clk(clk), .rst(rst),
    .in_data(of_in), .in_valid(o_r2_valid_reg), .in_ready(),
    .out_data(of_out), .out_valid(of_valid), .out_ready(of_pop), .count(of_count)
);
/* verilator lint_on PINCONNECTEMPTY */

`ifdef FORMAL
// (formal/) the output FIFO is never pushed when full: o_issue's promise
always @(posedge clk) begin
    if (!rst)
        assert(!(o_r2_valid_reg && of_count == 3'd4));
end
`endif

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
