"""A hand's decisions at the batched tables: which are legal, and playing them.

Methods of :class:`~blackjack_env.envs.batch.TableBatch` (a mixin): legality
(:meth:`HandsMixin.legal_mask`, :meth:`HandsMixin.legal_keys`: rows of the lookup
tables :mod:`blackjack_env.engine.play` builds), the one place a hand's decision is
played (:meth:`HandsMixin._act_play`: hit, stand, double, surrender, split), moving
play on to the next hand or the dealer (:meth:`HandsMixin._advance`), a hand's
total and natural, and the current hand's totals (:meth:`HandsMixin.current_totals`).
"""

from __future__ import annotations

import numpy as np

from blackjack_env.engine import play
from blackjack_env.engine.play import array_soft, array_total
from blackjack_env.envs.batch.state import BatchState
from blackjack_env.envs.codes import (
    ACTION_DOUBLE,
    ACTION_SPLIT,
    ACTION_STAND,
    ACTION_SURRENDER,
    NUM_CORE_ACTIONS,
    OUTCOME_BUST,
    OUTCOME_SURRENDER,
    PHASE_DECIDE,
    PHASE_INSURE,
    TAKES_CARD,
)


class HandsMixin(BatchState):
    """The hand methods of :class:`~blackjack_env.envs.batch.TableBatch`."""

    def _is_bj(self, f: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Natural on hands ``f`` (flat index) of tables ``t`` (split hands only if
        blackjack_after_split)."""
        bj = play.array_natural(self._ncards[f], self._hard[f], self._ace[f])
        if self._mixed and self.max_hands > 1:  # per table: split naturals count or not
            bj &= (self.nhands[t] == 1) | self._flag_t["split_naturals"][t]
        elif self.max_hands > 1 and not self._split_naturals:
            bj &= self.nhands[t] == 1
        return bj

    def _total(self, f: np.ndarray) -> np.ndarray:
        return array_total(self._hard[f], self._ace[f])

    def current_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(total, soft, ncards)`` of each table's current hand (last hand once over)."""
        h = np.minimum(self.cur, self.nhands - 1)
        h = np.maximum(h, 0)
        fi = (h, self._arange)
        hard, ace = self.hard[fi], self.ace[fi]
        return array_total(hard, ace), array_soft(hard, ace), self.ncards[fi]

    # ---------------------------------------------------------- legality
    def legal_mask(self) -> np.ndarray:
        """``(N, 7)`` bool: the legal decisions at every table (``Action`` codes).

        Rows of :func:`~blackjack_env.engine.play.play_action_table` (a hand in play)
        and :func:`~blackjack_env.engine.play.pre_peek_action_table` (the pre-peek
        question). A table in ``OVER`` has only ``STAND`` legal (its step just
        reports the result). The rows of :attr:`legal_table` at :meth:`legal_keys`.
        """
        rows = self._legal_rows.take(self.legal_keys())
        return rows.view(np.bool_).reshape(-1, 8)[:, :NUM_CORE_ACTIONS]


    def legal_keys(self) -> np.ndarray:
        """``(N,)`` int: the row of :attr:`legal_table` holding each table's legal
        decisions now (:attr:`legal_table_phase` gives the phase the row belongs to).

        A consumer that maps decisions to its own action rows can build its table once
        from :attr:`legal_table` and then look each step up by these keys."""
        phase = self.phase
        decide = phase == PHASE_DECIDE
        if self._stand_hit_only:  # every hand in play: STAND and HIT (play.stand_hit_only)
            key = self._stand_hit_keys.take(phase)
        else:
            if self.max_hands == 1:
                hard, ace, nc = self.hard[0], self.ace[0], self.ncards[0]
                two = nc == 2
                key = 2 * hard
                key += ace
            else:
                # the hand to act is hand 0 but at the (few) split tables, whose rows are
                # read again from their hand cur (a hand of the table in every phase
                # between calls: its key is read only where deciding)
                n = self.num_tables
                nh = self.nhands
                hard, ace, two = self.hard[0], self.ace[0], self.ncards[0] == 2
                r0, r1 = self.r0[0], self.r1[0]
                key = 2 * hard
                key += ace
                split = (nh > 1).nonzero()[0]
                if split.size:
                    fs = self.cur.take(split)
                    fs *= n
                    fs += split
                    r0s = self._r0.take(fs)
                    key[split] = (
                        2 * self._hard.take(fs) + self._ace.take(fs)
                        + play.KEY_FROM_SPLIT + play.KEY_SPLIT_ACES * (r0s == 0)
                    )
                    two[split] = self._ncards.take(fs) == 2
                if self._splits:  # pairs (few) that may be split
                    maybe = self._pair.take(self._at("pair", 13 * r0 + r1, self._arange))
                    if split.size:
                        maybe[split] = self._pair.take(
                            self._at("pair", 13 * r0s + self._r1.take(fs), split))
                    maybe &= two
                    c = maybe.nonzero()[0]
                    if c.size:  # two-card pairs
                        fc = self.cur.take(c)
                        fc *= n
                        fc += c
                        nhc = nh.take(c)
                        aces = (nhc > 1) & (self._r0.take(fc) == 0)
                        key[c] += play.KEY_CAN_SPLIT * self._split_allowed(1, nhc, aces, fc)
            # two cards: KEY_TWO_CARDS (a doubled hand never decides: its row is never read)
            key += play.KEY_TWO_CARDS * two
            key += self._up_key
            if self.bankroll is not None:  # the rows without DOUBLE where it is not covered
                key += self._poor_play_offset * self._short_of_double(decide)
            if np.count_nonzero(decide) != decide.size:
                # by index: a boolean mask as random as the tables' phases is slow to
                # branch on, element by element, in putmask, where or mask indexing
                key[(~decide).nonzero()[0]] = self._over_key
        # the INSURE phase occurs only under _pre_peek
        if self._pre_peek and np.count_nonzero(decide) != decide.size:
            ins = (phase == PHASE_INSURE).nonzero()[0]
            if ins.size:
                up = self._up_key[ins] // play.KEY_UPCARD
                key[ins] = self._pre_peek_key + 2 * up + self._is_bj(ins, ins)
                if self.bankroll is not None:  # the rows without INSURE where not covered
                    key[ins] += self._poor_pre_peek_offset * ~self._covers_insurance(ins)
        if self._mixed:  # each table's rows in the bank's legal table
            key += self._legal_off
        return key

    def _split_allowed(
        self, pair: np.ndarray | int, nh: np.ndarray, split_aces: np.ndarray, f: np.ndarray
    ) -> np.ndarray:
        """``engine.play.split_allowed`` (from its table) and ``split_stake_ok`` for
        two-card hands ``f`` (flat) of tables holding ``nh`` hands: ``pair`` (1 / 0, or
        an array of them) whether each is a pair, ``split_aces`` whether it comes from
        split aces."""
        key = 18 * pair + 2 * nh + split_aces
        if self._mixed:
            key = self._at("split_ok", key, f % self.num_tables)
        ok = self._split_ok.take(key)
        if self._split_stake_check and np.count_nonzero(ok):  # stakes vary: per hand
            ok &= self._split_stakes_ok(f)
        return ok

    # ---------------------------------------------------------- playing a hand
    def _act_play(self, idx: np.ndarray, actions: np.ndarray, track: bool = True) -> None:
        """Apply playing actions (``Action`` 0..4, legal) to the current hand of tables
        ``idx`` (in the ``DECIDE`` phase, increasing); ``track``: record the hand as the
        last one acted on. The one place a hand's decision is played: hit, stand, double
        (a hit whose stake doubles where the rules double), surrender, split; a finished
        hand moves play on (:meth:`_advance`)."""
        if self.max_hands == 1:  # one hand, never split: hand 0 (last_hand stays 0)
            h = idx  # never read: no split
            f = idx
        else:
            h = self.cur.take(idx)
            if track:
                self.last_hand[idx] = h
            f = h * self.num_tables + idx
        hitting = TAKES_CARD.take(actions).nonzero()[0]
        split = (actions == ACTION_SPLIT).nonzero()[0] if self.max_hands > 1 else hitting[:0]
        split_cards = None
        if hitting.size:
            dbl = (actions == ACTION_DOUBLE).nonzero()[0] if self._can_double_rule else hitting[:0]
            if dbl.size:
                fd = f[dbl]
                self._stake[fd] *= 2
                self._doubled[fd] = True
                self._done[fd] = True
            t = idx.take(hitting)
            fh = t if self.max_hands == 1 else f.take(hitting)
            if self._hit_block and not self._stacked_any and not self.track_cards:
                cards = self._random_cards(self.num_tables).take(t)
            elif split.size:  # the split hands' second cards, drawn next, in the same draw
                cards = self._draw(np.concatenate((t, idx.take(split))))
                cards, split_cards = cards[: t.size], cards[t.size :]
            else:
                cards = self._draw(t)
            self._add_card(fh, cards)
            hard = self._hard.take(fh)
            bust = hard > 21
            if np.count_nonzero(bust):
                self._pay(fh.compress(bust), OUTCOME_BUST)
            if self._auto21:
                twenty_one = array_total(hard, self._ace.take(fh)) == play.AUTO_STAND_TOTAL
                twenty_one &= ~bust
                if self._mixed:  # the tables whose rules stand on 21
                    twenty_one &= self._flag_t["auto21"].take(t)
                self._done[fh.compress(twenty_one)] = True
        stand = (actions == ACTION_STAND).nonzero()[0]
        if stand.size:
            self._done[f.take(stand)] = True
        surr = (actions == ACTION_SURRENDER).nonzero()[0] if self._surrenders else hitting[:0]
        if surr.size:
            fs = f[surr]
            self._surrendered[fs] = True
            self._done[fs] = True
            if self._mixed:  # the tables whose rules settle a surrender at once
                fs = fs[self._flag_t["surrender_at_once"].take(idx[surr])]
                if fs.size:
                    self._pay(fs, OUTCOME_SURRENDER)
            elif self._surrender_at_once:
                self._pay(fs, OUTCOME_SURRENDER)
        if split.size:
            self._split(idx[split], h[split], split_cards)
        finished = self._done.take(f).nonzero()[0]
        if finished.size:
            if self.max_hands == 1:  # as _advance: hand 0 is done, the dealer plays
                self._to_dealer.append(idx.take(finished))
            else:
                self._advance(idx.take(finished))

    def _add_card(self, f: np.ndarray, cards: np.ndarray) -> None:
        """Cards ``cards`` join hands ``f`` (flat) holding two or more cards (a hit; a
        split hand's second card: :meth:`_second_card`)."""
        if self._mixed:
            values = self._value_of_id.take(self._at("value_of_card", cards, f % self.num_tables))
        else:
            values = self._value_of_id.take(cards)
        self._hard[f] = self._hard.take(f) + values
        self._ace[f] = self._ace.take(f) | self._ace_of_id.take(cards)
        n = self._ncards.take(f)
        n += 1
        self._ncards[f] = n
        if self.track_cards:
            self._hand_ranks_f[f, self._rank_of_id.take(cards)] += 1

    def _split(self, t: np.ndarray, h: np.ndarray, cards: np.ndarray | None = None) -> None:
        """Split hand ``h`` of tables ``t``: the new hand goes right after it; hand ``h``
        gets its second card (``cards``, when already drawn from the tables' shoes)."""
        n = self.num_tables
        # shift hands after h one place right (they wait for their second card)
        nh = self.nhands[t]
        for k in range(self.max_hands - 1, 0, -1) if np.count_nonzero(nh > h + 1) else ():
            move = (k > h + 1) & (k <= nh)
            if np.count_nonzero(move):
                tt = t[move]
                for arr in self._hand_fields:
                    arr[k, tt] = arr[k - 1, tt]
                if self.track_cards:
                    self.hand_ranks[k, tt] = self.hand_ranks[k - 1, tt]
        f = h * n + t
        fn = f + n
        r1 = self._r1[f]
        v1 = self._values.take(self._at("card_values", r1, t))
        # the new hand: every field written (those not set below start at 0)
        for arr in (self._r1, self._doubled, self._surrendered, self._done, self._settled,
                    self._net):
            arr[fn] = 0
        self._outcome[fn] = -1
        self._hard[fn] = v1
        self._ace[fn] = r1 == 0
        self._ncards[fn] = 1
        self._r0[fn] = r1
        if self.track_cards:
            self._hand_ranks_f[fn] = 0
            self._hand_ranks_f[fn, r1] = 1
            self._hand_ranks_f[f, r1] -= 1
        if self._mixed:  # each table's rules say what a split hand stakes
            bank = self.bank
            assert bank is not None
            stake = self._stake[f]
            if len(bank.split_rules) == 1:
                stake = play.array_split_stake(bank.split_rules[0], stake)
            else:
                group = bank.flags["split_group"].take(self.rule_slot.take(t))
                for g, rules in enumerate(bank.split_rules):
                    sel = group == g
                    if np.count_nonzero(sel):
                        stake[sel] = play.array_split_stake(rules, stake[sel])
        else:
            stake = play.array_split_stake(self.rules, self._stake[f])
        self._stake[f] = stake
        self._stake[fn] = stake
        self._hard[f] -= v1  # the hand keeps its first card
        self._ace[f] = self._r0[f] == 0
        self.nhands[t] += 1
        self._second_card(f, t, cards)

    def _second_card(self, f: np.ndarray, t: np.ndarray, cards: np.ndarray | None = None) -> None:
        """Split hands ``f`` (flat) of tables ``t``, holding one card each, get their
        second card from the tables' shoes (``cards``: already drawn); a hand with no
        decision left is finished (``engine.play.split_hand_done``: split aces that may
        not be hit, a natural that counts, a 21, a pair that may be split again decides)."""
        if cards is None:
            cards = self._draw(t)
        r0 = self._r0[f]
        r1 = self._rank_of_id.take(cards)
        ranks = 13 * r0 + r1  # the hand's one card is its first: _two_hard and others
        self._hard[f] = self._two_hard.take(self._at("two_hard", ranks, t))
        self._ace[f] = self._two_ace.take(ranks)
        self._ncards[f] = 2
        self._r1[f] = r1
        if self.track_cards:
            self._hand_ranks_f[f, r1] += 1
        key = self._second_key.take(self._at("second_key", ranks, t))  # split aces, natural, 21
        if self._splits:  # split aces: the seat holds two hands or more
            pair = self._pair.take(self._at("pair", ranks, t))
            ok = self._split_allowed(pair, self.nhands[t], r0 == 0, f)
            key += 4 * ok
        finish = self._split_done.take(self._at("split_done", key, t))  # play.split_hand_done
        if np.count_nonzero(finish):
            self._done[f[finish]] = True

    def _advance_fresh(self, idx: np.ndarray) -> None:
        """:meth:`_advance` of tables ``idx`` whose only hand is hand 0 (right after the
        deal, or any time under one-hand rules): a decision on it, or (done) the dealer."""
        if not idx.size:
            return
        self.cur[idx] = 0
        if self._auto21:
            live = idx[~self._done[idx]]
            if self._mixed:  # the tables whose rules stand on 21
                live = live[self._flag_t["auto21"].take(live)]
            hit21 = self._total(live) == play.AUTO_STAND_TOTAL
            if np.count_nonzero(hit21):
                self._done[live[hit21]] = True
        finished = idx[self._done[idx]]
        if finished.size:
            self._to_dealer.append(finished)

    def _advance(self, idx: np.ndarray) -> None:
        """Move tables ``idx`` on to their next hand needing a decision, or to the dealer."""
        n = self.num_tables
        if self.max_hands == 1 and idx.size:
            self._advance_fresh(idx)
            return
        while idx.size:
            cur = self.cur.take(idx)
            cur += 1
            self.cur[idx] = cur
            past = cur >= self.nhands.take(idx)
            # every hand done: the dealer plays (once per call, at the end)
            if np.count_nonzero(past):
                self._to_dealer.append(idx.compress(past))
                more = ~past
                idx, cur = idx.compress(more), cur.compress(more)
                if not idx.size:
                    return
            f = cur * n + idx
            live = ~self._done[f]
            one = live & (self._ncards[f] == 1)
            if np.count_nonzero(one):
                self._second_card(f[one], idx[one])
            if self._auto21:
                two = live & ~one
                if self._mixed:  # the tables whose rules stand on 21
                    two &= self._flag_t["auto21"].take(idx)
                hit21 = two & (self._total(f) == play.AUTO_STAND_TOTAL)
                if np.count_nonzero(hit21):
                    self._done[f[hit21]] = True
            idx = idx[self._done[f]]
