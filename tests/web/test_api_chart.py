"""The chart view's data (``GET /api/chart``) against the analysis, and the run view's
(``GET /api/runs``)."""

from __future__ import annotations

import json

import pytest

from blackjack_env.analysis import solve
from blackjack_env.engine import Action, preset
from blackjack_env.web.values import analysis_rules
from tests.web.helpers import client, make_app, sit


class Stander:
    """An 'agent' that stands on every cell (asked as the analysis asks: a state policy)."""

    obs_mode = "tuple"

    def state_policy(self, state) -> Action:
        return Action.STAND


@pytest.mark.parametrize("name", ["vegas-strip", "downtown-h17"])
def test_the_chart_is_the_analysis_optimum_with_its_values(name):
    app = make_app(agents={"stander": Stander()})
    browser = client(app)
    sit(browser, preset=name, players=["person"])
    doc = browser.get("/api/chart").json()
    sol = solve(analysis_rules(preset(name)).replace(decks=None))
    assert doc["preset"] == name and doc["chart"] == sol.chart.to_dict()
    chart = sol.chart
    for kind, table in (("hard", chart.hard), ("soft", chart.soft), ("pair", chart.pairs)):
        for i, row in enumerate(table):
            for j, up in enumerate(chart.upcards):
                cell = doc["cells"][kind][i][j]
                evs = sol.action_evs[(kind, row, up)]
                assert cell["evs"] == {a.name.lower(): round(v, 6) for a, v in evs.items()}
                ranked = sorted(evs.values(), reverse=True)
                assert cell["gap"] == pytest.approx(ranked[0] - ranked[1], abs=1e-6)
    # printed basic strategy, checked by hand: hard 11 v 6 doubles; 8,8 splits v 9;
    # hard 12 v 4 stands; hard 16 v T surrenders (late surrender) else hits
    cols = chart.upcards
    assert doc["chart"]["hard"]["11"][cols.index("6")] == "D"
    assert doc["chart"]["pairs"]["8"][cols.index("9")] == "P"
    assert doc["chart"]["hard"]["12"][cols.index("4")] == "S"
    surrender = preset(name).surrender.value != "none"
    assert doc["chart"]["hard"]["16"][cols.index("T")] == ("Rh" if surrender else "H")
    # an agent beside it: every cell it plays differently, with its exact cost
    doc = browser.get("/api/chart?agent=stander").json()
    differ = {(d["kind"], d["row"], d["upcard"]): d for d in doc["agent"]["differ"]}
    expect = {}
    for kind, table in (("hard", chart.hard), ("soft", chart.soft), ("pair", chart.pairs)):
        for row, plays in table.items():
            for j, play in enumerate(plays):
                asked = not (kind in ("hard", "soft") and row == 21)  # a 21 stands itself
                if play.value != "S" and asked:
                    evs = sol.action_evs[(kind, row, cols[j])]
                    expect[(kind, str(row), cols[j])] = max(evs.values()) - evs[Action.STAND]
    assert set(differ) == set(expect)
    for key, cost in expect.items():
        assert differ[key]["agent"] == "S" and differ[key]["cost"] == pytest.approx(cost, abs=1e-6)
        assert differ[key]["cost"] > 0


def test_chart_without_a_table_and_refusals():
    app = make_app()
    browser = client(app)
    doc = browser.get("/api/chart?preset=terminal-21").json()  # highest hand: labelled
    assert "dealer alone" in doc["note"] and doc["chart"]["upcards"]
    for query, needle in (("?preset=nope", "unknown preset"), ("?agent=x", "no agent")):
        resp = browser.get("/api/chart" + query)
        assert resp.status_code == 400 and needle in resp.json()["error"]


def test_the_run_view_reads_the_run_folders_given(tmp_path):
    run = tmp_path / "q-run"
    run.mkdir()
    curve = {"blocks": [[1000, -0.2], [2000, -0.1]], "grades": [[1000, -0.05], [2000, -0.01]]}
    (run / "curve.json").write_text(json.dumps(curve))
    (run / "summary.json").write_text(json.dumps({"algo": "q-learning", "exact": None}))
    empty = tmp_path / "empty"
    empty.mkdir()
    app = make_app(runs={"q-run": run, "empty": empty})
    docs = client(app).get("/api/runs").json()["runs"]
    assert docs[0]["curve"] == curve and docs[0]["summary"]["algo"] == "q-learning"
    assert docs[1]["problems"] == ["no summary.json", "no curve.json"]


#: a summary.json as blackjack-train writes it (q-learning, sutton-barto), its figures at
#: full float precision and the model's absolute path
def _summary(run) -> dict:
    return {
        "algo": "q-learning", "rules": "sutton-barto",
        "rules_summary": "infinite deck, S17, BJ 1:1, hole card: no-peek", "obs_mode": "tuple",
        "hands": 50000, "budget_hands": 50000, "seconds": 5.78, "finished": True,
        "states": 280,
        "exact": {"exact_return": -0.04989510647417923, "optimal_return": -0.04311310541347696,
                  "regret": 0.006782001060702272, "split_states_depending_on_hand_index": 2,
                  "regret_if_split_hands_play_as_index": {"0": 0.006782001060702272,
                                                          "1": 0.007018204337612394}},
        "exact_unavailable": None, "model": str(run / "model.npz"),
        "checkpoints": str(run.parent / "elsewhere" / "ck"), "lr_schedule": [0.1, 0.05],
    }


def test_the_run_view_names_the_model_and_rounds_the_figures(tmp_path):
    """Issue 33, item 8: the run view showed summary.json as it is: the model's absolute
    path (the --agent help promises names, never paths) and 16-digit floats. The server
    now sends the summary as labelled lines with rounded figures, and no path at all."""
    run = tmp_path / "secret-home" / "q-run"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps(_summary(run)))
    (run / "curve.json").write_text(json.dumps({"blocks": [], "grades": [[1000, -0.05]]}))
    app = make_app(runs={"q-run": run})
    resp = client(app).get("/api/runs")
    assert "secret-home" not in resp.text and str(tmp_path) not in resp.text
    doc = resp.json()["runs"][0]
    rows = dict(doc["rows"])
    assert rows == {
        "algorithm": "q-learning",
        "rules": "sutton-barto (infinite deck, S17, BJ 1:1, hole card: no-peek)",
        "observation": "tuple", "trained": "50,000 hands", "training time": "5.8 s",
        "finished": "yes", "states visited": "280",
        "exact return of the greedy policy (per unit bet)": "-0.04990",
        "optimal return (per unit bet)": "-0.04311", "regret": "0.00678",
        "split states depending on hand index": "2",
        "regret if split hands play as index · 0": "0.00678",
        "regret if split hands play as index · 1": "0.00702", "model": "model.npz",
        "checkpoints": "ck", "lr schedule": "0.10000, 0.05000",
    }
    assert [label for label, _ in doc["rows"]][:3] == ["algorithm", "rules", "observation"]
    assert doc["summary"]["model"] == "model.npz"  # the data too: no path
    assert doc["optimum"] == pytest.approx(-0.04311310541347696)
