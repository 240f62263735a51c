// SPDX-License-Identifier: GPL-2.0
/*
 * inc_netdev.c - the stacked "inceptionn" device.
 *
 *   ip link add link veth0 name inc0 type inceptionn
 *
 * inc0 sits on top of an Ethernet device (the lower device). Frames the
 * stack sends on inc0 go out on the lower device; ToS-matched IPv4 TCP
 * segments are compressed on the way with the sw-model frame codec
 * (inc_frame_compress). An rx_handler on the lower device decompresses
 * marked frames (inc_frame_decompress) and hands every frame to inc0. When
 * the lower device is an INCEPTIONN FPGA NIC (inc_pci.c) the engines do
 * both and this file only programs them and passes frames through.
 *
 * Design notes (docs/driver.md has the long form):
 * - inc0 advertises GSO: untagged super-packets go down unchanged and are
 *   segmented (if at all) by the lower device. A tagged super-packet is
 *   segmented here in software first, because the codec works per wire
 *   frame; every segment then gets its TCP checksum resolved in software
 *   (the compressed frame carries the checksum of the original payload,
 *   docs/wire-format.md) before it is compressed.
 * - Compressed frames carry IP protocol 253, which GRO has no handler for,
 *   so GRO on the lower device never merges them.
 * - Only frames a cheap header peek cannot rule out reach the model: on TX
 *   IPv4 frames with a matching ToS, on RX IPv4 frames with a matching ToS
 *   and protocol 253. The peek is the model's inc_frame_peek (the first
 *   checks of the normative decision order) on the first bytes, so the
 *   bypass counters name the same reasons.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <net/rtnetlink.h>
#include "inc_drv.h"

#define INC_CFG_DEFAULT inc_cfg_pack(INC_TOS_DEFAULT, INC_TOS_MASK_DEFAULT, \
				     INC_EB_DEFAULT, true, true)

#define INC_FEATURES (NETIF_F_SG | NETIF_F_HW_CSUM | NETIF_F_HIGHDMA | \
		      NETIF_F_GSO_SOFTWARE)

/* ------------------------------------------------------------------------ */
/* Statistics                                                                 */
/* ------------------------------------------------------------------------ */

/* Callers run with BH disabled (xmit and rx paths), so this CPU's block
 * cannot be updated concurrently. */
static inline struct inc_pcpu_stats *inc_st_begin(struct inc_priv *priv)
{
	struct inc_pcpu_stats *s = this_cpu_ptr(priv->stats);

	u64_stats_update_begin(&s->syncp);
	return s;
}

static inline void inc_st_end(struct inc_pcpu_stats *s)
{
	u64_stats_update_end(&s->syncp);
}

static void inc_st_inc(struct inc_priv *priv, unsigned int i)
{
	struct inc_pcpu_stats *s = inc_st_begin(priv);

	s->c[i]++;
	inc_st_end(s);
}

/* Sum the per-CPU counters into out[INC_ST_COUNT]. */
void inc_stats_fold(struct inc_priv *priv, u64 *out)
{
	u64 tmp[INC_ST_COUNT];
	unsigned int start, i;
	int cpu;

	memset(out, 0, sizeof(u64) * INC_ST_COUNT);
	for_each_possible_cpu(cpu) {
		const struct inc_pcpu_stats *s = per_cpu_ptr(priv->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			memcpy(tmp, s->c, sizeof(tmp));
		} while (u64_stats_fetch_retry(&s->syncp, start));
		for (i = 0; i < INC_ST_COUNT; i++)
			out[i] += tmp[i];
	}
}

/* One counter summed over the CPUs. */
static u64 inc_stat_sum(struct inc_priv *priv, unsigned int i)
{
	unsigned int start;
	u64 sum = 0, v;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct inc_pcpu_stats *s = per_cpu_ptr(priv->stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			v = s->c[i];
		} while (u64_stats_fetch_retry(&s->syncp, start));
		sum += v;
	}
	return sum;
}

static void inc_get_stats64(struct net_device *dev,
			    struct rtnl_link_stats64 *st)
{
	struct inc_priv *priv = netdev_priv(dev);
	unsigned int r;

	st->tx_packets = inc_stat_sum(priv, INC_ST_TX_PACKETS);
	st->tx_bytes = inc_stat_sum(priv, INC_ST_TX_BYTES);
	st->tx_dropped = inc_stat_sum(priv, INC_ST_TX_DROPPED);
	st->rx_packets = inc_stat_sum(priv, INC_ST_RX_PACKETS);
	st->rx_bytes = inc_stat_sum(priv, INC_ST_RX_BYTES);
	st->rx_dropped = inc_stat_sum(priv, INC_ST_RX_DROPPED);
	st->rx_errors = 0;      /* malformed frames, passed on unchanged */
	for (r = 0; r < INC_R_COUNT; r++)
		st->rx_errors += inc_stat_sum(priv, INC_ST_RX_MALFORMED + r);
}

