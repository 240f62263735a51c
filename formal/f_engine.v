// SPDX-License-Identifier: MIT
// formal/f_engine.v - harness of a stream engine: inc_compress_engine
// (define F_DECOMPRESS for inc_decompress_engine), 256 bits, MAX_FRAME 96
// (frames of up to 3 beats; longer ones are dropped and counted).
// Inputs: reset in the first cycle only; the AXI4-Stream master rules on
// s_axis (a beat offered stays, unchanged, until taken; tkeep all ones on a
// non-last beat, contiguous from lane 0 and not empty on a last beat); the
// configuration constant. Properties (each family a define, one job each):
//   F_AXIS    the AXI4-Stream source rules on m_axis (held while stalled,
//             tkeep well formed, nothing valid after reset)
//   F_CONS    frames out + counted drops <= frames in; the statistics
//             records never outnumber the input frames; with m_axis always
//             ready, an input frame's end leaves (a last beat or a drop
//             record) within F_LIVE cycles: no deadlock under any input stall
//   F_TRANS   the first frame, when the engine is disabled or the frame is
//             not IPv4 ToS-tagged (EtherType not IPv4, or ToS outside
//             value/mask), leaves beat for beat as it came: a chosen beat
//             (free index, symbolic data) compared in data, tkeep, tlast
`default_nettype none
module f_engine #(
    parameter F_LIVE = 40   // cycles from an input frame's end to its output's
) (
    input wire clk,
    input wire rst,
    input wire [255:0] s_axis_tdata,
    input wire [31:0]  s_axis_tkeep,
    input wire         s_axis_tvalid,
    input wire         s_axis_tlast,
    input wire         m_axis_tready,
    input wire         cfg_enable,
    input wire [7:0]   cfg_tos_value,
    input wire [7:0]   cfg_tos_mask,
    input wire [6:0]   cfg_eb,
    input wire [1:0]   f_beat      // the chosen beat of the first frame
);
wire         s_axis_tready;
wire [255:0] m_axis_tdata;
wire [31:0]  m_axis_tkeep;
wire         m_axis_tvalid, m_axis_tlast;
wire         stat_valid;
wire [2:0]   stat_outcome;
wire [4:0]   stat_reason;
wire [15:0]  stat_bytes_in, stat_bytes_out;

`ifdef F_DECOMPRESS
inc_decompress_engine #(.DATA_WIDTH(256), .MAX_FRAME(96)) dut (
`else
inc_compress_engine #(.DATA_WIDTH(256), .MAX_FRAME(96)) dut (
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
reg [255:0] f_in_data;
reg [31:0]  f_in_keep;
reg         f_in_last;
reg         f_cfg_en;
reg [7:0]   f_cfg_val, f_cfg_mask;
reg [6:0]   f_cfg_eb;
always @(posedge clk) begin
    f_in_stall <= s_axis_tvalid && !s_axis_tready;
    f_in_data  <= s_axis_tdata;
    f_in_keep  <= s_axis_tkeep;
    f_in_last  <= s_axis_tlast;
    f_cfg_en   <= cfg_enable;
    f_cfg_val  <= cfg_tos_value;
    f_cfg_mask <= cfg_tos_mask;
    f_cfg_eb   <= cfg_eb;
end
always @* begin
    assume(rst == !f_past_valid);
    if (f_past_valid) begin
        assume(cfg_enable == f_cfg_en && cfg_tos_value == f_cfg_val &&
               cfg_tos_mask == f_cfg_mask && cfg_eb == f_cfg_eb);
        if (f_in_stall)
            assume(s_axis_tvalid && s_axis_tdata == f_in_data &&
                   s_axis_tkeep == f_in_keep && s_axis_tlast == f_in_last);
    end
    if (s_axis_tvalid && !s_axis_tlast) assume(&s_axis_tkeep);
    if (s_axis_tvalid && s_axis_tlast)
        assume(s_axis_tkeep[0] && ((s_axis_tkeep + 1'b1) & s_axis_tkeep) == 32'd0);
end
wire f_in_hs  = s_axis_tvalid && s_axis_tready;
wire f_out_hs = m_axis_tvalid && m_axis_tready;

`ifdef F_AXIS
reg         f_out_stall = 1'b0;
reg [255:0] f_out_data;
reg [31:0]  f_out_keep;
reg         f_out_last;
always @(posedge clk) begin
    f_out_stall <= !rst && m_axis_tvalid && !m_axis_tready;
    f_out_data  <= m_axis_tdata;
    f_out_keep  <= m_axis_tkeep;
    f_out_last  <= m_axis_tlast;
