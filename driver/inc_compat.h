/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inc_compat.h - the one place for kernel-version differences. The module
 * is written against Linux 6.1 (Debian 12's linux-headers-amd64, which the
 * QEMU harness boots); older kernels are refused here rather than with
 * version checks scattered through the sources.
 */
#ifndef INC_COMPAT_H
#define INC_COMPAT_H

#include <linux/version.h>

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

#endif /* INC_COMPAT_H */
