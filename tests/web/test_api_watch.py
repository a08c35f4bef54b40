"""Watch mode: bots play every seat, one step at a time; earlier frames can be read back;
a trained agent given at server start takes a seat; the command's options."""

from __future__ import annotations

import pytest

from blackjack_env.engine import Phase
from tests.web.helpers import check_conserved, client, game_of, make_app, post, sit


def test_watch_steps_one_decision_at_a_time_and_keeps_every_frame():
    app = make_app()
    browser = client(app)
    # 16 v 10 for the dealer-style seat: it hits (5 -> 21); basic stands on 20
    sit(browser, app=app, cards="TS KD TH 6C QS 7D 5H", mode="watch", preset="vegas-strip",
        players=["dealer", "basic"], overrides={"decks": None})
    game = game_of(app, browser)
    state = post(browser, "/api/step", {})  # the bets and the deal
    assert state["phase"] == "player_turns" and state["to_act"] == {"seat": 0, "hand": 0}
    assert state["seats"][0]["hands"][0]["bet"] == 10
    values = state["values"]
    assert values["available"] and values["source"].startswith("exact")
    frames = [state]
    while state["phase"] != "settled":
        state = post(browser, "/api/step", {})
        frames.append(state)
    assert [d["player"] for d in state["log"]] == ["dealer", "basic"]
    first = state["log"][0]
    assert first["action"] == "hit" and first["best"] in ("hit", "surrender", "stand")
    assert state["seats"][0]["hands"][0]["total"] == 21
    assert state["frames"]["last"] == frames[-1]["frame"] == len(frames)
    # go back: every earlier frame is the state the page showed then
    for shown in frames:
        back = browser.get(f"/api/state?frame={shown['frame']}").json()
        assert {k: v for k, v in back.items() if k != "frames"} == \
            {k: v for k, v in shown.items() if k != "frames"}
    assert browser.get("/api/state?frame=0").json()["phase"] == "betting"
    # and the live table went on unchanged
    assert game.table.phase is Phase.SETTLED
    check_conserved(game)
    state = post(browser, "/api/step", {})
    assert state["phase"] == "betting" and state["round"] == 1


def test_a_trained_agent_from_a_run_folder_plays_a_seat(tmp_path):
    from blackjack_env.agents.tabular import QLearningAgent
    from blackjack_env.commands.web import Settings, build

    run = tmp_path / "q-run"
    run.mkdir()
    QLearningAgent(5, obs_mode="tuple", seed=0).save(run / "model.npz")
    app, names = build(Settings(agent=[str(run)]))
    assert names == {"agent:q-run": str(run / "model.npz")}
    browser = client(app)
    browser.base_url = "http://127.0.0.1"
    options = browser.get("/api/options").json()
    assert "agent:q-run" in options["players"]
    sit(browser, mode="watch", preset="vegas-strip", players=["agent:q-run"])
    game = game_of(app, browser)
    for _ in range(30):
        state = post(browser, "/api/step", {})
    assert game.table.round >= 2
    assert any(d["player"] == "agent:q-run" for d in state["log"])
    check_conserved(game)


def test_watch_mode_under_highest_hand_settlement():
    app = make_app()
    browser = client(app)
    sit(browser, mode="watch", preset="terminal-21", players=["dealer", "never-bust", "random"])
    seen = False
    for _ in range(40):
        state = post(browser, "/api/step", {})
        if state["values"] is not None:  # against the dealer alone, labelled so
            assert state["values"]["available"] and state["values"]["alone"]
            assert "highest hand" in state["values"]["note"]
            seen = True
    assert seen
    assert all(d["given_up"] is None for d in state["log"])


