// SPDX-License-Identifier: MIT
/*
 * inc_csr - AXI4-Lite register block of the offload: identification,
 * capabilities, per-direction enables, ToS value/mask, error bound and the
 * 64-bit statistics counters fed by the engines' stat_* outputs. The map is
 * sw-model/include/inc_regs.h (here through the generated inc_regs.vh);
 * docs/registers.md has the table.
 *
 * Counter block of a direction (base 0x100 TX, 0x200 RX), index = off[7:3]:
 *   0..4   outcomes (enum inc_outcome)     8..26  reasons (enum inc_reason)
 *   28     bytes in                        29     bytes out
 * Reading a LO word latches the counter's HI word; the next read of that
 * HI word returns the latched value (see inc_regs.h for the read order).
 * The statistics pulses are registered first (which counters move, by how
 * many bytes: a byte count is registered as 0 when its pulse is absent), so
 * each counter's add starts at a flip-flop; a counter moves one cycle after
 * its pulse. A counter is two halves (CNT_LO_BITS, 32,
 * and the rest): the low half's carry is registered and added into the
 * high half a cycle later, so no add is longer than 32 bits; the value is
 * (high + carry) * 2^CNT_LO_BITS + low at every cycle. A read takes the
 * low half in one cycle and the high half in the next, when the pending
 * carry has been added into it by the counter itself (so the read path has
 * no adder); a clear between the two reads as 0, the value after it. Writing
 * INC_CNT_CTRL_CLEAR clears every counter; a pulse one cycle before the
 * clear is lost.
 *
 * AXI4-Lite: one transaction at a time per channel, OKAY responses only,
 * WSTRB ignored (whole 32-bit registers). Single clock with the engines.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "inc_regs.vh"

// AXI4-Lite CSR block with the per-direction counters.
module inc_csr #(
    parameter DATA_WIDTH = 256,  // engines' AXI4-Stream width in bits (reported in CAPS)
    parameter MAX_FRAME  = 9018, // engines' largest frame in bytes (reported in CAPS)
    parameter ADDR_WIDTH = 10,   // AXI4-Lite address bits (INC_REGS_SIZE = 1 KiB)
    parameter CNT_LO_BITS = 32   // bits of a counter's low half, 17..48 (a 16-bit
                                 // increment fits; tests use 17 to see carries)
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    /* verilator lint_off UNUSEDSIGNAL */ // protection and strobes are not used
    input  wire [2:0]            s_axil_awprot,
    input  wire                  s_axil_awvalid,
    output reg                   s_axil_awready = 1'b0,
    input  wire [31:0]           s_axil_wdata,
    input  wire [3:0]            s_axil_wstrb,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_wvalid,
    output reg                   s_axil_wready = 1'b0,
    output wire [1:0]            s_axil_bresp,
    output reg                   s_axil_bvalid = 1'b0,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]            s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_arvalid,
    output reg                   s_axil_arready = 1'b0,
    output reg  [31:0]           s_axil_rdata,
    output wire [1:0]            s_axil_rresp,
    output reg                   s_axil_rvalid = 1'b0,
    input  wire                  s_axil_rready,

    output reg                   cfg_tx_enable,
    output reg                   cfg_rx_enable,
    output reg  [7:0]            cfg_tos_value,
    output reg  [7:0]            cfg_tos_mask,
    output reg  [6:0]            cfg_eb,

    input  wire                  tx_stat_valid,
    input  wire [2:0]            tx_stat_outcome,
    input  wire [4:0]            tx_stat_reason,
    input  wire [15:0]           tx_stat_bytes_in,
    input  wire [15:0]           tx_stat_bytes_out,
    input  wire                  rx_stat_valid,
    input  wire [2:0]            rx_stat_outcome,
    input  wire [4:0]            rx_stat_reason,
    input  wire [15:0]           rx_stat_bytes_in,
    input  wire [15:0]           rx_stat_bytes_out
);

