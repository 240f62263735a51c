// SPDX-License-Identifier: MIT
/*
 * inc_lanes - the frame-parallel frame of a 512-bit engine: inc_lane_split
 * in front of two 256-bit cores, inc_lane_merge behind them, and the
 * statistics records between. The engine (inc_compress_engine,
 * inc_decompress_engine at DATA_WIDTH 512) instantiates this and its two
 * cores on the c_* ports: lane l is bits [l*W +: W] of each c_* bus.
 *
 * A frame whose outcome is dropped (inc_outcome INC_OUT_DROPPED, 4, the
 * same code in both directions) has no output frame; every other frame has
 * exactly one. docs/rtl.md, "DATA_WIDTH 512".
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "inc_regs.vh"

// Split, two core slots, in-order merge.
module inc_lanes #(
    parameter CFG_WIDTH = 24     // configuration bits carried with each beat
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [511:0]           s_axis_tdata,
    input  wire [63:0]            s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire [CFG_WIDTH-1:0]   cfg,

    output wire [511:0]           m_axis_tdata,
    output wire [63:0]            m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,

    output wire                   stat_valid,
    output wire [2:0]             stat_outcome,
    output wire [4:0]             stat_reason,
    output wire [15:0]            stat_bytes_in,
    output wire [15:0]            stat_bytes_out,

    // the cores' ports, two lanes each
    output wire [511:0]           c_in_tdata,
    output wire [63:0]            c_in_tkeep,
    output wire [1:0]             c_in_tvalid,
    input  wire [1:0]             c_in_tready,
    output wire [1:0]             c_in_tlast,
    output wire [2*CFG_WIDTH-1:0] c_cfg,
    input  wire [511:0]           c_out_tdata,
    input  wire [63:0]            c_out_tkeep,
    input  wire [1:0]             c_out_tvalid,
    output wire [1:0]             c_out_tready,
    input  wire [1:0]             c_out_tlast,
    input  wire [1:0]             c_stat_valid,
    input  wire [5:0]             c_stat_outcome,
    input  wire [9:0]             c_stat_reason,
    input  wire [31:0]            c_stat_bytes_in,
    input  wire [31:0]            c_stat_bytes_out
);

localparam SW = 41;   // record: has output, outcome, reason, bytes in, bytes out
localparam [2:0] OUT_DROPPED = `INC_OUT_DROPPED;

wire          ord_lane, ord_valid, ord_ready;
wire [2*SW-1:0] st_data;

genvar l;
generate
for (l = 0; l < 2; l = l + 1) begin : g_rec
    wire [2:0] outcome = c_stat_outcome[l*3 +: 3];
    assign st_data[l*SW +: SW] = {outcome != OUT_DROPPED, outcome, c_stat_reason[l*5 +: 5],
                                  c_stat_bytes_in[l*16 +: 16], c_stat_bytes_out[l*16 +: 16]};
end
endgenerate

inc_lane_split #(.DATA_WIDTH(512), .CFG_WIDTH(CFG_WIDTH)) split (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast), .cfg(cfg),
    .m_axis_tdata(c_in_tdata), .m_axis_tkeep(c_in_tkeep),
    .m_axis_tvalid(c_in_tvalid), .m_axis_tready(c_in_tready),
    .m_axis_tlast(c_in_tlast), .m_cfg(c_cfg),
    .ord_lane(ord_lane), .ord_valid(ord_valid), .ord_ready(ord_ready)
);

inc_lane_merge #(.DATA_WIDTH(512), .STAT_WIDTH(SW)) merge (
    .clk(clk), .rst(rst),
    .s_axis_tdata(c_out_tdata), .s_axis_tkeep(c_out_tkeep),
    .s_axis_tvalid(c_out_tvalid), .s_axis_tready(c_out_tready),
    .s_axis_tlast(c_out_tlast),
    .s_stat_valid(c_stat_valid), .s_stat_data(st_data),
    .ord_lane(ord_lane), .ord_valid(ord_valid), .ord_ready(ord_ready),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .stat_valid(stat_valid),
    .stat_data({stat_outcome, stat_reason, stat_bytes_in, stat_bytes_out})
);

endmodule

`resetall
