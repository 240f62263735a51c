// SPDX-License-Identifier: MIT
/* tx_units_shell.cpp - C++ shell of the TX unit tests (model: tx_units_top). */
#include "Vtx_units_top.h"
#include "inc_vshell.h"
#include "tx_units.h"

static IncShell<Vtx_units_top> *sh;
static struct tx_units_io io;

extern "C" int tx_units_main(int argc, char **argv);

void tb_open(int argc, char **argv)
{
	Vtx_units_top *t;

	sh = new IncShell<Vtx_units_top>(argc, argv, "build/sim/tx_units.fst");
	t = sh->top;
	io.rst = &t->rst;
	INC_VSHELL_AXIS(io.s, t, s_axis);
	io.tb_ready = &t->tb_ready;
	io.cfg_tos_value = &t->cfg_tos_value;
	io.cfg_tos_mask = &t->cfg_tos_mask;
	io.tx_done = &t->tx_done;
	io.tx_reason = &t->tx_reason;
	io.tx_frame_len = &t->tx_frame_len;
	io.tx_l3_off = &t->tx_l3_off;
	io.tx_ip_hlen = &t->tx_ip_hlen;
	io.tx_tcp_hlen = &t->tx_tcp_hlen;
	io.tx_ip_total = &t->tx_ip_total;
	io.tx_payload_off = &t->tx_payload_off;
	io.tx_payload_len = &t->tx_payload_len;
	io.tx_proto = &t->tx_proto;
	io.tx_ttl = &t->tx_ttl;
	io.tx_csum_rest = &t->tx_csum_rest;
	io.tx_cur_hdr_valid = &t->tx_cur_hdr_valid;
	io.tx_cur_payload_off = &t->tx_cur_payload_off;
	io.rx_done = &t->rx_done;
	io.rx_reason = &t->rx_reason;
	io.blk_value = &t->blk_value;
	io.blk_eb = &t->blk_eb;
	io.blk_tag = &t->blk_tag;
	io.blk_payload = &t->blk_payload;
	io.unit_data = t->unit_data.data();
	io.unit_nvalid = &t->unit_nvalid;
	io.unit_eb = &t->unit_eb;
	io.unit_group = t->unit_group.data();
	io.unit_len = &t->unit_len;
	io.al_valid = &t->al_valid;
	io.al_data = t->al_data.data();
	io.al_len = &t->al_len;
	io.al_start = &t->al_start;
	io.al_offset = &t->al_offset;
	io.al_last = &t->al_last;
	io.al_inreg = &t->al_inreg;
	io.al_out0_valid = &t->al_out0_valid;
	io.al_out0_data = t->al_out0_data.data();
	io.al_out0_count = &t->al_out0_count;
	io.al_out1_valid = &t->al_out1_valid;
	io.al_out1_data = t->al_out1_data.data();
	io.al_out1_count = &t->al_out1_count;
}

INC_VSHELL_EXPORTS(tb_, tx_units_io, tx_units_main)
