// SPDX-License-Identifier: MIT
/*
 * inc_lane_split - front half of an engine at twice a core's width: whole
 * frames of the DATA_WIDTH input go to one of two lanes, each a FIFO of
 * input beats and a down-sizer to DATA_WIDTH/2 that feeds one 256-bit
 * engine core. The lane of every frame is queued in order (ord_*) for
 * inc_lane_merge, which puts the cores' outputs back into input order.
 *
 * A frame goes to the lane with fewer beats waiting (on a tie, the lane not
 * used last), chosen a cycle ahead (pick_reg) from the difference of the
 * FIFO counts (diff_reg, kept beside them) plus the beat taken in that
 * cycle, so no compare sits in front of the FIFOs' write enables and
 * none behind the late take. Each entry carries the cfg bits
 * present when it was taken, so a core sampling its configuration on a
 * frame's first beat sees what the engine's input saw on that beat.
 *
 * Input beats other than the last of a frame must be full (every tkeep bit
 * set), as for the cores; a last beat whose upper half holds no byte is
 * passed as one narrow beat.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Frame-granular split of a 2W stream into two W streams, in-order tag queue.
module inc_lane_split #(
    parameter DATA_WIDTH = 512,  // input width; each lane is DATA_WIDTH/2
    parameter CFG_WIDTH  = 24,   // configuration bits carried with each beat
    parameter DEPTH      = 128,  // input beats buffered per lane, power of two <= 128
    parameter ORD_DEPTH  = 64    // frames between split and merge, power of two <= 128
) (
    input  wire                      clk,
    input  wire                      rst,

    input  wire [DATA_WIDTH-1:0]     s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0]   s_axis_tkeep,
    input  wire                      s_axis_tvalid,
    output wire                      s_axis_tready,
    input  wire                      s_axis_tlast,
    input  wire [CFG_WIDTH-1:0]      cfg,

    // lane l: bits [l*W +: W] (W = DATA_WIDTH/2)
    output wire [DATA_WIDTH-1:0]     m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0]   m_axis_tkeep,
    output wire [1:0]                m_axis_tvalid,
    input  wire [1:0]                m_axis_tready,
    output wire [1:0]                m_axis_tlast,
    output wire [2*CFG_WIDTH-1:0]    m_cfg,

    // lane of each frame, in input order
    output wire                      ord_lane,
    output wire                      ord_valid,
    input  wire                      ord_ready
);

localparam HW = DATA_WIDTH / 2;       // lane width
localparam HB = HW / 8;               // lane bytes per beat
localparam EW = 2 + CFG_WIDTH + DATA_WIDTH / 8 + DATA_WIDTH;   // FIFO entry
localparam AW = $clog2(DEPTH);

initial begin
    if (DATA_WIDTH % 16 != 0) begin
        $error("inc_lane_split: DATA_WIDTH must split into two byte-wide halves");
        $finish;
    end
end

reg       in_frame_reg = 1'b0;   // inside a frame (its lane is lane_reg)
reg       lane_reg = 1'b0;
reg       last_pick_reg = 1'b1;  // lane of the previous frame
reg       pick_reg = 1'b0;       // lane of a frame starting this cycle

wire [1:0]    lf_in_ready;
wire [1:0]    lf_pop;           // a beat leaves lane l's FIFO
wire [2*AW+1:0] lf_counts;      // lane l: [l*(AW+1) +: AW+1]
wire          ord_in_ready;
// beats in lane 1's FIFO minus beats in lane 0's (two's complement)
reg  [AW+1:0] diff_reg = {(AW+2){1'b0}};

wire pick = pick_reg;
wire lane = in_frame_reg ? lane_reg : pick;

assign s_axis_tready = in_frame_reg ? lf_in_ready[lane_reg]
                                    : (lf_in_ready[pick] && ord_in_ready);
wire take  = s_axis_tvalid && s_axis_tready;
wire first = take && !in_frame_reg;

// Beats waiting per lane after this cycle's: the choice is computed for
// no beat taken and for a beat into either lane from diff_reg (d), and
// take and lane (late: they follow tready) only select it.
//   none taken:   lane 1 if d < 0, lane 0 if d > 0
//   into lane 0:  lane 1 if d <= 0, lane 0 if d >= 2, d == 1 a tie
//   into lane 1:  lane 1 if d <= -2, lane 0 if d >= 0, d == -1 a tie
wire d_neg  = diff_reg[AW+1];
wire d_zero = diff_reg == {(AW+2){1'b0}};
wire d_one  = diff_reg == {{(AW+1){1'b0}}, 1'b1};
wire d_mone = diff_reg == {(AW+2){1'b1}};
wire tie    = !(first ? pick : last_pick_reg);
wire pick_n = d_neg ? 1'b1 : d_zero ? tie : 1'b0;
wire pick_0 = d_one ? tie : (d_neg || d_zero);
wire pick_1 = d_mone ? tie : d_neg;

// diff_reg follows the FIFOs' own counts: + lane 1's push and lane 0's
// pop, - lane 0's push and lane 1's pop. The five possible next values
// are summed from the register alone; the pushes and pops (late: take
// follows tready, a pop the core's tready) only select one.
wire [1:0]    push = {take && lane, take && !lane};
// As gates (an adder operator would be folded with the select into one
// adder of a selected constant, behind the late signals).
function [AW+1:0] step;   // x + 1 (up) or x - 1, bits from lsb up
    input [AW+1:0] x;
    input          up;
    input integer  lsb;
    reg            c;     // carry (up) or borrow
    integer        j;
    begin
        step = x;
        c    = 1'b1;
        for (j = lsb; j < AW + 2; j = j + 1) begin
            step[j] = x[j] ^ c;
            c       = c & (up ? x[j] : !x[j]);
        end
    end
endfunction
wire [AW+1:0] d_m2 = step(diff_reg, 1'b0, 1), d_m1 = step(diff_reg, 1'b0, 0);
wire [AW+1:0] d_p1 = step(diff_reg, 1'b1, 0), d_p2 = step(diff_reg, 1'b1, 1);
wire [1:0]    n_up = {push[1] && lf_pop[0], push[1] ^ lf_pop[0]};   // 0..2
wire [1:0]    n_dn = {push[0] && lf_pop[1], push[0] ^ lf_pop[1]};   // 0..2
wire [AW+1:0] diff_next =
    (n_up == 2'd2 && n_dn == 2'd0) ? d_p2 :
    (n_dn == 2'd2 && n_up == 2'd0) ? d_m2 :
    (n_up > n_dn)                  ? d_p1 :
    (n_dn > n_up)                  ? d_m1 : diff_reg;

always @(posedge clk) begin
    if (take) begin
        in_frame_reg <= !s_axis_tlast;
        lane_reg     <= lane;
    end
    if (first)
        last_pick_reg <= pick;
    // next cycle's choice: the lane with fewer beats waiting, counting the
    // beat taken this cycle (without it the last beat of a frame is missed
    // and equal frames go to one lane in pairs); on a tie the other one
    // than the last frame's
    pick_reg <= !take ? pick_n : lane ? pick_1 : pick_0;
    diff_reg <= diff_next;
    if (rst) begin
        in_frame_reg  <= 1'b0;
        lane_reg      <= 1'b0;
        last_pick_reg <= 1'b1;
        pick_reg      <= 1'b0;
        diff_reg      <= {(AW+2){1'b0}};
    end
end

`ifndef SYNTHESIS
// diff_reg must track the FIFOs' counts exactly (a drift would only unbalance
// the lanes, which no output comparison sees).
wire [AW+1:0] count_diff = {1'b0, lf_counts[2*AW+1:AW+1]} - {1'b0, lf_counts[AW:0]};
always @(posedge clk) begin
    if (!rst && diff_reg != count_diff) begin
        $display("inc_lane_split: lane count difference %0d, FIFOs hold %0d",
                 diff_reg, count_diff);
        $stop;
    end
end
`else
/* verilator lint_off UNUSEDSIGNAL */
wire unused_counts = &lf_counts;
/* verilator lint_on UNUSEDSIGNAL */
`endif

inc_fifo #(.WIDTH(1), .DEPTH(ORD_DEPTH)) ord_fifo (
    .clk(clk), .rst(rst),
    .in_data(pick), .in_valid(first), .in_ready(ord_in_ready),
    .out_data(ord_lane), .out_valid(ord_valid), .out_ready(ord_ready),
    /* verilator lint_off PINCONNECTEMPTY */
    .count()
    /* verilator lint_on PINCONNECTEMPTY */
);

// Whether a beat's upper half holds no byte, found as it is pushed (the pop
// that follows it then waits on no keep decode).
wire in_hi_empty = s_axis_tkeep[DATA_WIDTH/8-1:HB] == {HB{1'b0}};

genvar l;
generate
for (l = 0; l < 2; l = l + 1) begin : g_lane
    wire [EW-1:0] head;
    wire          head_valid;
    wire          pop;
    reg           hi_reg = 1'b0;     // the upper half of the head goes next

    inc_fifo #(.WIDTH(EW), .DEPTH(DEPTH)) lf (
        .clk(clk), .rst(rst),
        .in_data({s_axis_tlast, in_hi_empty, cfg, s_axis_tkeep, s_axis_tdata}),
        .in_valid(push[l]), .in_ready(lf_in_ready[l]),
        .out_data(head), .out_valid(head_valid), .out_ready(pop),
        .count(lf_counts[l*(AW+1) +: AW+1])
    );

    wire                  h_last = head[EW-1];
    wire                  hi_empty = head[EW-2];
    wire [DATA_WIDTH/8-1:0] h_keep = head[DATA_WIDTH/8 + DATA_WIDTH - 1:DATA_WIDTH];
    // this half ends the beat (the upper one, or a last beat's only half)
    wire                  half_end = hi_reg || (h_last && hi_empty);

    assign m_axis_tdata[l*HW +: HW]  = hi_reg ? head[HW +: HW] : head[0 +: HW];
    assign m_axis_tkeep[l*HB +: HB]  = hi_reg ? h_keep[HB +: HB] : h_keep[0 +: HB];
    assign m_axis_tlast[l]           = h_last && half_end;
    assign m_axis_tvalid[l]          = head_valid;
    assign m_cfg[l*CFG_WIDTH +: CFG_WIDTH] = head[DATA_WIDTH/8 + DATA_WIDTH +: CFG_WIDTH];
    assign pop = head_valid && m_axis_tready[l] && half_end;
    assign lf_pop[l] = pop;

    always @(posedge clk) begin
        if (head_valid && m_axis_tready[l])
            hi_reg <= !half_end;
        if (rst)
            hi_reg <= 1'b0;
    end
end
endgenerate

endmodule

`resetall
