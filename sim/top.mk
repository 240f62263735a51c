# The offload top (TX engine + RX engine + CSR): loopback and CSR tests,
# and build/bin/inc-rtl-pcap. Included from sim/sim.mk after sim/rx.mk.

# The TX engine's sources come from sim/tx.mk (TX_ENGINE_V), so new TX
# modules are picked up; the matcher and the decompress block are already
# in RX_RTL.
TOP_RTL := rtl/inc_offload_top.v rtl/inc_csr.v $(RX_RTL) \
           $(filter-out rtl/inc_regs.vh rtl/inc_lanes.v rtl/inc_lane_split.v rtl/inc_lane_merge.v rtl/inc_tos_matcher.v rtl/inc_csum_csa.v rtl/inc_lsum.vh rtl/inc_fifo.v rtl/inc_ram.v rtl/inc_decompress_block.v,$(TX_ENGINE_V))

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

# The top at DATA_WIDTH 512 (each engine two cores): loopback and CSR.
RX_TB_EXTRA_top_w512 := sim/top_tb.c sim/top_axil.c
RX_VPARAMS_top_w512 := -GDATA_WIDTH=512
$(eval $(call rx_verilate,top_w512,inc_offload_top,$(TOP_RTL),sim/top_shell.cpp))

.PHONY: test-loopback-w512 test-loopback-w512-quick test-loopback-w512-soak test-csr-w512
test-loopback-w512: $(RX_SIMDIR)/top_w512/Vtop_w512
	$< +test=loopback +frames=100000 +seed=$${SEED:-2} +stall=2
test-loopback-w512-quick: $(RX_SIMDIR)/top_w512/Vtop_w512
	$< +test=loopback +frames=8000 +seed=$${SEED:-6} +stall=2
test-csr-w512: $(RX_SIMDIR)/top_w512/Vtop_w512
	$< +test=csr +frames=3000 +seed=$${SEED:-3}
test-loopback-w512-soak: $(RX_SIMDIR)/top_w512/Vtop_w512
	$< +test=loopback +frames=1000000 +seed=$${SEED:-14} +stall=2

# The top with its counters split at bit 17 (inc_csr CNT_LO_BITS; 32 in
# the design): the CSR test then sees the byte counters' low halves carry
# into the high halves.
RX_TB_EXTRA_top_c17 := sim/top_tb.c sim/top_axil.c
RX_VPARAMS_top_c17 := -GCNT_LO_BITS=17
$(eval $(call rx_verilate,top_c17,inc_offload_top,$(TOP_RTL),sim/top_shell.cpp))

.PHONY: test-csr-split17
test-csr-split17: $(RX_SIMDIR)/top_c17/Vtop_c17
	$< +test=csr +frames=3000 +seed=$${SEED:-4}

SIM_TESTS += loopback csr loopback-w512 csr-w512 csr-split17
SIM_SOAK_TESTS += loopback-soak loopback-w512-soak
SUITES_sim += loopback-quick csr loopback-w512-quick csr-w512 csr-split17
DESC_loopback-quick := offload top, TX into RX: 8000 frames with stalls, the model's bytes back
DESC_csr := offload top's CSRs over AXI-Lite: 3000 frames, counters equal the model's counts
DESC_loopback-w512-quick := offload top at 512 bits: 8000 loopback frames
DESC_csr-w512 := offload top at 512 bits: CSRs and counters
DESC_csr-split17 := CSR counters split at bit 17: low halves carry into high halves

# --- build/bin/inc-rtl-pcap: captures through the Verilated top ------------
# The same Verilated top as the tests, with the tool's C main (top_main).
RX_VLIBS_rtl_pcap := -LDFLAGS -lpcap
RX_TB_EXTRA_rtl_pcap := sim/inc-rtl-pcap.c sim/top_axil.c tools/inc_tool.c
$(eval $(call rx_verilate,rtl_pcap,inc_offload_top,$(TOP_RTL),sim/top_shell.cpp))
$(RX_SIMDIR)/rtl_pcap/tblib.a: RX_TB_INC += -Itools

$(BIN)/inc-rtl-pcap: $(RX_SIMDIR)/rtl_pcap/Vrtl_pcap
	@mkdir -p $(@D)
	cp $< $@

