# train/ - the distributed trainer inc-train (layers, models, optimizer,
# data, report) over libinceptionn.
#
#   build/lib/libinctrain.a      layers, models, data, optimizer, report
#   build/bin/inc-train          the program (MPI bootstrap when mpicc exists)
#   make test-train              the suites below (train/tests/; make help describes each):
#                                train-unit train-dist train-ef train-rtl train-report
#                                train-layers
# The runs made with it (make demo, reproduce, accuracy, schedules, codecs,
# time-to-accuracy) are in experiments/ (experiments/README.md).

TR_SRCS := $(filter-out train/src/inc_train.c,$(wildcard train/src/*.c))
TR_HDRS := $(wildcard train/src/*.h) $(UL_HDRS)
TR_CFLAGS = $(ALL_CFLAGS) -Iuserlib/include -Itrain/src
TR_LIBS := -lopenblas -lz -ljansson -lm -lpthread
TR_OBJS := $(TR_SRCS:train/src/%.c=$(OBJ)/train/%.o)
TR_SAN_OBJS := $(TR_SRCS:train/src/%.c=$(OBJ)/train-san/%.o)

$(OBJ)/train/%.o: train/src/%.c $(TR_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) -c $< -o $@

$(OBJ)/train-san/%.o: train/src/%.c $(TR_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(LIB)/libinctrain.a: $(TR_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libinctrain-san.a: $(TR_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

ifneq ($(MPICC),)
TR_LD := $(MPICC)
TR_UL := $(LIB)/libinceptionn-mpi.a
else
TR_LD := $(CC)
TR_UL := $(LIB)/libinceptionn.a
endif

$(BIN)/inc-train: train/src/inc_train.c $(LIB)/libinctrain.a $(TR_UL) $(TR_HDRS)
	@mkdir -p $(@D)
	$(TR_LD) $(TR_CFLAGS) -pthread -o $@ $< $(LIB)/libinctrain.a $(TR_UL) $(UL_LDLIBS) $(TR_LIBS)

ALL_TARGETS += $(LIB)/libinctrain.a $(BIN)/inc-train

# ---------------------------------------------------------------- tests
TR_TEST := $(BUILD)/train-test

$(TR_TEST)/test-layers: train/tests/test_layers.c $(LIB)/libinctrain-san.a
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) $(SAN_FLAGS) -o $@ $< $(LIB)/libinctrain-san.a $(TR_LIBS)

$(TR_TEST)/test-plan: train/tests/test_plan.c $(LIB)/libinctrain-san.a
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) $(SAN_FLAGS) -Itests/common -o $@ $< $(LIB)/libinctrain-san.a -lm

$(TR_TEST)/test-data: train/tests/test_data.c $(LIB)/libinctrain-san.a
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) $(SAN_FLAGS) -Itests/common -o $@ $< $(LIB)/libinctrain-san.a -lz -lm


.PHONY: test-train-unit test-train-dist
test-train-unit: $(TR_TEST)/test-layers $(TR_TEST)/test-plan $(TR_TEST)/test-data $(BIN)/inc-train
	train/tests/train-unit.sh $(TR_TEST)

test-train-dist: $(BIN)/inc-train $(BIN)/inc-run $(UL_TEST)/nic-switch
	train/tests/train-dist.sh

.PHONY: test-train-ef
test-train-ef: $(BIN)/inc-train $(BIN)/inc-run $(UL_TEST)/nic-switch
	train/tests/train-ef.sh

SUITES_train += train-unit train-dist train-ef
DESC_train-unit := gradient checks, data order, data-loader errors (ASan/UBSan), the command line, the report
DESC_train-dist := seeded 4-rank runs against one process, codecs through the emulated NICs (root), killed rank
# inc-train over the RTL NICs (sim/top.mk builds nic-switch-rtl), against
# the same job over the model's (root).
.PHONY: test-train-rtl
test-train-rtl: $(BUILD)/userlib-test/nic-switch-rtl $(BUILD)/userlib-test/nic-switch $(BIN)/inc-train
	train/tests/train-rtl.sh

SUITES_train += train-rtl
# one core (the Verilated NICs); its namespaces are named by its process
TEST_PAIRED += train-rtl
DESC_train-rtl := inc-train over the Verilated NICs: the same weights as over the model's NICs (root)
DESC_train-ef := error feedback: closes the gap on 3 seeds, replicas bit-identical in every mode, nic = software (root)

# ---------------------------------------------------------------- report
# `inc-train report` on hostile and mistaken logs: fields checked for type
# and range (FILE:LINE: field ...), no input that makes it run long,
# --log /dev/full fails.
.PHONY: test-train-report
test-train-report: $(BIN)/inc-train
	train/tests/train-report.sh $(BIN)/inc-train
SUITES_train += train-report
DESC_train-report := inc-train report on bad logs (type, range, names; answers at once), --log /dev/full fails

# ---------------------------------------------------------------- layers
# No call cycle among train/src's files (train/tests/train-layers.sh: nm
# over the objects). inc_train.c, which the program's link compiles
# directly, gets an object of its own for it.
$(OBJ)/train-main/inc_train.o: train/src/inc_train.c $(TR_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TR_CFLAGS) -c $< -o $@

.PHONY: test-train-layers
test-train-layers: $(TR_OBJS) $(OBJ)/train-main/inc_train.o
	train/tests/train-layers.sh $^
SUITES_train += train-layers
DESC_train-layers := the trainer's call graph has no cycle among train/src files (nm over the objects)

# The log reader under libFuzzer (train/tests/fuzz_report_log.c): one of
# the targets of make fuzz and of the fuzz-quick suite (sw-model/tests/tests.mk).
# The reader is compiled with the fuzzer's instrumentation; the rest of
# the trainer it links against comes from libinctrain.a.
$(TEST_BIN)/fuzz_report_log: train/tests/fuzz_report_log.c train/src/tr_report.c $(TR_HDRS) \
		$(LIB)/libinctrain.a $(LIB)/libinceptionn.a
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -Iuserlib/include -Itrain/src $< train/src/tr_report.c \
		$(LIB)/libinctrain.a $(LIB)/libinceptionn.a $(UL_LDLIBS) $(TR_LIBS) -o $@

# Seeds: a complete log and a few records of each type.
$(FUZZ_DIR)/seeds-report.stamp: $(FUZZ_DIR)/seeds.stamp
	@rm -rf $(FUZZ_DIR)/seeds/fuzz_report_log && mkdir -p $(FUZZ_DIR)/seeds/fuzz_report_log
	printf '%s\n' '{"type":"config","model":"hdc","scheme":"inc","compression":"software","error_bound":10,"truncate":0,"workers":4,"iterations":20,"schedule":"sync","error_feedback":true}' \
		'{"type":"iter","iter":10,"time":0.5,"loss":0.9,"lr":0.1}' \
		'{"type":"eval","iter":20,"time":1.0,"accuracy":71.5,"test_loss":0.8}' \
		'{"type":"summary","iterations":20,"train_s":1.0,"iter_ms":50.0,"data_ms":1,"forward_ms":10,"backward_ms":20,"sum_ms":2,"comm_ms":15,"update_ms":2,"codec_ms":1,"bytes_sent":1000,"bytes_per_iter":50.0,"codec_ratio":4.5,"share2":0.5,"share10":0.3,"share18":0.1,"share34":0.1,"accuracy":71.5,"test_loss":0.8,"loss":0.7,"predicted_iter_ms":0}' \
		>$(FUZZ_DIR)/seeds/fuzz_report_log/log.json
	printf '%s\n' '{"type":"wire","bytes_wire_per_iter":12.5}' >$(FUZZ_DIR)/seeds/fuzz_report_log/wire.json
	@touch $@

FUZZ_ALL += fuzz_report_log
test-fuzz-quick fuzz: $(TEST_BIN)/fuzz_report_log $(FUZZ_DIR)/seeds-report.stamp
