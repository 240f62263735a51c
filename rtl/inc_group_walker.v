// SPDX-License-Identifier: MIT
/*
 * inc_group_walker - finds the groups of the receive engine's compressed
 * streams, one group per cycle, with a position loop of a table read and
 * a select (no adder, no shifter in the loop).
 *
 * The stream arrives in pairs (64 bytes, two beats) from the engine's
 * prefetch FIFO and is written in order into a ring of four pair slots
 * (256 bytes). When a pair is written, the size of a group starting at
 * each of its 64 byte offsets is computed from the tag word there (the
 * tag word at offset 63 takes the next pair's first byte: that entry is
 * completed when the next pair is written), and stored per ring byte as
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
 * bytes are all in the ring when it is read. A frame's walk:
 *
 *   IDLE -> (frame parameters and first pair there) START -> GROUPS ... -> TAIL
 *
 * START is one cycle without a chunk (the packer's flush of the previous
 * frame may take it); GROUPS sends one group per cycle until the values
 * are decoded, or a group that would overrun: then a raw chunk of 0 bytes,
 * c_over, ends the frame (the stream is malformed); TAIL sends the raw
 * tail (0..3 bytes) and ends the frame. A frame that ends in its last
 * slot starts the next one in the same cycle; otherwise the slots left of
 * it are released as they arrive (DRAIN). A frame thus costs its groups
 * plus two cycles.
 *
 * Slots are released when the walk leaves them; the window of a chunk is
 * read from the ring in its decision cycle, before a released slot can be
 * rewritten. The chunk leaves one cycle after its decision:
 * c_window is the 34 bytes from its position (a group is at most 34 bytes).
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
    output reg             f_ready,     // taken (its walk starts)
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
// Ring writer: pops a pair when its slot is free, and writes it with its
// 64 table entries and entry 63 of the slot before.
// ---------------------------------------------------------------------------
reg  [1:0]    wr_slot_reg;
reg  [3:0]    full_reg, last_reg;
reg  [2047:0] ring_reg;
reg  [2047:0] next_reg;            // 8 bits per ring byte
reg  [255:0]  cross_reg, over_reg;

reg  [7:0]    p_byte_reg;          // last byte of the previous pair
reg           p_lim_on_reg;        // and its limit
reg  [6:0]    p_lim_reg;

assign s_ready = !full_reg[wr_slot_reg];
wire   s_take  = s_valid && !full_reg[wr_slot_reg];

// Entries of the written pair: offsets 0..62 from its own bytes, 63 with a
// zero high byte (it is rewritten when the next pair arrives; alone it
// counts only in a frame's last pair, where every group there overruns).
reg  [7:0]    e_next [0:63];
reg  [63:0]   e_cross, e_over;
reg  [7:0]    p_next;              // entry 63 of the slot before
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
        gsize = inc_group_bytes(j == 63 ? {8'd0, s_data[511:504]} : s_data[8*j +: 16]);
        sum   = inc_lsum(j[7:0], {2'b00, gsize});
        lim_j = inc_lsub({1'b0, s_lim}, j[7:0]);
        e_next[j]  = {wr_slot_reg + {1'b0, sum[6]}, sum[5:0]};
        e_cross[j] = sum[6];
        e_over[j]  = s_lim_on && (lim_j[7] || !inc_lge(lim_j, {2'b00, gsize}));
    end
    gsize  = inc_group_bytes({s_data[7:0], p_byte_reg});
    sum    = inc_lsum(8'd63, {2'b00, gsize});
    lim_j  = inc_lsub({1'b0, p_lim_reg}, 8'd63);
    p_next = {wr_slot_reg, sum[5:0]};
    p_over = p_lim_on_reg && (lim_j[7] || !inc_lge(lim_j, {2'b00, gsize}));
end

// ---------------------------------------------------------------------------
// Walk
// ---------------------------------------------------------------------------
localparam [2:0] W_IDLE = 3'd0, W_START = 3'd1, W_GROUPS = 3'd2, W_TAIL = 3'd3, W_DRAIN = 3'd4;

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

wire [1:0] slot  = pos_reg[7:6];
wire [1:0] slot1 = slot + 2'd1;
wire [1:0] slot2 = slot + 2'd2;
wire [3:0] slot_oh  = 4'd1 << slot;
wire [3:0] slot1_oh = {slot_oh[2:0], slot_oh[3]};
// The group at pos is in the ring: its slot and the next are written, or
// its slot is the frame's last.
wire       ok    = full_reg[slot] && (last_reg[slot] || full_reg[slot1]);
// A slot written or being written (a frame may start as its first pair arrives).
wire [3:0] avail = full_reg | (s_take ? wr_oh : 4'd0);
wire [7:0] nx    = next_reg[{pos_reg, 3'b000} +: 8];
wire       ov    = over_reg[pos_reg];
wire       cr    = cross_reg[pos_reg];
wire [3:0] nv    = (left_reg >= 14'd8) ? 4'd8 : left_reg[3:0];

// The table entries of the group at pos (nx, ov, cr: 256-way selects)
// come late; the decisions are written so that they only choose between
// next states computed without them.
wire       g_in  = st_reg == W_GROUPS;
wire       g_go  = g_in && !past_reg && ok;   // the group at pos is in the ring
wire       t_go  = st_reg == W_TAIL && (past_reg || tail_reg == 2'd0 || ok);

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
    // The frame ends: at the tail, past the last slot, or (g_go and ov,
    // late) at a group that overruns.
    fin_rest  = t_go || (g_in && past_reg);
    load_slot = nslot_reg;
    load      = 1'b0;
    if (st_reg == W_IDLE) begin
        load = f_valid && avail[nslot_reg];
    end else if (t_go) begin
        // The next frame starts now when this one's slots are done.
        load_slot = end_slot;
        load      = f_valid && end_known && avail[end_slot];
    end
    // Slots released without a group: the frame's at its end, the rest of
    // a frame while draining. With a group (g_go), see full_reg below.
    rel = 4'd0;
    if (t_go || (g_in && past_reg)) begin
        rel = rel_end;
    end else if (st_reg == W_DRAIN && full_reg[nslot_reg]) begin
        rel = 4'd1 << nslot_reg;
    end
    f_ready = load;
end

// The next state when no group is sent (st_rest), and when one is
// (st_adv; the frame's end st_end instead when it overruns).
reg  [2:0] st_rest;
wire [2:0] st_adv = left8_reg ? W_TAIL : W_GROUPS;

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
end

always @(posedge clk) begin
    if (g_go) begin
        st_reg <= ov ? st_end : st_adv;
    end else begin
        st_reg <= st_rest;
    end
    if (g_go && !ov) begin
        // The next group (below 8 values left: the tail).
        pos_reg  <= nx;
        left_reg <= left_reg - 14'd8;
        left8_reg <= left_reg <= 14'd16;
        if (cr && last_reg[slot]) begin
            past_reg <= 1'b1;
        end
    end
    if (g_go) begin
        if (ov) begin
            nslot_reg <= nslot_end;
        end
    end else if (fin_rest) begin
        nslot_reg <= nslot_end;
    end else if (st_reg == W_DRAIN && full_reg[nslot_reg]) begin
        nslot_reg <= nslot_reg + 2'd1;
    end
    if (k_valid) begin
        first_reg <= 1'b0;
    end
    if (load) begin
        pos_reg   <= {load_slot, f_skip};
        left_reg  <= f_values;
        left8_reg <= f_values <= 14'd8;
        tail_reg  <= f_tail;
        tag_reg   <= f_tag;
        first_reg <= 1'b1;
        past_reg  <= 1'b0;
    end
    if (rst) begin
        st_reg    <= W_IDLE;
        nslot_reg <= 2'd0;
    end
end

// Ring state.
wire [3:0] take_oh    = s_take ? wr_oh : 4'd0;
wire [3:0] full_in    = full_reg | take_oh;
wire [3:0] full_end   = (full_reg & ~rel_end) | take_oh;
wire [3:0] full_cross = (full_reg & ~slot_oh) | take_oh;
wire [3:0] full_rest  = (full_reg & ~rel) | take_oh;
// The choices by ov and cr, kept as nets so that the late selects stay last.
(* keep *) wire [3:0] full_ov;
(* keep *) wire [3:0] full_cr;
(* keep *) wire [3:0] full_nc;
assign full_ov = g_go ? full_end   : full_rest;
assign full_cr = g_go ? full_cross : full_rest;
assign full_nc = g_go ? full_in    : full_rest;

always @(posedge clk) begin
    // Released with a group: the frame's slots when it overruns, its slot
    // when the group crosses into the next (late: ov, cr choose).
    full_reg <= ov ? full_ov : (cr ? full_cr : full_nc);
    if (s_take) begin
        last_reg <= (last_reg & ~wr_oh) | (s_last ? wr_oh : 4'd0);
        // Every ring byte with a constant index: entries of the slot
        // written, and entry 63 of the slot before.
        for (j = 0; j < 256; j = j + 1) begin
            if (wr_oh[j / 64]) begin
                ring_reg[8*j +: 8]  <= s_data[8*(j % 64) +: 8];
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
        p_byte_reg   <= s_data[511:504];
        p_lim_on_reg <= s_lim_on;
        p_lim_reg    <= s_lim;
        wr_slot_reg  <= wr_slot_reg + 2'd1;
    end
    if (rst) begin
        wr_slot_reg  <= 2'd0;
        full_reg     <= 4'd0;
        p_lim_on_reg <= 1'b0;
    end
end

// ---------------------------------------------------------------------------
// Chunk out, registered: the window is read from the ring in the decision
// cycle, as the 49 bytes from 16 * (pos / 16), then the 34 from pos.
// ---------------------------------------------------------------------------
// Shifts by multiples of 128 and 8 bits: two log shifters.
/* verilator lint_off UNUSEDSIGNAL */
wire [4095:0] x_rot  = {ring_reg, ring_reg} >> {pos_reg[7:4], 7'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [391:0]  x_bytes = x_rot[391:0];
/* verilator lint_off UNUSEDSIGNAL */
wire [391:0]  x_sh   = x_bytes >> {pos_reg[3:0], 3'd0};
/* verilator lint_on UNUSEDSIGNAL */
wire [271:0]  x_win  = x_sh[271:0];

always @(posedge clk) begin
    c_valid     <= k_valid;
    c_raw       <= g_go ? ov : fin_rest;
    c_over      <= g_go ? ov : g_in && past_reg;
    c_raw_count <= t_go ? tail_reg : 2'd0;
    c_nvalid    <= nv;
    c_first     <= first_reg;
    c_last      <= g_go ? ov : fin_rest;
    c_tag       <= tag_reg;
    c_window    <= x_win;
    if (rst) begin
        c_valid <= 1'b0;
    end
end

endmodule

`resetall
