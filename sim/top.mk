# The offload top (TX engine + RX engine + CSR): loopback and CSR tests,
# and build/bin/inc-rtl-pcap. Included from sim/sim.mk after sim/rx.mk.

TOP_RTL := rtl/inc_offload_top.v rtl/inc_csr.v $(RX_RTL) rtl/inc_compress_engine.v \
           rtl/inc_tos_matcher.v rtl/inc_compress_block.v rtl/inc_compress_unit.v rtl/inc_align_unit.v

RX_TB_EXTRA_top := sim/top_tb.c sim/top_axil.c
$(eval $(call rx_verilate,top,inc_offload_top,$(TOP_RTL),sim/top_shell.cpp))

.PHONY: test-loopback test-loopback-quick test-loopback-soak test-csr
test-loopback: $(RX_SIMDIR)/top/Vtop
	$< +test=loopback +frames=100000 +seed=$${SEED:-1} +stall=2
test-loopback-quick: $(RX_SIMDIR)/top/Vtop
	$< +test=loopback +frames=8000 +seed=$${SEED:-5} +stall=2
test-loopback-soak: $(RX_SIMDIR)/top/Vtop
	$< +test=loopback +frames=1000000 +seed=$${SEED:-13} +stall=2
test-csr: $(RX_SIMDIR)/top/Vtop
	$< +test=csr +frames=3000 +seed=$${SEED:-2}

SIM_TESTS += loopback csr
SIM_SOAK_TESTS += loopback-soak
TEST_SUITES += loopback-quick csr