# The same tool on the top at DATA_WIDTH 512; inc-rtl-pcap --width 512 runs it.
RX_VLIBS_rtl_pcap_w512 := -LDFLAGS -lpcap
RX_TB_EXTRA_rtl_pcap_w512 := sim/inc-rtl-pcap.c sim/top_axil.c tools/inc_tool.c
RX_VPARAMS_rtl_pcap_w512 := -GDATA_WIDTH=512
$(eval $(call rx_verilate,rtl_pcap_w512,inc_offload_top,$(TOP_RTL),sim/top_shell.cpp))
$(RX_SIMDIR)/rtl_pcap_w512/tblib.a: RX_TB_INC += -Itools -DINC_RTL_WIDTH=512

$(BIN)/inc-rtl-pcap-w512: $(RX_SIMDIR)/rtl_pcap_w512/Vrtl_pcap_w512
	@mkdir -p $(@D)
	cp $< $@

ALL_TARGETS += $(BIN)/inc-rtl-pcap $(BIN)/inc-rtl-pcap-w512

.PHONY: test-rtl-pcap
test-rtl-pcap: $(BIN)/inc-rtl-pcap $(BIN)/inc-rtl-pcap-w512 $(BIN)/inc-pcap $(BUILD)/tests/padded
	@sim/top_rtl_pcap_test.sh

SIM_TESTS += rtl-pcap
SUITES_sim += rtl-pcap
DESC_rtl-pcap := inc-rtl-pcap (Verilated top) writes inc-pcap's bytes on every capture, flips and padding

# --- nic-switch-rtl: the user-space NIC switch with RTL NICs ----------------
# cluster/nic_switch.c built with -DINC_NIC_RTL against the Verilated
# top (sim/rtl_nic_shell.cpp: one model instance per port; sim/rtl_nic.c).
RX_TB_EXTRA_nic_switch := cluster/nic_switch.c sim/rtl_nic.c sim/top_axil.c
$(eval $(call rx_verilate,nic_switch,inc_offload_top,$(TOP_RTL),sim/rtl_nic_shell.cpp))
$(RX_SIMDIR)/nic_switch/tblib.a: RX_TB_INC += -DINC_NIC_RTL

$(BUILD)/userlib-test/nic-switch-rtl: $(RX_SIMDIR)/nic_switch/Vnic_switch
	@mkdir -p $(@D)
	cp $< $@

.PHONY: nic-switch-rtl test-userlib-nicemu-rtl
nic-switch-rtl: $(BUILD)/userlib-test/nic-switch-rtl
ALL_TARGETS += $(BUILD)/userlib-test/nic-switch-rtl

# --- power-up: random initial state, reset held ----------------------------
# $(call inc_powerup,DIR,VERILATOR_PARAMS)
define inc_powerup
$(1)/Vpowerup: $(TOP_RTL) sim/powerup_tb.cpp
	@mkdir -p $$(@D)
	$(call inc_verilator,$(1),Vpowerup,inc_offload_top,-j $(VERILATOR_JOBS) --x-initial unique --x-assign unique $(2) --prefix Vpowerup \
		-CFLAGS "-O1" -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1",\
		$(filter %.v,$(TOP_RTL)) $(CURDIR)/sim/powerup_tb.cpp,$(1)/build.log)
endef
POWERUP_DIR := $(BUILD)/sim/powerup
$(eval $(call inc_powerup,$(POWERUP_DIR),))
$(eval $(call inc_powerup,$(POWERUP_DIR)_w512,-GDATA_WIDTH=512))

.PHONY: test-powerup test-powerup-w512
test-powerup: $(POWERUP_DIR)/Vpowerup
	$< +seeds=$${SEEDS:-300}
test-powerup-w512: $(POWERUP_DIR)_w512/Vpowerup
	$< +seeds=$${SEEDS:-100}

SIM_TESTS += powerup powerup-w512
SUITES_sim += powerup powerup-w512
DESC_powerup := offload top from a random power-up state (300 seeds): every output valid low while reset is held
DESC_powerup-w512 := the same at 512 bits (100 seeds)
