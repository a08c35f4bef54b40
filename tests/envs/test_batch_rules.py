"""Each batched table under its own rules (a batch built from a RuleBank): every table plays
exactly as a single-rule batch of its rules would.

Two contracts. Mixed: tables under random rule sets of a space, dealt stacked cards and
played with the same random legal decisions, match, table for table, single-rule batches
of their rules (legal decisions, totals, phases, rewards, outcomes, the dealer) over
several rounds, the rules changing between them. Uniform: a bank batch whose tables all
play one rule set (not the bank's first) reproduces the single-rule batch of that rule set
bit for bit from the same generator, random cards and all (the infinite deck's dealer
sampling, finite shoes' draws and reshuffles included).
"""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.engine import ALL_CARDS, Grid, Rules, RuleSpace, default_space
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.tables import RuleBank, build_tables
from blackjack_env.envs.vector.random_legal import random_legal_actions
from tests.envs.vector_helpers import CardIds

#: A finite-shoe space that varies nearly every flag a batched table branches on.
FINITE = RuleSpace(
    Rules(decks=2, insurance=False, seats=1),
    {
        "hole_card": ("peek", "no-peek", "none"),
        "surrender": ("none", "late", "early"),
        "ties": ("push", "dealer-wins", "player-loses"),
        "natural_beats_21": (True, False),
        "dealer_natural_beats_21": (True, False),
        "natural_paid_at_deal": (False, True),
        "blackjack_after_split": (False, True),
        "settlement": ("dealer", "highest-hand"),
        "double": ("any", "10-11"),
        "max_split_hands": (1, 2, 4),
        "resplit_aces": (False, True),
        "hit_split_aces": (False, True),
        "split_by": ("rank", "value"),
        "auto_stand_21": (True, False),
        "dealer_hits_soft_17": (False, True),
        "blackjack_payout": ("3:2", "6:5"),
        "card_values": ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10),
                        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3)),
        "penetration": Grid(0.3, 0.9, 0.3),
    },
    name="finite-test",
)
#: Insurance decisions and halved split bets (every rule set offers insurance: a peek).
INSURED = RuleSpace(
    Rules(decks=None, insurance=True, max_split_hands=2, split_bet="halve"),
    {"surrender": ("none", "late", "early"), "natural_ends_hand": (True, False),
     "dealer_hits_soft_17": (False, True), "blackjack_payout": ("3:2", "1:1", "7:5")},
    name="insured-test",
)
#: Finite bankrolls and bet sizes: chips kept exact in the space's unit (6:5 and 3:2).
BANKROLL = RuleSpace(
    Rules(decks=6, insurance=True),
    {"blackjack_payout": ("3:2", "6:5"), "surrender": ("none", "late", "early"),
     "double": ("any", "9-11")},
    name="bankroll-test",
)
CONFIGS = {
    "default": (default_space(), {}),
    "finite": (FINITE, {}),
    "insured": (INSURED, {"bet": 2, "insurance_decisions": True}),
    "bankroll": (BANKROLL, {"bet_sizes": (1, 2, 4), "bankroll": 40,
                            "insurance_decisions": True}),
}


def _batches(space: RuleSpace, kw: dict, n: int, seed: int) -> tuple[RuleBank, TableBatch]:
    bank = RuleBank(space, **kw)
    return bank, TableBatch.from_bank(bank, n, np.random.default_rng(seed))


