/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inc_compat.h - the one place for kernel-version differences. The module
 * is written against Linux 6.1 (Debian 12's linux-headers-amd64, which the
 * QEMU harness boots) and builds against Debian 12's 6.12 line too; older
 * kernels are refused here rather than with version checks scattered
 * through the sources.
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
 * Later kernels pass the newlink arguments in a struct rtnl_newlink_params.
 * inc_newlink implements the 6.1 signature only, so the build stops on
 * kernels the module has not been ported to instead of failing obscurely.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
#error "inceptionn: port inc_newlink to this kernel's rtnl_link_ops.newlink"
#endif

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
