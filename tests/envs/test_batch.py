"""Parity of the batched tables with the engine's Table, round by round on stacked shoes.

Every round is dealt from the same stacked cards at an engine ``Table`` and at one
table of a :class:`TableBatch`; both are played with the same randomly chosen legal
decisions. At every decision the legal sets, the current hand (total, softness,
cards) and the dealer's upcard must match; at the end the reward and every hand's
outcome must match exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from blackjack_env.engine import ALL_CARDS, Action, Phase, Rules, Table, preset
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.codes import OUTCOME_CODES, BatchPhase
from tests.envs.vector_helpers import CardIds

RULESETS: dict[str, Rules] = {
    "vegas-strip": preset("vegas-strip"),
    "vegas-infinite": preset("vegas-strip", decks=None),
    "atlantic-city": preset("atlantic-city"),
    "downtown-h17": preset("downtown-h17"),
    "single-deck-6to5": preset("single-deck-6to5"),
    "european": preset("european-no-hole-card"),
    "sutton-barto": preset("sutton-barto"),
    "gymnasium": preset("gymnasium"),
    "gymnasium-natural": preset("gymnasium-natural"),
    "ood-book": preset("ood-book", seats=1),
    "browser-game": preset("browser-game"),
    "how-to-play": preset("how-to-play"),
    "terminal-21": preset("terminal-21", seats=1, bet_raising=False),
    "early-surrender-rsa-hsa": Rules(
        decks=2, surrender="early", resplit_aces=True, hit_split_aces=True, max_split_hands=8
    ),
    "by-value-bas-dealer-wins": Rules(
        decks=4, split_by="value", blackjack_after_split=True, ties="dealer-wins",
        dealer_hits_soft_17=True, double="10-11", double_after_split=False,
    ),
    "no-peek-late-player-loses": Rules(
        decks=None, hole_card="no-peek", insurance=False, surrender="late",
        ties="player-loses", auto_stand_21=False, natural_ends_hand=False,
        dealer_natural_beats_21=False,
    ),
    "no-hole-early": Rules(decks=3, hole_card="none", insurance=False, surrender="early"),
    "natural-ties-21-peek": Rules(decks=2, natural_beats_21=False, surrender="late"),
    "custom-values-by-value": Rules(
        decks=4, card_values={"J": 1, "Q": 2, "K": 3}, split_by="value", resplit_aces=True,
        hit_split_aces=False, surrender="early",
    ),
    "one-hand-double-surrender": Rules(
        decks=6, max_split_hands=1, surrender="late", insurance=False
    ),
    "one-hand-infinite-no-peek": Rules(
        decks=None, max_split_hands=1, hole_card="no-peek", insurance=False,
        surrender="late", double="9-11", auto_stand_21=False,
    ),
    "highest-hand-peek-h17": Rules(
        decks=2, settlement="highest-hand", dealer_hits_soft_17=True, max_split_hands=3,
        ties="player-loses",
    ),
}

BETS = {"terminal-21": 2}


def _stack_ids(rules: Rules, rng: np.random.Generator, length: int) -> list[int]:
    """A card sequence with many pairs, aces and tens, valid for the rules' shoe."""
    cards = CardIds(rules, rng, length)
    seq, put = cards.ids, cards.put
    roll = rng.random(4)
    if roll[0] < 0.4:  # a pair for the player
        put(2, seq[0] % 13)
    if roll[1] < 0.3:  # an ace up
        put(1, 0)
    if roll[2] < 0.2:  # a pair of aces
        put(0, 0)
        put(2, 0)
    if roll[3] < 0.3:  # more pairs for resplits
        for k in (4, 5):
            put(k, seq[0] % 13)
    return seq


def _engine_state(table: Table) -> tuple:
    hand = table.current_hand
    return hand.total, hand.soft, len(hand.cards)


def _ranks(cards: list) -> list[int]:
    out = [0] * 13
    for card in cards:
        out[card.rank - 1] += 1
    return out