def _single(rules: Rules, kw: dict, n: int, seed: int) -> TableBatch:
    tables = build_tables(rules, **kw)
    return TableBatch.from_tables(tables, n, np.random.default_rng(seed))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_mixed_tables_play_as_single_rule_batches(name: str) -> None:
    space, kw = CONFIGS[name]
    n, rounds = 240, 3
    rng = np.random.default_rng(17)
    bank, mixed = _batches(space, kw, n, seed=1)
    decisions = 0
    for _ in range(rounds):
        # 30 rule sets a round (a new draw each round), 8 tables each on average
        pool = space.sample_indices(rng, 30)
        index = pool[rng.integers(pool.size, size=n)]
        mixed.clear_stacks(np.arange(n))  # last round's stacked cards not dealt
        mixed.set_rules(np.arange(n), bank.slots(index))
        if kw.get("bankroll") is not None:  # a new session, as each reference batch's
            mixed.set_chips(np.arange(n), kw["bankroll"])
        rules_of = [space.rules_at(int(i)) for i in index]
        stacks = [CardIds(r, rng, 90).ids for r in rules_of]
        mixed.start_rounds(np.arange(n), {t: [ALL_CARDS[c] for c in s]
                                          for t, s in enumerate(stacks)})
        # one single-rule batch per rule set drawn, its tables in the mixed batch's order
        groups: dict[int, np.ndarray] = {}
        for i in np.unique(index).tolist():
            groups[i] = np.flatnonzero(index == i)
        refs = {}
        for i, where in groups.items():
            ref = _single(space.rules_at(i), kw, where.size, seed=2)
            ref.start_rounds(np.arange(where.size), {k: [ALL_CARDS[c] for c in stacks[t]]
                                                     for k, t in enumerate(where)})
            refs[i] = ref
        finished = np.zeros(n, dtype=bool)
        for _step in range(40):
            mask = mixed.legal_mask()
            total, soft, ncards = mixed.current_totals()
            for i, where in groups.items():
                ref = refs[i]
                assert np.array_equal(ref.legal_mask(), mask[where]), (name, i)
                assert np.array_equal(ref.phase, mixed.phase[where])
                r_total, r_soft, r_ncards = ref.current_totals()
                assert np.array_equal(r_total, total[where])
                assert np.array_equal(r_soft, soft[where])
                assert np.array_equal(r_ncards, ncards[where])
                assert np.array_equal(ref.dealer_up_value(), mixed.dealer_up_value()[where])
                assert np.array_equal(ref.peek_possible, mixed.peek_possible[where])
            actions = random_legal_actions(rng, mask)
            over, reward = mixed.step(actions)
            for i, where in groups.items():
                ref = refs[i]
                r_over, r_reward = ref.step(actions[where])
                assert np.array_equal(r_over, over[where]), (name, i)
                assert np.array_equal(r_reward, reward[where]), (name, i, space.rules_at(i))
                h = ref.max_hands
                assert np.array_equal(ref.nhands, mixed.nhands[where])
                held = np.arange(h)[:, None] < ref.nhands[None, :]  # (later hands: stale)
                assert np.array_equal(np.where(held, ref.outcome, -9),
                                      np.where(held, mixed.outcome[:h, where], -9))
                assert np.array_equal(ref.d_hard, mixed.d_hard[where])
                assert np.array_equal(ref.hole_revealed, mixed.hole_revealed[where])
                assert np.array_equal(ref.insurance_net, mixed.insurance_net[where])
                if ref.bankroll is not None:  # the same chips (kept in other units)
                    assert np.array_equal(ref.chips(np.arange(where.size)), mixed.chips(where))
            decisions += int(np.count_nonzero(~finished))
            finished |= over
            if finished.all():
                break
        assert finished.all()
    assert decisions > n * rounds
    assert len(set(bank.rules)) == bank.size > (60 if name in ("default", "finite") else 10)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_a_bank_batch_under_one_rule_set_is_the_single_rule_batch(name: str) -> None:
    """Random cards from the same generator: the same game, bit for bit."""
    space, kw = CONFIGS[name]
    n = 512
    picks = space.sample_indices(np.random.default_rng(3), 4)
    for index in picks.tolist():
        bank = RuleBank(space, **kw)
        slot = int(bank.slots(np.array([index]))[0])
        assert slot > 0  # not the bank's first: every lookup is offset
        mixed = TableBatch.from_bank(bank, n, np.random.default_rng(5))
        mixed.set_rules(np.arange(n), np.full(n, slot), new_shoes=False)
        ref = _single(space.rules_at(index), kw, n, seed=5)
        for batch in (mixed, ref):
            batch.start_rounds(np.arange(n))
        act_rng = np.random.default_rng(6)
        for _ in range(60):
            mask = ref.legal_mask()
            assert np.array_equal(mask, mixed.legal_mask())
            actions = random_legal_actions(act_rng, mask)
            r_over, r_reward = ref.step(actions)
            over, reward = mixed.step(actions)
            assert np.array_equal(r_over, over) and np.array_equal(r_reward, reward), (name, index)
            assert np.array_equal(ref.pos, mixed.pos)
            assert np.array_equal(ref.shuffles, mixed.shuffles)
            ended = np.flatnonzero(over)
            if ref.bankroll is not None:
                assert np.array_equal(ref.chips(np.arange(n)), mixed.chips(np.arange(n)))
            if ended.size:
                bets = None
                if kw.get("bet_sizes"):  # a size each, as a BET step would place it
                    bets = np.array(kw["bet_sizes"])[act_rng.integers(3, size=ended.size)]
                ref.start_rounds(ended, bets=bets)
                mixed.start_rounds(ended, bets=bets)


