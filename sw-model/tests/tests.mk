# The model's tests (sw-model/tests/), fuzzers and the model benchmark.
#
#   make test-codec-exhaustive  every float32 bit pattern at eb=10, strides at eb 1/6/8/12/126
#   make test-golden            vectors parsed from docs/codec.md and docs/wire-format.md
#   make test-stream            group/stream API: sizes, capacities, truncation, padding
#   make test-frame             frame API on random and hand-made malformed frames (ASan/UBSan)
#   make test-integrity         format v2: every bit flip and 10^5 random corruptions of
#                               compressed capture frames, classified (never delivered corrupt)
#   make test-fuzz-quick        each libFuzzer target for FUZZ_QUICK_SECONDS (default 14)
#   make fuzz                   each libFuzzer target for FUZZ_SECONDS (default 300)
#   make bench-model            stream codec GB/s next to memcpy GB/s (part of `make bench`)
#
# Each suite's one-line description (DESC_<name>) is what `make help` prints.
# Test binaries go to build/tests/. Sanitizer builds link
# build/lib/libincmodel-san.a; the exhaustive test compiles the model
# sources itself at -O2 with UBSan only (ASan would slow 2^32 values down
# too much); the fuzzers compile them with clang's sanitizers.

TEST_BIN := $(BUILD)/tests
FUZZ_DIR := $(BUILD)/fuzz
FRAMEGEN_SRCS := tests/common/inc_framegen.c
TEST_HDRS := tests/common/inc_test.h tests/common/inc_framegen.h $(MODEL_HDRS)
TEST_CFLAGS = $(ALL_CFLAGS) -Itests/common
TEST_SAN_CFLAGS = $(TEST_CFLAGS) $(SAN_FLAGS)
UBSAN_FLAGS := -fsanitize=undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = $(CFLAGS_COMMON) -O1 -Isw-model/include -Itests/common \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_QUICK_SECONDS ?= 14
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := fuzz_frame_decompress fuzz_stream_decompress fuzz_sketch_decompress
FUZZ_BINS := $(FUZZ_TARGETS:%=$(TEST_BIN)/%)
# The sketch codec of libinceptionn builds alone (codec_sketch.c).
SKETCH_SRCS := userlib/src/codec_sketch.c
SKETCH_HDRS := userlib/include/inceptionn/inceptionn.h userlib/src/inc_internal.h

MODEL_TEST_SUITES := codec-exhaustive golden stream frame integrity fuzz-quick
SUITES_model += $(MODEL_TEST_SUITES)
# one core each: make test runs them side by side
TEST_PAIRED += golden stream frame integrity
DESC_codec-exhaustive := every float32 bit pattern at eb=10, strides at eb 1/6/8/12/126 (-O2, UBSan, threads)
DESC_golden := the vectors of docs/codec.md and docs/wire-format.md, byte for byte
DESC_stream := group/stream API: sizes, capacities, truncation, padding (ASan/UBSan)
DESC_frame := frame API on random and hand-made malformed frames (ASan/UBSan)
DESC_integrity := format v2: every bit flip and 10^5 random corruptions of capture frames, never delivered corrupt
DESC_fuzz-quick := each libFuzzer target for FUZZ_QUICK_SECONDS (default 14) from generated seeds
.PHONY: $(MODEL_TEST_SUITES:%=test-%) fuzz fuzz-seeds bench-model

# --- sanitizer (ASan + UBSan) tests -------------------------------------
$(TEST_BIN)/test_golden: sw-model/tests/test_golden.c $(TEST_HDRS) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TEST_SAN_CFLAGS) $< -o $@ $(LIB)/libincmodel-san.a

$(TEST_BIN)/test_stream: sw-model/tests/test_stream.c $(TEST_HDRS) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TEST_SAN_CFLAGS) $< $(FRAMEGEN_SRCS) -o $@ $(LIB)/libincmodel-san.a

$(TEST_BIN)/test_frame: sw-model/tests/test_frame.c $(FRAMEGEN_SRCS) $(TEST_HDRS) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TEST_SAN_CFLAGS) $< $(FRAMEGEN_SRCS) -o $@ $(LIB)/libincmodel-san.a

INTEGRITY_SRCS := tests/common/inc_integrity.c sim/common/inc_pcap.c $(FRAMEGEN_SRCS)
$(TEST_BIN)/test_integrity: sw-model/tests/test_integrity.c $(INTEGRITY_SRCS) tests/common/inc_integrity.h \
		$(TEST_HDRS) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TEST_SAN_CFLAGS) -Isim/common $< $(INTEGRITY_SRCS) -o $@ $(LIB)/libincmodel-san.a

