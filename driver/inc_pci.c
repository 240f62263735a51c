// SPDX-License-Identifier: GPL-2.0
/*
 * inc_pci.c - the FPGA path: a PCI driver for the function that exposes the
 * INCEPTIONN engines' CSR block (sw-model/include/inc_regs.h, shared with
 * the RTL's inc_csr). Probe maps the register BAR, checks the ID, version
 * and capability registers and a scratch round trip, and leaves both
 * directions disabled. A stacked inceptionn device whose lower device sits
 * in the same PCI slot (the NIC function next to the engines) then programs
 * enable/ToS/mask/eb here instead of running the codec in software, and
 * `ethtool -S` appends the engines' counters.
 */
#include <linux/ethtool.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include "inc_drv.h"
#include "inc_regs.h"

bool inc_hw_enable = true;
module_param_named(fpga, inc_hw_enable, bool, 0444);
MODULE_PARM_DESC(fpga, "Use the FPGA engines when present (default: yes)");

/* A bitstream may place the CSR block behind another BAR than the register
 * map's default; the QEMU test uses a memory BAR (ivshmem) as a stand-in. */
static int inc_csr_bar = INC_PCI_BAR;
module_param_named(csr_bar, inc_csr_bar, int, 0444);
MODULE_PARM_DESC(csr_bar, "BAR holding the CSR block (default: INC_PCI_BAR = 0)");

struct inc_hw {
	struct kref ref;
	struct list_head node;
	struct pci_dev *pdev;
	struct mutex lock;          /* regs; one counter LO/HI pair at a time */
	void __iomem *regs;         /* NULL once the function is removed */
	bool gone;                  /* removed (unbind, hot unplug): READ_ONCE */
	struct net_device *owner;   /* the inceptionn device using the engines
				       (inc_hw_list_lock) */
	u32 version, caps;
};

static LIST_HEAD(inc_hw_list);
static DEFINE_MUTEX(inc_hw_list_lock);

static u32 inc_rd(struct inc_hw *hw, u32 reg)
{
	return ioread32(hw->regs + reg);
}

static void inc_wr(struct inc_hw *hw, u32 reg, u32 val)
{
	iowrite32(val, hw->regs + reg);
}

/* A 64-bit counter: LO first latches HI (inc_regs.h). Caller holds lock. */
static u64 inc_rd_cnt(struct inc_hw *hw, u32 reg)
{
	u32 lo = inc_rd(hw, reg);
	u32 hi = inc_rd(hw, reg + INC_CNT_HI_OFF);

	return (u64)hi << 32 | lo;
}

static void inc_hw_release(struct kref *ref)
{
	struct inc_hw *hw = container_of(ref, struct inc_hw, ref);

	pci_dev_put(hw->pdev);
	kfree(hw);
}

static void inc_hw_put(struct inc_hw *hw)
{
	kref_put(&hw->ref, inc_hw_release);
}

/* The engines sit in the same slot as the NIC function they serve; one
 * inceptionn device owns them (another function of the slot gets EBUSY:
 * two devices would overwrite each other's ToS and enable bits). */
struct inc_hw *inc_hw_get(struct net_device *lower, struct net_device *dev)
{
	struct device *parent = lower->dev.parent;
	struct pci_dev *lp;
	struct inc_hw *hw, *found = NULL;

	if (!parent || !dev_is_pci(parent))
		return NULL;
	lp = to_pci_dev(parent);
	mutex_lock(&inc_hw_list_lock);
	list_for_each_entry(hw, &inc_hw_list, node) {
		if (pci_domain_nr(hw->pdev->bus) == pci_domain_nr(lp->bus) &&
		    hw->pdev->bus->number == lp->bus->number &&
		    PCI_SLOT(hw->pdev->devfn) == PCI_SLOT(lp->devfn)) {
			if (hw->owner) {
				found = ERR_PTR(-EBUSY);
				break;
			}
			kref_get(&hw->ref);
			hw->owner = dev;
			found = hw;
			break;
		}
	}
	mutex_unlock(&inc_hw_list_lock);
	return found;
}

/* The owner lets the engines go (and drops its reference). */
void inc_hw_release_owner(struct inc_hw *hw)
{
	mutex_lock(&inc_hw_list_lock);
	hw->owner = NULL;
	mutex_unlock(&inc_hw_list_lock);
	inc_hw_put(hw);
}

/* Still there? After an unbind or hot unplug the owner falls back to the
 * software datapath (docs/driver.md). */
bool inc_hw_live(const struct inc_hw *hw)
{
	return hw && !READ_ONCE(hw->gone);
}

const char *inc_hw_bus_info(struct inc_hw *hw)
{
	return pci_name(hw->pdev);
}

