// SPDX-License-Identifier: GPL-2.0
/*
 * inc_main.c - module entry of inceptionn.ko: the stacked network device
 * (inc_netdev.c) with the sw-model codec compiled in, and the PCI driver of
 * the INCEPTIONN FPGA engines (inc_pci.c).
 */
#include <linux/module.h>
#include "inc_drv.h"

static int __init inc_init(void)
{
	int err;

	err = inc_pci_init();
	if (err)
		return err;
	err = inc_netdev_init();
	if (err)
		inc_pci_exit();
	return err;
}

static void __exit inc_exit(void)
{
	inc_netdev_exit();      /* deletes every inceptionn device */
	inc_pci_exit();
}

module_init(inc_init);
module_exit(inc_exit);

MODULE_DESCRIPTION("INCEPTIONN gradient compression offload (software datapath and FPGA engines)");
MODULE_LICENSE("GPL");
MODULE_VERSION(INC_DRV_VERSION);
