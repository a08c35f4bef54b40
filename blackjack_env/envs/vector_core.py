"""Many blackjack tables stepped at once with numpy: the batched core of the vector env.

:class:`TableBatch` plays ``num_tables`` independent tables, each with one
player seat and a dealer, under one :class:`~blackjack_env.engine.rules.Rules`.
It is the engine's round (:class:`~blackjack_env.engine.table.Table`) rewritten
as structure-of-arrays code: every field of every hand of every table is an
element of a numpy array, and one call advances all tables. Nothing here
imports gymnasium; :mod:`blackjack_env.envs.vector` wraps it as a
``gymnasium.vector.VectorEnv``.

Semantics are those of :class:`~blackjack_env.engine.table.Table` for a single
seat with a fixed bet and unlimited credit (the parity tests replay stacked
rounds through both and compare every reward):

* deal order: player, dealer upcard, player, dealer hole card (none under
  ``HoleCard.NONE``); a split hand receives its second card when play reaches it;
* the insurance / early-surrender decision before the peek (``Phase.INSURANCE``),
  the peek, naturals, double, split (up to ``max_split_hands``, resplit aces,
  hit split aces, by rank or value, matched or halved bets), late / early
  surrender, S17 / H17, no-peek and no-hole-card dealers, every tie rule, both
  settlements, custom card values;
* each table has its own shoe: ``decks`` x 52 card ids (0..51, suit-major as in
  :data:`~blackjack_env.engine.cards.ALL_CARDS`) dealt from a position pointer,
  reshuffled between rounds once the cut card (``penetration``) is out and, if
  it ever runs dry mid-round, refilled from that table's shuffled discards; or
  an infinite deck (``decks=None``), a per-table buffer of cards drawn with
  replacement;
* every random draw comes from the one injected ``numpy.random.Generator``.

Not supported here (the constructor raises ``ValueError``): more than one seat
and ``bet_raising`` (a per-card bet decision).

Round life cycle of a table (``phase``):

``DECIDE``
    the player's current hand awaits a playing action (``Action`` 0..4);
``INSURE``
    the pre-peek decision (``Action.INSURE`` / ``DECLINE`` / ``SURRENDER``);
``OVER``
    the round was settled at the deal (a natural paid at once, a dealer
    blackjack found by the peek, or a natural with nothing to decide) and the
    result has not been reported yet: the next :meth:`TableBatch.step` reports
    it whatever the action.

:meth:`TableBatch.step` returns, per table, whether the round ended on that
step and the net result in units of the bet; a round that ends mid-step is
reported on that step (no extra step), a round settled at the deal on the
step after the deal.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from blackjack_env.engine.cards import ALL_CARDS, Card, parse_cards
from blackjack_env.engine.rules import (
    DoubleRule,
    HoleCard,
    Rules,
    Settlement,
    SplitBet,
    SplitBy,
    Surrender,
    TieRule,
)
from blackjack_env.engine.table import Action, Outcome

__all__ = ["OUTCOMES", "BatchPhase", "TableBatch"]


class BatchPhase(IntEnum):
    """Where a table's round stands (see the module docstring)."""

    DECIDE = 0
    INSURE = 1
    OVER = 2


#: Outcome codes used in :attr:`TableBatch.outcome` (index -> engine Outcome; -1 = unsettled).
OUTCOMES: tuple[Outcome, ...] = (
    Outcome.WIN,
    Outcome.BLACKJACK,
    Outcome.PUSH,
    Outcome.LOSS,
    Outcome.BUST,
    Outcome.SURRENDER,
    Outcome.EVEN_MONEY,
)
_WIN, _BJ, _PUSH, _LOSS, _BUST, _SURR, _EVEN = range(7)

_STAND = int(Action.STAND)
_HIT = int(Action.HIT)
_DOUBLE = int(Action.DOUBLE)
_SPLIT = int(Action.SPLIT)
_SURRENDER = int(Action.SURRENDER)
_INSURE = int(Action.INSURE)
_DECLINE = int(Action.DECLINE)

#: Number of decision codes the core understands (``Action`` 0..6).
NUM_CORE_ACTIONS = 7