/* ------------------------------------------------------------------------ */
/* Transmit                                                                   */
/* ------------------------------------------------------------------------ */

/*
 * Header peek on the Ethernet frame that starts l2_off bytes from
 * skb->data: the model's inc_frame_peek (checks 1-5 of the decision order)
 * on the first bytes, so untagged traffic never has to be linearised.
 * INC_R_NONE means the model must see the whole frame. On RX the caller
 * adds the marker test.
 */
static enum inc_reason inc_peek(const struct sk_buff *skb, int l2_off,
				u32 cfg, u8 *proto)
{
	struct inc_frame_config fc = {
		.tos_value = inc_cfg_tos(cfg),
		.tos_mask = inc_cfg_mask(cfg),
	};
	u8 buf[INC_FRAME_PEEK_BYTES];
	unsigned int n = min_t(unsigned int, skb->len - l2_off, sizeof(buf));
	const u8 *p = skb_header_pointer(skb, l2_off, n, buf);

	*proto = 0;
	if (!p)
		return INC_R_NONE;
	return inc_frame_peek(p, n, &fc, proto);
}

static void inc_xmit_lower(struct inc_priv *priv, struct sk_buff *skb)
{
	unsigned int len = skb->len;
	struct inc_pcpu_stats *s;
	int ret;

	skb->dev = priv->lower;
	ret = dev_queue_xmit(skb);
	s = inc_st_begin(priv);
	if (likely(ret == NET_XMIT_SUCCESS || ret == NET_XMIT_CN)) {
		s->c[INC_ST_TX_PACKETS]++;
		s->c[INC_ST_TX_BYTES] += len;
	} else {
		s->c[INC_ST_TX_DROPPED]++;
	}
	inc_st_end(s);
}

/* Compress one non-GSO frame if the model says so, then send it. */
static void inc_tx_one(struct inc_priv *priv, struct sk_buff *skb, u32 cfg)
{
	struct inc_frame_config fc = {
		.tos_value = inc_cfg_tos(cfg),
		.tos_mask = inc_cfg_mask(cfg),
		.eb = inc_cfg_eb(cfg),
		.max_frame = 0, /* the stack and GSO bound the frame already */
	};
	struct net_device *lower = priv->lower;
	struct inc_frame_info info;
	struct inc_pcpu_stats *s;
	struct sk_buff *nskb;
	unsigned int len, i;
	long r;

	/* Linear first, so the checksum start lies in the head; then the TCP
	 * checksum must be final: the compressed frame carries it. */
	if (skb_linearize(skb))
		goto drop;
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		goto drop;
	len = skb->len;
	/* inc_frame_compress never grows a frame: len bytes always suffice.
	 * Head- and tailroom are the lower device's as they are now (they
	 * may change while this device lives, e.g. under a bond). */
	nskb = alloc_skb(LL_RESERVED_SPACE(lower) + len + READ_ONCE(lower->needed_tailroom),
			 GFP_ATOMIC);
	if (!nskb)
		goto drop;
	skb_reserve(nskb, LL_RESERVED_SPACE(lower));
	r = inc_frame_compress(skb->data, len, nskb->data, len, &fc, &info);
	if (r <= 0 || info.outcome != INC_OUT_COMPRESSED) {
		consume_skb(nskb);
		if (unlikely(r < 0)) {
			if (net_ratelimit())
				netdev_warn(priv->dev, "compress: %s\n",
					    inc_model_strerror((int)r));
			goto drop;
		}
		if (info.outcome == INC_OUT_DROPPED) {
			inc_st_inc(priv, INC_ST_TX_DROPPED);
			kfree_skb(skb);
			return;
		}
		inc_st_inc(priv, INC_ST_TX_BYPASS + info.reason);
		inc_xmit_lower(priv, skb);
		return;
	}
	skb_put(nskb, (unsigned int)r);
	skb_copy_header(nskb, skb);
	/* skb_copy_header copied the original's head-relative header offsets,
	 * which do not fit the new skb's headroom: set them from the frame. */
	skb_reset_mac_header(nskb);
	skb_set_network_header(nskb, info.l3_off);
	skb_set_transport_header(nskb, info.l4_off);
	nskb->mac_len = info.l3_off;
	nskb->ip_summed = CHECKSUM_NONE;
	/* The compressed skb takes the original's place in its socket's
	 * accounting: the same owner, destructor and charged truesize, so TCP
	 * small queues, pacing and completion see it leave the lower device
	 * (the original is consumed without touching the socket), and the
	 * timestamping request goes with it. */
	if (skb->sk) {
		nskb->sk = skb->sk;
		nskb->destructor = skb->destructor;
		nskb->truesize = skb->truesize;
		skb->sk = NULL;
		skb->destructor = NULL;
	}
	skb_shinfo(nskb)->tx_flags = skb_shinfo(skb)->tx_flags;
	skb_shinfo(nskb)->tskey = skb_shinfo(skb)->tskey;
	s = inc_st_begin(priv);
	s->c[INC_ST_TX_COMPRESSED]++;
	s->c[INC_ST_TX_CMP_BYTES_IN] += len;
	s->c[INC_ST_TX_CMP_BYTES_OUT] += (u64)r;
	s->c[INC_ST_TX_CMP_PAYLOAD_IN] += info.payload_in;
	s->c[INC_ST_TX_CMP_PAYLOAD_OUT] += info.payload_out;
	for (i = 0; i < 4; i++)
		s->c[INC_ST_TX_VALUES_0BIT + i] += info.counts.n[i];
	inc_st_end(s);
	consume_skb(skb);
	inc_xmit_lower(priv, nskb);
	return;
drop:
	inc_st_inc(priv, INC_ST_TX_DROPPED);
	kfree_skb(skb);
}

