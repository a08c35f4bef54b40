"""Library errors are the library's own one-line messages (the same whether the engine
runs compiled or as Python source), and numpy numbers read as Python numbers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from blackjack_env.engine.cards import Card, parse_card
from blackjack_env.engine.rules import Rules, preset
from blackjack_env.engine.shoe import Shoe
from blackjack_env.engine.table import Table


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: Table(preset("vegas-strip"), shoe="x"), TypeError,
         "shoe must be a Shoe .* or None .*got str"),
        (lambda: Table(preset("vegas-strip"), rng=5), TypeError,
         "rng must be a numpy.random.Generator .*got int"),
        (lambda: Shoe(1, np.random.default_rng(0)).stack(5), ValueError,
         "cards must be text like 'AS KH 9D' or a list of cards .*got int"),
        (lambda: Shoe(1, np.random.default_rng(0)).stack(["AS", 3]), ValueError,
         "cannot read card 3: cards items are Card objects or text"),
        (lambda: Shoe(1, np.random.default_rng(0)).stack("AS AS"), ValueError,
         "cannot stack AS 2 times: a 1-deck shoe holds 1 copy"),
        (lambda: Rules(card_values=5), ValueError, "card_values=5 must be 13 ints"),
        (lambda: Rules(card_values="AJQK"), ValueError, "card_values='AJQK' must be 13 ints"),
        (lambda: Rules.from_dict("decks=2"), ValueError,
         "Rules.from_dict needs a mapping of rule fields .*got str 'decks=2'"),
        (lambda: Rules(blackjack_payout="1e400"), ValueError,
         "blackjack_payout='1e400' must be positive and at most 100:1"),
        (lambda: Rules(blackjack_payout=1e300), ValueError, "at most 100:1"),
        (lambda: Rules(blackjack_payout=np.bool_(True)), ValueError, "is not a ratio"),
    ],
)
def test_bad_library_input_is_one_clear_line(call, error, match) -> None:
    with pytest.raises(error, match=match) as err:
        call()
    assert "\n" not in str(err.value)
    assert "object expected" not in str(err.value)  # (mypyc's wording)


def test_refused_stack_changes_nothing() -> None:
    shoe = Shoe(1, np.random.default_rng(0))
    before = (shoe.remaining, shoe.remaining_by_rank(), [shoe.draw() for _ in range(0)])
    for bad in (5, ["AS", 3], "AS AS", "AS ZZ"):
        with pytest.raises(ValueError):
            shoe.stack(bad)
        assert (shoe.remaining, shoe.remaining_by_rank(), []) == before


def test_stack_takes_card_text_as_the_env_does() -> None:
    shoe = Shoe(1, np.random.default_rng(0))
    shoe.stack(["AS", parse_card("KH"), "10d"])
    assert [shoe.draw() for _ in range(3)] == [parse_card(t) for t in ("AS", "KH", "TD")]
    assert all(isinstance(c, Card) for c in (parse_card("AS"),))


def test_numpy_numbers_read_as_python_numbers() -> None:
    values = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3])
    rules = Rules(
        blackjack_payout=np.float64(1.5), card_values=values, decks=np.int64(2),
        penetration=np.float64(0.5),
    )
    assert rules.blackjack_payout == Fraction(3, 2)
    assert rules.card_values == tuple(int(v) for v in values)
    assert all(type(v) is int for v in rules.card_values)
    assert type(rules.penetration) is float and type(rules.decks) is int
    assert Rules(card_values={"J": np.int64(1)}).card_values[10] == 1
    assert Rules.from_dict(rules.to_dict()) == rules