class TableBatch:
    """``num_tables`` single-seat blackjack tables stepped together.

    Args:
        rules: the rule set (``rules.seats`` must be 1; ``bet_raising`` False).
        num_tables: how many tables.
        rng: the one generator every shuffle and infinite-deck draw comes from.
        bet: the fixed bet per round in chips (rewards are in units of it).

    Public state (numpy arrays; ``H = rules.max_split_hands``, ``N = num_tables``;
    hand arrays are ``(H, N)``, hand ``h`` of table ``t`` at ``[h, t]``):
    ``phase`` (``BatchPhase`` codes), ``nhands``, ``cur`` (hand to act),
    ``hard`` (hand total with aces as 1), ``ace`` (holds an ace), ``ncards``,
    ``r0``/``r1`` (rank index 0..12 of the first two cards), ``stake``
    (chips on the hand), ``doubled``, ``surrendered``, ``settled``, ``outcome``
    (index into :data:`OUTCOMES`, -1 unsettled), ``net`` (chips won, + or -),
    ``insurance`` (chips staked on insurance), ``d_hard``/``d_ace``/``d_n``
    (dealer), ``up`` / ``hole`` (dealer card ids; ``hole`` -1 when there is
    none yet), ``hole_revealed``, ``peek_possible``, ``counts`` (undealt cards
    by rank, finite shoes), ``rounds`` (rounds dealt), ``reshuffled`` (the
    shoe was reshuffled before the current round).
    """

    def __init__(
        self, rules: Rules, num_tables: int, rng: np.random.Generator, bet: int = 1
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules, got {type(rules).__name__}")
        if rules.seats != 1:
            raise ValueError(
                f"the batched tables seat one player; got rules.seats={rules.seats} "
                f"(use the single-seat env or the multi-agent env for more seats)"
            )
        if rules.bet_raising:
            raise ValueError(
                "bet_raising=True (a bet decision after each card) is not supported by the "
                "batched tables; use the single-seat env"
            )
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or (
            num_tables < 1
        ):
            raise ValueError(f"num_tables={num_tables!r} must be an int >= 1")
        if isinstance(bet, bool) or not isinstance(bet, (int, np.integer)) or not (
            rules.min_bet <= bet <= rules.max_bet
        ):
            raise ValueError(
                f"bet={bet!r} must be an int within the table limits "
                f"{rules.min_bet}..{rules.max_bet}"
            )
        self.rules = rules
        self.rng = rng
        self.bet = int(bet)
        n = self.num_tables = int(num_tables)
        h = self.max_hands = rules.max_split_hands
        self._arange = np.arange(n)

        # ----- rule constants
        self._values = np.array(rules.card_values, dtype=np.int64)  # by rank index
        self._rank_of_id = np.array([c.rank - 1 for c in ALL_CARDS], dtype=np.int64)
        self._value_of_id = self._values[self._rank_of_id]
        self._payout = float(rules.blackjack_payout)
        factors = np.array([1.0, self._payout, 0.0, -1.0, -1.0, -0.5, 1.0])
        self._factor = factors
        self._h17 = rules.dealer_hits_soft_17
        self._peek = rules.hole_card is HoleCard.PEEK
        self._no_hole = rules.hole_card is HoleCard.NONE
        self._auto21 = rules.auto_stand_21

        # ----- shoe
        self.decks = rules.shoe_decks
        self.infinite = self.decks is None
        self._max_round_cards = 22 * h + 20
        if self.infinite:
            self.shoe_size = 1024
        else:
            self.shoe_size = 52 * self.decks
            self._cut = (
                None if rules.penetration is None else rules.penetration * self.shoe_size
            )
            self._full_counts = np.bincount(
                np.tile(self._rank_of_id, self.decks), minlength=13
            ).astype(np.int64)
        s = self.shoe_size
        self.shoe = np.zeros((n, s), dtype=np.int64)
        self._shoe_flat = self.shoe.reshape(-1)
        self.pos = np.zeros(n, dtype=np.int64)
        self.round_start = np.zeros(n, dtype=np.int64)
        self.dealt = np.zeros(n, dtype=np.int64)  # since the last shuffle
        self.counts = np.zeros((n, 13), dtype=np.int64)
        self.shuffles = np.zeros(n, dtype=np.int64)
        self.mid_round_reshuffles = np.zeros(n, dtype=np.int64)
        self.reshuffled = np.zeros(n, dtype=bool)

        # ----- seat / hands
        self.phase = np.full(n, BatchPhase.OVER, dtype=np.int64)
        self.nhands = np.ones(n, dtype=np.int64)
        self.cur = np.zeros(n, dtype=np.int64)
        self.hard = np.zeros((h, n), dtype=np.int64)
        self.ace = np.zeros((h, n), dtype=bool)
        self.ncards = np.zeros((h, n), dtype=np.int64)
        self.r0 = np.zeros((h, n), dtype=np.int64)
        self.r1 = np.zeros((h, n), dtype=np.int64)
        self.stake = np.zeros((h, n), dtype=np.int64)
        self.doubled = np.zeros((h, n), dtype=bool)
        self.surrendered = np.zeros((h, n), dtype=bool)
        self.done = np.zeros((h, n), dtype=bool)
        self.settled = np.zeros((h, n), dtype=bool)
        self.outcome = np.full((h, n), -1, dtype=np.int64)
        self.net = np.zeros((h, n), dtype=np.float64)
        self.insurance = np.zeros(n, dtype=np.float64)
        self.insurance_net = np.zeros(n, dtype=np.float64)
        self._hand_fields = (
            self.hard, self.ace, self.ncards, self.r0, self.r1, self.stake, self.doubled,
            self.surrendered, self.done, self.settled, self.outcome, self.net,
        )  # fmt: skip
        # ----- dealer
        self.d_hard = np.zeros(n, dtype=np.int64)
        self.d_ace = np.zeros(n, dtype=bool)
        self.d_n = np.zeros(n, dtype=np.int64)
        self.up = np.zeros(n, dtype=np.int64)
        self.hole = np.full(n, -1, dtype=np.int64)
        self.hole_revealed = np.zeros(n, dtype=bool)
        self.peek_possible = np.zeros(n, dtype=bool)
        self.rounds = np.zeros(n, dtype=np.int64)
        self._new_shoes(self._arange)

    # ================================================================= shoe
    def _new_shoes(self, idx: np.ndarray) -> None:
        """Fresh, shuffled shoes (or infinite-deck buffers) for tables ``idx``."""
        if self.infinite:
            self.shoe[idx] = self.rng.integers(0, 52, size=(idx.size, self.shoe_size))
            self.pos[idx] = 0
            return
        deck = np.tile(np.arange(52, dtype=np.int64), self.decks)
        self.shoe[idx] = self.rng.permuted(np.broadcast_to(deck, (idx.size, deck.size)), axis=1)
        self.pos[idx] = 0
        self.round_start[idx] = 0
        self.dealt[idx] = 0
        self.counts[idx] = self._full_counts
        self.shuffles[idx] += 1

    def needs_shuffle(self, idx: np.ndarray) -> np.ndarray:
        """Per table in ``idx``: the cut card is out (between rounds only)."""
        if self.infinite:
            return np.zeros(idx.size, dtype=bool)
        dealt = self.dealt[idx]
        if self._cut is None:
            return dealt > 0
        return dealt >= self._cut

    def remaining(self) -> np.ndarray:
        """Undealt cards per table (-1 for an infinite deck)."""
        if self.infinite:
            return np.full(self.num_tables, -1, dtype=np.int64)
        return self.shoe_size - self.pos

    def _draw(self, idx: np.ndarray) -> np.ndarray:
        """Deal one card id to each table in ``idx`` (distinct tables)."""
        pos = self.pos[idx]
        if not self.infinite and (pos >= self.shoe_size).any():
            self._refill_mid_round(idx[pos >= self.shoe_size])
            pos = self.pos[idx]
        cards = self._shoe_flat[idx * self.shoe_size + pos]
        self.pos[idx] = pos + 1
        if not self.infinite:
            self.dealt[idx] += 1
            self.counts[idx, self._rank_of_id[cards]] -= 1
        return cards

    def _refill_mid_round(self, idx: np.ndarray) -> None:
        """A shoe ran dry mid-round: shuffle that table's discards back in (as a casino does)."""
        for t in idx.tolist():
            start = int(self.round_start[t])
            if start == 0:
                raise RuntimeError(
                    f"table {t}: the shoe and the discard tray are empty: every card is on "
                    f"the table"
                )
            row = self.shoe[t]
            on_table = row[start:].copy()
            discards = self.rng.permutation(row[:start])
            row[: on_table.size] = on_table
            row[on_table.size :] = discards
            self.round_start[t] = 0
            self.pos[t] = on_table.size
            self.counts[t] = np.bincount(self._rank_of_id[discards], minlength=13)
            self.mid_round_reshuffles[t] += 1

    def stack(self, t: int, cards: str | list[Card]) -> None:
        """Deal these cards next at table ``t`` (as :meth:`Shoe.stack`).

        In a finite shoe each card is moved from the undealt cards (or from the
        discards) to the top, so the shoe still holds every card once.
        """
        wanted = parse_cards(cards) if isinstance(cards, str) else list(cards)
        ids = [c.index for c in wanted]
        pos = int(self.pos[t])
        row = self.shoe[t]
        if self.infinite:
            if pos + len(ids) + self._max_round_cards > self.shoe_size:
                self.shoe[t] = self.rng.integers(0, 52, size=self.shoe_size)
                self.pos[t] = pos = 0
            row[pos : pos + len(ids)] = ids
            return
        if pos + len(ids) > self.shoe_size:
            raise ValueError(f"cannot stack {len(ids)} cards: table {t} has {self.shoe_size - pos} left")
        new = row.copy()
        for k, cid in enumerate(ids):
            j = pos + k
            where = np.flatnonzero(new[j:] == cid)
            if where.size:
                src = j + int(where[0])
            else:
                where = np.flatnonzero(new[: int(self.round_start[t])] == cid)
                if not where.size:
                    raise ValueError(
                        f"cannot stack {ALL_CARDS[cid]}: all {self.decks} cop"
                        f"{'y' if self.decks == 1 else 'ies'} of it are on the table or "
                        f"already stacked"
                    )
                src = int(where[0])
            new[j], new[src] = new[src], new[j]
        row[:] = new
        self.counts[t] = np.bincount(self._rank_of_id[row[pos:]], minlength=13)

    # ============================================================ the round
    def start_rounds(self, idx: np.ndarray, stacks: dict[int, str | list[Card]] | None = None) -> None:
        """Clear tables ``idx``, reshuffle where the cut card is out, and deal a round.

        ``stacks`` maps a table index to cards dealt first at that table.
        """
        idx = np.asarray(idx, dtype=np.int64)
        if idx.size == 0:
            return
        # previous round's cards go to the discard tray
        self.round_start[idx] = self.pos[idx]
        if self.infinite:
            low = self.pos[idx] > self.shoe_size - self._max_round_cards
            if low.any():
                self._new_shoes(idx[low])
            self.reshuffled[idx] = False
        else:
            shuffle = self.needs_shuffle(idx)
            self.reshuffled[idx] = shuffle
            if shuffle.any():
                self._new_shoes(idx[shuffle])
        if stacks:
            for t, cards in stacks.items():
                self.stack(int(t), cards)
        for arr in self._hand_fields:
            arr[:, idx] = 0
        self.outcome[:, idx] = -1
        self.nhands[idx] = 1
        self.cur[idx] = 0
        self.insurance[idx] = 0.0
        self.insurance_net[idx] = 0.0
        self.hole_revealed[idx] = False
        self.rounds[idx] += 1

        c1 = self._draw(idx)
        up = self._draw(idx)
        c2 = self._draw(idx)
        rk = self._rank_of_id
        v = self._value_of_id
        self.r0[0, idx] = rk[c1]
        self.r1[0, idx] = rk[c2]
        hard = v[c1] + v[c2]
        ace = (rk[c1] == 0) | (rk[c2] == 0)
        self.hard[0, idx] = hard
        self.ace[0, idx] = ace
        self.ncards[0, idx] = 2
        self.stake[0, idx] = self.bet
        self.up[idx] = up
        self.d_hard[idx] = v[up]
        self.d_ace[idx] = rk[up] == 0
        self.d_n[idx] = 1
        self.hole[idx] = -1
        if not self._no_hole:
            hole = self._draw(idx)
            self.hole[idx] = hole
            self.d_hard[idx] += v[hole]
            self.d_ace[idx] |= rk[hole] == 0
            self.d_n[idx] = 2

        rules = self.rules
        bj = ace & (hard == 11)
        if bj.any():
            if rules.natural_paid_at_deal:
                self._pay(np.zeros(int(bj.sum()), dtype=np.int64), idx[bj], _BJ)
            elif rules.natural_ends_hand:
                self.done[0, idx[bj]] = True
        up_value = v[up]
        peek_possible = self._peek & ((up_value == 1) | (up_value == 10))
        self.peek_possible[idx] = peek_possible
        self.phase[idx] = BatchPhase.DECIDE
        if self._peek:
            decide = peek_possible & ~self.settled[0, idx]
            early = rules.surrender is Surrender.EARLY
            ask = decide & ((rules.insurance & (rk[up] == 0)) | (early & ~bj))
            if ask.any():
                self.phase[idx[ask]] = BatchPhase.INSURE
                idx = idx[~ask]
            self._do_peek(idx)
            idx = idx[self.phase[idx] != BatchPhase.OVER]
        self.cur[idx] = -1
        self._advance(idx)

    def _do_peek(self, idx: np.ndarray) -> None:
        """The dealer checks the hole card at tables ``idx`` (only counts with an ace/ten up)."""
        if idx.size == 0:
            return
        ins = self.insurance[idx]
        dealer_bj = self.peek_possible[idx] & self._dealer_bj(idx)
        if (ins > 0).any():
            self.insurance_net[idx] = np.where(dealer_bj, 2.0 * ins, -ins)
        if dealer_bj.any():
            hit = idx[dealer_bj]
            self.hole_revealed[hit] = True
            self._settle_by_compare(hit)
            self.phase[hit] = BatchPhase.OVER
        rest = idx[~dealer_bj]
        if rest.size:
            done_bj = self.done[0, rest] & ~self.settled[0, rest] & self._is_bj(0, rest)
            if done_bj.any():
                self._pay(np.zeros(int(done_bj.sum()), dtype=np.int64), rest[done_bj], _BJ)

    def _dealer_bj(self, idx: np.ndarray) -> np.ndarray:
        return (self.d_n[idx] == 2) & self.d_ace[idx] & (self.d_hard[idx] == 11)

    def _is_bj(self, h: np.ndarray | int, idx: np.ndarray) -> np.ndarray:
        """Natural on hand ``h`` of tables ``idx`` (split hands only if blackjack_after_split)."""
        bj = (self.ncards[h, idx] == 2) & self.ace[h, idx] & (self.hard[h, idx] == 11)
        if not self.rules.blackjack_after_split:
            bj &= self.nhands[idx] == 1
        return bj

    # ---------------------------------------------------------- legality
    def legal_mask(self) -> np.ndarray:
        """``(N, 7)`` bool: the legal decisions at every table (``Action`` codes).

        A table in ``OVER`` has only ``STAND`` legal (its step just reports the result).
        """
        n = self.num_tables
        mask = np.zeros((n, NUM_CORE_ACTIONS), dtype=bool)
        phase = self.phase
        decide = phase == BatchPhase.DECIDE
        mask[:, _STAND] = phase != BatchPhase.INSURE
        t = self._arange
        h = np.where(decide, self.cur, 0)
        fi = (h, t)
        nh = self.nhands
        hard = self.hard[fi]
        ace = self.ace[fi]
        nc = self.ncards[fi]
        split_aces = (nh > 1) & (self.r0[fi] == 0)
        rules = self.rules
        no_hit = split_aces & (not rules.hit_split_aces)
        can_split = self._can_split(fi, nh, split_aces)
        two = decide & (nc == 2) & ~no_hit
        mask[:, _HIT] = decide & ~no_hit
        mask[:, _SPLIT] = decide & can_split & ((nc == 2) | no_hit)
        if rules.can_double:
            ok = two & ~self.doubled[fi]
            if not rules.double_after_split:
                ok &= nh == 1
            if rules.double is not DoubleRule.ANY_TWO:
                soft = ace & (hard <= 11)
                total = hard + 10 * soft
                low = 9 if rules.double is DoubleRule.NINE_TO_ELEVEN else 10
                ok &= ~soft & (total >= low) & (total <= 11)
            mask[:, _DOUBLE] = ok
        if rules.surrender is not Surrender.NONE:
            ok = two & (nh == 1)
            if rules.surrender is Surrender.EARLY:
                ok &= ~self.peek_possible
            mask[:, _SURRENDER] = ok
        ins = phase == BatchPhase.INSURE
        if ins.any():
            mask[ins, _DECLINE] = True
            up_ace = self._rank_of_id[self.up] == 0
            if rules.insurance:
                mask[:, _INSURE] = ins & up_ace
            if rules.surrender is Surrender.EARLY:
                mask[:, _SURRENDER] |= ins & ~self._is_bj(0, t)
        return mask

    def _can_split(self, fi: tuple, nh: np.ndarray, split_aces: np.ndarray) -> np.ndarray:
        rules = self.rules
        if not rules.can_split:
            return np.zeros(nh.shape, dtype=bool)
        ok = (nh < rules.max_split_hands) & (self.ncards[fi] == 2)
        if rules.split_by is SplitBy.VALUE:
            ok &= self._values[self.r0[fi]] == self._values[self.r1[fi]]
        else:
            ok &= self.r0[fi] == self.r1[fi]
        if not rules.resplit_aces:
            ok &= ~split_aces
        if rules.split_bet is SplitBet.HALVE:
            ok &= self.stake[fi] >= 2
        return ok

    # ================================================================ step
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply one decision per table (``Action`` codes, already legal).

        Returns ``(round_over, reward)``: which tables' rounds ended on this
        step and their net result in units of the bet (0 where still running).
        Tables in ``OVER`` just report their result. Legality is not checked
        here: map actions with :meth:`legal_mask` first.
        """
        actions = np.asarray(actions, dtype=np.int64)
        phase = self.phase
        ins = np.flatnonzero(phase == BatchPhase.INSURE)
        decide = np.flatnonzero(phase == BatchPhase.DECIDE)
        if ins.size:
            self._act_insurance(ins, actions[ins])
        if decide.size:
            self._act_play(decide, actions[decide])
        round_over = phase == BatchPhase.OVER
        reward = np.zeros(self.num_tables, dtype=np.float64)
        ro = np.flatnonzero(round_over)
        if ro.size:
            reward[ro] = self.round_net(ro)
        return round_over, reward

    def round_net(self, idx: np.ndarray) -> np.ndarray:
        """Net result of the round so far at tables ``idx``, in units of the bet."""
        return (self.net[:, idx].sum(axis=0) + self.insurance_net[idx]) / self.bet

    def _act_insurance(self, idx: np.ndarray, actions: np.ndarray) -> None:
        insure = actions == _INSURE
        if insure.any():
            t = idx[insure]
            bj = self._is_bj(0, t)
            if bj.any():
                self._pay(np.zeros(int(bj.sum()), dtype=np.int64), t[bj], _EVEN)
            nb = t[~bj]
            self.insurance[nb] = self.stake[0, nb] / 2.0
        surr = actions == _SURRENDER
        if surr.any():
            t = idx[surr]
            self.surrendered[0, t] = True
            self._pay(np.zeros(t.size, dtype=np.int64), t, _SURR)
        self._do_peek(idx)
        idx = idx[self.phase[idx] != BatchPhase.OVER]
        self.phase[idx] = BatchPhase.DECIDE
        self.cur[idx] = -1
        self._advance(idx)

    def _act_play(self, idx: np.ndarray, actions: np.ndarray) -> None:
        h = self.cur[idx]
        hitting = (actions == _HIT) | (actions == _DOUBLE)
        if hitting.any():
            dbl = actions == _DOUBLE
            if dbl.any():
                td, hd = idx[dbl], h[dbl]
                self.stake[hd, td] *= 2
                self.doubled[hd, td] = True
                self.done[hd, td] = True
            t, hh = idx[hitting], h[hitting]
            self._add_card(hh, t, self._draw(t))
            hard = self.hard[hh, t]
            bust = hard > 21
            if bust.any():
                self.done[hh[bust], t[bust]] = True
                self._pay(hh[bust], t[bust], _BUST)
            if self._auto21:
                twenty_one = ~bust & (hard + 10 * (self.ace[hh, t] & (hard <= 11)) == 21)
                self.done[hh[twenty_one], t[twenty_one]] = True
        stand = actions == _STAND
        if stand.any():
            self.done[h[stand], idx[stand]] = True
        surr = actions == _SURRENDER
        if surr.any():
            t, hh = idx[surr], h[surr]
            self.surrendered[hh, t] = True
            self.done[hh, t] = True
            if self.rules.surrender is Surrender.EARLY or self._peek:
                self._pay(hh, t, _SURR)
        split = actions == _SPLIT
        if split.any():
            self._split(idx[split], h[split])
        finished = self.done[h, idx]
        if finished.any():
            self._advance(idx[finished])

    def _add_card(self, h: np.ndarray, t: np.ndarray, cards: np.ndarray) -> None:
        r = self._rank_of_id[cards]
        self.hard[h, t] += self._values[r]
        self.ace[h, t] |= r == 0
        n = self.ncards[h, t]
        second = n == 1
        if second.any():
            self.r1[h[second], t[second]] = r[second]
        self.ncards[h, t] = n + 1

    def _split(self, t: np.ndarray, h: np.ndarray) -> None:
        """Split hand ``h`` of tables ``t``: the new hand goes right after it."""
        # shift hands after h one place right (they wait for their second card)
        for k in range(self.max_hands - 1, 0, -1):
            move = k > h + 1
            move &= k <= self.nhands[t]
            if move.any():
                tt = t[move]
                for arr in self._hand_fields:
                    arr[k, tt] = arr[k - 1, tt]
        nh = h + 1
        r1 = self.r1[h, t]
        v1 = self._values[r1]
        for arr in self._hand_fields:
            arr[nh, t] = 0
        self.outcome[nh, t] = -1
        self.hard[nh, t] = v1
        self.ace[nh, t] = r1 == 0
        self.ncards[nh, t] = 1
        self.r0[nh, t] = r1
        if self.rules.split_bet is SplitBet.HALVE:
            half = self.stake[h, t] // 2
            self.stake[h, t] = half
            self.stake[nh, t] = half
        else:
            self.stake[nh, t] = self.stake[h, t]
        self.hard[h, t] -= v1
        self.ace[h, t] = self.r0[h, t] == 0
        self.ncards[h, t] = 1
        self.nhands[t] += 1
        self._add_card(h, t, self._draw(t))
        self._check_two_card(h, t)

    def _check_two_card(self, h: np.ndarray, t: np.ndarray) -> None:
        """A split hand just got its second card: finish it if it has no decision."""
        rules = self.rules
        nh = self.nhands[t]
        split_aces = (nh > 1) & (self.r0[h, t] == 0)
        hard = self.hard[h, t]
        total21 = hard + 10 * (self.ace[h, t] & (hard <= 11)) == 21
        bj = self._is_bj(h, t)
        if rules.hit_split_aces:
            aces_done = np.zeros(t.size, dtype=bool)
            aces_branch = aces_done
        else:
            aces_branch = split_aces
            aces_done = split_aces & ~self._can_split((h, t), nh, split_aces)
        other = ~aces_branch & (
            (bj & rules.natural_ends_hand) | (total21 & self._auto21)
        )
        finish = aces_done | other
        if finish.any():
            self.done[h[finish], t[finish]] = True

    def _advance(self, idx: np.ndarray) -> None:
        """Move tables ``idx`` on to their next hand needing a decision, or to the dealer."""
        while idx.size:
            cur = self.cur[idx] + 1
            self.cur[idx] = cur
            past = cur >= self.nhands[idx]
            if past.any():
                self._dealer_turn(idx[past])
                idx, cur = idx[~past], cur[~past]
                if not idx.size:
                    return
            live = ~self.done[cur, idx]
            one = live & (self.ncards[cur, idx] == 1)
            if one.any():
                t, h = idx[one], cur[one]
                self._add_card(h, t, self._draw(t))
                self._check_two_card(h, t)
            if self._auto21:
                two = live & ~one
                hard = self.hard[cur, idx]
                hit21 = two & (hard + 10 * (self.ace[cur, idx] & (hard <= 11)) == 21)
                if hit21.any():
                    self.done[cur[hit21], idx[hit21]] = True
            idx = idx[self.done[cur, idx]]

    # ============================================================== dealer
    def _dealer_turn(self, idx: np.ndarray) -> None:
        h_range = np.arange(self.max_hands)[:, None]
        exists = h_range < self.nhands[idx][None, :]
        unsettled = exists & ~self.settled[:, idx]
        any_open = unsettled.any(axis=0)
        self.phase[idx] = BatchPhase.OVER
        self.cur[idx] = self.nhands[idx] - 1
        rules = self.rules
        quiet = idx[~any_open]
        if quiet.size:
            self.hole_revealed[quiet] = not self._no_hole
        idx = idx[any_open]
        if not idx.size:
            return
        unsettled = unsettled[:, any_open]
        if self._no_hole:
            card = self._draw(idx)
            self._dealer_add(idx, card)
            self.hole[idx] = card
        self.hole_revealed[idx] = True
        plays = (unsettled & ~self.surrendered[:, idx]).any(axis=0)
        drawing = idx[plays]
        h17 = self._h17
        while drawing.size:
            hard = self.d_hard[drawing]
            soft = self.d_ace[drawing] & (hard <= 11)
            total = hard + 10 * soft
            need = (total < 17) | ((total == 17) & soft) if h17 else total < 17
            drawing = drawing[need]
            if drawing.size:
                self._dealer_add(drawing, self._draw(drawing))
        if rules.settlement is Settlement.HIGHEST_HAND:
            self._settle_highest(idx)
        else:
            self._settle_by_compare(idx)

    def _dealer_add(self, idx: np.ndarray, cards: np.ndarray) -> None:
        r = self._rank_of_id[cards]
        self.d_hard[idx] += self._values[r]
        self.d_ace[idx] |= r == 0
        self.d_n[idx] += 1

    # ========================================================== settlement
    def _hand_grid(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Flat ``(h, t)`` of every unsettled existing hand at tables ``idx``."""
        h_range = np.arange(self.max_hands)[:, None]
        open_ = (h_range < self.nhands[idx][None, :]) & ~self.settled[:, idx]
        hh, k = np.nonzero(open_)
        return hh, idx[k]

    def _settle_by_compare(self, idx: np.ndarray) -> None:
        h, t = self._hand_grid(idx)
        if h.size:
            self._pay_outcomes(h, t, self._compare(h, t))

    def _compare(self, h: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Outcome codes of standing hands against the dealer's final hand (as Table._compare)."""
        rules = self.rules
        hard = self.hard[h, t]
        total = hard + 10 * (self.ace[h, t] & (hard <= 11))
        d_hard = self.d_hard[t]
        d_total = d_hard + 10 * (self.d_ace[t] & (d_hard <= 11))
        d_bust = d_hard > 21
        pbj = self._is_bj(h, t)
        dbj = self._dealer_bj(t)
        surr = self.surrendered[h, t]
        ties = rules.ties
        conds = [
            surr & dbj,
            surr,
            hard > 21,
            pbj & dbj,
            pbj & (rules.natural_beats_21 | (d_total != 21) | d_bust),
            dbj & rules.dealer_natural_beats_21,
            d_bust,
            total > d_total,
            total < d_total,
        ]
        choices = [
            _LOSS,
            _SURR,
            _BUST,
            _LOSS if ties is TieRule.DEALER_WINS else _PUSH,
            _BJ,
            _LOSS,
            _WIN,
            np.where(pbj, _BJ, _WIN),
            _LOSS,
        ]
        return np.select(conds, choices, _PUSH if ties is TieRule.PUSH else _LOSS)

    def _settle_highest(self, idx: np.ndarray) -> None:
        """``Settlement.HIGHEST_HAND`` for one seat's hands: only the best can win."""
        h, t = self._hand_grid(idx)
        if not h.size:
            return
        surr = self.surrendered[h, t]
        if surr.any():
            self._pay_outcomes(h[surr], t[surr], self._compare(h[surr], t[surr]))
            h, t = h[~surr], t[~surr]
        hard = self.hard[h, t]
        live = hard <= 21
        h, t, hard = h[live], t[live], hard[live]
        if not h.size:
            return
        total = hard + 10 * (self.ace[h, t] & (hard <= 11))
        top = np.full(self.num_tables, -1, dtype=np.int64)
        np.maximum.at(top, t, total)
        d_hard = self.d_hard[t]
        d_total = d_hard + 10 * (self.d_ace[t] & (d_hard <= 11))
        best_total = top[t]
        push_ok = self.rules.ties is TieRule.PUSH
        best = np.where(
            best_total > d_total, _WIN, np.where((best_total == d_total) & push_ok, _PUSH, _LOSS)
        )
        out = np.where(total == best_total, best, _LOSS)
        out = np.where(d_hard > 21, _WIN, out)
        self._pay_outcomes(h, t, out)

    def _pay(self, h: np.ndarray, t: np.ndarray, code: int) -> None:
        self._pay_outcomes(h, t, np.full(t.size, code, dtype=np.int64))

    def _pay_outcomes(self, h: np.ndarray, t: np.ndarray, codes: np.ndarray) -> None:
        """Settle hands: the one place a hand's result is written."""
        self.outcome[h, t] = codes
        self.net[h, t] = self.stake[h, t] * self._factor[codes]
        self.settled[h, t] = True
        self.done[h, t] = True

    # ============================================================ queries
    def current_totals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(total, soft, ncards)`` of each table's current hand (last hand once over)."""
        h = np.minimum(self.cur, self.nhands - 1)
        h = np.maximum(h, 0)
        fi = (h, self._arange)
        hard = self.hard[fi]
        soft = self.ace[fi] & (hard <= 11)
        return hard + 10 * soft, soft, self.ncards[fi]

    def dealer_up_value(self) -> np.ndarray:
        """Point value of each dealer upcard (ace = 1)."""
        return self._value_of_id[self.up]

    def true_count(self) -> np.ndarray:
        """Hi-Lo running count of the cards dealt from each shoe / decks remaining (0 if infinite)."""
        if self.infinite:
            return np.zeros(self.num_tables, dtype=np.float64)
        full = self._full_counts
        gone = full[None, :] - self.counts
        hi_lo = np.array([-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1])
        running = gone @ hi_lo
        decks_left = np.maximum(self.counts.sum(axis=1), 1) / 52.0
        return running / decks_left
