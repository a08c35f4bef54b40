"""Exact analysis for an infinite deck: optimal play and exact policy evaluation.

For an infinite deck every card is an independent draw (each rank 1/13), so a
hand's future depends only on its total, softness and the options still open
(two-card options, split state), and the round's expected return is a finite
recursion. Everything follows the engine (``blackjack_env/engine/table.py``):

* Peek (``hole_card='peek'``) with an ace or ten up: a dealer blackjack ends the
  round at once (naturals push, or lose under ``ties='dealer-wins'``; every
  other hand loses only its original bet). Play is then conditioned on no
  dealer blackjack. Early surrender is the pre-peek question (half the bet,
  whatever the dealer holds); in play after that peek it is not offered.
  With a 2..9 up, early surrender is an ordinary play action.
* No peek (``no-peek``/``none``): the dealer's blackjack is settled at the end,
  so it takes doubled and split bets in full; late surrender then loses the
  whole bet to a dealer blackjack (``Table._compare``); early surrender pays
  half at once.
* Naturals: ``natural_paid_at_deal`` pays at once; otherwise a natural is
  judged against the dealer's hand (paid at the peek when ``natural_beats_21``,
  else it waits: a dealer's three-card 21 ties it). With
  ``natural_ends_hand=False`` the natural is a decision (stand, hit, ...), and
  ``auto_stand_21`` stands it automatically.
* A peek happens with an ace (by rank) or a ten-value card up.
* Splits: hands are played left to right, each split hand gets its second card
  when play reaches it; resplits up to ``max_split_hands`` are computed exactly
  (a recursion over (hands so far, hands still waiting)); split aces take one
  card each unless ``hit_split_aces``; ``resplit_aces``; ``double_after_split``;
  ``blackjack_after_split``; ``split_bet='halve'`` gives each hand half the bet
  (an even bet is assumed, so no odd chip goes back).
* Insurance and even money are never taken.

The optimal return is the best over policies that see :class:`DecisionState`
(the information a player has at the table); in the rare case the best resplit
choice would depend on how many hands are still waiting (not in the state), the
split decisions per number of hands are searched exhaustively.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from blackjack_env.analysis.chart import card_label
from blackjack_env.analysis.dealer import dealer_vector
from blackjack_env.analysis.model import (
    BJ,
    CardModel,
    check_supported,
    expected,
    natural_stands,
    settle_values,
    split_hand_settled,
)
from blackjack_env.analysis.state import DecisionState
from blackjack_env.engine.play import (
    BUST_CATEGORY,
    NATURAL_CATEGORY,
    Action,
    NaturalEffect,
    Outcome,
    auto_stands,
    category,
    dealt_natural_effect,
    is_natural,
    natural_counts,
    payout,
    play_actions,
    pre_peek_actions,
    score,
    split_allowed,
    split_stake_share,
    surrender_outcome,
    surrender_settles_at_once,
)
from blackjack_env.engine.rules import Rules, SplitBy

__all__ = ["RoundModel", "upcard_label"]

# A hand key: (hard, has_ace, cards, pair_class | None, natural, from_split, split_aces, hands)
Key = tuple[int, bool, int, "int | None", bool, bool, bool, int]

_A = Action


#: Chart column label of an upcard class (:func:`~blackjack_env.analysis.chart.card_label`:
#: ``A``, ``2``..``9``, ``T``, and ``1`` for a non-ace card worth 1 under custom values).
upcard_label = card_label


class RoundModel:
    """The round against one upcard class, infinite deck.

    ``policy=None`` plays optimally; otherwise ``policy(state) -> Action`` (already
    checked for legality by :func:`~blackjack_env.analysis.state.as_policy`).
    """

    def __init__(
        self,
        rules: Rules,
        up_rank: int,
        policy: Callable[[DecisionState], Action] | None = None,
        split_plan: dict[tuple[int, int], bool] | None = None,
    ) -> None:
        check_supported(rules)
        self.rules = rules
        self.model = CardModel(rules)
        values = self.model.values
        self.values = values
        self.up_rank = up_rank
        self.up_value = values[up_rank]
        self.up_ace = up_rank == 1
        self.policy = policy
        self.optimal = policy is None
        self.split_plan = split_plan  # forced (pair_class, hands) -> split? (optimal mode)
        self.peek_possible = self.model.peek_possible(self.up_value, self.up_ace)
        d_all = dealer_vector(rules, up_rank, None, condition_on_no_blackjack=False)
        self.p_bj = float(d_all[BJ])
        self.d_play = dealer_vector(
            rules, up_rank, None, condition_on_no_blackjack=self.peek_possible
        )
        self.settle = settle_values(rules)  # (player category, dealer slot) -> net
        self.payout = float(payout(rules, Outcome.BLACKJACK))
        self.bet_factor = float(split_stake_share(rules))
        # hit draws by (value, ace) class; split draws by rank
        draws: dict[tuple[int, bool], float] = {}
        for rank in range(1, 14):
            k = (values[rank], rank == 1)
            draws[k] = draws.get(k, 0.0) + 1.0 / 13.0
        self.draws = [(v, a, p) for (v, a), p in draws.items()]
        self._stand = self._stand_table()
        self._bust = float(self._stand[BUST_CATEGORY])  # a bust loses whatever the dealer holds
        self._stand_nat = self._natural_stand()
        self._surrender = self._surrender_ev()
        self._memo: dict[Key, float] = {}
        self._decisions: dict[Key, Action] = {}
        self._f_memo: dict[tuple[int, int, int], float] = {}
        self.split_choices: dict[tuple[int, int, int], bool] = {}

    # ------------------------------------------------------------ settlement
    def _stand_table(self) -> np.ndarray:
        """EV of standing on a non-natural total t (index t), after the peek if any."""
        return np.array(
            [expected(self.settle[category(t, False)], self.d_play) for t in range(32)]
        )

    def _natural_stand(self) -> float:
        """EV of a natural compared with the dealer's final hand (``Table._compare``)."""
        return expected(self.settle[NATURAL_CATEGORY], self.d_play)

    def _surrender_ev(self) -> float:
        rules = self.rules
        half = float(payout(rules, Outcome.SURRENDER))
        if surrender_settles_at_once(rules):
            return half
        # judged with the dealer's hand (late surrender, no peek)
        return self.p_bj * float(payout(rules, surrender_outcome(True))) + (
            1.0 - self.p_bj
        ) * float(payout(rules, surrender_outcome(False)))

    def stand(self, key: Key) -> float:
        if key[4]:
            return self._stand_nat
        return float(self._stand[score(key[0], key[1])[0]])

    # ------------------------------------------------------------ legality
    def pair_card(self, c: int) -> tuple[int, bool]:
        """(value, is_ace) of the cards of pair class ``c``."""
        if self.rules.split_by is SplitBy.RANK:
            return self.values[c], c == 1
        return c, c == 1

    def can_split(self, key: Key) -> bool:
        return split_allowed(self.rules, pair=key[3] is not None, hands=key[7], split_aces=key[6])

    def legal(self, key: Key) -> tuple[Action, ...]:
        """The engine's legal actions (``play_actions``) for this state, bankroll unlimited."""
        hard, ace, n, _pair, _nat, fs, sa, h = key
        total, soft = score(hard, ace)
        return play_actions(
            self.rules,
            two_cards=n == 2,
            total=total,
            soft=soft,
            can_split=self.can_split(key),
            split_aces=sa,
            from_split=fs,
            hands=h,
            up_value=self.up_value,
            up_ace=self.up_ace,
        )

    def state(self, key: Key, legal: tuple[Action, ...] | None = None) -> DecisionState:
        hard, ace, n, pair, nat, fs, sa, h = key
        total, soft = score(hard, ace)
        pair_value = None if pair is None else self.pair_card(pair)[0]
        return DecisionState(
            total=total,
            soft=soft,
            cards=n,
            pair=pair_value,
            dealer=self.up_value,
            dealer_ace=self.up_ace,
            natural=nat,
            split=fs,
            split_aces=sa,
            hands=h,
            pre_peek=False,
            legal=self.legal(key) if legal is None else legal,
        )

    # ------------------------------------------------------------ values
    def canon(self, key: Key) -> Key:
        if self.optimal and key[2] >= 3:
            return (key[0], key[1], 3, None, False, False, False, 1)
        return key

    def decide(self, key: Key) -> Action:
        """The policy's action at a decision (policy mode)."""
        got = self._decisions.get(key)
        if got is None:
            assert self.policy is not None
            got = self.policy(self.state(key))
            self._decisions[key] = got
        return got

    def value(self, key: Key) -> float:
        """Value of a hand awaiting a decision (per unit of the hand's bet)."""
        key = self.canon(key)
        got = self._memo.get(key)
        if got is not None:
            return got
        if self.optimal:
            legal = self.legal(key)
            best = -np.inf
            for a in legal:
                if a is _A.SPLIT and key[7] > 1:
                    continue  # post-split resplits are chosen in split_value()
                best = max(best, self.action_ev(key, a))
            got = float(best)
        else:
            got = self.action_ev(key, self.decide(key))
        self._memo[key] = got
        return got

    def action_ev(self, key: Key, action: Action) -> float:
        """EV (per unit of the hand's bet) of one action at a decision."""
        hard, ace, n, pair, _nat, fs, sa, h = key
        if action is _A.STAND:
            return self.stand(key)
        if action is _A.SURRENDER:
            return self._surrender
        if action is _A.HIT:
            rules = self.rules
            ev = 0.0
            for v, a, p in self.draws:
                nh, na = hard + v, ace or a
                if nh > 21:
                    ev += p * self._bust
                    continue
                nxt = (nh, na, n + 1, None, False, fs, sa, h)
                if auto_stands(rules, score(nh, na)[0]):
                    ev += p * float(self._stand[21])
                else:
                    ev += p * self.value(nxt)
            return ev
        if action is _A.DOUBLE:
            ev = 0.0
            for v, a, p in self.draws:
                if hard + v > 21:
                    ev += p * self._bust
                else:
                    ev += p * float(self._stand[score(hard + v, ace or a)[0]])
            return 2.0 * ev
        if action is _A.SPLIT:
            if h != 1 or pair is None:
                raise ValueError("action_ev(SPLIT) is defined for the first hand only")
            return self.bet_factor * self.split_value(pair, 2, 2)
        raise ValueError(f"{action!r} is not a playing action")

    # ------------------------------------------------------------ splits
    def second_card_keys(self, c: int, h: int) -> list[tuple[float, Key]]:
        """Keys of a split hand of pair class ``c`` after its second card, with probabilities."""
        cv, ca = self.pair_card(c)
        sa = ca
        bas = natural_counts(self.rules, from_split=True)
        out: dict[Key, float] = {}
        for rank in range(1, 14):
            v, a = self.values[rank], rank == 1
            hard, ace = cv + v, ca or a
            pair = c if self.model.pair_class(rank) == c else None
            nat = is_natural(2, hard, ace, bas)
            key = (hard, ace, 2, pair, nat, True, sa, h)
            out[key] = out.get(key, 0.0) + 1.0 / 13.0
        return [(p, k) for k, p in out.items()]

    def two_card_done(self, key: Key) -> bool:
        """``Table._check_two_card_hand``: the split hand needs no decision."""
        return split_hand_settled(
            self.rules,
            split_aces=key[6],
            pair=key[3] is not None,
            hands=key[7],
            natural=key[4],
            total=score(key[0], key[1])[0],
        )

    def split_value(self, c: int, h: int, k: int) -> float:
        """Expected sum of the results (per split hand's bet) of ``k`` hands of pair
        class ``c`` still waiting for their second card, ``h`` hands in all."""
        if k == 0:
            return 0.0
        mk = (c, h, k)
        got = self._f_memo.get(mk)
        if got is not None:
            return got
        rest = self.split_value(c, h, k - 1)
        ev = 0.0
        for p, key in self.second_card_keys(c, h):
            if self.two_card_done(key):
                ev += p * (self.stand(key) + rest)
            elif self.can_split(key):
                split = self.split_value(c, h + 1, k + 1)
                if self.optimal:
                    no_split = max(
                        self.action_ev(key, a) for a in self.legal(key) if a is not _A.SPLIT
                    ) + rest
                    planned = None if self.split_plan is None else self.split_plan.get((c, h))
                    choose = split > no_split if planned is None else planned
                    self.split_choices[mk] = choose
                    ev += p * (split if choose else no_split)
                else:
                    action = self.decide(key)
                    if action is _A.SPLIT:
                        ev += p * split
                    else:
                        ev += p * (self.action_ev(key, action) + rest)
            else:
                ev += p * (self.value(key) + rest)
        self._f_memo[mk] = ev
        return ev

    # ------------------------------------------------------------ the round
    def initial_key(self, r1: int, r2: int) -> Key:
        v = self.values
        hard, ace = v[r1] + v[r2], r1 == 1 or r2 == 1
        pc = self.model.pair_class
        pair = pc(r1) if pc(r1) == pc(r2) else None
        return (hard, ace, 2, pair, is_natural(2, hard, ace), False, False, 1)

    def pre_peek_surrender(self, key: Key) -> bool:
        """An early surrender is offered before the peek (insurance is never taken)."""
        return self.peek_possible and Action.SURRENDER in pre_peek_actions(
            self.rules, up_value=self.up_value, up_ace=self.up_ace, natural=key[4],
            insurance=False,
        )

    def hand_return(self, key: Key) -> float:
        """Expected return of a round dealt the initial hand ``key`` (this upcard)."""
        rules = self.rules
        pbj = self.p_bj if self.peek_possible else 0.0
        if key[4]:  # natural
            if dealt_natural_effect(rules) is NaturalEffect.PAY:
                return self.payout
            # stood: paid at the peek when it beats any dealer 21, else compared with the
            # dealer's final hand (same value either way); else a decision (Gymnasium: the
            # natural may be hit)
            after = self._stand_nat if natural_stands(rules) else self.value(key)
            bjbj = self.settle[NATURAL_CATEGORY, BJ]  # a natural against the dealer's
            return pbj * bjbj + (1.0 - pbj) * after
        # a dealer natural found at the peek takes the original bet
        cont = pbj * self.settle[category(score(key[0], key[1])[0], False), BJ] + (
            1.0 - pbj
        ) * self.value(key)
        if self.pre_peek_surrender(key):
            if self.optimal:
                return max(-0.5, cont)
            state = self.state(key, (_A.SURRENDER, _A.DECLINE))
            state = DecisionState(**{**_fields(state), "pre_peek": True})
            assert self.policy is not None
            if self.policy(state) is _A.SURRENDER:
                return -0.5
        return cont

    def decision_states(self) -> list[DecisionState]:
        """Every :class:`DecisionState` that :meth:`round_return` may ask a policy about
        against this upcard, whatever the policy answers (policy mode; in the order first
        met). The walk follows the recursion above branch for branch: the two-card hands
        of :meth:`hand_return` (a natural only when it is a decision; the pre-peek
        question where early surrender is offered), every legal action's successors at a
        decision (a hit's cards that neither bust nor stand by themselves, a split's
        second cards that still need a decision, resplits), and nothing after a stand, a
        double or a surrender. A superset of the states one policy reaches: a policy that
        never splits is asked about no split hand.
        """
        rules = self.rules
        found: dict[DecisionState, None] = {}
        seen: set[Key] = set()
        stack: list[Key] = []

        def visit(key: Key) -> None:
            if key not in seen:
                seen.add(key)
                stack.append(key)

        def split_hands(c: int, h: int) -> None:  # split_value(c, h, k): the second cards
            for _p, key in self.second_card_keys(c, h):
                if not self.two_card_done(key):
                    visit(key)

        for r1 in range(1, 14):
            for r2 in range(1, 14):
                key = self.initial_key(r1, r2)
                if key[4]:
                    if dealt_natural_effect(rules) is NaturalEffect.PAY or natural_stands(rules):
                        continue
                    visit(key)
                    continue
                if self.pre_peek_surrender(key):
                    state = self.state(key, (_A.SURRENDER, _A.DECLINE))
                    found.setdefault(DecisionState(**{**_fields(state), "pre_peek": True}))
                visit(key)
        hits: dict[tuple[int, bool], list[tuple[int, bool]]] = {}  # a hit's going hands
        while stack:
            key = stack.pop()
            hard, ace, n, pair, _nat, fs, sa, h = key
            legal = self.legal(key)
            found.setdefault(self.state(key, legal))
            if _A.HIT in legal:
                going = hits.get((hard, ace))
                if going is None:
                    going = hits[(hard, ace)] = [
                        (hard + v, ace or a) for v, a, _p in self.draws
                        if hard + v <= 21 and not auto_stands(rules, score(hard + v, ace or a)[0])
                    ]
                for nh, na in going:
                    nxt = (nh, na, n + 1, None, False, fs, sa, h)
                    if nxt not in seen:  # (visit(), inlined: the walk's hottest line)
                        seen.add(nxt)
                        stack.append(nxt)
            if _A.SPLIT in legal and pair is not None:
                split_hands(pair, h + 1)
        return list(found)

    def round_return(self) -> float:
        """Expected return of a round with this upcard (average over the player's two cards)."""
        total = 0.0
        for r1 in range(1, 14):
            for r2 in range(1, 14):
                total += self.hand_return(self.initial_key(r1, r2))
        return total / 169.0


def _fields(state: DecisionState) -> dict:
    return {name: getattr(state, name) for name in state.__slots__}


def optimal_round(rules: Rules, up_rank: int) -> RoundModel:
    """The optimal :class:`RoundModel` for an upcard, with resplit choices that a
    DecisionState policy can make (one choice per pair class and number of hands)."""
    model = RoundModel(rules, up_rank)
    model.round_return()
    by_ch: dict[tuple[int, int], set[bool]] = {}
    for (c, h, _k), choose in model.split_choices.items():
        by_ch.setdefault((c, h), set()).add(choose)
    conflicts = sorted(ch for ch, s in by_ch.items() if len(s) > 1)
    if not conflicts:
        return model
    # The best resplit choice depends on hands still waiting: search per (class, hands).
    fixed = {ch: next(iter(s)) for ch, s in by_ch.items() if len(s) == 1}
    best_model, best = model, -np.inf
    for combo in itertools.product((False, True), repeat=len(conflicts)):
        plan = dict(fixed)
        plan.update(zip(conflicts, combo, strict=True))
        trial = RoundModel(rules, up_rank, split_plan=plan)
        value = trial.round_return()
        if value > best:
            best, best_model = value, trial
    return best_model
