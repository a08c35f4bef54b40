"""Sessions, validation and a fuzz of malformed and out-of-turn requests."""

from __future__ import annotations

import json
import random

import pytest

from blackjack_env.engine import Action, Phase
from tests.web.helpers import (
    DirectClient,
    check_conserved,
    client,
    game_of,
    make_app,
    post,
    sit,
)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_session_cannot_reach_another_ones_table():
    app = make_app()
    alice, bob = client(app), client(app)
    sit(alice, mode="play", players=["person"])
    assert bob.get("/api/state").status_code == 404
    post(bob, "/api/deal", {"bets": {"0": 10}}, status=404)
    game = game_of(app, alice)
    assert game.table.phase is Phase.BETTING and game.table.seats[0].bet == 0
    # bob's own table is his alone; alice's is untouched by his play
    sit(bob, mode="play", players=["person"])
    post(bob, "/api/deal", {"bets": {"0": 10}})
    assert game.table.phase is Phase.BETTING
    assert game_of(app, bob) is not game
    # a forged cookie reaches nothing
    eve = client(app)
    eve.cookies.set("bj_session", "not-a-session")
    assert eve.get("/api/state").status_code == 404


def test_sessions_are_bounded_and_expire():
    clock = Clock()
    app = make_app(max_sessions=2, idle_seconds=60, clock=clock)
    first, second, third = client(app), client(app), client(app)
    sit(first, players=["person"])
    clock.now = 10
    sit(second, players=["person"])
    clock.now = 30
    assert first.get("/api/state").status_code == 200  # used: stays
    clock.now = 80  # the second has been idle 70 s > 60 s
    assert second.get("/api/state").status_code == 404
    sit(third, players=["person"])
    assert len(app.state.store) == 2 and app.state.store.evicted == 0


def _browser(app, address: str):
    """A browser at its own address (the server counts tables per client address)."""
    from starlette.testclient import TestClient

    return TestClient(app, client=(address, 50000))


def _fresh(app, address: str) -> int:
    """A cookieless POST /api/session from ``address``: its status."""
    return _browser(app, address).post("/api/session", json={"players": ["person"]}).status_code


def test_a_burst_of_new_tables_never_drops_a_player():
    """Issue 33, item 4: 30 cookieless tables (from one address, then from 30) while a
    player thinks mid-hand with a bet in play: the player's table stays; once the server
    is full a new table is refused (429, saying when to try again), because no table has
    been idle long enough to be replaced; one client holds at most max_per_client."""
    clock = Clock()
    app = make_app(max_sessions=6, max_per_client=3, evict_idle_seconds=600, clock=clock)
    alice = _browser(app, "10.0.0.1")
    sit(alice, players=["person"], cards="TS 6H 9D TC", app=app)
    post(alice, "/api/deal", {"bets": {"0": 10}})
    game = game_of(app, alice)
    assert game.in_play
    clock.now += 20  # alice thinks
    burst = []
    for _ in range(30):  # one address: its own limit (3) holds
        clock.now += 0.01
        burst.append(_fresh(app, "10.6.6.6"))
    assert burst == [200] * 3 + [429] * 27
    resp = _browser(app, "10.6.6.6").post("/api/session", json={"players": ["person"]})
    assert "this client (address 10.6.6.6) holds its maximum of 3 tables" in resp.json()["error"]
    assert "try again in" in resp.json()["error"]
    burst = []
    for k in range(30):  # thirty addresses: the server fills (6), then refuses
        clock.now += 0.01
        burst.append(_fresh(app, f"10.7.0.{k}"))
    assert burst == [200] * 2 + [429] * 28
    assert len(app.state.store) == 6 and app.state.store.evicted == 0
    resp = _browser(app, "10.8.0.1").post("/api/session", json={"players": ["person"]})
    assert "the server holds its maximum of 6 tables" in resp.json()["error"]
    # alice's table and her bet are there: she stands, and the round settles
    assert game_of(app, alice) is game
    state = post(alice, "/api/act", {"seat": 0, "action": "stand"})
    assert state["phase"] == "settled" and game.table.seats[0].results
    check_conserved(game)


