// SPDX-License-Identifier: MIT
/*
 * inc_compress_block.v - Algorithm 2 for one float32 lane, bit-exact with
 * inc_compress_value() in sw-model/src/codec.c (see docs/codec.md).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * Purely combinational. With e = the biased exponent, s = the sign and
 * ebase = 127 - eb:
 *   e >= 127 (|f| >= 1, Inf, NaN)      tag 3, payload = f
 *   e <  ebase (below the bound)       tag 0
 *   otherwise n = 127 - e, x = (1.mantissa, 24 bits) >> n (0 when n >= 24):
 *     e >= ebase + ceil(eb/2)          tag 2, field = x[22:8]  (15 bits)
 *     else                             tag 1, field = x[22:16] (7 bits)
 *     field == 0                       tag 0
 *     payload = s << k | field, k = 15 or 7
 */
module inc_compress_block #(
    // 1: in_eb is already clamped (1..126, inc_eb_clamp): the clamp is left
    // out of the compares' path
    parameter EB_CLAMPED = 0
) (
    input  wire [31:0] in_value,     // float32 bit pattern
    input  wire [6:0]  in_eb,        // error-bound exponent; 0 and 127 clamp to 1 and 126
    output reg  [1:0]  out_tag,      // 0 zero, 1 8-bit, 2 16-bit, 3 raw
    output reg  [31:0] out_payload   // right-aligned payload, 0/8/16/32 bits
);

localparam [1:0] TAG_ZERO = 2'd0, TAG_8 = 2'd1, TAG_16 = 2'd2, TAG_RAW = 2'd3;

`include "inc_lsum.vh"


wire [6:0]  eb    = EB_CLAMPED != 0 ? in_eb : inc_eb_clamp(in_eb);
wire [7:0]  e     = in_value[30:23];
wire        s     = in_value[31];
// ebase = 127 - eb and the first 16-bit exponent ebase + ceil(eb/2) =
// 127 - floor(eb/2) are complements: no adders between eb and the compares
wire [7:0]  ebase = {1'b0, ~eb};                          // 1..126
wire [7:0]  e16   = {1'b0, ~{1'b0, eb[6:1]}};             // 64..127
wire [6:0]  n     = ~e[6:0];                              // 127 - e when e < 127
wire [23:0] sig   = {1'b1, in_value[22:0]};
wire [23:0] x     = n >= 7'd24 ? 24'd0 : sig >> n[4:0];
wire [14:0] f16   = x[22:8];
wire [6:0]  f8    = x[22:16];
/* verilator lint_off UNUSEDSIGNAL */
wire [8:0]  x_low = {x[23], x[7:0]};                       // not part of any field
/* verilator lint_on UNUSEDSIGNAL */

// The fields are non-zero exactly when the implicit leading one lands in
// them: x[22:8] != 0 iff n <= 15 (e >= 112), x[22:16] != 0 iff n <= 7
// (e >= 120). So the tag needs only compares of e, written as gates
// (inc_lsum.vh), not the shifter.
wire raw   = e[7] || e[6:0] == 7'h7f;                  // e >= 127
wire ge_lo = inc_lge(e, ebase);
wire ge_16 = inc_lge(e, e16);
wire nz16  = e >= 8'd112;
wire nz8   = e >= 8'd120;
always @* begin
    out_tag     = TAG_ZERO;
    out_payload = 32'd0;
    if (raw) begin
        out_tag     = TAG_RAW;
        out_payload = in_value;
    end else if (!ge_lo) begin
        out_tag = TAG_ZERO;
    end else if (ge_16) begin
        if (nz16) begin
            out_tag     = TAG_16;
            out_payload = {16'd0, s, f16};
        end
    end else begin
        if (nz8) begin
            out_tag     = TAG_8;
            out_payload = {24'd0, s, f8};
        end
    end
end

endmodule

`resetall
