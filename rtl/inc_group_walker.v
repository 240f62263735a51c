// SPDX-License-Identifier: MIT
/*
 * inc_group_walker - finds the groups of the receive engine's compressed
 * streams, one group per cycle, with a position loop of a table read and
 * a select (no adder, no shifter in the loop).
 *
 * The stream arrives in pairs (64 bytes, two beats) from the engine's
 * prefetch FIFO and is written in order into a ring of four pair slots
 * (256 bytes), in two steps: a pair is taken into a register with the
 * size of a group starting at each of its 64 byte offsets, computed from
 * the tag word there (the tag word at offset 63 takes the next pair's
 * first byte: that entry is completed when the next pair is written);
 * then, when its slot is free, written with its table entries, stored per
 * ring byte as
 *
 *   next[j]  = (j + size) mod 256      where the following group starts
 *   cross[j] = the group reaches into the next slot
 *   over[j]  = the group reaches past the end of the frame's groups
 *
 * over[] is exact because the launcher tags each pair with the limit of
 * its frame's stream: for the pair holding the end e of the groups (skip
 * + stream bytes, counted from the first pair) the limit is e mod 64, for
 * the pair before it 64 + e mod 64; a group at offset j overruns when
 * j + size > limit. Earlier pairs have no limit.
 *
 * The walk then is pos <= next[pos] while the slot of pos and the one
 * after it are written (or the slot is the frame's last), so a group's
 * bytes are all in the ring when it is read. The table read is an 8-way
 * select within each 8-byte block, an 8-way one within each slot and a
 * 4-way one between the slots. A frame's walk:
 *
 *   IDLE -> (frame parameters and first pair there) START -> GROUPS ... -> TAIL
 *
 * START is one cycle without a chunk (the packer's flush of the previous
 * frame may take it); GROUPS sends one group per cycle until the values
 * are decoded, or a group that would overrun: then the chunk is a raw one
 * of 0 bytes, c_over, and ends the frame (the stream is malformed). The
 * walk learns of the overrun a cycle late (over[pos] is not in the loop):
 * it steps past the group as if it did not overrun and in the next cycle,
 * which sends nothing, takes the frame's end instead, from the state it
 * registered at the group. TAIL sends the raw tail (0..3 bytes) and ends
 * the frame. A frame that ends in its last slot starts the next one in the
 * same cycle; otherwise the slots left of it are released as they arrive
 * (DRAIN). A frame thus costs its groups plus two cycles (three when it
 * overruns). The next frame's parameters wait in a register (f_ready is
 * its being empty).
 *
 * Slots are released when the walk leaves them; the 49 ring bytes from
 * 16 * (pos / 16) are read in a chunk's decision cycle, before a released
 * slot can be rewritten, and the 34 from pos (a group is at most 34 bytes)
 * taken from them in the next. The chunk leaves two cycles after its
 * decision, c_window holding those 34 bytes.
 * f_tag travels with every chunk of its frame.
 */
`resetall
`timescale 1ns / 1ps
`default_nettype none

// Group walker over a ring of stream pairs, one group per cycle.
module inc_group_walker #(
    parameter TAGW = 8   // bits of f_tag carried with each chunk
) (
    input  wire            clk,
    input  wire            rst,

    input  wire [511:0]    s_data,      // two stream beats, byte 0 first
    input  wire            s_last,      // the frame's last pair
    input  wire            s_lim_on,    // a group in this pair may overrun the stream
    input  wire [6:0]      s_lim,       // ... it does when offset + size > s_lim
    input  wire            s_valid,
    output wire            s_ready,

    input  wire            f_valid,     // next frame's parameters
    output wire            f_ready,     // taken (into the walker's parameter register)
    input  wire [5:0]      f_skip,      // stream start in the frame's first pair
    input  wire [13:0]     f_values,    // values to decode
    input  wire [1:0]      f_tail,      // raw tail bytes after the groups
    input  wire [TAGW-1:0] f_tag,

    output reg             c_valid,
    output reg  [271:0]    c_window,    // 34 stream bytes from the chunk's position
    output reg             c_raw,       // a raw chunk (tail, or the overrun end)
    output reg  [1:0]      c_raw_count, // its bytes
    output reg  [3:0]      c_nvalid,    // values of a group that are output, 1..8
    output reg             c_first,     // first chunk of the frame
    output reg             c_last,      // last chunk of the frame
    output reg             c_over,      // the frame ends at a group that overruns its stream
    output reg  [TAGW-1:0] c_tag
);

`include "inc_lsum.vh"