def test_a_table_is_replaced_only_once_idle_long_between_rounds_first():
    """The minimum idle age (no table is replaced 0.2 s after its last request, nor at
    599 s), then: a table between rounds before one with a round in play, the longest
    idle first; a table serving a request never; after it, its browser is told."""
    clock = Clock()
    app = make_app(max_sessions=3, max_per_client=3, evict_idle_seconds=600, clock=clock)
    playing_long = _browser(app, "10.0.0.1")  # in play, idle longest
    sit(playing_long, players=["person"], cards="TS 6H 9D TC", app=app)
    post(playing_long, "/api/deal", {"bets": {"0": 10}})
    clock.now += 50
    between = _browser(app, "10.0.0.2")  # between rounds, idle less long
    sit(between, players=["person"])
    clock.now += 50
    playing = _browser(app, "10.0.0.3")  # in play, idle least long
    sit(playing, players=["person"], cards="TS 6H 9D TC", app=app)
    post(playing, "/api/deal", {"bets": {"0": 10}})
    clock.now += 0.2
    assert _fresh(app, "10.9.0.1") == 429  # 0.2 s: nobody is replaced
    clock.now += 598.7  # `playing` idle 598.9 s, `between` 648.9 s, `playing_long` 698.9 s
    assert _fresh(app, "10.9.0.2") == 200  # `between` goes, though not the longest idle
    assert between.get("/api/state").status_code == 404
    assert playing_long.get("/api/state").status_code == 200  # (used again: idle 0 now)
    clock.now += 1.2  # `playing` idle 600.1 s: the longest idle, a round in play
    late = _browser(app, "10.9.0.3")
    assert late.post("/api/session", json={"players": ["person"]}).status_code == 200
    resp = playing.get("/api/state")
    assert resp.status_code == 404 and "newer table" in resp.json()["error"]
    assert app.state.store.evicted == 2 and len(app.state.store) == 3
    # a table serving a request is never the one dropped: with every table busy, 429
    store = app.state.store
    store.idle = 1e9  # (none expires)
    clock.now += 10_000  # all idle long enough to be replaced, but all busy
    store.busy = lambda game: True
    resp = _browser(app, "10.9.0.4").post("/api/session", json={"players": ["person"]})
    assert resp.status_code == 429 and len(store) == 3


def test_one_client_replaces_only_its_own_tables():
    """At its limit, a client's new table replaces its own longest-idle table (once idle
    long enough), never another client's, however long that one has been idle."""
    clock = Clock()
    app = make_app(max_sessions=8, max_per_client=2, evict_idle_seconds=60, clock=clock)
    other = _browser(app, "10.0.0.1")
    sit(other, players=["person"])
    clock.now += 100
    mine = [_browser(app, "10.0.0.2") for _ in range(2)]
    for browser in mine:
        sit(browser, players=["person"])
        clock.now += 10
    assert _fresh(app, "10.0.0.2") == 429  # its own are 10 and 20 s idle
    clock.now += 45  # its first table: idle 65 s; `other`: 165 s
    assert _fresh(app, "10.0.0.2") == 200
    assert mine[0].get("/api/state").status_code == 404
    assert mine[1].get("/api/state").status_code == 200
    assert other.get("/api/state").status_code == 200


def test_the_limits_are_options():
    from blackjack_env.commands.web import Settings, build

    app, _ = build(Settings(max_sessions=5, idle_minutes=2.5))
    assert app.state.store.limit == 5 and app.state.store.idle == 150.0
    assert app.state.store.min_idle == 150.0 and app.state.store.per_client == 4
    app, _ = build(Settings(max_sessions=20, max_per_client=6, evict_minutes=15))
    assert app.state.store.min_idle == 900.0 and app.state.store.per_client == 6
    with pytest.raises(ValueError, match="max_sessions=0"):
        make_app(max_sessions=0)


