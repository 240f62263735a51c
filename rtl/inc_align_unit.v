// SPDX-License-Identifier: MIT
/*
 * inc_align_unit.v - accumulates variable-length chunks (compressed groups,
 * raw tail bytes) into fixed-width output rows at byte granularity.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * A frame's chunks arrive in order, one per cycle at most, each 0..IN_BYTES
 * bytes (byte 0 at [7:0]). The first chunk of a frame has in_start set and
 * preloads the row with in_offset don't-care bytes, so that the stream
 * lands at its byte position in the output frame (the compress engine
 * passes (payload offset + 4) mod OUT_BYTES). The chunk with in_last set
 * (it may be empty) flushes the partial row. Rows come out registered, one
 * cycle after the chunk that completes them:
 *
 *   out0: a full row, or the flushed partial row;
 *   out1: only on in_last, when the last chunk both completes a row and
 *         leaves bytes over (the second, partial row).
 *
 * Bytes of in_data at and beyond in_len are ignored. out*_count is the number of valid bytes of the row (OUT_BYTES when full;
 * the preloaded bytes count as valid); a partial row's bytes beyond the
 * count are zero. A last chunk in a frame that never started (no chunk with
 * in_start) flushes nothing. Since pending bytes never exceed
 * OUT_BYTES - 1 between chunks, IN_BYTES <= OUT_BYTES keeps the rate at
 * one row per cycle.
 */
module inc_align_unit #(
    // largest chunk in bytes (34 = a full group of 8 values)
    parameter IN_BYTES  = 34,
    // row width in bytes (the compress engine uses 64 = two 256-bit beats);
    // IN_BYTES <= OUT_BYTES <= 128
    parameter OUT_BYTES = 64,
    // 1: bytes of in_data at and beyond in_len are ignored (cleared here);
    // 0: the source guarantees they are zero (one mask less in the row loop)
    parameter MASK_IN   = 1
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   in_valid,
    input  wire [IN_BYTES*8-1:0]  in_data,
    input  wire [7:0]             in_len,      // 0..IN_BYTES
    input  wire                   in_start,    // first chunk of a frame: preload in_offset
    input  wire [7:0]             in_offset,   // 0..OUT_BYTES-1
    input  wire                   in_last,     // flush after this chunk

    output reg                    out0_valid,
    output reg  [OUT_BYTES*8-1:0] out0_data,
    output reg  [7:0]             out0_count,
    output reg                    out1_valid,
    output reg  [OUT_BYTES*8-1:0] out1_data,
    output reg  [7:0]             out1_count
);

localparam ACC_BYTES = OUT_BYTES + IN_BYTES;
localparam [8:0] OUT_N = OUT_BYTES[8:0];
localparam OUT_LOG  = $clog2(OUT_BYTES);
localparam OUT_POW2 = (1 << OUT_LOG) == OUT_BYTES;

`include "inc_lsum.vh"


initial begin
    if (IN_BYTES > OUT_BYTES || OUT_BYTES > 128) begin
        $display("inc_align_unit: need IN_BYTES <= OUT_BYTES <= 128");
        $finish;
    end
end

reg [ACC_BYTES*8-1:0] acc_reg = 0;    // pending bytes from byte 0
reg [7:0]             cnt_reg = 0;    // pending byte count, < OUT_BYTES
reg                   active_reg = 1'b0;

wire [7:0]             base_cnt = in_start ? in_offset : cnt_reg;
wire [ACC_BYTES*8-1:0] base_acc = in_start ? {ACC_BYTES*8{1'b0}} : acc_reg;
reg  [IN_BYTES*8-1:0]  in_masked;      // bytes at and beyond in_len cleared
integer m;
always @* begin
    in_masked = in_data;
    for (m = 0; m < IN_BYTES; m = m + 1)
        if (MASK_IN != 0 && m >= in_len)
            in_masked[m*8 +: 8] = 8'd0;
end
wire [ACC_BYTES*8-1:0] chunk    = {{(OUT_BYTES*8){1'b0}}, in_masked};
wire [ACC_BYTES*8-1:0] merged   = base_acc | (chunk << {base_cnt, 3'b000});
// The byte count as gates (inc_lsum: no carry chain in the row loop), and
// for a power-of-two row width `full` and the rest count as bit tests.
wire [7:0]             total8   = inc_lsum(base_cnt, in_len);   // < OUT_BYTES + IN_BYTES <= 256
wire [8:0]             total    = {1'b0, total8};
wire                   full     = OUT_POW2 ? (total >> OUT_LOG) != 9'd0 : total >= OUT_N;
wire [ACC_BYTES*8-1:0] rest     = merged >> (OUT_BYTES*8);
wire [8:0]             rest_cnt = OUT_POW2 ? total & (OUT_N - 9'd1) : total - OUT_N;
wire                   live     = in_start || active_reg;

// The pending bytes beyond cnt_reg are always zero (the masked chunk is
// zero from in_len on, a shifted-out rest from rest_cnt on), so merged is
// zero from total on and rest from rest_cnt on: partial rows need no
// clearing.

always @(posedge clk) begin
    out0_valid <= 1'b0;
    out1_valid <= 1'b0;
    if (in_valid && live) begin
        if (full) begin
            out0_valid <= 1'b1;
            out0_data  <= merged[OUT_BYTES*8-1:0];
            out0_count <= OUT_N[7:0];
            if (in_last) begin
                out1_valid <= rest_cnt != 0;
                out1_data  <= rest[OUT_BYTES*8-1:0];
                out1_count <= rest_cnt[7:0];
            end
        end else if (in_last) begin
            out0_valid <= total != 0;
            out0_data  <= merged[OUT_BYTES*8-1:0];
            out0_count <= total[7:0];
        end
        if (in_last) begin
            acc_reg    <= {ACC_BYTES*8{1'b0}};
            cnt_reg    <= 8'd0;
            active_reg <= 1'b0;
        end else begin
            acc_reg    <= full ? rest : merged;
            cnt_reg    <= full ? rest_cnt[7:0] : total[7:0];
            active_reg <= 1'b1;
        end
    end

    if (rst) begin
        out0_valid <= 1'b0;
        out1_valid <= 1'b0;
        acc_reg    <= {ACC_BYTES*8{1'b0}};
        cnt_reg    <= 8'd0;
        active_reg <= 1'b0;
    end
end

endmodule

`resetall
