// SPDX-License-Identifier: MIT
/*
 * inc_compress_core.v - the 256-bit transmit engine: compresses the TCP
 * payload of ToS-matched IPv4/TCP frames into the INCEPTIONN frame format
 * v2 (docs/wire-format.md), byte-exact with inc_frame_compress() of the
 * model. inc_compress_engine is this core at 256 bits and two of them on
 * whole frames at 512 (docs/rtl.md, "DATA_WIDTH 512").
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Store-and-forward with a data FIFO, a metadata FIFO and a header patch
 * on output (the Corundum tx_checksum pattern). See docs/rtl.md.
 *
 *  s_axis -> orig RAM (every input beat, circular) -----------+
 *         -> inc_tos_matcher (header capture, checks 1-11)    |  metadata FIFO
 *         -> realign (4-byte lanes) -> 8 x inc_compress_block |  (one entry per
 *            -> inc_group_pack + raw tail -> inc_align_unit   |   frame) -> output:
 *            -> comp RAM (two banks of rows, circular) -------+   orig beats or
 *                                                                  header + shim +
 *                                                                  comp rows, patched
 *
 * Every frame is compressed speculatively while it streams in; whether the
 * compressed form is used (reason none) or the original is sent unchanged
 * (any bypass reason, not_smaller included) is decided after tlast, when
 * the matcher has its reason and the compressed length is known. The
 * output then reads either the original beats, or the original header
 * beats with the IP total length, protocol (253), IP checksum and TCP
 * checksum patched, the 4-byte shim, and the compressed stream + tail from
 * the comp RAM.
 *
 * TCP checksum (format v2): the sender's TCP checksum HC is captured as
 * its beat passes D1; every payload beat's lanes are decoded again (eight
 * inc_decompress_block, the restored value q) in stages B and B1, and the sum of
 * q's words plus the complements of the original words is accumulated per
 * frame; the decision sets HC' = ~fold(~HC + sum), the RFC 1624 update that
 * sw-model/src/frame.c (v2_csum) defines, patched at L4 + 16 on output. Both
 * RAMs are circular buffers sized for three maximal frames, so frame k+1
 * streams in while frame k streams out. A frame starts (tready) only when
 * both RAMs have room for a maximal frame; inside a frame tready stays
 * high, so the input takes one beat per cycle.
 *
 * Payload realignment: the payload starts at P = L3 + IHL*4 + THL, i.e. at
 * P mod 32 in beat P/32 (P = 54, 58, 66, ... up to 18 + 60 + 60 = 138).
 * Payload beat j (bytes 32j..32j+31 of the payload, eight float lanes) is
 * {beat[P/32 + j + 1], beat[P/32 + j]} shifted down by P mod 32 bytes; it
 * is formed five cycles after beat P/32 + j + 1 arrives (the last one six
 * cycles after tlast), from delayed copies of the beats, when the matcher's
 * pipelined parse of the beats before it has caught up: the TCP
 * data-offset byte lies before the payload, so the offsets are known by
 * then.
 *
 * Oversize frames (longer than MAX_FRAME) are taken at full rate, not
 * stored beyond MAX_FRAME bytes, dropped and counted (outcome dropped,
 * reason oversize, bytes_out 0), also when cfg_enable is 0. With
 * cfg_enable = 0 every other frame passes unchanged with reason disabled.
 * cfg_* are sampled on the first beat of each frame.
 *
 * Reset (synchronous, any time): control state is cleared; a frame being
 * received is discarded, as are frames not yet (fully) sent; the next beat
 * accepted after reset starts a new frame. A frame cut off on m_axis by
 * the reset ends without tlast, so the sink must be reset together.
 */
module inc_compress_core #(
    // AXI4-Stream data width in bits; 256 only (one group of 8 floats per
    // beat); inc_compress_engine builds 512 from two cores
    parameter DATA_WIDTH = 256,
    // largest frame in bytes (no FCS), 64..65535; sizes the buffers. Longer
    // frames are dropped and counted (reason oversize)
    parameter MAX_FRAME  = 9018
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
    input  wire [6:0]              cfg_eb,

    output wire                    stat_valid,
    output wire [2:0]              stat_outcome,
    output wire [4:0]              stat_reason,
    output wire [15:0]             stat_bytes_in,
    output wire [15:0]             stat_bytes_out
);

localparam DB         = DATA_WIDTH / 8;          // bytes per beat
localparam LANES      = DATA_WIDTH / 32;         // floats per beat
localparam GRP_BYTES  = 2 + 4 * LANES;           // largest group / chunk
localparam ROW_BYTES  = 2 * DB;                  // comp RAM row
localparam MAX_BEATS  = (MAX_FRAME + DB - 1) / DB;
localparam MAX_ROWS   = (MAX_FRAME + ROW_BYTES - 1) / ROW_BYTES;
localparam OAW        = $clog2(3 * MAX_BEATS);   // orig RAM address bits
localparam CAW        = $clog2(3 * MAX_ROWS + 32); // comp row pointer bits
localparam ODEPTH     = 1 << OAW;
localparam CDEPTH     = 1 << CAW;
localparam MQW        = 4;                       // metadata FIFO: 16 frames
localparam MQDEPTH    = 1 << MQW;
localparam OFW        = 2;                       // output FIFO: 4 beats
localparam OFDEPTH    = 1 << OFW;
localparam BW         = 12;                      // beat counters (saturating)

// enum inc_outcome / inc_reason (sw-model/include/inc_model.h)
localparam [2:0] O_BYPASS = 3'd0, O_COMPRESSED = 3'd1, O_DROPPED = 3'd4;
localparam [4:0] R_NONE = 5'd0, R_NO_PAYLOAD = 5'd10, R_NOT_SMALLER = 5'd11,
                 R_OVERSIZE = 5'd15, R_DISABLED = 5'd16;
localparam [1:0] M_DROP = 2'd0, M_BYPASS = 2'd1, M_COMP = 2'd2;
localparam [7:0] WIRE_VERSION = 8'd2;            // shim version byte (INC_WIRE_VERSION)
localparam [7:0] SHIM = 8'd6;                    // shim bytes (INC_WIRE_SHIM_BYTES)

initial begin
    if (DATA_WIDTH != 256) begin
        $display("inc_compress_core: only DATA_WIDTH = 256 is implemented");
        $finish;
    end
    if (MAX_FRAME < 64 || MAX_FRAME > 65535) begin
        $display("inc_compress_core: MAX_FRAME must be in 64..65535");
        $finish;
    end
end

// ==========================================================================
// Input: accept, store, parse
// ==========================================================================
reg            in_active_reg = 1'b0;   // inside a frame
reg [BW-1:0]   ibeat_reg = 0;          // beats taken in this frame
reg            tready_reg = 1'b0;
reg            en_reg = 1'b0;
reg [6:0]      eb_reg = 7'd10;

reg [OAW:0]    orig_wr_reg = 0, orig_rd_reg = 0, orig_base_reg = 0;
reg [CAW:0]    comp_wr_reg = 0, comp_rd_reg = 0;
reg [MQW:0]    inflight_reg = 0;       // frames started, not yet popped

