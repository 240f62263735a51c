# SPDX-License-Identifier: MIT
# inc_offload_common.xdc - constraints shared by both clock targets
# (sourced by inc_offload.xdc and inc_offload_250.xdc after create_clock).

# --- Reset ----------------------------------------------------------------
# rst is synchronous and active high inside the insert (every engine and the
# CSR sample it on clk). The design it is inserted into must deliver it from
# a reset synchroniser clocked by inc_clk (asynchronous assert, synchronous
# deassert, e.g. the xpm_cdc_async_rst macro or two flip-flops); then it is
# an ordinary synchronous path and needs no exception. When rst comes
# straight from a pin or another clock domain instead, it is not timed:
set_false_path -from [get_ports rst]

# --- CSR counter read path -------------------------------------------------
# No multicycle or false path fits here, and none is given on purpose: the
# counters (csr/cnt_lo_reg*, cnt_c_reg*, cnt_hi_reg*: each a low half, its
# carry not yet added, a high half) can change in every cycle (one
# statistics pulse per frame and direction). A read takes a counter's low
# half in one cycle and its high half in the next, when the counter has
# added its pending carry into it (rvalid follows), so the value read is the
# counter's at one clock edge; a relaxed path could capture a half-updated
# counter (old low bits, new carry), so the increment and read paths are
# single-cycle.
# The LO-then-HI latching (inc_regs.h) makes the 64-bit value consistent
# across the two 32-bit reads.
#
# The configuration registers (csr/cfg_*) are likewise single-cycle paths:
# the engines sample them at the start of a frame, and a multicycle path
# could hand one frame a mix of old and new bits.
