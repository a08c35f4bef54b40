"""The round at the batched tables: the deal, the peek, a step, the round's result.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin):
:meth:`RoundMixin.start_rounds` (clear, reshuffle where the cut card is out, deal, pay or
end naturals, the pre-peek question or the peek), :meth:`RoundMixin.step` (one decision
per table: the pre-peek answer, or a playing decision on the current hand, played in
:mod:`.hands`), :meth:`RoundMixin.round_net`, and :meth:`RoundMixin.finish_rounds` (play
a round out standing).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.cards import Card
from blackjack_env.engine.play import NaturalEffect
from blackjack_env.envs.batch.state import BatchState
from blackjack_env.envs.codes import (
    ACTION_INSURE,
    ACTION_SURRENDER,
    OUTCOME_BLACKJACK,
    OUTCOME_EVEN_MONEY,
    OUTCOME_SURRENDER,
    PHASE_DECIDE,
    PHASE_INSURE,
    PHASE_OVER,
)

_INSURANCE_PAYS = float(play.INSURANCE_PAYS)  # net per chip staked on insurance, 2:1
#: what a dealt natural does, per table of a mixed batch (play.dealt_natural_effect)
_EFFECT_PAY = int(NaturalEffect.PAY)
_EFFECT_END = int(NaturalEffect.END)
#: the Action codes of play.play_out_action at [pre_peek] (finish_rounds)
_PLAY_OUT = tuple(int(a) for a in play.play_out_codes())


class RoundMixin(BatchState):
    """The round's methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def start_rounds(
        self,
        idx: np.ndarray,
        stacks: Mapping[int, str | list[Card]] | None = None,
        bets: np.ndarray | None = None,
    ) -> None:
        """Clear tables ``idx``, reshuffle where the cut card is out, and deal a round.

        ``stacks`` maps a table index to cards dealt first at that table. ``bets``: the
        chips staked at each table of ``idx`` (default: ``bet``), already allowed by the
        table limits and the bankroll (:meth:`chips`). A table opened by
        :meth:`open_rounds` is not checked for a reshuffle again.
        """
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == 0:
            return
        self._clear_rounds(idx, stacks)
        hard, ace, ru, d_hard, d_ace = self._deal_round(idx, bets)
        bj, eff, ended = self._deal_naturals(idx, hard, ace)
        self._peek_at_deal(idx, bj, ru, ended, d_hard, d_ace)
        self._finish_deal(idx, bj, eff)
        self._flush_dealer()
        if self.seats > 1:
            self._sync_shoes()

    def _clear_rounds(self, idx: np.ndarray, stacks: Mapping[int, str | list[Card]] | None
                      ) -> None:
        """Settle the last round's chips, reshuffle where the cut card is out, stack
        ``stacks``, and start every hand of tables ``idx`` afresh (:meth:`start_rounds`)."""
        if self.bankroll is not None:  # the last round's result joins the bankroll
            self.bankroll[idx] += self._on_table_units(idx)
        # previous round's cards go to the discard tray
        if not self.infinite:  # an infinite deck is never reshuffled: reshuffled stays False
            pos = self.pos.take(idx)
            self.round_start[idx] = pos
            dealt = pos + self._dealt_minus_pos.take(idx)  # as needs_shuffle
            if self._mixed:  # each table's own cut card
                shuffle = dealt >= self._cut_t.take(idx)
            else:
                shuffle = dealt > 0 if self._cut is None else dealt >= self._cut
            self.reshuffled[idx] = shuffle
            if np.count_nonzero(shuffle):
                self._new_shoes(idx.compress(shuffle))
        if self._opened_any:
            self._close_openings(idx)
        if stacks:
            for t, cards in stacks.items():
                if self.seats > 1 and int(t) % self.seats:
                    raise ValueError(
                        f"stacks: row {t} is not seat 0 of its table; with several seats "
                        f"a table's cards are stacked at its seat-0 row"
                    )
                self.stack(int(t), cards)
        # no table can have stacked cards pending if stack() was never called
        self._stacked_any = self._ever_stacked and bool(
            np.count_nonzero(self.stacked_end > self.pos)
        )
        # hand 0 starts afresh; hands 1.. are written when a split creates them
        for arr in self._round_flags:
            arr[idx] = 0
        self._outcome[idx] = -1
        if self.max_hands > 1:  # one hand: these never change from 1, 0, 0
            # hands past nhands hold a net of -0.0 (x + -0.0 is x): step sums all hands
            split = idx.compress(self.nhands.take(idx) > 1)
            if split.size:
                self.net[1:, split] = -0.0
            self.nhands[idx] = 1
            self.cur[idx] = 0
            self.last_hand[idx] = 0
        if self._pre_peek:  # otherwise nobody ever insures: both stay 0
            self.insurance[idx] = 0.0
            self.insurance_net[idx] = 0.0
        self.hole_revealed[idx] = False
        self.rounds[idx] += 1

    def _deal_round(
        self, idx: np.ndarray, bets: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Deal two cards to the hand and the dealer's cards at tables ``idx`` (casino
        order), staking ``bets``: the hand's hard total and ace, the upcard's rank index,
        and the dealer's hard total and ace with the hole card (None without one)."""
        no_hole = None  # a mixed batch: per table, no hole card is dealt
        if self._mixed:
            ids, no_hole = self._deal_mixed(idx)
            vk = self._value_of_id.take(ids + self._off["value_of_card"].take(idx))
        else:
            k = 3 if self._no_hole else 4
            # card-major rows: player, up, player, hole
            ids = self._deal_seats(idx, k) if self.seats > 1 else self._draw_many(idx, k)
            vk = self._value_of_id.take(ids)
        rk = self._rank_of_id.take(ids)
        ak = self._ace_of_id.take(ids)
        r1, ru, r2 = rk[0], rk[1], rk[2]
        up_value = vk[1]
        up_ace = ak[1]  # by rank: custom values may give another card the value 1
        self._r0[idx] = r1
        self._r1[idx] = r2
        hard = vk[0] + vk[2]
        ace = ak[0] | ak[2]
        self._hard[idx] = hard
        self._ace[idx] = ace
        self._ncards[idx] = 2
        if bets is not None:
            self._stake[idx] = bets
        elif not self._stake_fixed:
            self._stake[idx] = self.bet
        if self.track_cards:
            self._hand_ranks_f[idx] = 0
            self._hand_ranks_f[idx, r1] += 1
            self._hand_ranks_f[idx, r2] += 1
            self.dealer_ranks[idx] = 0
            self.dealer_ranks[idx, ru] += 1
            if no_hole is not None:
                hole = ~no_hole
                self.dealer_ranks[idx[hole], rk[3][hole]] += 1
            elif not self._no_hole:
                self.dealer_ranks[idx, rk[3]] += 1
        self.up[idx] = ids[1]
        if self._pre_peek or not self._stand_hit_only:  # read by legal_keys only then
            self._up_key[idx] = play.KEY_UPCARD * ru
        if no_hole is not None:
            hole = ~no_hole
            d_hard = up_value + vk[3] * hole
            d_ace = up_ace | (ak[3] & hole)
            self.d_hard[idx] = d_hard
            self.d_ace[idx] = d_ace
            self.d_n[idx] = 2 - no_hole
            self.hole[idx] = np.where(no_hole, -1, ids[3])
        elif self._no_hole:
            self.d_hard[idx] = up_value
            self.d_ace[idx] = up_ace
            self.d_n[idx] = 1
            self.hole[idx] = -1
            d_hard = d_ace = None  # no hole card: the deal shows no dealer natural
        else:
            self.hole[idx] = ids[3]
            d_hard = up_value + vk[3]
            d_ace = up_ace | ak[3]
            self.d_hard[idx] = d_hard
            self.d_ace[idx] = d_ace
            self.d_n[idx] = 2
        return hard, ace, ru, d_hard, d_ace

    def _deal_naturals(
        self, idx: np.ndarray, hard: np.ndarray, ace: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """The naturals dealt at tables ``idx``, paid or ended at once as the rules say
        (``play.dealt_natural_effect``): the naturals, and in a mixed batch each table's
        effect and the naturals that ended their hand (else None)."""
        bj = play.array_natural(2, hard, ace)  # two cards each
        effect = self._natural_effect  # play.dealt_natural_effect
        ended = None  # a mixed batch: the naturals that end their hand, per table
        eff = None
        if self._mixed:
            eff = self._effect_t.take(idx)
            pays = bj & (eff == _EFFECT_PAY)
            ended = bj & (eff == _EFFECT_END)
            if np.count_nonzero(pays):
                self._pay(idx.compress(pays), OUTCOME_BLACKJACK)
            if np.count_nonzero(ended):
                self._done[idx.compress(ended)] = True
        elif effect is not NaturalEffect.PLAY and np.count_nonzero(bj):
            if effect is NaturalEffect.PAY:
                self._pay(idx.compress(bj), OUTCOME_BLACKJACK)
            else:
                self._done[idx.compress(bj)] = True
        return bj, eff, ended

    def _peek_at_deal(self, idx: np.ndarray, bj: np.ndarray, ru: np.ndarray,
                      ended: np.ndarray | None, d_hard: np.ndarray | None,
                      d_ace: np.ndarray | None) -> None:
        """The pre-peek question or the peek at tables ``idx`` right after the deal."""
        effect = self._natural_effect  # play.dealt_natural_effect
        # a blackjack needs an ace and a ten-value card: peek under either (the ace by
        # rank, since custom values may give a non-ace the value 1)
        self.phase[idx] = PHASE_DECIDE
        if self._peek:  # no peek: peek_possible stays False
            asks = poor = None
            if self._mixed:
                off = self._off
                peek_possible = self._peek_by_rank.take(ru + off["peek_by_rank"].take(idx))
                question = 2 * ru + bj
                asks = self._asks_pre_peek.take(question + off["asks_pre_peek"].take(idx))
                if self.bankroll is not None:
                    poor = self._asks_pre_peek_poor.take(
                        question + off["asks_pre_peek_poor"].take(idx))
            else:
                peek_possible = self._peek_by_rank.take(ru)
                if self._pre_peek:
                    asks = self._asks_pre_peek.take(2 * ru + bj)
                    if self.bankroll is not None:
                        poor = self._asks_pre_peek_poor.take(2 * ru + bj)
            self.peek_possible[idx] = peek_possible
            ask = None  # nobody is asked the pre-peek question unless _pre_peek
            if self._pre_peek:
                assert asks is not None
                ask = peek_possible & ~self._settled.take(idx)
                ask &= asks
                if self.bankroll is not None:  # insurance only when affordable
                    assert poor is not None
                    ask &= poor | self._covers_insurance(idx)
            if ask is not None and np.count_nonzero(ask):
                if self.seats > 1:
                    idx = self._ask_seats(idx, ask)
                else:
                    self.phase[idx[ask]] = PHASE_INSURE
                    idx = idx[~ask]
                    self._do_peek(idx)
                    idx = idx[self.phase[idx] != PHASE_OVER]
            else:  # the naturals are known from the deal (a peek rule has a hole card)
                natural = bj if effect is NaturalEffect.END else ended
                assert d_hard is not None and d_ace is not None  # a peek: a hole card
                idx = self._do_peek(
                    idx, peek_possible & play.array_natural(2, d_hard, d_ace), natural,
                    at_deal=True,
                )

    def _finish_deal(self, dealt_to: np.ndarray, bj: np.ndarray, eff: np.ndarray | None
                     ) -> None:
        """The hands of tables ``dealt_to`` that are done at the deal go to the dealer."""
        effect = self._natural_effect  # play.dealt_natural_effect
        # the cursor is on hand 0 (as in _advance_fresh); hand 0 has two cards, so it is
        # done exactly when it is a natural that is paid at the deal or ends the hand, or a
        # 21 under auto_stand_21; those still to play (DECIDE: not a dealer blackjack, not
        # asked the pre-peek question) go to the dealer
        if self._mixed:  # per table: the naturals paid at the deal or standing
            stands = self._flag_t["natural_stands"].take(dealt_to)
            fin = dealt_to.compress(bj & ((eff == _EFFECT_PAY) | stands))
        elif effect is NaturalEffect.PAY or self._natural_stands:
            fin = dealt_to.compress(bj)
        else:
            fin = dealt_to[:0]
        if fin.size:
            fin = fin[self.phase[fin] == PHASE_DECIDE]
            self._done[fin] = True
            if fin.size:
                # all paid (at the peek): the dealer's turn would only end the rounds
                paid = np.count_nonzero(self._settled.take(fin)) == fin.size
                if paid and self.seats == 1:
                    self._round_over(fin)
                else:
                    self._to_dealer.append(fin)

    def _do_peek(
        self,
        idx: np.ndarray,
        dealer_bj: np.ndarray | None = None,
        natural: np.ndarray | None = None,
        at_deal: bool = False,
    ) -> np.ndarray:
        """The dealer checks the hole card at tables ``idx`` (only counts with an ace/ten up).

        ``at_deal``: called right after the deal (nobody insured yet), with the dealer's
        peeked blackjack per table in ``dealer_bj`` and, in ``natural``, the player's
        natural that ended the hand (None: none did). Returns the tables whose round
        goes on (no dealer blackjack). In a mixed batch only the tables whose rules peek
        are peeked (the others' rounds go on)."""
        if not self._mixed:
            return self._peek_now(idx, dealer_bj, natural, at_deal)
        peeks = self._flag_t["peek"].take(idx)
        if np.count_nonzero(peeks) == peeks.size:
            return self._peek_now(idx, dealer_bj, natural, at_deal)
        self._peek_now(
            idx.compress(peeks),
            None if dealer_bj is None else dealer_bj.compress(peeks),
            None if natural is None else natural.compress(peeks),
            at_deal,
        )
        return idx[self.phase.take(idx) != PHASE_OVER]

    def _peek_now(
        self,
        idx: np.ndarray,
        dealer_bj: np.ndarray | None,
        natural: np.ndarray | None,
        at_deal: bool,
    ) -> np.ndarray:
        """:meth:`_do_peek` at tables whose rules peek."""
        if idx.size == 0:
            return idx
        if not at_deal:
            ins = self.insurance[idx]
            dealer_bj = self.peek_possible[idx] & self._dealer_bj(idx)
            if np.count_nonzero(ins > 0):
                self.insurance_net[idx] = np.where(dealer_bj, _INSURANCE_PAYS * ins, -ins)
        assert dealer_bj is not None
        if np.count_nonzero(dealer_bj):
            hit = idx.compress(dealer_bj)
            self.hole_revealed[hit] = True
            self._settle_by_compare(hit)
            self.phase[hit] = PHASE_OVER
            keep = (~dealer_bj).nonzero()[0]
            rest = idx.take(keep)
            if natural is not None:
                natural = natural.take(keep)
        else:
            rest = idx
        # a natural now wins for sure, unless it only ties a dealer 21 of three or more
        # cards, or under highest-hand settlement (it is compared at the end)
        if rest.size and self._naturals_paid_at_peek:
            if not at_deal:
                done_bj = self._done[rest] & ~self._settled[rest] & self._is_bj(rest, rest)
            elif natural is None:
                return rest
            else:  # at the deal: done & unsettled & natural is exactly this
                done_bj = natural
            if self._mixed:  # the rules that pay a natural at the peek
                done_bj = done_bj & self._flag_t["naturals_paid_at_peek"].take(rest)
            if np.count_nonzero(done_bj):
                self._pay(rest.compress(done_bj), OUTCOME_BLACKJACK)
        return rest

    def _deal_mixed(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A mixed batch's deal at tables ``idx``: the card ids ``(4, len(idx))`` as
        :meth:`start_rounds` reads them (first card, upcard, second card, hole card; the
        hole card's row 0 where no hole card is dealt) and, per table, whether its rules
        deal no hole card."""
        no_hole = self._flag_t["no_hole"].take(idx)
        deal = self._deal_seats if self.seats > 1 else self._draw_many
        count = np.count_nonzero(no_hole)
        if not count:
            return deal(idx, 4).astype(np.intp), no_hole
        ids = np.zeros((4, idx.size), dtype=np.intp)
        if count == idx.size:
            ids[:3] = deal(idx, 3)
            return ids, no_hole
        hole, none = (~no_hole).nonzero()[0], no_hole.nonzero()[0]
        ids[:, hole] = deal(idx.take(hole), 4)
        ids[:3, none] = deal(idx.take(none), 3)
        return ids, no_hole

    def finish_rounds(self, idx: np.ndarray) -> None:
        """Play out the rounds at tables ``idx``, the player taking
        :func:`~blackjack_env.engine.play.play_out_action` at every remaining decision
        (``last_hand`` is left as it is)."""
        idx = np.asarray(idx, dtype=np.int64)
        while True:
            idx = idx[self.phase[idx] != PHASE_OVER]
            if not idx.size:
                if self.seats > 1:
                    self._sync_shoes()
                return
            act = idx if self.seats == 1 else idx[self.acting().take(idx)]
            if not act.size:
                raise RuntimeError("finish_rounds: a table waits for no seat (not table-aligned?)")
            ins = self.phase[act] == PHASE_INSURE
            if np.count_nonzero(ins):
                t = act[ins]
                self._act_insurance(t, np.full(t.size, _PLAY_OUT[1], dtype=np.int64))
            t = act[~ins]
            if t.size:
                self._act_play(t, np.full(t.size, _PLAY_OUT[0], dtype=np.int64), track=False)
            self._flush_dealer()

    # ================================================================ step
    def step(
        self, actions: np.ndarray, active: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one decision per table (``Action`` codes, already legal).

        ``active`` (bool per table, default all) limits the step to some tables;
        the others are left as they are and report nothing.

        Returns ``(round_over, reward)``: which tables' rounds ended on this
        step and their net result in units of the bet (0 where still running).
        Tables in ``OVER`` just report their result. Legality is not checked
        here: map actions with :meth:`legal_mask` first.
        """
        actions = np.asarray(actions, dtype=np.int64)
        if self.seats > 1:  # only the seat each table waits for acts
            act = self.acting()
            active = act if active is None else act & active
        phase = self.phase
        decide = phase == PHASE_DECIDE
        if active is not None:
            decide &= active
        if self._pre_peek:
            ins = phase == PHASE_INSURE
            if active is not None:
                ins &= active
            ins = ins.nonzero()[0]
            if ins.size:
                self._act_insurance(ins, actions[ins])
        decide = decide.nonzero()[0]
        if decide.size:
            self._act_play(decide, actions.take(decide))
        self._flush_dealer()
        round_over = phase == PHASE_OVER
        if active is not None:
            round_over &= active
        if self.seats > 1:  # a table's round ends for all its seats at once
            round_over = round_over.reshape(-1, self.seats).any(axis=1).repeat(self.seats)
            self._sync_shoes()
        net = self._round_nets(self.net, self.insurance_net)  # whole width
        reward = np.zeros(self.num_tables, dtype=np.float64)
        ro = round_over.nonzero()[0]  # by index: faster than np.where on a random mask
        reward[ro] = net.take(ro)
        return round_over, reward

    def _later_hands(
        self, idx: np.ndarray, nh: np.ndarray | None = None
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """For each hand ``k >= 1`` that some table of ``idx`` holds (split tables, few):
        ``(sel, f)``, the positions in ``idx`` of those tables and the flat indices of
        their hand ``k`` (hands past ``nhands`` hold stale values: never read them).
        ``nh``: ``nhands`` at ``idx`` when the caller has it."""
        if nh is None:
            nh = self.nhands.take(idx)
        for k in range(1, self.max_hands):
            sel = (nh > k).nonzero()[0]
            if not sel.size:
                return
            yield sel, k * self.num_tables + idx[sel]

    def round_net(self, idx: np.ndarray) -> np.ndarray:
        """Net result of the round so far at tables ``idx``, in units of the bet."""
        return self._round_nets(self.net.take(idx, axis=1), self.insurance_net.take(idx))

    def _round_nets(self, net: np.ndarray, insurance_net: np.ndarray) -> np.ndarray:
        """Rounds' nets in units of the bet from their hands' nets ``(max_hands, m)``,
        summed in hand order (hands past ``nhands`` hold -0.0, which adds nothing), and
        their insurance nets ``(m,)``."""
        hands = net[0] if self.max_hands == 1 else np.add.reduce(net, axis=0)
        if self._pre_peek or self._negative_zero:
            hands = hands + insurance_net  # -0.0 + 0.0 is 0.0
        return hands / self.bet if self.bet != 1 else hands

    def _act_insurance(self, idx: np.ndarray, actions: np.ndarray) -> None:
        insure = actions == ACTION_INSURE
        if np.count_nonzero(insure):
            t = idx[insure]
            bj = self._is_bj(t, t)
            if np.count_nonzero(bj):
                self._pay(t[bj], OUTCOME_EVEN_MONEY)
            nb = t[~bj]
            self.insurance[nb] = self._stake[nb] / 2.0
        surr = actions == ACTION_SURRENDER
        if np.count_nonzero(surr):
            t = idx[surr]
            self._surrendered[t] = True
            self._pay(t, OUTCOME_SURRENDER)
        if self.seats > 1:
            self._peek_seats(idx)
            return
        self._do_peek(idx)
        idx = idx[self.phase[idx] != PHASE_OVER]
        self.phase[idx] = PHASE_DECIDE
        self.cur[idx] = -1
        self._advance(idx)
