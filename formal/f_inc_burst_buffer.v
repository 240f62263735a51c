// SPDX-License-Identifier: MIT
// formal/f_inc_burst_buffer.v - harness of inc_burst_buffer (64-bit beats):
// the consumer takes at most the window's count; a chosen byte of the
// input stream (a free choice of beat and lane) stays in the window at its
// place, moving down only by what was consumed, until it is consumed.
`default_nettype none
module f_inc_burst_buffer #(
    parameter DATA_WIDTH = 64
) (
    input wire clk,
    input wire rst,
    input wire [DATA_WIDTH-1:0] s_data,
    input wire s_valid,
    input wire [4:0] consume_bytes,
    input wire flush,
    input wire f_pick,
    input wire [2:0] f_lane
);
localparam BYTES = DATA_WIDTH / 8;
localparam WB = 2 * BYTES + 2;
wire s_ready;
wire [WB*8-1:0] win_data;
wire [4:0] win_count;

inc_burst_buffer #(.DATA_WIDTH(DATA_WIDTH), .IN_BEATS(1)) dut (
    .clk(clk), .rst(rst), .s_data(s_data), .s_valid(s_valid), .s_ready(s_ready),
    .win_data(win_data), .win_count(win_count), .consume_bytes(consume_bytes), .flush(flush));

always @* assume(consume_bytes <= win_count);

reg       f_armed = 1'b0;
reg [4:0] f_off;
reg [7:0] f_val;
wire [4:0] f_remain = flush ? 5'd0 : win_count - consume_bytes;
always @(posedge clk) begin
    if (f_armed) begin
        if (flush || consume_bytes > f_off)
            f_armed <= 1'b0;
        else
            f_off <= f_off - consume_bytes;
    end
    if (!f_armed && s_valid && s_ready && f_pick) begin
        f_armed <= 1'b1;
        f_off   <= f_remain + f_lane;
        f_val   <= s_data[f_lane*8 +: 8];
    end
    if (rst) f_armed <= 1'b0;
end
reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @* begin
    if (f_past_valid && !rst && f_armed) begin
        assert(f_off < win_count);
        assert(win_data[f_off*8 +: 8] == f_val);
    end
end
always @(posedge clk) begin
    if (f_past_valid && !rst) begin
        cover(f_armed && f_off == WB - 1);
        cover(f_armed && consume_bytes == f_off + 1 && win_count == WB);
    end
end
endmodule