static netdev_tx_t inc_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct inc_priv *priv = netdev_priv(dev);
	u32 cfg = READ_ONCE(priv->cfg);
	enum inc_reason reason;
	struct sk_buff *segs, *seg, *next;
	u8 proto = 0;

	if (inc_hw_live(priv->hw)) {    /* the TX engine compresses */
		inc_xmit_lower(priv, skb);
		return NETDEV_TX_OK;
	}
	if (!(cfg & INC_CFG_TX_EN)) {
		inc_st_inc(priv, INC_ST_TX_BYPASS + INC_R_DISABLED);
		inc_xmit_lower(priv, skb);
		return NETDEV_TX_OK;
	}
	/* The model sees the frame as on the wire: VLAN tag in line. */
	if (skb_vlan_tag_present(skb)) {
		skb = __vlan_hwaccel_push_inside(skb);
		if (!skb) {
			inc_st_inc(priv, INC_ST_TX_DROPPED);
			return NETDEV_TX_OK;
		}
	}
	reason = inc_peek(skb, 0, cfg, &proto);
	if (reason != INC_R_NONE) {
		inc_st_inc(priv, INC_ST_TX_BYPASS + reason);
		inc_xmit_lower(priv, skb);
		return NETDEV_TX_OK;
	}
	if (!skb_is_gso(skb)) {
		inc_tx_one(priv, skb, cfg);
		return NETDEV_TX_OK;
	}
	if (proto != IPPROTO_TCP) {     /* e.g. UDP GSO: never compressed */
		inc_st_inc(priv, INC_ST_TX_BYPASS + INC_R_NOT_TCP);
		inc_xmit_lower(priv, skb);
		return NETDEV_TX_OK;
	}
	/* A tagged TCP super-packet: segment in software (no offloads, so
	 * each segment is linear with its checksum done), compress each. The
	 * stack's GSO packets are CHECKSUM_PARTIAL, forwarded ones may be
	 * CHECKSUM_UNNECESSARY; segmenting any other state would trip the
	 * core's bad-offload warning, so such a packet (only a raw socket can
	 * make one) is dropped instead. */
	if (unlikely(skb->ip_summed != CHECKSUM_PARTIAL &&
		     skb->ip_summed != CHECKSUM_UNNECESSARY)) {
		if (net_ratelimit())
			netdev_warn(dev, "GSO packet with checksum state %u dropped\n",
				    skb->ip_summed);
		inc_st_inc(priv, INC_ST_TX_DROPPED);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR(segs)) {
		if (net_ratelimit())
			netdev_warn(dev, "GSO segmentation failed: %ld\n",
				    PTR_ERR(segs));
		inc_st_inc(priv, INC_ST_TX_DROPPED);
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	if (!segs) {                    /* nothing to segment: one frame */
		skb_gso_reset(skb);
		inc_tx_one(priv, skb, cfg);
		return NETDEV_TX_OK;
	}
	inc_st_inc(priv, INC_ST_TX_GSO_SEGMENTED);
	consume_skb(skb);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		inc_tx_one(priv, seg, cfg);
	}
	return NETDEV_TX_OK;
}

/* ------------------------------------------------------------------------ */
/* Receive                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * Decompress a marked frame. Returns the skb to deliver (a new one when
 * decompressed, the original otherwise), or NULL when the frame was
 * dropped.
 */
static struct sk_buff *inc_rx_decompress(struct inc_priv *priv,
					 struct sk_buff *skb, u32 cfg)
{
	struct net_device *dev = priv->dev;
	struct inc_frame_config fc = {
		.tos_value = inc_cfg_tos(cfg),
		.tos_mask = inc_cfg_mask(cfg),
		.eb = inc_cfg_eb(cfg),
	};
	struct inc_frame_info info;
	struct inc_pcpu_stats *s;
	struct sk_buff *nskb;
	unsigned int cap, in_len;
	long r;

