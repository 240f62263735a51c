// SPDX-License-Identifier: MIT
/*
 * inc_burst_buffer - byte window over a stream of full beats for the
 * decompression unit. Holds two beats plus SLACK bytes (2*BYTES + 2 = 66
 * bytes; byte 0 of win_data is the next unconsumed stream byte. Each cycle
 * the consumer may take consume_bytes (<= win_count) bytes off the front;
 * they shift out, and a new beat is accepted in the same cycle when it fits
 * after the consumption:
 *
 *   remain    = win_count - consume_bytes
 *   s_ready   = remain <= BYTES + SLACK
 *   buf_next  = (buf >> 8*consume) | (s_data << 8*remain)     (when accepted)
 *
 * The two slack bytes make room for the largest group (BYTES + 2 bytes):
 * with exactly two beats a window of 33 bytes could neither take a beat
 * nor hold a 34-byte group. A consumer that takes at most one beat of bytes
 * per cycle never waits on the buffer, and one taking BYTES + 2 (a 34-byte
 * group) waits one cycle in seventeen. flush empties the buffer.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Two-beat byte window with consume-and-refill in one cycle.
module inc_burst_buffer #(
    parameter DATA_WIDTH = 256   // beat width in bits, multiple of 32
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [DATA_WIDTH-1:0]   s_data,        // next stream beat, byte 0 first
    input  wire                    s_valid,
    output wire                    s_ready,

    output wire [WB*8-1:0]         win_data,      // window, byte 0 = next stream byte
    output wire [CW-1:0]           win_count,     // valid bytes in the window, 0..WB
    input  wire [CW-1:0]           consume_bytes, // bytes taken this cycle, <= win_count
    input  wire                    flush          // empty the window (s_data is not taken)
);

localparam BYTES = DATA_WIDTH / 8;
localparam SLACK = 2;                     // largest group = BYTES + SLACK bytes
localparam WB    = 2 * BYTES + SLACK;     // window bytes
localparam CW    = $clog2(WB + 1);

initial begin
    if (DATA_WIDTH % 32 != 0 || DATA_WIDTH < 64) begin
        $error("inc_burst_buffer: DATA_WIDTH must be a multiple of 32, >= 64");
        $finish;
    end
end

reg [WB*8-1:0]         buf_reg, buf_next;
reg [CW-1:0]           count_reg, count_next;

wire [CW-1:0] remain = count_reg - consume_bytes;

assign s_ready   = !flush && remain <= BYTES[CW-1:0] + SLACK[CW-1:0];
assign win_data  = buf_reg;
assign win_count = count_reg;

always @* begin
    // Bytes at and above remain are cleared, so the new beat can be ORed in.
    buf_next   = (buf_reg >> {consume_bytes, 3'b000}) &
                 ~({WB*8{1'b1}} << {remain, 3'b000});
    count_next = remain;
    if (s_valid && s_ready) begin
        buf_next   = buf_next | ({{(WB*8-DATA_WIDTH){1'b0}}, s_data} << {remain, 3'b000});
        count_next = remain + BYTES[CW-1:0];
    end
end

always @(posedge clk) begin
    buf_reg   <= buf_next;
    count_reg <= count_next;
    if (flush) begin
        count_reg <= {CW{1'b0}};
    end
    if (rst) begin
        count_reg <= {CW{1'b0}};
    end
end

endmodule

`resetall
