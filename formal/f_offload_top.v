// SPDX-License-Identifier: MIT
// formal/f_offload_top.v - harness of inc_offload_top (DATA_WIDTH 256 or
// 512, MAX_FRAME 96, CNT_LO_BITS 17): both engines and the CSR block as
// the NIC sees them.
// Inputs: reset in the first cycle only; the AXI4-Stream master rules on
// s_axis_tx and s_axis_rx (tvalid low during reset; a beat offered stays,
// unchanged, until taken; tkeep all ones on a non-last beat, contiguous
// from lane 0 and not empty on a last beat); the AXI4-Lite master rules on s_axil
// (f_axil_master.vh). Nothing else: any frames, any register writes at any
// time (enables, ToS, eb change under traffic), any ready pattern.
// Properties:
//   AXI4-Stream source rules on m_axis_tx and m_axis_rx: an offered beat
//   stays, unchanged, until taken (tx_hold, rx_hold); tkeep well formed
//   (tx_keep_*, rx_keep_*); nothing valid in the cycle after reset
//   (tx_reset, rx_reset)
//   AXI4-Lite slave rules on s_axil (f_axil_master.vh)
//   and the engines' and FIFOs' internal assertions (their FORMAL blocks)
`default_nettype none
module f_offload_top #(
    parameter DATA_WIDTH = 256  // 256 or 512
) (
    input wire clk,
    input wire rst,
    input wire [DATA_WIDTH-1:0]   s_axis_tx_tdata,
    input wire [DATA_WIDTH/8-1:0] s_axis_tx_tkeep,
    input wire                    s_axis_tx_tvalid,
    input wire                    s_axis_tx_tlast,
    input wire                    m_axis_tx_tready,
    input wire [DATA_WIDTH-1:0]   s_axis_rx_tdata,
    input wire [DATA_WIDTH/8-1:0] s_axis_rx_tkeep,
    input wire                    s_axis_rx_tvalid,
    input wire                    s_axis_rx_tlast,
    input wire                    m_axis_rx_tready,
    input wire [9:0]  s_axil_awaddr, input wire s_axil_awvalid,
    input wire [31:0] s_axil_wdata, input wire [3:0] s_axil_wstrb, input wire s_axil_wvalid,
    input wire        s_axil_bready,
    input wire [9:0]  s_axil_araddr, input wire s_axil_arvalid, input wire s_axil_rready
);
localparam AXIL_AW = 10;
localparam KB = DATA_WIDTH / 8;
wire                  s_axis_tx_tready, s_axis_rx_tready;
wire [DATA_WIDTH-1:0] m_axis_tx_tdata, m_axis_rx_tdata;
wire [KB-1:0]         m_axis_tx_tkeep, m_axis_rx_tkeep;
wire                  m_axis_tx_tvalid, m_axis_tx_tlast, m_axis_rx_tvalid, m_axis_rx_tlast;
wire s_axil_awready, s_axil_wready, s_axil_bvalid, s_axil_arready, s_axil_rvalid;
wire [1:0] s_axil_bresp, s_axil_rresp;
wire [31:0] s_axil_rdata;

// F_DUT: inc_offload_top as a netlist prebuilt by formal/run.sh (f_dut_top,
// the same parameters), else from the RTL
`ifdef F_DUT
`F_DUT dut (
`else
inc_offload_top #(.DATA_WIDTH(DATA_WIDTH), .MAX_FRAME(96), .ADDR_WIDTH(10), .CNT_LO_BITS(17)) dut (
`endif
    .clk(clk), .rst(rst),
    .s_axis_tx_tdata(s_axis_tx_tdata), .s_axis_tx_tkeep(s_axis_tx_tkeep),
    .s_axis_tx_tvalid(s_axis_tx_tvalid), .s_axis_tx_tready(s_axis_tx_tready),
    .s_axis_tx_tlast(s_axis_tx_tlast),
    .m_axis_tx_tdata(m_axis_tx_tdata), .m_axis_tx_tkeep(m_axis_tx_tkeep),
    .m_axis_tx_tvalid(m_axis_tx_tvalid), .m_axis_tx_tready(m_axis_tx_tready),
    .m_axis_tx_tlast(m_axis_tx_tlast),
    .s_axis_rx_tdata(s_axis_rx_tdata), .s_axis_rx_tkeep(s_axis_rx_tkeep),
    .s_axis_rx_tvalid(s_axis_rx_tvalid), .s_axis_rx_tready(s_axis_rx_tready),
    .s_axis_rx_tlast(s_axis_rx_tlast),
    .m_axis_rx_tdata(m_axis_rx_tdata), .m_axis_rx_tkeep(m_axis_rx_tkeep),
    .m_axis_rx_tvalid(m_axis_rx_tvalid), .m_axis_rx_tready(m_axis_rx_tready),
    .m_axis_rx_tlast(m_axis_rx_tlast),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(3'd0), .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr), .s_axil_arprot(3'd0), .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
);

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
always @* assume(rst == !f_past_valid);

`include "f_axil_master.vh"