/* Program enable/ToS/mask/eb from a packed device configuration. */
int inc_hw_configure(struct inc_hw *hw, u32 cfg)
{
	u32 tos = (u32)inc_cfg_tos(cfg) << INC_TOS_VALUE_SHIFT |
		  (u32)inc_cfg_mask(cfg) << INC_TOS_MASK_SHIFT;
	u32 eb = inc_cfg_eb(cfg) & INC_EB_MASK;
	u32 ctrl = 0;
	int err = 0;

	if ((cfg & INC_CFG_TX_EN) && (hw->caps & INC_CAPS_TX))
		ctrl |= INC_CTRL_TX_EN;
	if ((cfg & INC_CFG_RX_EN) && (hw->caps & INC_CAPS_RX))
		ctrl |= INC_CTRL_RX_EN;
	mutex_lock(&hw->lock);
	if (!hw->regs) {
		err = -ENODEV;
		goto out;
	}
	/* Disable while the match rule changes, so no frame sees half of it. */
	inc_wr(hw, INC_REG_CTRL, 0);
	inc_wr(hw, INC_REG_TOS, tos);
	inc_wr(hw, INC_REG_EB, eb);
	inc_wr(hw, INC_REG_CTRL, ctrl);
	/* Read back: flushes the posted writes and checks the block took them. */
	if (inc_rd(hw, INC_REG_TOS) != tos || inc_rd(hw, INC_REG_EB) != eb ||
	    inc_rd(hw, INC_REG_CTRL) != ctrl) {
		dev_err(&hw->pdev->dev, "CSR write-back mismatch\n");
		err = -EIO;
	}
out:
	mutex_unlock(&hw->lock);
	return err;
}

/* Engine counters per direction: outcomes, reasons, bytes in, bytes out. */
unsigned int inc_hw_stats_count(void)
{
	return 2 * INC_CNT_PER_DIR;
}

void inc_hw_stats_strings(u8 *data)
{
	static const char *const dir[2] = { "tx", "rx" };
	unsigned int d, i;

	for (d = 0; d < 2; d++) {
		for (i = 0; i < INC_CNT_OUTCOMES; i++, data += ETH_GSTRING_LEN)
			snprintf(data, ETH_GSTRING_LEN, "hw_%s_%s", dir[d],
				 inc_outcome_name((enum inc_outcome)i));
		for (i = 0; i < INC_CNT_REASONS; i++, data += ETH_GSTRING_LEN)
			snprintf(data, ETH_GSTRING_LEN, "hw_%s_reason_%s",
				 dir[d], inc_reason_name((enum inc_reason)i));
		snprintf(data, ETH_GSTRING_LEN, "hw_%s_bytes_in", dir[d]);
		data += ETH_GSTRING_LEN;
		snprintf(data, ETH_GSTRING_LEN, "hw_%s_bytes_out", dir[d]);
		data += ETH_GSTRING_LEN;
	}
}

void inc_hw_stats_read(struct inc_hw *hw, u64 *data)
{
	static const u32 base[2] = { INC_REG_TX_BASE, INC_REG_RX_BASE };
	unsigned int d, i;

	mutex_lock(&hw->lock);
	if (!hw->regs) {
		memset(data, 0, sizeof(u64) * inc_hw_stats_count());
		goto out;
	}
	for (d = 0; d < 2; d++) {
		for (i = 0; i < INC_CNT_OUTCOMES; i++)
			*data++ = inc_rd_cnt(hw, INC_REG_CNT_OUTCOME(base[d], i));
		for (i = 0; i < INC_CNT_REASONS; i++)
			*data++ = inc_rd_cnt(hw, INC_REG_CNT_REASON(base[d], i));
		*data++ = inc_rd_cnt(hw, INC_REG_CNT_BYTES_IN(base[d]));
		*data++ = inc_rd_cnt(hw, INC_REG_CNT_BYTES_OUT(base[d]));
	}
out:
	mutex_unlock(&hw->lock);
}