def test_a_stale_decision_is_refused_and_changes_nothing():
    """vegas-strip, seed 3, bet 10, deal, split, then Stand twice on one frame (a double
    click): the second answers a frame the table has left, gets 409, and hand 2 is not
    stood unseen."""
    app = make_app()
    browser = client(app)
    sit(browser, players=["person"], preset="vegas-strip",
        cards="8S 6H 8D TC 3C KH 2D 5C 9S", app=app)
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    state = post(browser, "/api/act", {"seat": 0, "action": "split", "frame": state["frame"]})
    seen = state["frame"]
    state = post(browser, "/api/act", {"seat": 0, "action": "stand", "frame": seen})
    game = game_of(app, browser)
    before = game.state()
    assert before["to_act"] == {"seat": 0, "hand": 1}
    resp = browser.post("/api/act", json={"seat": 0, "action": "stand", "frame": seen})
    assert resp.status_code == 409 and "moved on" in resp.json()["error"]
    assert game.state() == before and not game.table.seats[0].hands[1].done
    # no frame at all: refused too (400), so a decision always names its state
    resp = browser.post("/api/act", json={"seat": 0, "action": "stand"})
    assert resp.status_code == 400 and "frame" in resp.json()["error"]
    # a raise and the optional frames of deal / next / step work the same way
    assert browser.post("/api/raise", json={"seat": 0, "amount": 1, "frame": seen}
                        ).status_code == 409
    state = post(browser, "/api/act", {"seat": 0, "action": "stand", "frame": state["frame"]})
    assert state["phase"] == "settled"
    assert browser.post("/api/next", json={"frame": seen}).status_code == 409
    state = post(browser, "/api/next", {"frame": state["frame"]})
    assert browser.post("/api/deal", json={"bets": {"0": 10}, "frame": seen}).status_code == 409
    assert game.table.phase is Phase.BETTING
    check_conserved(game)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"preset": "no-such"}, "unknown preset"),
        ({"overrides": {"colour": "red"}}, "unknown rule"),
        ({"overrides": {"decks": 9}}, "decks=9"),
        ({"overrides": {"seats": 3}}, "players list"),
        ({"players": ["person", "/etc/passwd"]}, "unknown"),
        ({"players": ["os.system"]}, "unknown"),
        ({"players": []}, "1 to 7"),
        ({"players": ["person"] * 8}, "1 to 7"),
        ({"mode": "watch", "players": ["person"]}, "watch mode has no people"),
        ({"mode": "play", "players": ["basic"]}, "at least one seat"),
        ({"mode": "god"}, "mode"),
        ({"bankroll": 0}, "bankroll=0"),
        ({"bankroll": True}, "wrong type"),
        ({"seed": "1"}, "wrong type"),
        ({"players": ["counter"], "mode": "watch", "overrides": {"decks": None}},
         "finite shoe"),
        ({"extra": 1}, "unknown field"),
    ],
)
def test_bad_setups_are_refused_with_a_clear_message(body, needle):
    app = make_app()
    browser = client(app)
    resp = browser.post("/api/session", json=body)
    assert resp.status_code == 400, resp.text
    assert needle in resp.json()["error"]
    assert len(app.state.store) == 0


def test_bodies_are_checked_before_anything_is_read():
    app = make_app()
    browser = client(app)
    sit(browser, players=["person"])
    cases = [
        ({"content": b"{not json", "headers": {"content-type": "application/json"}}, "not valid"),
        ({"content": b"[1, 2]", "headers": {"content-type": "application/json"}}, "object"),
        ({"content": b'{"bets": {}}', "headers": {"content-type": "text/plain"}}, "JSON"),
        ({"content": b"x" * 20000, "headers": {"content-type": "application/json"}}, "larger"),
        ({"content": b"\xff\xfe", "headers": {"content-type": "application/json"}}, "not valid"),
        ({"content": b"[" * 5000 + b"]" * 5000,
          "headers": {"content-type": "application/json"}}, "not valid"),
    ]
    for kwargs, needle in cases:
        resp = browser.post("/api/deal", **kwargs)
        assert resp.status_code == 400 and needle in resp.json()["error"], resp.text


