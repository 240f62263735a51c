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

TEST_SUITES += regmap
