/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inc_drv.h - shared declarations of the inceptionn module: the stacked
 * device's private state, its statistics and the FPGA (PCI) path.
 */
#ifndef INC_DRV_H
#define INC_DRV_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include "inc_compat.h"
#include "inc_model.h"

#define INC_DRV_NAME    "inceptionn"
#define INC_DRV_VERSION "1.0"

/*
 * Configuration of one device, packed into one word so the datapath reads
 * a consistent snapshot with a single READ_ONCE while sysfs updates it.
 */
#define INC_CFG_TOS_SHIFT   0
#define INC_CFG_MASK_SHIFT  8
#define INC_CFG_EB_SHIFT    16
#define INC_CFG_TX_EN       BIT(24)
#define INC_CFG_RX_EN       BIT(25)

static inline u32 inc_cfg_pack(u8 tos, u8 mask, u8 eb, bool tx, bool rx)
{
	return (u32)tos << INC_CFG_TOS_SHIFT | (u32)mask << INC_CFG_MASK_SHIFT |
	       (u32)eb << INC_CFG_EB_SHIFT | (tx ? INC_CFG_TX_EN : 0) |
	       (rx ? INC_CFG_RX_EN : 0);
}

static inline u8 inc_cfg_tos(u32 c)  { return (u8)(c >> INC_CFG_TOS_SHIFT); }
static inline u8 inc_cfg_mask(u32 c) { return (u8)(c >> INC_CFG_MASK_SHIFT); }
static inline u8 inc_cfg_eb(u32 c)   { return (u8)(c >> INC_CFG_EB_SHIFT); }

/*
 * Statistics. The first block has fixed names (inc_ethtool.c); then one
 * counter per enum inc_reason for TX bypass, RX bypass and RX malformed
 * (named "tx_bypass_<reason>" etc. after inc_reason_name).
 */
enum inc_stat {
	INC_ST_TX_PACKETS,          /* frames sent to the lower device */
	INC_ST_TX_BYTES,
	INC_ST_TX_DROPPED,          /* allocation / checksum / lower device errors */
	INC_ST_TX_GSO_SEGMENTED,    /* tagged GSO super-packets segmented here */
	INC_ST_TX_COMPRESSED,       /* frames compressed */
	INC_ST_TX_CMP_BYTES_IN,     /* their frame bytes before compression */
	INC_ST_TX_CMP_BYTES_OUT,    /* ... and after */
	INC_ST_TX_CMP_PAYLOAD_IN,   /* TCP payload bytes before */
	INC_ST_TX_CMP_PAYLOAD_OUT,  /* shim + stream + tail bytes after */
	INC_ST_TX_VALUES_0BIT,      /* values per codec class (tag 0..3) */
	INC_ST_TX_VALUES_8BIT,
	INC_ST_TX_VALUES_16BIT,
	INC_ST_TX_VALUES_RAW,
	INC_ST_RX_PACKETS,          /* frames delivered to the upper device */
	INC_ST_RX_BYTES,
	INC_ST_RX_DROPPED,
	INC_ST_RX_DECOMPRESSED,
	INC_ST_RX_DCMP_BYTES_IN,    /* frame bytes received (compressed) */
	INC_ST_RX_DCMP_BYTES_OUT,   /* frame bytes delivered (decompressed) */
	INC_ST_RX_DCMP_PAYLOAD_IN,
	INC_ST_RX_DCMP_PAYLOAD_OUT,
	INC_ST_FIXED_COUNT,
	INC_ST_TX_BYPASS = INC_ST_FIXED_COUNT,
	INC_ST_RX_BYPASS = INC_ST_TX_BYPASS + INC_R_COUNT,
	INC_ST_RX_MALFORMED = INC_ST_RX_BYPASS + INC_R_COUNT,
	INC_ST_COUNT = INC_ST_RX_MALFORMED + INC_R_COUNT,
};

struct inc_pcpu_stats {
	u64 c[INC_ST_COUNT];
	struct u64_stats_sync syncp;
};

struct inc_hw;

struct inc_priv {
	struct net_device *dev;
	struct net_device *lower;
	struct inc_pcpu_stats __percpu *stats;
	u32 cfg;                    /* inc_cfg_pack(); READ_ONCE in the datapath */
	struct inc_hw *hw;          /* FPGA engines behind the lower device, or NULL */
};

/* inc_netdev.c */
extern struct rtnl_link_ops inc_link_ops;
int inc_netdev_init(void);
void inc_netdev_exit(void);
void inc_stats_fold(struct inc_priv *priv, u64 *out);
int inc_priv_set_cfg(struct inc_priv *priv, u32 cfg);

/* inc_ethtool.c */
extern const struct ethtool_ops inc_ethtool_ops;

/* inc_pci.c: the FPGA offload. */
extern bool inc_hw_enable;
int inc_pci_init(void);
void inc_pci_exit(void);
/* The engines in front of lower's MAC, with a reference; NULL if none. */
/* The engines in lower's slot, owned by dev from now on; NULL if there
 * are none, ERR_PTR(-EBUSY) if another device owns them. */
struct inc_hw *inc_hw_get(struct net_device *lower, struct net_device *dev);
void inc_hw_release_owner(struct inc_hw *hw);
bool inc_hw_live(const struct inc_hw *hw);
int inc_hw_configure(struct inc_hw *hw, u32 cfg);
const char *inc_hw_bus_info(struct inc_hw *hw);
unsigned int inc_hw_stats_count(void);
void inc_hw_stats_strings(u8 *data);
void inc_hw_stats_read(struct inc_hw *hw, u64 *data);

#endif /* INC_DRV_H */
