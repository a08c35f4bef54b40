"""A shoe with every card on the table: the round still ends, nothing is created or lost."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.engine import Action, Phase, Rules, Table
from blackjack_env.engine.cards import ALL_CARDS
from blackjack_env.engine.rules import HoleCard, Surrender

# every card worth 1 (the ace 1 or 11): hands take many cards, and 7 seats empty one deck
LOW = (1,) * 13


def _rules(**changes) -> Rules:
    base = dict(decks=1, seats=7, card_values=LOW, penetration=0.75, surrender=Surrender.LATE)
    base.update(changes)
    return Rules(**base)


def _cards_everywhere(table: Table) -> int:
    return table.shoe.remaining + len(table.shoe.discards) + len(table.cards_on_table())


def _play_round(table: Table, rng: np.random.Generator, stop: list[int]) -> dict[str, bool]:
    """Every seat bets 1 and hits until its hand holds ``stop[seat]`` cards; returns what
    happened (the shoe dry at a player's decision / in the dealer's turn)."""
    seen = {"dry_player": False, "dry_dealer": False}
    if table.phase is Phase.SETTLED:
        table.new_round()
    for s in range(table.rules.seats):
        table.bet(s, 1)
    table.deal()
    for _ in range(2000):
        who = table.to_act
        if who is None:
            break
        legal = table.legal_actions()
        assert legal, "a decision with no legal action is a dead end"
        if table.phase is Phase.INSURANCE:
            table.act(Action.DECLINE)
            continue
        if not table.shoe.can_draw:
            seen["dry_player"] = True
            assert Action.HIT not in legal and Action.DOUBLE not in legal
            assert Action.SPLIT not in legal
        hand = table.current_hand
        want = Action.HIT if len(hand.cards) < stop[who[0]] else Action.STAND
        if want not in legal or rng.random() < 0.05:
            want = legal[int(rng.integers(len(legal)))]
        table.act(want)
    assert table.phase is Phase.SETTLED, "the round must end"
    dealer = table.dealer
    if not table.shoe.can_draw and dealer.total < 17 and any(
        not h.surrendered and h.hard_total <= 21 for seat in table.seats for h in seat.hands
    ):
        seen["dry_dealer"] = True
    return seen


@pytest.mark.parametrize("hole", [HoleCard.PEEK, HoleCard.NO_PEEK, HoleCard.NONE])
def test_no_state_is_a_dead_end_and_chips_and_cards_are_conserved(hole) -> None:
    rules = _rules(hole_card=hole, insurance=hole is HoleCard.PEEK)
    rng = np.random.default_rng(7)
    table = Table(rules, rng=np.random.default_rng(1), bankroll=1000)
    start = sum(seat.bankroll for seat in table.seats)
    counts = {"dry_player": 0, "dry_dealer": 0}
    for _ in range(150):
        stop = rng.integers(2, 12, size=7).tolist()
        seen = _play_round(table, rng, stop)
        for k, v in seen.items():
            counts[k] += v
        # chips: every seat's change plus the house's result add to zero
        assert sum(seat.bankroll for seat in table.seats) + table.house == start
        # cards: each of the 52 is in the shoe, the tray or on the table, exactly once
        assert _cards_everywhere(table) == 52
        held = sorted(c.index for c in table.cards_on_table())
        assert len(held) == len(set(held))
    # the situations of the definition did occur
    assert counts["dry_player"] > 0 and counts["dry_dealer"] > 0, counts


def test_the_dealer_stops_drawing_when_every_card_is_on_the_table() -> None:
    """Scripted: seven seats take every card but the dealer's two; the dealer (two cards
    worth 1 each: 2) cannot draw, stands on 2, and the hands are settled against it."""
    rules = _rules(surrender=Surrender.NONE, hole_card=HoleCard.NO_PEEK, insurance=False)
    table = Table(rules, seed=0)
    order = [c for c in ALL_CARDS if str(c) not in ("2C", "3C")]
    # deal order: seats' first cards, upcard 2C, seats' second cards, hole 3C
    two, three = (next(c for c in ALL_CARDS if str(c) == t) for t in ("2C", "3C"))
    deal = [*order[:7], two, *order[7:14], three]
    table.shoe.stack(deal + order[14:])
    for s in range(7):
        table.bet(s, 2)
    table.deal()
    while table.to_act is not None:
        legal = table.legal_actions()
        table.act(Action.HIT if Action.HIT in legal else Action.STAND)
    assert table.phase is Phase.SETTLED
    assert not table.shoe.can_draw and table.shoe.remaining == 0
    assert [str(c) for c in table.dealer.cards] == ["2C", "3C"]
    assert table.dealer.total == 2
    for seat in table.seats:  # each hand against the dealer's 2
        for r in seat.results:
            hand = seat.hands[r.hand]
            assert r.net == (-2 if hand.hard_total > 21 else 2 if hand.total > 2 else 0)
    assert sum(seat.net for seat in table.seats) + table.house == 0
    table.new_round()  # and the table goes on
    assert table.shoe.remaining == 52