// ---- AXI4-Stream: the master rules on s_axis_tx / s_axis_rx (assumed)
reg                  f_tx_in_stall = 1'b0, f_rx_in_stall = 1'b0;
reg [DATA_WIDTH-1:0] f_tx_in_data, f_rx_in_data;
reg [KB-1:0]         f_tx_in_keep, f_rx_in_keep;
reg                  f_tx_in_last, f_rx_in_last;
always @(posedge clk) begin
    f_tx_in_stall <= s_axis_tx_tvalid && !s_axis_tx_tready;
    f_rx_in_stall <= s_axis_rx_tvalid && !s_axis_rx_tready;
    f_tx_in_data <= s_axis_tx_tdata;  f_rx_in_data <= s_axis_rx_tdata;
    f_tx_in_keep <= s_axis_tx_tkeep;  f_rx_in_keep <= s_axis_rx_tkeep;
    f_tx_in_last <= s_axis_tx_tlast;  f_rx_in_last <= s_axis_rx_tlast;
end
always @* begin
    // tvalid low during reset (the decompress engine's tready is not held
    // low in its reset cycle)
    if (rst) assume(!s_axis_tx_tvalid && !s_axis_rx_tvalid);
    if (f_past_valid && f_tx_in_stall)
        assume(s_axis_tx_tvalid && s_axis_tx_tdata == f_tx_in_data &&
               s_axis_tx_tkeep == f_tx_in_keep && s_axis_tx_tlast == f_tx_in_last);
    if (f_past_valid && f_rx_in_stall)
        assume(s_axis_rx_tvalid && s_axis_rx_tdata == f_rx_in_data &&
               s_axis_rx_tkeep == f_rx_in_keep && s_axis_rx_tlast == f_rx_in_last);
    if (s_axis_tx_tvalid && !s_axis_tx_tlast) assume(&s_axis_tx_tkeep);
    if (s_axis_tx_tvalid && s_axis_tx_tlast)
        assume(s_axis_tx_tkeep[0] && ((s_axis_tx_tkeep + 1'b1) & s_axis_tx_tkeep) == {KB{1'b0}});
    if (s_axis_rx_tvalid && !s_axis_rx_tlast) assume(&s_axis_rx_tkeep);
    if (s_axis_rx_tvalid && s_axis_rx_tlast)
        assume(s_axis_rx_tkeep[0] && ((s_axis_rx_tkeep + 1'b1) & s_axis_rx_tkeep) == {KB{1'b0}});
end

// ---- AXI4-Stream: the source rules on m_axis_tx / m_axis_rx (asserted)
reg                  f_tx_out_stall = 1'b0, f_rx_out_stall = 1'b0;
reg [DATA_WIDTH-1:0] f_tx_out_data, f_rx_out_data;
reg [KB-1:0]         f_tx_out_keep, f_rx_out_keep;
reg                  f_tx_out_last, f_rx_out_last;
always @(posedge clk) begin
    f_tx_out_stall <= !rst && m_axis_tx_tvalid && !m_axis_tx_tready;
    f_rx_out_stall <= !rst && m_axis_rx_tvalid && !m_axis_rx_tready;
    f_tx_out_data <= m_axis_tx_tdata;  f_rx_out_data <= m_axis_rx_tdata;
    f_tx_out_keep <= m_axis_tx_tkeep;  f_rx_out_keep <= m_axis_rx_tkeep;
    f_tx_out_last <= m_axis_tx_tlast;  f_rx_out_last <= m_axis_rx_tlast;
end
always @* begin
    if (f_past_valid) begin
        if (f_tx_out_stall)
            tx_hold: assert(m_axis_tx_tvalid && m_axis_tx_tdata == f_tx_out_data &&
                            m_axis_tx_tkeep == f_tx_out_keep && m_axis_tx_tlast == f_tx_out_last);
        if (m_axis_tx_tvalid && !m_axis_tx_tlast) tx_keep_full: assert(&m_axis_tx_tkeep);
        if (m_axis_tx_tvalid && m_axis_tx_tlast)
            tx_keep_last: assert(m_axis_tx_tkeep[0] &&
                                 ((m_axis_tx_tkeep + 1'b1) & m_axis_tx_tkeep) == {KB{1'b0}});
        if (f_rx_out_stall)
            rx_hold: assert(m_axis_rx_tvalid && m_axis_rx_tdata == f_rx_out_data &&
                            m_axis_rx_tkeep == f_rx_out_keep && m_axis_rx_tlast == f_rx_out_last);
        if (m_axis_rx_tvalid && !m_axis_rx_tlast) rx_keep_full: assert(&m_axis_rx_tkeep);
        if (m_axis_rx_tvalid && m_axis_rx_tlast)
            rx_keep_last: assert(m_axis_rx_tkeep[0] &&
                                 ((m_axis_rx_tkeep + 1'b1) & m_axis_rx_tkeep) == {KB{1'b0}});
    end
    if (f_past_rst) begin   // f_axil_master.vh: reset in the cycle before
        tx_reset: assert(!m_axis_tx_tvalid);
        rx_reset: assert(!m_axis_rx_tvalid);
    end
end
endmodule
