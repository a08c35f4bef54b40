"""The shoe: conservation, cut card, mid-round reshuffle, stacking, infinite deck, determinism."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from blackjack_env.engine import ALL_CARDS, Action, Phase, Rules, Shoe, Table, parse_cards
from blackjack_env.strategies import dealer_style, play_until

from .helpers import card_total, finish, snapshot


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def shoe_state(shoe: Shoe) -> tuple:
    return (
        shoe.undealt(),
        shoe.stacked,
        tuple(shoe.discards),
        tuple(shoe.remaining_by_rank()),
        shoe.dealt_since_shuffle,
        shoe.shuffles,
        str(shoe.rng.bit_generator.state),
    )


# --------------------------------------------------------------- basics
@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_fresh_shoe_holds_every_card_decks_times(decks: int) -> None:
    shoe = Shoe(decks, rng())
    assert shoe.remaining == shoe.total_cards == 52 * decks
    assert shoe.remaining_by_rank() == [4 * decks] * 13
    dealt = [shoe.draw() for _ in range(52 * decks)]
    assert Counter(dealt) == Counter({card: decks for card in ALL_CARDS})
    assert shoe.remaining == 0


@pytest.mark.parametrize("decks", [0, -1, 2.5, "6"])
def test_bad_deck_count(decks: object) -> None:
    with pytest.raises(ValueError, match="decks"):
        Shoe(decks, rng())  # type: ignore[arg-type]


def test_counts_follow_draws() -> None:
    shoe = Shoe(1, rng())
    shoe.stack("AS AD 7C")
    for _ in range(3):
        shoe.draw()
    counts = shoe.remaining_by_rank()
    assert counts[0] == 4 - 2  # two aces gone
    assert counts[6] == 4 - 1  # one seven gone
    assert sum(counts) == 52 - 3


# ------------------------------------------------------------ conservation
@pytest.mark.parametrize(("decks", "seats"), [(1, 1), (1, 7), (2, 5), (6, 3)])
def test_cards_conserved_over_rounds(decks: int, seats: int) -> None:
    rules = Rules(decks=decks, seats=seats, penetration=0.8)
    table = Table(rules, seed=decks * 10 + seats)
    strategies = dict.fromkeys(range(seats), dealer_style)
    for _ in range(60):
        for seat in range(seats):
            table.bet(seat, 10)
        table.deal()
        assert card_total(table) == 52 * decks  # mid-round (after the deal)
        play_until(table, strategies)
        assert table.phase is Phase.SETTLED
        assert card_total(table) == 52 * decks
        table.new_round()
        assert card_total(table) == 52 * decks
        assert table.cards_on_table() == []


# ------------------------------------------------------------ the cut card
def test_reshuffle_only_between_rounds_once_cut_card_is_out() -> None:
    # 1 deck, penetration 0.5: the cut card sits after 0.5 x 52 = 26 cards.
    rules = Rules(decks=1, seats=3, penetration=0.5)
    table = Table(rules, seed=3)
    shoe = table.shoe
    strategies = dict.fromkeys(range(3), dealer_style)
    reshuffles = 0
    for _ in range(80):
        for seat in range(3):
            table.bet(seat, 5)
        shuffles_before = shoe.shuffles
        table.deal()
        play_until(table, strategies)
        # no reshuffle of any kind inside the round (3 seats never empty a 52-card deck
        # from a shoe cut at 26)
        assert shoe.shuffles == shuffles_before
        assert shoe.reshuffled_mid_round == 0
        dealt = shoe.dealt_since_shuffle
        reshuffled = table.new_round()
        assert reshuffled is (dealt >= 26)
        if reshuffled:
            reshuffles += 1
            assert shoe.shuffles == shuffles_before + 1
            assert shoe.dealt_since_shuffle == 0
            assert shoe.remaining == 52 and shoe.discards == []
        else:
            assert shoe.remaining == 52 - dealt
    assert reshuffles >= 10  # each shoe lasts at most ~26/8 + 1 rounds


def test_scripted_cut_card_crossed_mid_round_waits_for_the_round_end() -> None:
    # 1 deck, cut after 26 cards. Round 1 deals 10 cards, round 2 crosses 26.
    rules = Rules(decks=1, penetration=0.5)
    table = Table(rules, seed=1)
    shoe = table.shoe
    # player 2C 2D, dealer 5D + hole TS (15); player hits 2H 2S 3C 3D 3H to
    # 2+2+2+2+3+3+3 = 17 and stands; dealer 15 draws 3S -> 18.  4 + 5 + 1 = 10 cards.
    shoe.stack("2C 5D 2D TS 2H 2S 3C 3D 3H 3S")
    table.bet(0, 10)
    table.deal()
    for _ in range(5):
        table.act(Action.HIT)
    table.act(Action.STAND)
    assert table.phase is Phase.SETTLED
    assert shoe.dealt_since_shuffle == 10
    assert table.new_round() is False  # 10 < 26
    # Round 2: player 4C 4D (8), dealer 6C + 6D (12); player hits 4H 4S 5C (8 + 4 + 4 + 5
    # = 21, stands by itself); dealer 12 draws 5H -> 17, stands. 4 + 3 + 1 = 8, total 18.
    # Round 3: player 7C 7D (14), dealer 8C + 8D (16); player hits 7H -> 21; dealer draws
    # 7S -> 23. 4 + 1 + 1 = 6, total 24 < 26. Round 4's deal takes cards 25..28, past 26.
    shoe.stack("4C 6C 4D 6D 4H 4S 5C 5H")
    table.bet(0, 10)
    table.deal()
    play_until(table, {0: lambda t: Action.HIT})
    assert table.phase is Phase.SETTLED
    assert shoe.dealt_since_shuffle == 18
    assert table.new_round() is False
    shoe.stack("7C 8C 7D 8D 7H 7S")
    table.bet(0, 10)
    table.deal()
    table.act(Action.HIT)
    assert table.phase is Phase.SETTLED
    assert shoe.dealt_since_shuffle == 24
    assert table.new_round() is False
    table.bet(0, 10)
    shuffles = shoe.shuffles
    table.deal()  # cards 25..28: the cut card comes out during this deal
    assert shoe.dealt_since_shuffle >= 26
    finish(table)
    assert shoe.shuffles == shuffles  # not mid-round
    assert table.new_round() is True
    assert shoe.remaining == 52


def test_penetration_none_shuffles_before_every_round() -> None:
    table = Table(Rules(decks=1, penetration=None), seed=2)
    for _ in range(5):
        table.bet(0, 1)
        table.deal()
        finish(table)
        shuffles = table.shoe.shuffles
        assert table.new_round() is True
        assert table.shoe.shuffles == shuffles + 1
        assert table.shoe.remaining == 52


# -------------------------------------------------- dry shoe mid-round
def test_dry_shoe_mid_round_reshuffles_the_discard_tray() -> None:
    # 1 deck with penetration 1.0 (cut card at the very end) and 7 seats that all hit to 17:
    # every round takes ~20+ cards, so within a few rounds the shoe runs dry mid-round.
    rules = Rules(decks=1, seats=7, penetration=1.0, insurance=False)
    table = Table(rules, seed=11)
    shoe = table.shoe
    strategies = dict.fromkeys(range(7), dealer_style)
    for _ in range(10):
        for seat in range(7):
            table.bet(seat, 1)
        before = shoe.reshuffled_mid_round
        table.deal()
        play_until(table, strategies)
        assert table.phase is Phase.SETTLED
        on_table = table.cards_on_table()
        # one deck: no card can be on the table twice, even after the tray went back in
        assert len(set(on_table)) == len(on_table)
        assert card_total(table) == 52
        if shoe.reshuffled_mid_round > before:
            break
        table.new_round()
    else:
        pytest.fail("the shoe never ran dry mid-round")
    # the round finished on the tray's cards; the next round starts from a full shuffle
    assert shoe.dealt_since_shuffle >= 52
    assert table.new_round() is True
    assert shoe.remaining == 52


def test_dry_shoe_scripted() -> None:
    shoe = Shoe(1, rng(5), penetration=1.0)
    first = [shoe.draw() for _ in range(50)]
    shoe.discard(first[:30])  # 30 in the tray, 20 still "on the table", 2 undealt
    last_two = [shoe.draw(), shoe.draw()]
    assert shoe.remaining == 0
    more = [shoe.draw() for _ in range(30)]  # tray reshuffled in
    assert shoe.reshuffled_mid_round == 1
    assert Counter(more) == Counter(first[:30])
    # with no tray, an empty shoe is a clear error
    from blackjack_env.engine import ShoeExhaustedError

    with pytest.raises(ShoeExhaustedError, match="discard tray are empty"):
        shoe.draw()
    assert len(set(first[30:] + last_two + more)) == 52


# ---------------------------------------------------------------- stacking
def test_stack_in_finite_shoe_takes_cards_out_of_the_undealt() -> None:
    shoe = Shoe(1, rng())
    shoe.stack("AS KH 9D")
    assert shoe.remaining == 52
    assert shoe.remaining_by_rank() == [4] * 13
    assert [str(shoe.draw()) for _ in range(3)] == ["AS", "KH", "9D"]
    rest = [shoe.draw() for _ in range(49)]
    assert not set(parse_cards("AS KH 9D")) & set(rest)
    assert len(set(rest)) == 49


def test_stack_twice_appends_in_order() -> None:
    shoe = Shoe(2, rng())
    shoe.stack("AS")
    shoe.stack("AS 2C")  # second ace of spades of the two decks
    assert [str(shoe.draw()) for _ in range(3)] == ["AS", "AS", "2C"]


def test_stack_takes_a_uniformly_random_copy() -> None:
    """Stacking one of two copies leaves the other anywhere in the shuffled shoe with
    equal chance: after the stacked ace, the other ace of spades is among the next 51
    cards (the top half of the 103 left) half the time. Taking a fixed copy (the first
    in the list) puts it there 3/4 or 1/4 of the time. 3,000 shoes: the proportion's
    standard error is 0.0091; the bound 0.035 is 3.8 standard errors."""
    generator = np.random.default_rng(11)
    ace = parse_cards("AS")[0]
    top = 0
    trials = 3000
    for _ in range(trials):
        shoe = Shoe(2, generator)
        shoe.stack("AS")
        assert shoe.draw() == ace
        top += ace in [shoe.draw() for _ in range(51)]
    assert abs(top / trials - 0.5) < 0.035


def test_stack_unavailable_card_raises_and_leaves_the_shoe_unchanged() -> None:
    shoe = Shoe(1, rng())
    shoe.stack("AS")
    before = shoe_state(shoe)
    with pytest.raises(ValueError, match="cannot stack AS"):
        shoe.stack("KH AS")  # KH is fine, AS is already stacked
    assert shoe_state(shoe) == before
    with pytest.raises(ValueError, match="'ZZ'"):
        shoe.stack("KH ZZ")
    assert shoe_state(shoe) == before


def test_stack_card_on_the_table_raises_and_table_unchanged() -> None:
    table = Table(Rules(decks=1), seed=0)
    table.shoe.stack("TS 9D TC 8H")  # player 20 vs dealer 9 + 8
    table.bet(0, 10)
    table.deal()
    before = snapshot(table)
    with pytest.raises(ValueError, match="cannot stack TS"):
        table.shoe.stack("TS")
    assert snapshot(table) == before


def test_stack_may_take_a_card_from_the_discard_tray() -> None:
    shoe = Shoe(1, rng(), penetration=1.0)
    cards = [shoe.draw() for _ in range(52)]
    shoe.discard(cards)
    shoe.stack("QH")
    assert len(shoe.discards) == 51
    assert str(shoe.draw()) == "QH"


def test_stack_survives_a_between_rounds_shuffle() -> None:
    shoe = Shoe(1, rng(), penetration=0.1)
    shoe.stack("7C 7D")
    shoe.shuffle()
    assert shoe.remaining == 52
    assert [str(shoe.draw()) for _ in range(2)] == ["7C", "7D"]


# ----------------------------------------------------------- infinite deck
def test_infinite_deck_draws_with_replacement() -> None:
    shoe = Shoe(None, rng(7))
    assert shoe.infinite and shoe.remaining is None and shoe.total_cards is None
    assert not shoe.needs_shuffle
    draws = [shoe.draw() for _ in range(52 * 200)]
    assert all(card in ALL_CARDS for card in draws)
    shoe.discard(draws)
    assert shoe.discards == []  # nothing to put back
    # Uniform over the 52 cards: chi-square over the 13 ranks (df = 12). Expected count per
    # rank 10400 / 13 = 800; the 99.9% quantile of chi2(12) is 32.91.
    counts = Counter(card.rank for card in draws)
    chi2 = sum((counts[r] - 800) ** 2 / 800 for r in range(1, 14))
    assert chi2 < 32.91
    # with replacement: 10400 draws must repeat cards many times over
    assert len(set(draws)) == 52


def test_infinite_deck_stacking() -> None:
    shoe = Shoe(None, rng())
    shoe.stack("AS AS AS")  # any number of copies
    assert [str(shoe.draw()) for _ in range(3)] == ["AS", "AS", "AS"]


# ------------------------------------------------------------ determinism
@pytest.mark.parametrize("decks", [None, 1, 6])
def test_same_seed_same_cards(decks: int | None) -> None:
    a, b = Shoe(decks, rng(42)), Shoe(decks, rng(42))
    assert [a.draw() for _ in range(300 if decks != 1 else 52)] == [
        b.draw() for _ in range(300 if decks != 1 else 52)
    ]
    c = Shoe(decks, rng(43))
    a2 = Shoe(decks, rng(42))
    assert [a2.draw() for _ in range(40)] != [c.draw() for _ in range(40)]


def test_clear_stack_returns_cards_to_random_places_in_the_undealt() -> None:
    shoe = Shoe(1, rng(9))
    spades = "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS"
    shoe.stack(spades)
    counts = shoe.remaining_by_rank()
    shoe.clear_stack()
    assert shoe.remaining == 52
    assert shoe.remaining_by_rank() == counts
    # The cleared cards are no longer "next": the 13 following cards are not the stack.
    # (Each spade goes to a uniform place among 39..51 undealt cards; the chance that all 13
    # land on top in stack order is below 1e-20.)
    nxt = [shoe.draw() for _ in range(13)]
    assert nxt != parse_cards(spades)
    rest = nxt + [shoe.draw() for _ in range(39)]
    assert Counter(rest) == Counter(ALL_CARDS)


def test_clear_stack_infinite() -> None:
    shoe = Shoe(None, rng())
    shoe.stack("AS AS")
    shoe.clear_stack()
    assert shoe.remaining is None
    assert shoe.stacked == 0


@pytest.mark.parametrize("penetration", [0, -0.5, 1.5, "0.5", True])
def test_bad_penetration(penetration: object) -> None:
    with pytest.raises(ValueError, match=r"penetration=.* must be a fraction in \(0, 1\]"):
        Shoe(1, rng(), penetration=penetration)  # type: ignore[arg-type]


def test_shoe_needs_a_generator() -> None:
    with pytest.raises(ValueError, match=r"numpy\.random\.Generator"):
        Shoe(1, 42)  # type: ignore[arg-type]
