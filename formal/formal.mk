# formal/formal.mk - included from the top Makefile.
#   make formal                       every harness of formal/jobs.txt, then the
#                                     mutation check (formal/mutants.txt); a
#                                     summary table, "N passed, N failed"
#   make formal BLOCKS="inc_fifo inc_csr"   the harnesses (and mutants) of
#                                     the named RTL modules only
#   make test-formal-quick            the jobs marked quick (part of make test)
# Tools: yosys, yosys-smtbmc, z3 (make deps). Work files: build/formal/.
BLOCKS ?=

.PHONY: formal test-formal-quick
formal:
	@formal/run.sh $(if $(BLOCKS),-b "$(BLOCKS)") ; a=$$? ; \
	 formal/run.sh -m $(if $(BLOCKS),-b "$(BLOCKS)") ; b=$$? ; \
	 [ $$a -eq 0 ] && [ $$b -eq 0 ]

test-formal-quick:
	@formal/run.sh -q

SUITES_sim += formal-quick
DESC_formal-quick := formal/run.sh -q: the k-induction proofs and covers of the FIFO, CSR, burst buffer and ToS matcher (Yosys + z3)
