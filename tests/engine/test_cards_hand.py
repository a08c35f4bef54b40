"""Cards (parsing, identity) and hands (totals, softness, bust, blackjack, pairs)."""

from __future__ import annotations

import pytest

from blackjack_env.engine import (
    ALL_CARDS,
    STANDARD_VALUES,
    Card,
    Hand,
    Rank,
    Rules,
    Suit,
    parse_card,
    parse_cards,
    preset,
    score,
)

TERMINAL_VALUES = preset("terminal-21").card_values


def hand(text: str, values: tuple[int, ...] = STANDARD_VALUES) -> Hand:
    return Hand(values, parse_cards(text))


# ------------------------------------------------------------------- cards
@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("AS", Rank.ACE, Suit.SPADES),
        ("as", Rank.ACE, Suit.SPADES),
        ("TD", Rank.TEN, Suit.DIAMONDS),
        ("10D", Rank.TEN, Suit.DIAMONDS),
        ("10h", Rank.TEN, Suit.HEARTS),
        (" kc ", Rank.KING, Suit.CLUBS),
        ("2H", Rank.TWO, Suit.HEARTS),
        ("QS", Rank.QUEEN, Suit.SPADES),
        ("JC", Rank.JACK, Suit.CLUBS),
    ],
)
def test_parse_card_good(text: str, rank: Rank, suit: Suit) -> None:
    card = parse_card(text)
    assert card == Card(rank, suit)
    assert card.rank is rank and card.suit is suit


@pytest.mark.parametrize("text", ["", "A", "1S", "11S", "AX", "ZS", "ASS", "S A", "10", "X"])
def test_parse_card_bad_names_token_and_form(text: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_card(text)
    message = str(err.value)
    assert repr(text) in message  # names the bad token
    assert "rank" in message and "suit" in message  # says what is allowed
    assert "C D H S" in message


def test_parse_cards_separators_and_order() -> None:
    assert [str(c) for c in parse_cards("AS KH, 9d 10C")] == ["AS", "KH", "9D", "TC"]
    assert [str(c) for c in parse_cards(["2c", "3D"])] == ["2C", "3D"]
    assert parse_cards("") == []


def test_parse_cards_bad_token_raises_naming_it() -> None:
    with pytest.raises(ValueError, match="'QX'"):
        parse_cards("AS QX 9D")


def test_all_cards_are_52_distinct_and_indexed() -> None:
    assert len(ALL_CARDS) == 52
    assert len(set(ALL_CARDS)) == 52
    assert [c.index for c in ALL_CARDS] == list(range(52))
    # text round trip for every card
    assert all(parse_card(str(c)) == c for c in ALL_CARDS)


def test_card_is_frozen() -> None:
    card = parse_card("AS")
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]


# -------------------------------------------------------------------- totals
@pytest.mark.parametrize(
    ("text", "total", "soft"),
    [
        ("2C 3D", 5, False),  # 2 + 3
        ("AS 6D", 17, True),  # 1 + 6 = 7 hard, +10 -> soft 17
        ("AS 6D TC", 17, False),  # 1 + 6 + 10 = 17 hard (the ace cannot be 11)
        ("AS AD", 12, True),  # 1 + 1 = 2, one ace as 11 -> soft 12
        ("AS AD AH AC", 14, True),  # 4 hard -> soft 14 (only one ace counts 11)
        ("AS AD 9C", 21, True),  # 11 hard -> soft 21
        ("AS AD 9C KH", 21, False),  # 21 hard
        ("KS QD", 20, False),  # 10 + 10
        ("KS QD 2C", 22, False),  # 22: bust
        ("5S 6D", 11, False),
        ("AS TD", 21, True),  # natural
    ],
)
def test_totals_and_softness(text: str, total: int, soft: bool) -> None:
    h = hand(text)
    assert h.total == total
    assert h.soft is soft
    assert h.bust is (total > 21)


def test_score_function_is_the_one_place() -> None:
    assert score(7, True) == (17, True)  # 7 + 10
    assert score(12, True) == (12, False)  # an ace as 11 would make 22
    assert score(11, True) == (21, True)
    assert score(11, False) == (11, False)


