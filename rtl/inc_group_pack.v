// SPDX-License-Identifier: MIT
/*
 * inc_group_pack.v - the shifter tree of the compress unit: packs LANES
 * tagged payloads behind the tag word into one group (the layout of
 * inc_group_encode() in sw-model/src/codec.c).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Group layout (docs/codec.md), LANES = 8: 2..34 bytes
 *
 *   byte 0..1   tag word, little-endian: lane i's tag in bits 2i+1:2i
 *   byte 2..    the payloads of lanes 0..7 in order, 0/1/2/4 bytes each,
 *               little-endian
 *
 * A lane's payload size follows from its tag (0, 1, 2, 4 bytes); payload
 * bits above that size must be zero (inc_compress_block guarantees it).
 * The payloads are packed by a log2(LANES)-level tree: at each level a node
 * appends its right child's bytes to its left child's at the left child's
 * length, so a node of level L is 4 << L bytes wide. PIPE = 0: combinational
 * (clk unused); PIPE = 1: the last level's two children, their lengths and
 * the tags are registered, so the group follows its inputs by a cycle.
 */
module inc_group_pack #(
    // values per group; a power of two >= 4 (the wire format fixes 8)
    parameter LANES = 8,
    parameter PIPE  = 0      // 1: a register before the last level (latency 1)
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                     clk,          // PIPE = 1 only
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [2*LANES-1:0]       in_tags,      // lane i's tag at [2i+1:2i]
    input  wire [LANES*32-1:0]      in_payloads,  // lane i's payload at [32i +: 32], right-aligned
    output wire [GROUP_BYTES*8-1:0] out_group,    // byte 0 at [7:0]; bytes past out_len are 0
    output wire [7:0]               out_len       // group size in bytes
);

localparam TAG_BYTES   = LANES / 4;
localparam GROUP_BYTES = TAG_BYTES + 4 * LANES;
localparam LEVELS      = $clog2(LANES);
localparam [7:0] TAG_N  = TAG_BYTES[7:0];

initial begin
    if (LANES < 4 || (1 << LEVELS) != LANES) begin
        $display("inc_group_pack: LANES must be a power of two >= 4");
        $finish;
    end
end

wire [LANES*8-1:0] lane_len;     // lane payload sizes in bytes

`include "inc_lsum.vh"

genvar i, l;
generate
    for (i = 0; i < LANES; i = i + 1) begin : lane
        wire [1:0] tag = in_tags[2*i +: 2];
        assign lane_len[i*8 +: 8] = tag == 2'd3 ? 8'd4 :
                                    tag == 2'd2 ? 8'd2 :
                                    tag == 2'd1 ? 8'd1 : 8'd0;
    end

    // level[L].data: node i occupies bytes [i*(4<<L), (i+1)*(4<<L));
    // level[L].len[i*8 +: 8] is its length in bytes; kid[L] is what level
    // L is built from (level L - 1, registered before the last level when
    // PIPE = 1)
    for (l = 0; l <= LEVELS; l = l + 1) begin : level
        wire [LANES*32-1:0]      data;
        wire [(LANES>>l)*8-1:0]  len;
        if (l == 0) begin : leaf
            assign data = in_payloads;
            assign len  = lane_len;
        end else begin : inner
            localparam CW = 4 << (l - 1);      // child width in bytes
            wire [LANES*32-1:0]         kdata;
            wire [(LANES>>(l-1))*8-1:0] klen;
            if (PIPE != 0 && l == LEVELS) begin : g_reg
                reg [LANES*32-1:0]         kdata_reg = 0;
                reg [(LANES>>(l-1))*8-1:0] klen_reg = 0;
                always @(posedge clk) begin
                    kdata_reg <= level[l-1].data;
                    klen_reg  <= level[l-1].len;
                end
                assign kdata = kdata_reg;
                assign klen  = klen_reg;
            end else begin : g_wire
                assign kdata = level[l-1].data;
                assign klen  = level[l-1].len;
            end
            for (i = 0; i < (LANES >> l); i = i + 1) begin : node
                wire [CW*8-1:0]   left    = kdata[(2*i)*CW*8 +: CW*8];
                wire [CW*8-1:0]   right   = kdata[(2*i+1)*CW*8 +: CW*8];
                wire [7:0]        left_n  = klen[(2*i)*8 +: 8];
                wire [7:0]        right_n = klen[(2*i+1)*8 +: 8];
                wire [2*CW*8-1:0] shifted = {{(CW*8){1'b0}}, right} << {left_n, 3'b000};

                assign data[i*2*CW*8 +: 2*CW*8] = {{(CW*8){1'b0}}, left} | shifted;
                assign len[i*8 +: 8] = inc_lsum(left_n, right_n);
            end
        end
    end
endgenerate

wire [2*LANES-1:0] tags;

generate
    if (PIPE != 0) begin : g_tags_reg
        reg [2*LANES-1:0] tags_reg = 0;
        always @(posedge clk) begin
            tags_reg <= in_tags;
        end
        assign tags = tags_reg;
    end else begin : g_tags
        assign tags = in_tags;
    end
endgenerate

assign out_group = {level[LEVELS].data, tags};
assign out_len   = inc_lsum(level[LEVELS].len, TAG_N);

endmodule

`resetall
