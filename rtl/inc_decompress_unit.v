// SPDX-License-Identifier: MIT
/*
 * inc_decompress_unit - one group per cycle: tag decoder, payload offsets,
 * eight inc_decompress_block lanes. Four pipeline stages, no backpressure.
 *
 * Group layout (docs/codec.md), byte 0 first:
 *
 *   +-------+-------+-----------+-----------+-----+-----------+
 *   | tag word (LE) | payload 0 | payload 1 | ... | payload 7 |
 *   +-------+-------+-----------+-----------+-----+-----------+
 *     lane i tag = tagword[2i+1:2i]; payload i is 0/1/2/4 bytes (LE)
 *     at offset 2 + sum(size of lanes < i)
 *
 * group_size and pad_ok are combinational from in_window (for the burst
 * buffer controller); a raw chunk (in_raw) passes in_raw_count bytes of the
 * window unchanged (the frame's tail bytes).
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Tag decoder + payload extraction + 8 decompression lanes, 4-cycle latency.
module inc_decompress_unit (
    input  wire         clk,
    input  wire         rst,

    input  wire [271:0] in_window,    // next 34 stream bytes, byte 0 = tag word LSB
    input  wire         in_valid,     // decode a group (or pass a raw chunk) this cycle
    input  wire [3:0]   in_nvalid,    // values of this group that are output, 1..8
    input  wire         in_raw,       // pass in_raw_count window bytes instead of a group
    input  wire [1:0]   in_raw_count, // raw bytes, 0..3
    input  wire         in_last,      // last chunk of the frame

    output wire [5:0]   group_size,   // bytes of the group at in_window, 2..34
    output wire         pad_ok,       // lanes >= in_nvalid carry tag 0

    output reg  [255:0] out_data,     // decoded values (LE float32 per 4 bytes) or raw bytes
    output reg  [5:0]   out_count,    // valid bytes of out_data from byte 0, 0..32
    output reg          out_valid,
    output reg          out_last
);

localparam LANES = 8;   // values per group: fixed by the stream format

wire [15:0] tagword = in_window[15:0];

// Payload sizes and offsets (flat vectors: lane i at [6*i +: 6]).
reg [6*LANES-1:0]     size;
reg [6*(LANES+1)-1:0] off;
reg [32*LANES-1:0]    pay;
reg [31:0]            word;
integer               i, k;

`include "inc_lsum.vh"
function [5:0] lsum6;   // 6-bit operands (the sums stay below 64)
    input [5:0] a, b;
    /* verilator lint_off UNUSEDSIGNAL */
    reg   [7:0] t;
    /* verilator lint_on UNUSEDSIGNAL */
    begin
        t = inc_lsum({2'b00, a}, {2'b00, b});
        lsum6 = t[5:0];
    end
endfunction

always @* begin
    off[5:0] = 6'd2;
    for (i = 0; i < LANES; i = i + 1) begin
        case (tagword[2*i +: 2])
            2'd0: size[6*i +: 6] = 6'd0;
            2'd1: size[6*i +: 6] = 6'd1;
            2'd2: size[6*i +: 6] = 6'd2;
            default: size[6*i +: 6] = 6'd4;
        endcase
    end
    // Each lane's offset is a function of at most 14 tag bits: summed in
    // plain logic (lsum) rather than a chain of carry chains, so that
    // synthesis maps each one to a few LUT levels.
    for (i = 1; i <= LANES; i = i + 1) begin
        off[6*i +: 6] = 6'd2;
        for (k = 0; k < i; k = k + 1)
            off[6*i +: 6] = lsum6(off[6*i +: 6], size[6*k +: 6]);
    end
end

// Stage 0: the window and its lane offsets.
reg [271:0]       s0_window_reg;
reg [6*LANES-1:0] s0_off_reg;
reg               s0_valid_reg, s0_raw_reg, s0_last_reg;
reg [5:0]         s0_count_reg;

always @(posedge clk) begin
    s0_window_reg <= in_window;
    s0_off_reg    <= off[6*LANES-1:0];
    s0_raw_reg    <= in_raw;
    s0_count_reg  <= in_raw ? {4'd0, in_raw_count} : {in_nvalid[3:0], 2'b00};
    s0_last_reg   <= in_last;
    s0_valid_reg  <= in_valid;
    if (rst) begin
        s0_valid_reg <= 1'b0;
    end
end

wire [15:0] s0_tags = s0_window_reg[15:0];

always @* begin
    for (i = 0; i < LANES; i = i + 1) begin
        word = s0_window_reg[{s0_off_reg[6*i +: 6], 3'b000} +: 32];
        case (s0_tags[2*i +: 2])
            2'd0: pay[32*i +: 32] = 32'd0;
            2'd1: pay[32*i +: 32] = {24'd0, word[7:0]};
            2'd2: pay[32*i +: 32] = {16'd0, word[15:0]};
            default: pay[32*i +: 32] = word;
        endcase
    end
end

// The group's size, for the engine's stream checks.
assign group_size = inc_group_bytes(tagword);
assign pad_ok = (in_nvalid >= 4'd8) || ((tagword >> {in_nvalid, 1'b0}) == 16'd0);

// Stage 1: tags and payloads.
reg [15:0]  s1_tags_reg;
reg [255:0] s1_pay_reg;
reg         s1_valid_reg, s1_raw_reg, s1_last_reg;
reg [5:0]   s1_count_reg;
reg [31:0]  s1_rawdata_reg;

always @(posedge clk) begin
    s1_tags_reg    <= s0_tags;
    s1_pay_reg     <= pay;
    s1_raw_reg     <= s0_raw_reg;
    s1_rawdata_reg <= s0_window_reg[31:0];
    s1_count_reg   <= s0_count_reg;
    s1_last_reg    <= s0_last_reg;
    s1_valid_reg   <= s0_valid_reg;
    if (rst) begin
        s1_valid_reg <= 1'b0;
    end
end

// Stages 2 and 3: the decompression blocks, each with a register between
// its leading-one search and its shift (PIPE = 1); the chunk's other
// fields follow in s2.
wire [255:0] values;

genvar g;
generate
    for (g = 0; g < LANES; g = g + 1) begin : lane
        inc_decompress_block #(.PIPE(1)) blk (
            .clk(clk),
            .tag(s1_tags_reg[2*g +: 2]),
            .payload(s1_pay_reg[32*g +: 32]),
            .value(values[32*g +: 32])
        );
    end
endgenerate

reg        s2_valid_reg, s2_raw_reg, s2_last_reg;
reg [5:0]  s2_count_reg;
reg [31:0] s2_rawdata_reg;

always @(posedge clk) begin
    s2_raw_reg     <= s1_raw_reg;
    s2_rawdata_reg <= s1_rawdata_reg;
    s2_count_reg   <= s1_count_reg;
    s2_last_reg    <= s1_last_reg;
    s2_valid_reg   <= s1_valid_reg;
    out_data  <= s2_raw_reg ? {224'd0, s2_rawdata_reg} : values;
    out_count <= s2_count_reg;
    out_last  <= s2_last_reg;
    out_valid <= s2_valid_reg;
    if (rst) begin
        s2_valid_reg <= 1'b0;
        out_valid    <= 1'b0;
        // (also keeps out_count a flip-flop rather than a shift register
        // with its copies before, in front of the packer)
        out_count    <= 6'd0;
    end
end

endmodule

`resetall
