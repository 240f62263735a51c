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

# Parts append to these. A part's test suites go to SUITES_<part> (one
# make target test-<name> each, whose last output line is "N passed,
# N failed"), each with a one-line DESC_<name> beside its rule; `make
# test-<part>` runs them, `make test` runs all, `make help` lists them.
# BENCH_TARGETS are built (or, when phony, run) before BENCH_RUNS, which
# `make bench` runs one after another. TEST_PAIRED: suites that use one
# core and share no output file; make test runs those side by side, one
# per core (scripts/run-tests.sh builds their prerequisites first, with
# one make).
ALL_TARGETS  :=
TEST_SUITES  :=
TEST_PAIRED  :=
BENCH_TARGETS :=
BENCH_RUNS   :=
PARTS := model tools userlib train python driver sim synth project

.PHONY: all deps deps-demo print-demo-targets test demo demo-capture bench fuzz clean help
all: all-targets

include sw-model/model.mk
include tools/tools.mk
include sw-model/tests/tests.mk
include userlib/userlib.mk
include sim/sim.mk
include driver/driver.mk
include train/train.mk
include python/python.mk
include synth/synth.mk
include cluster/cluster.mk
include experiments/experiments.mk
include simulate/simulate.mk
include formal/formal.mk

.PHONY: all-targets
all-targets: $(ALL_TARGETS)

deps:
	@scripts/deps.sh

deps-demo:
	@scripts/deps.sh demo

# make demo's package list covers what the demo's build compiles and links.
SUITES_project += deps
DESC_deps := every header and library of make demo's build comes from a package of deps.sh demo
.PHONY: test-deps
test-deps:
	@scripts/deps-check.sh

# The maps match the tree: README.md's Layout table, each part README's
# file table, make help's suite lines (scripts/layout-check.sh).
SUITES_project += layout
DESC_layout := README.md's Layout names every folder, part READMEs name their sources, make help every suite
.PHONY: test-layout print-test-suites
test-layout:
	@scripts/layout-check.sh
print-test-suites:
	@echo $(TEST_SUITES)

# Every suite of every part (and any a fragment adds to TEST_SUITES
# directly); scripts/run-tests.sh runs them and sums their result lines.
TEST_SUITES += $(foreach p,$(PARTS),$(SUITES_$(p)))
# the build one job per core (the Verilated tops take most of it); the
# one-core suites of TEST_PAIRED side by side (their Verilated models
# built first, one job per core), then the rest one after another
test: deps
	@$(MAKE) --no-print-directory -j$$(nproc) all
	@INC_TEST_PAIRED="$(TEST_PAIRED)" scripts/run-tests.sh $(TEST_SUITES)

# make test-<part>: that part's suites (make test-rtl: the same as test-sim);
# each suite builds what it runs.
define inc_part_test
.PHONY: test-$(1)
test-$(1): deps
	@scripts/run-tests.sh $$(SUITES_$(1))
endef
# (A part whose only suite has the part's name, python, keeps that rule.)
$(foreach p,$(PARTS),$(if $(filter $(p),$(SUITES_$(p))),,$(eval $(call inc_part_test,$(p)))))
.PHONY: test-rtl
test-rtl: test-sim

# The main job: distributed training on the emulated cluster (train/).
# It installs and builds only what it uses (no Verilator, no kernel module).
DEMO_TARGETS = $(LIB)/libincmodel.a $(LIB)/libinceptionn.a $(LIB)/libinceptionn.so \
	       $(LIB)/libinctrain.a $(BIN)/inc-train $(BIN)/inc-run $(NIC_SWITCH)
print-demo-targets:
	@echo $(DEMO_TARGETS)
demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory $(DEMO_TARGETS)
	@experiments/train-demo.sh

# Real tagged TCP traffic between two namespaces through the codec.
demo-capture: deps
	@$(MAKE) --no-print-directory all
	@experiments/demo-capture.sh

bench: deps
	@$(MAKE) --no-print-directory $(BENCH_TARGETS) bench-run

# The list is read when the recipe runs, so include order does not matter.
.PHONY: bench-run
bench-run:
	@for t in $(BENCH_RUNS); do \
		$(MAKE) --no-print-directory $$t || exit 1; \
	done

clean:
	rm -rf $(BUILD)

# make help: the goals, then every part's suites with their DESC_ lines.
# A suite in TEST_SUITES that no part lists shows under "other".
help_q = $(subst ','\'',$(1))
HELP_OTHER = $(filter-out $(foreach p,$(PARTS),$(SUITES_$(p))),$(TEST_SUITES))
help:
	@echo "make          build libraries and tools into $(BUILD)/"
	@echo "make deps     install missing Debian packages (root; make deps-demo: only the demo's)"
	@echo "make test     build everything and run every suite below (about 23 minutes on 2 cores here)"
	@echo "make test-PART  one part's suites (PART: $(PARTS); test-rtl = test-sim)"
	@echo "make test-SUITE one suite (scripts/run-tests.sh SUITE... runs several and sums)"
	@echo "make demo     train HDC on 4 emulated nodes: WA, INC, WA+C, INC+C (build/demo/; builds only what it needs)"
	@echo "make demo-capture  real tagged TCP traffic through the codec"
	@echo "make reproduce     the paper's experiments at full length (long)"
	@echo "make accuracy      equal accuracy over the whole schedule, with and without error feedback (long)"
	@echo "make defaults-hdc   the HDC runs that chose the defaults, 3 seeds (about 2 hours)"
	@echo "make accuracy-torch  resnet18 through DDP, the inceptionn hook, fp16 and PowerSGD, 3 seeds, whole schedules (hours, resumable)"
	@echo "make time-to-accuracy  time to INC's final accuracy - 0.3 on the emulated cluster (root; uses make accuracy's HDC logs)"
	@echo "make schedules     sync / wfbp / bucket / mgwfbp / gossip on the emulated cluster (long)"
	@echo "make codecs        every codec side by side on the emulated cluster (long)"
	@echo "make bench    benchmarks: $(BENCH_RUNS) $(filter-out $(BIN)/% $(LIB)/%,$(BENCH_TARGETS))"
	@echo "              (model codec GB/s next to memcpy, libinceptionn all-reduce, RTL engines' beats per cycle)"
	@echo "make fuzz     longer libFuzzer runs ($(FUZZ_SECONDS) s per target)"
	@echo "make sim      full RTL regression: $(SIM_TESTS)"
	@echo "make sim-soak long RTL runs: $(SIM_SOAK_TESTS)"
	@echo "              (TX engine 500k frames per width, RX engine and loopback 10^6 frames per width, all flips)"
	@echo "make synth    Yosys synth_xilinx + OpenSTA per top (-j2; TOPS=\"inc_offload_top@512 ...\")"
	@echo "make driver   build the kernel module"
	@echo "make install PREFIX=DIR   install the programs (bin/), libinceptionn, headers, pkg-config file, Python package"
	@echo "make uninstall PREFIX=DIR remove exactly what make install wrote"
	@echo
	@echo "Test suites (make test-SUITE), by part (make test-PART):"
	@$(foreach p,$(PARTS),printf '\n%s (make test-%s):\n' '$(p)' '$(p)'; \
		$(foreach t,$(SUITES_$(p)),printf '  %-22s %s\n' '$(t)' '$(call help_q,$(DESC_$(t)))';))
	@$(if $(HELP_OTHER),printf '\nother:\n'; $(foreach t,$(HELP_OTHER),printf '  %-22s %s\n' '$(t)' '$(call help_q,$(DESC_$(t)))';))
