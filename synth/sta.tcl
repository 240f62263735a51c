# OpenSTA run of make synth (synth/synth.sh): the Yosys-mapped netlist of
# one top against the Liberty library generated from the delay table
# (synth/xc7-liberty.py) and the clock of constraints/ (the SDC that
# synth/synth.sh derives from inc_offload_250.xdc and
# inc_offload_common.xdc). The insert's ports face registers of the NIC
# design: inputs arrive at the clock edge, outputs are required at the next
# one (synth/timing.py's start and end points). Reports the worst path
# with its nets, the ten worst end points, WNS and TNS.
# Environment: STA_LIB, STA_NETLIST, STA_TOP, STA_SDC.
read_liberty $::env(STA_LIB)
read_verilog $::env(STA_NETLIST)
link_design $::env(STA_TOP)
read_sdc $::env(STA_SDC)
set sta_clk [lindex [all_clocks] 0]
set sta_ins {}
foreach p [all_inputs] {
	if {[get_full_name $p] ne "clk"} { lappend sta_ins $p }
}
if {[llength $sta_ins]} { set_input_delay 0 -clock $sta_clk $sta_ins }
if {[llength [all_outputs]]} { set_output_delay 0 -clock $sta_clk [all_outputs] }
puts "== worst path"
report_checks -path_delay max -digits 3 -fields {net}
puts "== worst end points"
report_checks -path_delay max -group_count 10 -endpoint_count 1 -format end -digits 3
puts "== totals"
report_wns
report_tns
