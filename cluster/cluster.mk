# cluster/ - the emulated cluster that make demo, the experiments and the
# namespace suites run on: network namespaces joined by veth pairs
# (cluster/netns-cluster.sh), a job launched over them
# (cluster/train-cluster.sh), and the user-space switch whose ports are
# emulated INCEPTIONN NICs (cluster/nic_switch.c). See cluster/README.md.
#
#   build/userlib-test/nic-switch      the switch; its NICs run the fast frame
#                                      path of libinceptionn (byte-identical to
#                                      the model; -c cross-checks)
#   build/userlib-test/nic-switch-rtl  the same with Verilated NICs (sim/top.mk)

NIC_SWITCH := $(BUILD)/userlib-test/nic-switch
$(NIC_SWITCH): cluster/nic_switch.c sim/common/inc_pcap.c sim/common/inc_pcap.h $(LIB)/libinceptionn.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Iuserlib/include -Isim/common -pthread -o $@ $(filter %.c %.a,$^)

.PHONY: nic-switch
nic-switch: $(NIC_SWITCH)
