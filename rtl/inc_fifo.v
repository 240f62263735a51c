// SPDX-License-Identifier: MIT
/*
 * inc_fifo - the register FIFO of both engines (first-word fall-through):
 * the head is presented from registers, so out_data/out_valid do not depend
 * on out_ready. count tells producers that prefetch (RAM readers) how much
 * room is left. The decompress engine's metadata, prefetch and output
 * queues and the compress engine's metadata queue and output FIFO are
 * instances of it; a wider datapath is a WIDTH parameter.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Register FIFO, DEPTH entries of WIDTH bits, fall-through head.
module inc_fifo #(
    parameter WIDTH = 32,  // entry width in bits
    parameter DEPTH = 4    // entries, power of two, >= 2
) (
    input  wire             clk,
    input  wire             rst,      // empties the FIFO
    input  wire [WIDTH-1:0] in_data,
    input  wire             in_valid, // push (ignored when full)
    output wire             in_ready, // not full
    output wire [WIDTH-1:0] out_data,
    output wire             out_valid,
    input  wire             out_ready,
    output wire [AW:0]      count     // entries held
);

localparam AW = $clog2(DEPTH);

initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) begin
        $error("inc_fifo: DEPTH must be a power of two >= 2");
        $finish;
    end
end

reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [AW:0]      wr_ptr_reg = {(AW+1){1'b0}}, rd_ptr_reg = {(AW+1){1'b0}};

wire full  = (wr_ptr_reg ^ rd_ptr_reg) == {1'b1, {AW{1'b0}}};
wire empty = wr_ptr_reg == rd_ptr_reg;

assign in_ready  = !full;
assign out_valid = !empty;
assign out_data  = mem[rd_ptr_reg[AW-1:0]];
assign count     = wr_ptr_reg - rd_ptr_reg;

always @(posedge clk) begin
    if (in_valid && !full) begin
        mem[wr_ptr_reg[AW-1:0]] <= in_data;
        wr_ptr_reg <= wr_ptr_reg + 1'b1;
    end
    if (out_ready && !empty) begin
        rd_ptr_reg <= rd_ptr_reg + 1'b1;
    end
    if (rst) begin
        wr_ptr_reg <= {(AW+1){1'b0}};
        rd_ptr_reg <= {(AW+1){1'b0}};
    end
end

endmodule

`resetall