# --- exhaustive codec test: -O2, UBSan, threads -------------------------
$(TEST_BIN)/test_codec_exhaustive: sw-model/tests/test_codec_exhaustive.c $(MODEL_SRCS) $(TEST_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O2 $(UBSAN_FLAGS) -pthread $< $(MODEL_SRCS) -o $@ -lm

test-codec-exhaustive: $(TEST_BIN)/test_codec_exhaustive
	$(TEST_BIN)/test_codec_exhaustive

test-golden: $(TEST_BIN)/test_golden
	$(TEST_BIN)/test_golden docs/codec.md docs/wire-format.md

test-stream: $(TEST_BIN)/test_stream
	$(TEST_BIN)/test_stream

test-frame: $(TEST_BIN)/test_frame
	$(TEST_BIN)/test_frame

INTEGRITY_N ?= 100000
test-integrity: $(TEST_BIN)/test_integrity
	$(TEST_BIN)/test_integrity tests/fixtures $(INTEGRITY_N)

# --- libFuzzer targets ----------------------------------------------------
$(FUZZ_BINS): $(TEST_BIN)/%: sw-model/tests/fuzz/%.c sw-model/tests/fuzz/fuzz_common.h $(MODEL_SRCS) $(MODEL_HDRS) \
		$(SKETCH_SRCS) $(SKETCH_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -Iuserlib/include -Iuserlib/src $< $(MODEL_SRCS) $(SKETCH_SRCS) -o $@

# Seed corpora, generated from framegen and the model at build time.
$(TEST_BIN)/fuzz_seeds: sw-model/tests/fuzz/fuzz_seeds.c $(FRAMEGEN_SRCS) $(TEST_HDRS) $(LIB)/libincmodel.a \
		$(SKETCH_SRCS) $(SKETCH_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -Iuserlib/include -Iuserlib/src $< $(FRAMEGEN_SRCS) $(SKETCH_SRCS) \
		-o $@ $(LIB)/libincmodel.a

$(FUZZ_DIR)/seeds.stamp: $(TEST_BIN)/fuzz_seeds
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(FUZZ_DIR)/seeds
	$(TEST_BIN)/fuzz_seeds $(FUZZ_DIR)/seeds
	@touch $@

# What a peer's bytes reach in libinceptionn before a call (rendezvous
# handshake, call header, segment framing): the whole library under the
# fuzzer's sanitizers; seeds written by the same file built as a program.
FUZZ_PEER := $(TEST_BIN)/fuzz_peer_bytes
# (userlib.mk is read after this file: its variables only in recipes.)
FUZZ_PEER_DEPS := $(wildcard userlib/src/*.c userlib/src/*.h) userlib/include/inceptionn/inceptionn.h
$(FUZZ_PEER): sw-model/tests/fuzz/fuzz_peer_bytes.c sw-model/tests/fuzz/fuzz_common.h $(FUZZ_PEER_DEPS) $(MODEL_SRCS) $(MODEL_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -pthread -Iuserlib/include -Iuserlib/src $< $(UL_SRCS) $(MODEL_SRCS) \
		-o $@ $(UL_LDLIBS)

$(TEST_BIN)/fuzz_peer_seeds: sw-model/tests/fuzz/fuzz_peer_bytes.c $(LIB)/libinceptionn.a $(FUZZ_PEER_DEPS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DFUZZ_PEER_SEEDS -pthread -Iuserlib/include -Iuserlib/src $< \
		$(LIB)/libinceptionn.a -o $@ $(UL_LDLIBS)

# After seeds.stamp, which clears the seed directory.
$(FUZZ_DIR)/seeds-peer.stamp: $(TEST_BIN)/fuzz_peer_seeds $(FUZZ_DIR)/seeds.stamp
	@rm -rf $(FUZZ_DIR)/seeds/fuzz_peer_bytes && mkdir -p $(FUZZ_DIR)/seeds/fuzz_peer_bytes
	$(TEST_BIN)/fuzz_peer_seeds $(FUZZ_DIR)/seeds/fuzz_peer_bytes
	@touch $@

FUZZ_ALL := $(FUZZ_TARGETS) fuzz_peer_bytes

fuzz-seeds: $(FUZZ_DIR)/seeds.stamp $(FUZZ_DIR)/seeds-peer.stamp

test-fuzz-quick: $(FUZZ_BINS) $(FUZZ_PEER) $(FUZZ_DIR)/seeds.stamp $(FUZZ_DIR)/seeds-peer.stamp
	@sw-model/tests/fuzz/run.sh $(FUZZ_QUICK_SECONDS) $(TEST_BIN) $(FUZZ_DIR) $(FUZZ_ALL)

fuzz: deps $(FUZZ_BINS) $(FUZZ_PEER) $(FUZZ_DIR)/seeds.stamp $(FUZZ_DIR)/seeds-peer.stamp
	@sw-model/tests/fuzz/run.sh $(FUZZ_SECONDS) $(TEST_BIN) $(FUZZ_DIR) $(FUZZ_ALL)

# --- benchmark ------------------------------------------------------------
$(TEST_BIN)/bench_model: sw-model/tests/bench/bench_model.c tests/common/inc_bench_util.h $(FRAMEGEN_SRCS) $(TEST_HDRS) $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -O2 $< $(FRAMEGEN_SRCS) -o $@ $(LIB)/libincmodel.a

bench-model: $(TEST_BIN)/bench_model
	$(TEST_BIN)/bench_model

# `make bench` runs it after the targets of BENCH_TARGETS (the Makefile).
BENCH_RUNS += bench-model
