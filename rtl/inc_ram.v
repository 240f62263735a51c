// SPDX-License-Identifier: MIT
/*
 * inc_ram - the block RAM of both engines: one write port, one read port
 * whose output is registered and updated only when rd_en is high (the
 * pattern synthesis maps to a simple dual-port block RAM). No reset: the
 * contents are data, the engines' pointers say what is valid. A RAM read at
 * two addresses in one cycle is two instances written alike.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Simple dual-port RAM, DEPTH words of WIDTH bits, registered read.
module inc_ram #(
    parameter WIDTH = 256,  // word width in bits
    parameter DEPTH = 512   // words, >= 2
) (
    input  wire             clk,
    input  wire             wr_en,
    input  wire [AW-1:0]    wr_addr,
    input  wire [WIDTH-1:0] wr_data,
    input  wire             rd_en,
    input  wire [AW-1:0]    rd_addr,
    output reg  [WIDTH-1:0] rd_data   // mem[rd_addr] one cycle after rd_en
);

localparam AW = $clog2(DEPTH);

initial begin
    if (DEPTH < 2) begin
        $error("inc_ram: DEPTH must be >= 2");
        $finish;
    end
end

reg [WIDTH-1:0] mem [0:DEPTH-1];

always @(posedge clk) begin
    if (wr_en)
        mem[wr_addr] <= wr_data;
end

always @(posedge clk) begin
    if (rd_en)
        rd_data <= mem[rd_addr];
end

endmodule

`resetall
