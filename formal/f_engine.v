// SPDX-License-Identifier: MIT
// formal/f_engine.v - harness of a stream engine: inc_compress_engine
// (define F_DECOMPRESS for inc_decompress_engine), 256 bits (DATA_WIDTH
// 512 for the wide engines), MAX_FRAME 96 (at 256 bits frames of up to 3
// beats; longer ones are dropped and counted).
// Inputs: reset in the first cycle only; the AXI4-Stream master rules on
// s_axis (tvalid low during reset; a beat offered stays, unchanged, until
// taken; tkeep all ones on a non-last beat, contiguous from lane 0 and not
// empty on a last beat); the configuration constant. Nothing else: any bytes, any frame lengths, any
// gaps. Properties (each family a define, one job each):
//   F_AXIS    the AXI4-Stream source rules on m_axis (held while stalled,
//             tkeep well formed, nothing valid after reset); frames out +
//             counted drops <= frames in, under any m_axis ready pattern
//   F_CONS    frames out + counted drops <= frames in; the statistics
//             records never outnumber the input frames; with m_axis always
//             ready, a frame owed (its tlast taken, not yet out or
//             dropped) makes something leave (a last beat or a drop
//             record) within F_LIVE cycles: no deadlock under any input
//             stall
//   F_TRANS   the first frame, when the engine is disabled or the frame is
//             not IPv4 ToS-tagged (EtherType not IPv4, or ToS outside
//             value/mask), leaves beat for beat as it came: a chosen beat
//             (free index, symbolic data) compared in data, tkeep, tlast
// Covers (every job's cover statements; with F_COVERS, for formal/run.sh's
// acover mode, assertions of their negation labelled f_cover_*, which must
// fail): a beat leaves; a beat is held under backpressure; a frame leaves;
// a compressed (decompress engine: a decompressed) frame leaves; a drop is
// counted. Cycles below count from the reset cycle (cycle 0): in the
// directed bench (f_engine_latency_tb.v) the compress engine takes its
// first beat in cycle 3 and a 1-beat frame leaves in cycle 21.
`default_nettype none
`ifdef F_COVERS
`define F_COV(label, cond) label: assert(!(cond));
`else
`define F_COV(label, cond) label: cover(cond);
`endif
module f_engine #(
    parameter DATA_WIDTH = 256, // 256 or 512 (F_GOLDEN: 256 only)
    parameter MAX_FRAME = 96,  // the engine's MAX_FRAME, bytes (<= 128: frame 0 of F_TRANS has <= 4 beats)
`ifdef F_DECOMPRESS
    parameter F_LIVE = 40      // cycles a frame may be owed with nothing leaving (F_CONS)
`else
    parameter F_LIVE = 24
`endif
) (
    input wire clk,
    input wire rst,
    input wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input wire         s_axis_tvalid,
    input wire         s_axis_tlast,
    input wire         m_axis_tready,
    input wire         cfg_enable,
    input wire [7:0]   cfg_tos_value,
    input wire [7:0]   cfg_tos_mask,
    input wire [6:0]   cfg_eb,
    input wire [1:0]   f_beat      // the chosen beat of the first frame (constant)
);
localparam KB = DATA_WIDTH / 8;               // bytes of a beat
localparam F_BEATS = (MAX_FRAME + KB - 1) / KB; // beats of the longest frame kept
wire         s_axis_tready;
wire [DATA_WIDTH-1:0] m_axis_tdata;
wire [KB-1:0]         m_axis_tkeep;
wire         m_axis_tvalid, m_axis_tlast;
wire         stat_valid;
wire [2:0]   stat_outcome;
wire [4:0]   stat_reason;
wire [15:0]  stat_bytes_in, stat_bytes_out;

// F_DUT: the engine as a netlist prebuilt by formal/run.sh (f_dut_cmp or
// f_dut_dcm, the same DATA_WIDTH and MAX_FRAME), else from the RTL
`ifdef F_DECOMPRESS
localparam [2:0] F_OUT_CODED = 3'd2;   // INC_OUT_DECOMPRESSED
`ifdef F_DUT
`F_DUT dut (
`else
inc_decompress_engine #(.DATA_WIDTH(DATA_WIDTH), .MAX_FRAME(MAX_FRAME)) dut (
`endif
`else
localparam [2:0] F_OUT_CODED = 3'd1;   // INC_OUT_COMPRESSED
`ifdef F_DUT
`F_DUT dut (
`else
inc_compress_engine #(.DATA_WIDTH(DATA_WIDTH), .MAX_FRAME(MAX_FRAME)) dut (
`endif
    .cfg_eb(cfg_eb),
`endif
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready), .m_axis_tlast(m_axis_tlast),
    .cfg_enable(cfg_enable), .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_reason(stat_reason),
    .stat_bytes_in(stat_bytes_in), .stat_bytes_out(stat_bytes_out));