end
always @* begin
    if (f_past_valid) begin
        // axis_hold: an offered beat stays, unchanged, until taken
        if (f_out_stall)
            assert(m_axis_tvalid && m_axis_tdata == f_out_data &&
                   m_axis_tkeep == f_out_keep && m_axis_tlast == f_out_last);
        // axis_keep: tkeep well formed
        if (m_axis_tvalid && !m_axis_tlast) assert(&m_axis_tkeep);
        if (m_axis_tvalid && m_axis_tlast)
            assert(m_axis_tkeep[0] && ((m_axis_tkeep + 1'b1) & m_axis_tkeep) == 32'd0);
    end else begin
        // axis_reset: nothing valid in the cycle after a reset edge
    end
end
reg f_was_rst = 1'b0;
always @(posedge clk) f_was_rst <= rst;
always @* if (f_was_rst) assert(!m_axis_tvalid);
always @(posedge clk) if (f_past_valid && !rst) cover(f_out_hs && m_axis_tlast && !f_out_stall);
`endif

`ifdef F_CONS
reg [3:0] f_fin = 4'd0, f_fout = 4'd0, f_drops = 4'd0, f_stats = 4'd0;
reg [7:0] f_wait = 8'd0;
wire f_drop = stat_valid && stat_outcome == 3'd4;
always @(posedge clk) begin
    if (f_in_hs && s_axis_tlast) f_fin <= f_fin + 1'b1;
    if (f_out_hs && m_axis_tlast) f_fout <= f_fout + 1'b1;
    if (f_drop) f_drops <= f_drops + 1'b1;
    if (stat_valid) f_stats <= f_stats + 1'b1;
    // cycles with a frame owed and nothing leaving
    if (f_fin != f_fout + f_drops && !(f_out_hs && m_axis_tlast) && !f_drop)
        f_wait <= f_wait + 1'b1;
    else
        f_wait <= 8'd0;
end
always @* begin
    assume(m_axis_tready);
    if (f_past_valid && !rst) begin
        // frame_cons: no frame out of nothing, none duplicated or split
        assert({1'b0, f_fout} + f_drops <= {1'b0, f_fin});
        assert(f_stats <= f_fin);
        // frame_live: an input frame's end leaves within F_LIVE cycles
        assert(f_wait < F_LIVE);
    end
end
always @(posedge clk) begin
    if (f_past_valid && !rst) begin
        cover(f_drop);
        cover(f_out_hs && m_axis_tlast && stat_valid && stat_outcome == 3'd1);
    end
end
`endif

`ifdef F_TRANS
// frame 0 only: bypassed (engine off, or not IPv4, or ToS outside the mask)
reg       f_first = 1'b1;          // the next input beat starts a frame
reg [1:0] f_ib = 2'd0, f_ob = 2'd0;  // beat index in frame 0, in and out
reg       f_in0 = 1'b1, f_out0 = 1'b1;  // still in frame 0
reg         f_got = 1'b0;
reg [255:0] f_data;
reg [31:0]  f_keep;
reg         f_last;
wire [15:0] f_etype = {s_axis_tdata[12*8 +: 8], s_axis_tdata[13*8 +: 8]};
wire [7:0]  f_tos = s_axis_tdata[15*8 +: 8];
always @* begin
    if (f_in0 && f_ib == 2'd0 && s_axis_tvalid && cfg_enable)
        assume((f_etype != 16'h0800 && f_etype != 16'h8100) ||
               (f_etype == 16'h0800 && ((f_tos ^ cfg_tos_value) & cfg_tos_mask) != 8'd0));
    if (f_in0 && s_axis_tvalid)
        assume(f_ib < 2'd3 && (f_ib < 2'd2 || s_axis_tlast));  // frame 0 fits MAX_FRAME
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
        assert(f_got);
        assert(m_axis_tdata == f_data && m_axis_tkeep == f_keep && m_axis_tlast == f_last);
    end
end
always @(posedge clk) if (f_past_valid && !rst) cover(f_out_hs && f_out0 && m_axis_tlast && f_ob == 2'd2);
`endif
`ifdef F_COVER
// scover jobs: this condition must be reachable (asserted false, it fails)
always @* if (f_past_valid && !rst) assert(!(`F_COVER));
`endif
endmodule
