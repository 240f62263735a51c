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

`ifdef FORMAL
`ifndef F_NO_RAM_SCOREBOARD
// Formal (formal/README.md, ram_prove; left out of the engine netlists,
// which read their RAMs through the engines' own properties): a chosen
// address, a free constant. Once written it holds the last value written
// there (the invariant that makes the induction close); a read of it
// returns, one cycle later, the value held before that cycle's write (read
// before write); rd_data changes only after a read.
(* anyconst *) reg [AW-1:0] f_addr;
reg             f_past_valid = 1'b0;
reg             f_written = 1'b0;       // f_addr has been written
reg [WIDTH-1:0] f_val;                  // the last value written there
reg             f_rd = 1'b0;            // read of f_addr last cycle, after a write
reg [WIDTH-1:0] f_rd_exp;
reg             f_rd_en = 1'b0;         // rd_en last cycle
reg [WIDTH-1:0] f_rd_data;              // rd_data last cycle
always @(posedge clk) begin
    f_past_valid <= 1'b1;
    if (wr_en && wr_addr == f_addr) begin
        f_written <= 1'b1;
        f_val     <= wr_data;
    end
    f_rd      <= rd_en && rd_addr == f_addr && f_written;
    f_rd_exp  <= f_val;
    f_rd_en   <= rd_en;
    f_rd_data <= rd_data;
end
always @* begin
    if (f_written) assert(mem[f_addr] == f_val);
    if (f_rd) assert(rd_data == f_rd_exp);
    if (f_past_valid && !f_rd_en) assert(rd_data == f_rd_data);
end
always @(posedge clk) begin
    // a value written, then read back in place of an older one
    cover(f_rd && f_past_valid && rd_data != f_rd_data);
end
`endif
`endif

endmodule

`resetall