def test_bets_and_actions_outside_the_rules_change_nothing():
    app = make_app()
    browser = client(app)
    sit(browser, players=["person", "dealer"], bankroll=50)
    game = game_of(app, browser)
    before = game.state()
    for bets, status, needle in [
        ({"0": 2000}, 422, "table limits"),
        ({"0": 60}, 422, "bankroll"),
        ({"0": -5}, 422, "table limits"),
        ({"1": 10}, 400, "not played by a person"),
        ({"9": 10}, 400, "not played by a person"),
        ({"0": 1.5}, 400, "whole number"),
        ({"x": 1}, 400, "seat number"),
        ({"²": 1}, 400, "seat number"),
    ]:
        resp = browser.post("/api/deal", json={"bets": bets})
        assert resp.status_code == status and needle in resp.json()["error"], resp.text
        assert game.state() == before and game.table.seats[1].bet == 0
    post(browser, "/api/act", {"seat": 0, "action": "hit"}, status=409)
    post(browser, "/api/next", {}, status=409)
    post(browser, "/api/step", {}, status=409)
    post(browser, "/api/raise", {"seat": 0, "amount": 1}, status=409)
    assert game.state() == before


def test_only_the_configured_hosts_are_served():
    app = make_app(allowed_hosts=("127.0.0.1", "table.example"))
    browser = client(app)
    for host in ("evil.example", "evil.example:80", "127.0.0.1.evil.example", "",
                 "table.example.evil", "[::1]"):
        resp = browser.get("/api/options", headers={"host": host})
        assert resp.status_code == 400 and "not served" in resp.json()["error"], host
    for host in ("127.0.0.1", "127.0.0.1:8000", "TABLE.example:8000"):
        assert browser.get("/api/options", headers={"host": host}).status_code == 200, host
    with pytest.raises(ValueError, match="wildcard"):
        make_app(allowed_hosts=("*",))


def test_a_host_with_a_malformed_port_is_refused():
    """Issue 33, item 9: ``Host: localhost:abc`` was served."""
    app = make_app(allowed_hosts=("localhost", "127.0.0.1", "[::1]"))
    browser = client(app)
    for host in ("localhost:abc", "localhost:", "localhost:0", "localhost:65536",
                 "localhost:123456", "localhost:8O00", "[::1]:x", "localhost:-1",
                 "localhost: 80"):
        resp = browser.get("/api/options", headers={"host": host})
        assert resp.status_code == 400 and "not served" in resp.json()["error"], host
    for host in ("localhost", "localhost:8000", "localhost:65535", "[::1]:1", "127.0.0.1:80"):
        assert browser.get("/api/options", headers={"host": host}).status_code == 200, host


def test_not_found_and_wrong_method_answer_json():
    app = make_app()
    browser = client(app)
    for method, path, status in [("get", "/api/nothing", 404), ("get", "/nothing", 404),
                                 ("post", "/api/options", 405), ("delete", "/api/state", 405),
                                 ("put", "/api/act", 405)]:
        resp = browser.request(method.upper(), path)
        assert resp.status_code == status, (method, path)
        assert resp.headers["content-type"].startswith("application/json")
        assert resp.json()["error"]
    # the page's first question is never an error: no table yet -> {"state": null}
    resp = browser.get("/api/session")
    assert resp.status_code == 200 and resp.json() == {"state": None}
    sit(browser, players=["person"])
    assert browser.get("/api/session").json()["state"]["phase"] == "betting"


def test_the_page_and_its_files_need_no_network():
    app = make_app()
    browser = client(app)
    for path in ("/", "/app.js", "/style.css"):
        resp = browser.get(path)
        assert resp.status_code == 200
        text = resp.text
        assert "http://" not in text and "https://" not in text, path  # no CDN, no fonts
    assert "default-src 'self'" in browser.get("/").headers["content-security-policy"]
    assert browser.get("/../pyproject.toml").status_code == 404
    assert browser.get("/static/app.js").status_code == 404


