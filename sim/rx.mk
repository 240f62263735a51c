# Receive side of the RTL: register map, decompress engine and its unit
# tests. Included from sim/sim.mk.

# --- register map: committed generated files equal a fresh generation -----
.PHONY: test-regmap
test-regmap:
	@rm -rf $(BUILD)/regmap && mkdir -p $(BUILD)/regmap
	@scripts/gen-regs.sh $(BUILD)/regmap
	@p=0; f=0; \
	for x in rtl/inc_regs.vh:inc_regs.vh docs/registers.md:registers.md; do \
		if cmp -s $${x%%:*} $(BUILD)/regmap/$${x##*:}; then p=$$((p+1)); \
		else echo "FAIL $${x%%:*} differs from a fresh generation (run scripts/gen-regs.sh)"; f=$$((f+1)); fi; \
	done; \
	printf '#include "inc_regs.h"\n#include "inc_model.h"\n_Static_assert(INC_CNT_OUTCOMES == INC_OUT_COUNT, "outcomes");\n_Static_assert(INC_CNT_REASONS == INC_R_COUNT, "reasons");\n_Static_assert(INC_REG_CNT_BYTES_OUT(INC_REG_TX_BASE) + 8 <= INC_REG_RX_BASE, "overlap");\n_Static_assert(INC_REG_CNT_REASON(0, INC_R_COUNT) <= INC_CNT_BYTES_IN_OFF, "reasons fit");\n' > $(BUILD)/regmap/check.c; \
	if $(CC) $(ALL_CFLAGS) -ffreestanding -fsyntax-only $(BUILD)/regmap/check.c; then p=$$((p+1)); \
	else echo "FAIL inc_regs.h does not agree with inc_model.h"; f=$$((f+1)); fi; \
	echo "$$p passed, $$f failed"; [ $$f -eq 0 ]

SUITES_sim += regmap
DESC_regmap := rtl/inc_regs.vh and docs/registers.md equal a fresh scripts/gen-regs.sh; header agrees with the model

# --- Verilator testbenches ------------------------------------------------
RX_SIMDIR := $(BUILD)/sim
# The decompress engine and the modules it instantiates.
RX_RTL := rtl/inc_decompress_engine.v rtl/inc_decompress_core.v rtl/inc_lanes.v rtl/inc_lane_split.v rtl/inc_lane_merge.v rtl/inc_tos_matcher.v rtl/inc_csum_csa.v rtl/inc_fifo.v rtl/inc_decompress_packer.v \
          rtl/inc_decompress_unit.v rtl/inc_decompress_block.v rtl/inc_group_walker.v rtl/inc_ram.v rtl/inc_regs.vh rtl/inc_lsum.vh
RX_TB_INC := -Isw-model/include -Itests/common -Isim/common -Isim
# Test logic in C (model, frame generator, shared plumbing), as an archive
# linked into the Verilated executable.
RX_TB_CSRCS := $(MODEL_SRCS) tests/common/inc_framegen.c sim/common/inc_axis.c \
               sim/common/inc_simutil.c sim/common/inc_pcap.c sim/common/inc_scoreboard.c \
               tests/common/inc_integrity.c
RX_VFLAGS := -j $(VERILATOR_JOBS) --trace-fst \
             -CFLAGS "-O1 -I$(CURDIR)/sim -I$(CURDIR)/sim/common -I$(CURDIR)/sw-model/include" \
             -MAKEFLAGS "OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1"

$(RX_SIMDIR)/%/tblib.a:
	@mkdir -p $(@D)/cobj
	@rm -f $@ $(@D)/cobj/*.o
	@for s in $(RX_TB_CSRCS) $(RX_TB_EXTRA_$*); do \
		o=$(@D)/cobj/$$(basename $$s .c).o; \
		$(CC) $(ALL_CFLAGS) $(RX_TB_INC) -c $$s -o $$o || exit 1; \
	done
	@ar rcs $@ $(@D)/cobj/*.o

# $(call rx_verilate,NAME,TOP,VERILOG,SHELL_CPP): $(RX_SIMDIR)/NAME/VNAME
define rx_verilate
$(RX_SIMDIR)/$(1)/V$(1): $(RX_SIMDIR)/$(1)/tblib.a $(3) $(4) sim/common/inc_vshell.h
	@rm -f $$@
	$(call inc_verilator,$(RX_SIMDIR)/$(1),V$(1),$(2),$$(RX_VFLAGS) $(RX_VPARAMS_$(1)),\
		$(filter %.v,$(3)) $(abspath $(4)) $(abspath $(RX_SIMDIR)/$(1)/tblib.a) $(RX_VLIBS_$(1)),\
		$(RX_SIMDIR)/$(1)/build.log)
$(RX_SIMDIR)/$(1)/tblib.a: $(RX_TB_CSRCS) $(RX_TB_EXTRA_$(1)) $(wildcard sim/*.h) $(MODEL_HDRS) \
                           $(wildcard sim/common/*.h) tests/common/inc_framegen.h tests/common/inc_integrity.h
endef

RX_TB_EXTRA_rx_engine := sim/rx_engine_tb.c
$(eval $(call rx_verilate,rx_engine,inc_decompress_engine,$(RX_RTL),sim/rx_engine_shell.cpp))

# The same testbench on the engine built at DATA_WIDTH 512 (two cores).
RX_TB_EXTRA_rx_engine_w512 := sim/rx_engine_tb.c
RX_VPARAMS_rx_engine_w512 := -GDATA_WIDTH=512
$(eval $(call rx_verilate,rx_engine_w512,inc_decompress_engine,$(RX_RTL),sim/rx_engine_shell.cpp))

RX_FIXTURES := $(wildcard tests/fixtures/*.pcap)
RX_PCAP_ARG := $(if $(RX_FIXTURES),+pcap=tests/fixtures)

.PHONY: test-rx-engine test-rx-engine-quick test-rx-engine-soak test-rx-reset test-rx-flips test-rx-flips-all
test-rx-engine: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +frames=100000 +seed=$${SEED:-1} +stall=2 $(RX_PCAP_ARG)
test-rx-engine-quick: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +frames=12000 +seed=$${SEED:-7} +stall=2 $(RX_PCAP_ARG)
test-rx-reset: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +frames=6000 +seed=$${SEED:-3} +stall=2 +resets=40
test-rx-engine-soak: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +frames=1000000 +seed=$${SEED:-11} +stall=2 +resets=20 $(RX_PCAP_ARG)
# Format v2 integrity on the RTL: every bit flip of compressed capture
# frames (4 frames in make test, all kept frames in make sim-soak).
test-rx-flips: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +seed=$${SEED:-5} +flips=tests/fixtures +flipframes=4
test-rx-flips-all: $(RX_SIMDIR)/rx_engine/Vrx_engine
	$< +seed=$${SEED:-5} +flips=tests/fixtures

# DATA_WIDTH 512: random frames and captures with stalls, resets, and the
# bit flips of the capture frames
.PHONY: test-rx-engine-w512 test-rx-engine-w512-quick test-rx-engine-w512-soak
.PHONY: test-rx-reset-w512 test-rx-flips-w512
test-rx-engine-w512: $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	$< +frames=100000 +seed=$${SEED:-2} +stall=2 $(RX_PCAP_ARG)
test-rx-engine-w512-quick: $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	$< +frames=12000 +seed=$${SEED:-8} +stall=2 $(RX_PCAP_ARG)
test-rx-reset-w512: $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	$< +frames=6000 +seed=$${SEED:-9} +stall=2 +resets=40
test-rx-flips-w512: $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	$< +seed=$${SEED:-6} +flips=tests/fixtures +flipframes=4
test-rx-engine-w512-soak: $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	$< +frames=1000000 +seed=$${SEED:-12} +stall=2 +resets=20 $(RX_PCAP_ARG)

SIM_TESTS += regmap rx-engine rx-reset rx-flips rx-engine-w512 rx-reset-w512 rx-flips-w512
SIM_SOAK_TESTS += rx-engine-soak rx-flips-all rx-engine-w512-soak
SUITES_sim += rx-engine-quick rx-reset rx-flips rx-engine-w512-quick rx-reset-w512 rx-flips-w512
DESC_rx-engine-quick := decompress engine (256 bits): 12k random frames and the captures, stalls, vs the model
DESC_rx-reset := decompress engine: 6k frames with 40 resets mid-stream
DESC_rx-flips := decompress engine: every bit flip of 4 compressed capture frames, classified as the model does
DESC_rx-engine-w512-quick := decompress engine at 512 bits: 12k random frames and the captures, stalls
DESC_rx-reset-w512 := decompress engine at 512 bits: 6k frames with 40 resets
DESC_rx-flips-w512 := decompress engine at 512 bits: every bit flip of 4 compressed capture frames

# --- unit tests: decompress block, burst buffer + decompress unit ----------
RX_UNITS_V := sim/rx_units_top.v rtl/inc_lsum.vh rtl/inc_decompress_block.v rtl/inc_burst_buffer.v \
              rtl/inc_decompress_unit.v
RX_TB_EXTRA_rx_units := sim/rx_units_tb.c
$(eval $(call rx_verilate,rx_units,rx_units_top,$(RX_UNITS_V),sim/rx_units_shell.cpp))
# The same harness with the burst buffer taking one beat per transfer (the
# paper's two-beat buffer; the engine uses two-beat transfers).
RX_TB_EXTRA_rx_units1 := sim/rx_units_tb.c
RX_VPARAMS_rx_units1 := -GIN_BEATS=1
$(eval $(call rx_verilate,rx_units1,rx_units_top,$(RX_UNITS_V),sim/rx_units_shell.cpp))

.PHONY: test-rx-units test-rx-units-1beat
test-rx-units: $(RX_SIMDIR)/rx_units/Vrx_units
	$< +streams=$${STREAMS:-3000} +seed=$${SEED:-1}
test-rx-units-1beat: $(RX_SIMDIR)/rx_units1/Vrx_units1
	$< +streams=$${STREAMS:-1000} +seed=$${SEED:-4}

SIM_TESTS += rx-units rx-units-1beat
SUITES_sim += rx-units rx-units-1beat
DESC_rx-units := decompress block, burst buffer and decompress unit: 3000 streams vs the model
DESC_rx-units-1beat := the same with a one-beat burst buffer (the paper's): 1000 streams

# --- Icarus smoke bench of the decompress engine ---------------------------
# The bench, the generator and the rules are shared with the transmit side
# (inc_icarus in sim/tx.mk).
$(eval $(call inc_icarus,rx,$(RX_RTL)))

SIM_TESTS += rx-icarus
SUITES_sim += rx-icarus
DESC_rx-icarus := decompress engine under Icarus Verilog (-g2005): the smoke bench

# --- throughput of the decompress engine (benchmark, prints figures) -------
# Back-to-back frames, no stalls: input and output beats per cycle for
# all-zero-class, Table III-like and incompressible payloads (MTU and jumbo),
# 64-byte frames and bypass traffic.
RX_BENCH_LOADS := zero table3 incompressible small frame64 bypass zero-jumbo table3-jumbo incompressible-jumbo
.PHONY: sim-bench-rx
sim-bench-rx: $(RX_SIMDIR)/rx_engine/Vrx_engine $(RX_SIMDIR)/rx_engine_w512/Vrx_engine_w512
	@for w in rx_engine/Vrx_engine rx_engine_w512/Vrx_engine_w512; do \
		echo "DATA_WIDTH $$(case $$w in *w512*) echo 512;; *) echo 256;; esac):"; \
		for l in $(RX_BENCH_LOADS); do $(RX_SIMDIR)/$$w +bench=$$l +frames=$${FRAMES:-2000} | head -n 1; done; \
	done

BENCH_TARGETS += sim-bench-rx
