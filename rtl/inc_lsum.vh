// SPDX-License-Identifier: MIT
// inc_lsum.vh - included inside a module body: a + b, a - b and a >= b (8 bits)
// written as gates. Small sums whose operands come from a few bits (group
// and lane lengths from tag words) then become a few LUT levels after
// synthesis instead of a chain of carry chains; an adder operator would be
// mapped to CARRY4 cells before logic optimisation could collapse it.
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