def test_bust_and_hard_total() -> None:
    h = hand("TS 6D")
    assert not h.bust and h.hard_total == 16
    h.add(parse_card("7C"))  # 16 + 7 = 23
    assert h.bust and h.total == 23 and h.hard_total == 23
    h2 = hand("AS 5D 6C")  # 1 + 5 + 6 = 12 hard, ace cannot be 11 (22)
    assert not h2.bust and h2.total == 12 and not h2.soft


def test_pop_undoes_add() -> None:
    h = hand("AS AD")
    card = h.pop()
    assert card == parse_card("AD")
    assert h.total == 11 and h.soft and len(h) == 1  # a lone ace: 1 + 10
    h.pop()
    assert h.total == 0 and not h.has_ace


# ----------------------------------------------------------------- blackjack
@pytest.mark.parametrize("text", ["AS TD", "KH AC", "AD JS", "QC AH"])
def test_blackjack_is_two_card_21(text: str) -> None:
    assert hand(text).is_blackjack


@pytest.mark.parametrize("text", ["AS 5D 5C", "7S 7D 7C", "AS 9D AC", "TS 9D 2C", "AS 9D"])
def test_not_blackjack(text: str) -> None:
    assert not hand(text).is_blackjack


def test_blackjack_not_after_split_unless_allowed() -> None:
    h = hand("AS KD")
    h.blackjack_counts = False  # what the table sets on split hands by default
    assert not h.is_blackjack and h.total == 21
    h.blackjack_counts = True  # blackjack_after_split=True
    assert h.is_blackjack


def test_terminal_21_faces_are_not_ten_so_ace_face_is_not_blackjack() -> None:
    # J, Q, K = 1, 2, 3: A + K = 1 + 3 = 4 hard -> soft 14
    h = hand("AS KD", TERMINAL_VALUES)
    assert h.total == 14 and h.soft and not h.is_blackjack
    # A + T is still a natural: 1 + 10 -> 21
    assert hand("AS TD", TERMINAL_VALUES).is_blackjack


def test_terminal_21_custom_totals() -> None:
    assert TERMINAL_VALUES[10:] == (1, 2, 3)
    # J + Q + K = 1 + 2 + 3 = 6
    assert hand("JS QD KC", TERMINAL_VALUES).total == 6
    # T + 9 + K = 10 + 9 + 3 = 22 -> bust
    assert hand("TS 9D KC", TERMINAL_VALUES).bust
    # J + A = 1 + 1 = 2 hard, soft 12
    h = hand("JS AD", TERMINAL_VALUES)
    assert (h.total, h.soft) == (12, True)


# --------------------------------------------------------------------- pairs
def test_pairs_by_rank_and_value() -> None:
    assert hand("8S 8D").is_pair()
    assert not hand("KS QD").is_pair()  # different ranks
    assert hand("KS QD").is_pair(by_value=True)  # both worth 10
    assert hand("TS JD").is_pair(by_value=True)
    assert not hand("9S TD").is_pair(by_value=True)
    assert not hand("8S 8D 8C").is_pair()  # three cards are never a pair
    assert not hand("8S").is_pair()


def test_pairs_by_value_with_custom_values() -> None:
    # terminal-21: J = 1 = ace's value, K = 3 = three's value
    assert hand("JS AD", TERMINAL_VALUES).is_pair(by_value=True)
    assert hand("KS 3D", TERMINAL_VALUES).is_pair(by_value=True)
    assert not hand("KS QD", TERMINAL_VALUES).is_pair(by_value=True)  # 3 vs 2
    assert not hand("KS 3D", TERMINAL_VALUES).is_pair()  # different ranks


def test_rules_value_accessor() -> None:
    rules = Rules(card_values={"J": 1, "Q": 2, "K": 3})
    assert rules.value(Rank.KING) == 3
    assert rules.value(Rank.ACE) == 1
    assert rules.value(Rank.TEN) == 10
