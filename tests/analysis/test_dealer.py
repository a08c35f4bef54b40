"""Dealer outcome probabilities: published values, brute force through the engine's Hand,
peek conditioning, finite-shoe card removal."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.analysis import OUTCOMES, dealer_probabilities
from blackjack_env.analysis.dealer import dealer_rows, natural_completer
from blackjack_env.analysis.model import CardModel
from blackjack_env.engine import ALL_CARDS, Hand, Rules, parse_cards

INF = Rules(decks=None)


def brute_force(rules: Rules, up_rank: int, counts: list[int] | None) -> dict[str, float]:
    """Every dealer draw sequence, rank by rank, scored by the engine's own Hand."""
    values = rules.card_values
    card_of = {c.rank: c for c in ALL_CARDS}  # one card object per rank (suit irrelevant)
    out = dict.fromkeys(OUTCOMES, 0.0)

    def rec(hand: Hand, prob: float, left: list[int] | None) -> None:
        if len(hand) == 2 and hand.is_blackjack:
            out["blackjack"] += prob
            return
        if len(hand) >= 2:
            total, soft = hand.total, hand.soft
            if hand.bust:
                out["bust"] += prob
                return
            if total > 17 or (total == 17 and not (soft and rules.dealer_hits_soft_17)):
                out[str(total)] += prob
                return
        n = 13 if left is None else sum(left)
        for rank in range(1, 14):
            k = 1 if left is None else left[rank - 1]
            if k == 0:
                continue
            nxt = Hand(values, list(hand.cards))
            nxt.add(card_of[rank])
            if left is None:
                rec(nxt, prob * k / n, None)
            else:
                left[rank - 1] -= 1
                rec(nxt, prob * k / n, left)
                left[rank - 1] += 1

    rec(Hand(values, [card_of[up_rank]]), 1.0, counts)
    return out


# Published: Wizard of Odds, blackjack appendix 2B (dealer probabilities before the peek),
# table "1 Deck - Dealer Stands on Soft 17": 17, 18, 19, 20, 21, BJ, bust.
# https://wizardofodds.com/games/blackjack/appendix/2b/
WIZARD_1D_S17 = {
    "A": (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    "2": (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0.0, 0.352973),
    "5": (0.119687, 0.123483, 0.116909, 0.104694, 0.106321, 0.0, 0.428905),
    "6": (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0.0, 0.420823),
    "7": (0.372345, 0.138583, 0.0773344, 0.0788967, 0.072987, 0.0, 0.259854),
    "8": (0.130857, 0.362989, 0.129445, 0.0682898, 0.0697914, 0.0, 0.238627),
}


@pytest.mark.parametrize("up", list(WIZARD_1D_S17))
def test_single_deck_matches_published_table(up: str) -> None:
    got = dealer_probabilities(Rules(decks=1), up, condition_on_no_blackjack=False)
    names = ("17", "18", "19", "20", "21", "blackjack", "bust")
    want = dict(zip(names, WIZARD_1D_S17[up], strict=True))
    for name, p in want.items():
        assert got[name] == pytest.approx(p, abs=2e-6), name
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("h17", [False, True])
@pytest.mark.parametrize("up", [6, 7, 9, 10, 13])
def test_infinite_matches_engine_brute_force(h17: bool, up: int) -> None:
    rules = Rules(decks=None, dealer_hits_soft_17=h17)
    up_card = parse_cards("A23456789TJQK"[up - 1] + "S")[0]
    got = dealer_probabilities(rules, up_card.rank, condition_on_no_blackjack=False)
    want = brute_force(rules, up, None)
    for name in OUTCOMES:
        assert got[name] == pytest.approx(want[name], abs=1e-12), name


@pytest.mark.parametrize("up, removed", [("9", "TS 6H"), ("T", "AS AH 5D"), ("7", "2C 3C 4C 5C")])
def test_finite_matches_engine_brute_force(up: str, removed: str) -> None:
    rules = Rules(decks=1, dealer_hits_soft_17=True)
    got = dealer_probabilities(rules, up, removed, condition_on_no_blackjack=False)
    counts = [4] * 13
    for card in parse_cards(removed):
        counts[card.rank - 1] -= 1
    up_rank = "A23456789TJQK".index(up) + 1
    counts[up_rank - 1] -= 1
    want = brute_force(rules, up_rank, counts)
    for name in OUTCOMES:
        assert got[name] == pytest.approx(want[name], abs=1e-12), name


def test_rank_counts_and_cards_agree() -> None:
    rules = Rules(decks=2)
    by_cards = dealer_probabilities(rules, "A", "TS TD 9H")
    by_counts = dealer_probabilities(rules, "A", [0] * 8 + [1, 2, 0, 0, 0])
    assert by_cards == pytest.approx(by_counts)


def test_peek_conditioning_removes_blackjack_and_renormalises() -> None:
    raw = dealer_probabilities(INF, "A", condition_on_no_blackjack=False)
    cond = dealer_probabilities(INF, "A")  # peek rules: conditioned by default
    assert raw["blackjack"] == pytest.approx(4 / 13)
    assert cond["blackjack"] == 0.0
    for name in OUTCOMES[:-1]:
        assert cond[name] == pytest.approx(raw[name] / (1 - 4 / 13))
    no_peek = Rules(decks=None, hole_card="no-peek", insurance=False)
    assert dealer_probabilities(no_peek, "T")["blackjack"] == pytest.approx(1 / 13)


def test_h17_moves_soft_17_mass() -> None:
    s17 = dealer_probabilities(INF, "6")
    h17 = dealer_probabilities(Rules(decks=None, dealer_hits_soft_17=True), "6")
    assert h17["17"] < s17["17"] and h17["bust"] > s17["bust"]
    # with a 7 up the dealer can never hold soft 17 (7 + A = soft 18): nothing changes
    assert dealer_probabilities(Rules(decks=None, dealer_hits_soft_17=True), "7") == pytest.approx(
        dealer_probabilities(INF, "7"), abs=1e-15
    )


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="upcard"):
        dealer_probabilities(INF, "X")
    with pytest.raises(ValueError, match="more cards"):
        dealer_probabilities(Rules(decks=1), "5", "AS AS AS AS AS")
    with pytest.raises(ValueError, match="finite"):
        dealer_probabilities(INF, "5", "AS")


