// SPDX-License-Identifier: MIT
// formal/f_inc_tos_matcher.v - harness of inc_tos_matcher (256 bits, TX):
// one m_done exactly M_LAT = 6 cycles after each last beat and never
// otherwise (frame conservation at the parser), and an accepted frame
// (m_reason 0) carries the ToS byte the frame has, matching value/mask,
// and protocol TCP.
`default_nettype none
module f_inc_tos_matcher (
    input wire clk,
    input wire rst,
    input wire [255:0] s_tdata,
    input wire [31:0] s_tkeep,
    input wire s_beat,
    input wire s_tlast,
    input wire [7:0] cfg_tos_value,
    input wire [7:0] cfg_tos_mask
);
wire m_done;
wire [4:0] m_reason;
wire [7:0] m_tos, m_proto;
/* verilator lint_off PINCONNECTEMPTY */
inc_tos_matcher #(.DATA_WIDTH(256), .RX(0)) dut (
    .clk(clk), .rst(rst), .s_tdata(s_tdata), .s_tkeep(s_tkeep), .s_beat(s_beat),
    .s_tlast(s_tlast), .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(), .cur_hdr_ok(), .cur_vlan(), .cur_l3_off(), .cur_ip_hlen(),
    .cur_tcp_hlen(), .cur_ip_total(), .cur_payload_off(), .cur_payload_len(),
    .m_done(m_done), .m_reason(m_reason), .m_frame_len(), .m_vlan(), .m_l3_off(),
    .m_ip_hlen(), .m_tcp_hlen(), .m_hdr_len(), .m_ip_total(), .m_payload_off(),
    .m_payload_len(), .m_proto(m_proto), .m_tos(m_tos), .m_ttl(), .m_csum_rest());

reg f_past_valid = 1'b0;
always @(posedge clk) f_past_valid <= 1'b1;
// inputs: reset first; tkeep well formed; the configuration held (the
// engines' CSR changes it between frames only as far as this check cares)
reg [7:0] f_val_q, f_mask_q;
always @(posedge clk) begin
    f_val_q  <= cfg_tos_value;
    f_mask_q <= cfg_tos_mask;
end
always @* begin
    if (!f_past_valid) assume(rst);
    if (f_past_valid) assume(cfg_tos_value == f_val_q && cfg_tos_mask == f_mask_q);
    if (s_beat && !s_tlast) assume(&s_tkeep);
    if (s_beat && s_tlast) assume(s_tkeep[0] && ((s_tkeep + 1'b1) & s_tkeep) == 32'd0);
end

// m_done_timing: the last beats delayed by 6 cycles, cleared by reset
reg [5:0] f_last_sr = 6'd0;
always @(posedge clk) begin
    f_last_sr <= {f_last_sr[4:0], s_beat && s_tlast};
    if (rst) f_last_sr <= 6'd0;
end
// the frame's ToS byte (byte 15, or 19 behind an 802.1Q tag) from its first beat
reg       f_first = 1'b1;
reg [7:0] f_tos_in;
reg [7:0] f_tos_sr [0:5];
integer i;
always @(posedge clk) begin
    if (s_beat) f_first <= s_tlast;
    if (s_beat && f_first)
        f_tos_in <= s_tdata[12*8 +: 16] == 16'h0081 ? s_tdata[19*8 +: 8] : s_tdata[15*8 +: 8];
    f_tos_sr[0] <= (s_beat && f_first) ? (s_tdata[12*8 +: 16] == 16'h0081 ? s_tdata[19*8 +: 8] : s_tdata[15*8 +: 8]) : f_tos_in;
    for (i = 1; i < 6; i = i + 1) f_tos_sr[i] <= f_tos_sr[i-1];
    if (rst) f_first <= 1'b1;
end
always @* begin
    if (f_past_valid && !rst) begin
        assert(m_done == f_last_sr[5]);
`ifdef F_ACCEPT
        if (m_done && m_reason == 5'd0) begin
            assert(m_proto == 8'd6);
            assert(((m_tos ^ cfg_tos_value) & cfg_tos_mask) == 8'd0);
            assert(m_tos == f_tos_sr[5]);
        end
`endif
    end
end
`ifdef F_COVER
// scover jobs: this condition must be reachable (asserted false, it fails)
always @* if (f_past_valid && !rst) assert(!(`F_COVER));
`endif
endmodule
