"""Rule spaces: sampling, membership, round trips, refusals, and the held-out test set."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter
from importlib import resources

import numpy as np
import pytest

from blackjack_env.engine import Grid, Rules, RuleSpace, default_space, held_out, play, preset
from blackjack_env.engine.rules import FIELD_NAMES, DoubleRule, Surrender
from blackjack_env.engine.rulespace import (
    DEFAULT_AXES_V1,
    HELD_OUT_SIZE,
    SHAPE_FIELDS,
    held_out_document,
    held_out_file,
)

BASE = Rules(decks=None, penetration=None, insurance=False)


def small_space(**kwargs: object) -> RuleSpace:
    return RuleSpace(
        BASE,
        {"dealer_hits_soft_17": (False, True), "surrender": ("none", "late", "early"),
         "blackjack_payout": ("3:2", "6:5")},
        **kwargs,  # type: ignore[arg-type]
    )


# ------------------------------------------------------------------ building and order
def test_axes_are_read_as_rules_reads_them() -> None:
    space = small_space()
    assert dict(space.axes)["surrender"] == (Surrender.NONE, Surrender.LATE, Surrender.EARLY)
    assert space.size == len(space) == 12
    assert space.axis_names == ("dealer_hits_soft_17", "surrender", "blackjack_payout")
    # the order is itertools.product's: the first axis varies slowest
    expected = [BASE.replace(dealer_hits_soft_17=a, surrender=b, blackjack_payout=c)
                for a, b, c in itertools.product((False, True), ("none", "late", "early"),
                                                 ("3:2", "6:5"))]
    assert list(space) == expected
    for i, rules in enumerate(space):
        assert space.rules_at(i) == rules
        assert space.index(rules) == i
    assert space.max_hands == 4 and space.infinite and space.n_play == 5


def test_a_grid_axis_is_exact_and_round_trips() -> None:
    base = Rules(decks=6, insurance=False)
    space = RuleSpace(base, {"penetration": Grid(0.5, 0.9, 0.1), "decks": Grid(1, 8, 1)})
    assert dict(space.axes)["penetration"] == (0.5, 0.6, 0.7, 0.8, 0.9)
    assert dict(space.axes)["decks"] == tuple(range(1, 9))
    assert space.size == 40 and not space.infinite
    data = json.loads(json.dumps(space.to_dict()))
    assert data["axes"]["penetration"] == {"grid": [0.5, 0.9, 0.1]}
    assert RuleSpace.from_dict(data) == space


def test_round_trips_through_json() -> None:
    for space in (small_space(name="mine", hold_out=3), default_space()):
        data = json.loads(json.dumps(space.to_dict()))
        back = RuleSpace.from_dict(data)
        assert back == space and back.to_dict() == space.to_dict()
        assert back.name == space.name and back.hold_out == space.hold_out


def test_replace_base_keeps_the_axes_and_refuses_an_axis() -> None:
    space = small_space(hold_out=3)
    wider = space.replace_base(seats=3)
    assert wider.axes == space.axes and wider.base.seats == 3 and wider.hold_out == 3
    with pytest.raises(ValueError, match=r"^surrender is an axis"):
        space.replace_base(surrender="late")


# ------------------------------------------------------------------ membership
def test_contains_and_check() -> None:
    space = small_space()
    inside = BASE.replace(surrender="late", blackjack_payout="6:5")
    assert space.contains(inside)
    space.check(inside)
    assert not space.contains("vegas-strip")
    cases = [
        (BASE.replace(blackjack_payout="1:1"),
         "rules outside the space 'custom': blackjack_payout='1:1' is not one of the "
         "axis's values ('3:2', '6:5')"),
        (BASE.replace(double="9-11"),
         "rules outside the space 'custom': double='9-11', but double is not an axis of "
         "the space: it must be 'any' (the base's)"),
    ]
    for rules, message in cases:
        assert not space.contains(rules)
        with pytest.raises(ValueError) as err:
            space.check(rules)
        assert str(err.value) == message
    with pytest.raises(ValueError, match=r"^rules must be a Rules"):
        space.check({"decks": None})


# ------------------------------------------------------------------ wrong input
@pytest.mark.parametrize(
    ("base", "axes", "message"),
    [
        (BASE, {"colour": (1, 2)}, r"^RuleSpace: unknown rule field 'colour' as an axis; fields "),
        (BASE, {"surrender": ("none", "sometimes")},
         r"^RuleSpace axis 'surrender': surrender='sometimes' is not allowed; choose one of "),
        (BASE, {"max_split_hands": (2, 9)},
         r"^RuleSpace axis 'max_split_hands': max_split_hands=9 must be an int from 1"),
        (BASE, {"surrender": ("late", Surrender.LATE)},
         r"^RuleSpace axis 'surrender' lists 'late' twice"),
        (BASE, {"surrender": "late"}, r"^RuleSpace axis 'surrender'='late' must be a tuple"),
        (BASE, {"surrender": ()}, r"^RuleSpace axis 'surrender' has no values$"),
        (BASE, {"seats": (1, 2)}, r"^RuleSpace: 'seats' cannot be an axis"),
        (Rules(decks=6), {"decks": (None, 6)},
         r"^RuleSpace axis 'decks' mixes an infinite deck \(None\) with finite shoes \[6\]"),
        (BASE, {"hole_card": ("peek", "none"), "insurance": (False, True)},
         r"^RuleSpace: axes hole_card='none' and insurance=True cannot combine: "
         r"insurance=True needs hole_card='peek'"),
        (BASE.replace(double="never", max_split_hands=1),
         {"surrender": ("none", "late")},
         r"^RuleSpace mixes action counts: .* offers only stand and hit \(2 actions\), .* "
         r"offers 5"),
        (Rules(decks=6), {"penetration": {"grid": [0.5, 0.4, 0.1]}},
         r"^Grid high=0.4 must be >= low=0.5"),
    ],
)
def test_a_bad_space_is_refused_in_one_line(base: Rules, axes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as err:
        RuleSpace(base, axes)
    assert "\n" not in str(err.value)


def test_other_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"^RuleSpace hold_out=1 must be 0"):
        small_space(hold_out=1)
    with pytest.raises(ValueError, match=r"^RuleSpace base must be a Rules"):
        RuleSpace("vegas-strip", {})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^RuleSpace.from_dict: unknown key\(s\) extra"):
        RuleSpace.from_dict({**small_space().to_dict(), "extra": 1})
    with pytest.raises(ValueError, match=r"^index=12 must be an int from 0 to 11"):
        small_space().rules_at(12)
    with pytest.raises(ValueError, match=r"^rng must be a numpy.random.Generator"):
        small_space().sample(0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^version='v9' is not a version"):
        default_space("v9")


def test_the_shape_fields_alone_decide_the_action_count() -> None:
    """SHAPE_FIELDS's claim: whether a rule set offers only stand and hit is decided by its
    double rule, card values, split limit and surrender (the space checks only those)."""
    rng = np.random.default_rng(5)
    values_choices = [None, {"J": 1, "Q": 2, "K": 3}, dict.fromkeys("23456789", 10)]
    for _ in range(120):
        fields = dict(
            double=rng.choice(["any", "9-11", "10-11", "never"]),
            max_split_hands=int(rng.integers(1, 5)),
            surrender=rng.choice(["none", "late", "early"]),
            hole_card=rng.choice(["peek", "no-peek", "none"]),
            double_after_split=bool(rng.integers(2)),
            resplit_aces=bool(rng.integers(2)),
            hit_split_aces=bool(rng.integers(2)),
            split_by=rng.choice(["rank", "value"]),
            auto_stand_21=bool(rng.integers(2)),
            natural_ends_hand=bool(rng.integers(2)),
            dealer_hits_soft_17=bool(rng.integers(2)),
        )
        cards = values_choices[int(rng.integers(3))]
        if cards is not None:
            fields["card_values"] = cards
        rules = Rules(decks=None, insurance=False, **fields)
        shape_only = BASE.replace(**{f: getattr(rules, f) for f in SHAPE_FIELDS})
        assert play.stand_hit_only(rules) == play.stand_hit_only(shape_only), rules


# ------------------------------------------------------------------ sampling
def test_sampling_is_deterministic_and_stays_in_the_space() -> None:
    space = default_space()
    a = space.sample_many(np.random.default_rng(7), 500)
    b = space.sample_many(np.random.default_rng(7), 500)
    assert a == b
    assert [space.sample(np.random.default_rng(3)) for _ in range(2)] == [
        space.sample(np.random.default_rng(3))
    ] * 2
    assert a != space.sample_many(np.random.default_rng(8), 500)
    for rules in a:
        assert isinstance(rules, Rules) and space.contains(rules)
        assert not space.is_held_out(rules)
        Rules.from_dict(rules.to_dict())  # a valid rule set
    assert space.sample_many(np.random.default_rng(0), 0) == []


def test_each_axis_value_is_drawn_with_its_frequency() -> None:
    """200,000 draws of the default sampler: each axis value's count lies within 4.5
    standard deviations of its binomial mean (the value's share of the rule sets that
    are not held out; 24 values, each two-sided p < 7e-6), and the counts over the 4,499
    training rule sets pass a chi-square test (within 5 standard deviations of df)."""
    space = default_space()
    n = 200_000
    draws = space.sample_indices(np.random.default_rng(11), n)
    train = [i for i, r in enumerate(space) if not space.is_held_out(r)]
    assert len(train) == space.training_size
    assert not np.isin(draws, np.setdiff1d(np.arange(space.size), train)).any()
    radix = [len(v) for _, v in space.axes]
    digits = np.array(np.unravel_index(draws, radix))  # (axes, n): each draw's value index
    train_digits = np.array(np.unravel_index(np.array(train), radix))
    for a, (axis, values) in enumerate(space.axes):
        for k, value in enumerate(values):
            p = np.count_nonzero(train_digits[a] == k) / len(train)
            count = np.count_nonzero(digits[a] == k)
            sd = math.sqrt(n * p * (1 - p))
            assert abs(count - n * p) <= 4.5 * sd, (axis, value, count, n * p)
    counts = np.bincount(draws, minlength=space.size)[train]
    expected = n / len(train)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    df = len(train) - 1
    assert abs(chi2 - df) <= 5 * math.sqrt(2 * df), chi2


# ------------------------------------------------------------------ the default space
def test_the_default_space() -> None:
    space = default_space()
    assert space is default_space("v1") and space.name == "default-v1"
    assert space.size == 2 * 4 * 3 * 3 * 2 * 3 * 2 * 2 * 3 == 5184
    assert space.axis_names == tuple(name for name, _ in DEFAULT_AXES_V1)
    assert space.infinite and space.n_play == 5 and space.max_hands == 4
    assert space.hold_out == 8
    assert space.size - space.training_size == len(space.held_out_rules()) == 685
    # every rule set offers 5 playing actions: the product of its shape axes (the
    # SHAPE_FIELDS claim above) never offers only stand and hit
    shape_axes = [(n, v) for n, v in space.axes if n in SHAPE_FIELDS]
    for values in itertools.product(*(v for _, v in shape_axes)):
        rules = space.base.replace(**dict(zip([n for n, _ in shape_axes], values, strict=True)))
        assert not play.stand_hit_only(rules)
    assert all(r.decks is None and r.double is not DoubleRule.NEVER for r in space)


def test_the_exact_analysis_grades_every_rule_set_of_the_default_space() -> None:
    from blackjack_env.analysis import solve
    from blackjack_env.analysis.model import check_supported

    space = default_space()
    for rules in space:
        check_supported(rules)
    # solve runs on every value of every axis (the rest as the base)
    for axis, values in space.axes:
        for value in values:
            result = solve(space.base.replace(**{axis: value}))
            assert -0.5 < result.expected_return < 0.5, (axis, value)


# ------------------------------------------------------------------ the held-out set
def test_the_held_out_file_is_the_regenerated_list() -> None:
    name = held_out_file("v1")
    text = resources.files("blackjack_env.engine").joinpath(name).read_text(encoding="utf-8")
    assert json.loads(text) == held_out_document("v1")


def test_the_held_out_set_is_fixed_distinct_and_held_out() -> None:
    space = default_space()
    rules = held_out()
    assert rules is held_out("v1") and len(rules) == HELD_OUT_SIZE == 256
    assert len(set(rules)) == 256  # no duplicates
    keys = [space.key(r) for r in rules]
    assert keys == sorted(keys)  # the first 256 of the held-out class in key order
    assert list(rules) == list(space.held_out_rules()[:256])
    for r in rules:
        assert space.contains(r) and space.is_held_out(r)
        assert int(space.key(r)[:16], 16) % 8 == 0
    # it spans the space: every axis value occurs in it
    for axis, values in space.axes:
        assert {getattr(r, axis) for r in rules} == set(values), axis


def test_the_held_out_set_is_disjoint_from_training_draws() -> None:
    space = default_space()
    drawn = set(space.sample_many(np.random.default_rng(2026), 100_000))
    assert drawn.isdisjoint(held_out())
    # by construction: the sampler rejects every held-out rule set, not only these 256
    assert not any(space.is_held_out(r) for r in drawn)
    assert len(drawn) == space.training_size  # 100,000 draws reach every training set


def test_a_key_reads_only_the_axes() -> None:
    space = default_space()
    rules = held_out()[0]
    point = {n: rules.to_dict()[n] for n in space.axis_names}
    text = json.dumps(point, sort_keys=True, separators=(",", ":"))
    import hashlib

    assert space.key(rules) == hashlib.sha256(text.encode()).hexdigest()
    with pytest.raises(ValueError, match=r"^rules outside the space 'default-v1'"):
        space.key(preset("vegas-strip"))


def test_a_space_without_hold_out_draws_everything() -> None:
    space = small_space()
    assert space.training_size == space.size and space.held_out_rules() == ()
    drawn = Counter(space.sample_many(np.random.default_rng(0), 3000))
    assert set(drawn) == set(space)
    assert all(field in FIELD_NAMES for field in space.axis_names)