def test_seats_per_table_under_mixed_rules() -> None:
    """Three learner seats per table, every table under its own rule set (stacked)."""
    space = RuleSpace(Rules(decks=None, insurance=False, seats=3),
                      {"hole_card": ("peek", "none"), "surrender": ("none", "late"),
                       "dealer_hits_soft_17": (False, True), "max_split_hands": (2, 4)})
    seats, tables = 3, 48
    n = seats * tables
    rng = np.random.default_rng(4)
    bank = RuleBank(space)
    mixed = TableBatch.from_bank(bank, n, np.random.default_rng(0))
    index = np.repeat(space.sample_indices(rng, tables), seats)
    mixed.set_rules(np.arange(n), bank.slots(index))
    stacks = {t * seats: [ALL_CARDS[c] for c in CardIds(space.base, rng, 90).ids]
              for t in range(tables)}
    mixed.start_rounds(np.arange(n), stacks)
    refs = {}
    for i in np.unique(index).tolist():
        rows = np.flatnonzero(index == i)
        ref = _single(space.rules_at(i), {}, rows.size, seed=0)
        ref.start_rounds(np.arange(rows.size),
                         {k: stacks[int(r)] for k, r in enumerate(rows) if r % seats == 0})
        refs[i] = (rows, ref)
    for _ in range(80):
        mask = mixed.legal_mask()
        acting = mixed.acting()
        for rows, ref in refs.values():
            assert np.array_equal(ref.acting(), acting[rows])
            assert np.array_equal(ref.legal_mask(), mask[rows])
        actions = random_legal_actions(rng, mask)
        over, reward = mixed.step(actions)
        for rows, ref in refs.values():
            r_over, r_reward = ref.step(actions[rows])
            assert np.array_equal(r_over, over[rows]) and np.array_equal(r_reward, reward[rows])
        if np.count_nonzero(mixed.phase != 2) == 0:
            break
    assert np.count_nonzero(mixed.phase != 2) == 0  # every round played out


def test_what_a_bank_batch_refuses() -> None:
    varied = RuleSpace(Rules(decks=2, insurance=False), {"decks": (2, 6)})
    bank = RuleBank(varied)
    with pytest.raises(ValueError, match=r"^the batched tables play one shoe size per batch"):
        TableBatch.from_bank(bank, 4, np.random.default_rng(0))
    single = TableBatch(Rules(decks=None), 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^set_rules needs a batch built from a RuleBank"):
        single.set_rules(np.arange(2), np.zeros(2, dtype=np.int64))


def test_a_bank_batch_pickles_and_plays_on_the_same() -> None:
    import pickle

    space = default_space()
    bank, batch = _batches(space, {}, 64, seed=9)
    rng = np.random.default_rng(9)
    batch.set_rules(np.arange(64), bank.slots(space.sample_indices(rng, 64)))
    batch.start_rounds(np.arange(64))
    copy = pickle.loads(pickle.dumps(batch))
    for _ in range(30):
        mask = batch.legal_mask()
        assert np.array_equal(mask, copy.legal_mask())
        actions = random_legal_actions(rng, mask)
        a, b = batch.step(actions), copy.step(actions)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        ended = np.flatnonzero(a[0])
        if ended.size:
            drawn = space.sample_indices(rng, ended.size)
            for x in (batch, copy):  # each its own bank (the copy's was pickled with it)
                assert x.bank is not None
                x.set_rules(ended, x.bank.slots(drawn))
                x.start_rounds(ended)
