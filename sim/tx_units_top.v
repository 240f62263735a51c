// SPDX-License-Identifier: MIT
/*
 * tx_units_top.v - Verilator wrapper around the TX building blocks for the
 * unit tests (sim/tx_units_tb.c): the ToS matcher in both directions on one
 * input stream, one compression block, the compress unit and the align
 * unit (64-byte rows, 34-byte chunks, as in the compress engine).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module tx_units_top (
    input  wire         clk,
    input  wire         rst,

    // matcher stream (tb_ready is the engine's tready)
    input  wire [255:0] s_axis_tdata,
    input  wire [31:0]  s_axis_tkeep,
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire         s_axis_tlast,
    input  wire         tb_ready,
    input  wire [7:0]   cfg_tos_value,
    input  wire [7:0]   cfg_tos_mask,

    output wire         tx_done,
    output wire [4:0]   tx_reason,
    output wire [15:0]  tx_frame_len,
    output wire [7:0]   tx_l3_off,
    output wire [7:0]   tx_ip_hlen,
    output wire [7:0]   tx_tcp_hlen,
    output wire [15:0]  tx_ip_total,
    output wire [7:0]   tx_payload_off,
    output wire [15:0]  tx_payload_len,
    output wire [7:0]   tx_proto,
    output wire [7:0]   tx_ttl,
    output wire [15:0]  tx_csum_rest,
    output wire         tx_cur_hdr_valid,
    output wire [7:0]   tx_cur_payload_off,
    output wire         rx_done,
    output wire [4:0]   rx_reason,

    input  wire [31:0]  blk_value,
    input  wire [6:0]   blk_eb,
    output wire [1:0]   blk_tag,
    output wire [31:0]  blk_payload,

    input  wire [255:0] unit_data,
    input  wire [3:0]   unit_nvalid,
    input  wire [6:0]   unit_eb,
    output wire [271:0] unit_group,
    output wire [7:0]   unit_len,

    input  wire         al_valid,
    input  wire [271:0] al_data,
    input  wire [7:0]   al_len,
    input  wire         al_start,
    input  wire [7:0]   al_offset,
    input  wire         al_last,
    input  wire         al_inreg,     // 1: rows of the align unit with IN_REG = 1
    output wire         al_out0_valid,
    output wire [511:0] al_out0_data,
    output wire [7:0]   al_out0_count,
    output wire         al_out1_valid,
    output wire [511:0] al_out1_data,
    output wire [7:0]   al_out1_count
);

inc_compress_block blk (
    .in_value(blk_value), .in_eb(blk_eb), .out_tag(blk_tag), .out_payload(blk_payload)
);

inc_compress_unit #(.LANES(8)) unit (
    .in_data(unit_data), .in_nvalid(unit_nvalid), .in_eb(unit_eb),
    .out_group(unit_group), .out_len(unit_len)
);

// The align unit both ways (chunks to both; al_inreg picks the rows shown).
wire         a_v0 [0:1], a_v1 [0:1];
wire [511:0] a_d0 [0:1], a_d1 [0:1];
wire [7:0]   a_c0 [0:1], a_c1 [0:1];

genvar ai;
generate
    for (ai = 0; ai < 2; ai = ai + 1) begin : g_align
        inc_align_unit #(.IN_BYTES(34), .OUT_BYTES(64), .IN_REG(ai)) align (
            .clk(clk), .rst(rst),
            .in_valid(al_valid), .in_data(al_data), .in_len(al_len), .in_start(al_start),
            .in_offset(al_offset), .in_last(al_last),
            .out0_valid(a_v0[ai]), .out0_data(a_d0[ai]), .out0_count(a_c0[ai]),
            .out1_valid(a_v1[ai]), .out1_data(a_d1[ai]), .out1_count(a_c1[ai])
        );
    end
endgenerate

assign al_out0_valid = a_v0[al_inreg];
assign al_out0_data  = a_d0[al_inreg];
assign al_out0_count = a_c0[al_inreg];
assign al_out1_valid = a_v1[al_inreg];
assign al_out1_data  = a_d1[al_inreg];
assign al_out1_count = a_c1[al_inreg];

wire beat = s_axis_tvalid && tb_ready;
assign s_axis_tready = tb_ready;

/* verilator lint_off PINCONNECTEMPTY */
inc_tos_matcher #(.DATA_WIDTH(256), .RX(0)) tx_matcher (
    .clk(clk), .rst(rst),
    .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_beat(beat), .s_tlast(s_axis_tlast),
    .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(tx_cur_hdr_valid), .cur_hdr_ok(), .cur_vlan(), .cur_l3_off(), .cur_ip_hlen(),
    .cur_tcp_hlen(), .cur_ip_total(), .cur_payload_off(tx_cur_payload_off),
    .cur_payload_len(),
    .m_done(tx_done), .m_reason(tx_reason), .m_frame_len(tx_frame_len), .m_vlan(),
    .m_l3_off(tx_l3_off), .m_ip_hlen(tx_ip_hlen), .m_tcp_hlen(tx_tcp_hlen), .m_hdr_len(),
    .m_ip_total(tx_ip_total), .m_payload_off(tx_payload_off),
    .m_payload_len(tx_payload_len), .m_proto(tx_proto), .m_tos(), .m_ttl(tx_ttl),
    .m_csum_rest(tx_csum_rest)
);

inc_tos_matcher #(.DATA_WIDTH(256), .RX(1)) rx_matcher (
    .clk(clk), .rst(rst),
    .s_tdata(s_axis_tdata), .s_tkeep(s_axis_tkeep), .s_beat(beat), .s_tlast(s_axis_tlast),
    .cfg_tos_value(cfg_tos_value), .cfg_tos_mask(cfg_tos_mask),
    .cur_hdr_valid(), .cur_hdr_ok(), .cur_vlan(), .cur_l3_off(), .cur_ip_hlen(),
    .cur_tcp_hlen(), .cur_ip_total(), .cur_payload_off(), .cur_payload_len(),
    .m_done(rx_done), .m_reason(rx_reason), .m_frame_len(), .m_vlan(),
    .m_l3_off(), .m_ip_hlen(), .m_tcp_hlen(), .m_hdr_len(), .m_ip_total(), .m_payload_off(),
    .m_payload_len(), .m_proto(), .m_tos(), .m_ttl(), .m_csum_rest()
);
/* verilator lint_on PINCONNECTEMPTY */

endmodule

`resetall
