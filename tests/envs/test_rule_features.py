"""The rule features: one fixed-length [0, 1] encoding of a rule set, defined once."""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.engine import PRESETS, Rules, default_space, preset
from blackjack_env.engine.rules import FIELD_NAMES
from blackjack_env.envs.tables import build_tables
from blackjack_env.envs.view import fields
from blackjack_env.envs.view.fields import (
    RULE_FEATURE_TABLE,
    RULE_FEATURES,
    RULES_SIZE,
    append_rules,
    rule_features,
    rules_space,
)

#: Fields the features leave out on purpose (table limits, documented in fields.py).
NOT_ENCODED = {"max_seats", "min_bet", "max_bet"}

#: A second value for every encoded field of the standard rules (valid alone).
OTHER_VALUE = {
    "decks": 2,
    "seats_per_deck": 3,
    "penetration": 0.6,
    "dealer_hits_soft_17": True,
    "hole_card": "no-peek",
    "blackjack_payout": "6:5",
    "natural_beats_21": False,
    "dealer_natural_beats_21": False,
    "natural_ends_hand": False,
    "natural_paid_at_deal": True,
    "blackjack_after_split": True,
    "ties": "dealer-wins",
    "settlement": "highest-hand",
    "double": "10-11",
    "double_after_split": False,
    "max_split_hands": 3,
    "resplit_aces": True,
    "hit_split_aces": True,
    "split_by": "value",
    "split_bet": "halve",
    "surrender": "late",
    "insurance": True,
    "auto_stand_21": False,
    "bet_raising": True,
    "seats": 3,
    "card_values": {"J": 1, "Q": 2, "K": 3},
}


def test_the_names_and_the_table_agree() -> None:
    assert len(RULE_FEATURES) == RULES_SIZE == len(set(RULE_FEATURES)) == 50
    assert tuple(name for name, _ in RULE_FEATURE_TABLE) == RULE_FEATURES
    assert all(meaning for _, meaning in RULE_FEATURE_TABLE)
    assert set(OTHER_VALUE) == set(FIELD_NAMES) - NOT_ENCODED


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_shape_dtype_and_bounds(name: str) -> None:
    features = rule_features(preset(name))
    assert features.shape == (RULES_SIZE,) and features.dtype == np.float32
    assert ((features >= 0) & (features <= 1)).all()
    assert rules_space().contains(features)
    # each one-hot group holds exactly one 1
    groups: dict[str, list[float]] = {}
    for feature, value in zip(RULE_FEATURES, features, strict=True):
        if "=" in feature:
            groups.setdefault(feature.split("=")[0], []).append(float(value))
    assert set(groups) == {"hole_card", "ties", "settlement", "double", "split_by",
                           "split_bet", "surrender"}
    assert all(sorted(v)[-1] == 1.0 and sum(v) == 1.0 for v in groups.values())


def test_some_entries_by_hand() -> None:
    f = dict(zip(RULE_FEATURES, rule_features(preset("vegas-strip")).tolist(), strict=True))
    assert f["infinite_deck"] == 0 and f["decks"] == 6 / 8 and f["penetration"] == 0.75
    assert f["surrender=late"] == 1 and f["hole_card=peek"] == 1
    assert f["blackjack_payout"] == pytest.approx(0.6)  # 1.5 / 2.5
    assert f["max_split_hands"] == pytest.approx(3 / 7)
    assert f["value_T"] == 1.0 and f["value_2"] == pytest.approx(0.2)
    g = dict(zip(RULE_FEATURES, rule_features(preset("sutton-barto")).tolist(), strict=True))
    assert g["infinite_deck"] == 1 and g["decks"] == 0 and g["penetration"] == 0
    assert g["blackjack_payout"] == 0.5 and g["double=never"] == 1 and g["max_split_hands"] == 0


@pytest.mark.parametrize("field", sorted(OTHER_VALUE))
def test_every_encoded_field_changes_the_features(field: str) -> None:
    base = Rules(insurance=False, max_split_hands=2)
    changes = {field: OTHER_VALUE[field]}
    if field == "natural_paid_at_deal":
        changes["natural_ends_hand"] = True
    if field == "seats":
        changes["max_seats"] = 7
    other = base.replace(**changes)
    assert not np.array_equal(rule_features(base), rule_features(other))


def test_the_default_space_has_one_feature_row_per_rule_set() -> None:
    space = default_space()
    rows = np.stack([rule_features(r) for r in space])
    assert rows.shape == (space.size, RULES_SIZE)
    assert np.unique(rows, axis=0).shape[0] == space.size  # every pair differs


def test_append_rules_one_table_and_a_batch() -> None:
    features = rule_features(preset("vegas-strip"))
    obs = np.arange(fields.VECTOR_SIZE, dtype=np.float32) / 100
    one = append_rules(obs, features)
    assert one.shape == (fields.VECTOR_SIZE + RULES_SIZE,) and one.dtype == np.float32
    assert np.array_equal(one[: fields.VECTOR_SIZE], obs)
    assert np.array_equal(one[fields.VECTOR_SIZE :], features)
    batch = np.stack([obs, obs + 0.5])
    other = rule_features(preset("sutton-barto"))
    per_table = append_rules(batch, np.stack([features, other]))
    shared = append_rules(batch, features)
    assert per_table.shape == shared.shape == (2, fields.VECTOR_SIZE + RULES_SIZE)
    assert np.array_equal(per_table[1, fields.VECTOR_SIZE :], other)
    assert np.array_equal(shared[1, fields.VECTOR_SIZE :], features)


def test_the_spaces_with_rules() -> None:
    for mode, plain in (("vector", fields.VECTOR_SIZE), ("features", fields.FEATURES_SIZE)):
        space = fields.observation_space(mode, 4, 1, 5, observe_rules=True)
        assert space.shape == (plain + RULES_SIZE,)
        assert space.low[plain:].tolist() == [0.0] * RULES_SIZE
        assert space.high[plain:].tolist() == [1.0] * RULES_SIZE
    d = fields.observation_space("dict", 4, 1, 5, observe_rules=True)
    assert set(d.spaces) == {*fields.DICT_KEYS, fields.DICT_RULES_KEY}
    assert d[fields.DICT_RULES_KEY] == rules_space()


def test_the_rule_tables_carry_the_features() -> None:
    for name in ("vegas-strip", "sutton-barto", "terminal-21"):
        rules = preset(name)
        tables = build_tables(rules.replace(bet_raising=False))
        assert np.array_equal(tables.rule_features, rule_features(tables.rules))
        assert not tables.rule_features.flags.writeable


def test_wrong_input() -> None:
    with pytest.raises(ValueError, match=r"^rule_features needs a Rules, got str"):
        rule_features("vegas-strip")  # type: ignore[arg-type]
