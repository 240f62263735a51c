/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inc_compat.h - the one place for kernel-version differences. The module
 * is written against Linux 6.1 (Debian 12's linux-headers-amd64, which the
 * QEMU harness boots) and builds against Debian 12's 6.12 line too; older
 * kernels are refused here (one clear message) rather than with version
 * checks scattered through the sources.
 */
#ifndef INC_COMPAT_H
#define INC_COMPAT_H

#include <linux/netdevice.h>
#include <linux/version.h>

/* skb_gso_segment() moved from <linux/netdevice.h> to <net/gso.h> in 6.5. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#include <net/gso.h>
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "inceptionn needs Linux >= 6.1 (netif_inherit_tso_max, netdev_hold)"
#endif

/*
 * rtnl_link_ops.newlink took (src_net, dev, tb, data, extack) up to 6.14;
 * from 6.15 it takes (dev, struct rtnl_newlink_params *, extack), the
 * namespaces and attributes in the struct (include/net/rtnetlink.h: src_net,
 * link_net, peer_net, tb, data; rtnl_newlink_link_net() picks link_net or
 * src_net). Kbuild defines INC_HAVE_NEWLINK_PARAMS when the headers declare
 * the struct, and inc_netdev.c provides the matching inc_newlink. Tested
 * (QEMU suite): Debian's 6.1 and 6.12 lines; 6.13 and later build from the
 * same definitions but have not been booted here (docs/driver.md).
 */

/*
 * Lockless transmit and "never moves to another namespace" were feature
 * bits (NETIF_F_LLTX, NETIF_F_NETNS_LOCAL) up to 6.11 and are device fields
 * (dev->lltx, dev->netns_local) from 6.12 on; the latter became
 * dev->netns_immutable, which later 6.12 stable releases carry too, so
 * Kbuild defines INC_HAVE_NETNS_IMMUTABLE from the headers (checked against
 * Debian's 6.1.0-56, 6.12.111 and 6.12.117 headers).
 */
static inline void inc_compat_set_lltx_netns_local(struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	dev->lltx = true;
#ifdef INC_HAVE_NETNS_IMMUTABLE
	dev->netns_immutable = true;
#else
	dev->netns_local = true;
#endif
#else
	dev->features |= NETIF_F_LLTX | NETIF_F_NETNS_LOCAL;
#endif
}

#endif /* INC_COMPAT_H */
