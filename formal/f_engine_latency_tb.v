// SPDX-License-Identifier: MIT
// formal/f_engine_latency_tb.v - directed Icarus bench of f_engine.v's
// engine configuration (256 bits, MAX_FRAME 96, reset in the first cycle
// only, m_axis always ready, configuration constant): how many cycles a
// frame needs from reset, and from its first input beat, to its first and
// last output beat. The counts are the formal steps of the harness (step 0
// = the reset cycle), so they give the smallest BMC / cover depth in which
// an output beat can exist. Define F_DECOMPRESS for the decompress engine.
//   iverilog -g2005 -I rtl -o x formal/f_engine_latency_tb.v rtl/*.v && vvp x
// (formal/run.sh -t runs it). Frames (docs/wire-format.md, "Example"):
//   0  20 bytes, EtherType 0x0806 (not IPv4): 1 beat, bypassed
//   1  40 bytes, EtherType 0x0806: 2 beats, bypassed
//   2  the 74-byte ToS 0x28 TCP frame: 3 beats, compressed to 70 bytes
//      (decompress engine: its 70-byte compressed form, restored to 74)
// Each frame is sent alone (after the previous one has left), with
// tvalid from the first cycle the engine can take it.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module f_engine_latency_tb;
reg          clk = 1'b0;
reg          rst = 1'b1;
reg  [255:0] s_tdata = 0;
reg  [31:0]  s_tkeep = 0;
reg          s_tvalid = 1'b0, s_tlast = 1'b0;
wire         s_tready;
wire [255:0] m_tdata;
wire [31:0]  m_tkeep;
wire         m_tvalid, m_tlast;
wire         st_valid;
wire [2:0]   st_outcome;
wire [4:0]   st_reason;
wire [15:0]  st_in, st_out;