// ---- inputs
reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
reg         f_in_stall = 1'b0;
reg [DATA_WIDTH-1:0] f_in_data;
reg [KB-1:0]         f_in_keep;
reg         f_in_last;
reg         f_cfg_en;
reg [7:0]   f_cfg_val, f_cfg_mask;
reg [6:0]   f_cfg_eb;
reg [1:0]   f_beat_q;
always @(posedge clk) begin
    f_in_stall <= s_axis_tvalid && !s_axis_tready;
    f_in_data  <= s_axis_tdata;
    f_in_keep  <= s_axis_tkeep;
    f_in_last  <= s_axis_tlast;
    f_cfg_en   <= cfg_enable;
    f_cfg_val  <= cfg_tos_value;
    f_cfg_mask <= cfg_tos_mask;
    f_cfg_eb   <= cfg_eb;
    f_beat_q   <= f_beat;
end
always @* begin
    assume(rst == !f_past_valid);
    // AXI4-Stream: the master keeps tvalid low during reset (the
    // decompress engine's tready is not held low in its reset cycle)
    if (rst) assume(!s_axis_tvalid);
    if (f_past_valid) begin
        assume(cfg_enable == f_cfg_en && cfg_tos_value == f_cfg_val &&
               cfg_tos_mask == f_cfg_mask && cfg_eb == f_cfg_eb);
        assume(f_beat == f_beat_q);   // the chosen beat is a free constant
        if (f_in_stall)
            assume(s_axis_tvalid && s_axis_tdata == f_in_data &&
                   s_axis_tkeep == f_in_keep && s_axis_tlast == f_in_last);
    end
    if (s_axis_tvalid && !s_axis_tlast) assume(&s_axis_tkeep);
    if (s_axis_tvalid && s_axis_tlast)
        assume(s_axis_tkeep[0] && ((s_axis_tkeep + 1'b1) & s_axis_tkeep) == {KB{1'b0}});
end
wire f_in_hs  = s_axis_tvalid && s_axis_tready;
wire f_out_hs = m_axis_tvalid && m_axis_tready;

