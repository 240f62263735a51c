// SPDX-License-Identifier: MIT
/*
 * rx_units_top - unit-test harness of the receive datapath pieces:
 *  - one inc_decompress_block, driven combinationally (blk_*);
 *  - inc_burst_buffer + inc_decompress_unit with a minimal group controller
 *    (the one of inc_decompress_engine's stream phase): beats of a stream
 *    in on s_*, start with n values, decoded groups out on u_*.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Harness around the decompress block, burst buffer and decompress unit.
module rx_units_top #(
    parameter IN_BEATS = 2               // burst buffer beats per transfer, 1 or 2
) (
    input  wire         clk,
    input  wire         rst,

    input  wire [1:0]   blk_tag,
    input  wire [31:0]  blk_payload,
    output wire [31:0]  blk_value,

    input  wire         start,       // begin a stream of n values (pulse)
    input  wire [15:0]  n,
    input  wire [IN_BEATS*256-1:0] s_data,  // IN_BEATS beats per transfer
    output wire [6:0]   in_bytes,    // bytes per transfer
    input  wire         s_valid,
    output wire         s_ready,
    output wire [255:0] u_data,
    output wire [5:0]   u_count,
    output wire         u_valid,
    output wire         u_last,
    output reg  [15:0]  consumed,    // stream bytes taken by groups
    output reg          pad_bad,
    output wire         busy
);

inc_decompress_block blk (.clk(1'b0), .tag(blk_tag), .payload(blk_payload), .value(blk_value));

/* verilator lint_off UNUSEDSIGNAL */ // a group is at most 34 bytes
wire [(IN_BEATS+1)*256+15:0] win;
/* verilator lint_on UNUSEDSIGNAL */
wire [6:0]   count;
reg  [6:0]   consume;
wire [5:0]   gsize;
wire         pad_ok;
reg  [15:0]  left_reg;
reg          on_reg;
reg          go;
wire [3:0]   nvalid = left_reg >= 16'd8 ? 4'd8 : left_reg[3:0];

localparam IN_BYTES = IN_BEATS * 32;
assign in_bytes = IN_BYTES[6:0];

inc_burst_buffer #(.DATA_WIDTH(256), .IN_BEATS(IN_BEATS)) bb (
    .clk(clk), .rst(rst), .s_data(s_data), .s_valid(s_valid && on_reg), .s_ready(s_ready),
    .win_data(win), .win_count(count), .consume_bytes(consume), .flush(start)
);

inc_decompress_unit du (
    .clk(clk), .rst(rst), .in_window(win[271:0]), .in_valid(go), .in_nvalid(nvalid),
    .in_raw(1'b0), .in_raw_count(2'd0), .in_last(go && left_reg <= 16'd8),
    .group_size(gsize), .pad_ok(pad_ok),
    .out_data(u_data), .out_count(u_count), .out_valid(u_valid), .out_last(u_last)
);

always @* begin
    go      = on_reg && left_reg != 16'd0 && count >= 7'd2 && count >= {1'b0, gsize};
    consume = go ? {1'b0, gsize} : 7'd0;
end

assign busy = on_reg;

always @(posedge clk) begin
    if (go) begin
        left_reg <= left_reg - {12'd0, nvalid};
        consumed <= consumed + {10'd0, gsize};
        if (!pad_ok) begin
            pad_bad <= 1'b1;
        end
        if (left_reg <= 16'd8) begin
            on_reg <= 1'b0;
        end
    end
    if (start) begin
        left_reg <= n;
        on_reg   <= n != 16'd0;
        consumed <= 16'd0;
        pad_bad  <= 1'b0;
    end
    if (rst) begin
        on_reg <= 1'b0;
    end
end

endmodule

`resetall
