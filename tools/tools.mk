# Command-line tools (build/bin): inc-codec (stream format on stdin/stdout),
# inc-pcap (the frame format on pcap captures, libpcap), inc-tcpgen (the
# traffic generator of experiments/capture.sh). Tests in tools/tests/: suite pcap
# (frame checks on the committed real captures, ASan/UBSan), cli (the tools
# end to end), pcap-padded, wireshark. See docs/tools.md.

PCAP_CFLAGS := $(shell pkg-config --cflags libpcap 2>/dev/null)
PCAP_LIBS   := $(shell pkg-config --libs libpcap 2>/dev/null || echo -lpcap)
TOOLS_CFLAGS = $(ALL_CFLAGS) -Itools
TOOL_COMMON  := tools/inc_tool.c tools/inc_tool.h

$(BIN)/inc-codec: tools/inc-codec.c $(TOOL_COMMON) $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) tools/inc-codec.c tools/inc_tool.c \
		$(LIB)/libincmodel.a -o $@

$(BIN)/inc-pcap: tools/inc-pcap.c $(TOOL_COMMON) $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(PCAP_CFLAGS) tools/inc-pcap.c tools/inc_tool.c \
		$(LIB)/libincmodel.a $(PCAP_LIBS) -lm -o $@

$(BIN)/inc-tcpgen: tools/inc-tcpgen.c $(TOOL_COMMON) $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) tools/inc-tcpgen.c tools/inc_tool.c \
		$(LIB)/libincmodel.a -lm -o $@

TOOLS := $(BIN)/inc-codec $(BIN)/inc-pcap $(BIN)/inc-tcpgen
ALL_TARGETS += $(TOOLS)

.PHONY: tools
tools: $(TOOLS)

