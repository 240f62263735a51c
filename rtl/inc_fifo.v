// SPDX-License-Identifier: MIT
/*
 * inc_fifo - the register FIFO of both engines (first-word fall-through):
 * the head is presented from its own register, so out_data/out_valid do not
 * depend on out_ready and no RAM read sits in front of the consumer. count tells producers that prefetch (RAM readers) how much
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
    parameter DEPTH = 4    // entries, power of two, 2..128
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

`include "inc_lsum.vh"


initial begin
    if (DEPTH < 2 || DEPTH > 128 || (1 << AW) != DEPTH) begin
        $error("inc_fifo: DEPTH must be a power of two, 2..128");
        $finish;
    end
end

// The head sits in its own register (a FIFO read from LUT RAM would put
// the RAM's read time in front of every consumer); mem holds the entries
// behind it, at most DEPTH - 1. A push into an empty FIFO goes straight to
// the head, so an entry is at the output the cycle after its push, as with
// a plain fall-through FIFO.
reg [WIDTH-1:0] mem [0:DEPTH-1];
reg [WIDTH-1:0] head_reg = {WIDTH{1'b0}};
reg             head_valid_reg = 1'b0;
reg [AW:0]      wr_ptr_reg = {(AW+1){1'b0}}, rd_ptr_reg = {(AW+1){1'b0}};
reg [AW:0]      count_reg = {(AW+1){1'b0}};

reg  full_reg  = 1'b0;           // count_reg == DEPTH, kept as a flip-flop
wire full      = full_reg;
// count +- 1 as gates (inc_lsum.vh): an adder here would be merged with the
// push/pop select into one carry chain behind the consumer's pop
/* verilator lint_off UNUSEDSIGNAL */
wire [7:0]  count_plus8  = inc_lsum({{(7-AW){1'b0}}, count_reg}, 8'd1);
wire [7:0]  count_minus8 = inc_lsub({{(7-AW){1'b0}}, count_reg}, 8'd1);
/* verilator lint_on UNUSEDSIGNAL */
wire [AW:0] count_plus  = count_plus8[AW:0];
wire [AW:0] count_minus = count_minus8[AW:0];
wire mem_empty = wr_ptr_reg == rd_ptr_reg;
wire push      = in_valid && !full;
wire pop       = out_ready && head_valid_reg;
// the push goes to the head when the head is free (or leaves this cycle)
// and nothing waits in mem
wire to_head   = push && mem_empty && (!head_valid_reg || pop);

assign in_ready  = !full;
assign out_valid = head_valid_reg;
assign out_data  = head_reg;
assign count     = count_reg;

// Every push writes mem at wr_ptr, also one that goes to the head: that
// slot is free (mem holds at most DEPTH - 1 entries when a push is taken),
// and the write enable then does not wait for the consumer's pop.
always @(posedge clk) begin
    if (push) begin
        mem[wr_ptr_reg[AW-1:0]] <= in_data;
    end
    if (push && !to_head) begin
        wr_ptr_reg <= wr_ptr_reg + 1'b1;
    end
    if (to_head) begin
        head_reg       <= in_data;
        head_valid_reg <= 1'b1;
    end else if (pop) begin
        if (!mem_empty) begin
            head_reg   <= mem[rd_ptr_reg[AW-1:0]];
            rd_ptr_reg <= rd_ptr_reg + 1'b1;
        end else begin
            head_valid_reg <= 1'b0;
        end
    end
    // both neighbours ready, pop (the consumer's late signal) only selects
    if (push && !pop) begin
        count_reg <= count_plus;
        full_reg  <= count_reg == DEPTH[AW:0] - 1'b1;
    end else if (pop && !push) begin
        count_reg <= count_minus;
        full_reg  <= 1'b0;
    end
    if (rst) begin
        wr_ptr_reg     <= {(AW+1){1'b0}};
        rd_ptr_reg     <= {(AW+1){1'b0}};
        count_reg      <= {(AW+1){1'b0}};
        full_reg       <= 1'b0;
        head_valid_reg <= 1'b0;
    end
end

`ifdef FORMAL
// Formal (formal/README.md): the occupancy invariants that make the
// k-induction close, and a chosen-entry scoreboard: one entry, picked by a
// free input at its push, must reach the head after exactly the entries
// that were ahead of it, unchanged.
reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @* begin
    if (!f_past_valid) assume(rst);
end
wire [AW:0] f_mem_count = wr_ptr_reg - rd_ptr_reg;
always @* begin
    if (f_past_valid && !rst) begin
        assert(count_reg <= DEPTH);
        assert(full_reg == (count_reg == DEPTH));
        assert(count_reg == f_mem_count + head_valid_reg);
        assert(head_valid_reg || f_mem_count == 0);
        assert(head_valid_reg == (count_reg != 0));
    end
end
`ifndef F_NO_FIFO_SCOREBOARD
// (left out of the engine harnesses, formal/run.sh's engine netlists: it
// holds for every input sequence and is proven here alone, fifo_prove)
(* anyseq *) reg f_pick;
reg             f_armed = 1'b0;
reg [AW:0]      f_pos = {(AW+1){1'b0}};   // entries ahead of the chosen one
reg [WIDTH-1:0] f_data;
always @(posedge clk) begin
    if (f_armed && pop) begin
        if (f_pos == 0)
            f_armed <= 1'b0;
        else
            f_pos <= f_pos - 1'b1;
    end
    if (!f_armed && push && f_pick) begin
        f_armed <= 1'b1;
        f_data  <= in_data;
        f_pos   <= count_reg - pop;
    end
    if (rst)
        f_armed <= 1'b0;
end
always @* begin
    if (f_past_valid && !rst && f_armed) begin
        assert(f_pos < count_reg);
        if (f_pos == 0)
            assert(out_valid && out_data == f_data);
        else
            assert(mem[rd_ptr_reg[AW-1:0] + f_pos[AW-1:0] - 1'b1] == f_data);
    end
end
always @(posedge clk) begin
    if (f_past_valid && !rst)
        cover(f_armed && pop && f_pos == 0 && count_reg == DEPTH);
end
`endif
`endif

endmodule

`resetall