def _by_class(rules: Rules, counts: list[int]) -> list[int]:
    return [sum(counts[r - 1] for r in ranks) for _, _, ranks in CardModel(rules).classes]


@pytest.mark.parametrize(
    "rules",
    [Rules(decks=1), Rules(decks=1, dealer_hits_soft_17=True, card_values={"J": 1, "K": 3})],
    ids=["s17", "h17-custom-values"],
)
def test_dealer_rows_match_engine_brute_force_row_by_row(rules: Rules) -> None:
    # a small pool (the upcard, a 6, already out) with no 2s at all, and rows that each
    # take cards out: one takes every ace, one every ten-value card, one every 5, one none
    pool = [2, 0, 1, 2, 2, 1, 2, 1, 1, 2, 1, 2, 1]
    rows = [
        [0] * 13,
        [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1],
        [0, 0, 0, 1, 2, 0, 1, 0, 0, 0, 0, 0, 0],
        [1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0],
    ]
    up = next(j for j, (_, _, ranks) in enumerate(CardModel(rules).classes) if 6 in ranks)
    got = dealer_rows(
        rules,
        np.array(_by_class(rules, pool), float),
        up,
        np.array([_by_class(rules, r) for r in rows], float),
    )
    assert got.shape == (len(rows), 7)
    for row, probs in zip(rows, got, strict=True):
        left = [p - r for p, r in zip(pool, row, strict=True)]
        want = brute_force(rules, 6, left)
        for name, p in zip(OUTCOMES, probs, strict=True):
            assert p == pytest.approx(want[name], abs=1e-12), (row, name)


def test_dealer_rows_blackjack_column_and_completer() -> None:
    rules = Rules(decks=1)
    classes = CardModel(rules).classes
    ace = next(j for j, (_, a, _) in enumerate(classes) if a)
    ten = next(j for j, (v, a, _) in enumerate(classes) if v == 10 and not a)
    assert natural_completer(rules, ace) == ten and natural_completer(rules, ten) == ace
    others = [j for j in range(len(classes)) if j not in (ace, ten)]
    assert all(natural_completer(rules, j) is None for j in others)
    pool = np.array(_by_class(rules, [3] + [4] * 12), float)  # one deck less an ace upcard
    rows = np.zeros((2, len(classes)))
    rows[1, ten] = 16  # every ten-value card gone: no blackjack possible
    got = dealer_rows(rules, pool, ace, rows)
    assert got[0, 6] == pytest.approx(16 / 51, abs=1e-15)
    assert got[1, 6] == 0.0
    assert got.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-12)
