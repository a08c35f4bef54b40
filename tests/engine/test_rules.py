"""Rules: validation messages, coercion, round trips, presets."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from blackjack_env.engine import (
    PRESETS,
    STANDARD_VALUES,
    DoubleRule,
    HoleCard,
    Rules,
    Settlement,
    SplitBet,
    SplitBy,
    Surrender,
    TieRule,
    list_presets,
    preset,
)
from blackjack_env.engine.rules import FIELD_NAMES


# ----------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("decks", 0, "1 to 8"),
        ("decks", 9, "1 to 8"),
        ("decks", 2.0, "1 to 8"),
        ("decks", True, "1 to 8"),
        ("penetration", 0, "(0, 1]"),
        ("penetration", 1.5, "(0, 1]"),
        ("penetration", "half", "(0, 1]"),
        ("seats", 0, "1 to 7"),
        ("seats", 8, "1 to 7"),
        ("max_seats", 8, "1 to 7"),
        ("max_split_hands", 0, "1 (no splitting) to 8"),
        ("max_split_hands", 9, "1 (no splitting) to 8"),
        ("min_bet", 0, ">= 1"),
        ("min_bet", 1.5, ">= 1"),
        ("seats_per_deck", 0, "1 to 7"),
        ("hole_card", "maybe", "'peek', 'no-peek', 'none'"),
        ("ties", "draw", "'push', 'dealer-wins', 'player-loses'"),
        ("double", "9-10", "'any', '9-11', '10-11', 'never'"),
        ("surrender", "late!", "'none', 'late', 'early'"),
        ("split_by", "suit", "'rank', 'value'"),
        ("split_bet", "triple", "'match', 'halve'"),
        ("settlement", "best", "'dealer', 'highest-hand'"),
        ("dealer_hits_soft_17", "yes", "True or False"),
        ("insurance", 1, "True or False"),
        ("blackjack_payout", "3-2", "'3:2'"),
        ("blackjack_payout", "3:0", "'3:2'"),
        ("blackjack_payout", 0, "positive"),
        ("blackjack_payout", "-1:2", "positive"),
        ("blackjack_payout", [3, 2], "'3:2'"),
        ("blackjack_payout", True, "ratio"),
        ("blackjack_payout", float("nan"), "ratio"),
        ("blackjack_payout", float("inf"), "ratio"),
    ],
)
def test_bad_value_names_field_value_and_allowed(field: str, value: object, allowed: str) -> None:
    with pytest.raises(ValueError) as err:
        Rules.build(**{field: value})
    message = str(err.value)
    assert field in message
    assert repr(value) in message or str(value) in message
    assert allowed in message


def test_max_bet_below_min_bet() -> None:
    with pytest.raises(ValueError, match=r"max_bet=5 must be an int >= min_bet \(10\)"):
        Rules(min_bet=10, max_bet=5)


def test_seats_above_max_seats_names_the_limit() -> None:
    with pytest.raises(ValueError, match=r"seats=6 .* 1 to 5"):
        Rules(seats=6, max_seats=5)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ((1,) * 12, "13 values"),
        ({"Z": 3}, "unknown rank 'Z'"),
        ({"A": 11}, "card_values['A']=11"),
        ({"K": 0}, "card_values['K']=0 must be between 1 and 10"),
        ({"K": 11}, "card_values['K']=11 must be between 1 and 10"),
        ({"K": 2.5}, "card_values['K']=2.5 must be an int"),
    ],
)
def test_bad_card_values(values: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        Rules(card_values=values)  # type: ignore[arg-type]


def test_card_values_mapping_merges_over_standard() -> None:
    rules = Rules(card_values={"J": 1, "q": 2, "K": 3, "10": 9})
    assert rules.card_values == (1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 1, 2, 3)


@pytest.mark.parametrize("name", ["deck", "surrender_late", "sab"])
def test_unknown_field_raises_via_build_and_replace(name: str) -> None:
    with pytest.raises(ValueError, match=f"unknown rule field.*{name}.*fields are"):
        Rules.build(**{name: 1})
    with pytest.raises(ValueError, match=f"unknown rule field.*{name}"):
        Rules().replace(**{name: 1})
    with pytest.raises(ValueError, match=f"unknown rule field.*{name}"):
        Rules.from_dict({**Rules().to_dict(), name: 1})
    with pytest.raises(ValueError, match=f"unknown rule field.*{name}"):
        preset("vegas-strip", **{name: 1})


@pytest.mark.parametrize(
    ("fields", "names"),
    [
        (dict(natural_paid_at_deal=True, natural_ends_hand=False), "natural_paid_at_deal"),
        (dict(insurance=True, hole_card="none"), "insurance=True needs hole_card='peek'"),
        (dict(insurance=True, hole_card="no-peek"), "got 'no-peek'"),
        (dict(split_bet="halve", max_split_hands=3), "max_split_hands=2"),
        (dict(decks=None, seats_per_deck=3), "seats_per_deck needs a finite shoe"),
    ],
)
def test_contradictory_combinations_raise(fields: dict, names: str) -> None:
    with pytest.raises(ValueError, match=names):
        Rules.build(**fields)


def test_rules_are_frozen() -> None:
    rules = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.decks = 2  # type: ignore[misc]


# ------------------------------------------------------------------ coercion
def test_string_coercion_of_enums() -> None:
    rules = Rules(
        hole_card="no-peek",
        ties="dealer-wins",
        double="10-11",
        split_by="value",
        split_bet="halve",
        max_split_hands=2,
        surrender="early",
        settlement="highest-hand",
        insurance=False,
    )
    assert rules.hole_card is HoleCard.NO_PEEK
    assert rules.ties is TieRule.DEALER_WINS
    assert rules.double is DoubleRule.TEN_TO_ELEVEN
    assert rules.split_by is SplitBy.VALUE
    assert rules.split_bet is SplitBet.HALVE
    assert rules.surrender is Surrender.EARLY
    assert rules.settlement is Settlement.HIGHEST_HAND


@pytest.mark.parametrize(
    ("given", "ratio"),
    [
        ("6:5", Fraction(6, 5)),
        (" 3:2 ", Fraction(3, 2)),
        ("1:1", Fraction(1)),
        ("7/5", Fraction(7, 5)),
        (1.5, Fraction(3, 2)),
        (1.2, Fraction(6, 5)),  # the float's short form, not its binary expansion
        (2, Fraction(2)),
        (Fraction(9, 8), Fraction(9, 8)),
    ],
)
def test_payout_coercion_is_exact(given: object, ratio: Fraction) -> None:
    payout = Rules(blackjack_payout=given).blackjack_payout  # type: ignore[arg-type]
    assert isinstance(payout, Fraction)
    assert payout == ratio


# ---------------------------------------------------------------- round trip
@pytest.mark.parametrize("name", list(PRESETS))
def test_to_dict_from_dict_round_trip(name: str) -> None:
    rules = preset(name)
    data = rules.to_dict()
    assert set(data) == set(FIELD_NAMES)
    # JSON-ready: survives a real JSON round trip
    again = Rules.from_dict(json.loads(json.dumps(data)))
    assert again == rules
    assert hash(again) == hash(rules)


def test_to_dict_formats() -> None:
    data = preset("single-deck-6to5").to_dict()
    assert data["blackjack_payout"] == "6:5"
    assert data["hole_card"] == "peek"
    assert data["card_values"] == list(STANDARD_VALUES)


def test_replace_revalidates() -> None:
    with pytest.raises(ValueError, match="decks=0"):
        Rules().replace(decks=0)
    assert Rules().replace(decks=2).decks == 2


# ------------------------------------------------------------------- presets
REQUIRED_PRESETS = {
    "vegas-strip",
    "atlantic-city",
    "downtown-h17",
    "single-deck-6to5",
    "european-no-hole-card",
    "sutton-barto",
    "gymnasium",
    "gymnasium-natural",
    "ood-book",
    "browser-game",
    "how-to-play",
    "terminal-21",
}


def test_every_required_preset_exists() -> None:
    assert set(PRESETS) >= REQUIRED_PRESETS


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_and_has_a_summary(name: str) -> None:
    p = PRESETS[name]
    rules = preset(name)
    assert isinstance(rules, Rules)
    assert p.summary and "\n" not in p.summary
    assert len(p.details) > 40
    assert rules.summary()  # the generated one-liner works too
    # revalidating the preset's own fields gives the same rules
    assert Rules.from_dict(rules.to_dict()) == rules


def test_list_presets_one_line_each() -> None:
    listing = list_presets()
    assert [name for name, _ in listing] == list(PRESETS)
    for name, line in listing:
        assert line == PRESETS[name].summary


def test_unknown_preset_lists_the_names() -> None:
    with pytest.raises(ValueError, match=r"unknown preset 'vegas'.*vegas-strip"):
        preset("vegas")


def test_preset_overrides() -> None:
    rules = preset("vegas-strip", decks=None, penetration=None)
    assert rules.infinite and rules.shoe_decks is None
    assert rules.surrender is Surrender.LATE  # the rest stays


@pytest.mark.parametrize(
    ("name", "expect"),
    [
        ("vegas-strip", dict(decks=6, dealer_hits_soft_17=False, surrender=Surrender.LATE)),
        ("atlantic-city", dict(decks=8, surrender=Surrender.LATE)),
        ("downtown-h17", dict(decks=2, dealer_hits_soft_17=True)),
        (
            "single-deck-6to5",
            dict(decks=1, blackjack_payout=Fraction(6, 5), double_after_split=False),
        ),
        (
            "european-no-hole-card",
            dict(hole_card=HoleCard.NONE, double=DoubleRule.NINE_TO_ELEVEN, insurance=False),
        ),
    ],
)
def test_casino_preset_fields(name: str, expect: dict) -> None:
    rules = preset(name)
    for field, value in expect.items():
        assert getattr(rules, field) == value, field


@pytest.mark.parametrize(
    ("seats", "decks"),
    # seed 004: one deck for every three players
    [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (7, 3)],
)
def test_terminal_21_decks_scale_with_seats(seats: int, decks: int) -> None:
    rules = preset("terminal-21", seats=seats)
    assert rules.shoe_decks == decks
    assert f"{decks} deck" in rules.summary()


def test_gymnasium_presets_do_not_peek_and_use_an_infinite_deck() -> None:
    for name in ("sutton-barto", "gymnasium", "gymnasium-natural"):
        rules = preset(name)
        assert rules.infinite
        assert rules.hole_card is HoleCard.NO_PEEK
        assert not rules.natural_ends_hand
        assert not rules.dealer_hits_soft_17
        assert not rules.can_double and not rules.can_split
        assert rules.surrender is Surrender.NONE


def test_card_values_accepts_rank_keys() -> None:
    from blackjack_env.engine import Rank

    rules = Rules(card_values={Rank.JACK: 1, Rank.QUEEN: 2, Rank.KING: 3})
    assert rules.card_values == preset("terminal-21").card_values


def test_numpy_ints_are_read_as_plain_ints():
    import numpy as np

    rules = Rules(decks=np.int64(2), seats=np.int32(3), max_bet=np.int64(500))
    assert (rules.decks, rules.seats, rules.max_bet) == (2, 3, 500)
    assert all(type(v) is int for v in (rules.decks, rules.seats, rules.max_bet))
