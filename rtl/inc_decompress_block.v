// SPDX-License-Identifier: MIT
/*
 * inc_decompress_block - Algorithm 3 for one lane (combinational), bit-exact
 * with inc_decompress_value() in sw-model/src/codec.c:
 *
 *   tag 0  -> +0.0
 *   tag 3  -> the payload itself (raw float32)
 *   tag 1  -> k = 7:  payload[7]  = sign, payload[6:0]  = field
 *   tag 2  -> k = 15: payload[15] = sign, payload[14:0] = field
 *   field == 0 -> signed zero (sign << 31; never produced by the encoder)
 *   else with p = index of the leading one of field:
 *     sign << 31 | (127 - (k - p)) << 23 | (field without its leading one) << (23 - p)
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One lane of the decompression unit: tag + right-aligned payload -> float32.
module inc_decompress_block (
    input  wire [1:0]  tag,      // 0..3 (INC_TAG_*)
    input  wire [31:0] payload,  // right-aligned payload, bits above the tag's size ignored
    output reg  [31:0] value     // float32 bit pattern
);

reg        sign;
reg [14:0] field;   // field, k = 7 uses bits [6:0]
reg [3:0]  p;       // leading-one index of field
reg [3:0]  k;
reg [14:0] rest;    // field without its leading one
reg [22:0] mant;
integer    i;

always @* begin
    sign  = 1'b0;
    field = 15'd0;
    k     = 4'd15;
    if (tag == 2'd1) begin
        sign  = payload[7];
        field = {8'd0, payload[6:0]};
        k     = 4'd7;
    end else begin
        sign  = payload[15];
        field = payload[14:0];
    end
    p = 4'd0;
    for (i = 0; i < 15; i = i + 1) begin
        if (field[i]) begin
            p = i[3:0];
        end
    end
    rest = field & ~(15'd1 << p);
    mant = {rest, 8'd0} << (4'd15 - p);   // rest << (23 - p)
    case (tag)
        2'd0: value = 32'd0;
        2'd3: value = payload;
        default: begin
            if (field == 15'd0) begin
                value = {sign, 31'd0};
            end else begin
                value = {sign, 8'd127 - {4'd0, k} + {4'd0, p}, mant};
            end
        end
    endcase
end

endmodule

`resetall
