/* SPDX-License-Identifier: MIT */
/*
 * inc_regs.h - register map of the INCEPTIONN offload (AXI4-Lite slave
 * inc_csr in rtl/inc_offload_top.v), the single source of the register map.
 *
 * Freestanding: macros only, no types, no libc. Included by the kernel
 * driver, the user-space tools and the Verilator testbenches; the RTL uses
 * rtl/inc_regs.vh and docs/registers.md has the table, both generated from
 * this file by scripts/gen-regs.sh (never edit those two by hand).
 *
 * Generator rules: every object-like "#define INC_... <number>" line below
 * becomes a Verilog `define of the same name; a trailing comment on an
 * INC_REG_* line becomes its description in the documentation table.
 *
 * All registers are 32 bits wide at 4-byte aligned byte addresses; the
 * slave ignores WSTRB (whole-register writes). Unknown addresses read as 0
 * and ignore writes (OKAY response).
 *
 * 64-bit counters are LO/HI pairs. Read order: LO first, then HI. Reading a
 * LO word latches the HI word of the same counter into a holding register,
 * and the next read of that counter's HI returns the latched value, so the
 * pair is one consistent 64-bit value. Readers of more than one counter
 * serialise LO/HI pairs (one pair at a time). Reading HI without a preceding
 * LO of the same counter returns the live HI word.
 */
#ifndef INC_REGS_H
#define INC_REGS_H

/* PCI identity of the FPGA NIC (VC709 board, Xilinx vendor ID). The device
 * ID is this project's choice, outside the IDs Xilinx uses for its own IP
 * example designs (0x7xxx, 0x8xxx, 0x9xxx). */
#define INC_PCI_VENDOR_ID       0x10ee
#define INC_PCI_DEVICE_ID       0x1ce0
/* The register block sits at this offset of BAR 0. */
#define INC_PCI_BAR             0
#define INC_PCI_REGS_OFFSET     0x00000000
#define INC_REGS_SIZE           0x00000400 /* bytes of address space decoded */

/* ------------------------------------------------------------------------ */
/* Identification and control                                                */
/* ------------------------------------------------------------------------ */
#define INC_REG_ID              0x0000 /* RO: INC_ID_VALUE ("INCE") */
#define INC_REG_VERSION         0x0004 /* RO: [31:16] major, [15:8] minor, [7:0] wire format version */
#define INC_REG_CAPS            0x0008 /* RO: capabilities, INC_CAPS_* fields */
#define INC_REG_SCRATCH         0x000c /* RW: scratch, no effect (bus test) */
#define INC_REG_CTRL            0x0010 /* RW: INC_CTRL_* enables, reset value 0 (both directions pass through) */
#define INC_REG_TOS             0x0014 /* RW: [7:0] ToS value, [15:8] ToS mask; reset 0xfc28 */
#define INC_REG_EB              0x0018 /* RW: [6:0] error-bound exponent (TX), reset 10 */
#define INC_REG_CNT_CTRL        0x001c /* WO: write INC_CNT_CTRL_CLEAR to zero every counter; reads 0 */

#define INC_ID_VALUE            0x494e4345 /* "INCE" */
#define INC_VERSION_MAJOR       1
#define INC_VERSION_MINOR       1
#define INC_VERSION_VALUE       0x00010102 /* major 1, minor 1, wire version 2 */

/* INC_REG_CAPS fields. */
#define INC_CAPS_TX             0x00000001 /* compress engine present */
#define INC_CAPS_RX             0x00000002 /* decompress engine present */
#define INC_CAPS_VLAN           0x00000004 /* one 802.1Q tag is parsed */
#define INC_CAPS_BEAT_SHIFT     8          /* [15:8] AXI4-Stream data width in bytes (32 or 64) */
#define INC_CAPS_BEAT_MASK      0x0000ff00
#define INC_CAPS_MAXF_SHIFT     16         /* [31:16] largest frame in bytes (9018); longer are dropped */
#define INC_CAPS_MAXF_MASK      0xffff0000

/* INC_REG_CTRL bits. */
#define INC_CTRL_TX_EN          0x00000001 /* compress matching frames on transmit */
#define INC_CTRL_RX_EN          0x00000002 /* decompress marked frames on receive */

/* INC_REG_TOS fields. */
#define INC_TOS_VALUE_SHIFT     0
#define INC_TOS_VALUE_MASK      0x000000ff
#define INC_TOS_MASK_SHIFT      8
#define INC_TOS_MASK_MASK       0x0000ff00
#define INC_TOS_RESET           0x0000fc28

/* INC_REG_EB field. */
#define INC_EB_MASK             0x0000007f
#define INC_EB_RESET            10

/* INC_REG_CNT_CTRL bits. */
#define INC_CNT_CTRL_CLEAR      0x00000001

/* ------------------------------------------------------------------------ */
/* Counters: one block per direction, 64-bit LO/HI pairs                     */
/* ------------------------------------------------------------------------ */
/*
 * Block layout (offsets from the block base, 8 bytes per counter, LO at +0,
 * HI at +4):
 *   +0x000 + 8*o  frames with outcome o (enum inc_outcome, 5 counters)
 *   +0x040 + 8*r  frames with reason r (enum inc_reason, 19 counters):
 *                 r = none counts compressed/decompressed frames, the
 *                 bypass reasons count bypassed frames, bad_shim,
 *                 bad_stream and old_version count malformed ones,
 *                 oversize and bad_payload_csum count dropped ones and
 *                 disabled counts frames passed while the direction is off
 *   +0x0e0        bytes in (every input frame, dropped ones included)
 *   +0x0e8        bytes out (every output frame)
 */
#define INC_REG_TX_BASE         0x0100 /* transmit (compress) counter block */
#define INC_REG_RX_BASE         0x0200 /* receive (decompress) counter block */
#define INC_CNT_OUTCOME_OFF     0x0000
#define INC_CNT_REASON_OFF      0x0040
#define INC_CNT_BYTES_IN_OFF    0x00e0
#define INC_CNT_BYTES_OUT_OFF   0x00e8
#define INC_CNT_STRIDE          8
#define INC_CNT_HI_OFF          4
#define INC_CNT_OUTCOMES        5  /* = INC_OUT_COUNT */
#define INC_CNT_REASONS         19 /* = INC_R_COUNT */
#define INC_CNT_PER_DIR         26 /* outcomes + reasons + bytes in + bytes out */

/* Address of the LO word of a counter; dir_base is INC_REG_TX_BASE or
 * INC_REG_RX_BASE, o an enum inc_outcome, r an enum inc_reason. */
#define INC_REG_CNT_OUTCOME(dir_base, o) \
	((dir_base) + INC_CNT_OUTCOME_OFF + INC_CNT_STRIDE * (o))
#define INC_REG_CNT_REASON(dir_base, r) \
	((dir_base) + INC_CNT_REASON_OFF + INC_CNT_STRIDE * (r))
#define INC_REG_CNT_BYTES_IN(dir_base)  ((dir_base) + INC_CNT_BYTES_IN_OFF)
#define INC_REG_CNT_BYTES_OUT(dir_base) ((dir_base) + INC_CNT_BYTES_OUT_OFF)

#endif /* INC_REGS_H */
