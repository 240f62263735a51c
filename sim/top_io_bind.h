/* SPDX-License-Identifier: MIT */
/*
 * top_io_bind.h - points a struct top_io at the ports of a Verilated
 * inc_offload_top; shared by the single-instance testbench shell
 * (top_shell.cpp) and the multi-instance RTL NIC shell (rtl_nic_shell.cpp).
 */
#ifndef TOP_IO_BIND_H
#define TOP_IO_BIND_H

#include "inc_vshell.h"
#include "top_tb.h"

template <class T> void top_io_bind(struct top_io &io, T *t)
{
	io.rst = &t->rst;
	INC_VSHELL_AXIS(io.s_tx, t, s_axis_tx);
	INC_VSHELL_AXIS(io.m_tx, t, m_axis_tx);
	INC_VSHELL_AXIS(io.s_rx, t, s_axis_rx);
	INC_VSHELL_AXIS(io.m_rx, t, m_axis_rx);
	io.awaddr = &t->s_axil_awaddr;
	io.awprot = &t->s_axil_awprot;
	io.awvalid = &t->s_axil_awvalid;
	io.awready = &t->s_axil_awready;
	io.wdata = &t->s_axil_wdata;
	io.wstrb = &t->s_axil_wstrb;
	io.wvalid = &t->s_axil_wvalid;
	io.wready = &t->s_axil_wready;
	io.bresp = &t->s_axil_bresp;
	io.bvalid = &t->s_axil_bvalid;
	io.bready = &t->s_axil_bready;
	io.araddr = &t->s_axil_araddr;
	io.arprot = &t->s_axil_arprot;
	io.arvalid = &t->s_axil_arvalid;
	io.arready = &t->s_axil_arready;
	io.rdata = &t->s_axil_rdata;
	io.rresp = &t->s_axil_rresp;
	io.rvalid = &t->s_axil_rvalid;
	io.rready = &t->s_axil_rready;
}

#endif