	/* Restored frames may be as long as this device's MTU allows; the
	 * model refuses (malformed) a shim that claims more. */
	cap = min_t(unsigned int, dev->mtu + VLAN_ETH_HLEN, INC_FRAME_OUT_MAX);
	cap = max_t(unsigned int, cap, ETH_ZLEN);
	fc.max_frame = (u16)min_t(unsigned int, cap, U16_MAX);

	if (skb_linearize(skb))
		goto drop;
	in_len = skb->len + ETH_HLEN;
	nskb = netdev_alloc_skb_ip_align(dev, cap);
	if (!nskb)
		goto drop;
	r = inc_frame_decompress(skb_mac_header(skb), in_len, nskb->data, cap,
				 &fc, &info);
	if (unlikely(r < 0)) {
		consume_skb(nskb);
		if (net_ratelimit())
			netdev_warn(dev, "decompress: %s\n",
				    inc_model_strerror((int)r));
		inc_st_inc(priv, INC_ST_RX_MALFORMED + INC_R_BAD_STREAM);
		return skb;
	}
	switch (info.outcome) {
	case INC_OUT_DECOMPRESSED:
		break;
	case INC_OUT_MALFORMED:
		consume_skb(nskb);
		if (net_ratelimit())
			netdev_dbg(dev, "malformed marked frame (%s), %u bytes\n",
				   inc_reason_name(info.reason), in_len);
		inc_st_inc(priv, INC_ST_RX_MALFORMED + info.reason);
		return skb;
	case INC_OUT_DROPPED:
		consume_skb(nskb);
		s = inc_st_begin(priv);
		s->c[INC_ST_RX_DROPPED]++;
		s->c[INC_ST_RX_MALFORMED + info.reason]++;
		inc_st_end(s);
		kfree_skb(skb);
		return NULL;
	default:
		consume_skb(nskb);
		inc_st_inc(priv, INC_ST_RX_BYPASS + info.reason);
		return skb;
	}

	skb_put(nskb, (unsigned int)r);
	nskb->protocol = eth_type_trans(nskb, dev);
	skb_reset_network_header(nskb);
	skb_reset_mac_len(nskb);
	nskb->tstamp = skb->tstamp;
	nskb->mark = skb->mark;
	/* The model verified the restored segment's TCP checksum (format v2:
	 * the sender's, carried through the compressor) before returning it;
	 * the stack need not sum the payload again. The IP header checksum
	 * the model recomputed is checked by the stack as always. */
	nskb->ip_summed = CHECKSUM_UNNECESSARY;
	if (skb_vlan_tag_present(skb))
		__vlan_hwaccel_put_tag(nskb, skb->vlan_proto,
				       skb_vlan_tag_get(skb));
	s = inc_st_begin(priv);
	s->c[INC_ST_RX_DECOMPRESSED]++;
	s->c[INC_ST_RX_DCMP_BYTES_IN] += in_len;
	s->c[INC_ST_RX_DCMP_BYTES_OUT] += (u64)r;
	s->c[INC_ST_RX_DCMP_PAYLOAD_IN] += info.payload_in;
	s->c[INC_ST_RX_DCMP_PAYLOAD_OUT] += info.payload_out;
	inc_st_end(s);
	consume_skb(skb);
	return nskb;
drop:
	inc_st_inc(priv, INC_ST_RX_DROPPED);
	kfree_skb(skb);
	return NULL;
}

static rx_handler_result_t inc_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct net_device *dev = rcu_dereference(skb->dev->rx_handler_data);
	struct inc_priv *priv = netdev_priv(dev);
	enum inc_reason reason = INC_R_NONE;
	struct inc_pcpu_stats *s;
	u32 cfg;
	u8 proto = 0;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	if (!netif_running(dev))
		return RX_HANDLER_PASS;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;

	cfg = READ_ONCE(priv->cfg);
	if (inc_hw_live(priv->hw)) {
		/* the RX engine has decompressed already */
	} else if (!(cfg & INC_CFG_RX_EN)) {
		inc_st_inc(priv, INC_ST_RX_BYPASS + INC_R_DISABLED);
	} else if (skb_mac_header_was_set(skb) &&
		   skb->data - skb_mac_header(skb) == ETH_HLEN) {
		reason = inc_peek(skb, -ETH_HLEN, cfg, &proto);
		if (reason == INC_R_NONE && proto != INC_WIRE_IPPROTO &&
		    proto != 0)
			reason = INC_R_NOT_MARKED;
		if (reason == INC_R_NONE) {
			skb = inc_rx_decompress(priv, skb, cfg);
			if (!skb) {
				*pskb = NULL;
				return RX_HANDLER_CONSUMED;
			}
		} else {
			inc_st_inc(priv, INC_ST_RX_BYPASS + reason);
		}
	} else {
		/* Not an Ethernet header in front of the data: leave it. */
		inc_st_inc(priv, INC_ST_RX_BYPASS + INC_R_TRUNCATED);
	}

	*pskb = skb;
	skb->dev = dev;
	/* A unicast frame for this device's own address (set apart from the
	 * lower's) was classed for the lower; class it for this device. */
	if (skb->pkt_type == PACKET_OTHERHOST &&
	    ether_addr_equal(eth_hdr(skb)->h_dest, dev->dev_addr))
		skb->pkt_type = PACKET_HOST;
	s = inc_st_begin(priv);
	s->c[INC_ST_RX_PACKETS]++;
	s->c[INC_ST_RX_BYTES] += skb->len + ETH_HLEN;
	inc_st_end(s);
	return RX_HANDLER_ANOTHER;
}

