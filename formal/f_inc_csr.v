// SPDX-License-Identifier: MIT
// formal/f_inc_csr.v - harness of inc_csr: the AXI4-Lite slave rules
// (f_axil_master.vh), a write then a read of SCRATCH returns the value
// (F_SCRATCH), and reads leave the counters alone (F_CNT_READ).
`default_nettype none
module f_inc_csr #(
    parameter CNT_LO_BITS = 17
) (
    input wire clk,
    input wire rst,
    input wire [9:0] s_axil_awaddr, input wire s_axil_awvalid,
    input wire [31:0] s_axil_wdata, input wire [3:0] s_axil_wstrb, input wire s_axil_wvalid,
    input wire s_axil_bready,
    input wire [9:0] s_axil_araddr, input wire s_axil_arvalid, input wire s_axil_rready,
    input wire tx_stat_valid, input wire [2:0] tx_stat_outcome, input wire [4:0] tx_stat_reason,
    input wire [15:0] tx_stat_bytes_in, input wire [15:0] tx_stat_bytes_out,
    input wire rx_stat_valid, input wire [2:0] rx_stat_outcome, input wire [4:0] rx_stat_reason,
    input wire [15:0] rx_stat_bytes_in, input wire [15:0] rx_stat_bytes_out
);
localparam AXIL_AW = 10;
wire s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_arready, s_axil_rvalid;
wire [1:0] s_axil_bresp, s_axil_rresp;
wire [31:0] s_axil_rdata;
wire cfg_tx_enable, cfg_rx_enable;
wire [7:0] cfg_tos_value, cfg_tos_mask;
wire [6:0] cfg_eb;

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @* if (!f_past_valid) assume(rst);

inc_csr #(.DATA_WIDTH(256), .MAX_FRAME(9018), .ADDR_WIDTH(10), .CNT_LO_BITS(CNT_LO_BITS)) dut (
    .clk(clk), .rst(rst),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(3'd0), .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr), .s_axil_arprot(3'd0), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
    .cfg_tx_enable(cfg_tx_enable), .cfg_rx_enable(cfg_rx_enable), .cfg_tos_value(cfg_tos_value),
    .cfg_tos_mask(cfg_tos_mask), .cfg_eb(cfg_eb),
    .tx_stat_valid(tx_stat_valid), .tx_stat_outcome(tx_stat_outcome), .tx_stat_reason(tx_stat_reason),
    .tx_stat_bytes_in(tx_stat_bytes_in), .tx_stat_bytes_out(tx_stat_bytes_out),
    .rx_stat_valid(rx_stat_valid), .rx_stat_outcome(rx_stat_outcome), .rx_stat_reason(rx_stat_reason),
    .rx_stat_bytes_in(rx_stat_bytes_in), .rx_stat_bytes_out(rx_stat_bytes_out)
);

`include "f_axil_master.vh"

// scratch_rw: a read of SCRATCH returns the last value written (0 after
// reset); a write whose handshake is in the cycle of the read's may or may
// not be seen (AXI4-Lite orders neither channel against the other).
reg [31:0] f_scratch = 32'd0, f_exp = 32'd0, f_exp_new = 32'd0;
reg        f_rd_scratch = 1'b0, f_race = 1'b0;
wire       f_wr_hs = s_axil_awvalid && s_axil_awready && s_axil_awaddr[9:2] == 8'h03;
always @(posedge clk) begin
    if (f_wr_hs)
        f_scratch <= s_axil_wdata;
    if (s_axil_arvalid && s_axil_arready) begin
        f_rd_scratch <= s_axil_araddr[9:2] == 8'h03;
        f_exp        <= f_scratch;
        f_exp_new    <= f_wr_hs ? s_axil_wdata : f_scratch;
    end
    if (rst) begin
        f_scratch <= 32'd0;
        f_rd_scratch <= 1'b0;
    end
end
`ifdef F_SCRATCH
always @* begin
    if (f_past_valid && !rst && s_axil_rvalid && f_rd_scratch)
        assert(s_axil_rdata == f_exp || s_axil_rdata == f_exp_new);
end
`else
// the handshake counters against the slave's state (makes induction close)
always @* begin
    if (f_past_valid && !rst && !f_past_rst) begin
        assert(f_wr_out == {1'b0, s_axil_bvalid});
        assert(f_rd_out == {1'b0, s_axil_rvalid});
        if (s_axil_awready) assert(!s_axil_bvalid && s_axil_wready);
        if (s_axil_arready) assert(!s_axil_rvalid);
    end
end
`endif

// cnt_read_stable: reads do not change the counters. A chosen counter word
// (any LO or HI word of the TX or RX block, symbolic) read twice, with
// neither a statistics pulse nor a register write since 3 cycles before
// the first read's address handshake (a pulse lands in its counter two
// edges later) up to the second one's: both reads return the same value,
// whatever other registers and counters are read in between.
(* anyconst *) reg [9:0] f_caddr;
reg [1:0]  f_calm = 2'd0;      // cycles without a pulse or a write, up to 3
reg        f_armed = 1'b0;     // a read of the chosen word answered in calm
reg        f_rd_chosen = 1'b0, f_rd_calm = 1'b0;
reg [31:0] f_cval = 32'd0;
wire f_noise = tx_stat_valid || rx_stat_valid || (s_axil_awvalid && s_axil_awready) ||
               (s_axil_wvalid && s_axil_wready);
always @(posedge clk) begin
    f_calm <= f_noise ? 2'd0 : (f_calm == 2'd3 ? 2'd3 : f_calm + 1'b1);
    if (s_axil_arvalid && s_axil_arready) begin
        f_rd_chosen <= s_axil_araddr == f_caddr;
        f_rd_calm   <= f_calm == 2'd3 && !f_noise;
    end
    if (f_noise) begin          // also between a read's address and its answer
        f_armed   <= 1'b0;
        f_rd_calm <= 1'b0;
    end
    if (s_axil_rvalid && s_axil_rready && f_rd_chosen && f_rd_calm && !f_noise && !f_armed) begin
        f_armed <= 1'b1;
        f_cval  <= s_axil_rdata;
    end
    if (rst) begin
        f_calm <= 2'd0;
        f_armed <= 1'b0;
        f_rd_chosen <= 1'b0;
    end
end
`ifdef F_CNT_READ
always @* begin
    assume(f_caddr[9:8] == 2'b01 || f_caddr[9:8] == 2'b10);
    assume(f_caddr[1:0] == 2'b00);
    if (f_past_valid && !rst && s_axil_rvalid && f_rd_chosen && f_armed)
        assert(s_axil_rdata == f_cval);
end
// not vacuous: a counter that moved, read twice in calm (with F_COVERS,
// formal/run.sh's acover mode: an assertion of the negation, which fails)
wire f_reread = f_past_valid && !rst && s_axil_rvalid && f_rd_chosen && f_armed && f_cval != 32'd0;
`ifdef F_COVERS
always @* f_cover_reread: assert(!f_reread);
`else
always @(posedge clk) cover(f_reread);
`endif
`endif
always @(posedge clk) begin
    if (f_past_valid && !rst) begin
        cover(s_axil_rvalid && s_axil_rready && f_rd_scratch && s_axil_rdata == 32'h5a5a_0001);
        cover(s_axil_bvalid && s_axil_bready && s_axil_rvalid && s_axil_rready);
    end
end
endmodule
