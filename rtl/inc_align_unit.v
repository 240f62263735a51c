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
 *
 * Two parts: the front finds each chunk's place in the row (a loop over
 * the byte count alone), the merge shifts the chunk there and ORs it into
 * the pending bytes. IN_REG = 1 registers the chunk and its place between
 * them, so the merge's shift starts at flip-flops; the rows then come out
 * two cycles after their chunk instead of one.
 */
module inc_align_unit #(
    // largest chunk in bytes (34 = a full group of 8 values)
    parameter IN_BYTES  = 34,
    // row width in bytes (the compress engine uses 64 = two 256-bit beats);
    // IN_BYTES <= OUT_BYTES <= 128
    parameter OUT_BYTES = 64,
    // 1: bytes of in_data at and beyond in_len are ignored (cleared here);
    // 0: the source guarantees they are zero (one mask less in the row loop)
    parameter MASK_IN   = 1,
    // 1: a register between the front and the merge (rows one cycle later)
    parameter IN_REG    = 0
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
reg [7:0]             cnt_reg = 0;    // pending byte count (after the front's chunks), < OUT_BYTES
reg                   active_reg = 1'b0;

reg  [IN_BYTES*8-1:0]  in_masked;      // bytes at and beyond in_len cleared
integer m;
always @* begin
    in_masked = in_data;
    for (m = 0; m < IN_BYTES; m = m + 1)
        if (MASK_IN != 0 && m >= in_len)
            in_masked[m*8 +: 8] = 8'd0;
end

// Front: where the chunk lands, the byte count after it (as gates,
// inc_lsum: no carry chain in the count loop), and for a power-of-two row
// width `full` and the rest count as bit tests.
wire [7:0] f_pos    = in_start ? in_offset : cnt_reg;
wire [7:0] f_total8 = inc_lsum(f_pos, in_len);   // < OUT_BYTES + IN_BYTES <= 256
wire [8:0] f_total  = {1'b0, f_total8};
wire       f_full   = OUT_POW2 ? (f_total >> OUT_LOG) != 9'd0 : f_total >= OUT_N;
wire [8:0] f_rest   = OUT_POW2 ? f_total & (OUT_N - 9'd1) : f_total - OUT_N;
wire       f_take   = in_valid && (in_start || active_reg);

always @(posedge clk) begin
    if (f_take) begin
        if (in_last) begin
            cnt_reg    <= 8'd0;
            active_reg <= 1'b0;
        end else begin
            cnt_reg    <= f_full ? f_rest[7:0] : f_total[7:0];
            active_reg <= 1'b1;
        end
    end
    if (rst) begin
        cnt_reg    <= 8'd0;
        active_reg <= 1'b0;
    end
end

// Between front and merge: the chunk, its place, its count and flags.
wire                  m_take, m_start, m_last, m_full;
wire [IN_BYTES*8-1:0] m_data;
wire [7:0]            m_pos;
wire [8:0]            m_total, m_rest;

generate
    if (IN_REG != 0) begin : g_reg
        reg                  take_reg = 1'b0, start_reg = 1'b0, last_reg = 1'b0, full_reg = 1'b0;
        reg [IN_BYTES*8-1:0] data_reg = 0;
        reg [7:0]            pos_reg = 0;
        reg [8:0]            total_reg = 0, rest_reg = 0;
        always @(posedge clk) begin
            take_reg  <= f_take;
            start_reg <= in_start;
            last_reg  <= in_last;
            full_reg  <= f_full;
            data_reg  <= in_masked;
            pos_reg   <= f_pos;
            total_reg <= f_total;
            rest_reg  <= f_rest;
            if (rst)
                take_reg <= 1'b0;
        end
        assign {m_take, m_start, m_last, m_full} = {take_reg, start_reg, last_reg, full_reg};
        assign {m_data, m_pos, m_total, m_rest}  = {data_reg, pos_reg, total_reg, rest_reg};
    end else begin : g_wire
        assign {m_take, m_start, m_last, m_full} = {f_take, in_start, in_last, f_full};
        assign {m_data, m_pos, m_total, m_rest}  = {in_masked, f_pos, f_total, f_rest};
    end
endgenerate

// Merge. The pending bytes beyond the count are always zero (the masked
// chunk is zero from in_len on, a shifted-out rest from its count on), so
// merged is zero from the total on and rest from its count on: partial
// rows need no clearing.
wire [ACC_BYTES*8-1:0] base_acc = m_start ? {ACC_BYTES*8{1'b0}} : acc_reg;
wire [ACC_BYTES*8-1:0] chunk    = {{(OUT_BYTES*8){1'b0}}, m_data};
wire [ACC_BYTES*8-1:0] merged   = base_acc | (chunk << {m_pos, 3'b000});
wire [ACC_BYTES*8-1:0] rest     = merged >> (OUT_BYTES*8);

always @(posedge clk) begin
    out0_valid <= 1'b0;
    out1_valid <= 1'b0;
    if (m_take) begin
        if (m_full) begin
            out0_valid <= 1'b1;
            out0_data  <= merged[OUT_BYTES*8-1:0];
            out0_count <= OUT_N[7:0];
            if (m_last) begin
                out1_valid <= m_rest != 0;
                out1_data  <= rest[OUT_BYTES*8-1:0];
                out1_count <= m_rest[7:0];
            end
        end else if (m_last) begin
            out0_valid <= m_total != 0;
            out0_data  <= merged[OUT_BYTES*8-1:0];
            out0_count <= m_total[7:0];
        end
        acc_reg <= m_last ? {ACC_BYTES*8{1'b0}} : (m_full ? rest : merged);
    end

    if (rst) begin
        out0_valid <= 1'b0;
        out1_valid <= 1'b0;
        acc_reg    <= {ACC_BYTES*8{1'b0}};
    end
end

endmodule

`resetall