# --- tests -----------------------------------------------------------------
PCAP_FIXTURES := $(wildcard tests/fixtures/*.pcap)

$(BUILD)/tests/test_pcap: tools/tests/test_pcap.c tests/common/inc_test.h \
		$(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(PCAP_CFLAGS) -Itests/common \
		tools/tests/test_pcap.c $(LIB)/libincmodel-san.a $(PCAP_LIBS) -o $@

SUITES_tools += pcap cli
TEST_PAIRED += pcap cli
DESC_pcap := frame checks on the committed real captures (tests/fixtures, ASan/UBSan)
DESC_cli := inc-codec, inc-pcap and inc-tcpgen end to end, their errors one line each (ASan/UBSan)

.PHONY: test-pcap test-cli
test-pcap: $(BUILD)/tests/test_pcap
	$(BUILD)/tests/test_pcap $(PCAP_FIXTURES)

# The cli suite runs ASan/UBSan builds of the tools (same sources).
SAN_BIN := $(BUILD)/asan/bin
SAN_TOOLS := $(SAN_BIN)/inc-codec $(SAN_BIN)/inc-pcap $(SAN_BIN)/inc-tcpgen

$(SAN_BIN)/inc-codec: tools/inc-codec.c $(TOOL_COMMON) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN_FLAGS) tools/inc-codec.c tools/inc_tool.c \
		$(LIB)/libincmodel-san.a -o $@

$(SAN_BIN)/inc-pcap: tools/inc-pcap.c $(TOOL_COMMON) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN_FLAGS) $(PCAP_CFLAGS) tools/inc-pcap.c \
		tools/inc_tool.c $(LIB)/libincmodel-san.a $(PCAP_LIBS) -lm -o $@

$(SAN_BIN)/inc-tcpgen: tools/inc-tcpgen.c $(TOOL_COMMON) $(LIB)/libincmodel-san.a
	@mkdir -p $(@D)
	$(CC) $(TOOLS_CFLAGS) $(SAN_FLAGS) tools/inc-tcpgen.c tools/inc_tool.c \
		$(LIB)/libincmodel-san.a -lm -o $@

test-cli: $(SAN_TOOLS) $(BUILD)/tests/padded
	INC_BIN=$(SAN_BIN) PADDED=$(BUILD)/tests/padded tools/tests/test_cli.sh

# Padded short frames (Ethernet padding after the IP datagram, as a receive
# side captures them) through the ASan/UBSan inc-pcap: round trip, and
# compressed frames padded by the far MAC decompress the same.
$(BUILD)/tests/padded: tools/tests/padded.c $(LIB)/libincmodel.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(PCAP_CFLAGS) tools/tests/padded.c $(LIB)/libincmodel.a \
		$(PCAP_LIBS) -lm -o $@

SUITES_tools += pcap-padded
TEST_PAIRED += pcap-padded
DESC_pcap-padded := Ethernet-padded short frames through inc-pcap: round trip, padded compressed frames
.PHONY: test-pcap-padded
test-pcap-padded: $(SAN_BIN)/inc-pcap $(BUILD)/tests/padded
	INC_BIN=$(SAN_BIN) tools/tests/test_padded.sh $(BUILD)/tests/padded

# The Wireshark dissector (tools/wireshark/inceptionn.lua) under tshark,
# against inc-pcap on the captures and on a capture of nic-switch -w.
SUITES_tools += wireshark
DESC_wireshark := the Lua dissector under tshark against inc-pcap, and on a nic-switch capture (root)
.PHONY: test-wireshark
test-wireshark: $(BIN)/inc-pcap $(BUILD)/userlib-test/nic-switch $(BUILD)/userlib-test/ar-check
	tools/tests/test_wireshark.sh $(BIN)/inc-pcap $(BUILD)/userlib-test/nic-switch $(BUILD)/userlib-test/ar-check

# Files are never destroyed or half-written: output == input refused, a
# failure leaves the old output, checksum-offload frames and small snapshot
# lengths handled alike by inc-pcap and inc-rtl-pcap (when built).
SUITES_tools += tools-safety
DESC_tools-safety := inc-pcap/inc-rtl-pcap/inc-codec: output==input refused, no partial output, offload checksums, snaplen
.PHONY: test-tools-safety
test-tools-safety: $(SAN_TOOLS)
	INC_BIN=$(SAN_BIN) tools/tests/test_safety.sh

# --- make install: the programs ----------------------------------------------
# Every program the docs tell users to run goes to $(PREFIX)/bin; each
# answers --help. inc-rtl-pcap (and its 512-bit sibling, which --width 512
# runs from the same directory) is installed when it is built (it needs
# Verilator; plain `make` builds it). make uninstall removes exactly these.
INSTALL_PROGRAMS := $(BIN)/inc-run $(BIN)/inc-bench $(BIN)/inc-train $(BIN)/inc-codec \
	$(BIN)/inc-pcap $(BIN)/inc-tcpgen
INSTALL_PROGRAMS_IF_BUILT := $(BIN)/inc-rtl-pcap $(BIN)/inc-rtl-pcap-w512
.PHONY: install-programs uninstall-programs
install: install-programs
install-programs: $(INSTALL_PROGRAMS)
	install -d $(PREFIX)/bin
	install -m 755 $(INSTALL_PROGRAMS) $(PREFIX)/bin/
	for p in $(INSTALL_PROGRAMS_IF_BUILT); do \
		if [ -x "$$p" ]; then install -m 755 "$$p" $(PREFIX)/bin/; \
		else echo "not installed: $$p (not built; make $$p needs Verilator)"; fi; \
	done
	@echo "installed the programs into $(PREFIX)/bin"
uninstall: uninstall-programs
uninstall-programs:
	rm -f $(addprefix $(PREFIX)/bin/,$(notdir $(INSTALL_PROGRAMS) $(INSTALL_PROGRAMS_IF_BUILT)))

# make install into a temporary prefix: every program runs from there
# (--help), make uninstall leaves the prefix as it was.
SUITES_tools += install
DESC_install := make install PREFIX=tmp: every program in bin/ answers --help; make uninstall removes exactly it
.PHONY: test-install
test-install: $(INSTALL_PROGRAMS) $(LIB)/libinceptionn.so
	tools/tests/test_install.sh
