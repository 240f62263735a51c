// SPDX-License-Identifier: MIT
/*
 * inc_compress_unit.v - LANES compression blocks plus a shifter tree that
 * packs their variable-length payloads behind the tag word into one group,
 * byte-exact with inc_group_encode() in sw-model/src/codec.c.
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
 * Lanes at or beyond in_nvalid get tag 0 and no payload (the last, partial
 * group of a stream). The payloads are packed by inc_group_pack, a
 * log2(LANES)-level shifter tree. Purely combinational; the compress engine
 * instantiates the blocks and inc_group_pack itself, with a register
 * between them.
 */
module inc_compress_unit #(
    // values per group; the wire format fixes 8 (one 256-bit beat of floats).
    // Must be a power of two >= 4 (the tag word is LANES/4 bytes).
    parameter LANES = 8
) (
    input  wire [LANES*32-1:0]        in_data,     // lane i = bytes 4i..4i+3, little-endian
    input  wire [$clog2(LANES+1)-1:0] in_nvalid,   // valid lanes, 0..LANES
    input  wire [6:0]                 in_eb,       // error-bound exponent
    output wire [GROUP_BYTES*8-1:0]   out_group,   // byte 0 at [7:0]; bytes past out_len are 0
    output wire [7:0]                 out_len      // group size in bytes
);

localparam TAG_BYTES   = LANES / 4;
localparam GROUP_BYTES = TAG_BYTES + 4 * LANES;

wire [2*LANES-1:0]  tags;
wire [LANES*32-1:0] payloads;

genvar i;
generate
    for (i = 0; i < LANES; i = i + 1) begin : lane
        wire [1:0]  tag_raw;
        wire [31:0] pay_raw;
        wire        valid = i < in_nvalid;

        inc_compress_block blk (
            .in_value(in_data[i*32 +: 32]),
            .in_eb(in_eb),
            .out_tag(tag_raw),
            .out_payload(pay_raw)
        );

        assign tags[2*i +: 2]       = valid ? tag_raw : 2'd0;
        assign payloads[i*32 +: 32] = valid ? pay_raw : 32'd0;
    end
endgenerate

inc_group_pack #(.LANES(LANES)) pack (
    .clk(1'b0),
    .in_tags(tags), .in_payloads(payloads), .out_group(out_group), .out_len(out_len)
);

endmodule

`resetall
