"""The rule-table layer (envs/tables.py) and the one argument surface of the envs.

The tables are checked against the scalar engine's functions entry by entry (not against
the batch that reads them), the batch and the JAX params are checked to read them, and
the three env constructors are checked to take the same names, each wrong value's error
naming its argument.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

from blackjack_env.engine import play
from blackjack_env.engine.play import Action, Outcome, OutcomeCode
from blackjack_env.engine.rules import preset
from blackjack_env.envs import EnvArgs, EnvSettings, codes
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.codes import OUTCOME_CODES
from blackjack_env.envs.multiagent import BlackjackAECEnv
from blackjack_env.envs.single.env import BlackjackEnv
from blackjack_env.envs.tables import RuleTables, build_tables
from blackjack_env.envs.vector import BlackjackVectorEnv

CONFIGS = [
    {"rules": "vegas-strip"},
    {"rules": "sutton-barto"},
    {"rules": "european-no-hole-card"},
    {"rules": "vegas-strip", "insurance_decisions": True, "bankroll": 50, "bet_sizes": (1, 2, 4)},
    {"rules": preset("vegas-strip", blackjack_payout="6:5", surrender="early"), "bankroll": 20},
]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda k: str(k.get("rules"))[:20])
def test_tables_agree_with_the_scalar_engine(kwargs: dict) -> None:
    settings = EnvSettings.batched(**kwargs)
    t = RuleTables.from_settings(settings)
    rules = settings.rules
    # payouts by outcome code, in the engine's Outcome order
    for code in OutcomeCode:
        assert t.payouts[code] == float(play.payout(rules, OUTCOME_CODES[code]))
    # a standing hand's outcome by its key, against play.outcome of its categories
    w = t.hand_key_width
    for hard, ace, two in [(10, True, True), (10, True, False), (18, False, False),
                           (22, False, False), (7, True, False), (12, False, True)]:
        total = int(play.array_total(np.array(hard), np.array(ace)))
        nat = two and play.is_natural(2, hard, ace)
        for d_hard, d_ace, d_two in [(10, True, True), (17, False, False), (23, False, False),
                                     (9, True, False)]:
            d_total = int(play.array_total(np.array(d_hard), np.array(d_ace)))
            d_nat = d_two and play.is_natural(2, d_hard, d_ace)
            expected = play.outcome(
                rules, play.category(total, nat), play.category(d_total, d_nat)
            )
            got = t.by_hands[2 * hard + ace + w * two, 2 * d_hard + d_ace + w * d_two]
            assert OUTCOME_CODES[got] is expected
    # the dealer's drawing rule and its next key
    for hard in range(2, 22):
        for ace in (False, True):
            key = 2 * hard + ace
            total = int(play.array_total(np.array(hard), np.array(ace)))
            soft = bool(play.array_soft(np.array(hard), np.array(ace)))
            assert t.dealer_hits[key] == play.dealer_draws(rules, total, soft)
    # legality: the rows of a hand in play are play_action_table's, then STAND only
    assert np.array_equal(t.legal_table[: t.over_key],
                          play.play_action_table(rules, codes.NUM_CORE_ACTIONS))
    assert t.legal_table[t.over_key].tolist() == [a == Action.STAND for a in range(7)]
    assert t.legal_table_phase[t.over_key] == codes.PHASE_OVER
    assert (t.legal_table_phase[t.pre_peek_key : t.pre_peek_key + 26] == codes.PHASE_INSURE).all()
    if settings.bankroll is not None:  # the poor rows sit at their offsets
        poor = play.play_action_table(rules, codes.NUM_CORE_ACTIONS, afford_double=False)
        assert np.array_equal(
            t.legal_table[t.poor_play_offset : t.poor_play_offset + poor.shape[0]], poor
        )
        assert t.poor_pre_peek_offset + t.pre_peek_key == t.poor_play_offset + t.over_key
    else:
        assert t.poor_play_offset == 0 and not t.asks_pre_peek_poor.any()
    # bets, stakes and the layout's counts
    assert t.bet_chips.tolist() == [k * settings.bet for k in settings.bet_sizes]
    assert t.min_cost == settings.min_cost
    for m in range(t.stake_ok.shape[1]):
        assert t.stake_ok[1, m] == play.split_stake_ok(rules, m, True)
    env = BlackjackEnv(**kwargs)
    assert t.n_actions == env.action_space.n
    assert t.mask_rows.shape == (t.legal_table.shape[0], t.n_actions)
    # the arrays are read-only: no reader can change a rule
    for f in dataclasses.fields(RuleTables):
        value = getattr(t, f.name)
        if isinstance(value, np.ndarray):
            assert not value.flags.writeable, f.name


def test_the_batch_and_the_vector_env_read_the_tables() -> None:
    env = BlackjackVectorEnv(64, rules="vegas-strip", bankroll=3, insurance_decisions=True)
    env.reset(seed=1)
    assert env.batch is not None
    assert env.batch.tables is env.tables
    assert env.batch.legal_table is env.tables.legal_table
    # the env's mask of each sub-env is the tables' row of its batch key
    for _ in range(3):
        keys = env.batch.legal_keys()
        assert np.array_equal(env.action_masks(), env.tables.mask_rows[keys] == 1)
        env.step(np.ones(64, dtype=np.int64))
    env = BlackjackVectorEnv(4, rules="vegas-strip", bankroll=30, bet_sizes=(1, 2))
    # a batch built from settings or from the same values reads equal tables
    direct = TableBatch(preset("vegas-strip"), 2, np.random.default_rng(0), bet_sizes=(1, 2),
                        bankroll=30)
    for name in ("legal_table", "legal_table_phase", "by_hands", "mask_rows", "stake_ok"):
        assert np.array_equal(getattr(direct.tables, name), getattr(env.tables, name)), name


def test_codes_are_one_vocabulary() -> None:
    assert [OUTCOME_CODES[c] for c in OutcomeCode] == list(Outcome)
    assert [play.outcome_code(o) for o in Outcome] == list(OutcomeCode)
    assert codes.OUTCOME_SURRENDER == OutcomeCode.SURRENDER == 5
    assert codes.PHASE_OVER == codes.BatchPhase.OVER
    assert codes.ACTION_DECLINE == Action.DECLINE
    assert codes.TAKES_CARD.nonzero()[0].tolist() == [Action.HIT, Action.DOUBLE]


def test_build_tables_takes_plain_values() -> None:
    a = build_tables(preset("vegas-strip"), bet=2, bet_sizes=(1, 3))
    b = RuleTables.from_settings(EnvSettings.batched(rules="vegas-strip", bet=2, bet_sizes=(1, 3)))
    for name in (f.name for f in dataclasses.fields(RuleTables)):
        x, y = getattr(a, name), getattr(b, name)
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y, name


# ------------------------------------------------------------------ one argument surface
def test_decks_is_one_rule_override_in_every_env() -> None:
    single = gym.make("blackjack_env/Blackjack-v0", decks=2).unwrapped
    vec = BlackjackVectorEnv(2, decks=2)
    assert single.rules.decks == vec.rules.decks == 2
    assert BlackjackVectorEnv(2, decks=None).rules.shoe_decks is None
    assert BlackjackVectorEnv(2, rules=preset("vegas-strip", decks=4)).rules.decks == 4
    assert BlackjackAECEnv(num_seats=2, decks=1).rules.decks == 1
    for make in (lambda: BlackjackEnv(decks=0), lambda: BlackjackVectorEnv(2, decks="six")):
        with pytest.raises(ValueError, match=r"^decks="):
            make()


def test_the_vector_env_takes_env_args_whole() -> None:
    args = EnvArgs(rules="vegas-strip", bet_sizes=(1, 2), bankroll=40, obs_mode="vector")
    whole = BlackjackVectorEnv(2, args)
    keywords = BlackjackVectorEnv(2, rules="vegas-strip", bet_sizes=(1, 2), bankroll=40,
                                  obs_mode="vector")
    assert whole.settings == keywords.settings
    three = BlackjackVectorEnv(6, EnvArgs(rules="vegas-strip"), seats_per_table=3)
    assert three.rules.seats == 3
    with pytest.raises(ValueError, match="seat"):  # given whole, still refused by name
        BlackjackVectorEnv(6, EnvArgs(seat=1), seats_per_table=3)
    with pytest.raises(TypeError, match="args"):
        BlackjackVectorEnv(2, "vegas-strip")


BAD = [
    ("rules", "no-such-rules"),
    ("decks", -1),
    ("obs_mode", "bogus"),
    ("bet", 0),
    ("insurance_decisions", "yes"),
    ("illegal_penalty", -1.0),
    ("seats_per_table", 0),
    ("seats_per_table", 9),
    ("bet_sizes", (2, 1)),
    ("rounds_per_episode", 0),
    ("bankroll", -5),
    ("render_mode", "human"),
]


@pytest.mark.parametrize(("name", "value"), BAD, ids=lambda v: str(v))
def test_the_vector_env_names_the_wrong_argument(name: str, value: object) -> None:
    with pytest.raises(ValueError) as err:
        BlackjackVectorEnv(1, **{name: value})
    text = str(err.value)
    assert name in text or (name == "rules" and "preset" in text), text


@pytest.mark.parametrize(
    "module",
    ["blackjack_env.envs.tables", "blackjack_env.envs.codes", "blackjack_env.envs.batch",
     "blackjack_env.envs.batch.table"],
)
def test_each_module_imports_first(module: str) -> None:
    # the layer and the batch package import each other's modules: any may load first
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
