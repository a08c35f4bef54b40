"""The chart store (blackjack_env/analysis/data/finite_charts.json, written by
scripts/make_chart_store.py): the finite-shoe charts of the rule sets the presets are
played under, read by finite_chart instead of worked out again. Each stored chart must be
the chart the analysis works out now: two quick presets here, every one with -m slow
(terminal-21's takes about 15 s)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from blackjack_env.analysis.chart import Chart
from blackjack_env.analysis.finite import CHART_STORE, chart_store_key, finite_chart
from blackjack_env.analysis.strategy import nearest_supported_rules
from blackjack_env.engine import PRESETS, Rules, preset

STORE = Path(__file__).resolve().parents[2] / "blackjack_env/analysis/data" / CHART_STORE


def _stored() -> list[tuple[str, Rules, Chart]]:
    data = json.loads(STORE.read_text())
    return [(e["preset"], Rules.from_dict(e["rules"]), Chart.from_dict(e["chart"]))
            for e in data["charts"]]


def _played(name: str) -> Rules:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nearest_supported_rules(preset(name))[0]


def test_the_store_holds_every_finite_preset_once() -> None:
    keys = [chart_store_key(rules) for _, rules, _ in _stored()]
    assert len(keys) == len(set(keys))
    played = {chart_store_key(_played(n)) for n in PRESETS if preset(n).decks is not None}
    assert set(keys) == played


def _check(name: str) -> None:
    (rules, chart), = [(r, c) for n, r, c in _stored() if n == name]
    assert finite_chart(rules) == chart  # read from the store
    assert finite_chart(rules, stored=False) == chart  # worked out again


@pytest.mark.parametrize("name", ["ood-book", "how-to-play"])
def test_stored_charts_are_the_charts_worked_out(name: str) -> None:
    _check(name)


@pytest.mark.slow
def test_every_stored_chart_is_the_chart_worked_out() -> None:
    for name, _, _ in _stored():
        _check(name)


def test_a_rule_set_outside_the_store_is_worked_out() -> None:
    rules = _played("how-to-play").replace(decks=3)
    assert chart_store_key(rules) not in {chart_store_key(r) for _, r, _ in _stored()}
    assert finite_chart(rules) == finite_chart(rules, stored=False)


def test_a_chart_survives_its_dict() -> None:
    (_, _, chart), *_ = _stored()
    with_meta = Chart(chart.upcards, chart.hard, chart.soft, chart.pairs, "t", {"k": 1})
    assert Chart.from_dict(with_meta.to_dict()) == with_meta
    assert Chart.from_dict(json.loads(json.dumps(chart.to_dict()))) == chart
