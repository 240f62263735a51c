// SPDX-License-Identifier: MIT
/*
 * inc_burst_buffer - byte window over a stream of full beats for the
 * decompression unit. Takes IN_BEATS beats per transfer and holds
 * IN_BEATS + 1 beats plus SLACK bytes (IN_BEATS = 2: 3*32 + 2 = 98 bytes);
 * byte 0 of win_data is the next unconsumed stream byte. Each cycle the
 * consumer may take consume_bytes (<= win_count) bytes off the front; they
 * shift out, and a transfer is accepted in the same cycle when it fits
 * after the consumption:
 *
 *   remain    = win_count - consume_bytes          (0 with flush)
 *   s_ready   = remain <= WB - IN_BYTES
 *   buf_next  = (buf >> 8*consume) | (s_data << 8*remain)     (when accepted)
 *
 * The two slack bytes make room for the largest group (BYTES + 2 bytes):
 * with IN_BEATS = 1 and exactly two beats a window of 33 bytes could
 * neither take a beat nor hold a 34-byte group. A window that holds fewer
 * bytes than a group always has room for a transfer, so a consumer never
 * waits on the buffer while the source keeps up: with IN_BEATS = 1 a
 * consumer of 34-byte groups waits one cycle in seventeen (one beat per
 * cycle), with IN_BEATS = 2 it never waits.
 *
 * flush empties the window; a transfer offered in the same cycle is
 * accepted into the empty window (a new stream starts without a gap).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Byte window with consume-and-refill in one cycle.
module inc_burst_buffer #(
    parameter DATA_WIDTH = 256,  // beat width in bits, multiple of 32
    parameter IN_BEATS   = 1     // beats per input transfer, 1 or 2
) (
    input  wire                    clk,
    input  wire                    rst,

    input  wire [IN_BITS-1:0]      s_data,        // next IN_BEATS stream beats, byte 0 first
    input  wire                    s_valid,
    output wire                    s_ready,

    output wire [WB*8-1:0]         win_data,      // window, byte 0 = next stream byte
    output wire [CW-1:0]           win_count,     // valid bytes in the window, 0..WB
    input  wire [CW-1:0]           consume_bytes, // bytes taken this cycle, <= win_count
    input  wire                    flush          // empty the window (then take s_data if valid)
);

localparam BYTES    = DATA_WIDTH / 8;
localparam IN_BITS  = IN_BEATS * DATA_WIDTH;
localparam IN_BYTES = IN_BEATS * BYTES;
localparam SLACK    = 2;                            // largest group = BYTES + SLACK bytes
localparam WB       = (IN_BEATS + 1) * BYTES + SLACK; // window bytes
localparam CW       = $clog2(WB + 1);

initial begin
    if (DATA_WIDTH % 32 != 0 || DATA_WIDTH < 64) begin
        $error("inc_burst_buffer: DATA_WIDTH must be a multiple of 32, >= 64");
        $finish;
    end
    if (IN_BEATS != 1 && IN_BEATS != 2) begin
        $error("inc_burst_buffer: IN_BEATS must be 1 or 2");
        $finish;
    end
end

reg [WB*8-1:0]         buf_reg, buf_next;
reg [CW-1:0]           count_reg, count_next;

`include "inc_lsum.vh"

// The counts as gates (inc_lsum.vh): with the consumer's group size in
// front they are one logic cone, without carry chains, in the window's
// consume-and-refill loop.
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]    remain8 = inc_lsub({{(8-CW){1'b0}}, count_reg}, {{(8-CW){1'b0}}, consume_bytes});
wire [7:0]    next8   = inc_lsum(remain8, IN_BYTES[7:0]);
/* verilator lint_on UNUSEDSIGNAL */
wire [CW-1:0] remain = flush ? {CW{1'b0}} : remain8[CW-1:0];
localparam integer ROOM_I = WB - IN_BYTES;
localparam [7:0]  ROOM   = ROOM_I[7:0];

assign s_ready   = flush || inc_lge(ROOM, remain8);
assign win_data  = buf_reg;
assign win_count = count_reg;

always @* begin
    // Bytes at and above remain are cleared, so the new beat can be ORed in.
    buf_next   = (buf_reg >> {consume_bytes, 3'b000}) &
                 ~({WB*8{1'b1}} << {remain, 3'b000});
    count_next = remain;
    if (s_valid && s_ready) begin
        buf_next   = buf_next | ({{(WB*8-IN_BITS){1'b0}}, s_data} << {remain, 3'b000});
        count_next = flush ? IN_BYTES[CW-1:0] : next8[CW-1:0];
    end
end

always @(posedge clk) begin
    buf_reg   <= buf_next;
    count_reg <= count_next;
    if (rst) begin
        count_reg <= {CW{1'b0}};
    end
end

`ifdef FORMAL
// Formal (formal/README.md): the window never holds more than WB bytes, a
// refill is taken only when it fits (invariants for the k-induction).
reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @* begin
    if (!f_past_valid) assume(rst);
    if (f_past_valid && !rst) begin
        assert(count_reg <= WB);
        if (s_valid && s_ready) assert(remain <= WB - IN_BYTES);
    end
end
`endif

endmodule

`resetall