def _play(name: str, rules: Rules, rounds: int, seed: int, track: bool = False) -> int:
    rng = np.random.default_rng(seed)
    bet = BETS.get(name, 1)
    length = 52 if rules.shoe_decks == 1 else 90
    stacks = [_stack_ids(rules, rng, length) for _ in range(rounds)]
    batch = TableBatch(
        rules, rounds, np.random.default_rng(seed + 1), bet=bet, ask_insurance=True,
        track_cards=track,
    )
    batch.start_rounds(
        np.arange(rounds), {t: [ALL_CARDS[c] for c in s] for t, s in enumerate(stacks)}
    )
    tables = []
    for t in range(rounds):
        table = Table(rules, np.random.default_rng(seed + 2 + t))
        table.shoe.stack([ALL_CARDS[c] for c in stacks[t]])
        table.bet(0, bet)
        table.deal()
        tables.append(table)
    decisions = 0
    finished = np.zeros(rounds, dtype=bool)
    results = {}
    for _ in range(60):
        mask = batch.legal_mask()
        total, soft, ncards = batch.current_totals()
        actions = np.zeros(rounds, dtype=np.int64)
        for t, table in enumerate(tables):
            if finished[t]:
                continue
            if table.phase is Phase.SETTLED:
                assert batch.phase[t] == BatchPhase.OVER, (name, t)
                assert np.flatnonzero(mask[t]).tolist() == [Action.STAND]
                continue
            legal = table.legal_actions()
            assert sorted(int(a) for a in legal) == np.flatnonzero(mask[t]).tolist(), (
                name, t, table, legal, mask[t]
            )
            if track:  # the cards by rank: every hand, the dealer, the undealt shoe
                hands = table.seats[0].hands
                for h, hand in enumerate(hands):
                    assert batch.hand_ranks[h, t].tolist() == _ranks(hand.cards), (name, t)
                assert batch.dealer_ranks[t].tolist() == _ranks(table.dealer.cards)
                if rules.shoe_decks is not None:
                    assert batch.counts[t].tolist() == table.shoe.remaining_by_rank()
            if table.phase is Phase.PLAYER_TURNS:
                assert batch.phase[t] == BatchPhase.DECIDE
                assert (int(total[t]), bool(soft[t]), int(ncards[t])) == _engine_state(table)
            else:
                assert batch.phase[t] == BatchPhase.INSURE
            action = legal[int(rng.integers(len(legal)))]
            table.act(action)
            actions[t] = int(action)
            decisions += 1
        over, reward = batch.step(actions)
        for t in np.flatnonzero(over & ~finished):
            table = tables[t]
            assert table.phase is Phase.SETTLED, (name, t, table)
            assert reward[t] == float(table.seats[0].net / bet), (name, t, table)
            engine_out = {r.hand: r.outcome for r in table.seats[0].results}
            ours = {
                h: OUTCOME_CODES[batch.outcome[h, t]]
                for h in range(int(batch.nhands[t]))
                if batch.outcome[h, t] >= 0
            }
            assert ours == engine_out, (name, t, table)
            assert int(batch.nhands[t]) == len(table.seats[0].hands)
            assert batch.d_hard[t] == table.dealer.hard_total
            if track:
                assert batch.dealer_ranks[t].tolist() == _ranks(table.dealer.cards)
                for h, hand in enumerate(table.seats[0].hands):
                    assert batch.hand_ranks[h, t].tolist() == _ranks(hand.cards)
            used = int(batch.pos[t] - batch.round_start[t])
            assert used <= length
            results[t] = reward[t]
            finished[t] = True
        for t in np.flatnonzero(~over):
            assert tables[t].phase is not Phase.SETTLED or batch.phase[t] == BatchPhase.OVER
        if finished.all():
            break
    assert finished.all()
    return decisions


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_stacked_rounds_match_engine(name: str) -> None:
    decisions = _play(name, RULESETS[name], rounds=400, seed=7)
    assert decisions > 400


@pytest.mark.parametrize(
    "name", ["vegas-strip", "early-surrender-rsa-hsa", "european", "custom-values-by-value"]
)
def test_tracked_cards_match_engine(name: str) -> None:
    assert _play(name, RULESETS[name], rounds=200, seed=8, track=True) > 200


def test_round_after_a_split_round_reports_its_own_net() -> None:
    """A round's reward sums the hands it holds: after a round split into three hands
    (each +1: the dealer busts), the next round at the same table (one hand, +1) reports
    1, not the three hands' results again."""
    batch = TableBatch(preset("vegas-strip"), 1, np.random.default_rng(0))
    t = np.arange(1)
    # 8 8 against 6 (hole 10): split, the second 8 is split again; 11, 18, 17; dealer 26
    batch.start_rounds(t, {0: "8S 6D 8H TC 8D 3C TD 9C TH"})
    played = []
    while batch.phase[0] != BatchPhase.OVER:
        total, _, ncards = batch.current_totals()
        pair = ncards[0] == 2 and total[0] == 16
        action = Action.SPLIT if pair else Action.STAND
        played.append(action)
        over, reward = batch.step(np.array([action]))
    assert played == [Action.SPLIT, Action.SPLIT, Action.STAND, Action.STAND, Action.STAND]
    assert int(batch.nhands[0]) == 3
    assert over.tolist() == [True] and reward.tolist() == [3.0]
    # 10 9 against 7 (hole 10): stand, 19 beats 17
    batch.start_rounds(t, {0: "TS 7D 9S TC"})
    over, reward = batch.step(np.array([Action.STAND]))
    assert over.tolist() == [True] and reward.tolist() == [1.0]
    assert batch.round_net(t).tolist() == [1.0]
