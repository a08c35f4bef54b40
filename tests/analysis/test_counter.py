"""The perfect counter: dealing, pricing, resuming, and the report's arithmetic."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from blackjack_env.analysis import composition, composition_return, counter
from blackjack_env.analysis.counter import (
    CounterRound,
    counter_report,
    deal_rounds,
    perfect_counter,
    price_rounds,
)
from blackjack_env.engine import Rules

# one deck cut at half: shoes of a few rounds, so a few dozen rounds cross many shoes
RULES = Rules(decks=1, surrender="late")


def test_deal_is_deterministic_and_shoes_start_full() -> None:
    a = list(deal_rounds(RULES, 25, penetration=0.5, seed=4))
    b = list(deal_rounds(RULES, 25, penetration=0.5, seed=4))
    assert a == b
    assert a != list(deal_rounds(RULES, 25, penetration=0.5, seed=5))
    shoes = sorted({r.shoe for r in a})
    assert len(shoes) > 3 and shoes == list(range(len(shoes)))
    for r in a:
        if r.index == 0:  # a fresh shoe: every card unseen, a count of zero
            assert r.pool == (4,) * 13 and r.true_count == 0.0
    for prev, r in itertools.pairwise(a):
        if r.shoe == prev.shoe:
            assert r.index == prev.index + 1 and r.cards_left < prev.cards_left
            # the cut card: a round starts only before half the deck is dealt
            assert 52 - prev.cards_left < 26
        else:
            assert r.index == 0 and 52 - r.cards_left == 0
    # the Hi-Lo count of the cards seen: minus the tags of those not seen, per deck left
    for r in a:
        tags = [-1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1]
        running = -sum(t * n for t, n in zip(tags, r.pool, strict=True))
        assert r.true_count == pytest.approx(running * 52 / r.cards_left)


def test_each_round_is_priced_by_composition_return_of_its_pool() -> None:
    rounds = price_rounds(RULES, 6, penetration=0.5, seed=1)
    for r in rounds:
        assert r.edge == composition_return(RULES, list(r.pool)).expected_return


def test_store_resumes_without_pricing_again(tmp_path, monkeypatch) -> None:
    store = tmp_path / "c.jsonl"
    first = price_rounds(RULES, 5, penetration=0.5, seed=2, store=store)
    calls = []
    real = counter.composition_return

    def counting(rules, pool, **kw):
        calls.append(tuple(pool))
        return real(rules, pool, **kw)

    monkeypatch.setattr(counter, "composition_return", counting)
    more = price_rounds(RULES, 9, penetration=0.5, seed=2, store=store)
    assert len(calls) == 4  # only the rounds the store did not hold
    assert more[:5] == first
    fresh = price_rounds(RULES, 9, penetration=0.5, seed=2)
    assert [r.edge for r in more] == pytest.approx([r.edge for r in fresh], abs=0)
    lines = store.read_text().splitlines()
    assert len(lines) == 1 + 9 and json.loads(lines[0])["header"]["seed"] == 2


def test_an_interrupted_store_line_is_priced_again(tmp_path) -> None:
    store = tmp_path / "c.jsonl"
    price_rounds(RULES, 3, penetration=0.5, seed=2, store=store)
    with store.open("a") as f:
        f.write('{"shoe": 0, "rou')  # Ctrl-C in the middle of a line
    got = price_rounds(RULES, 4, penetration=0.5, seed=2)
    again = price_rounds(RULES, 4, penetration=0.5, seed=2, store=tmp_path / "c.jsonl")
    assert [r.edge for r in again] == [r.edge for r in got]
    lines = store.read_text().splitlines()
    assert len(lines) == 1 + 4 and all(json.loads(line) for line in lines)


def test_a_store_of_other_settings_is_refused_and_kept(tmp_path) -> None:
    store = tmp_path / "c.jsonl"
    price_rounds(RULES, 2, penetration=0.5, seed=2, store=store)
    before = store.read_bytes()
    with pytest.raises(ValueError, match="other settings"):
        price_rounds(RULES, 2, penetration=0.5, seed=3, store=store)
    with pytest.raises(ValueError, match="other settings"):
        price_rounds(RULES.replace(decks=2), 2, penetration=0.5, seed=2, store=store)
    assert store.read_bytes() == before


def test_a_store_priced_by_another_version_of_the_analysis_is_refused(tmp_path) -> None:
    """A store written before the split policy changed (its header has no method, or
    another one) holds other edges: resuming it would mix two analyses."""
    store = tmp_path / "c.jsonl"
    price_rounds(RULES, 2, penetration=0.5, seed=2, store=store)
    lines = store.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["header"]["method"] == composition.METHOD
    for old in ({k: v for k, v in header["header"].items() if k != "method"},
                {**header["header"], "method": composition.METHOD - 1}):
        store.write_text("\n".join([json.dumps({"header": old}), *lines[1:]]) + "\n")
        before = store.read_bytes()
        with pytest.raises(ValueError, match="another version of the analysis"):
            price_rounds(RULES, 2, penetration=0.5, seed=2, store=store)
        assert store.read_bytes() == before


def _rounds(edges, nets, shoes, tcs=None) -> list[CounterRound]:
    tcs = tcs or [0.0] * len(edges)
    return [CounterRound(s, i, (4,) * 13, tc, n, e)
            for i, (e, n, s, tc) in enumerate(zip(edges, nets, shoes, tcs, strict=True))]


def test_report_arithmetic_worked_by_hand() -> None:
    # four rounds in two shoes; edges -0.01, +0.02, -0.005, +0.01; nets -1, +1, +1.5, 0
    rounds = _rounds([-0.01, 0.02, -0.005, 0.01], [-1.0, 1.0, 1.5, 0.0], [0, 0, 1, 1],
                     tcs=[0.0, 5.0, 1.0, 3.0])
    rep = counter_report(rounds, spread=(1, 8),
                         bettors={"ramp": lambda r: 8 if r.true_count >= 4 else 2})
    ceiling = rep.row("ceiling: spread 1-8 on the exact edge, CD play")
    # bets 1, 8, 1, 8: net per round (−0.01 + 0.16 − 0.005 + 0.08) / 4, per unit / 18
    assert ceiling.per_round == pytest.approx(0.225 / 4)
    assert ceiling.per_unit == pytest.approx(0.225 / 18)
    assert rep.row("flat, CD play").per_round == pytest.approx(0.015 / 4)
    assert rep.row("flat, basic strategy").per_unit == pytest.approx(1.5 / 4)
    exact = rep.row("ramp: bets graded by the exact edge, CD play")
    sim = rep.row("ramp: simulated, basic strategy")
    # bets 2, 8, 2, 2
    assert exact.per_unit == pytest.approx((-0.02 + 0.16 - 0.01 + 0.02) / 14)
    assert sim.per_unit == pytest.approx((-2 + 8 + 3 + 0) / 14)
    # the interval from per-shoe residuals of the ratio: shoe sums of bet*value - r*bet
    r = sim.per_unit
    res = np.array([(-2 + 8) - r * 10, (3 + 0) - r * 4])
    want = 1.959963984540054 * np.sqrt(2 / 1 * (res**2).sum()) / 14
    assert sim.per_unit_ci == pytest.approx(want)
    assert rep.narrowing["ramp"] == pytest.approx(sim.per_unit_ci / exact.per_unit_ci)
    assert rep.rounds == 4 and rep.shoes == 2
    assert "| ceiling: spread 1-8" in rep.table()


def test_the_ceiling_is_above_every_bettor_of_the_spread_on_the_same_rounds() -> None:
    rng = np.random.default_rng(0)
    edges = rng.normal(-0.004, 0.01, 200)
    rounds = _rounds(list(edges), [0.0] * 200, [i // 20 for i in range(200)])
    bettors = {f"b{k}": (lambda r, k=k: 1 + (r.index * 7 + k) % 8) for k in range(5)}
    rep = counter_report(rounds, bettors=bettors)
    top = rep.row("ceiling: spread 1-8 on the exact edge, CD play").per_round
    for k in range(5):
        assert rep.row(f"b{k}: bets graded by the exact edge, CD play").per_round <= top


def test_report_refuses_unpriced_rounds_and_bad_bets() -> None:
    rounds = _rounds([0.01, -0.01], [1.0, -1.0], [0, 1])
    with pytest.raises(ValueError, match="edge"):
        counter_report([CounterRound(0, 0, (4,) * 13, 0.0, 1.0)])
    with pytest.raises(ValueError, match="not a positive number"):
        counter_report(rounds, bettors={"zero": lambda r: 0})
    with pytest.raises(ValueError, match="spread"):
        counter_report(rounds, spread=(8, 1))
    with pytest.raises(ValueError, match="finite shoe"):
        list(deal_rounds(Rules(decks=None), 1))


@pytest.mark.slow
def test_exact_grade_is_narrower_than_simulation_on_the_same_rounds() -> None:
    """On 400 rounds of one deck the exact-edge grade of a Hi-Lo ramp's bets has an
    interval several times narrower than the simulated result of the same bets."""
    rep = perfect_counter(RULES, 400, penetration=0.5, seed=0,
                          bettors={"hilo": lambda r: 8 if r.true_count >= 2 else 1})
    assert rep.narrowing["hilo"] > 3


def test_workers_price_the_same_edges_and_the_store_resumes_out_of_order(tmp_path) -> None:
    """Two spawned processes give the serial edges to the last bit; their store (lines in
    the order the pools finished) resumes, and stored_rounds reads it back in dealing
    order."""
    serial = price_rounds(RULES, 14, penetration=0.5, seed=6)
    store = tmp_path / "c.jsonl"
    seen: list[tuple[int, int]] = []
    parallel = price_rounds(RULES, 14, penetration=0.5, seed=6, store=store, workers=2,
                            progress=lambda done, total: seen.append((done, total)))
    assert parallel == serial
    assert seen[-1] == (14, 14) and all(b >= a for (a, _), (b, _) in itertools.pairwise(seen))
    # every shoe's first round is a full deck: priced once, stored for each shoe
    records = [json.loads(line) for line in store.read_text().splitlines()[1:]]
    assert sorted((r["shoe"], r["round"]) for r in records) == [(r.shoe, r.index)
                                                               for r in serial]
    assert counter.stored_rounds(RULES, 14, penetration=0.5, seed=6, store=store) == serial
    # a store holding some rounds: stored_rounds gives those, in dealing order
    keep = [lines for lines in store.read_text().splitlines()][:1] + [
        json.dumps(r) for r in records if r["round"] % 2 == 0]
    store.write_text("\n".join(keep) + "\n")
    held = counter.stored_rounds(RULES, 14, penetration=0.5, seed=6, store=store)
    assert held == [r for r in serial if r.index % 2 == 0]
    assert counter.stored_rounds(RULES, 14, penetration=0.5, seed=6,
                                 store=tmp_path / "none.jsonl") == []
    with pytest.raises(ValueError, match="workers"):
        price_rounds(RULES, 2, penetration=0.5, seed=6, workers=0)


def test_equal_pools_are_priced_once(monkeypatch) -> None:
    calls: list[tuple[int, ...]] = []
    real = counter.composition_return

    def counting(rules, pool, **kw):
        calls.append(tuple(pool))
        return real(rules, pool, **kw)

    monkeypatch.setattr(counter, "composition_return", counting)
    rounds = price_rounds(RULES, 12, penetration=0.5, seed=2)
    full = [r for r in rounds if r.index == 0]
    assert len(full) >= 2 and len(set(calls)) == len(calls)
    assert len(calls) == len({r.pool for r in rounds})


def test_ctrl_c_while_pricing_hands_back_what_was_priced(tmp_path, monkeypatch) -> None:
    """A KeyboardInterrupt while pricing comes out as PricingInterrupted (still a
    KeyboardInterrupt) holding the rounds priced, the same the store then holds."""
    store = tmp_path / "c.jsonl"
    real = counter.composition_return
    calls: list[int] = []

    def interrupting(rules, pool, **kw):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(rules, pool, **kw)

    monkeypatch.setattr(counter, "composition_return", interrupting)
    with pytest.raises(KeyboardInterrupt) as stop:
        price_rounds(RULES, 12, penetration=0.5, seed=2, store=store)
    assert isinstance(stop.value, counter.PricingInterrupted)
    held = stop.value.priced
    dealt = list(deal_rounds(RULES, 12, penetration=0.5, seed=2))
    first_pools = list(dict.fromkeys(r.pool for r in dealt))[:3]
    assert [(r.shoe, r.index) for r in held] == [
        (r.shoe, r.index) for r in dealt if r.pool in first_pools]
    assert held == counter.stored_rounds(RULES, 12, penetration=0.5, seed=2, store=store)


def test_check_store_refuses_what_price_rounds_would_and_names_what_differs(tmp_path):
    store = tmp_path / "c.jsonl"
    counter.check_store(RULES, store, penetration=0.5, seed=2)  # missing: passes
    price_rounds(RULES, 2, penetration=0.5, seed=2, store=store)
    before = store.read_bytes()
    counter.check_store(RULES, store, penetration=0.5, seed=2)
    with pytest.raises(ValueError, match=r"other settings \(different rules: decks\)"):
        counter.check_store(RULES.replace(decks=2), store, penetration=0.5, seed=2)
    with pytest.raises(ValueError, match=r"other settings \(different seed\)"):
        counter.check_store(RULES, store, penetration=0.5, seed=3)
    with pytest.raises(ValueError, match=r"\(different penetration; rules: penetration\)"):
        counter.check_store(RULES, store, penetration=0.6, seed=2)
    with pytest.raises(ValueError, match="other settings"):  # price_rounds: the same
        price_rounds(RULES, 2, penetration=0.5, seed=3, store=store)
    assert store.read_bytes() == before
    for first in ("5", "[1, 2]", '{"header": 1}', "not json"):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(first + "\n")
        with pytest.raises(ValueError, match="not a perfect-counter store"):
            counter.check_store(RULES, bad, penetration=0.5, seed=2)
        with pytest.raises(ValueError, match="not a perfect-counter store"):
            price_rounds(RULES, 2, penetration=0.5, seed=2, store=bad)
        assert bad.read_text() == first + "\n"
