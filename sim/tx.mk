# Transmit side of the RTL: the ToS matcher, the compress engine and its
# units; the common testbench plumbing (sim/common) and the RTL lint.
# Included from sim/sim.mk.
#
#   make test-rtl-lint     verilator --lint-only -Wall and iverilog -g2005 -Wall on rtl/*.v
#   make test-tx-units     matcher, compress block/unit, align unit vs the model
#
# Verilator builds go to $(BUILD)/sim/<name>/.

SIM_BUILD := $(BUILD)/sim
VERILATOR_FLAGS ?= -O3 --x-assign fast --x-initial fast --noassert

# --- common testbench plumbing: $(SIM_COMMON_LIB) --------------------------
# AXI-stream source/sink, pcap reader/writer, compare/dump helpers, plus the
# frame generator of tests/common. Link it into any Verilator testbench.
SIM_COMMON_SRCS := $(filter-out sim/common/inc_icarus_gen.c,$(wildcard sim/common/*.c)) \
	tests/common/inc_framegen.c
SIM_COMMON_HDRS := $(wildcard sim/common/*.h) tests/common/inc_framegen.h \
	tests/common/inc_test.h $(MODEL_HDRS)
SIM_CFLAGS = $(ALL_CFLAGS) -Isim/common -Itests/common -Isim
SIM_COMMON_OBJS := $(patsubst %.c,$(SIM_BUILD)/obj/%.o,$(SIM_COMMON_SRCS))
SIM_COMMON_LIB := $(SIM_BUILD)/common/libincsim.a

$(SIM_BUILD)/obj/%.o: %.c $(SIM_COMMON_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) -c $< -o $@

$(SIM_COMMON_LIB): $(SIM_COMMON_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# $(call inc_verilate,NAME,TOP,VERILOG_SOURCES,SHELL_CPP,C_OBJECTS)
# builds $(SIM_BUILD)/NAME/VTOP: the Verilated TOP with --trace-fst, the
# C++ shell and the C objects, linked with $(SIM_COMMON_LIB) and the model.
# VPARAMS_NAME adds Verilator options (parameters: -GDATA_WIDTH=512).
define inc_verilate
$(SIM_BUILD)/$(1)/V$(2): $(3) $(4) $(5) $(SIM_COMMON_LIB) $(LIB)/libincmodel.a sim/common/inc_vshell.h
	@mkdir -p $(SIM_BUILD)/$(1) && rm -f $$@
	$(call inc_verilator,$(SIM_BUILD)/$(1),V$(2),$(2),-j $(VERILATOR_JOBS) --trace-fst $(VERILATOR_FLAGS) $(VPARAMS_$(1)) \
		-CFLAGS "-O2 -I$(abspath sim/common) -I$(abspath sim) -I$(abspath tests/common) -I$(abspath sw-model/include)",\
		$(filter %.v,$(3)) $(abspath $(4)) $(abspath $(5)) $(abspath $(SIM_COMMON_LIB)) $(abspath $(LIB)/libincmodel.a),\
		$(SIM_BUILD)/$(1).build.log)
endef

RTL_SRCS := $(wildcard rtl/*.v)

# --- lint -------------------------------------------------------------------
.PHONY: test-rtl-lint
test-rtl-lint:
	@rtl/tests/lint-rtl.sh

# --- unit tests -------------------------------------------------------------
TX_UNITS_V := sim/tx_units_top.v rtl/inc_tos_matcher.v rtl/inc_csum_csa.v rtl/inc_lsum.vh rtl/inc_compress_block.v \
	rtl/inc_compress_unit.v rtl/inc_group_pack.v rtl/inc_align_unit.v rtl/inc_fifo.v rtl/inc_ram.v
$(eval $(call inc_verilate,tx_units,tx_units_top,$(TX_UNITS_V),sim/tx_units_shell.cpp,$(SIM_BUILD)/obj/sim/tx_units_tb.o))

.PHONY: test-tx-units
test-tx-units: $(SIM_BUILD)/tx_units/Vtx_units_top
	@$< $(TX_UNITS_ARGS)

SIM_TESTS += rtl-lint tx-units
SUITES_sim += rtl-lint tx-units
DESC_rtl-lint := verilator --lint-only -Wall and iverilog -g2005 -Wall on every rtl/*.v (rtl/tests/lint-rtl.sh)
DESC_tx-units := ToS matcher, compress block/unit, align unit against the model

# --- compress engine ----------------------------------------------------------
TX_ENGINE_V := rtl/inc_compress_engine.v rtl/inc_compress_core.v rtl/inc_lanes.v rtl/inc_lane_split.v rtl/inc_lane_merge.v rtl/inc_regs.vh rtl/inc_tos_matcher.v rtl/inc_csum_csa.v rtl/inc_lsum.vh rtl/inc_compress_block.v \
	rtl/inc_decompress_block.v rtl/inc_compress_unit.v rtl/inc_group_pack.v rtl/inc_align_unit.v rtl/inc_fifo.v rtl/inc_ram.v
TX_ENGINE_BIN := $(SIM_BUILD)/tx_engine/Vinc_compress_engine
$(eval $(call inc_verilate,tx_engine,inc_compress_engine,$(TX_ENGINE_V),sim/tx_engine_shell.cpp,$(SIM_BUILD)/obj/sim/tx_engine_tb.o))

# The same testbench on the engine built at DATA_WIDTH 512 (two cores).
TX_ENGINE512_BIN := $(SIM_BUILD)/tx_engine_w512/Vinc_compress_engine
VPARAMS_tx_engine_w512 := -GDATA_WIDTH=512
$(eval $(call inc_verilate,tx_engine_w512,inc_compress_engine,$(TX_ENGINE_V),sim/tx_engine_shell.cpp,$(SIM_BUILD)/obj/sim/tx_engine_tb.o))

# make sim: 2 x 50k random frames (no stalls; gaps + backpressure + resets)
# plus the captures; make test: 2 x 10k; make sim-soak: 2 x 500k.
.PHONY: test-tx-engine test-tx-engine-quick test-tx-engine-soak sim-bench
test-tx-engine: $(TX_ENGINE_BIN)
	@$< +frames=50000 $(TX_ENGINE_ARGS)
test-tx-engine-quick: $(TX_ENGINE_BIN)
	@$< +frames=10000 +seed=3 $(TX_ENGINE_ARGS)
test-tx-engine-soak: $(TX_ENGINE_BIN)
	@$< +frames=500000 +seed=11 $(TX_ENGINE_ARGS)
sim-bench: $(TX_ENGINE_BIN) $(TX_ENGINE512_BIN)
	@echo "DATA_WIDTH 256:" && $(TX_ENGINE_BIN) +bench
	@echo "DATA_WIDTH 512:" && $(TX_ENGINE512_BIN) +bench


.PHONY: test-tx-engine-w512 test-tx-engine-w512-quick test-tx-engine-w512-soak
test-tx-engine-w512: $(TX_ENGINE512_BIN)
	@$< +frames=50000 +seed=2 $(TX_ENGINE_ARGS)
test-tx-engine-w512-quick: $(TX_ENGINE512_BIN)
	@$< +frames=10000 +seed=4 $(TX_ENGINE_ARGS)
test-tx-engine-w512-soak: $(TX_ENGINE512_BIN)
	@$< +frames=500000 +seed=12 $(TX_ENGINE_ARGS)

SIM_TESTS += tx-engine tx-engine-w512
SIM_SOAK_TESTS += tx-engine-soak tx-engine-w512-soak
SUITES_sim += tx-engine-quick tx-engine-w512-quick
DESC_tx-engine-quick := compress engine (256 bits): 10k random frames, gaps, backpressure, resets, vs the model
DESC_tx-engine-w512-quick := compress engine at 512 bits: 10k random frames

# --- Icarus smoke bench -------------------------------------------------------
# One bench (sim/common/inc_icarus_tb.v) and one stimulus generator
# (sim/common/inc_icarus_gen.c, argument tx or rx) serve both engines;
# sim/rx.mk calls inc_icarus for the receive side.
INC_ICARUS_GEN := $(SIM_BUILD)/icarus_gen
$(INC_ICARUS_GEN): sim/common/inc_icarus_gen.c $(SIM_COMMON_LIB) $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(SIM_CFLAGS) $< $(SIM_COMMON_LIB) $(LIB)/libincmodel.a -o $@

# $(call inc_icarus,SIDE,RTL): test-SIDE-icarus (SIDE tx or rx) runs the bench
# on the SIDE engine (sources RTL) in $(SIM_BUILD)/SIDE_icarus.
define inc_icarus
$(SIM_BUILD)/$(1)_icarus/exp.hex: $(INC_ICARUS_GEN)
	@mkdir -p $$(@D)
	cd $$(@D) && $(abspath $(INC_ICARUS_GEN)) $(1) 2>gen.log

$(SIM_BUILD)/$(1)_icarus/tb.vvp: sim/common/inc_icarus_tb.v $(2)
	@mkdir -p $$(@D)
	iverilog -g2005 -Wall -Irtl -y rtl -s inc_icarus_tb \
		-P inc_icarus_tb.RX=$(if $(filter rx,$(1)),1,0) -o $$@ $$<

.PHONY: test-$(1)-icarus
test-$(1)-icarus: $(SIM_BUILD)/$(1)_icarus/tb.vvp $(SIM_BUILD)/$(1)_icarus/exp.hex
	@cd $(SIM_BUILD)/$(1)_icarus && vvp -n tb.vvp | grep -v 'VCD\|readmem'
endef

$(eval $(call inc_icarus,tx,$(TX_ENGINE_V)))

SIM_TESTS += tx-icarus
SUITES_sim += tx-icarus
DESC_tx-icarus := compress engine under Icarus Verilog (-g2005): the smoke bench

BENCH_TARGETS += sim-bench
