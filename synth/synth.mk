# synth/ - make synth: Yosys synth_xilinx (xc7) and OpenSTA, one job per top,
# and the clock estimate's unit test (synth/tests/timing-test.py).
#
# Per top: cell counts, the longest path in cells and the clock estimate
# (OpenSTA on the mapped netlist with the Liberty library generated from
# synth/xc7-2-delays.txt, the clock of constraints/, cross-checked against
# synth/timing.py), kept in $(BUILD)/synth/TOP.*. The tops are independent
# jobs (make -j2 synth runs two at a time); a top that fails leaves the
# others' results, and the summary prints every top that finished, its
# runtime and its limiting paths, then names the ones that did not (exit 1).
# make synth TOPS="inc_offload_top inc_decompress_engine@512" picks tops
# (@512: DATA_WIDTH 512). A top is synthesised again when its inputs change.
# About 5 to 60 minutes per top on one core (docs/rtl.md, "Clock estimate").
SYNTH_TOPS := inc_compress_engine inc_decompress_engine inc_offload_top \
              inc_compress_engine@512 inc_decompress_engine@512 inc_offload_top@512
TOPS ?= $(SYNTH_TOPS)
SYNTH_DIR := $(BUILD)/synth
synth_name = $(if $(filter %@512,$(1)),$(patsubst %@512,%,$(1))_w512,$(1))
SYNTH_INPUTS := $(wildcard rtl/*.v rtl/*.vh) synth/xc7.ys synth/sta.tcl synth/xc7-2-delays.txt \
                constraints/inc_offload_250.xdc constraints/inc_offload_common.xdc \
                synth/synth.sh synth/xc7-liberty.py synth/sta-report.py synth/timing.py
define inc_synth_top
$(SYNTH_DIR)/$(call synth_name,$(1)).result: $(SYNTH_INPUTS) | deps
	-@SYNTH_OUT=$(SYNTH_DIR) synth/synth.sh $(1)
endef
$(foreach t,$(TOPS),$(eval $(call inc_synth_top,$(t))))

.PHONY: synth
synth: $(foreach t,$(TOPS),$(SYNTH_DIR)/$(call synth_name,$(t)).result)
	@SYNTH_OUT=$(SYNTH_DIR) synth/synth.sh --summary $(TOPS)

# The clock estimate's own unit test (hand-made netlists; no Yosys run).
.PHONY: test-synth-timing
test-synth-timing:
	@synth/tests/timing-test.py
SUITES_synth += synth-timing
DESC_synth-timing := the clock estimate (synth/timing.py) on hand-made netlists; no Yosys run
