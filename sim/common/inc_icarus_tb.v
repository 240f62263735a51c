// SPDX-License-Identifier: MIT
/*
 * inc_icarus_tb.v - Icarus smoke bench of one engine, inc_compress_engine
 * (RX=0) or inc_decompress_engine (RX=1): streams the frames of in.hex back
 * to back (tvalid always high), with a pseudo-random m_axis_tready, and
 * compares every output byte and every stat pulse with the model's
 * expectations written by sim/common/inc_icarus_gen.c. Prints
 * "N passed, N failed" last. Run in the directory holding the hex files.
 * Select the engine with iverilog -P inc_icarus_tb.RX=1.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module inc_icarus_tb #(
    // 0: compress engine (transmit side), 1: decompress engine (receive side)
    parameter RX = 0,
    // clock cycles the bench runs after reset before it checks the counts
    parameter CYCLES = RX ? 40000 : 20000
);

localparam MAXB = 65536;

reg  [7:0]   in_mem  [0:MAXB-1];
reg  [15:0]  in_len  [0:63];
reg  [7:0]   exp_mem [0:MAXB-1];
reg  [15:0]  exp_len [0:63];
reg  [47:0]  exp_st  [0:63];

reg          clk = 1'b0, rst = 1'b1;
reg  [255:0] s_tdata = 0;
reg  [31:0]  s_tkeep = 0;
reg          s_tvalid = 1'b0, s_tlast = 1'b0;
wire         s_tready;
wire [255:0] m_tdata;
wire [31:0]  m_tkeep;
wire         m_tvalid, m_tlast;
reg          m_tready = 1'b0;
wire         st_valid;
wire [2:0]   st_outcome;
wire [4:0]   st_reason;
wire [15:0]  st_in, st_out;

// the port connections both engines share
`define INC_ICARUS_DUT_PORTS \
    .clk(clk), .rst(rst), \
    .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid), \
    .s_axis_tready(s_tready), .s_axis_tlast(s_tlast), \
    .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid), \
    .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), \
    .cfg_enable(1'b1), .cfg_tos_value(8'h28), .cfg_tos_mask(8'hfc), \
    .stat_valid(st_valid), .stat_outcome(st_outcome), .stat_reason(st_reason), \
    .stat_bytes_in(st_in), .stat_bytes_out(st_out)

generate
if (RX) begin : g_rx
    inc_decompress_engine #(.DATA_WIDTH(256), .MAX_FRAME(9018)) dut (`INC_ICARUS_DUT_PORTS);
end else begin : g_tx
    inc_compress_engine #(.DATA_WIDTH(256), .MAX_FRAME(9018)) dut (`INC_ICARUS_DUT_PORTS, .cfg_eb(7'd10));
end
endgenerate

`undef INC_ICARUS_DUT_PORTS

always #2 clk = !clk;

integer passed = 0, failed = 0;
integer nin = 0, nexp = 0, i;

// ---------------- source ----------------
integer fi = 0, fpos = 0, fbase = 0;   // frame index, byte offset, base in in_mem

task load_beat;
    integer b;
    begin
        s_tdata = 0;
        s_tkeep = 0;
        for (b = 0; b < 32; b = b + 1)
            if (fpos + b < in_len[fi]) begin
                s_tdata[b*8 +: 8] = in_mem[fbase + fpos + b];
                s_tkeep[b] = 1'b1;
            end
        s_tlast  = fpos + 32 >= in_len[fi];
        s_tvalid = 1'b1;
    end
endtask

// ---------------- sink / checks ----------------
integer oi = 0, opos = 0, obase = 0, si = 0, bad_bytes = 0;
reg [15:0] lfsr = 16'hace1;

// the source changes its outputs on the falling edge, after the handshake
// seen at the rising edge
reg took = 1'b0;
always @(posedge clk)
    took <= !rst && s_tvalid && s_tready;

always @(negedge clk) begin
    if (took) begin
            fpos = fpos + 32;
            if (s_tlast) begin
                fbase = fbase + in_len[fi];
                fi = fi + 1;
                fpos = 0;
            end
            if (fi < nin)
                load_beat;
            else
                s_tvalid = 1'b0;
    end
end

always @(posedge clk) begin
    if (!rst) begin
        // sink
        if (m_tvalid && m_tready) begin
            for (i = 0; i < 32; i = i + 1)
                if (m_tkeep[i]) begin
                    if (oi >= nexp || m_tdata[i*8 +: 8] !== exp_mem[obase + opos]) begin
                        if (bad_bytes < 10)
                            $display("FAIL frame %0d byte %0d: got %02x expected %02x",
                                     oi, opos, m_tdata[i*8 +: 8], exp_mem[obase + opos]);
                        bad_bytes = bad_bytes + 1;
                    end
                    opos = opos + 1;
                end
            if (m_tlast) begin
                if (opos == exp_len[oi] && bad_bytes == 0)
                    passed = passed + 1;
                else begin
                    $display("FAIL output frame %0d: %0d bytes, expected %0d", oi, opos, exp_len[oi]);
                    failed = failed + 1;
                end
                bad_bytes = 0;
                obase = obase + exp_len[oi];
                oi = oi + 1;
                opos = 0;
            end
        end
        lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
        m_tready <= lfsr[0] | lfsr[3];
        // stats
        if (st_valid) begin
            if ({st_outcome, st_reason, st_in, st_out} ===
                {exp_st[si][42:40], exp_st[si][36:32], exp_st[si][31:0]})
                passed = passed + 1;
            else begin
                $display("FAIL stat %0d: %0d/%0d %0d->%0d, expected %h", si, st_outcome,
                         st_reason, st_in, st_out, exp_st[si]);
                failed = failed + 1;
            end
            si = si + 1;
        end
    end
end

initial begin
    $readmemh("in.hex", in_mem);
    $readmemh("in_len.hex", in_len);
    $readmemh("exp.hex", exp_mem);
    $readmemh("exp_len.hex", exp_len);
    $readmemh("exp_stat.hex", exp_st);
    while (in_len[nin] != 0) nin = nin + 1;
    while (exp_len[nexp] != 0) nexp = nexp + 1;
    repeat (4) @(posedge clk);
    rst <= 1'b0;
    @(negedge clk);
    load_beat;
    repeat (CYCLES) @(posedge clk);
    if (oi != nexp) begin
        $display("FAIL %0d of %0d output frames", oi, nexp);
        failed = failed + 1;
    end
    if (si != nin) begin
        $display("FAIL %0d of %0d stat pulses", si, nin);
        failed = failed + 1;
    end
    $display("%0d passed, %0d failed", passed, failed);
    $finish;
end

endmodule

`resetall
