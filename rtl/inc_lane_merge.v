// SPDX-License-Identifier: MIT
/*
 * inc_lane_merge - back half of an engine at twice a core's width: each of
 * the two cores' DATA_WIDTH/2 output streams is paired into DATA_WIDTH
 * beats and queued (a FIFO per lane), each core's statistics pulses are
 * queued (a FIFO per lane), and frames leave in input order as
 * inc_lane_split recorded it (ord_*).
 *
 * For each frame in order, the merge waits for its statistics record on
 * its lane (the cores decide a frame before its first output beat), emits
 * it as a one-cycle pulse, and, when the record says the frame has output
 * (bit STAT_WIDTH-1 of the record; a dropped frame has none), forwards that
 * lane's next frame. The next frame's record is taken in the cycle the
 * previous frame's last beat leaves, so frames leave back to back.
 *
 * A lane's statistics FIFO holds ORD_DEPTH records: a record is popped
 * only with its frame's order entry, so no more than ORD_DEPTH are ever
 * waiting.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// In-order merge of two W streams (plus per-frame records) into a 2W stream.
module inc_lane_merge #(
    parameter DATA_WIDTH = 512,  // output width; each lane is DATA_WIDTH/2
    parameter STAT_WIDTH = 41,   // record bits; the top bit says "the frame has output"
    parameter DEPTH      = 128,  // output beats buffered per lane, power of two <= 128
    parameter ORD_DEPTH  = 64    // as inc_lane_split's
) (
    input  wire                      clk,
    input  wire                      rst,

    // lane l: bits [l*W +: W] (W = DATA_WIDTH/2)
    input  wire [DATA_WIDTH-1:0]     s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]   s_axis_tkeep,
    input  wire [1:0]                s_axis_tvalid,
    output wire [1:0]                s_axis_tready,
    input  wire [1:0]                s_axis_tlast,
    input  wire [1:0]                s_stat_valid,
    input  wire [2*STAT_WIDTH-1:0]   s_stat_data,

    input  wire                      ord_lane,
    input  wire                      ord_valid,
    output wire                      ord_ready,

    output wire [DATA_WIDTH-1:0]     m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]   m_axis_tkeep,
    output wire                      m_axis_tvalid,
    input  wire                      m_axis_tready,
    output wire                      m_axis_tlast,

    output reg                       stat_valid = 1'b0,
    output reg  [STAT_WIDTH-2:0]     stat_data = {(STAT_WIDTH-1){1'b0}}
);

localparam HW = DATA_WIDTH / 2;
localparam HB = HW / 8;
localparam DB = DATA_WIDTH / 8;
localparam EW = 1 + DB + DATA_WIDTH;     // FIFO entry: last, keep, data

wire [EW-1:0]          head0, head1;
wire [1:0]             head_valid;
wire [1:0]             st_valid;
wire [STAT_WIDTH-1:0]  st_head0, st_head1;

reg  busy_reg = 1'b0;     // forwarding the frame of lane cur_reg
reg  cur_reg = 1'b0;

wire [EW-1:0] head = cur_reg ? head1 : head0;
assign m_axis_tdata  = head[DATA_WIDTH-1:0];
assign m_axis_tkeep  = head[DATA_WIDTH +: DB];
assign m_axis_tlast  = head[EW-1];
assign m_axis_tvalid = busy_reg && head_valid[cur_reg];

wire out_take = m_axis_tvalid && m_axis_tready;
wire free     = !busy_reg || (out_take && m_axis_tlast);
wire [STAT_WIDTH-1:0] st_next = ord_lane ? st_head1 : st_head0;
wire take     = free && ord_valid && st_valid[ord_lane];
assign ord_ready = take;

always @(posedge clk) begin
    if (free)
        busy_reg <= 1'b0;
    if (take) begin
        busy_reg <= st_next[STAT_WIDTH-1];
        cur_reg  <= ord_lane;
    end
    stat_valid <= take;
    if (take)
        stat_data <= st_next[STAT_WIDTH-2:0];
    if (rst) begin
        busy_reg   <= 1'b0;
        cur_reg    <= 1'b0;
        stat_valid <= 1'b0;
    end
end

genvar l;
generate
for (l = 0; l < 2; l = l + 1) begin : g_lane
    // up-sizer: a lane beat waits in lo_* for its upper half
    reg            lo_valid_reg = 1'b0;
    reg [HW-1:0]   lo_data_reg = {HW{1'b0}};
    reg [HB-1:0]   lo_keep_reg = {HB{1'b0}};
    wire [HW-1:0]  in_data = s_axis_tdata[l*HW +: HW];
    wire [HB-1:0]  in_keep = s_axis_tkeep[l*HB +: HB];
    wire           in_last = s_axis_tlast[l];
    wire           fifo_ready;
    wire           beat = s_axis_tvalid[l] && fifo_ready;
    wire           push = beat && (lo_valid_reg || in_last);
    wire [EW-1:0]  entry = lo_valid_reg
                         ? {in_last, in_keep, lo_keep_reg, in_data, lo_data_reg}
                         : {in_last, {HB{1'b0}}, in_keep, {HW{1'b0}}, in_data};
    wire [EW-1:0]  out;

    assign s_axis_tready[l] = fifo_ready;

    always @(posedge clk) begin
        if (beat) begin
            lo_valid_reg <= !lo_valid_reg && !in_last;
            lo_data_reg  <= in_data;
            lo_keep_reg  <= in_keep;
        end
        if (rst)
            lo_valid_reg <= 1'b0;
    end

    inc_fifo #(.WIDTH(EW), .DEPTH(DEPTH)) df (
        .clk(clk), .rst(rst),
        .in_data(entry), .in_valid(push), .in_ready(fifo_ready),
        .out_data(out), .out_valid(head_valid[l]),
        .out_ready(out_take && cur_reg == l),
        /* verilator lint_off PINCONNECTEMPTY */
        .count()
        /* verilator lint_on PINCONNECTEMPTY */
    );

    wire [STAT_WIDTH-1:0] st_out;
    inc_fifo #(.WIDTH(STAT_WIDTH), .DEPTH(ORD_DEPTH)) sf (
        .clk(clk), .rst(rst),
        .in_data(s_stat_data[l*STAT_WIDTH +: STAT_WIDTH]), .in_valid(s_stat_valid[l]),
        /* verilator lint_off PINCONNECTEMPTY */
        .in_ready(),    // never full: see the head comment
        .out_data(st_out), .out_valid(st_valid[l]),
        .out_ready(take && ord_lane == l),
        .count()
        /* verilator lint_on PINCONNECTEMPTY */
    );

    if (l == 0) begin : g_h0
        assign head0 = out;
        assign st_head0 = st_out;
    end else begin : g_h1
        assign head1 = out;
        assign st_head1 = st_out;
    end
end
endgenerate

endmodule

`resetall
