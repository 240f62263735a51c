// SPDX-License-Identifier: MIT
// inc_lsum.vh - included inside a module body: a + b, a - b and a >= b (8
// bits; a >= b also at 16) written as gates, and ones_add, the one's-complement sum of two
// words. Small sums whose operands come from a few bits (group and lane
// lengths from tag words) then become a few LUT levels after synthesis
// instead of a chain of carry chains; an adder operator would be mapped to
// CARRY4 cells before logic optimisation could collapse it.
// (Verilator 5.006 reports the argument names as hiding the module's own
// when a module including this file is instantiated twice: VARHIDDEN off.)
/* verilator lint_off VARHIDDEN */
function [7:0] inc_lsum;
    input [7:0] a, b;
    reg         c;
    integer     j;
    begin
        c = 1'b0;
        for (j = 0; j < 8; j = j + 1) begin
            inc_lsum[j] = a[j] ^ b[j] ^ c;
            c           = (a[j] & b[j]) | (c & (a[j] ^ b[j]));
        end
    end
endfunction

// a >= b (8 bits) as gates: the borrow of a - b rippled through the bits
function inc_lge;
    input [7:0] a, b;
    reg         br;
    integer     j;
    begin
        br = 1'b0;
        for (j = 0; j < 8; j = j + 1)
            br = (~a[j] & b[j]) | (~(a[j] ^ b[j]) & br);
        inc_lge = ~br;
    end
endfunction

// a >= b (16 bits) as gates, for beat indices and counts: greater and
// equal per 2-bit digit (a function of four bits each), then the digits
// combined (three LUT levels in all rather than a ripple of 16 borrows)
function inc_lge16;
    input [15:0] a, b;
    reg   [7:0]  gt, eq;
    reg          ge;
    integer      j;
    begin
        for (j = 0; j < 8; j = j + 1) begin
            gt[j] = (a[2*j+1] & ~b[2*j+1]) | (~(a[2*j+1] ^ b[2*j+1]) & a[2*j] & ~b[2*j]);
            eq[j] = a[2*j+1 -: 2] == b[2*j+1 -: 2];
        end
        ge = 1'b1;
        for (j = 0; j < 8; j = j + 1)
            ge = gt[j] | (eq[j] & ge);
        inc_lge16 = ge;
    end
endfunction

// The error-bound exponent as the codec uses it: 0 and 127 clamp to 1 and
// 126 (inc_compress_block; the compress core clamps once per frame)
function [6:0] inc_eb_clamp;
    input [6:0] eb;
    inc_eb_clamp = eb == 7'd0 ? 7'd1 : (eb == 7'd127 ? 7'd126 : eb);
endfunction

// a - b (8 bits, modulo 256) as gates
function [7:0] inc_lsub;
    input [7:0] a, b;
    reg         br;
    integer     j;
    begin
        br = 1'b0;
        for (j = 0; j < 8; j = j + 1) begin
            inc_lsub[j] = a[j] ^ b[j] ^ br;
            br          = (~a[j] & b[j]) | (~(a[j] ^ b[j]) & br);
        end
    end
endfunction

// One's-complement sum of two 16-bit words, the end-around carry in the
// same adder: 0 only when both are 0, so it equals the model's fold of
// their sum for the checksums of sw-model/src/frame.c (one carry chain, not
// the two of a fold after an add).
function [15:0] ones_add;
    input [15:0] a, b;
    reg   [16:0] t;
    begin
        t = {1'b0, a} + {1'b0, b};
        ones_add = t[16] ? a + b + 16'd1 : t[15:0];
    end
endfunction
// Bytes of the stream group whose tag word is t (docs/codec.md): 2 + the
// eight lanes' payload sizes (tag 0/1/2/3 -> 0/1/2/4 bytes), 2..34, summed
// as gates in a balanced tree (a function of the 16 tag bits).
function [5:0] inc_group_bytes;
    input [15:0] t;
    reg   [7:0]  sz [0:7];
    reg   [7:0]  a, b, c, d;
    integer      j;
    begin
        for (j = 0; j < 8; j = j + 1)
            sz[j] = (t[2*j +: 2] == 2'd3) ? 8'd4 : {6'd0, t[2*j +: 2]};
        a = inc_lsum(sz[0], sz[1]);
        b = inc_lsum(sz[2], sz[3]);
        c = inc_lsum(sz[4], sz[5]);
        d = inc_lsum(sz[6], sz[7]);
        a = inc_lsum(inc_lsum(a, b), inc_lsum(inc_lsum(c, d), 8'd2));
        inc_group_bytes = a[5:0];
    end
endfunction
// Bytes of a beat whose tkeep (up to 64 lanes, zero above the beat) is
// contiguous from lane 0, a thermometer code: bit b of the count is set
// when the code ends inside an odd block of 2^b lanes. Two LUT levels for
// 32 lanes, where a priority encoder maps to a chain of wide muxes.
function [6:0] inc_keep_count;
    input [63:0] k;
    integer      b, j, hi;
    begin
        inc_keep_count = 7'd0;
        for (b = 0; b < 7; b = b + 1)
            for (j = 1; j * (1 << b) <= 64; j = j + 2) begin
                hi = (j + 1) * (1 << b) - 1;
                inc_keep_count[b] = inc_keep_count[b] |
                    (k[j * (1 << b) - 1] & (hi >= 64 || !k[hi % 64]));
            end
    end
endfunction
/* verilator lint_on VARHIDDEN */