def _invalid_requests(rng: random.Random, game, state: dict) -> list[tuple[str, str, object]]:
    """Requests that must all be refused in the current state: (method, path, body)."""
    table = game.table
    seats = len(table.seats)
    who = table.to_act
    legal = set(table.legal_actions()) if who is not None else set()
    illegal = [a.name.lower() for a in Action if a not in legal]
    wrong_seats = [s for s in range(seats) if who is None or s != who[0]]
    raw = [
        b"", b"{", b"null", b"[]", b'"deal"', b"1e999", b'{"bets": []}', b'{"bets": {"0": "10"}}',
        b'{"seat": "0", "action": "hit"}', b'{"seat": 0, "action": 1}', b'{"__class__": 1}',
        b'{"bets": {"0": 1e400}}', b'{"seat": 0.5, "action": "stand"}',
        bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))),
    ]
    out: list[tuple[str, str, object]] = []
    out.append(("raw", rng.choice(["/api/deal", "/api/act", "/api/raise", "/api/next",
                                   "/api/step", "/api/session"]), rng.choice(raw)))
    now = state["frame"]
    out.append(("post", "/api/act", {"seat": rng.choice(wrong_seats or [seats]), "frame": now,
                                     "action": rng.choice([a.name.lower() for a in Action])}))
    out.append(("post", "/api/act", {"seat": rng.randrange(-3, 10) + 100, "action": "stand",
                                     "frame": now}))
    out.append(("post", "/api/act", {"seat": 0, "frame": now, "action": rng.choice(
        ["fold", "HIT", "", "eval('1')", "__import__('os')", "stand "])}))
    if who is not None and illegal:
        out.append(("post", "/api/act", {"seat": who[0], "action": rng.choice(illegal),
                                         "frame": now}))
    if who is not None and legal:  # a legal decision, but stale (or missing) frame
        out.append(("post", "/api/act", {"seat": who[0], "action": rng.choice(
            [a.name.lower() for a in legal]), **rng.choice(
                [{"frame": now - 1}, {"frame": now + 1}, {}, {"frame": -1}, {"frame": "x"}])}))
    out.append(("post", "/api/raise", {"seat": 0, "amount": rng.choice([0, -1, 10**12]),
                                       "frame": now}))
    if table.phase is not Phase.BETTING:
        out.append(("post", "/api/deal", {"bets": {"0": 10}}))
    else:
        out.append(("post", "/api/deal", {"bets": {"0": rng.choice([10**6, -1, 1001])}}))
        out.append(("post", "/api/act", {"seat": 0, "action": "stand", "frame": now}))
    if table.phase is not Phase.SETTLED:
        out.append(("post", "/api/next", {}))
    out.append(("post", "/api/step", {}))  # play mode: refused
    out.append(("post", "/api/next", {"now": True}))
    frame = rng.choice(["-1", "x", "99999999", "1" * 30, "²", "%C2%B2", "1.0", ""])
    out.append(("get", "/api/state?frame=" + frame, None))
    out.append(("post", "/api/session", {"players": rng.choice(
        [["person"] * 9, ["../run"], [1], "person"]), "preset": "vegas-strip"}))
    out.append(("post", "/api/session", {"preset": rng.choice(
        ["", "VEGAS", "terminal-21 ", None, 5]), "players": ["person"]}))
    out.append(("post", "/api/session", {"players": ["person"], "overrides": rng.choice(
        [{"decks": 0}, {"penetration": 2}, {"blackjack_payout": "x"},
         {"card_values": {"J": 11}}, {"insurance": "yes"}, {"hole_card": [1, 2, 3]},
         {"card_values": [[1]]}, {"max_bet": 0}])}))
    return out


def _send(browser, method: str, path: str, body: object):
    if method == "get":
        return browser.get(path)
    if method == "raw":
        return browser.post(path, content=body, headers={"content-type": "application/json"})
    return browser.post(path, content=json.dumps(body), headers={"content-type":
                                                                   "application/json"})


def test_fuzz_malformed_and_out_of_turn_requests():
    """A few thousand requests that must be refused, in every phase of the round; each
    answer is 4xx with a message, the table is unchanged, chips and cards are conserved,
    and a normal round is played afterwards."""
    rng = random.Random(2026)
    app = make_app()
    browser = DirectClient(app)
    try:
        _fuzz(rng, app, browser)
    finally:
        browser.close()