/* ------------------------------------------------------------------------ */
/* Device operations                                                          */
/* ------------------------------------------------------------------------ */

/*
 * Addresses and receive modes, as the stacked devices of the kernel (macvlan,
 * ipvlan) keep them: an address of this device other than the lower's is in
 * the lower's unicast list while this device is up; its unicast and
 * multicast lists are synced into the lower's (ndo_set_rx_mode); its
 * promiscuous and all-multicast flags count on the lower's
 * (ndo_change_rx_flags).
 */
static int inc_open(struct net_device *dev)
{
	struct inc_priv *priv = netdev_priv(dev);
	struct net_device *lower = priv->lower;
	int err;

	if (!ether_addr_equal(dev->dev_addr, lower->dev_addr)) {
		err = dev_uc_add(lower, dev->dev_addr);
		if (err)
			return err;
	}
	if (dev->flags & IFF_ALLMULTI)
		dev_set_allmulti(lower, 1);
	if (dev->flags & IFF_PROMISC)
		dev_set_promiscuity(lower, 1);
	netif_stacked_transfer_operstate(lower, dev);
	return 0;
}

static int inc_stop(struct net_device *dev)
{
	struct inc_priv *priv = netdev_priv(dev);
	struct net_device *lower = priv->lower;

	dev_uc_unsync(lower, dev);
	dev_mc_unsync(lower, dev);
	if (dev->flags & IFF_ALLMULTI)
		dev_set_allmulti(lower, -1);
	if (dev->flags & IFF_PROMISC)
		dev_set_promiscuity(lower, -1);
	if (!ether_addr_equal(dev->dev_addr, lower->dev_addr))
		dev_uc_del(lower, dev->dev_addr);
	netif_carrier_off(dev);
	return 0;
}

static int inc_set_mac_address(struct net_device *dev, void *p)
{
	struct inc_priv *priv = netdev_priv(dev);
	struct net_device *lower = priv->lower;
	struct sockaddr *addr = p;
	int err;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	if (netif_running(dev)) {
		if (!ether_addr_equal(addr->sa_data, lower->dev_addr)) {
			err = dev_uc_add(lower, addr->sa_data);
			if (err)
				return err;
		}
		if (!ether_addr_equal(dev->dev_addr, lower->dev_addr))
			dev_uc_del(lower, dev->dev_addr);
	}
	eth_hw_addr_set(dev, addr->sa_data);
	return 0;
}

static void inc_set_rx_mode(struct net_device *dev)
{
	struct inc_priv *priv = netdev_priv(dev);

	dev_uc_sync(priv->lower, dev);
	dev_mc_sync(priv->lower, dev);
}

static void inc_change_rx_flags(struct net_device *dev, int change)
{
	struct inc_priv *priv = netdev_priv(dev);

	if (!(dev->flags & IFF_UP))
		return;
	if (change & IFF_ALLMULTI)
		dev_set_allmulti(priv->lower, dev->flags & IFF_ALLMULTI ? 1 : -1);
	if (change & IFF_PROMISC)
		dev_set_promiscuity(priv->lower, dev->flags & IFF_PROMISC ? 1 : -1);
}

static int inc_change_mtu(struct net_device *dev, int new_mtu)
{
	struct inc_priv *priv = netdev_priv(dev);

	if (new_mtu > priv->lower->mtu)
		return -EINVAL;
	dev->mtu = new_mtu;
	return 0;
}

static int inc_get_iflink(const struct net_device *dev)
{
	const struct inc_priv *priv = netdev_priv(dev);

	return priv->lower->ifindex;
}

static const struct net_device_ops inc_netdev_ops = {
	.ndo_open        = inc_open,
	.ndo_stop        = inc_stop,
	.ndo_start_xmit  = inc_start_xmit,
	.ndo_change_mtu  = inc_change_mtu,
	.ndo_get_stats64 = inc_get_stats64,
	.ndo_get_iflink  = inc_get_iflink,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = inc_set_mac_address,
	.ndo_set_rx_mode = inc_set_rx_mode,
	.ndo_change_rx_flags = inc_change_rx_flags,
};

