# SPDX-License-Identifier: MIT
# inc_offload_250.xdc - the 250 MHz (4.0 ns) variant of inc_offload.xdc
# (a 256-bit datapath at 250 MHz carries 64 Gbit/s: 40GbE with headroom).
create_clock -name inc_clk -period 4.000 [get_ports clk]
source [file join [file dirname [info script]] inc_offload_common.xdc]
