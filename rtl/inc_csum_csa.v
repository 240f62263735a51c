// SPDX-License-Identifier: MIT
/*
 * inc_csum_csa.v - one's-complement carry-save reduction of 16-bit words
 * (combinational), for Internet checksums summed in a pipeline.
 *
 * Each level takes the words three at a time and replaces x, y, z by
 *   s = x ^ y ^ z    and    c = rotl(maj(x, y, z), 1)
 * (a full adder per bit whose carry out of bit 15 wraps to bit 0), which
 * keeps the sum modulo 2^16 - 1: one LUT level per level, no carry chain.
 * Words left over when N is not a multiple of three pass to the next level.
 * N words become 2*floor(N/3) + N mod 3 per level; after LEVELS levels (or
 * as soon as two words are left) the module gives NOUT words, the rest of
 * out_words zero.
 *
 * Properties the users rely on (docs/rtl.md, "ToS matcher"):
 *  - the outputs sum to the inputs modulo 0xffff;
 *  - the outputs are all zero if and only if the inputs are all zero (a
 *    full adder's s and c are both 0 only when its three inputs are 0).
 * So for two final words a, b: fold(sum) == 0xffff iff a == ~b or
 * a == b == 0xffff, and a + b with the end-around carry equals the folded
 * sum of the inputs exactly (0 only for all-zero inputs).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module inc_csum_csa #(
    parameter N      = 30,   // input words, 2..64
    parameter LEVELS = 8     // at most this many carry-save levels
) (
    input  wire [16*N-1:0] in_words,    // word i at [16*i +: 16]
    output wire [16*N-1:0] out_words    // words 0..NOUT-1, the rest zero
);

// words after l levels (stops at 2)
function integer count_after;
    input integer n;
    input integer l;
    integer k, m;
    begin
        m = n;
        for (k = 0; k < l; k = k + 1)
            if (m > 2)
                m = 2 * (m / 3) + m % 3;
        count_after = m;
    end
endfunction

initial begin
    if (N < 2 || N > 64) begin
        $error("inc_csum_csa: N must be 2..64");
        $finish;
    end
end

genvar l, j;
generate
    for (l = 0; l <= LEVELS; l = l + 1) begin : lvl
        localparam integer NI = count_after(N, l);
        wire [16*N-1:0] w;
        if (l == 0) begin : first
            assign w = in_words;
        end else begin : reduce
            localparam integer NP = count_after(N, l - 1);   // words entering
            localparam integer T  = NP / 3;                   // full adders
            wire [16*N-1:0] p = lvl[l-1].w;
            for (j = 0; j < N; j = j + 1) begin : o
                if (j < T) begin : sum
                    wire [15:0] x = p[16*(3*j) +: 16];
                    wire [15:0] y = p[16*(3*j+1) +: 16];
                    wire [15:0] z = p[16*(3*j+2) +: 16];
                    assign w[16*j +: 16] = x ^ y ^ z;
                end else if (j < 2 * T) begin : carry
                    wire [15:0] x = p[16*(3*(j-T)) +: 16];
                    wire [15:0] y = p[16*(3*(j-T)+1) +: 16];
                    wire [15:0] z = p[16*(3*(j-T)+2) +: 16];
                    wire [15:0] mj = (x & y) | (x & z) | (y & z);
                    assign w[16*j +: 16] = {mj[14:0], mj[15]};
                end else if (j < NI && NP > 2) begin : pass
                    assign w[16*j +: 16] = p[16*(3*T + j - 2*T) +: 16];
                end else if (j < NI) begin : keep
                    assign w[16*j +: 16] = p[16*j +: 16];
                end else begin : zero
                    assign w[16*j +: 16] = 16'd0;
                end
            end
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_hi = &{1'b0, p};   // words beyond NP are zero
            /* verilator lint_on UNUSEDSIGNAL */
        end
    end
endgenerate

assign out_words = lvl[LEVELS].w;

endmodule

`resetall
