// formal/f_axil_master.vh - included in a harness: the AXI4-Lite master's
// rules as assumptions, the slave's as assertions. Needs clk, rst,
// f_past_valid and the s_axil_* nets in scope.
//
// Master: a valid stays up with a stable payload until its ready; the
// response channels are free (bready, rready any pattern).
reg f_aw_stall = 1'b0, f_w_stall = 1'b0, f_ar_stall = 1'b0;
reg [AXIL_AW-1:0] f_awaddr_q, f_araddr_q;
reg [31:0] f_wdata_q;
always @(posedge clk) begin
    f_aw_stall <= !rst && s_axil_awvalid && !s_axil_awready;
    f_w_stall  <= !rst && s_axil_wvalid && !s_axil_wready;
    f_ar_stall <= !rst && s_axil_arvalid && !s_axil_arready;
    f_awaddr_q <= s_axil_awaddr;
    f_wdata_q  <= s_axil_wdata;
    f_araddr_q <= s_axil_araddr;
end
always @* begin
    if (f_aw_stall) assume(s_axil_awvalid && s_axil_awaddr == f_awaddr_q);
    if (f_w_stall)  assume(s_axil_wvalid && s_axil_wdata == f_wdata_q);
    if (f_ar_stall) assume(s_axil_arvalid && s_axil_araddr == f_araddr_q);
end
// Slave: one B per accepted write (address and data), one R per accepted
// read, a response only after its request's handshake (in a later cycle),
// responses held until taken, nothing valid in reset.
reg [1:0] f_aw_n = 2'd0, f_w_n = 2'd0, f_b_n = 2'd0, f_ar_n = 2'd0, f_r_n = 2'd0;
// outstanding = handshakes done - responses taken
wire [1:0] f_wr_out = f_aw_n - f_b_n;
wire [1:0] f_rd_out = f_ar_n - f_r_n;
always @(posedge clk) begin
    if (rst) begin
        f_aw_n <= 2'd0; f_w_n <= 2'd0; f_b_n <= 2'd0; f_ar_n <= 2'd0; f_r_n <= 2'd0;
    end else begin
        if (s_axil_awvalid && s_axil_awready) f_aw_n <= f_aw_n + 1'b1;
        if (s_axil_wvalid && s_axil_wready)   f_w_n  <= f_w_n + 1'b1;
        if (s_axil_bvalid && s_axil_bready)   f_b_n  <= f_b_n + 1'b1;
        if (s_axil_arvalid && s_axil_arready) f_ar_n <= f_ar_n + 1'b1;
        if (s_axil_rvalid && s_axil_rready)   f_r_n  <= f_r_n + 1'b1;
    end
end
reg f_b_stall = 1'b0, f_r_stall = 1'b0;
reg [31:0] f_rdata_q;
always @(posedge clk) begin
    f_b_stall <= !rst && s_axil_bvalid && !s_axil_bready;
    f_r_stall <= !rst && s_axil_rvalid && !s_axil_rready;
    f_rdata_q <= s_axil_rdata;
end
always @* begin
    if (f_past_valid && !rst) begin
        // axil_resp_after_req: no response without an earlier request
        if (s_axil_bvalid) assert(f_wr_out != 2'd0);
        if (s_axil_rvalid) assert(f_rd_out != 2'd0);
        // axil_one_resp: at most one outstanding, address and data together
        assert(f_wr_out <= 2'd1 && f_rd_out <= 2'd1);
        assert(f_aw_n == f_w_n);
        // axil_resp_held: a response stays with its data until taken
        if (f_b_stall) assert(s_axil_bvalid);
        if (f_r_stall) assert(s_axil_rvalid && s_axil_rdata == f_rdata_q);
    end
end
reg f_past_rst = 1'b1;
always @(posedge clk) f_past_rst <= rst;
always @* begin
    // nothing valid in the cycle after a reset edge
    if (f_past_rst) assert(!s_axil_bvalid && !s_axil_rvalid);
end
