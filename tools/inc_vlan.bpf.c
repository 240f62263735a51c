// SPDX-License-Identifier: GPL-2.0
/*
 * inc_vlan.bpf.c - tc (clsact, direct-action) programs that push one 802.1Q
 * tag (VID 100) on egress and pop it on ingress. experiments/capture.sh loads
 * them on both veth ends when the kernel has no 802.1Q (vlan device)
 * support, so the frames on the veth carry a VLAN tag put there by the
 * kernel. Built by capture.sh with: clang -O2 -target bpf -c.
 * Self-contained: helper numbers from include/uapi/linux/bpf.h.
 */
typedef unsigned short u16_;
typedef unsigned int u32_;

struct __sk_buff;

static long (*bpf_skb_vlan_push)(struct __sk_buff *skb, u16_ proto,
				 u16_ tci) = (void *)18;
static long (*bpf_skb_vlan_pop)(struct __sk_buff *skb) = (void *)19;

#define INC_VLAN_ID 100
#define TC_ACT_OK   0
#define TC_ACT_SHOT 2

__attribute__((section("tc/push"), used))
int inc_vlan_push(struct __sk_buff *skb)
{
	/* TPID 0x8100, big-endian; priority 0, VID 100. */
	if (bpf_skb_vlan_push(skb, __builtin_bswap16(0x8100), INC_VLAN_ID))
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

__attribute__((section("tc/pop"), used))
int inc_vlan_pop(struct __sk_buff *skb)
{
	bpf_skb_vlan_pop(skb);  /* untagged frames: nothing to pop */
	return TC_ACT_OK;
}

char _license[] __attribute__((section("license"), used)) = "GPL";