static int inc_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct inc_hw *hw;
	u32 idreg, scratch;
	int err;

	BUILD_BUG_ON(INC_CNT_OUTCOMES != INC_OUT_COUNT);
	BUILD_BUG_ON(INC_CNT_REASONS != INC_R_COUNT);
	BUILD_BUG_ON(INC_CNT_PER_DIR != INC_CNT_OUTCOMES + INC_CNT_REASONS + 2);

	if (inc_csr_bar < 0 || inc_csr_bar >= PCI_STD_NUM_BARS) {
		dev_err(dev, "csr_bar=%d is not a BAR number\n", inc_csr_bar);
		return -EINVAL;
	}
	err = pcim_enable_device(pdev);
	if (err)
		return err;
	if (pci_resource_len(pdev, inc_csr_bar) <
	    INC_PCI_REGS_OFFSET + INC_REGS_SIZE) {
		dev_err(dev, "BAR%d is %llu bytes, the CSR block needs %u\n",
			inc_csr_bar,
			(unsigned long long)pci_resource_len(pdev, inc_csr_bar),
			INC_PCI_REGS_OFFSET + INC_REGS_SIZE);
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, inc_csr_bar) & IORESOURCE_MEM)) {
		dev_err(dev, "BAR%d is not a memory BAR\n", inc_csr_bar);
		return -ENODEV;
	}
	err = pcim_iomap_regions(pdev, BIT(inc_csr_bar), INC_DRV_NAME);
	if (err)
		return err;

	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	kref_init(&hw->ref);
	mutex_init(&hw->lock);
	hw->pdev = pci_dev_get(pdev);
	hw->regs = pcim_iomap_table(pdev)[inc_csr_bar] + INC_PCI_REGS_OFFSET;

	idreg = inc_rd(hw, INC_REG_ID);
	if (idreg != INC_ID_VALUE) {
		dev_err(dev, "ID register 0x%08x, expected 0x%08x: not INCEPTIONN engines\n",
			idreg, INC_ID_VALUE);
		err = -ENODEV;
		goto err_put;
	}
	hw->version = inc_rd(hw, INC_REG_VERSION);
	if (hw->version >> 16 != INC_VERSION_MAJOR ||
	    (hw->version & 0xff) != INC_WIRE_VERSION) {
		dev_err(dev, "engine version 0x%08x: need major %u, wire format %u\n",
			hw->version, INC_VERSION_MAJOR, INC_WIRE_VERSION);
		err = -ENODEV;
		goto err_put;
	}
	hw->caps = inc_rd(hw, INC_REG_CAPS);
	if (!(hw->caps & (INC_CAPS_TX | INC_CAPS_RX))) {
		dev_err(dev, "capabilities 0x%08x: no engine present\n", hw->caps);
		err = -ENODEV;
		goto err_put;
	}
	inc_wr(hw, INC_REG_SCRATCH, 0x5a5aa5a5);
	scratch = inc_rd(hw, INC_REG_SCRATCH);
	inc_wr(hw, INC_REG_SCRATCH, ~0x5a5aa5a5u);
	if (scratch != 0x5a5aa5a5 || inc_rd(hw, INC_REG_SCRATCH) != ~0x5a5aa5a5u) {
		dev_err(dev, "scratch register does not hold its value\n");
		err = -EIO;
		goto err_put;
	}
	/* Pass-through until a stacked device enables a direction. */
	inc_wr(hw, INC_REG_CTRL, 0);
	inc_wr(hw, INC_REG_CNT_CTRL, INC_CNT_CTRL_CLEAR);

	pci_set_drvdata(pdev, hw);
	mutex_lock(&inc_hw_list_lock);
	list_add_tail(&hw->node, &inc_hw_list);
	mutex_unlock(&inc_hw_list_lock);
	dev_info(dev, "INCEPTIONN engines v%u.%u (wire format %u)%s%s, %u-bit stream, max frame %u\n",
		 hw->version >> 16, (hw->version >> 8) & 0xff,
		 hw->version & 0xff,
		 hw->caps & INC_CAPS_TX ? ", TX" : "",
		 hw->caps & INC_CAPS_RX ? ", RX" : "",
		 8 * ((hw->caps & INC_CAPS_BEAT_MASK) >> INC_CAPS_BEAT_SHIFT),
		 (hw->caps & INC_CAPS_MAXF_MASK) >> INC_CAPS_MAXF_SHIFT);
	return 0;

err_put:
	hw->regs = NULL;
	inc_hw_put(hw);
	return err;
}

static void inc_pci_remove(struct pci_dev *pdev)
{
	struct inc_hw *hw = pci_get_drvdata(pdev);

	mutex_lock(&inc_hw_list_lock);
	list_del(&hw->node);
	if (hw->owner)
		netdev_warn(hw->owner, "FPGA engines %s removed: the software codec takes over\n",
			    pci_name(pdev));
	mutex_unlock(&inc_hw_list_lock);
	mutex_lock(&hw->lock);
	inc_wr(hw, INC_REG_CTRL, 0);
	hw->regs = NULL;        /* pcim unmaps the BAR after remove */
	WRITE_ONCE(hw->gone, true);
	mutex_unlock(&hw->lock);
	inc_hw_put(hw);
}

static const struct pci_device_id inc_pci_ids[] = {
	{ PCI_DEVICE(INC_PCI_VENDOR_ID, INC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, inc_pci_ids);

static struct pci_driver inc_pci_driver = {
	.name     = INC_DRV_NAME,
	.id_table = inc_pci_ids,
	.probe    = inc_pci_probe,
	.remove   = inc_pci_remove,
};

int inc_pci_init(void)
{
	return pci_register_driver(&inc_pci_driver);
}

void inc_pci_exit(void)
{
	pci_unregister_driver(&inc_pci_driver);
}