`ifdef F_DECOMPRESS
inc_decompress_engine #(.DATA_WIDTH(256), .MAX_FRAME(96)) dut (
`else
inc_compress_engine #(.DATA_WIDTH(256), .MAX_FRAME(96)) dut (
    .cfg_eb(7'd10),
`endif
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
    .s_axis_tready(s_tready), .s_axis_tlast(s_tlast),
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
    .m_axis_tready(1'b1), .m_axis_tlast(m_tlast),
    .cfg_enable(1'b1), .cfg_tos_value(8'h28), .cfg_tos_mask(8'hfc),
    .stat_valid(st_valid), .stat_outcome(st_outcome), .stat_reason(st_reason),
    .stat_bytes_in(st_in), .stat_bytes_out(st_out));

// the frames, byte 0 first
reg [7:0] fr [0:2][0:95];
integer   flen [0:2];
integer   i, k;
// docs/wire-format.md, "Example": original (74 bytes) and compressed (70)
reg [74*8-1:0] orig74 = {
    8'h02,8'h00,8'h00,8'h00,8'h00,8'h02,8'h02,8'h00,8'h00,8'h00,8'h00,8'h01,8'h08,8'h00,8'h45,8'h28,
    8'h00,8'h3c,8'h12,8'h34,8'h40,8'h00,8'h40,8'h06,8'h14,8'h5e,8'h0a,8'h00,8'h00,8'h01,8'h0a,8'h00,
    8'h00,8'h02,8'h9c,8'h40,8'h14,8'h51,8'h00,8'h00,8'h00,8'h01,8'h00,8'h00,8'h00,8'h01,8'h50,8'h18,
    8'h01,8'h00,8'he6,8'h8c,8'h00,8'h00,8'h00,8'h00,8'h40,8'h3f,8'h0a,8'hd7,8'h23,8'h3c,8'h8f,8'hc2,
    8'hf5,8'h3c,8'h52,8'h49,8'h9d,8'h3a,8'h00,8'h00,8'h20,8'hc0};
reg [70*8-1:0] comp70 = {
    8'h02,8'h00,8'h00,8'h00,8'h00,8'h02,8'h02,8'h00,8'h00,8'h00,8'h00,8'h01,8'h08,8'h00,8'h45,8'h28,
    8'h00,8'h38,8'h12,8'h34,8'h40,8'h00,8'h40,8'hfd,8'h13,8'h6b,8'h0a,8'h00,8'h00,8'h01,8'h0a,8'h00,
    8'h00,8'h02,8'h9c,8'h40,8'h14,8'h51,8'h00,8'h00,8'h00,8'h01,8'h00,8'h00,8'h00,8'h01,8'h50,8'h18,
    8'h01,8'h00,8'hc8,8'haa,8'h00,8'h00,8'h49,8'h02,8'h00,8'h14,8'h03,8'h16,8'h16,8'h03,8'h00,8'h60,
    8'h01,8'h03,8'h00,8'h00,8'h20,8'hc0};
initial begin
    for (k = 0; k < 3; k = k + 1)
        for (i = 0; i < 96; i = i + 1)
            fr[k][i] = 8'h00;
    flen[0] = 20;
    flen[1] = 40;
    for (k = 0; k < 2; k = k + 1) begin
        for (i = 0; i < 12; i = i + 1) fr[k][i] = 8'h10 + i[7:0];
        fr[k][12] = 8'h08;
        fr[k][13] = 8'h06;
        for (i = 14; i < flen[k]; i = i + 1) fr[k][i] = i[7:0];
    end
`ifdef F_DECOMPRESS
    flen[2] = 70;
    for (i = 0; i < 70; i = i + 1) fr[2][i] = comp70[(69 - i)*8 +: 8];
`else
    flen[2] = 74;
    for (i = 0; i < 74; i = i + 1) fr[2][i] = orig74[(73 - i)*8 +: 8];
`endif
end

always #5 clk = !clk;

// step counter: step 0 is the reset cycle, as in the harness
integer step = 0;
integer t_in0 = -1, t_inl = -1, t_out0 = -1, t_outl = -1, t_stat = -1;
integer obytes = 0;
integer nkeep, j;
always @* begin
    nkeep = 0;
    for (j = 0; j < 32; j = j + 1) nkeep = nkeep + m_tkeep[j];
end
always @(posedge clk) begin
    step <= step + 1;
    if (s_tvalid && s_tready && t_in0 < 0) t_in0 <= step;
    if (s_tvalid && s_tready && s_tlast)   t_inl <= step;
    if (m_tvalid && t_out0 < 0)            t_out0 <= step;
    if (m_tvalid) obytes <= obytes + nkeep;
    if (m_tvalid && m_tlast)               t_outl <= step;
    if (st_valid)                          t_stat <= step;
    if (st_valid)
        $display("  step %0d: statistics outcome %0d reason %0d bytes in %0d out %0d",
                 step, st_outcome, st_reason, st_in, st_out);
end

integer f, b, nb, t0;
initial begin
    @(posedge clk);          // step 0: reset
    #1 rst = 1'b0;
    for (f = 0; f < 3; f = f + 1) begin
        t_in0 = -1; t_inl = -1; t_out0 = -1; t_outl = -1; t_stat = -1; obytes = 0;
        t0 = step;
        nb = (flen[f] + 31) / 32;
        for (b = 0; b < nb; b = b + 1) begin
            for (i = 0; i < 32; i = i + 1) begin
                s_tdata[i*8 +: 8] = fr[f][b*32 + i];
                s_tkeep[i] = b*32 + i < flen[f];
            end
            s_tvalid = 1'b1;
            s_tlast = b == nb - 1;
            @(posedge clk);
            while (!s_tready) @(posedge clk);
            #1;
        end
        s_tvalid = 1'b0;
        s_tlast = 1'b0;
        k = 0;
        while (t_outl < 0 && t_stat < 0 && k < 200) begin
            @(posedge clk); #1; k = k + 1;
        end
        while (t_outl < 0 && k < 200) begin
            @(posedge clk); #1; k = k + 1;
        end
        $display("frame %0d (%0d bytes, %0d beats): first input beat at step %0d, last at %0d; first output beat at step %0d, last at %0d (%0d bytes); statistics at %0d",
                 f, flen[f], nb, t_in0, t_inl, t_out0, t_outl, obytes, t_stat);
        $display("  from the first input beat: first output beat +%0d, last +%0d; from tlast in: +%0d",
                 t_out0 - t_in0, t_outl - t_in0, t_outl - t_inl);
        repeat (4) @(posedge clk);
        #1;
    end
    $finish;
end
endmodule
`resetall