def _fuzz(rng: random.Random, app, browser) -> None:
    sit(browser, mode="play", preset="vegas-strip", players=["person", "never-bust", "person"],
        seed=3)
    game = game_of(app, browser)
    sent = 0
    statuses: dict[int, int] = {}
    rounds = 0
    while sent < 3000:
        state = game.state()
        for method, path, body in _invalid_requests(rng, game, state):
            resp = _send(browser, method, path, body)
            sent += 1
            statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
            assert 400 <= resp.status_code < 500, (path, body, resp.status_code, resp.text)
            assert resp.json()["error"], (path, body)
            assert game_of(app, browser) is game  # a refused setup keeps the table
            assert game.state() == state, (path, body)
            check_conserved(game)
        # then one legal move, so the next batch meets another phase
        table = game.table
        if table.phase is Phase.BETTING:
            post(browser, "/api/deal", {"bets": {"0": rng.choice([5, 10]), "2": 10}})
            rounds += 1
        elif table.phase is Phase.SETTLED:
            post(browser, "/api/next", {})
        else:
            seat, _ = table.to_act
            action = rng.choice(table.legal_actions()).name.lower()
            post(browser, "/api/act", {"seat": seat, "action": action})
        check_conserved(game)
    assert sent >= 3000 and rounds >= 10
    assert set(statuses) <= {400, 404, 409, 422}
    # a normal round afterwards
    while game.table.phase is not Phase.BETTING:
        if game.table.phase is Phase.SETTLED:
            post(browser, "/api/next", {})
        else:
            seat, _ = game.table.to_act
            answer = "decline" if game.table.phase is Phase.INSURANCE else "stand"
            post(browser, "/api/act", {"seat": seat, "action": answer})
    state = post(browser, "/api/deal", {"bets": {"0": 10, "2": 10}})
    while state["phase"] != "settled":
        seat = state["to_act"]["seat"]
        state = post(browser, "/api/act", {"seat": seat, "action": "stand"
                                           if state["phase"] != "insurance" else "decline"})
    assert all(h["result"] for s in state["seats"] for h in s["hands"])
    check_conserved(game)
    print(f"fuzz: {sent} requests, statuses {statuses}, {rounds} rounds between batches")


def test_requests_import_no_module_of_the_package():
    import sys

    app = make_app()
    with client(app) as browser:
        browser.get("/api/options")  # the framework's own lazy imports happen here
        before = set(sys.modules)
        sit(browser, mode="watch", players=["basic", "counter", "random", "dealer",
                                            "never-bust", "stand"])
        for _ in range(30):
            post(browser, "/api/step", {})
    new = sorted(m for m in set(sys.modules) - before if m.startswith("blackjack_env"))
    assert new == []


def test_huge_numbers_in_a_body_are_refused_with_a_4xx_json_answer():
    """Issue 33, item 1: a 5,000-digit integer (Python's 4,300-digit conversion limit) in
    any field of any POST body was a 500 and a traceback; every such request is now 400
    with a one-line JSON error, and the table is unchanged. NaN, Infinity and 1e999 too."""
    app = make_app()
    browser = client(app)
    sit(browser, players=["person"])
    game = game_of(app, browser)
    before = game.state()
    big = "9" * 5000
    numbers = [big, "-" + big, "1" + "0" * 41, "1e999", "-1e999", "NaN", "Infinity",
               "0." + "1" * 60]
    bodies = {
        "/api/session": ['{"seed": %s}', '{"bankroll": %s}', '{"bot_bet": %s}',
                         '{"overrides": {"decks": %s}}', '{"overrides": {"max_bet": %s}}'],
        "/api/deal": ['{"bets": {"0": %s}}', '{"bets": {"0": 10}, "frame": %s}'],
        "/api/act": ['{"seat": %s, "action": "hit", "frame": 0}',
                     '{"seat": 0, "action": "hit", "frame": %s}'],
        "/api/raise": ['{"seat": 0, "amount": %s, "frame": 0}'],
        "/api/next": ['{"frame": %s}'],
        "/api/step": ['{"frame": %s}'],
    }
    answered = 0
    for path, templates in bodies.items():
        for template in templates:
            for number in numbers:
                resp = browser.post(path, content=(template % number).encode(),
                                    headers={"content-type": "application/json"})
                assert resp.status_code == 400, (path, template, number[:12], resp.text[:200])
                assert resp.headers["content-type"].startswith("application/json")
                error = resp.json()["error"]
                assert "\n" not in error and "Traceback" not in error and len(error) < 300
                assert game_of(app, browser) is game and game.state() == before
                answered += 1
    assert answered == 12 * len(numbers)
    # a number of ordinary length still works
    resp = browser.post("/api/deal", content=b'{"bets": {"0": 10}}',
                        headers={"content-type": "application/json"})
    assert resp.status_code == 200 and game.table.seats[0].bet == 10
