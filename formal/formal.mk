# formal/formal.mk - included from the top Makefile.
#   make formal                       every harness of formal/jobs.txt, then the
#                                     mutation check (formal/mutants.txt); a
#                                     summary table, "N passed, N failed"
#   make formal BLOCKS="inc_fifo inc_csr"   the harnesses (and mutants) of
#                                     the named RTL modules only
#   make formal-long                  the same with the jobs and mutants marked
#                                     long (the 512-bit engines, the decompress
#                                     engine's mutants)
#   make test-formal-quick            the jobs marked quick (part of make test)
# Tools: yosys, yosys-smtbmc, z3 (make deps). Work files: build/formal/.
BLOCKS ?=

.PHONY: formal formal-long test-formal-quick
# the jobs, then the mutants; one last line sums both ("formal: N passed,
# N failed[, N skipped]"), status 1 when anything failed or did not run
formal_sum = awk '/^[0-9]+ passed, [0-9]+ failed/ { n++; p += $$1; f += $$3; k += $$5 } \
	END { if (n < 2) f++; printf "formal: %d passed, %d failed%s\n", p, f, k ? ", " k " skipped" : ""; exit f > 0 }'
formal:
	@mkdir -p build/formal
	@formal/run.sh $(if $(BLOCKS),-b "$(BLOCKS)") | tee build/formal/jobs.out ; \
	 formal/run.sh -m $(if $(BLOCKS),-b "$(BLOCKS)") | tee build/formal/mutants.out ; \
	 $(formal_sum) build/formal/jobs.out build/formal/mutants.out

formal-long:
	@mkdir -p build/formal
	@formal/run.sh -l $(if $(BLOCKS),-b "$(BLOCKS)") | tee build/formal/jobs.out ; \
	 formal/run.sh -l -m $(if $(BLOCKS),-b "$(BLOCKS)") | tee build/formal/mutants.out ; \
	 $(formal_sum) build/formal/jobs.out build/formal/mutants.out

test-formal-quick:
	@formal/run.sh -q

SUITES_sim += formal-quick
DESC_formal-quick := formal/run.sh -q: the k-induction proofs and covers of the FIFO, RAM, CSR and burst buffer (Yosys + z3)