def test_command_refuses_bad_options(capsys):
    from blackjack_env.commands.web import main

    assert main(["--port", "70000"]) == 2
    assert "--port 70000" in capsys.readouterr().err
    assert main(["--agent", "/no/such/run"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["--max-sessions", "0"]) == 2


@pytest.mark.parametrize(("host", "extra"), [("127.0.0.1", []), ("0.0.0.0", ["table.lan"]),
                                             ("192.168.1.20", ["table.lan"])])
def test_command_serves_the_configured_hosts_only(host, extra):
    from blackjack_env.commands.web import Settings, build

    app, _ = build(Settings(host=host, allow_host=extra))
    browser = client(app)
    served = ["127.0.0.1:8000", "localhost"] + [f"{n}:8000" for n in extra]
    if host != "0.0.0.0":
        served.append(host)
    for name in served:
        browser.base_url = f"http://{name}"
        assert browser.get("/api/options").status_code == 200, name
    for name in ("attacker.example", "table.lan.attacker.example", "0.0.0.0"):
        browser.base_url = f"http://{name}"
        resp = browser.get("/api/options")
        assert resp.status_code == 400 and "not served" in resp.json()["error"], name


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_a_non_loopback_host_needs_allow_host(host, capsys):
    from blackjack_env.commands.web import main

    assert main(["--host", host]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error: --host" in err and "--allow-host" in err
    assert main(["--host", "127.0.0.1", "--allow-host", "*"]) == 2
    assert "wildcards are not allowed" in capsys.readouterr().err


def _supported(rules) -> bool:
    from blackjack_env.analysis.model import check_supported

    try:
        check_supported(rules)
    except ValueError:
        return False
    return True


_PRESET_NAMES = sorted(__import__("blackjack_env").engine.PRESETS)


@pytest.mark.parametrize(
    ("name", "shoe"),
    [(n, "infinite") for n in _PRESET_NAMES]
    + [pytest.param(n, "preset", marks=pytest.mark.slow) for n in _PRESET_NAMES],
)
def test_every_preset_plays_rounds_in_watch_mode(name, shoe):
    """Bots play each preset: chips and cards conserved at every step, values or a reason.
    By default on an infinite deck where the analysis values the rules (a finite shoe's
    chart costs seconds per rule set); ``-m slow`` also plays each preset's own shoe."""
    from blackjack_env.engine import PRESETS

    rules = PRESETS[name].rules
    app = make_app()
    browser = client(app)
    seats = min(max(2, rules.seats), rules.max_seats)
    players = (["random", "dealer", "never-bust"] * 3)[:seats]
    overrides = {}
    if shoe == "infinite" and _supported(rules):
        overrides = {"decks": None, "seats_per_deck": None, "penetration": None}
    sit(browser, mode="watch", preset=name, players=players, seed=11, overrides=overrides)
    game = game_of(app, browser)
    for _ in range(40):
        state = post(browser, "/api/step", {})
        check_conserved(game)
        if state["values"] is not None and not state["values"]["available"]:
            assert state["values"]["reason"]
    assert game.table.round >= 3
    assert state["rules"]["preset"] == name


def test_the_composition_bot_plays_the_best_value_shown_on_a_finite_shoe():
    """Watch a ``composition`` seat on a one-deck shoe: it plays the best action of the
    values the page shows (given the cards not yet seen), so every decision it makes
    gives up nothing; the ``basic`` seat beside it may give up some."""
    app = make_app()
    browser = client(app)
    options = browser.get("/api/options").json()
    assert "composition" in options["players"]
    sit(browser, mode="watch", preset="vegas-strip", players=["composition", "basic"],
        seed=5, overrides={"decks": 1, "seats_per_deck": None})
    game = game_of(app, browser)
    for _ in range(60):
        state = post(browser, "/api/step", {})
        check_conserved(game)
    mine = [d for d in state["log"] if d["player"] == "composition"]  # the recent ones
    # every decision valued gives up nothing (declining insurance is not valued)
    assert mine and all(d["given_up"] <= 1e-12 if d["given_up"] is not None
                        else d["action"] == "decline" for d in mine)
    assert game.valued[0] >= 15
    assert state["seats"][0]["session"]["given_up"] == pytest.approx(0.0, abs=1e-9)
    # a rule set the analysis cannot serve: the composition seat is refused, saying why
    resp = browser.post("/api/session", json={"mode": "watch", "preset": "terminal-21",
                                              "players": ["composition", "dealer"]})
    assert resp.status_code == 400 and "settlement" in resp.json()["error"]


def test_a_counter_bets_the_bots_unit_spread_by_the_count():
    app = make_app()
    browser = client(app)
    sit(browser, mode="watch", preset="vegas-strip", players=["counter"], bot_bet=20)
    game = game_of(app, browser)
    assert game.strategies[0].base_bet == 20
    state = post(browser, "/api/step", {})  # a fresh shoe: true count 0, the unit bet
    assert state["seats"][0]["hands"][0]["bet"] == 20


def test_command_runs_option(tmp_path, capsys):
    from blackjack_env.commands.web import Settings, build, main

    assert main(["--runs", str(tmp_path / "none")]) == 2
    assert "error: --runs" in capsys.readouterr().err
    (tmp_path / "r").mkdir()
    app, _ = build(Settings(runs=[str(tmp_path / "r")]))
    browser = client(app)
    browser.base_url = "http://127.0.0.1"
    assert [r["name"] for r in browser.get("/api/runs").json()["runs"]] == ["r"]
