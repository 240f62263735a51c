// SPDX-License-Identifier: MIT
/*
 * inc_decompress_block - Algorithm 3 for one lane, bit-exact with
 * inc_decompress_value() in sw-model/src/codec.c:
 *
 *   tag 0  -> +0.0
 *   tag 3  -> the payload itself (raw float32)
 *   tag 1  -> k = 7:  payload[7]  = sign, payload[6:0]  = field
 *   tag 2  -> k = 15: payload[15] = sign, payload[14:0] = field
 *   field == 0 -> signed zero (sign << 31; never produced by the encoder)
 *   else with p = index of the leading one of field:
 *     sign << 31 | (127 - (k - p)) << 23 | (field without its leading one) << (23 - p)
 *
 * Two halves: the first finds p and clears the leading one (a priority
 * encode of 15 bits, then a mask), the second shifts the rest into the
 * mantissa and forms the exponent (a 16-way select per bit). PIPE = 0
 * computes both in one cycle (clk unused); PIPE = 1 registers what the
 * first half hands to the second, so value follows its inputs by a cycle.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// One lane of the decompression unit: tag + right-aligned payload -> float32.
module inc_decompress_block #(
    parameter PIPE = 0          // 1: a register between the halves (latency 1)
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire        clk,      // PIPE = 1 only
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [1:0]  tag,      // 0..3 (INC_TAG_*)
    input  wire [31:0] payload,  // right-aligned payload, bits above the tag's size ignored
    output reg  [31:0] value     // float32 bit pattern
);

// First half: the field's leading one p, and w = the payload for tags 0
// and 3, {sign, 16'd0, field without its leading one} for tags 1 and 2.
reg        sign;
reg [14:0] field;   // field, k = 7 uses bits [6:0]
reg [3:0]  p;       // leading-one index of field
reg        zero;    // field == 0
reg [31:0] w;
integer    i;

always @* begin
    if (tag == 2'd1) begin
        sign  = payload[7];
        field = {8'd0, payload[6:0]};
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
    zero = field == 15'd0;
    w    = payload;
    if (tag == 2'd1 || tag == 2'd2) begin
        w = {sign, 16'd0, field & ~(15'd1 << p)};
    end
end

// Between the halves: registered for PIPE = 1.
wire [1:0]  h_tag;
wire [3:0]  h_p;
wire        h_zero;
wire [31:0] h_w;

generate
    if (PIPE != 0) begin : g_pipe
        reg [1:0]  tag_reg = 2'd0;
        reg [3:0]  p_reg = 4'd0;
        reg        zero_reg = 1'b0;
        reg [31:0] w_reg = 32'd0;
        always @(posedge clk) begin
            tag_reg  <= tag;
            p_reg    <= p;
            zero_reg <= zero;
            w_reg    <= w;
        end
        assign {h_tag, h_p, h_zero, h_w} = {tag_reg, p_reg, zero_reg, w_reg};
    end else begin : g_comb
        assign {h_tag, h_p, h_zero, h_w} = {tag, p, zero, w};
    end
endgenerate

// Second half: mantissa = rest << (23 - p), exponent 127 - k + p.
reg [22:0] mant;
reg [7:0]  expo;

always @* begin
    mant = {h_w[14:0], 8'd0} << (4'd15 - h_p);
    expo = (h_tag == 2'd1 ? 8'd120 : 8'd112) + {4'd0, h_p};
    case (h_tag)
        2'd0: value = 32'd0;
        2'd3: value = h_w;
        default: value = h_zero ? {h_w[31], 31'd0} : {h_w[31], expo, mant};
    endcase
end

endmodule

`resetall
