# simulate/ - inc-sim, the cluster simulated on SimGrid (simulate/README.md).
SIMGRID_CFLAGS = $(CFLAGS_COMMON) $(CFLAGS) $(shell pkg-config --cflags simgrid jansson 2>/dev/null)
SIMGRID_LIBS   = $(shell pkg-config --libs simgrid jansson 2>/dev/null || echo -lsimgrid -ljansson) -lm

ALL_TARGETS += $(BIN)/inc-sim
$(BIN)/inc-sim: simulate/inc_sim.c
	@mkdir -p $(dir $@)
	$(CC) $(SIMGRID_CFLAGS) -o $@ $< $(SIMGRID_LIBS)

# The quick validation (seconds): ring vs the alpha-beta formula, WA linear
# in p, ring flat, nic and software codecs, topologies, an inc-train log.
TEST_SUITES += simulate
DESC_simulate := inc-sim: ring within 10 % of alpha-beta at 16 workers, WA linear in p, ring flat, codecs, fat tree, logs
.PHONY: test-simulate
test-simulate: $(BIN)/inc-sim
	@simulate/tests/simulate-check.sh

# The study: projections and plots for docs/results.md (minutes).
.PHONY: simulate
simulate: $(BIN)/inc-sim $(BIN)/inc-bench
	@simulate/study.sh
