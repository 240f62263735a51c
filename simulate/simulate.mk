# simulate/ - inc-sim, the cluster simulated on SimGrid (simulate/README.md).
SIM_CFLAGS = $(CFLAGS_COMMON) $(CFLAGS) $(shell pkg-config --cflags simgrid jansson 2>/dev/null)
SIM_LIBS   = $(shell pkg-config --libs simgrid jansson 2>/dev/null || echo -lsimgrid -ljansson) -lm

ALL_TARGETS += $(BIN)/inc-sim
$(BIN)/inc-sim: simulate/inc_sim.c
	@mkdir -p $(dir $@)
	$(CC) $(SIM_CFLAGS) -o $@ $< $(SIM_LIBS)
