// SPDX-License-Identifier: MIT
/*
 * inc_decompress_packer - packs chunks of 0..BYTES bytes into full beats at
 * byte granularity (the decompress engine's output realignment: 32-byte
 * value groups at any byte offset, the raw tail).
 *
 * The first chunk of a frame (in_first) lands at byte in_offset of the
 * first beat; the bytes below it are zero (the engine takes the header
 * bytes there from the input frame).
 *
 * A beat is emitted once more than BYTES bytes are held, so after every
 * cycle 1..BYTES bytes remain; the chunk flagged in_last flushes them (one
 * beat, or two over two cycles: in_ready is low in the second). No other
 * backpressure: at most one chunk in, one beat out per cycle. A beat leaves
 * the cycle after the chunk that completes it, from the accumulator and
 * that chunk registered (the outputs are not registered).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Byte-granular chunk-to-beat packer.
module inc_decompress_packer #(
    parameter DATA_WIDTH = 256   // beat width in bits, multiple of 32
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] in_data,   // chunk, byte 0 first; bytes >= in_count ignored
    input  wire [KW-1:0]         in_count,  // 0..BYTES
    input  wire                  in_valid,
    input  wire                  in_first,  // first chunk of a frame: starts at in_offset
    input  wire [KW-1:0]         in_offset, // 0..BYTES-1, used with in_first
    input  wire [KW-1:0]         in_room,   // BYTES - in_offset (given precomputed: it
                                            // decides the first chunk's beat)
    input  wire                  in_last,   // last chunk of the frame: flush
    output wire                  in_ready,  // low only in the second cycle of a two-beat flush

    output reg  [DATA_WIDTH-1:0] out_data,  // combinational from registers
    output reg  [KW-1:0]         out_count, // bytes in the beat, BYTES except on the last
    output reg                   out_valid,
    output reg                   out_last
);

localparam BYTES = DATA_WIDTH / 8;
localparam KW    = $clog2(BYTES + 1);
localparam FW    = $clog2(2 * BYTES + 1);

initial begin
    if (DATA_WIDTH % 32 != 0 || DATA_WIDTH < 64) begin
        $error("inc_decompress_packer: DATA_WIDTH must be a multiple of 32, >= 64");
        $finish;
    end
end

// Two steps. P1 keeps the fill level and the room left in the beat (BYTES -
// fill: a chunk completes the beat when its count exceeds the room, one
// subtraction), decides what the
// cycle does (emit a beat, end the frame, flush) and registers the chunk
// already masked and shifted to its place; a cycle later the accumulator
// merges it (its loop is an OR and a select) and the beat leaves.
reg [FW-1:0]           fill_reg, fill_next;
reg [FW-1:0]           room_reg, room_next;
reg [FW:0]             rest;       // room - count, negative when a beat leaves
reg                    flush_reg, flush_next;

reg [2*DATA_WIDTH-1:0] chunk;
reg [FW-1:0]           total;      // fill + count
reg [FW-1:0]           fill;       // bytes held, or the first chunk's offset
reg                    emit;       // a full beat leaves with this chunk

assign in_ready = !flush_reg;

// room - count for both rooms (a first chunk's, the held one), in parallel
// from registers, and fill + count likewise for both fill levels (the
// offset, the held bytes); in_first chooses after them. With a power-of-two
// beat the counts left after a beat leaves are bit fields (no adder).
localparam POW2 = (BYTES & (BYTES - 1)) == 0;
wire [FW:0] rest_first, rest_held;
wire [FW-1:0] total_first, total_held;

`include "inc_lsum.vh"
generate
    if (FW < 8) begin : g_gates    // as gates (no carry chain in the loop)
        /* verilator lint_off UNUSEDSIGNAL */
        wire [7:0] rf8 = inc_lsub({{(8-KW){1'b0}}, in_room}, {{(8-KW){1'b0}}, in_count});
        wire [7:0] rh8 = inc_lsub({{(8-FW){1'b0}}, room_reg}, {{(8-KW){1'b0}}, in_count});
        /* verilator lint_on UNUSEDSIGNAL */
        assign rest_first = rf8[FW:0];
        assign rest_held  = rh8[FW:0];
        // the two sums as gates too: as adders, synthesis would share one
        // adder behind the in_first select
        /* verilator lint_off UNUSEDSIGNAL */
        wire [7:0] tf8 = inc_lsum({{(8-KW){1'b0}}, in_offset}, {{(8-KW){1'b0}}, in_count});
        wire [7:0] th8 = inc_lsum({{(8-FW){1'b0}}, fill_reg}, {{(8-KW){1'b0}}, in_count});
        /* verilator lint_on UNUSEDSIGNAL */
        assign total_first = tf8[FW-1:0];
        assign total_held  = th8[FW-1:0];
    end else begin : g_ops
        assign rest_first = {{(FW+1-KW){1'b0}}, in_room} - {{(FW+1-KW){1'b0}}, in_count};
        assign rest_held  = {1'b0, room_reg} - {{(FW+1-KW){1'b0}}, in_count};
        assign total_first = {{(FW-KW){1'b0}}, in_offset} + {{(FW-KW){1'b0}}, in_count};
        assign total_held  = fill_reg + {{(FW-KW){1'b0}}, in_count};
    end
endgenerate

always @* begin
    fill_next  = fill_reg;
    room_next  = room_reg;
    flush_next = 1'b0;
    // After a frame's last chunk the accumulator is zero, so a first chunk
    // only needs the offset as its fill level.
    fill       = in_first ? {{(FW-KW){1'b0}}, in_offset} : fill_reg;
    total      = in_first ? total_first : total_held;
    rest       = in_first ? rest_first : rest_held;
    emit       = rest[FW];
    chunk      = ({{DATA_WIDTH{1'b0}}, in_data} &
                  ~({2*DATA_WIDTH{1'b1}} << {in_count, 3'b000})) << {fill, 3'b000};
    if (flush_reg) begin
        fill_next = {FW{1'b0}};
        room_next = BYTES[FW-1:0];
    end else if (in_valid) begin
        if (emit) begin
            // total - BYTES and rest + BYTES, both in 0..BYTES-1
            fill_next  = POW2 ? total & (BYTES[FW-1:0] - 1'b1) : total - BYTES[FW-1:0];
            room_next  = POW2 ? rest[FW-1:0] & (BYTES[FW-1:0] - 1'b1) : rest[FW-1:0] + BYTES[FW-1:0];
            flush_next = in_last;
        end else begin
            fill_next = in_last ? {FW{1'b0}} : total;
            room_next = in_last ? BYTES[FW-1:0] : rest[FW-1:0];
        end
    end
end

reg                    p1_valid_reg = 1'b0;   // a chunk to merge
reg                    p1_flush_reg = 1'b0;   // second beat of a flush
reg                    p1_emit_reg  = 1'b0;   // a full beat leaves
reg                    p1_last_reg  = 1'b0;   // the frame's last chunk
reg [KW-1:0]           p1_count_reg = 0;      // bytes of the beat that leaves
reg [2*DATA_WIDTH-1:0] p1_chunk_reg = 0;

always @(posedge clk) begin
    p1_valid_reg <= in_valid && !flush_reg;
    p1_flush_reg <= flush_reg;
    p1_emit_reg  <= emit;
    p1_last_reg  <= in_last;
    p1_count_reg <= flush_reg ? fill_reg[KW-1:0] : emit ? BYTES[KW-1:0] : total[KW-1:0];
    p1_chunk_reg <= chunk;
    fill_reg     <= fill_next;
    room_reg     <= room_next;
    flush_reg    <= flush_next;
    if (rst) begin
        p1_valid_reg <= 1'b0;
        p1_flush_reg <= 1'b0;
        fill_reg     <= {FW{1'b0}};
        room_reg     <= BYTES[FW-1:0];
        flush_reg    <= 1'b0;
    end
end

`ifndef SYNTHESIS
always @(posedge clk) begin
    if (!rst && in_valid && in_first && {1'b0, in_room} + {1'b0, in_offset} != BYTES[KW:0]) begin
        $display("inc_decompress_packer: in_room %0d is not BYTES - in_offset (%0d)", in_room, in_offset);
        $stop;
    end
end
`endif
`ifdef FORMAL
// the simulation check above, as an assertion (formal/)
always @(posedge clk) begin
    if (!rst)
        assert(!(in_valid && in_first && {1'b0, in_room} + {1'b0, in_offset} != BYTES[KW:0]));
end
`endif

reg [2*DATA_WIDTH-1:0] acc_reg = 0;
wire [2*DATA_WIDTH-1:0] merged = acc_reg | p1_chunk_reg;

// The beat leaving: the low half of the accumulator (second beat of a
// flush) or of the merge.
always @* begin
    out_data  = p1_flush_reg ? acc_reg[DATA_WIDTH-1:0] : merged[DATA_WIDTH-1:0];
    out_count = p1_count_reg;
    out_valid = p1_flush_reg || (p1_valid_reg && (p1_emit_reg || p1_last_reg));
    out_last  = p1_flush_reg || (p1_valid_reg && p1_last_reg && !p1_emit_reg);
end

always @(posedge clk) begin
    if (p1_flush_reg) begin
        acc_reg <= {2*DATA_WIDTH{1'b0}};
    end else if (p1_valid_reg) begin
        acc_reg <= p1_emit_reg ? merged >> DATA_WIDTH :
                   p1_last_reg ? {2*DATA_WIDTH{1'b0}} : merged;
    end
    if (rst)
        acc_reg <= {2*DATA_WIDTH{1'b0}};
end

endmodule

`resetall
