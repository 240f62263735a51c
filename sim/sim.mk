# Verilator/Icarus regression. Parts of the RTL add their testbenches through
# the fragments below; each appends the names of its test programs (targets
# that print "N passed, N failed") to SIM_TESTS and its soak runs to
# SIM_SOAK_TESTS.
SIM_TESTS :=
SIM_SOAK_TESTS :=

# The one Verilator recipe of the sim/*.mk rules:
# $(call inc_verilator,MDIR,EXE,TOP,OPTIONS,FILES,LOG) verilates FILES
# (Verilog, the C++ shell, C objects and archives) with top module TOP and
# builds MDIR/EXE: --cc --exe --build -Wall -Irtl plus OPTIONS (jobs, trace,
# optimisation, parameters, -CFLAGS). The output goes to LOG; when the build
# fails, LOG's last 40 lines are printed.
VERILATOR ?= verilator
# jobs of each Verilated model's C++ build (its 20-45 files compile side by
# side; one job took 2 of a 512-bit top's 2.1 minutes in make test)
VERILATOR_JOBS ?= $(shell nproc)
inc_verilator = nice $(VERILATOR) --cc --exe --build -Wall -Irtl $(4) --top-module $(3) --Mdir $(1) -o $(2) \
	$(5) >$(6) 2>&1 || { tail -n 40 $(6); exit 1; }

include sim/tx.mk
include sim/rx.mk
include sim/top.mk

# The simulations of make test: each runs one model on one core, side by
# side (the lint and formal-quick use both cores; the synthesis suites
# run Yosys themselves).
TEST_PAIRED += regmap tx-units tx-engine-quick tx-engine-w512-quick tx-icarus \
	rx-engine-quick rx-reset rx-flips rx-engine-w512-quick rx-reset-w512 rx-flips-w512 \
	rx-units rx-units-1beat rx-icarus loopback-quick csr loopback-w512-quick csr-w512 \
	csr-split17 rtl-pcap powerup powerup-w512

.PHONY: sim sim-soak
sim: deps
	@scripts/run-tests.sh $(SIM_TESTS)

sim-soak: deps
	@scripts/run-tests.sh $(SIM_SOAK_TESTS)