/* ------------------------------------------------------------------------ */
/* Configuration: /sys/class/net/<dev>/inceptionn/                           */
/* ------------------------------------------------------------------------ */

int inc_priv_set_cfg(struct inc_priv *priv, u32 cfg)
{
	int err = 0;

	ASSERT_RTNL();
	if (inc_hw_live(priv->hw))
		err = inc_hw_configure(priv->hw, cfg);
	if (!err)
		WRITE_ONCE(priv->cfg, cfg);
	return err;
}

enum inc_attr_id { INC_A_TOS, INC_A_MASK, INC_A_EB, INC_A_TX, INC_A_RX };

static ssize_t inc_attr_show(struct device *d, char *buf, enum inc_attr_id id)
{
	struct inc_priv *priv = netdev_priv(to_net_dev(d));
	u32 cfg = READ_ONCE(priv->cfg);

	switch (id) {
	case INC_A_TOS:
		return sysfs_emit(buf, "0x%02x\n", inc_cfg_tos(cfg));
	case INC_A_MASK:
		return sysfs_emit(buf, "0x%02x\n", inc_cfg_mask(cfg));
	case INC_A_EB:
		return sysfs_emit(buf, "%u\n", inc_cfg_eb(cfg));
	case INC_A_TX:
		return sysfs_emit(buf, "%d\n", !!(cfg & INC_CFG_TX_EN));
	case INC_A_RX:
		return sysfs_emit(buf, "%d\n", !!(cfg & INC_CFG_RX_EN));
	}
	return -EINVAL;
}

static ssize_t inc_attr_store(struct device *d, const char *buf, size_t len,
			      enum inc_attr_id id)
{
	struct net_device *dev = to_net_dev(d);
	struct inc_priv *priv = netdev_priv(dev);
	u32 cfg;
	bool on;
	u8 v;
	int err;

	if (!ns_capable(dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (id == INC_A_TX || id == INC_A_RX) {
		err = kstrtobool(buf, &on);
		v = on;
	} else {
		err = kstrtou8(buf, 0, &v);
	}
	if (err)
		return err;
	if (id == INC_A_EB && (v < INC_EB_MIN || v > INC_EB_MAX))
		return -ERANGE;
	if (!rtnl_trylock())
		return restart_syscall();
	cfg = priv->cfg;
	switch (id) {
	case INC_A_TOS:
		cfg = inc_cfg_pack(v, inc_cfg_mask(cfg), inc_cfg_eb(cfg),
				   cfg & INC_CFG_TX_EN, cfg & INC_CFG_RX_EN);
		break;
	case INC_A_MASK:
		cfg = inc_cfg_pack(inc_cfg_tos(cfg), v, inc_cfg_eb(cfg),
				   cfg & INC_CFG_TX_EN, cfg & INC_CFG_RX_EN);
		break;
	case INC_A_EB:
		cfg = inc_cfg_pack(inc_cfg_tos(cfg), inc_cfg_mask(cfg), v,
				   cfg & INC_CFG_TX_EN, cfg & INC_CFG_RX_EN);
		break;
	case INC_A_TX:
		cfg = (cfg & ~INC_CFG_TX_EN) | (v ? INC_CFG_TX_EN : 0);
		break;
	case INC_A_RX:
		cfg = (cfg & ~INC_CFG_RX_EN) | (v ? INC_CFG_RX_EN : 0);
		break;
	}
	err = inc_priv_set_cfg(priv, cfg);
	rtnl_unlock();
	return err ? err : (ssize_t)len;
}

#define INC_ATTR(name, id)                                                   \
static ssize_t name##_show(struct device *d, struct device_attribute *a,    \
			   char *buf)                                        \
{                                                                            \
	return inc_attr_show(d, buf, id);                                    \
}                                                                            \
static ssize_t name##_store(struct device *d, struct device_attribute *a,   \
			    const char *buf, size_t len)                     \
{                                                                            \
	return inc_attr_store(d, buf, len, id);                              \
}                                                                            \
static DEVICE_ATTR_RW(name)

INC_ATTR(tos_value, INC_A_TOS);
INC_ATTR(tos_mask, INC_A_MASK);
INC_ATTR(eb, INC_A_EB);
INC_ATTR(tx_enable, INC_A_TX);
INC_ATTR(rx_enable, INC_A_RX);

static ssize_t offload_show(struct device *d, struct device_attribute *a,
			    char *buf)
{
	struct inc_priv *priv = netdev_priv(to_net_dev(d));

	if (inc_hw_live(priv->hw))
		return sysfs_emit(buf, "fpga %s\n", inc_hw_bus_info(priv->hw));
	if (priv->hw)
		return sysfs_emit(buf, "software (fpga %s removed)\n", inc_hw_bus_info(priv->hw));
	return sysfs_emit(buf, "software\n");
}
static DEVICE_ATTR_RO(offload);

