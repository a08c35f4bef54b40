"""``blackjack-evaluate --rule-sets``: a model graded exactly on every rule set of a list,
as a user runs it, and every kind of wrong input refused in one line with nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.mlp import MLPAgent
from blackjack_env.agents.rule_sets import load_rule_sets
from blackjack_env.agents.tabular import QLearningAgent
from blackjack_env.commands import evaluate
from blackjack_env.engine import Rules, preset
from blackjack_env.engine.rulespace import RuleSpace, default_space, held_out
from blackjack_env.envs import view as V

VEGAS = preset("vegas-strip", decks=None, insurance=False)
LIST = [VEGAS, VEGAS.replace(dealer_hits_soft_17=True, surrender="early"),
        VEGAS.replace(blackjack_payout="6:5", hole_card="no-peek"),
        VEGAS.replace(double="10-11", max_split_hands=2)]


def tiny_model(folder: Path, *, observe_rules: bool = True, seed: int = 0) -> Path:
    """A randomly initialised policy that reads 'features' and the rule features."""
    rng = np.random.default_rng(seed)
    size = V.FEATURES_SIZE + (V.RULES_SIZE if observe_rules else 0)
    layers = [(rng.normal(0, 0.5, (size, 16)), rng.normal(0, 0.1, 16)),
              (rng.normal(0, 0.5, (16, 5)), rng.normal(0, 0.1, 5))]
    agent = MLPAgent(layers, obs_mode="features", observe_rules=observe_rules,
                     ignored=(V.VEC_HAND_INDEX,))
    return agent.save(folder / "model.npz")


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_model_graded_on_a_list_end_to_end(tmp_path: Path, monkeypatch: Any,
                                             capsys: Any) -> None:
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    model = tiny_model(run)
    rules_file = write(tmp_path / "four.json", [r.to_dict() for r in LIST])
    code = evaluate.main([str(model), "--rule-sets", str(rules_file), "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "grading" in err and "4 rule sets" in err
    for words in ("model.npz: 4 rule sets (four.json)\n  graded exactly", "mean regret",
                  "95% CI", "median regret", "worst", "costliest rule axes", "results:"):
        assert words in out, (words, out)
    written = run / "rule-sets-four.json"  # beside the model
    assert f"results: {written}" in out
    data = json.loads(written.read_text())
    assert data["n_rule_sets"] == 4 and data["rule_sets"] == "four.json"
    agent = MLPAgent.load(model)
    for grade, rules in zip(data["grades"], LIST, strict=True):
        assert Rules.from_dict(grade["rules"]) == rules
        alone = exact_grade(agent, rules)  # one rule set at a time, state by state
        assert alone is not None
        assert grade["regret"] == pytest.approx(alone["regret"], abs=1e-12)
    regrets = [g["regret"] for g in data["grades"]]
    assert data["mean_regret"] == pytest.approx(float(np.mean(regrets)), abs=1e-15)
    assert data["median_regret"] == float(np.median(regrets))
    assert data["worst"]["index"] == int(np.argmax(regrets))
    assert {a["axis"] for a in data["axes"]} == {
        "dealer_hits_soft_17", "surrender", "blackjack_payout", "hole_card", "double",
        "max_split_hands"}
    assert data["interval_method"].startswith("percentile bootstrap")
    # --json prints the same figures; --out writes them where asked
    code = evaluate.main([str(model), "--rule-sets", str(rules_file), "--workers", "1",
                          "--json", "--out", str(tmp_path / "o.json")])
    out, _ = capsys.readouterr()
    assert code == 0
    printed = json.loads(out)
    assert [g["regret"] for g in printed["grades"]] == regrets
    assert json.loads((tmp_path / "o.json").read_text())["grades"] == data["grades"]


def test_a_rule_space_file_grades_its_held_out_rule_sets(tmp_path: Path, monkeypatch: Any,
                                                       capsys: Any) -> None:
    """A fixed agent (basic strategy of --rules, on an infinite deck) on a RuleSpace file:
    its held-out rule sets, broken down by its axes."""
    monkeypatch.chdir(tmp_path)
    space = RuleSpace(VEGAS, {"dealer_hits_soft_17": (False, True),
                              "surrender": ("none", "late", "early"),
                              "blackjack_payout": ("3:2", "6:5")}, name="small", hold_out=2)
    held = space.held_out_rules()
    assert 2 <= len(held) < len(space)
    path = write(tmp_path / "space.json", space.to_dict())
    named = load_rule_sets(str(path))
    assert named.rules == tuple(held) and named.axes == space.axis_names
    code = evaluate.main(["basic", "--rules", "vegas-strip", "--rule-sets", str(path),
                          "--workers", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "basic (plays by vegas-strip, infinite deck)" in out
    written = tmp_path / "runs" / "rule-sets" / "basic-vegas-strip-rule-sets-space.json"
    data = json.loads(written.read_text())
    assert data["n_rule_sets"] == len(held) and data["plays_by"] == "vegas-strip, infinite deck"
    assert {a["axis"] for a in data["axes"]} <= set(space.axis_names)
    by_rules = {Rules.from_dict(g["rules"]): g["regret"] for g in data["grades"]}
    own = VEGAS.replace(insurance=True)  # basic's own rules (the preset offers insurance)
    if own.replace(insurance=False) in by_rules:
        assert by_rules[own.replace(insurance=False)] == pytest.approx(0.0, abs=1e-12)


def test_the_held_out_set_by_name() -> None:
    named = load_rule_sets("held-out")
    assert named.name == "held-out:v1" and named.rules == held_out("v1")
    assert len(named.rules) == 256 and named.axes == default_space("v1").axis_names
    assert load_rule_sets("held-out:v1") == named


def _model(tmp: Path) -> str:
    return str(tiny_model(tmp / "run"))


def _plain(tmp: Path) -> str:
    return str(tiny_model(tmp / "plain", observe_rules=False))


def _tabular(tmp: Path) -> str:
    return str(QLearningAgent(5, obs_mode="multidiscrete").save(tmp / "q" / "model.npz"))


def _list(tmp: Path, data: Any = None, text: str | None = None) -> str:
    path = tmp / "sets.json"
    path.write_text(text if text is not None else json.dumps(
        data if data is not None else [r.to_dict() for r in LIST]))
    return str(path)


# (how to build the arguments, text the one error line must contain)
WRONG: list[tuple[str, Any, str]] = [
    ("unknown set name", lambda t: [_model(t), "--rule-sets", "held-in"],
     "held-in: is no file and no set name; give held-out, held-out:v1"),
    ("unknown version", lambda t: [_model(t), "--rule-sets", "held-out:v9"],
     "held-out:v9: no such version"),
    ("not JSON", lambda t: [_model(t), "--rule-sets", _list(t, text="[{")], "not valid JSON"),
    ("a number", lambda t: [_model(t), "--rule-sets", _list(t, 5)],
     "not a list of rule sets"),
    ("an object", lambda t: [_model(t), "--rule-sets", _list(t, {"decks": 6})],
     "not a list of rule sets"),
    ("empty list", lambda t: [_model(t), "--rule-sets", _list(t, [])], "is empty"),
    ("a bad entry", lambda t: [_model(t), "--rule-sets",
                               _list(t, [VEGAS.to_dict(), {"deks": 6}])],
     "rule set 1 is not a rule set (unknown rule field(s) deks"),
    ("a finite shoe", lambda t: [_model(t), "--rule-sets",
                                 _list(t, [VEGAS.to_dict(), preset("vegas-strip").to_dict()])],
     "rule set 1 (6 decks"),
    ("highest hand", lambda t: [_model(t), "--rule-sets", _list(
        t, [VEGAS.replace(settlement="highest-hand").to_dict()])],
     "does not serve these rules"),
    ("a space holding nothing out", lambda t: [_model(t), "--rule-sets", _list(
        t, RuleSpace(VEGAS, {"surrender": ("none", "late")}).to_dict())],
     "holds out no rule set"),
    ("no rule features", lambda t: [_plain(t), "--rule-sets", _list(t)],
     "does not observe the rules"),
    ("cannot carry them", lambda t: [_tabular(t), "--rule-sets", _list(t)],
     "reads the multidiscrete observation, which cannot carry the rules"),
    ("a random agent", lambda t: ["random", "--rule-sets", _list(t)],
     "no deterministic policy"),
    ("the counter", lambda t: ["counter", "--rule-sets", _list(t)],
     "counter: a counter needs a finite shoe"),
    ("a single-table option", lambda t: [_model(t), "--rule-sets", _list(t), "--decks", "6"],
     "--decks belongs to the evaluation at one table"),
    ("rules for a model", lambda t: [_model(t), "--rule-sets", _list(t), "--rules",
                                     "vegas-strip"], "--rules vegas-strip: a saved model"),
    ("bad workers", lambda t: [_model(t), "--rule-sets", _list(t), "--workers", "-1"],
     "--workers -1"),
    ("bad out", lambda t: [_model(t), "--rule-sets", _list(t), "--out",
                           str(t / "old.json" / "x.json")], "old.json"),
]


@pytest.mark.parametrize(("what", "args", "words"), WRONG, ids=[w for w, _, _ in WRONG])
def test_wrong_input_is_one_line_and_writes_nothing(what: str, args: Any, words: str,
                                                    tmp_path: Path, monkeypatch: Any,
                                                    capsys: Any) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.json").write_text('{"kept": true}\n')
    argv = args(tmp_path)
    before = snapshot(tmp_path)
    code = evaluate.main(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert words in lines[0], lines[0]
    assert "Traceback" not in out + err
    assert snapshot(tmp_path) == before


@pytest.mark.slow  # 256 rule sets: 20-60 s on two cores
def test_the_page_figures_come_from_the_command(tmp_path: Path, monkeypatch: Any,
                                               capsys: Any) -> None:
    """docs/grading.md's figures for basic strategy of vegas-strip on the held-out set are
    this command's table, word for word (the grades are exact: nothing moves between
    runs or machines but the last digit of a float, which the table rounds)."""
    import re

    page = Path(__file__).resolve().parents[2] / "docs" / "data" / "rule-sets-figures.md"
    text = page.read_text()
    command = re.search(r"```bash\n(.*?)\n```", text, re.S)
    shown = re.search(r"```text\n(.*?)```", text, re.S)
    assert command is not None and shown is not None
    argv = command.group(1).split()
    assert argv[:1] == ["blackjack-evaluate"]
    monkeypatch.chdir(tmp_path)
    assert evaluate.main(argv[1:]) == 0
    out = capsys.readouterr().out
    table = out.split("\n  results: ")[0]
    assert table.strip() == shown.group(1).strip()


def test_a_model_that_observes_the_rules_plays_and_charts_one_table(
        tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """Without --rule-sets, blackjack-evaluate and blackjack-chart make the table's env
    with the rules in its observation, so such a model plays it and is graded exactly."""
    from blackjack_env.commands import chart

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    model = tiny_model(tmp_path / "run")
    code = evaluate.main([str(model), "--rules", "vegas-strip", "--decks", "inf", "--hands",
                          "200", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    alone = exact_grade(MLPAgent.load(model), VEGAS.replace(insurance=True))
    assert alone is not None
    assert result["exact"]["regret"] == pytest.approx(alone["regret"], abs=1e-12)
    assert chart.main([str(model), "--rules", "vegas-strip", "--decks", "inf"]) == 0
    assert (tmp_path / "run" / "chart.png").is_file()
