# userlib/ - libinceptionn: tagged sockets, communicator, ring all-reduce,
# worker-aggregator baseline, SIMD codec; inc-run, inc-bench; tests.
#
#   build/lib/libinceptionn.{a,so}       (the model objects are linked in)
#   build/lib/libinceptionn-mpi.{a,so}   (MPI bootstrap, when mpicc exists)
#   build/bin/inc-run, build/bin/inc-bench[-mpi]
#   make install PREFIX=/some/dir        (headers, libraries, pkg-config)

# The MPI bootstrap is one of two files: boot_mpi.c (mpicc, the MPI flavour
# below) or boot_nompi.c (INC_E_MPI; libinceptionn).
UL_SRCS   := $(filter-out userlib/src/boot_mpi.c,$(wildcard userlib/src/*.c))
UL_HDRS   := $(wildcard userlib/src/*.h) userlib/include/inceptionn/inceptionn.h $(MODEL_HDRS)
UL_CFLAGS  = $(ALL_CFLAGS) -Iuserlib/include -fPIC -pthread
UL_OBJS   := $(UL_SRCS:userlib/src/%.c=$(OBJ)/userlib/%.o)
UL_SAN_OBJS := $(UL_SRCS:userlib/src/%.c=$(OBJ)/userlib-san/%.o)
UL_SONAME := libinceptionn.so.0
MPICC     ?= $(shell command -v mpicc 2>/dev/null)
# The rendezvous's HMAC (userlib/src/hello.c): OpenSSL's libcrypto.
# The adaptive scaling (userlib/src/scale.c): libm.
UL_LDLIBS := -lcrypto -lm

$(OBJ)/userlib/%.o: userlib/src/%.c $(UL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UL_CFLAGS) -c $< -o $@

$(OBJ)/userlib-san/%.o: userlib/src/%.c $(UL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UL_CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(LIB)/libinceptionn.a: $(UL_OBJS) $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libinceptionn-san.a: $(UL_SAN_OBJS) $(MODEL_SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libinceptionn.so: $(UL_OBJS) $(MODEL_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -pthread -Wl,-soname,$(UL_SONAME) -o $@ $^ $(UL_LDLIBS)
	ln -sf libinceptionn.so $(LIB)/$(UL_SONAME)

UL_LIBS := $(LIB)/libinceptionn.a $(LIB)/libinceptionn.so
UL_BINS := $(BIN)/inc-run $(BIN)/inc-bench

$(BIN)/inc-run: userlib/tools/inc_run.c $(LIB)/libinceptionn.a $(UL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UL_CFLAGS) -o $@ $< $(LIB)/libinceptionn.a $(UL_LDLIBS)

# The benchmark draws its gradient-like data from tests/common/inc_framegen.
$(BIN)/inc-bench: userlib/bench/inc_bench.c tests/common/inc_framegen.c tests/common/inc_bench_util.h tests/common/inc_list.h $(LIB)/libinceptionn.a $(UL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(UL_CFLAGS) -Itests/common -o $@ $< tests/common/inc_framegen.c $(LIB)/libinceptionn.a $(UL_LDLIBS)

# MPI flavour: boot_mpi.c (compiled by mpicc) instead of boot_nompi.c.
# Without mpicc (or with make MPICC=) only the flavour without MPI is built.
ifneq ($(MPICC),)
UL_MPI_BOOT := $(OBJ)/userlib-mpi/boot_mpi.o
$(UL_MPI_BOOT): userlib/src/boot_mpi.c $(UL_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(UL_CFLAGS) -c $< -o $@

UL_MPI_OBJS := $(filter-out $(OBJ)/userlib/boot_nompi.o,$(UL_OBJS)) $(UL_MPI_BOOT)

$(LIB)/libinceptionn-mpi.a: $(UL_MPI_OBJS) $(MODEL_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIB)/libinceptionn-mpi.so: $(UL_MPI_OBJS) $(MODEL_OBJS)
	@mkdir -p $(@D)
	$(MPICC) -shared -pthread -Wl,-soname,libinceptionn-mpi.so.0 -o $@ $^ $(UL_LDLIBS)
	ln -sf libinceptionn-mpi.so $(LIB)/libinceptionn-mpi.so.0

$(BIN)/inc-bench-mpi: userlib/bench/inc_bench.c tests/common/inc_framegen.c tests/common/inc_bench_util.h tests/common/inc_list.h $(LIB)/libinceptionn-mpi.a $(UL_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(UL_CFLAGS) -Itests/common -DINC_WITH_MPI -o $@ $< tests/common/inc_framegen.c $(LIB)/libinceptionn-mpi.a $(UL_LDLIBS)

UL_LIBS += $(LIB)/libinceptionn-mpi.a $(LIB)/libinceptionn-mpi.so
UL_BINS += $(BIN)/inc-bench-mpi
endif

ALL_TARGETS += $(UL_LIBS) $(UL_BINS)

# ---------------------------------------------------------------- tests
UL_TEST := $(BUILD)/userlib-test
UL_TEST_CFLAGS = $(UL_CFLAGS) $(SAN_FLAGS) -Itests/common

$(UL_TEST)/test-codec: userlib/tests/test_codec.c tests/common/inc_framegen.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ $(UL_LDLIBS)

$(UL_TEST)/ar-check: userlib/tests/ar_check.c tests/common/inc_ar_util.h $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $(filter-out %.h,$^) -lm $(UL_LDLIBS)

$(UL_TEST)/iar-check: userlib/tests/iar_check.c tests/common/inc_list.h $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $(filter-out %.h,$^) -lm $(UL_LDLIBS)

$(UL_TEST)/ef-check: userlib/tests/ef_check.c tests/common/inc_list.h tests/common/inc_ar_util.h $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $(filter-out %.h,$^) -lm $(UL_LDLIBS)

$(UL_TEST)/sketch-check: userlib/tests/sketch_check.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ -lm $(UL_LDLIBS)

$(UL_TEST)/env-check: userlib/tests/env_check.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ $(UL_LDLIBS)

$(UL_TEST)/fail-check: userlib/tests/fail_check.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ $(UL_LDLIBS)

# The rendezvous test speaks the handshake itself (userlib/src/hello.c).
$(UL_TEST)/rdv-check: userlib/tests/rdv_check.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -Iuserlib/src -o $@ $^ $(UL_LDLIBS)

# The failure point of the fault injection: the library's allocations go
# through the test's wrappers (userlib/tests/fault_check.c).
$(UL_TEST)/fault-check: userlib/tests/fault_check.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -Wl,--wrap=malloc -Wl,--wrap=calloc -o $@ $^ $(UL_LDLIBS)

$(UL_TEST)/pcap-check: userlib/tests/pcap_check.c $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/common -o $@ $^


.PHONY: test-userlib-codec test-userlib-cnat test-userlib-scale test-userlib-sketch test-userlib-allreduce test-userlib-fail \
	test-userlib-rendezvous test-userlib-fault \
	test-userlib-capture test-userlib-nicemu test-userlib-nicemu-gso test-userlib-install test-userlib-layers install bench-userlib

test-userlib-codec: $(UL_TEST)/test-codec
	$(UL_TEST)/test-codec

$(UL_TEST)/test-cnat: userlib/tests/test_cnat.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ -lm $(UL_LDLIBS)

test-userlib-cnat: $(UL_TEST)/test-cnat
	$(UL_TEST)/test-cnat

$(UL_TEST)/test-scale: userlib/tests/test_scale.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -Iuserlib/src -o $@ $^ -lm $(UL_LDLIBS)

test-userlib-scale: $(UL_TEST)/test-scale
	$(UL_TEST)/test-scale

$(UL_TEST)/test-sketch: userlib/tests/test_sketch.c $(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -o $@ $^ -lm $(UL_LDLIBS)

test-userlib-sketch: $(UL_TEST)/test-sketch
	$(UL_TEST)/test-sketch

test-userlib-allreduce: $(UL_TEST)/ar-check $(UL_TEST)/iar-check $(UL_TEST)/sketch-check $(UL_TEST)/ef-check $(BIN)/inc-run
	userlib/tests/userlib-allreduce.sh $(UL_TEST)/ar-check $(UL_TEST)/iar-check $(UL_TEST)/sketch-check \
		$(UL_TEST)/ef-check

test-userlib-fail: $(UL_TEST)/fail-check $(BIN)/inc-run
	userlib/tests/userlib-fail.sh $(UL_TEST)/fail-check

test-userlib-rendezvous: $(UL_TEST)/rdv-check $(BIN)/inc-run
	userlib/tests/userlib-rendezvous.sh $(UL_TEST)/rdv-check

test-userlib-fault: $(UL_TEST)/fault-check
	userlib/tests/userlib-fault.sh $(UL_TEST)/fault-check

test-userlib-capture: $(UL_TEST)/ar-check $(UL_TEST)/pcap-check
	userlib/tests/userlib-capture.sh $(UL_TEST)/ar-check $(UL_TEST)/pcap-check

test-userlib-nicemu: $(UL_TEST)/ar-check $(UL_TEST)/nic-switch $(UL_TEST)/ef-check
	NICEMU_SWITCH_ARGS="$${NICEMU_SWITCH_ARGS:--c 1}" userlib/tests/userlib-nicemu.sh $(UL_TEST)/ar-check \
		$(UL_TEST)/nic-switch $(UL_TEST)/ef-check

# The same with the nodes' offloads on: super-frames cut and coalesced.
test-userlib-nicemu-gso: $(UL_TEST)/ar-check $(UL_TEST)/nic-switch $(UL_TEST)/ef-check
	NICEMU_OFFLOAD=1 NICEMU_SWITCH_ARGS="$${NICEMU_SWITCH_ARGS:--c 1}" userlib/tests/userlib-nicemu.sh \
		$(UL_TEST)/ar-check $(UL_TEST)/nic-switch $(UL_TEST)/ef-check

.PHONY: test-userlib-cli
test-userlib-cli: $(BIN)/inc-run $(BIN)/inc-bench
	userlib/tests/userlib-cli.sh $(BIN)/inc-run $(BIN)/inc-bench

.PHONY: test-userlib-env
test-userlib-env: $(UL_TEST)/env-check $(BIN)/inc-bench
	userlib/tests/userlib-env.sh $(UL_TEST)/env-check $(BIN)/inc-bench

test-userlib-install: $(UL_LIBS) $(BIN)/inc-run
	userlib/tests/userlib-install.sh

# The layers of docs/userlib.md's table: every file of userlib/src in one,
# every call between files within a layer or down, no cycle.
test-userlib-layers: $(UL_OBJS) $(UL_MPI_BOOT)
	userlib/tests/userlib-layers.sh $(UL_OBJS) $(UL_MPI_BOOT)

# Live TCP between namespaces through the RTL NICs (root; sim/top.mk builds
# nic-switch-rtl).
.PHONY: test-userlib-nicemu-rtl
test-userlib-nicemu-rtl: $(UL_TEST)/nic-switch-rtl $(UL_TEST)/ar-check $(UL_TEST)/ef-check
	userlib/tests/userlib-nicemu-rtl.sh $(UL_TEST)/ar-check $(UL_TEST)/nic-switch-rtl $(UL_TEST)/ef-check

SUITES_userlib += userlib-codec userlib-cnat userlib-scale userlib-sketch userlib-allreduce userlib-fail userlib-capture userlib-nicemu \
	       userlib-nicemu-gso userlib-nicemu-rtl userlib-rendezvous userlib-fault userlib-install userlib-layers
SUITES_userlib += userlib-env userlib-cli
# one core each: make test runs them side by side;
# userlib-nicemu-rtl too (under one core: its Verilated NICs pace the
# ranks; its namespaces are named by its process)
TEST_PAIRED += userlib-codec userlib-cnat userlib-sketch userlib-nicemu-rtl
DESC_userlib-cli := inc-run/inc-bench --help; inc-bench allreduce refuses bad -n/-w/-m/-a/-S/-P, -m cnat selects cnat, -F -S add the feedback and scaling rows
DESC_userlib-env := every INC_* variable by one rule (decimal or 0x hex); refusals name the variable and value
DESC_userlib-codec := the stream codec (AVX2 and portable) against the model, byte for byte, and its one-pass feedback round trip (ASan/UBSan)
DESC_userlib-scale := adaptive scaling: an all-zero part is scaled up, lossless calls leave it, zeros are priced, targets past 12x refused, fused passes = scalar ones (ASan/UBSan)
DESC_userlib-cnat := natural compression: every exponent against the documented rule, decode of all bytes
DESC_userlib-sketch := the sketch codec: geometry, recovery of sparse vectors over gammas (ASan/UBSan)
DESC_userlib-allreduce := ar-check N = 1..8 (none/nic/software, ring/wa), non-blocking, sketch, error feedback
DESC_userlib-fail := a peer killed, stopped or absent: every rank errs within the timeout; bad environment refused
DESC_userlib-capture := tcpdump on the cluster's bridge: data frames tagged ToS 0x28 on float boundaries (root)
DESC_userlib-nicemu := all-reduce through the emulated NICs (nic-switch) between namespaces, cross-checked (root)
DESC_userlib-nicemu-gso := the same with the nodes' offloads on: super-frames cut and coalesced (root)
DESC_userlib-nicemu-rtl := the same through the Verilated NICs (nic-switch-rtl) (root)
DESC_userlib-rendezvous := a 4-rank job attacked while it joins (bad hellos, wrong secret, floods): exact sums
DESC_userlib-fault := an allocation failing on one rank fails every rank within 1 s (ASan/UBSan)
DESC_userlib-install := make install, a program built with pkg-config only (shared, static, MPI) runs
DESC_userlib-layers := every file in a layer of docs/userlib.md, every call within or down, no cycle

# ---------------------------------------------------------------- install
PREFIX ?= /usr/local
UL_VERSION := 0.1.0

install: $(UL_LIBS)
	install -d $(PREFIX)/include/inceptionn $(PREFIX)/lib/pkgconfig
	install -m 644 userlib/include/inceptionn/inceptionn.h $(PREFIX)/include/inceptionn/
	install -m 644 sw-model/include/inc_model.h userlib/include/inceptionn/inc_frame_fast.h \
		$(PREFIX)/include/inceptionn/
	install -m 644 $(LIB)/libinceptionn.a $(PREFIX)/lib/
	install -m 755 $(LIB)/libinceptionn.so $(PREFIX)/lib/$(UL_SONAME)
	ln -sf $(UL_SONAME) $(PREFIX)/lib/libinceptionn.so
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(UL_VERSION)|' \
	    -e 's|@NAME@|inceptionn|' -e 's|@LIBS_PRIVATE@|$(UL_LDLIBS)|' \
	    userlib/inceptionn.pc.in > $(PREFIX)/lib/pkgconfig/inceptionn.pc
ifneq ($(MPICC),)
	install -m 644 $(LIB)/libinceptionn-mpi.a $(PREFIX)/lib/
	install -m 755 $(LIB)/libinceptionn-mpi.so $(PREFIX)/lib/libinceptionn-mpi.so.0
	ln -sf libinceptionn-mpi.so.0 $(PREFIX)/lib/libinceptionn-mpi.so
	sed -e 's|@PREFIX@|$(abspath $(PREFIX))|' -e 's|@VERSION@|$(UL_VERSION)|' \
	    -e 's|@NAME@|inceptionn-mpi|' -e 's|@LIBS_PRIVATE@|$(UL_LDLIBS) $(shell $(MPICC) --showme:link)|' \
	    userlib/inceptionn.pc.in > $(PREFIX)/lib/pkgconfig/inceptionn-mpi.pc
endif
	install -d $(PREFIX)/lib/wireshark/plugins
	install -m 644 tools/wireshark/inceptionn.lua $(PREFIX)/lib/wireshark/plugins/
	@echo "installed libinceptionn into $(PREFIX)"

# Exactly the files the rule above writes (both flavours; rm -f skips those
# absent), and include/inceptionn when empty; shared directories of the
# prefix (lib/pkgconfig, lib/wireshark/plugins) stay, as autotools leaves them.
UL_INSTALLED := include/inceptionn/inceptionn.h include/inceptionn/inc_model.h \
	include/inceptionn/inc_frame_fast.h lib/libinceptionn.a lib/$(UL_SONAME) \
	lib/libinceptionn.so lib/pkgconfig/inceptionn.pc lib/libinceptionn-mpi.a \
	lib/libinceptionn-mpi.so.0 lib/libinceptionn-mpi.so lib/pkgconfig/inceptionn-mpi.pc \
	lib/wireshark/plugins/inceptionn.lua
.PHONY: uninstall uninstall-userlib
uninstall: uninstall-userlib
uninstall-userlib:
	rm -f $(addprefix $(PREFIX)/,$(UL_INSTALLED))
	rmdir $(PREFIX)/include/inceptionn 2>/dev/null || true

# ---------------------------------------------------------------- bench
bench-userlib: $(UL_BINS)
	experiments/userlib-bench.sh quick

BENCH_TARGETS += $(UL_BINS)
BENCH_RUNS += bench-userlib

# ---------------------------------------------------------------- fast frame path
# inc_frame_compress_fast / _decompress_fast against the model, frame by
# frame, on the captures, their corruptions and random frames.
$(UL_TEST)/test-frame-fast: userlib/tests/test_frame_fast.c tests/common/inc_framegen.c sim/common/inc_pcap.c \
		$(LIB)/libinceptionn-san.a
	@mkdir -p $(@D)
	$(CC) $(UL_TEST_CFLAGS) -Isim/common -o $@ $^

.PHONY: test-userlib-frame-fast
test-userlib-frame-fast: $(UL_TEST)/test-frame-fast
	$(UL_TEST)/test-frame-fast $(wildcard tests/fixtures/*.pcap)

SUITES_userlib += userlib-frame-fast
TEST_PAIRED += userlib-frame-fast
DESC_userlib-frame-fast := the fast frame path against the model on captures, corruptions and random frames
