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
 * group of a stream). The payloads are packed by a log2(LANES)-level tree:
 * at each level a node appends its right child's bytes to its left child's
 * at the left child's length, so a node of level L is 4 << L bytes wide.
 * Purely combinational.
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
localparam LEVELS      = $clog2(LANES);
localparam [7:0] TAG_N  = TAG_BYTES[7:0];

initial begin
    if (LANES < 4 || (1 << LEVELS) != LANES) begin
        $display("inc_compress_unit: LANES must be a power of two >= 4");
        $finish;
    end
end

wire [2*LANES-1:0] tags;
wire [LANES*32-1:0] lane_data;   // lane payloads, 4 bytes each, zero-extended
wire [LANES*8-1:0]  lane_len;    // lane payload sizes in bytes

genvar i, l;
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

        assign tags[2*i +: 2]         = valid ? tag_raw : 2'd0;
        assign lane_data[i*32 +: 32] = valid ? pay_raw : 32'd0;
        assign lane_len[i*8 +: 8] =
            !valid          ? 8'd0 :
            tag_raw == 2'd3 ? 8'd4 :
            tag_raw == 2'd2 ? 8'd2 :
            tag_raw == 2'd1 ? 8'd1 : 8'd0;
    end

    // level[L].data: node i occupies bytes [i*(4<<L), (i+1)*(4<<L));
    // level[L].len[i*8 +: 8] is its length in bytes
    for (l = 0; l <= LEVELS; l = l + 1) begin : level
        wire [LANES*32-1:0]      data;
        wire [(LANES>>l)*8-1:0]  len;
        if (l == 0) begin : leaf
            assign data = lane_data;
            assign len  = lane_len;
        end else begin : inner
            localparam CW = 4 << (l - 1);      // child width in bytes
            for (i = 0; i < (LANES >> l); i = i + 1) begin : node
                wire [CW*8-1:0]   left    = level[l-1].data[(2*i)*CW*8 +: CW*8];
                wire [CW*8-1:0]   right   = level[l-1].data[(2*i+1)*CW*8 +: CW*8];
                wire [7:0]        left_n  = level[l-1].len[(2*i)*8 +: 8];
                wire [7:0]        right_n = level[l-1].len[(2*i+1)*8 +: 8];
                wire [2*CW*8-1:0] shifted = {{(CW*8){1'b0}}, right} << {left_n, 3'b000};

                assign data[i*2*CW*8 +: 2*CW*8] = {{(CW*8){1'b0}}, left} | shifted;
                assign len[i*8 +: 8] = left_n + right_n;
            end
        end
    end
endgenerate

assign out_group = {level[LEVELS].data, tags};
assign out_len   = level[LEVELS].len + TAG_N;


endmodule

`resetall
