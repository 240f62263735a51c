// SPDX-License-Identifier: MIT
/*
 * rtl_nic_shell.cpp - any number of Verilated inc_offload_top instances
 * behind a C interface (rtl_nic.h), for the RTL backend of the user-space
 * NIC switch. Each instance has its own context, clock and trace file.
 */
#include "Vinc_offload_top.h"
#include "Vinc_offload_top___024root.h"
#include "inc_vshell.h"
#include "top_io_bind.h"
#include "rtl_nic.h"

struct rtl_nic_dut {
	IncShell<Vinc_offload_top> *sh;
	struct top_io io;
};

extern "C" {

struct rtl_nic_dut *rtl_nic_dut_new(int trace_able)
{
	struct rtl_nic_dut *d = new rtl_nic_dut;

	d->sh = new IncShell<Vinc_offload_top>(0, nullptr, nullptr, trace_able != 0);
	top_io_bind(d->io, d->sh->top);
	return d;
}

void rtl_nic_dut_free(struct rtl_nic_dut *d)
{
	delete d->sh;
	delete d;
}

struct top_io *rtl_nic_dut_io(struct rtl_nic_dut *d)
{
	return &d->io;
}

void rtl_nic_dut_eval(void *d)
{
	static_cast<struct rtl_nic_dut *>(d)->sh->eval();
}

void rtl_nic_dut_tick(void *d)
{
	static_cast<struct rtl_nic_dut *>(d)->sh->tick();
}

void rtl_nic_dut_trace(struct rtl_nic_dut *d, const char *path)
{
	if (path)
		d->sh->trace_open(path);
	else
		d->sh->trace_close();
}

void rtl_nic_dut_stat(struct rtl_nic_dut *d, int rx, struct rtl_nic_stat *st)
{
	Vinc_offload_top___024root *r = d->sh->top->rootp;

	if (rx) {
		st->valid = r->inc_offload_top__DOT__rx_stat_valid;
		st->outcome = r->inc_offload_top__DOT__rx_stat_outcome;
		st->reason = r->inc_offload_top__DOT__rx_stat_reason;
	} else {
		st->valid = r->inc_offload_top__DOT__tx_stat_valid;
		st->outcome = r->inc_offload_top__DOT__tx_stat_outcome;
		st->reason = r->inc_offload_top__DOT__tx_stat_reason;
	}
}

int main(int argc, char **argv)
{
	return rtl_nic_main(argc, argv);
}

}
