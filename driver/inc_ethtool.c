// SPDX-License-Identifier: GPL-2.0
/*
 * inc_ethtool.c - ethtool operations of the stacked device: driver info and
 * the statistics shown by `ethtool -S inc0`.
 *
 * Layout of the statistics: the fixed counters of enum inc_stat, then per
 * enum inc_reason (except "none") tx_bypass_<reason>, rx_bypass_<reason>
 * and rx_malformed_<reason>, then, on the FPGA path, the engines' CSR
 * counters prefixed "hw_".
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include "inc_drv.h"

static const char inc_fixed_names[INC_ST_FIXED_COUNT][ETH_GSTRING_LEN] = {
	[INC_ST_TX_PACKETS]          = "tx_packets",
	[INC_ST_TX_BYTES]            = "tx_bytes",
	[INC_ST_TX_DROPPED]          = "tx_dropped",
	[INC_ST_TX_GSO_SEGMENTED]    = "tx_gso_segmented",
	[INC_ST_TX_COMPRESSED]       = "tx_compressed_frames",
	[INC_ST_TX_CMP_BYTES_IN]     = "tx_compressed_bytes_in",
	[INC_ST_TX_CMP_BYTES_OUT]    = "tx_compressed_bytes_out",
	[INC_ST_TX_CMP_PAYLOAD_IN]   = "tx_compressed_payload_in",
	[INC_ST_TX_CMP_PAYLOAD_OUT]  = "tx_compressed_payload_out",
	[INC_ST_TX_VALUES_0BIT]      = "tx_values_0bit",
	[INC_ST_TX_VALUES_8BIT]      = "tx_values_8bit",
	[INC_ST_TX_VALUES_16BIT]     = "tx_values_16bit",
	[INC_ST_TX_VALUES_RAW]       = "tx_values_raw",
	[INC_ST_RX_PACKETS]          = "rx_packets",
	[INC_ST_RX_BYTES]            = "rx_bytes",
	[INC_ST_RX_DROPPED]          = "rx_dropped",
	[INC_ST_RX_DECOMPRESSED]     = "rx_decompressed_frames",
	[INC_ST_RX_DCMP_BYTES_IN]    = "rx_decompressed_bytes_in",
	[INC_ST_RX_DCMP_BYTES_OUT]   = "rx_decompressed_bytes_out",
	[INC_ST_RX_DCMP_PAYLOAD_IN]  = "rx_decompressed_payload_in",
	[INC_ST_RX_DCMP_PAYLOAD_OUT] = "rx_decompressed_payload_out",
};

/* The per-reason blocks, in output order. */
static const struct {
	const char *prefix;
	unsigned int base;
} inc_reason_blocks[] = {
	{ "tx_bypass_", INC_ST_TX_BYPASS },
	{ "rx_bypass_", INC_ST_RX_BYPASS },
	{ "rx_malformed_", INC_ST_RX_MALFORMED },
};

#define INC_SW_STATS (INC_ST_FIXED_COUNT + \
		      ARRAY_SIZE(inc_reason_blocks) * (INC_R_COUNT - 1))

static void inc_get_drvinfo(struct net_device *dev,
			    struct ethtool_drvinfo *info)
{
	struct inc_priv *priv = netdev_priv(dev);

	strscpy(info->driver, INC_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, INC_DRV_VERSION, sizeof(info->version));
	strscpy(info->bus_info, priv->hw ? inc_hw_bus_info(priv->hw) : "software",
		sizeof(info->bus_info));
}

static int inc_get_sset_count(struct net_device *dev, int sset)
{
	struct inc_priv *priv = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return INC_SW_STATS + (priv->hw ? inc_hw_stats_count() : 0);
}

static void inc_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct inc_priv *priv = netdev_priv(dev);
	unsigned int b, r;

	if (sset != ETH_SS_STATS)
		return;
	memcpy(data, inc_fixed_names, sizeof(inc_fixed_names));
	data += sizeof(inc_fixed_names);
	for (b = 0; b < ARRAY_SIZE(inc_reason_blocks); b++) {
		for (r = 1; r < INC_R_COUNT; r++) {
			snprintf(data, ETH_GSTRING_LEN, "%s%s",
				 inc_reason_blocks[b].prefix,
				 inc_reason_name((enum inc_reason)r));
			data += ETH_GSTRING_LEN;
		}
	}
	if (priv->hw)
		inc_hw_stats_strings(data);
}

static void inc_get_ethtool_stats(struct net_device *dev,
				  struct ethtool_stats *stats, u64 *data)
{
	struct inc_priv *priv = netdev_priv(dev);
	unsigned int b, r;
	u64 *c;

	c = kmalloc_array(INC_ST_COUNT, sizeof(u64), GFP_KERNEL);
	if (!c) {
		memset(data, 0, sizeof(u64) * stats->n_stats);
		return;
	}
	inc_stats_fold(priv, c);
	memcpy(data, c, sizeof(u64) * INC_ST_FIXED_COUNT);
	data += INC_ST_FIXED_COUNT;
	for (b = 0; b < ARRAY_SIZE(inc_reason_blocks); b++)
		for (r = 1; r < INC_R_COUNT; r++)
			*data++ = c[inc_reason_blocks[b].base + r];
	kfree(c);
	if (priv->hw)
		inc_hw_stats_read(priv->hw, data);
}

const struct ethtool_ops inc_ethtool_ops = {
	.get_drvinfo       = inc_get_drvinfo,
	.get_link          = ethtool_op_get_link,
	.get_sset_count    = inc_get_sset_count,
	.get_strings       = inc_get_strings,
	.get_ethtool_stats = inc_get_ethtool_stats,
};
