# INCEPTIONN top-level build. `make` builds the libraries and tools,
# `make test` runs every test and ends with "N passed, N failed",
# `make demo` runs the main job. Each part adds its rules through a
# fragment included below (sw-model/model.mk, tools/tools.mk, ...).

BUILD    ?= build
BIN      := $(BUILD)/bin
LIB      := $(BUILD)/lib
OBJ      := $(BUILD)/obj

CC       ?= cc
CLANG    ?= clang
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g
CFLAGS   ?= -O2
ALL_CFLAGS = $(CFLAGS_COMMON) $(CFLAGS) -Isw-model/include
# Sanitizer flavour of everything a test links (build/asan/...).
SAN_FLAGS := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined

# Parts append to these.
ALL_TARGETS  :=
TEST_SUITES  :=
BENCH_TARGETS :=

.PHONY: all deps deps-demo print-demo-targets test demo demo-capture bench fuzz clean help
all: all-targets

include sw-model/model.mk
-include tools/tools.mk
-include tests/tests.mk
-include userlib/userlib.mk
-include sim/sim.mk
-include driver/driver.mk
-include train/train.mk
-include python/python.mk

.PHONY: all-targets
all-targets: $(ALL_TARGETS)

deps:
	@scripts/deps.sh

deps-demo:
	@scripts/deps.sh demo

# Each suite is a phony target test-<name> whose last output line is
# "N passed, N failed"; scripts/run-tests.sh runs them and sums.
test: deps
	@$(MAKE) --no-print-directory all
	@scripts/run-tests.sh $(TEST_SUITES)

# make demo's package list covers what the demo's build compiles and links.
TEST_SUITES += deps
.PHONY: test-deps
test-deps:
	@scripts/deps-check.sh

# The main job: distributed training on the emulated cluster (train/).
# It installs and builds only what it uses (no Verilator, no kernel module).
DEMO_TARGETS = $(LIB)/libincmodel.a $(LIB)/libinceptionn.a $(LIB)/libinceptionn.so \
	       $(LIB)/libinctrain.a $(BIN)/inc-train $(BIN)/inc-run $(BUILD)/userlib-test/nic-switch
print-demo-targets:
	@echo $(DEMO_TARGETS)
demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory $(DEMO_TARGETS)
	@scripts/train-demo.sh

# Real tagged TCP traffic between two namespaces through the codec.
demo-capture: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo-capture.sh

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_TARGETS) bench-run

clean:
	rm -rf $(BUILD)

help:
	@echo "make          build libraries and tools into $(BUILD)/"
	@echo "make deps     install missing Debian packages (root; make deps-demo: only the demo's)"
	@echo "make test     build everything and run all tests"
	@echo "make demo     train HDC on 4 emulated nodes: WA, INC, WA+C, INC+C (build/demo/; builds only what it needs)"
	@echo "make demo-capture  real tagged TCP traffic through the codec"
	@echo "make reproduce     the paper's experiments at full length (long)"
	@echo "make accuracy      equal accuracy over the whole schedule, with and without error feedback (long)"
	@echo "make time-to-accuracy  time to INC's final accuracy - 0.3 on the emulated cluster (root; uses make accuracy's HDC logs)"
	@echo "make schedules     sync / wfbp / bucket / mgwfbp / gossip on the emulated cluster (long)"
	@echo "make codecs        every codec side by side on the emulated cluster (long)"
	@echo "make bench    codec throughput next to memcpy"
	@echo "make fuzz     longer libFuzzer runs"
	@echo "make sim      full RTL regression (make sim-soak: 10^6 frames)"
	@echo "make synth    Yosys synth_xilinx + OpenSTA per top (-j2; TOPS=\"inc_offload_top@512 ...\")"
	@echo "make driver   build the kernel module"
	@echo "make install PREFIX=DIR   install libinceptionn, headers, pkg-config file, Python package"
