// SPDX-License-Identifier: MIT
// inc_lsum.vh - included inside a module body: a + b (8 bits, modulo 256)
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
