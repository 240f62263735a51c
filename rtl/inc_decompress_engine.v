// SPDX-License-Identifier: MIT
/*
 * inc_decompress_engine - receive engine: restores the payload of
 * INCEPTIONN frames (format v2, docs/wire-format.md), byte-exact with
 * inc_frame_decompress() of the model. The frame processing is
 * inc_decompress_core's (256 bits: one group of eight values per beat); see
 * there and docs/rtl-rx.md.
 *
 * DATA_WIDTH 256: the core itself. DATA_WIDTH 512 (100 GbE): two cores in
 * inc_lanes, each taking whole frames (inc_lane_split: the lane with fewer beats waiting,
 * a FIFO of 128 input beats per lane, down-sized to 256 bits) and their
 * outputs put back into input order (inc_lane_merge: up-sized, a FIFO of
 * 128 output beats per lane, the statistics pulses in the same order). A
 * frame is processed at 256 bits per cycle by one core while the other
 * core takes the next, so a stream of frames moves at up to 512 bits per
 * cycle; the bytes of every frame, its statistics record and the order of
 * frames are those of the 256-bit engine. cfg_* are sampled on a frame's
 * first input beat at either width (carried with the beat to its core).
 * docs/rtl.md, "DATA_WIDTH 512".
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

module inc_decompress_engine #(
    parameter DATA_WIDTH = 256,  // AXI4-Stream data width in bits: 256 or 512
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

    output wire                    stat_valid,
    output wire [2:0]              stat_outcome,
    output wire [4:0]              stat_reason,
    output wire [15:0]             stat_bytes_in,
    output wire [15:0]             stat_bytes_out
);

initial begin
    if (DATA_WIDTH != 256 && DATA_WIDTH != 512) begin
        $error("inc_decompress_engine: DATA_WIDTH must be 256 or 512");
        $finish;
    end
end

generate
if (DATA_WIDTH == 512) begin : g_w512
    localparam CW = 17;           // cfg bits carried with each beat
    wire [511:0]    c_in_tdata, c_out_tdata;
    wire [63:0]     c_in_tkeep, c_out_tkeep;
    wire [1:0]      c_in_tvalid, c_in_tready, c_in_tlast;
    wire [1:0]      c_out_tvalid, c_out_tready, c_out_tlast;
    wire [2*CW-1:0] c_cfg;
    wire [1:0]      c_st_valid;
    wire [5:0]      c_st_outcome;
    wire [9:0]      c_st_reason;
    wire [31:0]     c_st_bytes_in, c_st_bytes_out;

    inc_lanes #(.CFG_WIDTH(CW)) lanes (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast), .cfg({cfg_enable, cfg_tos_value, cfg_tos_mask}),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
        .m_axis_tlast(m_axis_tlast),
        .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_reason(stat_reason),
        .stat_bytes_in(stat_bytes_in), .stat_bytes_out(stat_bytes_out),
        .c_in_tdata(c_in_tdata), .c_in_tkeep(c_in_tkeep), .c_in_tvalid(c_in_tvalid),
        .c_in_tready(c_in_tready), .c_in_tlast(c_in_tlast), .c_cfg(c_cfg),
        .c_out_tdata(c_out_tdata), .c_out_tkeep(c_out_tkeep), .c_out_tvalid(c_out_tvalid),
        .c_out_tready(c_out_tready), .c_out_tlast(c_out_tlast),
        .c_stat_valid(c_st_valid), .c_stat_outcome(c_st_outcome), .c_stat_reason(c_st_reason),
        .c_stat_bytes_in(c_st_bytes_in), .c_stat_bytes_out(c_st_bytes_out)
    );

    genvar l;
    for (l = 0; l < 2; l = l + 1) begin : g_core
        wire [CW-1:0] c = c_cfg[l*CW +: CW];
        inc_decompress_core #(.DATA_WIDTH(256), .MAX_FRAME(MAX_FRAME)) core (
            .clk(clk), .rst(rst),
            .s_axis_tdata(c_in_tdata[l*256 +: 256]), .s_axis_tkeep(c_in_tkeep[l*32 +: 32]),
            .s_axis_tvalid(c_in_tvalid[l]), .s_axis_tready(c_in_tready[l]),
            .s_axis_tlast(c_in_tlast[l]),
            .m_axis_tdata(c_out_tdata[l*256 +: 256]), .m_axis_tkeep(c_out_tkeep[l*32 +: 32]),
            .m_axis_tvalid(c_out_tvalid[l]), .m_axis_tready(c_out_tready[l]),
            .m_axis_tlast(c_out_tlast[l]),
            .cfg_enable(c[16]), .cfg_tos_value(c[15:8]),
            .cfg_tos_mask(c[7:0]),
            .stat_valid(c_st_valid[l]), .stat_outcome(c_st_outcome[l*3 +: 3]),
            .stat_reason(c_st_reason[l*5 +: 5]), .stat_bytes_in(c_st_bytes_in[l*16 +: 16]),
            .stat_bytes_out(c_st_bytes_out[l*16 +: 16])
        );
    end
end else begin : g_w256
    inc_decompress_core #(.DATA_WIDTH(DATA_WIDTH), .MAX_FRAME(MAX_FRAME)) core (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .s_axis_tlast(s_axis_tlast),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
        .m_axis_tlast(m_axis_tlast),
        .cfg_enable(cfg_enable), .cfg_tos_value(cfg_tos_value),
        .cfg_tos_mask(cfg_tos_mask),
        .stat_valid(stat_valid), .stat_outcome(stat_outcome), .stat_reason(stat_reason),
        .stat_bytes_in(stat_bytes_in), .stat_bytes_out(stat_bytes_out)
    );
end
endgenerate

endmodule

`resetall
