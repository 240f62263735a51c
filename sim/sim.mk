# Verilator/Icarus regression. Parts of the RTL add their testbenches through
# the fragments below; each appends the names of its test programs (targets
# that print "N passed, N failed") to SIM_TESTS and its soak runs to
# SIM_SOAK_TESTS.
SIM_TESTS :=
SIM_SOAK_TESTS :=
-include sim/tx.mk
-include sim/rx.mk
-include sim/top.mk

.PHONY: sim sim-soak
sim: deps
	@scripts/run-tests.sh $(SIM_TESTS)

sim-soak: deps
	@scripts/run-tests.sh $(SIM_SOAK_TESTS)