static struct attribute *inc_attrs[] = {
	&dev_attr_tos_value.attr,
	&dev_attr_tos_mask.attr,
	&dev_attr_eb.attr,
	&dev_attr_tx_enable.attr,
	&dev_attr_rx_enable.attr,
	&dev_attr_offload.attr,
	NULL,
};

static const struct attribute_group inc_attr_group = {
	.name = "inceptionn",
	.attrs = inc_attrs,
};

/* ------------------------------------------------------------------------ */
/* rtnetlink: ip link add link DEV name NAME type inceptionn                  */
/* ------------------------------------------------------------------------ */

/* Free what newlink set up before registering the device. */
static void inc_priv_release(struct inc_priv *priv)
{
	free_percpu(priv->stats);
	priv->stats = NULL;
	if (priv->hw) {
		/* Back to pass-through: nobody decompresses for us any more. */
		inc_hw_configure(priv->hw, priv->cfg & ~(INC_CFG_TX_EN |
							 INC_CFG_RX_EN));
		inc_hw_release_owner(priv->hw);
	}
	priv->hw = NULL;
}

static void inc_destructor(struct net_device *dev)
{
	inc_priv_release(netdev_priv(dev));
}

static void inc_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &inc_netdev_ops;
	dev->ethtool_ops = &inc_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = inc_destructor;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	dev->priv_flags |= IFF_NO_QUEUE | IFF_UNICAST_FLT;
	dev->features = INC_FEATURES;
	inc_compat_set_lltx_netns_local(dev);
	dev->hw_features = INC_FEATURES;
	dev->vlan_features = INC_FEATURES;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
	dev->sysfs_groups[0] = &inc_attr_group;
}

static bool inc_is_port(const struct net_device *lower)
{
	return rcu_access_pointer(lower->rx_handler) == inc_rx_handler;
}

/* link_net: where IFLA_LINK names the lower device (the request's
 * namespace, or the one IFLA_LINK_NETNSID names). */
static int inc_newlink_common(struct net *link_net, struct net_device *dev,
			      struct nlattr *tb[], struct netlink_ext_ack *extack)
{
	struct inc_priv *priv = netdev_priv(dev);
	struct net_device *lower;
	int err;

	if (!tb[IFLA_LINK]) {
		NL_SET_ERR_MSG(extack, "inceptionn: needs a lower device (link DEV)");
		return -EINVAL;
	}
	lower = __dev_get_by_index(link_net, nla_get_u32(tb[IFLA_LINK]));
	if (!lower) {
		NL_SET_ERR_MSG(extack, "inceptionn: lower device not found");
		return -ENODEV;
	}
	if (lower->type != ARPHRD_ETHER || lower->addr_len != ETH_ALEN ||
	    (lower->flags & IFF_LOOPBACK)) {
		NL_SET_ERR_MSG(extack, "inceptionn: lower device must be Ethernet");
		return -EINVAL;
	}
	if (lower->rtnl_link_ops == &inc_link_ops) {
		NL_SET_ERR_MSG(extack, "inceptionn: cannot stack on an inceptionn device");
		return -EINVAL;
	}
	if (netdev_is_rx_handler_busy(lower)) {
		NL_SET_ERR_MSG(extack, "inceptionn: lower device already has an rx handler");
		return -EBUSY;
	}
	if (tb[IFLA_MTU] && dev->mtu > lower->mtu) {
		NL_SET_ERR_MSG(extack, "inceptionn: MTU above the lower device's");
		return -EINVAL;
	}

	priv->dev = dev;
	priv->lower = lower;
	priv->cfg = INC_CFG_DEFAULT;
	priv->stats = netdev_alloc_pcpu_stats(struct inc_pcpu_stats);
	if (!priv->stats)
		return -ENOMEM;
	priv->hw = inc_hw_enable ? inc_hw_get(lower, dev) : NULL;
	if (IS_ERR(priv->hw)) {
		err = PTR_ERR(priv->hw);
		priv->hw = NULL;
		NL_SET_ERR_MSG(extack, "inceptionn: the FPGA engines of this slot belong to another inceptionn device");
		goto err_free;
	}
	if (priv->hw) {
		err = inc_hw_configure(priv->hw, priv->cfg);
		if (err) {
			NL_SET_ERR_MSG(extack, "inceptionn: cannot program the FPGA engines");
			goto err_free;
		}
	}
	if (!tb[IFLA_MTU])
		dev->mtu = lower->mtu;
	/* The lower's address unless one was given (IFLA_ADDRESS, already
	 * set by the core): frames for either reach this device. */
	if (!tb[IFLA_ADDRESS]) {
		eth_hw_addr_set(dev, lower->dev_addr);
		dev->addr_assign_type = NET_ADDR_STOLEN;  /* follows the lower's */
	}
	dev->needed_headroom = lower->needed_headroom;
	dev->needed_tailroom = lower->needed_tailroom;
	netif_inherit_tso_max(dev, lower);

