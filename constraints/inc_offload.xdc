# SPDX-License-Identifier: MIT
# inc_offload.xdc - timing constraints of the INCEPTIONN offload insert
# (rtl/inc_offload_top.v) in a VC709 (xc7vx690t) NIC design, for the
# 10GbE datapath clock: 156.25 MHz (6.4 ns). For 250 MHz (4.0 ns) read
# inc_offload_250.xdc instead of this file; everything below the clock is
# shared (inc_offload_common.xdc).
#
# The insert has one clock: the NIC's AXI4-Stream datapath clock, which also
# clocks the AXI4-Lite slave (the CSR block sits behind the DMA engine's
# register crossing). clk is the insert's port; in a full design replace
# get_ports with the clock net of the datapath (e.g. the MAC's tx/rx clock).
create_clock -name inc_clk -period 6.400 [get_ports clk]
source [file join [file dirname [info script]] inc_offload_common.xdc]