integer j;

// ---------------------------------------------------------------------------
// Ring writer, two stages. A: a pair is taken from the FIFO with the group
// sizes at its 64 byte offsets (63 with a zero high byte: completed when
// the next pair arrives; alone it counts only in a frame's last pair, where
// every group there overruns) and the size at offset 63 of the pair before
// (its high byte is this pair's first). B: the pair is written into its
// slot when the slot is free, with its 64 table entries and entry 63 of
// the slot before.
// ---------------------------------------------------------------------------
reg  [1:0]    wr_slot_reg;
reg  [3:0]    full_reg, last_reg;
reg  [2047:0] ring_reg;
reg  [2047:0] next_reg;            // 8 bits per ring byte
reg  [255:0]  cross_reg, over_reg;

reg           a_valid_reg;
reg  [511:0]  a_data_reg;
reg           a_last_reg, a_lim_on_reg;
reg  [6:0]    a_lim_reg;
reg  [383:0]  a_size_reg;          // 6 bits per offset
reg  [5:0]    a_psize_reg;         // offset 63 of the pair before
reg  [7:0]    p_byte_reg;          // last byte of the pair before
reg           p_lim_on_reg;        // limit of the pair written before
reg  [6:0]    p_lim_reg;

wire   w_take  = a_valid_reg && !full_reg[wr_slot_reg];
assign s_ready = !a_valid_reg || !full_reg[wr_slot_reg];
wire   s_take  = s_valid && s_ready;