	err = register_netdevice(dev);
	if (err)
		goto err_free;
	err = netdev_upper_dev_link(lower, dev, extack);
	if (err)
		goto err_unregister;
	err = netdev_rx_handler_register(lower, inc_rx_handler, dev);
	if (err)
		goto err_unlink;
	netif_stacked_transfer_operstate(lower, dev);
	return 0;

err_unlink:
	netdev_upper_dev_unlink(lower, dev);
err_unregister:
	unregister_netdevice(dev);      /* the destructor frees the rest */
	return err;
err_free:
	inc_priv_release(priv);
	return err;
}

#ifdef INC_HAVE_NEWLINK_PARAMS
/* 6.15 on: the arguments come in a struct rtnl_newlink_params. */
static int inc_newlink(struct net_device *dev, struct rtnl_newlink_params *params,
		       struct netlink_ext_ack *extack)
{
	return inc_newlink_common(rtnl_newlink_link_net(params), dev, params->tb, extack);
}
#else
static int inc_newlink(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	return inc_newlink_common(src_net, dev, tb, extack);
}
#endif

/* The lower device's namespace, reported as IFLA_LINK_NETNSID when it
 * differs from this device's (ip -d link: link-netns). */
static struct net *inc_get_link_net(const struct net_device *dev)
{
	const struct inc_priv *priv = netdev_priv(dev);

	return dev_net(priv->lower);
}

static void inc_dellink(struct net_device *dev, struct list_head *head)
{
	struct inc_priv *priv = netdev_priv(dev);

	netdev_rx_handler_unregister(priv->lower);
	netdev_upper_dev_unlink(priv->lower, dev);
	unregister_netdevice_queue(dev, head);
}

/* An address given at creation must be a unicast Ethernet address. */
static int inc_validate(struct nlattr *tb[], struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS] &&
	    (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN ||
	     !is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS])))) {
		NL_SET_ERR_MSG(extack, "inceptionn: address must be a unicast Ethernet address");
		return -EADDRNOTAVAIL;
	}
	return 0;
}

struct rtnl_link_ops inc_link_ops = {
	.kind      = INC_DRV_NAME,
	.priv_size = sizeof(struct inc_priv),
	.setup     = inc_setup,
	.validate  = inc_validate,
	.newlink   = inc_newlink,
	.dellink   = inc_dellink,
	.get_link_net = inc_get_link_net,
};

/* Follow the lower device: link state, MTU, its address (when this device
 * took it over rather than being given one) and its removal. */
static int inc_device_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *lower = netdev_notifier_info_to_dev(ptr);
	struct net_device *dev;

	if (!inc_is_port(lower))
		return NOTIFY_DONE;
	dev = rtnl_dereference(lower->rx_handler_data);
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		netif_stacked_transfer_operstate(lower, dev);
		break;
	case NETDEV_CHANGEMTU:
		if (dev->mtu > lower->mtu)
			dev_set_mtu(dev, lower->mtu);
		break;
	case NETDEV_FEAT_CHANGE:
		/* The lower's offload limits and room: what the stack may hand
		 * this device (TSO size) and reserves in front of and behind
		 * its frames. The features of inc0 itself do not follow: it
		 * segments and checksums in software before compressing. */
		netif_inherit_tso_max(dev, lower);
		dev->needed_headroom = lower->needed_headroom;
		dev->needed_tailroom = lower->needed_tailroom;
		break;
	case NETDEV_CHANGEADDR:
		if (dev->addr_assign_type != NET_ADDR_STOLEN ||
		    ether_addr_equal(dev->dev_addr, lower->dev_addr))
			break;
		eth_hw_addr_set(dev, lower->dev_addr);
		call_netdevice_notifiers(NETDEV_CHANGEADDR, dev);
		break;
	case NETDEV_UNREGISTER:
		/* Not for a move to another namespace: only on removal. */
		if (lower->reg_state != NETREG_UNREGISTERING)
			break;
		inc_dellink(dev, NULL);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block inc_notifier = {
	.notifier_call = inc_device_event,
};

int inc_netdev_init(void)
{
	int err;

	err = register_netdevice_notifier(&inc_notifier);
	if (err)
		return err;
	err = rtnl_link_register(&inc_link_ops);
	if (err)
		unregister_netdevice_notifier(&inc_notifier);
	return err;
}

void inc_netdev_exit(void)
{
	rtnl_link_unregister(&inc_link_ops);
	unregister_netdevice_notifier(&inc_notifier);
}

MODULE_ALIAS_RTNL_LINK(INC_DRV_NAME);
