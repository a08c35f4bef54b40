"""Helpers for the composition tests: shoes holding exactly a given pool of cards, and
rounds played through the engine from such a shoe with a fixed first decision."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from blackjack_env.analysis import CompositionStrategy
from blackjack_env.analysis.composition import _classes, _query_context, _same_count
from blackjack_env.engine import Action, Card, HoleCard, Rules, Shoe, Table, parse_cards
from blackjack_env.engine.cards import ALL_CARDS, Suit
from blackjack_env.engine.hand import score
from blackjack_env.engine.play import is_natural, natural_counts
from blackjack_env.engine.table import Phase, split_allowed

Z99 = 2.5758293035489004  # two-sided 99% normal quantile


def pool_cards(counts: Sequence[int]) -> list[Card]:
    """Cards with these counts by rank (ace to king), suits taken in turn."""
    suits = list(Suit)
    out = []
    for rank0, n in enumerate(counts):
        for i in range(n):
            out.append(ALL_CARDS[suits.index(suits[i % 4]) * 13 + rank0])
    return out


def shoe_holding(cards: Sequence[Card], rng: np.random.Generator) -> Shoe:
    """A shoe whose undealt cards are exactly ``cards``, in a random order (the other
    cards of its decks are dealt away before it is returned)."""
    copies: dict[Card, int] = {}
    for card in cards:
        copies[card] = copies.get(card, 0) + 1
    decks = max(copies.values())
    shoe = Shoe(decks, rng, None)
    away = []
    for card in ALL_CARDS:
        away += [card] * (decks - copies.get(card, 0))
    shoe.stack(away)
    for _ in away:
        shoe.draw()
    shoe.shuffle()
    return shoe


def play_rounds(
    rules: Rules,
    pool: Sequence[int],
    hand: str,
    upcard: str,
    first: Action,
    rounds: int,
    seed: int,
    policy: Callable[[Table], Action] | None = None,
) -> tuple[float, float, int]:
    """Play rounds where the player holds ``hand`` (its first two cards dealt, the rest
    hit), the dealer shows ``upcard``, and every other card comes from ``pool`` (13 counts
    by rank, unseen cards) in a random order. The first decision is ``first``; later
    ones ``policy(table)`` (default: the ``composition`` strategy). Rounds ended by a
    dealer blackjack at the peek are not counted (the values are conditioned on none).

    Returns (mean net per unit bet, its standard error, rounds counted).
    """
    rng = np.random.default_rng(seed)
    cards = parse_cards(hand)
    up = parse_cards(upcard)[0]
    pool_list = pool_cards(pool)
    policy = policy if policy is not None else CompositionStrategy(rules)
    hole = rules.hole_card is not HoleCard.NONE
    # one shoe holding exactly the hand, the upcard and the pool, reshuffled every round
    table = Table(rules, shoe=shoe_holding([*cards, up, *pool_list], rng))
    nets = []
    for _ in range(rounds):
        top = [cards[0], up, cards[1]]
        if hole:  # a random unseen card
            top.append(pool_list[int(rng.integers(len(pool_list)))])
        table.shoe.stack(top + cards[2:])
        # Shoe.stack takes the first copy of a card it finds from the bottom of the shoe,
        # so with several copies the cards left on top are not in a uniform order:
        # shuffle the undealt cards again (the stacked ones stay on top)
        table.shoe.shuffle()
        table.bet(0, 2)
        table.deal()
        while table.phase is Phase.INSURANCE:
            table.act(Action.DECLINE)
        if table.phase is not Phase.SETTLED:  # else: a dealer blackjack at the peek
            for _card in cards[2:]:
                table.act(Action.HIT)
            table.act(first)
            while table.to_act is not None:
                table.act(policy(table))
            nets.append(float(table.seats[0].net) / 2.0)
        table.new_round()
    arr = np.array(nets)
    return float(arr.mean()), float(arr.std(ddof=1) / np.sqrt(len(arr))), len(arr)



def split_plan_action(ctx: Any, y: Any, c: int, h: int, k: int, pair: bool, same: int) -> Action:
    """The action the split policy takes at a split hand ``y`` of pair class ``c``
    (``h`` hands in all, ``k`` hands waiting or deciding, this one included), the
    split having begun from one hand of this context's pool (so ``h`` pair cards
    are out: the pair and one per resplit): the strategy its values assume. For
    simulations that measure its error (the analysis's own composition context, ``ctx``)."""
    sa = ctx.aces[c]
    hard, ace = ctx.hard_ace(y)
    natural = is_natural(sum(y), hard, ace, natural_counts(ctx.rules, from_split=True))
    extra = (c, h - 1)
    if sum(y) > 2:
        code = ctx.code(ctx.out(y, extra))
        stand = ctx.stand(code, score(hard, ace)[0], False)
        return Action.HIT if ctx.draw(code, hard, ace, False) > stand else Action.STAND
    legal = [a for a in ctx.legal(y, True, sa, h, pair) if a is not Action.SPLIT]
    evs = {a: ctx.action_ev(y, extra, True, sa, h, pair, natural, a) for a in legal}
    best = max(evs, key=lambda a: evs[a])
    if split_allowed(ctx.rules, pair=pair, hands=h, split_aces=sa):
        no_split = evs[best] + ctx.split_value(c, h, k - 1, same, h)
        if ctx.split_value(c, h + 1, k + 1, same, h + 1) > no_split:
            return Action.SPLIT
    return best


class split_plan_policy:
    """Plays every split hand as the split approximation assumes (off the pool of the
    split, with the other split hands' cards put back): the same strategy its value is
    computed for, so the simulated mean measures the approximation's error."""

    def __init__(self, rules: Rules, pool: Sequence[int], hand: str, upcard: str) -> None:
        cards = parse_cards(hand)
        up = parse_cards(upcard)[0]
        self.ctx, y = _query_context(rules, pool, cards, int(up.rank))
        self.cl = _classes(rules)
        self.c = next(i for i, n in enumerate(y) if n)
        self.same = _same_count(rules, pool, cards)
        self.rules = rules
        self.ctx.cover(y, [self.c])

    def __call__(self, table: Table) -> Action:
        seat_i, _ = table.to_act  # type: ignore[misc]
        hands = table.seats[seat_i].hands
        hand = table.current_hand
        assert hand is not None
        counts = [0] * 13
        for card in hand.cards:
            counts[card.rank - 1] += 1
        y = self.cl.comp(counts)
        waiting = sum(1 for other in hands if len(other.cards) == 1)
        pair = hand.is_pair(self.rules.split_by.value == "value")
        action = split_plan_action(self.ctx, y, self.c, len(hands), waiting + 1, pair, self.same)
        legal = table.legal_actions()
        assert action in legal, (action, legal, hand)
        return action


def assert_in_ci(mean: float, se: float, exact: float, what: str, slack: float = 0.0) -> None:
    """The exact value lies within the 99% confidence interval of the simulated mean
    (widened by ``slack``, an approximation's stated error bound)."""
    assert abs(mean - exact) <= Z99 * se + slack, (
        f"{what}: simulated {mean:+.5f} ± {Z99 * se:.5f} (99% CI) vs exact {exact:+.5f}"
        + (f" (slack {slack})" if slack else "")
    )