initial begin
    if (ADDR_WIDTH < 10) begin
        $error("inc_csr: ADDR_WIDTH must be >= 10");
        $finish;
    end
    if (CNT_LO_BITS < 17 || CNT_LO_BITS > 48) begin
        $error("inc_csr: CNT_LO_BITS must be 17..48");
        $finish;
    end
end

localparam [31:0] CAPS = `INC_CAPS_TX | `INC_CAPS_RX | `INC_CAPS_VLAN |
                         ((DATA_WIDTH / 8) << `INC_CAPS_BEAT_SHIFT) |
                         (MAX_FRAME << `INC_CAPS_MAXF_SHIFT);

localparam [31:0] TOS_RESET = `INC_TOS_RESET;
localparam [4:0]  NREASONS  = `INC_CNT_REASONS;   // reason counters (<= 20: bytes in at index 28)

assign s_axil_bresp = 2'b00;
assign s_axil_rresp = 2'b00;

// Counters: [dir*32 + index], 64 bits each: the low half, its carry not
// yet in the high half, the high half.
localparam LB = CNT_LO_BITS, HB = 64 - CNT_LO_BITS;
reg [LB-1:0] cnt_lo_reg [0:63];
reg          cnt_c_reg  [0:63];
reg [HB-1:0] cnt_hi_reg [0:63];
reg        clear;
integer    i;

function cnt_hit;   // counter k of a direction moves on this pulse
    input [4:0]  k;
    input        v;
    input [2:0]  o;
    input [4:0]  r;
    begin
        cnt_hit = v && ((k < 5'd8 && k[2:0] == o) ||
                        (k >= 5'd8 && k < 5'd8 + NREASONS && k - 5'd8 == r) ||
                        k == 5'd28 || k == 5'd29);
    end
endfunction

function [15:0] cnt_inc;   // increment of counter k from the registered pulse
    input [4:0]  k;
    input        hit;
    input [15:0] bi, bo;     // registered byte counts, 0 without a pulse
    begin
        cnt_inc = {15'd0, hit};
        if (k == 5'd28) begin
            cnt_inc = bi;
        end
        if (k == 5'd29) begin
            cnt_inc = bo;
        end
    end
endfunction

reg [63:0] hit_reg = 64'd0;   // [dir*32 + index]: the counter moves
reg [15:0] tx_bi_reg = 16'd0, tx_bo_reg = 16'd0, rx_bi_reg = 16'd0, rx_bo_reg = 16'd0;

// Indices that hold a counter: outcomes 0..4, reasons 8..26, bytes 28, 29.
function used;
    input [4:0] k;
    begin
        used = k < 5'd5 || (k >= 5'd8 && k < 5'd8 + NREASONS) || k == 5'd28 || k == 5'd29;
    end
endfunction

always @(posedge clk) begin
    for (i = 0; i < 32; i = i + 1) begin
        hit_reg[i]      <= cnt_hit(i[4:0], tx_stat_valid, tx_stat_outcome, tx_stat_reason);
        hit_reg[32 + i] <= cnt_hit(i[4:0], rx_stat_valid, rx_stat_outcome, rx_stat_reason);
    end
    // the byte counts are the byte counters' increments: 0 without a pulse,
    // so no select follows them into the adds
    tx_bi_reg <= tx_stat_valid ? tx_stat_bytes_in : 16'd0;
    tx_bo_reg <= tx_stat_valid ? tx_stat_bytes_out : 16'd0;
    rx_bi_reg <= rx_stat_valid ? rx_stat_bytes_in : 16'd0;
    rx_bo_reg <= rx_stat_valid ? rx_stat_bytes_out : 16'd0;
    if (rst) begin
        hit_reg <= 64'd0;
        // (the byte counts too: without a reset synthesis folds them into
        // shift registers with the engines' own copies, whose clock-to-out
        // is twice a flip-flop's, in front of the 64-bit adds)
        tx_bi_reg <= 16'd0;
        tx_bo_reg <= 16'd0;
        rx_bi_reg <= 16'd0;
        rx_bo_reg <= 16'd0;
    end
end

always @(posedge clk) begin
    for (i = 0; i < 64; i = i + 1) begin
        if (!used(i[4:0]) || clear || rst) begin
            cnt_lo_reg[i] <= {LB{1'b0}};
            cnt_c_reg[i]  <= 1'b0;
            cnt_hi_reg[i] <= {HB{1'b0}};
        end else begin
            {cnt_c_reg[i], cnt_lo_reg[i]} <= {1'b0, cnt_lo_reg[i]} +
                {{(LB-15){1'b0}}, cnt_inc(i[4:0], hit_reg[i], i < 32 ? tx_bi_reg : rx_bi_reg,
                                          i < 32 ? tx_bo_reg : rx_bo_reg)};
            cnt_hi_reg[i] <= cnt_hi_reg[i] + {{(HB-1){1'b0}}, cnt_c_reg[i]};
        end
    end
end

// Write channel: address and data taken together.
reg [31:0] scratch_reg;
wire [7:0] waddr = s_axil_awaddr[9:2];
wire       whigh = (s_axil_awaddr >> 10) == 0;   // inside the 1 KiB block

always @(posedge clk) begin
    clear          <= 1'b0;
    s_axil_awready <= 1'b0;
    s_axil_wready  <= 1'b0;
    if (s_axil_bvalid && s_axil_bready) begin
        s_axil_bvalid <= 1'b0;
    end
    // the response follows the handshake: AXI4 allows BVALID only after
    // the address and data handshakes have completed (an edge after
    // AWREADY/WREADY were seen high), not in the same cycle
    if (s_axil_awready) begin
        s_axil_bvalid  <= 1'b1;
    end
    if (s_axil_awvalid && s_axil_wvalid && !s_axil_awready && !s_axil_bvalid) begin
        s_axil_awready <= 1'b1;
        s_axil_wready  <= 1'b1;
        if (whigh) begin
            case ({22'd0, waddr, 2'b00})
                `INC_REG_SCRATCH: scratch_reg <= s_axil_wdata;
                `INC_REG_CTRL: begin
                    cfg_tx_enable <= |(s_axil_wdata & `INC_CTRL_TX_EN);
                    cfg_rx_enable <= |(s_axil_wdata & `INC_CTRL_RX_EN);
                end
                `INC_REG_TOS: begin
                    cfg_tos_value <= s_axil_wdata[`INC_TOS_VALUE_SHIFT +: 8];
                    cfg_tos_mask  <= s_axil_wdata[`INC_TOS_MASK_SHIFT +: 8];
                end
                `INC_REG_EB: cfg_eb <= s_axil_wdata[6:0];
                `INC_REG_CNT_CTRL: clear <= |(s_axil_wdata & `INC_CNT_CTRL_CLEAR);
                default: begin
                end
            endcase
        end
    end
    if (rst) begin
        s_axil_awready <= 1'b0;
        s_axil_wready  <= 1'b0;
        s_axil_bvalid  <= 1'b0;
        clear          <= 1'b0;
        scratch_reg    <= 32'd0;
        cfg_tx_enable  <= 1'b0;
        cfg_rx_enable  <= 1'b0;
        cfg_tos_value  <= TOS_RESET[7:0];
        cfg_tos_mask   <= TOS_RESET[15:8];
        cfg_eb         <= `INC_EB_RESET;
    end
end

// Read channel.
reg [31:0] hold_reg;          // HI word latched by a LO read
reg [5:0]  hold_idx_reg;
reg        hold_valid_reg;
wire [7:0] raddr = s_axil_araddr[9:2];
wire       rhigh = (s_axil_araddr >> 10) == 0;
wire [5:0] ridx  = {raddr[7], raddr[5:1]};       // {dir, index}: 0x100.. TX, 0x200.. RX
wire       rcnt  = rhigh && (raddr[7:6] == 2'b01 || raddr[7:6] == 2'b10);
wire       rhi   = raddr[0];
reg [31:0] rword;

always @* begin
    rword = 32'd0;
    if (rhigh) begin
        case ({22'd0, raddr, 2'b00})
            `INC_REG_ID:      rword = `INC_ID_VALUE;
            `INC_REG_VERSION: rword = `INC_VERSION_VALUE;
            `INC_REG_CAPS:    rword = CAPS;
            `INC_REG_SCRATCH: rword = scratch_reg;
            `INC_REG_CTRL:    rword = (cfg_tx_enable ? `INC_CTRL_TX_EN : 32'd0) |
                                      (cfg_rx_enable ? `INC_CTRL_RX_EN : 32'd0);
            `INC_REG_TOS:     rword = {16'd0, cfg_tos_mask, cfg_tos_value};
            `INC_REG_EB:      rword = {25'd0, cfg_eb};
            default:          rword = 32'd0;
        endcase
    end
end

// A read: the address decoded and the counter's low half taken in one
// cycle (rd_pend_reg), its high half in the next: high + carry at the
// first edge is the high half after it, unless a clear zeroed the counters
// at that edge, when the read answers 0 (rword is 0 at counter addresses),
// the value after the clear. Which word answers is decided in the first
// cycle too (rd_sel_reg: the word of rword, the counter's LO, the HI
// latched by the LO read, the counter's HI; the latch does not change
// between the two cycles), so the answer's select reads registers.
localparam [1:0] RD_WORD = 2'd0, RD_LO = 2'd1, RD_HOLD = 2'd2, RD_HI = 2'd3;
reg        rd_pend_reg;
reg        rd_cnt_reg, rd_hi_reg, rd_zero_reg;
reg [1:0]  rd_sel_reg;
reg [5:0]  rd_idx_reg;
reg [31:0] rd_word_reg;
reg [LB-1:0] rd_lo_reg;
wire [63:0] rd_val = {cnt_hi_reg[rd_idx_reg], rd_lo_reg};
wire        rd_hold_hit = hold_valid_reg && hold_idx_reg == ridx;

always @(posedge clk) begin
    s_axil_arready <= 1'b0;
    if (s_axil_rvalid && s_axil_rready) begin
        s_axil_rvalid <= 1'b0;
    end
    rd_pend_reg <= 1'b0;
    if (s_axil_arvalid && !s_axil_arready && !s_axil_rvalid && !rd_pend_reg) begin
        s_axil_arready <= 1'b1;
        rd_pend_reg    <= 1'b1;
        rd_cnt_reg     <= rcnt;
        rd_hi_reg      <= rhi;
        rd_zero_reg    <= clear;
        rd_sel_reg     <= !rcnt ? RD_WORD : (rhi && rd_hold_hit) ? RD_HOLD :
                          clear ? RD_WORD : rhi ? RD_HI : RD_LO;
        rd_idx_reg     <= ridx;
        rd_word_reg    <= rword;
        rd_lo_reg      <= cnt_lo_reg[ridx];
    end
    if (rd_pend_reg) begin
        s_axil_rvalid <= 1'b1;
        case (rd_sel_reg)
            RD_WORD: s_axil_rdata <= rd_word_reg;
            RD_LO:   s_axil_rdata <= rd_val[31:0];
            RD_HOLD: s_axil_rdata <= hold_reg;
            default: s_axil_rdata <= rd_val[63:32];
        endcase
        if (rd_cnt_reg) begin
            if (!rd_hi_reg) begin
                hold_reg       <= rd_zero_reg ? 32'd0 : rd_val[63:32];
                hold_idx_reg   <= rd_idx_reg;
                hold_valid_reg <= 1'b1;
            end else begin
                hold_valid_reg <= 1'b0;
            end
        end
    end
    if (rst) begin
        s_axil_arready <= 1'b0;
        s_axil_rvalid  <= 1'b0;
        rd_pend_reg    <= 1'b0;
        hold_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