wire           beat     = s_axis_tvalid && tready_reg;
wire           first    = beat && !in_active_reg;
wire [BW-1:0]  beat_idx = in_active_reg ? ibeat_reg : {BW{1'b0}};

// free space, checked before a frame starts
reg  [OAW:0]   orig_used_reg = 0;      // registered: the room check is a pipeline
reg  [CAW:0]   comp_used_reg = 0;
wire [31:0]    orig_used_w = {{(31-OAW){1'b0}}, orig_used_reg};
wire [31:0]    comp_used_w = {{(31-CAW){1'b0}}, comp_used_reg};
// registered: the room is checked on pointers two cycles old, so the
// margins cover two more beats and frames started meanwhile (and the rows
// a frame may write beyond MAX_ROWS, see the comp RAM)
reg            start_ok_reg = 1'b0;
wire           start_ok  = start_ok_reg;
reg            pop_d_reg = 1'b0;       // pop, one cycle later, for inflight_reg
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]     inflight_up = inc_lsum({{(7-MQW){1'b0}}, inflight_reg}, 8'd1);
wire [7:0]     inflight_dn = inc_lsub({{(7-MQW){1'b0}}, inflight_reg}, 8'd1);
/* verilator lint_on UNUSEDSIGNAL */

wire           pop;                    // output side: a frame's metadata is done
wire [OAW:0]   pop_orig_end;
wire [CAW:0]   pop_comp_end;

// beat_idx < MAX_BEATS, from a flag kept for the next beat of the frame
reg            room_reg = 1'b1;        // ibeat_reg < MAX_BEATS
wire           store    = !in_active_reg || room_reg;

always @(posedge clk) begin
    if (beat) begin
        in_active_reg <= !s_axis_tlast;
        ibeat_reg <= beat_idx == {BW{1'b1}} ? beat_idx : beat_idx + 1'b1;
        room_reg  <= {20'd0, beat_idx} < MAX_BEATS - 1;
        if (store) begin
            orig_wr_reg <= orig_wr_reg + 1'b1;
        end
    end
    if (first) begin
        orig_base_reg <= orig_wr_reg;
        en_reg <= cfg_enable;
        eb_reg <= inc_eb_clamp(cfg_eb);
    end
    tready_reg <= (beat ? !s_axis_tlast : in_active_reg) || start_ok;

    if (pop)
        orig_rd_reg <= pop_orig_end;
    // +1 and -1 formed from the register alone (gates: an adder operator
    // would take the late `first` into its carry chain), then selected
    if (first && !pop_d_reg)
        inflight_reg <= inflight_up[MQW:0];
    else if (!first && pop_d_reg)
        inflight_reg <= inflight_dn[MQW:0];
    pop_d_reg    <= pop;
    orig_used_reg <= orig_wr_reg - orig_rd_reg;
    comp_used_reg <= comp_wr_reg - comp_rd_reg;
    start_ok_reg  <= orig_used_w <= ODEPTH - MAX_BEATS - 4 &&
                     comp_used_w <= CDEPTH - MAX_ROWS - 17 &&
                     inflight_reg < MQDEPTH - 4;

    if (rst) begin
        in_active_reg <= 1'b0;
        ibeat_reg <= 0;
        room_reg <= 1'b1;
        tready_reg <= 1'b0;
        orig_wr_reg <= 0;
        orig_rd_reg <= 0;
        inflight_reg <= 0;
        pop_d_reg <= 1'b0;
        start_ok_reg <= 1'b0;
    end
end

assign s_axis_tready = tready_reg;

// D1: each accepted beat once more, DLY cycles later, with its frame's
// configuration and buffer pointers, for the payload path below. The
// delay is the matcher's live view latency (CUR_LAT = 3) plus the q_*
// registers, so that D1 holding beat i meets the parse of beats 0..i-1;
// a shift register without reset (LUT shift registers in a 7-series part).
localparam DLY = 5;
localparam DW  = 1 + 1 + 7 + BW + DATA_WIDTH + 2 * (OAW + 1);   // the bundle below

reg  [DLY-1:0]  dv_reg = 0;                // valid, one bit per stage
reg  [DW-1:0]   dd_reg [0:DLY-1];          // the bundle per stage
wire [DW-1:0]   d0_bundle = {s_axis_tlast, first ? cfg_enable : en_reg,
                             first ? inc_eb_clamp(cfg_eb) : eb_reg, beat_idx, s_axis_tdata,
                             first ? orig_wr_reg : orig_base_reg,
                             orig_wr_reg + {{OAW{1'b0}}, store}};
integer dk;
always @(posedge clk) begin
    dv_reg <= {dv_reg[DLY-2:0], beat};
    dd_reg[0] <= d0_bundle;
    for (dk = 1; dk < DLY - 1; dk = dk + 1)
        dd_reg[dk] <= dd_reg[dk-1];
    // the last stage with a reset: flip-flops, not the end of a LUT shift
    // register (whose clock-to-out is twice as long)
    dd_reg[DLY-1] <= dd_reg[DLY-2];
    if (rst) begin
        dv_reg <= 0;
        dd_reg[DLY-1] <= 0;
    end
end

wire                  d1_valid_reg = dv_reg[DLY-1];
wire                  d1_last_reg, d1_en_reg;
wire [6:0]            d1_eb_reg;
wire [BW-1:0]         d1_idx_reg;
wire [DATA_WIDTH-1:0] d1_data_reg;
wire [OAW:0]          d1_orig_base_reg, d1_orig_end_reg;
assign {d1_last_reg, d1_en_reg, d1_eb_reg, d1_idx_reg, d1_data_reg,
        d1_orig_base_reg, d1_orig_end_reg} = dd_reg[DLY-1];

// --------------------------------------------------------------------------
// Header parse
// --------------------------------------------------------------------------
wire        cur_hdr_valid, cur_hdr_ok;
wire [7:0]  cur_ip_hlen, cur_tcp_hlen, cur_payload_off;
wire [15:0] cur_ip_total, cur_payload_len;
wire        m_done, m_vlan;
wire [4:0]  m_reason;
wire [15:0] m_frame_len, m_ip_total, m_payload_len, m_csum_rest;
wire [7:0]  m_l3_off, m_ip_hlen, m_tcp_hlen, m_payload_off, m_proto, m_tos, m_ttl;
wire        cur_vlan;
wire [7:0]  cur_l3_off;

/* verilator lint_off PINCONNECTEMPTY */
inc_tos_matcher #(.DATA_WIDTH(DATA_WIDTH), .RX(0)) matcher (
    .clk(clk), .rst(rst),
    .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_beat(beat), .s_tlast(s_axis_tlast),
    .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(cur_hdr_valid), .cur_hdr_ok(cur_hdr_ok), .cur_vlan(cur_vlan), .cur_l3_off(cur_l3_off),
    .cur_ip_hlen(cur_ip_hlen), .cur_tcp_hlen(cur_tcp_hlen), .cur_ip_total(cur_ip_total),
    .cur_payload_off(cur_payload_off), .cur_payload_len(cur_payload_len),
    .m_done(m_done), .m_reason(m_reason), .m_frame_len(m_frame_len), .m_vlan(m_vlan),
    .m_l3_off(m_l3_off), .m_ip_hlen(m_ip_hlen), .m_tcp_hlen(m_tcp_hlen), .m_hdr_len(),
    .m_ip_total(m_ip_total), .m_payload_off(m_payload_off),
    .m_payload_len(m_payload_len), .m_proto(m_proto), .m_tos(m_tos), .m_ttl(m_ttl),
    .m_csum_rest(m_csum_rest)
);
/* verilator lint_on PINCONNECTEMPTY */


// --------------------------------------------------------------------------
// Payload beat generation (realignment)
// --------------------------------------------------------------------------
// The payload path runs DLY = 5 cycles behind the input (D1): the
// matcher's live view (3 cycles behind the capture) and the q1 and q
// registers meet each beat there: when D1 holds beat i, q_* are the parse
// of beats 0..i-1, which hold the TCP data-offset byte for every payload
// beat (the payload starts at byte 54 or later, in a beat after the one
// holding the data offset or in that same beat). The parse of the cycle
// after the tlast beat is still the finished frame's, so the end-of-frame
// flush (E2, DLY + 1 cycles after tlast) sees it in q_* too; the next
// frame's first two beats produce no payload beat.
wire        hdr_ok   = cur_hdr_valid && cur_hdr_ok && cur_payload_len != 16'd0;

// q1: the parse's fields; q: the bounds of the payload beats in input beat
// indices, so that stage X only compares and subtracts. Payload beat j is
// formed when D1 holds input beat b1 + j (b1 = P/32 + 1), j < npb.
reg           q1_ok_reg = 1'b0;
reg [3:0]     q1_b1_reg = 0;               // payload offset / 32 + 1
reg [4:0]     q1_sft_reg = 0;              // payload offset mod 32
reg [BW-1:0]  q1_npb_reg = 0;              // payload beats
reg [13:0]    q1_nvals_reg = 0;            // floats
reg [1:0]     q1_ntail_reg = 0;            // tail bytes
reg [5:0]     q1_off_reg = 0;              // (payload offset + 6) mod 64
reg [6:0]     q1_tcs_reg = 0;              // offset of the TCP checksum (L4 + 16) / 2, <= 47

reg           q_ok_reg = 1'b0;
reg [4:0]     sft_reg = 0;
reg [BW-1:0]  q_b1_reg = 0;                // input beat of payload beat 0
reg [BW-1:0]  q_end_reg = 0;               // b1 + npb
reg [BW-1:0]  q_tidx_reg = 0;              // input beat of the tail's payload beat: b1 + nvals / 8
reg [15:0]    q_nvb_reg = 0;               // nvals + 8 * b1: values left at input beat i = this - 8i
reg [1:0]     ntail_reg = 0;
reg [5:0]     q_off_reg = 0;
reg [6:0]     q_tcs_reg = 0;

always @(posedge clk) begin
    q1_ok_reg    <= hdr_ok;
    q1_tcs_reg   <= cur_l3_off[7:1] + cur_ip_hlen[7:1] + 7'd8;
    q1_b1_reg    <= {1'b0, cur_payload_off[7:5]} + 4'd1;
    q1_sft_reg   <= cur_payload_off[4:0];
    q1_npb_reg   <= cur_payload_len[15:5] + {10'd0, cur_payload_len[4:0] != 5'd0};
    q1_nvals_reg <= cur_payload_len[15:2];
    q1_ntail_reg <= cur_payload_len[1:0];
    q1_off_reg   <= cur_payload_off[5:0] + SHIM[5:0];

    q_ok_reg   <= q1_ok_reg;
    sft_reg    <= q1_sft_reg;
    q_b1_reg   <= {{(BW-4){1'b0}}, q1_b1_reg};
    q_end_reg  <= {{(BW-4){1'b0}}, q1_b1_reg} + q1_npb_reg;
    q_tidx_reg <= {{(BW-4){1'b0}}, q1_b1_reg} + {1'b0, q1_nvals_reg[13:3]};
    q_nvb_reg  <= {2'b00, q1_nvals_reg} + {9'd0, q1_b1_reg, 3'b000};
    ntail_reg  <= q1_ntail_reg;
    q_off_reg  <= q1_off_reg;
    q_tcs_reg  <= q1_tcs_reg;
    if (rst) begin
        q1_ok_reg <= 1'b0;
        q_ok_reg  <= 1'b0;
    end
end

// The sender's TCP checksum, from the D1 beat that holds L4 + 16 (beat 1
// or 2; the IHL in beat 0 is parsed by then). It stays until the next
// frame's beat 1 is in D1, after the finished frame's token has taken it.
reg  [15:0] hc_reg = 0;
wire [BW-1:0] tcs_beat = {{(BW-2){1'b0}}, q_tcs_reg[5:4]};
reg  [15:0] tcs_word;
integer     tw;
always @* begin
    tcs_word = 16'd0;
    for (tw = 0; tw < DB / 2; tw = tw + 1) begin
        if (q_tcs_reg[3:0] == tw[3:0])
            tcs_word = {d1_data_reg[16*tw +: 8], d1_data_reg[16*tw + 8 +: 8]};
    end
end

always @(posedge clk) begin
    if (d1_valid_reg && d1_idx_reg == tcs_beat && d1_idx_reg != {BW{1'b0}})
        hc_reg <= tcs_word;
end

// the payload side's view of the frame
reg                  e2_reg = 1'b0;     // D1 held a tlast beat last cycle
reg [BW-1:0]         sel_idx_reg = 0;      // e2_reg ? the tlast beat's index + 1 : d1_idx_reg
wire [BW-1:0]        d1n_idx = dd_reg[DLY-2][2 * (OAW + 1) + DATA_WIDTH +: BW];   // D1's next index
reg [DATA_WIDTH-1:0] prev_reg = 0;      // the previous D1 beat
reg                  g_en_reg = 1'b0;
reg [6:0]            g_eb_reg = 0;
reg [OAW:0]          g_orig_base_reg = 0, g_orig_end_reg = 0;

always @(posedge clk) begin
    e2_reg <= d1_valid_reg && d1_last_reg;
    sel_idx_reg <= (d1_valid_reg && d1_last_reg) ? d1_idx_reg + 1'b1 : d1n_idx;
    if (d1_valid_reg) begin
        prev_reg    <= d1_data_reg;
        g_en_reg        <= d1_en_reg;
        g_eb_reg        <= d1_eb_reg;
        g_orig_base_reg <= d1_orig_base_reg;
        g_orig_end_reg  <= d1_orig_end_reg;
    end
    if (rst) begin
        e2_reg      <= 1'b0;
        sel_idx_reg <= {BW{1'b0}};   // D1's index after a reset
    end
end

// The input beat index whose payload beat is formed: D1's, or for the
// end-of-frame flush (e2_reg) the held last beat's index + 1; sel_idx_reg
// holds it, chosen a cycle ahead from the next D1 bundle, and the compares
// with the payload bounds are gates from registers.
wire [15:0]   idx_sel   = {{(16-BW){1'b0}}, sel_idx_reg};
wire [15:0]   b1_16     = {{(16-BW){1'b0}}, q_b1_reg};
wire [15:0]   end_16    = {{(16-BW){1'b0}}, q_end_reg};
wire [15:0]   nvb_16    = {3'b000, q_nvb_reg[15:3]};
wire          sel_in    = inc_lge16(idx_sel, b1_16) && !inc_lge16(idx_sel, end_16);
wire          sel_lt_nvb = !inc_lge16(idx_sel, nvb_16);
wire          sel_eq_nvb = idx_sel == nvb_16;
wire          gen_beat  = d1_valid_reg && q_ok_reg && sel_in && !e2_reg;
wire          gen_flush = e2_reg && q_ok_reg && sel_in;
wire [2*DATA_WIDTH-1:0] gen_pair = e2_reg ? {{DATA_WIDTH{1'b0}}, prev_reg}
                                          : {d1_data_reg, prev_reg};
wire [2*DATA_WIDTH-1:0] gen_shift = gen_pair >> {sft_reg, 3'b000};

// values left from lane 0 of this payload beat: nvals - 8 * (sel - b1) =
// 8 * (nvb / 8 - sel) + nvals mod 8: compares instead of a subtraction
wire [3:0]    gen_nv    = sel_lt_nvb ? LANES[3:0] : sel_eq_nvb ? {1'b0, q_nvb_reg[2:0]} : 4'd0;
wire          gen_tail  = ntail_reg != 2'd0 && sel_idx_reg == q_tidx_reg;

// Stage X: one item per cycle: a payload beat, and/or the end-of-frame token
reg                  x_valid_reg = 1'b0, x_has_reg = 1'b0, x_last_reg = 1'b0, x_start_reg = 1'b0;
reg [DATA_WIDTH-1:0] x_data_reg = 0;
reg [3:0]            x_nv_reg = 0;
reg [1:0]            x_tail_reg = 0;
reg [5:0]            x_off_reg = 0;
reg [6:0]            x_eb_reg = 0;
reg                  x_en_reg = 1'b0;
reg [OAW:0]          x_orig_base_reg = 0, x_orig_end_reg = 0;
reg [15:0]           x_hc_reg = 0;
reg [6:0]            x_tcs_reg = 0;

always @(posedge clk) begin
    x_valid_reg <= gen_beat || e2_reg;
    x_hc_reg    <= hc_reg;
    x_tcs_reg   <= q_tcs_reg;
    x_has_reg   <= e2_reg ? gen_flush : gen_beat;
    x_last_reg  <= e2_reg;
    x_start_reg <= sel_idx_reg == q_b1_reg;
    x_data_reg  <= gen_shift[DATA_WIDTH-1:0];
    x_nv_reg    <= gen_nv;
    x_tail_reg  <= gen_tail ? ntail_reg : 2'd0;
    x_off_reg   <= q_off_reg;
    // with e2_reg, D1 may already hold the next frame's first beat: the
    // token takes the finished frame's values from the g_* registers
    x_eb_reg    <= e2_reg ? g_eb_reg : d1_eb_reg;   // clamped at the frame's first beat
    x_en_reg    <= g_en_reg;
    x_orig_base_reg <= g_orig_base_reg;
    x_orig_end_reg  <= g_orig_end_reg;
    if (rst)
        x_valid_reg <= 1'b0;
end

// the matcher's snapshot one cycle later, for the token in stage X
reg         md_done_reg = 1'b0, md_vlan_reg = 1'b0;
reg  [4:0]  md_reason_reg = 0;
reg  [15:0] md_frame_len_reg = 0, md_plen_reg = 0, md_csum_rest_reg = 0;
reg  [7:0]  md_poff_reg = 0, md_ip_hlen_reg = 0, md_tcp_hlen_reg = 0, md_ttl_reg = 0;

always @(posedge clk) begin
    md_done_reg      <= m_done;
    md_reason_reg    <= m_reason;
    md_frame_len_reg <= m_frame_len;
    md_plen_reg      <= m_payload_len;
    md_csum_rest_reg <= m_csum_rest;
    md_poff_reg      <= m_payload_off;
    md_ip_hlen_reg   <= m_ip_hlen;
    md_tcp_hlen_reg  <= m_tcp_hlen;
    md_ttl_reg       <= m_ttl;
    md_vlan_reg      <= m_vlan;
    if (rst)
        md_done_reg <= 1'b0;
end

`ifndef SYNTHESIS
always @(posedge clk) begin
    if (!rst && md_done_reg != (x_valid_reg && x_last_reg)) begin
        $display("inc_compress_core: matcher result out of step with the end-of-frame token");
        $stop;
    end
end
`endif
`ifdef FORMAL
// the simulation check above, as an assertion (formal/)
always @(posedge clk) begin
    if (!rst)
        assert(md_done_reg == (x_valid_reg && x_last_reg));
end
`endif

// ==========================================================================
// Compress: stage B (compression blocks), stage C (group packing + tail
// chunk), then the align unit
// ==========================================================================
wire [2*LANES-1:0]   blk_tags;
wire [DATA_WIDTH-1:0] blk_pay;
wire [DATA_WIDTH-1:0] blk_orig;         // the valid lanes' original values, else 0
wire [LANES-1:0]      blk_valid;

genvar li;
generate
    for (li = 0; li < LANES; li = li + 1) begin : lane
        wire [1:0]  tag;
        wire [31:0] pay;
        wire        valid = li < x_nv_reg;

        inc_compress_block #(.EB_CLAMPED(1)) blk (
            .in_value(x_data_reg[li*32 +: 32]), .in_eb(x_eb_reg),
            .out_tag(tag), .out_payload(pay)
        );
        assign blk_tags[2*li +: 2]  = valid ? tag : 2'd0;
        assign blk_pay[li*32 +: 32] = valid ? pay : 32'd0;
        assign blk_orig[li*32 +: 32] = valid ? x_data_reg[li*32 +: 32] : 32'd0;
        assign blk_valid[li] = valid && x_has_reg;
    end
endgenerate

wire [DATA_WIDTH-1:0] tail_src = x_data_reg >> {x_nv_reg, 5'b00000};    // 4*nv bytes
wire [23:0]           tail_raw = tail_src[23:0];

reg                   b_valid_reg = 1'b0, b_has_reg = 1'b0, b_last_reg = 1'b0, b_start_reg = 1'b0;
reg                   b_nz_reg = 1'b0;
reg [2*LANES-1:0]     b_tags_reg = 0;
reg [DATA_WIDTH-1:0]  b_pay_reg = 0;
reg [23:0]            b_tail_bytes_reg = 0;
reg [1:0]             b_tail_reg = 0;
reg [5:0]             b_off_reg = 0;
// end-of-frame token: the matcher's snapshot and the frame's buffers
reg                   b_en_reg = 1'b0, b_vlan_reg = 1'b0;
reg [4:0]             b_reason_reg = 0;
reg [15:0]            b_frame_len_reg = 0, b_plen_reg = 0, b_csum_rest_reg = 0;
reg [7:0]             b_poff_reg = 0, b_ip_hlen_reg = 0, b_tcp_hlen_reg = 0, b_ttl_reg = 0;
reg [OAW:0]           b_orig_base_reg = 0, b_orig_end_reg = 0;
reg [DATA_WIDTH-1:0]  b_orig_reg = 0;
reg [LANES-1:0]       b_lvalid_reg = 0;
reg [15:0]            b_hcb_reg = 0;   // the sender's TCP checksum of this beat's frame
reg [6:0]             b_tcs_reg = 0;

always @(posedge clk) begin
    b_valid_reg <= x_valid_reg;
    b_orig_reg  <= blk_orig;
    b_hcb_reg   <= x_hc_reg;
    b_lvalid_reg <= blk_valid;
    b_has_reg   <= x_has_reg;
    b_last_reg  <= x_last_reg;
    b_start_reg <= x_start_reg && x_has_reg;
    b_nz_reg    <= x_nv_reg != 4'd0;
    b_tags_reg  <= blk_tags;
    b_pay_reg   <= blk_pay;
    b_tail_bytes_reg <= x_tail_reg == 2'd1 ? {16'd0, tail_raw[7:0]} :
                    x_tail_reg == 2'd2 ? {8'd0, tail_raw[15:0]} :
                    x_tail_reg == 2'd3 ? tail_raw : 24'd0;
    b_tail_reg  <= x_tail_reg;
    b_off_reg   <= x_off_reg;
    if (x_last_reg) begin
        // the token is in stage X seven cycles after the tlast beat
        // (DLY + 2), one after the matcher presents m_done and its
        // snapshot of the frame (registered in md_*)
        b_en_reg        <= x_en_reg;
        b_reason_reg    <= md_reason_reg;
        b_frame_len_reg <= md_frame_len_reg;
        b_plen_reg      <= md_plen_reg;
        b_csum_rest_reg <= md_csum_rest_reg;
        b_poff_reg      <= md_poff_reg;
        b_ip_hlen_reg   <= md_ip_hlen_reg;
        b_tcp_hlen_reg  <= md_tcp_hlen_reg;
        b_ttl_reg       <= md_ttl_reg;
        b_vlan_reg      <= md_vlan_reg;
        b_orig_base_reg <= x_orig_base_reg;
        b_orig_end_reg  <= x_orig_end_reg;
        b_tcs_reg       <= x_tcs_reg;
    end
    if (rst)
        b_valid_reg <= 1'b0;
end

// Checksum update terms of a payload beat, per valid lane: the restored
// value's two 16-bit words and the complements of the original's (the
// words are the lane's bytes 0-1 and 2-3, big-endian as on the wire), 0
// for invalid lanes. They are summed modulo 0xffff without carry chains:
// registered in B2, five carry-save levels (inc_csum_csa) into C, three
// into C2, and a carry-save accumulator of two words per frame; one
// end-around adder in F3 gives HC' (equal to the model's fold: the
// reductions give all-zero words only for all-zero inputs).
wire [64*LANES-1:0] lane_words;

reg [DATA_WIDTH-1:0] b1_orig_reg = 0;
reg [LANES-1:0]      b1_lvalid_reg = 0;

always @(posedge clk) begin
    b1_orig_reg   <= b_orig_reg;
    b1_lvalid_reg <= b_lvalid_reg;
end

generate
    for (li = 0; li < LANES; li = li + 1) begin : lane_q
        wire [31:0] q;      // one cycle after b_*, beside b1_*
        wire [31:0] x = b1_orig_reg[li*32 +: 32];

        inc_decompress_block #(.PIPE(1)) dblk (
            .clk(clk), .tag(b_tags_reg[2*li +: 2]), .payload(b_pay_reg[li*32 +: 32]), .value(q)
        );
        assign lane_words[64*li +: 64] = b1_lvalid_reg[li] ?
            {q[7:0], q[15:8], q[23:16], q[31:24], ~{x[7:0], x[15:8]}, ~{x[23:16], x[31:24]}} : 64'd0;
    end
endgenerate

wire [GRP_BYTES*8-1:0] grp;
wire [7:0]             grp_len;

inc_group_pack #(.LANES(LANES), .PIPE(1)) pack (     // grp: one cycle after b_*
    .clk(clk), .in_tags(b_tags_reg), .in_payloads(b_pay_reg), .out_group(grp), .out_len(grp_len)
);

// Stage B1: everything of B one cycle later (one bundle), beside the group
// packer's and the restored values' register (the packing tree and the
// decompression blocks each take two cycles).
wire [15:0]                b1_csum_rest_reg;
wire                       b1_en_reg;
wire [15:0]                b1_frame_len_reg;
wire                       b1_has_reg;
wire [15:0]                b1_hcb_reg;
wire [7:0]                 b1_ip_hlen_reg;
wire                       b1_last_reg;
wire                       b1_nz_reg;
wire [5:0]                 b1_off_reg;
wire [OAW:0]               b1_orig_base_reg;
wire [OAW:0]               b1_orig_end_reg;
wire [15:0]                b1_plen_reg;
wire [7:0]                 b1_poff_reg;
wire [4:0]                 b1_reason_reg;
wire                       b1_start_reg;
wire [2*LANES-1:0]         b1_tags_reg;
wire [1:0]                 b1_tail_reg;
wire [23:0]                b1_tail_bytes_reg;
wire [7:0]                 b1_tcp_hlen_reg;
wire [6:0]                 b1_tcs_reg;
wire [7:0]                 b1_ttl_reg;
wire                       b1_vlan_reg;
reg                        b1_valid_reg = 1'b0;
localparam B1W = 146 + 2 * (OAW + 1) + 2 * LANES;   // the fields above
reg  [B1W-1:0]             b1_bundle_reg = {B1W{1'b0}};
assign {b1_csum_rest_reg, b1_en_reg, b1_frame_len_reg, b1_has_reg,
        b1_hcb_reg, b1_ip_hlen_reg, b1_last_reg, b1_nz_reg, b1_off_reg,
        b1_orig_base_reg, b1_orig_end_reg, b1_plen_reg, b1_poff_reg,
        b1_reason_reg, b1_start_reg, b1_tags_reg, b1_tail_reg,
        b1_tail_bytes_reg, b1_tcp_hlen_reg, b1_tcs_reg, b1_ttl_reg,
        b1_vlan_reg} = b1_bundle_reg;

always @(posedge clk) begin
    b1_bundle_reg <= {b_csum_rest_reg, b_en_reg, b_frame_len_reg, b_has_reg, b_hcb_reg,
                      b_ip_hlen_reg, b_last_reg, b_nz_reg, b_off_reg, b_orig_base_reg,
                      b_orig_end_reg, b_plen_reg, b_poff_reg, b_reason_reg, b_start_reg,
                      b_tags_reg, b_tail_reg, b_tail_bytes_reg, b_tcp_hlen_reg,
                      b_tcs_reg, b_ttl_reg, b_vlan_reg};
    b1_valid_reg  <= b_valid_reg;
    if (rst)
        b1_valid_reg <= 1'b0;
end

// Stage B2: the packed group registered (the packing tree and the tail
// insertion in one cycle were the longest path; the tree now spans B1
// and B2), everything else of B through B1.
reg [GRP_BYTES*8-1:0] b2_grp_reg = 0;
reg [7:0]             b2_grp_len_reg = 0;
reg [7:0]             b2_clen_reg = 0;      // the chunk: group + tail bytes (0 without a payload beat)
reg [64*LANES-1:0]    b2_words_reg = 0;
reg [15:0]            b2_csum_rest_reg = 0;
reg                   b2_en_reg = 1'b0;
reg [15:0]            b2_frame_len_reg = 0;
reg                   b2_has_reg = 1'b0;
reg [15:0]            b2_hcb_reg = 0;
reg [7:0]             b2_ip_hlen_reg = 0;
reg                   b2_last_reg = 1'b0;
reg                   b2_nz_reg = 1'b0;
reg [5:0]             b2_off_reg = 0;
reg [OAW:0]           b2_orig_base_reg = 0;
reg [OAW:0]           b2_orig_end_reg = 0;
reg [15:0]            b2_plen_reg = 0;
reg [7:0]             b2_poff_reg = 0;
reg [4:0]             b2_reason_reg = 0;
reg                   b2_start_reg = 1'b0;
reg [2*LANES-1:0]     b2_tags_reg = 0;
reg [23:0]            b2_tail_bytes_reg = 0;
reg [7:0]             b2_tcp_hlen_reg = 0;
reg [6:0]             b2_tcs_reg = 0;
reg [7:0]             b2_ttl_reg = 0;
reg                   b2_valid_reg = 1'b0;
reg                   b2_vlan_reg = 1'b0;

always @(posedge clk) begin
    b2_grp_reg       <= grp;
    b2_grp_len_reg   <= grp_len;
    b2_clen_reg      <= b1_has_reg ? inc_lsum(b1_nz_reg ? grp_len : 8'd0, {6'd0, b1_tail_reg}) : 8'd0;
    b2_words_reg     <= lane_words;
    b2_csum_rest_reg  <= b1_csum_rest_reg;
    b2_en_reg         <= b1_en_reg;
    b2_frame_len_reg  <= b1_frame_len_reg;
    b2_has_reg        <= b1_has_reg;
    b2_hcb_reg        <= b1_hcb_reg;
    b2_ip_hlen_reg    <= b1_ip_hlen_reg;
    b2_last_reg       <= b1_last_reg;
    b2_nz_reg         <= b1_nz_reg;
    b2_off_reg        <= b1_off_reg;
    b2_orig_base_reg  <= b1_orig_base_reg;
    b2_orig_end_reg   <= b1_orig_end_reg;
    b2_plen_reg       <= b1_plen_reg;
    b2_poff_reg       <= b1_poff_reg;
    b2_reason_reg     <= b1_reason_reg;
    b2_start_reg      <= b1_start_reg;
    b2_tags_reg       <= b1_tags_reg;
    b2_tail_bytes_reg <= b1_tail_bytes_reg;
    b2_tcp_hlen_reg   <= b1_tcp_hlen_reg;
    b2_tcs_reg        <= b1_tcs_reg;
    b2_ttl_reg        <= b1_ttl_reg;
    b2_valid_reg      <= b1_valid_reg;
    b2_vlan_reg       <= b1_vlan_reg;
    if (rst) begin
        b2_valid_reg <= 1'b0;
        // (the reset also keeps these two flip-flops: without one, synthesis
        // folds them into a shift register with their copies before, whose
        // clock-to-out is twice a flip-flop's, in front of the align loop)
        b2_start_reg <= 1'b0;
        b2_off_reg   <= 6'd0;
    end
end

wire [7:0]             glen_eff  = b2_nz_reg ? b2_grp_len_reg : 8'd0;
wire [GRP_BYTES*8-1:0] grp_eff   = b2_nz_reg ? b2_grp_reg : {GRP_BYTES*8{1'b0}};
wire [GRP_BYTES*8-1:0] chunk     = grp_eff |
    ({{(GRP_BYTES*8-24){1'b0}}, b2_tail_bytes_reg} << {glen_eff, 3'b000});

reg                   c_valid_reg = 1'b0, c_has_reg = 1'b0, c_last_reg = 1'b0, c_start_reg = 1'b0;
reg [7:0]             c_len_reg = 0;
reg                   c_en_reg = 1'b0, c_vlan_reg = 1'b0;
reg [4:0]             c_reason_reg = 0;
reg [15:0]            c_frame_len_reg = 0, c_plen_reg = 0;
reg [7:0]             c_poff_reg = 0;
reg [OAW:0]           c_orig_base_reg = 0, c_orig_end_reg = 0;
reg [16*5-1:0]        c_dw_reg = 0;          // the beat's terms, five words
wire [64*LANES-1:0]   dw_csa1;
reg [2*LANES-1:0]     c_tw_reg = 0;          // the beat's tag word (0 without a group)
reg [15:0]            c_hcb_reg = 0;
reg [6:0]             c_tcs_reg = 0;
reg [7:0]             c_hl6_reg = 0, c_poff6_reg = 0;
reg [15:0]            c_plen_m6_reg = 0, c_pre_ck_reg = 0;
reg                   c_plen_small_reg = 1'b0, c_plen_zero_reg = 1'b0, c_oversize_reg = 1'b0;

inc_csum_csa #(.N(4 * LANES), .LEVELS(5)) dw_csa_c (.in_words(b2_words_reg), .out_words(dw_csa1));

always @(posedge clk) begin
    c_valid_reg <= b2_valid_reg;
    c_dw_reg    <= dw_csa1[16*5-1:0];
    c_hcb_reg   <= b2_hcb_reg;
    c_tw_reg    <= (b2_has_reg && b2_nz_reg) ? b2_tags_reg : {2*LANES{1'b0}};
    c_has_reg   <= b2_has_reg;
    c_last_reg  <= b2_last_reg;
    c_start_reg <= b2_start_reg;
    c_len_reg   <= b2_clen_reg;
    if (b2_last_reg) begin
        c_en_reg        <= b2_en_reg;
        c_reason_reg    <= b2_reason_reg;
        c_frame_len_reg <= b2_frame_len_reg;
        c_plen_reg      <= b2_plen_reg;
        c_poff_reg      <= b2_poff_reg;
        c_vlan_reg      <= b2_vlan_reg;
        c_orig_base_reg <= b2_orig_base_reg;
        c_orig_end_reg  <= b2_orig_end_reg;
        c_tcs_reg       <= b2_tcs_reg;
        // the constant parts of the decision's sums
        c_hl6_reg        <= b2_ip_hlen_reg + b2_tcp_hlen_reg + SHIM;   // <= 126
        c_poff6_reg      <= b2_poff_reg + SHIM;                       // <= 144
        c_plen_m6_reg    <= b2_plen_reg - {8'd0, SHIM};
        c_plen_small_reg <= b2_plen_reg < {8'd0, SHIM};
        c_plen_zero_reg  <= b2_plen_reg == 16'd0;
        c_oversize_reg   <= {16'd0, b2_frame_len_reg} > MAX_FRAME;
        c_pre_ck_reg     <= ones_add(b2_csum_rest_reg, {b2_ttl_reg, 8'd253});
    end
    if (rst)
        c_valid_reg <= 1'b0;
end

wire                   a0_valid, a1_valid;
wire [ROW_BYTES*8-1:0] a0_data, a1_data;
wire [7:0]             a0_count, a1_count;

// The chunk of B2 (zero from its length on: the packer clears the bytes
// past the group, the tail is masked by its count); the align unit
// registers it with its place in the row (IN_REG), in step with stage C,
// so its rows come out when they did with the chunk taken from C.
inc_align_unit #(.IN_BYTES(GRP_BYTES), .OUT_BYTES(ROW_BYTES), .MASK_IN(0), .IN_REG(1)) align (
    .clk(clk), .rst(rst),
    .in_valid(b2_valid_reg), .in_data(b2_has_reg ? chunk : {GRP_BYTES*8{1'b0}}), .in_len(b2_clen_reg),
    .in_start(b2_start_reg), .in_offset({2'b00, b2_off_reg}), .in_last(b2_last_reg),
    .out0_valid(a0_valid), .out0_data(a0_data), .out0_count(a0_count),
    .out1_valid(a1_valid), .out1_data(a1_data), .out1_count(a1_count)
);


// --------------------------------------------------------------------------
// Decision, in three stages behind the token in stage C: F (the frame's
// chunk bytes; the comp RAM bookkeeping lines up with the align unit's last
// rows here), F2 (lengths and the outcome), F3 (checksums) -> metadata FIFO.
// One adder per stage: the constant parts of the sums are formed when the
// token enters stage C.
// --------------------------------------------------------------------------
`include "inc_lsum.vh"

reg  [15:0] csum_acc_reg = 0;          // chunk bytes of the frame so far
wire [15:0] chunks   = csum_acc_reg + {8'd0, c_len_reg};     // stream + tail bytes

// The sum modulo 2^16 of the frame's tag words, for the shim.
reg  [15:0] tsum_acc_reg = 0;
wire [15:0] tsum_total = tsum_acc_reg + c_tw_reg;

// stage F: the token with its chunk bytes
reg         f_valid_reg = 1'b0;
reg  [15:0] f_chunks_reg = 0, f_tsum_reg = 0, f_frame_len_reg = 0, f_plen_reg = 0;
reg  [15:0] f_plen_m6_reg = 0, f_pre_ck_reg = 0;
reg  [7:0]  f_hl6_reg = 0, f_poff6_reg = 0, f_poff_reg = 0;
reg         f_oversize_reg = 1'b0, f_en_reg = 1'b0, f_plen_zero_reg = 1'b0, f_plen_small_reg = 1'b0;
reg         f_vlan_reg = 1'b0;
reg  [4:0]  f_reason_in_reg = 0;
reg  [OAW:0] f_orig_base_reg = 0, f_orig_end_reg = 0;
reg  [6:0]  f_tcs_reg = 0;

always @(posedge clk) begin
    if (c_valid_reg) begin
        csum_acc_reg <= c_last_reg ? 16'd0 : chunks;
        tsum_acc_reg <= c_last_reg ? 16'd0 : tsum_total;
    end
    f_valid_reg      <= c_valid_reg && c_last_reg;
    f_chunks_reg     <= chunks;
    f_tsum_reg       <= tsum_total;
    f_frame_len_reg  <= c_frame_len_reg;
    f_plen_reg       <= c_plen_reg;
    f_plen_m6_reg    <= c_plen_m6_reg;
    f_plen_small_reg <= c_plen_small_reg;
    f_plen_zero_reg  <= c_plen_zero_reg;
    f_pre_ck_reg     <= c_pre_ck_reg;
    f_hl6_reg        <= c_hl6_reg;
    f_poff6_reg      <= c_poff6_reg;
    f_poff_reg       <= c_poff_reg;
    f_oversize_reg   <= c_oversize_reg;
    f_en_reg         <= c_en_reg;
    f_reason_in_reg  <= c_reason_reg;
    f_vlan_reg       <= c_vlan_reg;
    f_orig_base_reg  <= c_orig_base_reg;
    f_orig_end_reg   <= c_orig_end_reg;
    f_tcs_reg        <= c_tcs_reg;
    if (rst) begin
        f_valid_reg <= 1'b0;
        csum_acc_reg <= 0;
        tsum_acc_reg <= 0;
    end
end

// The frame's checksum update terms, one stage behind C (C2, in step with
// F): the beat's five words reduced to two, then the carry-save
// accumulator; the first payload beat starts from ~HC (captured before any
// payload beat). The total (two words) is registered into F2 with the token.
wire [16*5-1:0] dw_csa2;
inc_csum_csa #(.N(5), .LEVELS(3)) dw_csa_c2 (.in_words(c_dw_reg), .out_words(dw_csa2));

reg         c2_valid_reg = 1'b0, c2_start_reg = 1'b0, c2_last_reg = 1'b0;
reg  [31:0] c2_dw_reg = 0;
reg  [15:0] c2_hcb_reg = 0;
reg  [31:0] dsum_acc_reg = 0;          // two words
wire [31:0] dsum_base = c2_start_reg ? {16'd0, ~c2_hcb_reg} : dsum_acc_reg;
wire [63:0] dsum_acc4;
inc_csum_csa #(.N(4), .LEVELS(2)) dw_csa_acc (.in_words({c2_dw_reg, dsum_base}), .out_words(dsum_acc4));
wire [31:0] dsum_total = dsum_acc4[31:0];

always @(posedge clk) begin
    c2_valid_reg <= c_valid_reg;
    c2_start_reg <= c_start_reg;
    c2_last_reg  <= c_last_reg;
    c2_dw_reg    <= dw_csa2[31:0];
    c2_hcb_reg   <= c_hcb_reg;
    if (c2_valid_reg)
        dsum_acc_reg <= c2_last_reg ? 32'd0 : dsum_total;
    if (rst) begin
        c2_valid_reg <= 1'b0;
        dsum_acc_reg <= 0;
    end
end

// stage F2: lengths and the outcome
wire [15:0] new_tot    = f_chunks_reg + {8'd0, f_hl6_reg};     // IHL*4 + THL + shim + stream + tail
wire [15:0] comp_len   = f_chunks_reg + {8'd0, f_poff6_reg};   // the compressed frame
// not_smaller: shim + stream + tail >= payload length
wire        not_smaller = f_plen_small_reg || f_chunks_reg >= f_plen_m6_reg;

// The reasons before not_smaller are decided from registers (pre_*);
// the length compare, the late input, only chooses at the end.
reg  [1:0]  dec_mode;
reg  [2:0]  dec_outcome;
reg  [4:0]  dec_reason;
reg  [4:0]  pre_reason;
reg         pre_ok;                    // no reason before not_smaller
always @* begin
    pre_ok     = 1'b0;
    pre_reason = f_reason_in_reg;
    if (f_oversize_reg)
        pre_reason = R_OVERSIZE;
    else if (!f_en_reg)
        pre_reason = R_DISABLED;
    else if (f_reason_in_reg != R_NONE)
        pre_reason = f_reason_in_reg;
    else if (f_plen_zero_reg)
        pre_reason = R_NO_PAYLOAD;
    else
        pre_ok = 1'b1;
    dec_mode    = f_oversize_reg ? M_DROP : M_BYPASS;
    dec_outcome = f_oversize_reg ? O_DROPPED : O_BYPASS;
    dec_reason  = pre_reason;
    if (pre_ok) begin
        if (not_smaller) begin
            dec_reason  = R_NOT_SMALLER;
        end else begin
            dec_mode    = M_COMP;
            dec_outcome = O_COMPRESSED;
            dec_reason  = R_NONE;
        end
    end
end

reg         f2_valid_reg = 1'b0;
reg  [1:0]  f2_mode_reg = 0;
reg  [2:0]  f2_outcome_reg = 0;
reg  [4:0]  f2_reason_reg = 0;
reg  [15:0] f2_bytes_in_reg = 0, f2_comp_len_reg = 0, f2_total_reg = 0, f2_plen_reg = 0;
reg  [15:0] f2_pre_ck_reg = 0, f2_tsum_reg = 0;
reg  [7:0]  f2_poff_reg = 0, f2_poff6_reg = 0;
reg         f2_vlan_reg = 1'b0;
reg  [OAW:0] f2_orig_base_reg = 0, f2_orig_end_reg = 0;
reg  [CAW:0] f2_comp_base_reg = 0, f2_comp_end_reg = 0;
reg  [31:0] f2_dsum_reg = 0;
reg  [6:0]  f2_tcs_reg = 0;
wire [CAW:0] comp_wr_next;

always @(posedge clk) begin
    f2_valid_reg     <= f_valid_reg;
    f2_mode_reg      <= dec_mode;
    f2_outcome_reg   <= dec_outcome;
    f2_reason_reg    <= dec_reason;
    f2_bytes_in_reg  <= f_frame_len_reg;
    f2_comp_len_reg  <= comp_len;
    f2_total_reg     <= new_tot;
    f2_plen_reg      <= f_plen_reg;
    f2_pre_ck_reg    <= f_pre_ck_reg;
    f2_tsum_reg      <= f_tsum_reg;
    f2_poff_reg      <= f_poff_reg;
    f2_poff6_reg     <= f_poff6_reg;
    f2_vlan_reg      <= f_vlan_reg;
    f2_orig_base_reg <= f_orig_base_reg;
    f2_orig_end_reg  <= f_orig_end_reg;
    f2_comp_base_reg <= comp_base_reg;     // the frame's rows (see the comp RAM)
    f2_comp_end_reg  <= comp_wr_next;
    f2_dsum_reg      <= dsum_total;
    f2_tcs_reg       <= f_tcs_reg;
    if (rst)
        f2_valid_reg <= 1'b0;
end

// stage F3: the new IP checksum ~fold(rest + total + TTL:253) (rest and
// TTL:253 summed in C) and HC' = ~fold(~HC + terms), as v2_csum in
// sw-model/src/frame.c (~HC is in the total already)
reg         f3_valid_reg = 1'b0;
reg  [1:0]  f3_mode_reg = 0;
reg  [2:0]  f3_outcome_reg = 0;
reg  [4:0]  f3_reason_reg = 0;
reg  [15:0] f3_bytes_in_reg = 0, f3_out_len_reg = 0, f3_total_reg = 0, f3_csum_reg = 0, f3_plen_reg = 0;
reg  [15:0] f3_tcs_reg = 0, f3_tsum_reg = 0;
reg  [7:0]  f3_poff_reg = 0;
reg         f3_vlan_reg = 1'b0;
reg  [OAW:0] f3_orig_base_reg = 0, f3_orig_end_reg = 0;
reg  [CAW:0] f3_comp_adj_reg = 0, f3_comp_end_reg = 0;
reg  [BW-1:0] f3_lastb_reg = 0;
reg  [6:0]  f3_tcs_off_reg = 0;

always @(posedge clk) begin
    f3_valid_reg     <= f2_valid_reg;
    f3_mode_reg      <= f2_mode_reg;
    f3_outcome_reg   <= f2_outcome_reg;
    f3_reason_reg    <= f2_reason_reg;
    f3_bytes_in_reg  <= f2_bytes_in_reg;
    f3_out_len_reg   <= f2_mode_reg == M_DROP ? 16'd0 :
                        f2_mode_reg == M_COMP ? f2_comp_len_reg : f2_bytes_in_reg;
    f3_total_reg     <= f2_total_reg;
    f3_csum_reg      <= ~ones_add(f2_pre_ck_reg, f2_total_reg);
    f3_tcs_reg       <= ~ones_add(f2_dsum_reg[15:0], f2_dsum_reg[31:16]);
    f3_tsum_reg      <= f2_tsum_reg;
    f3_plen_reg      <= f2_plen_reg;
    f3_poff_reg      <= f2_poff_reg;
    f3_vlan_reg      <= f2_vlan_reg;
    f3_orig_base_reg <= f2_orig_base_reg;
    f3_orig_end_reg  <= f2_orig_end_reg;
    // the first row read for output beat b is comp_adj + b/2: the frame's
    // first row less the rows the header and shim occupy, (P + 6) / 64
    f3_comp_adj_reg  <= f2_comp_base_reg - {{(CAW-1){1'b0}}, f2_poff6_reg[7:6]};
    // index of the last output beat
    f3_lastb_reg     <= f2_mode_reg == M_COMP ? f2_comp_len_reg[15:5] - {10'd0, f2_comp_len_reg[4:0] == 5'd0}
                                              : f2_bytes_in_reg[15:5] - {10'd0, f2_bytes_in_reg[4:0] == 5'd0};
    f3_comp_end_reg  <= f2_comp_end_reg;
    f3_tcs_off_reg   <= f2_tcs_reg;
    if (rst)
        f3_valid_reg <= 1'b0;
end

// --------------------------------------------------------------------------
// Comp RAM: rows of 64 bytes in two banks by row parity, so the last chunk
// of a frame can write two rows in one cycle.
// --------------------------------------------------------------------------
reg [CAW:0]           comp_base_reg = 0;     // first row of the current frame
reg [15:0]            frame_rows_reg = 0;    // rows of the current frame

// Rows beyond a frame's MAX_ROWS are not written (such a compressed form
// cannot be smaller than the frame). The limit is checked on the count one
// cycle old, so a frame writes at most MAX_ROWS + 3 rows.
reg         rows_ok_reg = 1'b1;
wire        w0 = a0_valid && rows_ok_reg;
wire        w1 = a1_valid && w0;
wire [CAW:0] comp_p1 = comp_wr_reg + 1'b1;
assign comp_wr_next = comp_wr_reg + {{CAW{1'b0}}, w0} + {{CAW{1'b0}}, w1};

// Consecutive rows alternate banks, so the two writes of a cycle never meet.
wire                  bank0_w0 = w0 && !comp_wr_reg[0];   // row 0 of the cycle to bank 0
wire                  bank1_w0 = w0 && comp_wr_reg[0];
wire                  bank0_we = bank0_w0 || (w1 && !comp_p1[0]);
wire                  bank1_we = bank1_w0 || (w1 && comp_p1[0]);
wire [CAW-2:0]        bank0_wa = bank0_w0 ? comp_wr_reg[CAW-1:1] : comp_p1[CAW-1:1];
wire [CAW-2:0]        bank1_wa = bank1_w0 ? comp_wr_reg[CAW-1:1] : comp_p1[CAW-1:1];
wire [ROW_BYTES*8-1:0] bank0_wd = bank0_w0 ? a0_data : a1_data;
wire [ROW_BYTES*8-1:0] bank1_wd = bank1_w0 ? a0_data : a1_data;

always @(posedge clk) begin
    comp_wr_reg <= comp_wr_next;
    if (f_valid_reg) begin
        comp_base_reg  <= comp_wr_next;
        frame_rows_reg <= 16'd0;
        rows_ok_reg    <= 1'b1;
    end else begin
        // every row the align unit emits (also those not written: the
        // count only has to pass MAX_ROWS), from its registered valids
        frame_rows_reg <= frame_rows_reg + {15'd0, a0_valid} + {15'd0, a1_valid};
        rows_ok_reg    <= {16'd0, frame_rows_reg} < MAX_ROWS;
    end
    if (pop)
        comp_rd_reg <= pop_comp_end;
    if (rst) begin
        comp_wr_reg <= 0;
        comp_rd_reg <= 0;
        comp_base_reg <= 0;
        frame_rows_reg <= 0;
        rows_ok_reg <= 1'b1;
    end
end

// --------------------------------------------------------------------------
// Metadata FIFO (one entry per frame) and statistics
// --------------------------------------------------------------------------
localparam MW = 2 + 16 + BW + 2*(OAW+1) + 2*(CAW+1) + 8 + 1 + 16 + 16 + 16 + 16 + 7 + 16;

wire [MW-1:0] mq_head;
wire         mq_valid;
/* verilator lint_off UNUSEDSIGNAL */ // never full: inflight_reg keeps a frame from starting
wire         mq_in_ready;
wire [MQW:0] mq_count;
/* verilator lint_on UNUSEDSIGNAL */

inc_fifo #(.WIDTH(MW), .DEPTH(MQDEPTH)) mq_fifo (
    .clk(clk), .rst(rst),
    .in_data({f3_mode_reg, f3_out_len_reg, f3_lastb_reg, f3_orig_base_reg, f3_orig_end_reg, f3_comp_adj_reg,
              f3_comp_end_reg, f3_poff_reg, f3_vlan_reg, f3_total_reg, f3_csum_reg, f3_plen_reg,
              f3_tcs_reg, f3_tcs_off_reg, f3_tsum_reg}),
    .in_valid(f3_valid_reg), .in_ready(mq_in_ready),
    .out_data(mq_head), .out_valid(mq_valid), .out_ready(pop), .count(mq_count)
);

reg        st_valid_reg = 1'b0;
reg [2:0]  st_outcome_reg = 0;
reg [4:0]  st_reason_reg = 0;
reg [15:0] st_in_reg = 0, st_out_reg = 0;

always @(posedge clk) begin
    st_valid_reg   <= f3_valid_reg;
    st_outcome_reg <= f3_outcome_reg;
    st_reason_reg  <= f3_reason_reg;
    st_in_reg      <= f3_bytes_in_reg;
    st_out_reg     <= f3_out_len_reg;
    if (rst)
        st_valid_reg <= 1'b0;
end

assign stat_valid     = st_valid_reg;
assign stat_outcome   = st_outcome_reg;
assign stat_reason    = st_reason_reg;
assign stat_bytes_in  = st_in_reg;
assign stat_bytes_out = st_out_reg;

// ==========================================================================
// Output: read beats of the head frame, patch, output FIFO
// ==========================================================================
wire          mq_empty = !mq_valid;
wire [1:0]    h_mode;
wire [15:0]   h_out_len, h_total, h_csum, h_plen, h_tcs, h_tsum;
wire [6:0]    h_tcs_off;                // (L4 + 16) / 2
wire [OAW:0]  h_orig_base, h_orig_end;
wire [CAW:0]  h_comp_adj, h_comp_end;
wire [BW-1:0] h_lastb_idx;
wire [7:0]    h_poff;
wire          h_vlan;
assign {h_mode, h_out_len, h_lastb_idx, h_orig_base, h_orig_end, h_comp_adj, h_comp_end,
        h_poff, h_vlan, h_total, h_csum, h_plen, h_tcs, h_tcs_off, h_tsum} = mq_head;

reg  [BW-1:0] ob_reg = 0;              // output beat of the head frame
wire [OFW:0]  of_count;                // beats in the output FIFO
reg           r_valid_reg = 1'b0;

wire          h_lastb  = ob_reg == h_lastb_idx;
reg           r2_valid_reg = 1'b0;
// beats in the output FIFO or on their way to it, as gates (a 5-bit function)
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]    of_busy  = inc_lsum(inc_lsum({{(7-OFW){1'b0}}, of_count}, {7'd0, r_valid_reg}), {7'd0, r2_valid_reg});
/* verilator lint_on UNUSEDSIGNAL */
wire          can_go   = of_busy[7:OFW] == 0;     // < OFDEPTH
wire          issue    = !mq_empty && h_mode != M_DROP && can_go;
assign pop          = !mq_empty && (h_mode == M_DROP || (issue && h_lastb));
assign pop_orig_end = h_orig_end;
assign pop_comp_end = h_comp_end;

wire [31:0]   ob_half   = {21'd0, ob_reg[BW-1:1]};
wire [CAW:0]  row_ptr   = h_comp_adj + ob_half[CAW:0];
wire [OAW:0]  orig_ptr  = h_orig_base + ob_reg[OAW:0];

// the head frame's beat in the original-frame RAM, its row in each bank
wire [DATA_WIDTH-1:0]  r_orig;
wire [ROW_BYTES*8-1:0] r_row0, r_row1;

inc_ram #(.WIDTH(DATA_WIDTH), .DEPTH(ODEPTH)) orig_ram (
    .clk(clk),
    .wr_en(beat && store), .wr_addr(orig_wr_reg[OAW-1:0]), .wr_data(s_axis_tdata),
    .rd_en(1'b1), .rd_addr(orig_ptr[OAW-1:0]), .rd_data(r_orig)
);

inc_ram #(.WIDTH(ROW_BYTES*8), .DEPTH(CDEPTH/2)) bank0_ram (
    .clk(clk),
    .wr_en(bank0_we), .wr_addr(bank0_wa), .wr_data(bank0_wd),
    .rd_en(1'b1), .rd_addr(row_ptr[CAW-1:1]), .rd_data(r_row0)
);

inc_ram #(.WIDTH(ROW_BYTES*8), .DEPTH(CDEPTH/2)) bank1_ram (
    .clk(clk),
    .wr_en(bank1_we), .wr_addr(bank1_wa), .wr_data(bank1_wd),
    .rd_en(1'b1), .rd_addr(row_ptr[CAW-1:1]), .rd_data(r_row1)
);

// Stage R (the RAMs' read cycle): the beat's place relative to the shim,
// rel = 32 * beat - P (byte b of the beat is payload byte rel + b - 6).
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]    poff_lo_m1 = inc_lsub({5'd0, h_poff[7:5]}, 8'd1);
wire [7:0]    poff_lo_p1 = inc_lsum({5'd0, h_poff[7:5]}, 8'd1);
/* verilator lint_on UNUSEDSIGNAL */
wire [7:0]    poff_m32   = {poff_lo_m1[2:0], h_poff[4:0]};   // P - 32 (P >= 32)
wire [8:0]    poff_p32   = {poff_lo_p1[3:0], h_poff[4:0]};   // P + 32
reg           r_rowsel_reg = 1'b0, r_half_reg = 1'b0, r_last_reg = 1'b0, r_comp_reg = 1'b0, r_first_reg = 1'b0;
reg [5:0]     r_keep_reg = 0;              // bytes in the last beat, 1..32
reg [5:0]     r_rel_reg = 0;               // 32 * beat - P, modulo 64
reg           r_rel_lo_reg = 1'b0;         // rel < -32: every byte is header
reg           r_rel_hi_reg = 1'b0;         // rel >= 32: every byte is payload
reg           r_vlan_reg = 1'b0;
reg [15:0]    r_total_reg = 0, r_csum_reg = 0, r_plen_reg = 0, r_tcs_reg = 0, r_tsum_reg = 0;
reg           r_tcs_beat_reg = 1'b0;       // this beat holds the TCP checksum
reg [3:0]     r_tcs_word_reg = 0;          // at this 16-bit word of the beat

always @(posedge clk) begin
    if (issue) begin
        ob_reg <= h_lastb ? {BW{1'b0}} : ob_reg + 1'b1;
    end
    r_valid_reg  <= issue;
    r_rowsel_reg <= row_ptr[0];
    r_half_reg   <= ob_reg[0];
    r_last_reg   <= h_lastb;
    r_comp_reg   <= h_mode == M_COMP;
    r_first_reg  <= ob_reg == {BW{1'b0}};
    r_keep_reg   <= {1'b0, h_out_len[4:0]} == 6'd0 ? 6'd32 : {1'b0, h_out_len[4:0]};
    r_rel_reg    <= {ob_reg[0], 5'b00000} - h_poff[5:0];
    // from the beat and P without the subtraction: 32 * beat < P - 32,
    // 32 * beat >= P + 32 (P + 32 and P - 32 change only P's bits 7..5)
    r_rel_lo_reg <= h_poff[7:5] != 3'd0 && ob_reg[BW-1:3] == 0 &&
                    !inc_lge16({8'd0, ob_reg[2:0], 5'b00000}, {8'd0, poff_m32});
    r_rel_hi_reg <= ob_reg[BW-1:4] != 0 ||
                    inc_lge16({7'd0, ob_reg[3:0], 5'b00000}, {7'd0, poff_p32});
    r_vlan_reg   <= h_vlan;
    r_total_reg  <= h_total;
    r_csum_reg   <= h_csum;
    r_plen_reg   <= h_plen;
    r_tcs_reg    <= h_tcs;
    r_tsum_reg   <= h_tsum;
    r_tcs_beat_reg <= ob_reg == {{(BW-2){1'b0}}, h_tcs_off[5:4]};
    r_tcs_word_reg <= h_tcs_off[3:0];
    if (rst) begin
        ob_reg  <= 0;
        r_valid_reg <= 1'b0;
    end
end

// Stage R2: the RAM data registered (the comp row and half chosen), and
// per byte what it carries, so that the compose is a plain mux.
// (the shim bytes at 8..13: S_SHIM + k is {1, k}, no adder)
localparam [3:0] S_ORIG = 4'd0, S_COMP = 4'd1, S_SHIM = 4'd8,   // S_SHIM + 0..5
                 S_TOT_H = 4'd2, S_TOT_L = 4'd3, S_PROTO = 4'd4, S_CS_H = 4'd5,
                 S_CS_L = 4'd6, S_TCS_H = 4'd7, S_TCS_L = 4'd14;
wire [ROW_BYTES*8-1:0] r_row = r_rowsel_reg ? r_row1 : r_row0;
reg  [4*DB-1:0] r_sel;
reg  [7:0]      dd;          // rel + b for rel in -32..31: -32..62, signed
integer b;
always @* begin
    for (b = 0; b < DB; b = b + 1) begin
        // as gates: per byte a function of rel's low six bits
        dd = inc_lsum({{2{r_rel_reg[5]}}, r_rel_reg[5:0]}, b[7:0]);
        r_sel[4*b +: 4] = S_ORIG;
        // beyond rel -32..31 every byte is header (r_rel_lo_reg) or
        // payload (r_rel_hi_reg)
        if (r_comp_reg && !r_rel_lo_reg && (r_rel_hi_reg || !dd[7])) begin
            if (!r_rel_hi_reg && dd[6:3] == 4'd0 && !(dd[2] && dd[1]))   // dd < 6
                r_sel[4*b +: 4] = S_SHIM | {1'b0, dd[2:0]};
            else
                r_sel[4*b +: 4] = S_COMP;
        end
        // header bytes at L3 + d (L3 = 18 with a VLAN tag, else 14),
        // compared per constant byte index
        if (r_comp_reg && r_first_reg) begin
            if (r_vlan_reg ? b == 18 + 2 : b == 14 + 2)   r_sel[4*b +: 4] = S_TOT_H;
            if (r_vlan_reg ? b == 18 + 3 : b == 14 + 3)   r_sel[4*b +: 4] = S_TOT_L;
            if (r_vlan_reg ? b == 18 + 9 : b == 14 + 9)   r_sel[4*b +: 4] = S_PROTO;
            if (r_vlan_reg ? b == 18 + 10 : b == 14 + 10) r_sel[4*b +: 4] = S_CS_H;
            if (r_vlan_reg ? b == 18 + 11 : b == 14 + 11) r_sel[4*b +: 4] = S_CS_L;
        end
        if (r_comp_reg && r_tcs_beat_reg && b[4:1] == r_tcs_word_reg)
            r_sel[4*b +: 4] = b[0] ? S_TCS_L : S_TCS_H;
    end
end

reg                   r2_last_reg = 1'b0;
reg  [DATA_WIDTH-1:0] r2_orig_reg = 0, r2_comp_reg = 0;
reg  [4*DB-1:0]       r2_sel_reg = 0;
reg  [DB-1:0]         r2_keep_reg = 0;
integer kb;
reg  [15:0]           r2_total_reg = 0, r2_csum_reg = 0, r2_plen_reg = 0, r2_tcs_reg = 0, r2_tsum_reg = 0;

always @(posedge clk) begin
    r2_valid_reg <= r_valid_reg;
    r2_last_reg  <= r_last_reg;
    r2_orig_reg  <= r_orig;
    r2_comp_reg  <= r_half_reg ? r_row[ROW_BYTES*8-1:DATA_WIDTH] : r_row[DATA_WIDTH-1:0];
    r2_sel_reg   <= r_sel;
    for (kb = 0; kb < DB; kb = kb + 1)
        r2_keep_reg[kb] <= !r_last_reg || kb[5:0] < r_keep_reg;
    r2_total_reg <= r_total_reg;
    r2_csum_reg  <= r_csum_reg;
    r2_plen_reg  <= r_plen_reg;
    r2_tcs_reg   <= r_tcs_reg;
    r2_tsum_reg  <= r_tsum_reg;
    if (rst)
        r2_valid_reg <= 1'b0;
end

// compose the beat
reg  [DATA_WIDTH-1:0] o_data;
integer oc;
always @* begin
    for (oc = 0; oc < DB; oc = oc + 1) begin
        case (r2_sel_reg[4*oc +: 4])
            S_COMP:     o_data[oc*8 +: 8] = r2_comp_reg[oc*8 +: 8];
            S_SHIM:     o_data[oc*8 +: 8] = 8'h49;
            S_SHIM + 1: o_data[oc*8 +: 8] = WIRE_VERSION;
            S_SHIM + 2: o_data[oc*8 +: 8] = r2_plen_reg[15:8];
            S_SHIM + 3: o_data[oc*8 +: 8] = r2_plen_reg[7:0];
            S_SHIM + 4: o_data[oc*8 +: 8] = r2_tsum_reg[15:8];
            S_SHIM + 5: o_data[oc*8 +: 8] = r2_tsum_reg[7:0];
            S_TOT_H:    o_data[oc*8 +: 8] = r2_total_reg[15:8];
            S_TOT_L:    o_data[oc*8 +: 8] = r2_total_reg[7:0];
            S_PROTO:    o_data[oc*8 +: 8] = 8'd253;
            S_CS_H:     o_data[oc*8 +: 8] = r2_csum_reg[15:8];
            S_CS_L:     o_data[oc*8 +: 8] = r2_csum_reg[7:0];
            S_TCS_H:    o_data[oc*8 +: 8] = r2_tcs_reg[15:8];
            S_TCS_L:    o_data[oc*8 +: 8] = r2_tcs_reg[7:0];
            default:    o_data[oc*8 +: 8] = r2_orig_reg[oc*8 +: 8];
        endcase
    end
end

// output FIFO; m_axis comes from its head (can_go keeps room for every
// beat issued, so it is never pushed when full)
/* verilator lint_off UNUSEDSIGNAL */
wire of_in_ready;
/* verilator lint_on UNUSEDSIGNAL */

inc_fifo #(.WIDTH(DATA_WIDTH + DB + 1), .DEPTH(OFDEPTH)) of_fifo (
    .clk(clk), .rst(rst),
    .in_data({r2_last_reg, r2_keep_reg, o_data}), .in_valid(r2_valid_reg), .in_ready(of_in_ready),
    .out_data({m_axis_tlast, m_axis_tkeep, m_axis_tdata}), .out_valid(m_axis_tvalid),
    .out_ready(m_axis_tready), .count(of_count)
);

`ifdef FORMAL
// (formal/) the output FIFO is never pushed when full: can_go's promise
always @(posedge clk) begin
    if (!rst)
        assert(!(r2_valid_reg && !of_in_ready));
end
`endif

// Parse fields, row counts and high bits of wide temporaries the engine
// does not need (the matcher and the align unit serve the RX side too).
/* verilator lint_off UNUSEDSIGNAL */
wire unused_ok = &{1'b0, cur_vlan, cur_ip_total, cur_tcp_hlen, cur_ip_hlen[0], cur_l3_off[0], m_l3_off, h_tcs_off[6], m_ip_total, m_proto, m_tos,
                   m_done, a0_count, a1_count, tail_src, gen_shift, c_has_reg, comp_len,
                   comp_p1, row_ptr, orig_ptr, h_out_len[15:5], ob_half,
                   dw_csa1[64*LANES-1:16*5], dw_csa2[16*5-1:32], dsum_acc4[63:32], f2_poff6_reg[5:0]};
/* verilator lint_on UNUSEDSIGNAL */

endmodule

`resetall