`ifdef F_GOLDEN
// Cover help, for a cover only: frame 0 is the example of
// docs/wire-format.md (its 74-byte ToS 0x28 TCP frame; for the decompress
// engine its 70-byte compressed form), engine on, ToS 0x28/0xfc, eb 10.
// With free bytes the solver would have to invent a frame whose IP and
// restored TCP checksums verify; this shows such a frame gets through.
reg [1:0] f_gb = 2'd0;       // beat of frame 0
reg       f_g0 = 1'b1;       // still in frame 0
always @(posedge clk) begin
    if (f_in_hs && f_g0) begin
        f_gb <= f_gb + 1'b1;
        if (s_axis_tlast) f_g0 <= 1'b0;
    end
end
`ifdef F_DECOMPRESS
wire [767:0] f_gold = {256'h0000000000000000000000000000000000000000000000000000c02000000301,
                   256'h600003161603140002490000aac80001185001000000010000005114409c0200,
                   256'h000a0100000a6b13fd4000403412380028450008010000000002020000000002};
localparam [31:0] F_GOLD_KEEP = 32'h0000003f;   // 70 = 64 + 6 bytes
`else
wire [767:0] f_gold = {256'h00000000000000000000000000000000000000000000c02000003a9d49523cf5,
                   256'hc28f3c23d70a3f40000000008ce60001185001000000010000005114409c0200,
                   256'h000a0100000a5e140640004034123c0028450008010000000002020000000002};
localparam [31:0] F_GOLD_KEEP = 32'h000003ff;   // 74 = 64 + 10 bytes
`endif
always @* begin
    assume(cfg_enable && cfg_tos_value == 8'h28 && cfg_tos_mask == 8'hfc && cfg_eb == 7'd10);
    if (f_g0 && s_axis_tvalid)
        assume(s_axis_tdata == f_gold[f_gb*256 +: 256] && s_axis_tlast == (f_gb == 2'd2) &&
               s_axis_tkeep == (f_gb == 2'd2 ? F_GOLD_KEEP : 32'hffffffff));
    // and nothing else: no later frame, m_axis ready (every input constant)
    assume(f_g0 || !s_axis_tvalid);
    assume(m_axis_tready);
end
`endif

// ---- frame and statistics bookkeeping (every family and the covers)
// f_owed: frames whose tlast was taken and that have neither left (tlast
// out) nor been dropped (a statistics record with outcome dropped);
// f_unrec: frames whose tlast was taken and that have no statistics
// record yet. Both may not go below zero (checked in F_CONS).
wire       f_drop = stat_valid && stat_outcome == 3'd4;   // INC_OUT_DROPPED
wire       f_fout = f_out_hs && m_axis_tlast;
reg  [5:0] f_owed = 6'd0, f_unrec = 6'd0;
reg        f_out_stall = 1'b0;
reg        f_rec0 = 1'b0;              // the first statistics record was seen
reg        f_rec0_coded = 1'b0;        // ... and its outcome is compressed / decompressed
reg        f_left = 1'b0;              // a frame has left
always @(posedge clk) begin
    f_owed  <= f_owed + (f_in_hs && s_axis_tlast) - f_fout - f_drop;
    f_unrec <= f_unrec + (f_in_hs && s_axis_tlast) - stat_valid;
    f_out_stall <= !rst && m_axis_tvalid && !m_axis_tready;
    if (stat_valid && !f_rec0) begin
        f_rec0 <= 1'b1;
        f_rec0_coded <= stat_outcome == F_OUT_CODED;
    end
    if (f_fout) f_left <= 1'b1;
    if (rst) begin
        f_owed <= 6'd0;
        f_unrec <= 6'd0;
        f_out_stall <= 1'b0;
        f_rec0 <= 1'b0;
        f_left <= 1'b0;
    end
end

// ---- covers
always @* begin
    if (f_past_valid && !rst) begin
`ifndef F_GOLDEN
        `F_COV(f_cover_beat, f_out_hs)
        `F_COV(f_cover_stall, m_axis_tvalid && !m_axis_tready && f_out_stall)
        `F_COV(f_cover_frame, f_fout)
        `F_COV(f_cover_drop, f_drop)
`endif
        // the first frame's record says compressed (decompressed) and it
        // leaves: frames leave in order, so the first to leave is it
        // (the decompress engine's needs F_GOLDEN: see there)
`ifdef F_DECOMPRESS
`ifdef F_GOLDEN
        `F_COV(f_cover_coded, f_rec0 && f_rec0_coded && f_fout && !f_left)
`endif
`else
        `F_COV(f_cover_coded, f_rec0 && f_rec0_coded && f_fout && !f_left)
`endif
    end
end

`ifdef F_AXIS
reg [DATA_WIDTH-1:0] f_out_data;
reg [KB-1:0]         f_out_keep;
reg         f_out_last;
always @(posedge clk) begin
    f_out_data  <= m_axis_tdata;
    f_out_keep  <= m_axis_tkeep;
    f_out_last  <= m_axis_tlast;
end
always @* begin
    if (f_past_valid) begin
        // axis_hold: an offered beat stays, unchanged, until taken
        if (f_out_stall)
            axis_hold: assert(m_axis_tvalid && m_axis_tdata == f_out_data &&
                              m_axis_tkeep == f_out_keep && m_axis_tlast == f_out_last);
        // axis_keep: tkeep well formed
        if (m_axis_tvalid && !m_axis_tlast) axis_keep_full: assert(&m_axis_tkeep);
        if (m_axis_tvalid && m_axis_tlast)
            axis_keep_last: assert(m_axis_tkeep[0] && ((m_axis_tkeep + 1'b1) & m_axis_tkeep) == {KB{1'b0}});
    end
end
// axis_reset: nothing valid in the cycle after a reset edge
reg f_was_rst = 1'b0;
always @(posedge clk) f_was_rst <= rst;
always @* if (f_was_rst) axis_reset: assert(!m_axis_tvalid);
// and frame conservation under any ready pattern (F_CONS has m_axis
// always ready for its liveness bound): a last beat repeated or split
// off under backpressure is a frame out of nothing
always @* begin
    if (f_past_valid && !rst) begin
        axis_frame_cons: assert({1'b0, f_owed} + (f_in_hs && s_axis_tlast) >= f_fout + f_drop);
        axis_stat_cons:  assert({1'b0, f_unrec} + (f_in_hs && s_axis_tlast) >= stat_valid);
    end
end
`endif

`ifdef F_CONS
reg [7:0] f_wait = 8'd0;
always @(posedge clk) begin
    // cycles with a frame owed and nothing leaving
    if (f_owed != 6'd0 && !f_fout && !f_drop)
        f_wait <= f_wait == 8'hff ? f_wait : f_wait + 1'b1;
    else
        f_wait <= 8'd0;
    if (rst)
        f_wait <= 8'd0;
end
always @* begin
    assume(m_axis_tready);
    if (f_past_valid && !rst) begin
        // frame_cons: no frame out of nothing, none duplicated or split
        frame_cons: assert({1'b0, f_owed} + (f_in_hs && s_axis_tlast) >= f_fout + f_drop);
        frame_owed: assert(f_owed <= 6'd32);
        stat_cons:  assert({1'b0, f_unrec} + (f_in_hs && s_axis_tlast) >= stat_valid);
        stat_owed:  assert(f_unrec <= 6'd32);
        // frame_live: a frame owed leaves within F_LIVE cycles
        frame_live: assert(f_wait < F_LIVE);
    end
end
`endif

`ifdef F_TRANS
// frame 0 only: bypassed (engine off, or not IPv4, or ToS outside the mask)
reg [1:0] f_ib = 2'd0, f_ob = 2'd0;  // beat index in frame 0, in and out
reg       f_in0 = 1'b1, f_out0 = 1'b1;  // still in frame 0
reg         f_got = 1'b0;
reg [DATA_WIDTH-1:0] f_data;
reg [KB-1:0]         f_keep;
reg         f_last;
wire [15:0] f_etype = {s_axis_tdata[12*8 +: 8], s_axis_tdata[13*8 +: 8]};
wire [7:0]  f_tos = s_axis_tdata[15*8 +: 8];
always @* begin
    if (f_in0 && f_ib == 2'd0 && s_axis_tvalid && cfg_enable)
        assume((f_etype != 16'h0800 && f_etype != 16'h8100) ||
               (f_etype == 16'h0800 && ((f_tos ^ cfg_tos_value) & cfg_tos_mask) != 8'd0));
    if (f_in0 && s_axis_tvalid)   // frame 0 fits MAX_FRAME (F_BEATS beats)
        assume({1'b0, f_ib} < F_BEATS && ({1'b0, f_ib} < F_BEATS - 1 || s_axis_tlast));
end
always @(posedge clk) begin
    if (f_in_hs && f_in0) begin
        f_ib <= f_ib + 1'b1;
        if (s_axis_tlast) f_in0 <= 1'b0;
        if (f_ib == f_beat) begin
            f_got  <= 1'b1;
            f_data <= s_axis_tdata;
            f_keep <= s_axis_tkeep;
            f_last <= s_axis_tlast;
        end
    end
    if (f_out_hs && f_out0) begin
        f_ob <= f_ob + 1'b1;
        if (m_axis_tlast) f_out0 <= 1'b0;
    end
end
always @* begin
    if (f_past_valid && !rst && m_axis_tvalid && f_out0 && f_ob == f_beat) begin
        // bypass_beat: the chosen beat of frame 0 leaves as it came
        bypass_got:  assert(f_got);
        bypass_beat: assert(m_axis_tdata == f_data && m_axis_tkeep == f_keep && m_axis_tlast == f_last);
    end
end
always @* if (f_past_valid && !rst) cover(f_out_hs && f_out0 && m_axis_tlast && f_ob == 2'd2);
`endif
`ifdef F_COVER
// scover jobs (Yosys sat): this condition must be reachable (asserted
// false, it fails)
always @* if (f_past_valid && !rst) assert(!(`F_COVER));
`endif
initial begin
    if (MAX_FRAME > 128) begin
        $display("f_engine: MAX_FRAME must be <= 128 (frame 0 of F_TRANS: 2-bit beat index)");
        $finish;
    end
end
endmodule