always @(posedge clk) begin
    if (s_take) begin
        a_data_reg   <= s_data;
        a_last_reg   <= s_last;
        a_lim_on_reg <= s_lim_on;
        a_lim_reg    <= s_lim;
        for (j = 0; j < 64; j = j + 1) begin
            a_size_reg[6*j +: 6] <= inc_group_bytes(j == 63 ? {8'd0, s_data[511:504]} : s_data[8*j +: 16]);
        end
        a_psize_reg <= inc_group_bytes({s_data[7:0], p_byte_reg});
        p_byte_reg  <= s_data[511:504];
    end
    if (s_take) begin
        a_valid_reg <= 1'b1;
    end else if (w_take) begin
        a_valid_reg <= 1'b0;
    end
    if (rst) begin
        a_valid_reg <= 1'b0;
    end
end

// Entries of the pair written, and entry 63 of the slot before.
reg  [7:0]    e_next [0:63];
reg  [63:0]   e_cross, e_over;
reg  [7:0]    p_next;
reg           p_over;
/* verilator lint_off UNUSEDSIGNAL */
reg  [7:0]    sum;                 // j + size, < 128
/* verilator lint_on UNUSEDSIGNAL */
reg  [5:0]    gsize;
reg  [7:0]    lim_j;               // the limit - j, modulo 256 (bit 7: negative)
// The slot written and the one before, one-hot (writes with constant indices).
wire [3:0]    wr_oh  = 4'd1 << wr_slot_reg;
wire [3:0]    p_oh   = {wr_oh[0], wr_oh[3:1]};

always @* begin
    // j + size > limit is tested as size > limit - j, the difference
    // formed beside the size rather than after the sum
    for (j = 0; j < 64; j = j + 1) begin
        gsize = a_size_reg[6*j +: 6];
        sum   = inc_lsum(j[7:0], {2'b00, gsize});
        lim_j = inc_lsub({1'b0, a_lim_reg}, j[7:0]);
        e_next[j]  = {wr_slot_reg + {1'b0, sum[6]}, sum[5:0]};
        e_cross[j] = sum[6];
        e_over[j]  = a_lim_on_reg && (lim_j[7] || !inc_lge(lim_j, {2'b00, gsize}));
    end
    gsize  = a_psize_reg;
    sum    = inc_lsum(8'd63, {2'b00, gsize});
    lim_j  = inc_lsub({1'b0, p_lim_reg}, 8'd63);
    p_next = {wr_slot_reg, sum[5:0]};
    p_over = p_lim_on_reg && (lim_j[7] || !inc_lge(lim_j, {2'b00, gsize}));
end

// ---------------------------------------------------------------------------
// Walk
// ---------------------------------------------------------------------------
localparam [2:0] W_IDLE = 3'd0, W_START = 3'd1, W_GROUPS = 3'd2, W_TAIL = 3'd3, W_DRAIN = 3'd4;

// The next frame's parameters, taken from the queue into a register
// while it is empty (a frame's walk takes two cycles or more, so it is
// refilled before the next start; the queue's pop is then a register).
reg             fb_valid_reg;
reg  [5:0]      fb_skip_reg;
reg  [13:0]     fb_values_reg;
reg             fb_values8_reg;    // 8 values or fewer
reg  [1:0]      fb_tail_reg;
reg  [TAGW-1:0] fb_tag_reg;

assign f_ready = !fb_valid_reg;

(* fsm_encoding = "none" *)
reg  [2:0]      st_reg;
reg  [7:0]      pos_reg;
reg  [13:0]     left_reg;          // values still to decode
reg             left8_reg;         // ... 8 or fewer: the group at pos is the last
reg  [1:0]      tail_reg;
reg  [TAGW-1:0] tag_reg;
reg             first_reg;         // no chunk of the frame sent yet
reg             past_reg;          // the walk left the frame's last slot (its groups end there)
reg  [1:0]      nslot_reg;         // IDLE: the next frame's first slot; DRAIN: the slot to release
// The group sent in the cycle before overran: the frame ended there, and
// the step the walk took past it is undone (its end state below).
reg             ovq_reg;
reg  [2:0]      ovq_st_reg;
reg  [1:0]      ovq_nslot_reg;
reg  [3:0]      ovq_rel_reg;

wire [1:0] slot  = pos_reg[7:6];
wire [1:0] slot1 = slot + 2'd1;
wire [1:0] slot2 = slot + 2'd2;
wire [3:0] slot_oh  = 4'd1 << slot;
wire [3:0] slot1_oh = {slot_oh[2:0], slot_oh[3]};
// The group at pos is in the ring: its slot and the next are written, or
// its slot is the frame's last.
wire       ok    = full_reg[slot] && (last_reg[slot] || full_reg[slot1]);
// A slot written or being written (a frame may start as its first pair arrives).
wire [3:0] avail = full_reg | (w_take ? wr_oh : 4'd0);
// The table entries of the group at pos: three selects, each one LUT
// level (with the slice's MUXF7 for the 8-way ones) and kept apart so that
// synthesis cannot merge them into deeper trees: 8-way by pos[2:0] in each
// 8-byte block of the ring, 8-way by pos[5:3] in each slot, 4-way by the
// slot pos[7:6].
(* keep *) wire [255:0] nx_b8;     // per 8-byte block
(* keep *) wire [31:0]  cr_b8, ov_b8;
(* keep *) wire [31:0]  nx_s;      // per slot
(* keep *) wire [3:0]   cr_s, ov_s;
genvar gb;
generate
    for (gb = 0; gb < 32; gb = gb + 1) begin : g_sel8
        wire [63:0] nb = next_reg[64*gb +: 64];
        wire [7:0]  cb = cross_reg[8*gb +: 8];
        wire [7:0]  ob = over_reg[8*gb +: 8];
        assign nx_b8[8*gb +: 8] = nb[{pos_reg[2:0], 3'b000} +: 8];
        assign cr_b8[gb]        = cb[pos_reg[2:0]];
        assign ov_b8[gb]        = ob[pos_reg[2:0]];
    end
    for (gb = 0; gb < 4; gb = gb + 1) begin : g_selslot
        wire [63:0] nb = nx_b8[64*gb +: 64];
        wire [7:0]  cb = cr_b8[8*gb +: 8];
        wire [7:0]  ob = ov_b8[8*gb +: 8];
        assign nx_s[8*gb +: 8] = nb[{pos_reg[5:3], 3'b000} +: 8];
        assign cr_s[gb]        = cb[pos_reg[5:3]];
        assign ov_s[gb]        = ob[pos_reg[5:3]];
    end
endgenerate
wire [7:0] nx    = nx_s[{slot, 3'b000} +: 8];
wire       ov    = ov_s[slot];
wire       cr    = cr_s[slot];
wire [3:0] nv    = (|left_reg[13:3]) ? 4'd8 : left_reg[3:0];

// The table entries of the group at pos (nx, ov, cr) come late. A group
// steps the walk to nx whether or not it overruns; an overrun (ov,
// registered) ends the frame in the next cycle, which sends nothing. cr
// only chooses between next values computed without it.
wire       g_in  = st_reg == W_GROUPS && !ovq_reg;
wire       g_go  = g_in && !past_reg && ok;   // the group at pos is in the ring
wire       t_go  = st_reg == W_TAIL && !ovq_reg && (past_reg || tail_reg == 2'd0 || ok);

reg        fin_rest, load;
reg        k_valid;
reg  [1:0] load_slot;
reg  [3:0] rel, rel_end;
reg  [1:0] end_slot;              // at the end of a frame: the first slot after it
reg        end_known;             // ... known (else: release the rest, DRAIN)
reg  [2:0] st_end;                // the state after the frame's end
reg  [1:0] nslot_end;

always @* begin
    // Where the next frame starts: after the frame's last slot, which is
    // the present one, or the next (a tail or padding past the groups).
    end_known = 1'b1;
    end_slot  = slot1;
    if (past_reg) begin
        end_slot = slot;
    end else if (!last_reg[slot]) begin
        end_slot  = slot2;
        end_known = full_reg[slot1] && last_reg[slot1];
    end
    st_end    = end_known ? W_IDLE : W_DRAIN;
    nslot_end = end_known ? end_slot : slot1;
    // At the end the frame's slots are released (none once past them).
    rel_end   = past_reg ? 4'd0
              : slot_oh | ((!last_reg[slot] && end_known) ? slot1_oh : 4'd0);

    // A chunk: a group, the raw tail, or the raw end of an overrun (also
    // when the walk is past the last slot with values left).
    k_valid   = (g_in && (past_reg || ok)) || t_go;
    // The frame ends: at the tail, or past the last slot (a group that
    // overruns ends it in the next cycle).
    fin_rest  = t_go || (g_in && past_reg);
    load_slot = nslot_reg;
    load      = 1'b0;
    if (st_reg == W_IDLE) begin
        load = fb_valid_reg && avail[nslot_reg];
    end else if (t_go) begin
        // The next frame starts now when this one's slots are done.
        load_slot = end_slot;
        load      = fb_valid_reg && end_known && avail[end_slot];
    end
    // Slots released without a group: the frame's at its end, the rest of
    // a frame while draining. With a group (g_go), see full_reg below.
    rel = 4'd0;
    if (ovq_reg) begin
        rel = ovq_rel_reg;
    end else if (fin_rest) begin
        rel = rel_end;
    end else if (st_reg == W_DRAIN && full_reg[nslot_reg]) begin
        rel = 4'd1 << nslot_reg;
    end
end

reg  [2:0] st_rest;

always @* begin
    st_rest = st_reg;
    case (st_reg)
        W_START:  st_rest = (left_reg == 14'd0) ? W_TAIL : W_GROUPS;
        W_GROUPS: if (past_reg) st_rest = st_end;
        W_TAIL:   if (t_go) st_rest = st_end;
        W_DRAIN:  if (full_reg[nslot_reg] && last_reg[nslot_reg]) st_rest = W_IDLE;
        default: begin
        end
    endcase
    if (load) begin
        st_rest = W_START;
    end
    if (ovq_reg) begin
        st_rest = ovq_st_reg;
    end
end

always @(posedge clk) begin
    if (g_go) begin
        st_reg <= left8_reg ? W_TAIL : W_GROUPS;
    end else begin
        st_reg <= st_rest;
    end
    // The end of the frame if the group at pos overruns.
    ovq_reg       <= g_go && ov;
    ovq_st_reg    <= st_end;
    ovq_nslot_reg <= nslot_end;
    ovq_rel_reg   <= rel_end;
    if (g_go) begin
        // The next group (below 8 values left: the tail).
        pos_reg   <= nx;
        left_reg  <= left_reg - 14'd8;
        left8_reg <= left_reg <= 14'd16;
    end
    past_reg <= load ? 1'b0 : past_reg | (g_go && cr && last_reg[slot]);
    if (ovq_reg) begin
        nslot_reg <= ovq_nslot_reg;
    end else if (fin_rest) begin
        nslot_reg <= nslot_end;
    end else if (st_reg == W_DRAIN && full_reg[nslot_reg]) begin
        nslot_reg <= nslot_reg + 2'd1;
    end
    if (!fb_valid_reg) begin
        fb_valid_reg   <= f_valid;
        fb_skip_reg    <= f_skip;
        fb_values_reg  <= f_values;
        fb_values8_reg <= f_values <= 14'd8;
        fb_tail_reg    <= f_tail;
        fb_tag_reg     <= f_tag;
    end else if (load) begin
        fb_valid_reg <= 1'b0;
    end
    if (k_valid) begin
        first_reg <= 1'b0;
    end
    if (load) begin
        pos_reg   <= {load_slot, fb_skip_reg};
        left_reg  <= fb_values_reg;
        left8_reg <= fb_values8_reg;
        tail_reg  <= fb_tail_reg;
        tag_reg   <= fb_tag_reg;
        first_reg <= 1'b1;
    end
    if (rst) begin
        st_reg    <= W_IDLE;
        nslot_reg <= 2'd0;
        ovq_reg   <= 1'b0;
        fb_valid_reg <= 1'b0;
    end
end

// Ring state.
wire [3:0] take_oh    = w_take ? wr_oh : 4'd0;
wire [3:0] full_in    = full_reg | take_oh;
wire [3:0] full_cross = (full_reg & ~slot_oh) | take_oh;
wire [3:0] full_rest  = (full_reg & ~rel) | take_oh;
// The choice by cr, kept as nets so that the late select stays last.
(* keep *) wire [3:0] full_cr;
(* keep *) wire [3:0] full_nc;
assign full_cr = g_go ? full_cross : full_rest;
assign full_nc = g_go ? full_in    : full_rest;

always @(posedge clk) begin
    // Released with a group: its slot when it crosses into the next (late:
    // cr chooses); a frame's slots when its group overran, a cycle later.
    full_reg <= cr ? full_cr : full_nc;
    if (w_take) begin
        last_reg <= (last_reg & ~wr_oh) | (a_last_reg ? wr_oh : 4'd0);
        // Every ring byte with a constant index: entries of the slot
        // written, and entry 63 of the slot before.
        for (j = 0; j < 256; j = j + 1) begin
            if (wr_oh[j / 64]) begin
                ring_reg[8*j +: 8]  <= a_data_reg[8*(j % 64) +: 8];
                next_reg[8*j +: 8]  <= e_next[j % 64];
                cross_reg[j]        <= e_cross[j % 64];
                over_reg[j]         <= e_over[j % 64];
            end
            if (p_oh[j / 64] && j % 64 == 63) begin
                next_reg[8*j +: 8]  <= p_next;
                cross_reg[j]        <= 1'b1;
                over_reg[j]         <= p_over;
            end
        end
        p_lim_on_reg <= a_lim_on_reg;
        p_lim_reg    <= a_lim_reg;
        wr_slot_reg  <= wr_slot_reg + 2'd1;
    end
    if (rst) begin
        wr_slot_reg  <= 2'd0;
        full_reg     <= 4'd0;
        p_lim_on_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Chunk out, two register stages: in the decision cycle the 49 ring bytes
// from 16 * (pos / 16) are read (a slot released then may be rewritten in
// the next cycle), in the next the 34 from pos are taken from them, and
// the overrun (ovq_reg) of a group is known.
// ---------------------------------------------------------------------------
/* verilator lint_off UNUSEDSIGNAL */
wire [4095:0] x_rot  = {ring_reg, ring_reg} >> {pos_reg[7:4], 7'd0};
/* verilator lint_on UNUSEDSIGNAL */

reg            o_valid_reg, o_group_reg, o_fin_reg, o_past_reg, o_first_reg;
reg  [1:0]     o_raw_count_reg;
reg  [3:0]     o_nvalid_reg;
reg  [TAGW-1:0] o_tag_reg;
reg  [391:0]   o_bytes_reg;
reg  [3:0]     o_off_reg;

/* verilator lint_off UNUSEDSIGNAL */
wire [391:0]   x_sh = o_bytes_reg >> {o_off_reg, 3'd0};
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    o_valid_reg     <= k_valid;
    o_group_reg     <= g_go;
    o_fin_reg       <= fin_rest;
    o_past_reg      <= g_in && past_reg;
    o_raw_count_reg <= t_go ? tail_reg : 2'd0;
    o_nvalid_reg    <= nv;
    o_first_reg     <= first_reg;
    o_tag_reg       <= tag_reg;
    o_bytes_reg     <= x_rot[391:0];
    o_off_reg       <= pos_reg[3:0];

    c_valid     <= o_valid_reg;
    c_raw       <= o_group_reg ? ovq_reg : o_fin_reg;
    c_over      <= o_group_reg ? ovq_reg : o_past_reg;
    c_raw_count <= o_raw_count_reg;
    c_nvalid    <= o_nvalid_reg;
    c_first     <= o_first_reg;
    c_last      <= o_group_reg ? ovq_reg : o_fin_reg;
    c_tag       <= o_tag_reg;
    c_window    <= x_sh[271:0];
    if (rst) begin
        o_valid_reg <= 1'b0;
        c_valid     <= 1'b0;
    end
end

endmodule

`resetall
