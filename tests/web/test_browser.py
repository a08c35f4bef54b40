"""The page in a real headless Chromium (Debian's ``chromium``), driven like a person.

Playwright drives ``/usr/bin/chromium`` (never a downloaded browser) against the server
running on 127.0.0.1 in a thread of this process, so a test can stack the shoe of the
table it plays and compare what the page shows with the engine's state. Screenshots go
to ``test-artifacts/web/`` (``BLACKJACK_ENV_ARTIFACTS`` overrides the folder).

Run only these: ``python -m pytest -m browser tests/web``.
"""

from __future__ import annotations

import itertools
import os
import re
import socket
import threading
import time
import weakref
from pathlib import Path

import pytest

from tests.web.helpers import check_conserved

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("BLACKJACK_ENV_CHROMIUM", "/usr/bin/chromium")
if not Path(CHROMIUM).exists():
    if os.environ.get("BLACKJACK_ENV_REQUIRE_BROWSER"):  # CI: a missing browser is a failure
        raise RuntimeError(f"BLACKJACK_ENV_REQUIRE_BROWSER is set but there is no {CHROMIUM}")
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

from blackjack_env.web.server import WebConfig, create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("BLACKJACK_ENV_ARTIFACTS", ROOT / "test-artifacts")) / "web"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import json

    from tests.web.test_api_chart import _summary

    run = tmp_path_factory.mktemp("home") / "q-run"  # a training run for the run view
    run.mkdir()
    (run / "summary.json").write_text(json.dumps(_summary(run)))
    (run / "curve.json").write_text(json.dumps(
        {"blocks": [], "grades": [[1000, -0.07], [25000, -0.05], [50000, -0.0499]]}))
    # every test is a new browser session from 127.0.0.1: room for all of them
    app = create_app(WebConfig(max_sessions=64, max_per_client=64, runs={"q-run": run}))
    app.state.run_folder = run
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield app, f"http://127.0.0.1:{port}/"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module; each test opens its own context (its own cookies)."""
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield chromium
        chromium.close()


#: pages whose clock Playwright controls (page.clock.install() before the page loaded)
_CLOCKED: weakref.WeakSet = weakref.WeakSet()
#: a desktop, and a phone (390 px wide, touch)
DESKTOP = {"viewport": {"width": 1400, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 1}


def open_page(browser, url: str, failures: list[str], **context: object):
    """A new browser session's page at ``url``: its clock installed (time flows as usual;
    :func:`press` moves it on by a person's pause), any 5xx answer, page error or
    off-machine request recorded in ``failures``."""
    page = browser.new_context(**{**DESKTOP, **context}).new_page()
    page.clock.install()
    _CLOCKED.add(page)
    page.on("response", lambda r: failures.append(f"{r.status} {r.url}")
            if r.status >= 500 else None)
    page.on("pageerror", lambda err: failures.append(f"page error: {err}"))
    page.on("request", lambda r: failures.append(f"off-machine request {r.url}")
            if not r.url.startswith(url) else None)
    page.goto(url)
    page.wait_for_selector("#preset option[value='terminal-21']", state="attached")
    return page


@pytest.fixture()
def page(browser, server):
    failures: list[str] = []
    page = open_page(browser, server[1], failures)
    yield page
    page.context.close()
    assert failures == []


@pytest.fixture()
def phone(browser, server):
    failures: list[str] = []
    page = open_page(browser, server[1], failures, **PHONE)
    yield page
    page.context.close()
    assert failures == []


def shot(page, name: str, full_page: bool = True) -> Path:
    """Save a screenshot (``full_page=False``: what is in sight, the screen only)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=full_page)
    return path


def the_game(app):
    games = list(app.state.store.games())
    return games[-1]


def setup_table(page, *, mode="play", preset="vegas-strip", players=("person",), seed=1,
                overrides="{}"):
    page.select_option("#mode", mode)
    page.select_option("#preset", preset)
    page.fill("#seat-count", str(len(players)))
    page.dispatch_event("#seat-count", "input")
    for i, who in enumerate(players):
        page.select_option(f"#player-{i}", who)
    page.fill("#seed", str(seed))
    page.fill("#overrides", overrides)
    with page.expect_response("**/api/session"):
        page.click("#sit")
    page.wait_for_selector("#table:not([hidden])")


#: the page takes a press only this long after the one before (window.bjDoubleMs)
DOUBLE_MS = 600


def press(page, what: str, key: bool = False) -> None:
    """Click a button (or press its key), wait for the server's answer to be drawn, then
    pause as a person would before the next press (the page takes a press only
    DOUBLE_MS after the one before: a double click acts once)."""
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "POST"):
        if key:
            page.keyboard.press(what)
        else:
            page.click(what)
    page.wait_for_function("() => window.bjIdle && window.bjIdle()")
    if page in _CLOCKED:  # the pause, on the page's clock, without waiting for it
        page.clock.fast_forward(DOUBLE_MS)
    page.wait_for_function("() => window.bjReady()")


def enabled_actions(page) -> set[str]:
    return set(page.eval_on_selector_all(
        "#play-controls [data-action]",
        "bs => bs.filter(b => !b.disabled).map(b => b.dataset.action)"))


def test_play_a_round_with_split_double_hit_and_stand(page, server):
    app, _ = server
    setup_table(page, preset="vegas-strip")
    game = the_game(app)
    # 8 8 v 6 (hole T): split; hand 1: 8 3 doubles onto K (21); hand 2: 8 2, hits 5
    # (15), stands; the dealer's 16 draws 9 and busts
    game.table.shoe.stack("8S 6H 8D TC 3C KH 2D 5C 9S")
    page.fill("#bet-0", "10")
    assert enabled_actions(page) == set()
    press(page, "#deal")
    assert enabled_actions(page) == {"hit", "stand", "double", "split", "surrender"}
    assert page.inner_text("#dealer-total") == "6 showing"
    assert page.locator("#dealer-cards .card.down").count() == 1
    press(page, "#play-controls [data-action=split]")
    assert page.locator("#seat-0 .hand-box").count() == 2
    assert "split" not in enabled_actions(page)  # 8 3 is no pair
    press(page, "d", key=True)  # keyboard shortcut: double
    assert page.inner_text("#seat-0-hand-0 .flags") == "split doubled"
    press(page, "#play-controls [data-action=hit]")
    assert page.inner_text("#seat-0-hand-1 .total") == "15"
    press(page, "s", key=True)
    page.wait_for_selector("#next:not([disabled])")
    assert enabled_actions(page) == set()
    shown = [page.inner_text(f"#seat-0-hand-{k} .result") for k in range(2)]
    engine = game.table.seats[0].results
    assert shown == [f"Win +{r.net}" for r in engine] == ["Win +20", "Win +10"]
    assert page.inner_text("#dealer-total") == "25 bust"
    assert page.inner_text("#seat-0 .bankroll") == f"bankroll {game.table.seats[0].bankroll}"
    check_conserved(game)
    shot(page, "finished_round.png")
    # the next round, from the same shoe
    press(page, "Enter", key=True)
    assert page.locator("#bet-0").count() == 1 and game.table.round == 1


def _shown_values(page) -> dict[str, float]:
    """The values table beside the buttons: action -> the value shown."""
    return dict(page.eval_on_selector_all(
        "#values-table td[data-action]", "ts => ts.map(t => [t.dataset.action, "
        "Number(t.textContent)])"))


def test_finite_shoe_values_given_the_cards_that_remain(page, server):
    from blackjack_env.analysis.composition import action_values

    app, _ = server
    setup_table(page, preset="vegas-strip")
    game = the_game(app)
    # six decks, 8 8 v 6 (hole T): the page shows the values off the 309 cards not seen,
    # worked out here from a full shoe less 8 8 6; after the split, hand 8 3 off 308
    game.table.shoe.stack("8S 6H 8D TC 3C KH 2D 5C 9S")
    page.fill("#bet-0", "10")
    press(page, "#deal")
    pool = [24] * 13
    for rank in (8, 8, 6):
        pool[rank - 1] -= 1
    exact = action_values(game.rules, pool, "8S 8D", "6")
    assert _shown_values(page) == {a.name.lower(): round(v, 4) for a, v in exact.items()}
    assert page.inner_text("#values-table th.best") == "split (best)"
    assert "given the 309 cards not yet seen" in page.inner_text("#values-source")
    assert "split" in page.inner_text("#values-note")
    assert "not available" not in page.inner_text("#values")
    shot(page, "finite_values.png")
    press(page, "#play-controls [data-action=split]")
    pool[3 - 1] -= 1
    exact = action_values(game.rules, pool, "8S 3C", "6", hands=2, from_split=True, waiting=1)
    assert _shown_values(page) == {a.name.lower(): round(v, 4) for a, v in exact.items()}
    assert page.inner_text("#values-table th.best") == "double (best)"
    assert "given the 308 cards not yet seen" in page.inner_text("#values-source")
    assert page.locator("#values-note").count() == 0


def test_seven_seats_each_split_into_four_hands(page, server):
    app, _ = server
    page.set_viewport_size({"width": 1600, "height": 900})
    setup_table(page, preset="atlantic-city", players=("person",) * 7)
    game = the_game(app)
    # every seat 8 8 against a 6 (hole T); each splits three times (8, 8, then 3),
    # doubles 8 3 onto K, and stands on 8 2, 8 9 and 8 T; the dealer draws 9 and busts
    per_seat = "8S 8H 3C KD 2H 9C TD"
    game.table.shoe.stack(" ".join(["8C"] * 7 + ["6H"] + ["8D"] * 7 + ["TC"]
                                   + [per_seat] * 7 + ["9S"]))
    press(page, "#deal")
    for seat in range(7):
        assert page.get_attribute(f"#seat-{seat}", "class") == "seat acting"
        for key in "pppd":
            press(page, key, key=True)
        for _ in range(3):
            press(page, "s", key=True)
    page.wait_for_selector("#next:not([disabled])")
    assert game.table.phase.value == "settled"
    for seat in range(7):
        assert page.locator(f"#seat-{seat} .hand-box").count() == 4
        for k, result in enumerate(game.table.seats[seat].results):
            assert page.inner_text(f"#seat-{seat}-hand-{k} .result") == f"Win +{result.net}"
    # legible: no hand box spills out of its seat, no two seats overlap
    boxes = page.eval_on_selector_all(".seat", "ss => ss.map(s => s.getBoundingClientRect())"
                                      ".map(r => [r.left, r.right])")
    assert all(a[1] <= b[0] + 1 for a, b in itertools.pairwise(boxes))
    spill = page.eval_on_selector_all(
        ".seat", "ss => ss.some(s => [...s.querySelectorAll('.hand-box')].some(h => "
        "h.getBoundingClientRect().right > s.getBoundingClientRect().right + 1))")
    assert not spill
    check_conserved(game)
    shot(page, "seven_seats_splits.png")


def test_watch_mode_steps_a_round_with_values(page, server):
    app, _ = server
    setup_table(page, mode="watch", preset="vegas-strip", players=("basic", "never-bust"),
                overrides='{"decks": null}')
    game = the_game(app)
    # basic: 16 v 10 (surrenders); never-bust: A 6 (soft 17, hits 2 -> soft 19, stands)
    game.table.shoe.stack("TS AD TH 6C 6D 9C 2H")
    assert page.is_visible("#watch-controls")
    press(page, "#step")  # the bets and the deal
    assert page.is_visible("#values-table")
    best = page.inner_text("#values-table th.best")
    assert best.endswith("(best)")
    evs = game.state()["values"]["evs"]
    assert {a: round(v, 4) for a, v in evs.items()} == _shown_values(page)
    shot(page, "watch_values.png")
    while game.table.phase.value != "settled":
        press(page, "ArrowRight", key=True)
    log = page.eval_on_selector_all("#log tbody tr", "rs => rs.map(r => r.children[3].textContent)")
    assert list(reversed(log)) == [d["action"] for d in game.state()["log"]]
    # go back to the first decision, then return live
    last = game.state()["frame"]
    page.click("#back")
    expect = sync_api.expect
    expect(page.locator("#frame-label")).to_contain_text(f"frame {last - 1} of {last}")
    expect(page.locator("#live")).to_be_enabled()
    assert len(page.locator("#log tbody tr").all()) == len(log) - 1  # the earlier frame's log
    page.click("#live")
    expect(page.locator("#live")).to_be_disabled()
    # play at a chosen speed, then pause
    page.select_option("#speed", "150")
    page.click("#play")
    deadline = time.monotonic() + 20
    while int(page.get_attribute("#frame-slider", "max")) < last + 3:
        assert time.monotonic() < deadline, "play did not advance"
        page.wait_for_timeout(100)
    page.click("#play")
    assert page.inner_text("#play") == "Play"
    check_conserved(game)


def test_a_refused_request_is_shown_and_changes_nothing(page, server):
    app, _ = server
    setup_table(page, preset="vegas-strip")
    game = the_game(app)
    page.fill("#bet-0", "5000")
    with page.expect_response("**/api/deal") as resp:
        page.click("#deal")
    assert resp.value.status == 422
    page.wait_for_selector("#message:not([hidden])")
    assert "outside the table limits" in page.inner_text("#message")
    assert game.table.phase.value == "betting" and game.table.seats[0].bet == 0


def test_terminal_21_hot_seat_with_a_raised_bet(page, server):
    app, _ = server
    setup_table(page, preset="terminal-21", players=("person", "person", "person"))
    game = the_game(app)
    # as in the API test: seat 1 (9 5) raises 5 and hits 6 (20); seat 2 stands on 18;
    # seat 3 (7 6) hits T and busts; the dealer stands on 17; highest hand wins
    game.table.shoe.stack("9S TS 7D 9C 5H 8H 6C 8C 6D TD")
    for seat in range(3):
        page.fill(f"#bet-{seat}", "10")
    press(page, "#deal")
    # highest-hand settlement: values against the dealer alone, said so; J Q K explained
    assert "dealer alone" in page.inner_text("#values-alone")
    assert page.is_visible("#values-table")
    assert page.inner_text("#card-values").startswith(
        "Card values at this table: J = 1, Q = 2, K = 3")
    assert page.locator("text=cut card out").count() == 0  # one deck shuffled every round
    assert page.is_visible("#every-round")
    assert page.is_visible("#raise-box") and page.is_enabled("#raise")
    page.fill("#raise-amount", "5")
    press(page, "#raise")
    assert page.inner_text("#seat-0-hand-0 .bet") == "bet 15"
    press(page, "h", key=True)
    press(page, "s", key=True)
    assert page.get_attribute("#seat-1", "class") == "seat acting"
    press(page, "s", key=True)
    press(page, "h", key=True)
    page.wait_for_selector("#next:not([disabled])")
    shown = [page.inner_text(f"#seat-{i}-hand-0 .result") for i in range(3)]
    assert shown == ["Win +15", "Lose -10", "Bust -10"]
    assert [r.net for s in game.table.seats for r in s.results] == [15, -10, -10]
    check_conserved(game)
    shot(page, "terminal21_hot_seat.png")


def test_a_double_click_or_a_held_key_acts_once(page, server):
    """Issue 24's case: split 8 8, then double-click Stand on hand 1: hand 2 must still
    wait for its own decision. Then two quick H presses and a held H hit once each."""
    app, _ = server
    setup_table(page, preset="vegas-strip", seed=3)
    game = the_game(app)
    # 8 8 v 6 (hole T); hand 1: 8 3; hand 2: 8 K (then 2 5 9 ... for the hits)
    game.table.shoe.stack("8S 6H 8D TC 3C KH 2D 5C 9S 2C 3D 4H")
    page.fill("#bet-0", "10")
    press(page, "#deal")
    press(page, "#play-controls [data-action=split]")
    with page.expect_response("**/api/act"):
        page.dblclick("#play-controls [data-action=stand]")
    page.wait_for_timeout(400)  # a second request, had one been sent, is answered by now
    assert game.table.to_act == (0, 1) and not game.table.seats[0].hands[1].done
    assert [d["action"] for d in game.state()["log"]] == ["split", "stand"]
    page.wait_for_selector("#seat-0-hand-1.acting")
    page.clock.fast_forward(DOUBLE_MS)  # a person's pause: the next press is taken
    # hand 2 (8 K = 18): two quick h presses -> one hit (8 K 2 = 20)
    with page.expect_response("**/api/act"):
        page.keyboard.press("h")
        page.keyboard.press("h")
    page.wait_for_timeout(400)
    assert len(game.table.seats[0].hands[1].cards) == 3
    page.wait_for_selector("#play-controls [data-action=hit]:not([disabled])")
    page.clock.fast_forward(DOUBLE_MS)  # a person's pause: the next press is taken
    # a held key: the repeats (keydown with repeat=true) do nothing
    with page.expect_response("**/api/act"):
        for _ in range(6):
            page.keyboard.down("h")
    page.keyboard.up("h")
    page.wait_for_timeout(400)
    hand2 = game.table.seats[0].hands[1]
    assert len(hand2.cards) == 4 and hand2.bust  # 8 K 2 5: one hit more, busting
    assert [d["action"] for d in game.state()["log"]] == ["split", "stand", "hit", "hit"]
    check_conserved(game)


def test_a_normal_visit_logs_no_console_error(browser, server):
    """First visit (no table yet), a round, the chart view and back: not one console error
    (the page no longer probes /api/state for a table it may not have)."""
    app, url = server
    page = browser.new_context(**DESKTOP).new_page()
    page.clock.install()
    _CLOCKED.add(page)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.wait_for_selector("#preset option[value='terminal-21']", state="attached")
    setup_table(page, preset="vegas-strip", seed=5)
    game = the_game(app)
    game.table.shoe.stack("TS 6H 9D 7C")
    page.fill("#bet-0", "10")
    press(page, "#deal")
    press(page, "s", key=True)
    page.wait_for_selector("#next:not([disabled])")
    page.click("#view-chart")
    page.wait_for_selector("#chart-optimal table.chart")
    page.click("#view-table")
    page.reload()  # a returning visit finds its table
    page.wait_for_selector("#table:not([hidden])")
    page.context.close()
    assert errors == []


def test_phone_width_cards_stay_in_their_seats_and_the_header_is_short(page, server):
    app, _ = server
    page.set_viewport_size({"width": 390, "height": 844})
    setup_table(page, preset="vegas-strip", players=("person",) * 5, seed=2)
    game = the_game(app)
    # seat 1: 8 8 splits twice (three hands); the others 9 7 and stand; dealer 6 (hole T)
    game.table.shoe.stack("8C 9C 9D 9H 9S 6H 8D 7C 7D 7H 7S TC 8S 3D 2C 4C 5C 9S")
    for seat in range(5):
        page.fill(f"#bet-{seat}", "10")
    press(page, "#deal")
    press(page, "p", key=True)
    press(page, "p", key=True)
    assert page.locator("#seat-0 .hand-box").count() == 3
    header = page.eval_on_selector("header", "h => h.getBoundingClientRect().height")
    assert header <= 100, header  # the rules line is collapsed to one line
    spill = page.eval_on_selector_all(".seat", """ss => ss.flatMap(s => {
        const b = s.getBoundingClientRect();
        return [...s.querySelectorAll('.card')].map(c => c.getBoundingClientRect())
          .filter(r => r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5
                       || r.bottom > b.bottom + 0.5).map(r => [r.left, r.right]); })""")
    assert spill == []
    # every button is shown (legal or not: none moves), large, and within the screen;
    # the legal ones are enabled
    shown = page.eval_on_selector_all(
        "#play-controls button", "bs => bs.filter(b => b.offsetParent !== null)"
        ".map(b => b.dataset.action || b.id)")
    assert set(shown) == {"hit", "stand", "double", "split", "surrender", "insure",
                          "decline", "deal", "next"}
    assert enabled_actions(page) == set(game.state()["legal"])
    boxes = page.eval_on_selector_all(
        "#play-controls button[data-action]", "bs => bs.filter(b => b.offsetParent !== null)"
        ".map(b => b.getBoundingClientRect()).map(r => [r.height, r.bottom])")
    assert all(h >= 40 and bottom <= 844 for h, bottom in boxes), boxes
    shot(page, "phone_390_five_seats.png")


def test_desktop_cards_are_large(page, server):
    page.set_viewport_size({"width": 1280, "height": 900})
    setup_table(page, preset="vegas-strip", players=("person", "basic", "person"), seed=4)
    page.fill("#bet-0", "10")
    page.fill("#bet-2", "10")
    press(page, "#deal")
    size = page.eval_on_selector("#seat-0 .card", "c => [c.offsetWidth, c.offsetHeight]")
    assert size[0] >= 60 and size[1] >= 85, size  # was 34 x 48
    # the seats are drawn above the decision bar fixed at the foot of the screen, not
    # under it (issue 33 moved the values into that bar, in sight)
    seats = page.eval_on_selector("#seats", "s => s.getBoundingClientRect().bottom")
    bar = page.eval_on_selector("#controls", "c => c.getBoundingClientRect().top")
    assert seats <= bar <= 900
    shot(page, "desktop_1280_three_seats.png")


@pytest.mark.parametrize("preset", ["vegas-strip", "downtown-h17"])
def test_the_chart_view_shows_the_analysis(page, server, preset):
    from blackjack_env.analysis import solve
    from blackjack_env.engine import preset as make
    from blackjack_env.web.values import analysis_rules

    setup_table(page, preset=preset, seed=1)
    page.click("#view-chart")
    page.wait_for_selector("#chart-optimal table.chart")
    chart = solve(analysis_rules(make(preset)).replace(decks=None)).chart
    for kind, key in (("hard", "hard"), ("soft", "soft"), ("pair", "pairs")):
        shown = page.eval_on_selector_all(
            f"#chart-optimal table[data-kind={kind}] tr", "rs => rs.slice(1).map(r => "
            "[...r.querySelectorAll('td')].map(td => td.textContent))")
        assert shown == [[p.value for p in plays] for plays in getattr(chart, key).values()]
    title = page.get_attribute(
        "#chart-optimal table[data-kind=hard] td[data-row='16'][data-up='T']", "title")
    evs = solve(analysis_rules(make(preset)).replace(decks=None)).action_evs[("hard", 16, "T")]
    assert f"stand {evs[next(a for a in evs if a.name == 'STAND')]:+.4f}" in title
    shot(page, f"chart_{preset}.png")


def test_the_controls_stay_put_and_the_bet_box_holds_six_digits(page, server):
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 900})
    setup_table(page, preset="vegas-strip", players=("person", "basic"), seed=6)
    game = the_game(app)
    page.fill("#bet-0", "999999")
    fits = page.eval_on_selector("#bet-0", "i => i.scrollWidth <= i.clientWidth")
    assert fits  # six digits shown whole
    page.fill("#bet-0", "10")
    game.table.shoe.stack("TS 9C 6H 7D 8D TH")  # seat 1: T 7 stands; dealer 6 T draws 8
    press(page, "#deal")
    top = page.eval_on_selector("#controls", "c => c.getBoundingClientRect().top")
    press(page, "s", key=True)
    page.wait_for_selector("#next:not([disabled])")
    assert page.inner_text("#seat-0 .seat-net").startswith("round ")
    after = page.eval_on_selector("#controls", "c => c.getBoundingClientRect().top")
    assert after == top  # the round's result line does not push the controls down


def test_a_seed_that_is_not_a_number_is_refused_not_replaced(page, server):
    app, _ = server
    before = len(list(app.state.store.games()))
    page.fill("#seed", "abc")
    page.click("#sit")
    page.wait_for_selector("#message:not([hidden])")
    assert 'seed "abc" is not a whole number' in page.inner_text("#message")
    assert page.is_hidden("#table") and len(list(app.state.store.games())) == before


# ---------------------------------------------------------------- issue 33: items 2-7
INTERVALS_MS = (80, 200, 350, 500)
CONTROLS = ("hit", "stand", "double", "split", "surrender", "insure", "decline", "deal", "next")


def _selector(name: str) -> str:
    return f"#{name}" if name in ("deal", "next") else f"#play-controls [data-action={name}]"


def _centre(page, name: str) -> tuple[float, float]:
    box = page.locator(_selector(name)).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def _rects(page) -> dict[str, tuple[float, ...]]:
    """Where each control is, and whether it is shown (a hidden one has no box)."""
    return dict(page.eval_on_selector_all(
        "#play-controls button:not(#raise)", "bs => bs.map(b => { "
        "const r = b.getBoundingClientRect(); "
        "return [b.dataset.action || b.id, [r.left, r.top, r.width, r.height, "
        "b.offsetParent !== null]]; })"))


def _double(page, game, name: str, interval_ms: int, touch: bool) -> None:
    """Two clicks (or taps) on the spot of control ``name``, ``interval_ms`` apart on the
    page's clock: exactly one request goes out, and the table moves by one frame."""
    x, y = _centre(page, name)
    hit = page.touchscreen.tap if touch else page.mouse.click
    sent: list[str] = []

    def record(request) -> None:
        if "/api/" in request.url and request.method == "POST":
            sent.append(request.url)

    frames = game.frame_count
    page.on("request", record)
    with page.expect_response(lambda r: "/api/" in r.url and r.request.method == "POST"):
        hit(x, y)
    page.wait_for_function("() => window.bjIdle()")  # the answer is drawn
    page.clock.run_for(interval_ms)
    hit(x, y)  # the second click of the double click, where the first one was
    in_flight = not page.evaluate("window.bjIdle()")
    page.wait_for_timeout(80)  # a second request, had one gone, is seen by now
    page.remove_listener("request", record)
    assert not in_flight and len(sent) == 1, (name, interval_ms, sent)
    assert game.frame_count == frames + 1, (name, interval_ms, game.frame_count - frames)
    page.clock.run_for(DOUBLE_MS)  # a person's pause before the next press


def _double_press_every_control(page, app, touch: bool) -> None:
    game = the_game(app)
    page.clock.pause_at(time.time() + 3600)  # the page's clock moves only when told
    for interval in INTERVALS_MS:
        # round 1: 8 8 v A (hole 7): no insurance, split; hand 1: 8 2 hits 5 (15) and
        # stands; hand 2: 8 3 doubles onto T (21); the dealer stands on soft 18
        game.table.shoe.stack("8S AH 8D 7C 2C 5D 3H TD")
        page.fill("#bet-0", "10")
        _double(page, game, "deal", interval, touch)
        assert game.table.phase.value == "insurance"
        _double(page, game, "decline", interval, touch)
        _double(page, game, "split", interval, touch)
        _double(page, game, "hit", interval, touch)
        assert len(game.table.seats[0].hands[0].cards) == 3  # one hit, not two
        _double(page, game, "stand", interval, touch)
        # issue 24's case: the second click did not stand hand 2 unseen
        assert game.table.to_act == (0, 1) and not game.table.seats[0].hands[1].done
        _double(page, game, "double", interval, touch)
        # the round's last action: the result is shown, and the next round not dealt
        assert game.table.phase.value == "settled"
        sync_api.expect(page.locator("#seat-0-hand-0 .result")).to_have_text("Lose -10")
        sync_api.expect(page.locator("#seat-0-hand-1 .result")).to_have_text("Win +20")
        assert page.is_enabled("#next")
        _double(page, game, "next", interval, touch)
        assert game.table.phase.value == "betting"
        # round 2: T 6 v A (hole 7): insurance, then surrender
        game.table.shoe.stack("TS AD 6C 7H")
        _double(page, game, "deal", interval, touch)
        _double(page, game, "insure", interval, touch)
        assert game.table.seats[0].insurance == 5 and game.table.phase.value == "player_turns"
        _double(page, game, "surrender", interval, touch)
        assert game.table.phase.value == "settled"
        sync_api.expect(page.locator("#seat-0-hand-0 .result")).to_have_text("Surrender -5")
        _double(page, game, "next", interval, touch)
        log = [d["action"] for d in game.state()["log"]]
        assert log[-7:] == ["decline", "split", "hit", "stand", "double", "insure", "surrender"]
    check_conserved(game)


def test_a_double_click_acts_once_on_every_control(page, server):
    """Issue 33, items 2 and 3, desktop: every action, Deal and Next round double-clicked
    80, 200, 350 and 500 ms apart act once, and the round's result is shown."""
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="vegas-strip", seed=11)
    _double_press_every_control(page, app, touch=False)


def test_a_double_tap_acts_once_on_every_control(phone, server):
    """Issue 33, items 2 and 3, a 390 px phone: the same with double taps (a tap on Stand
    that ends the round no longer lands on Next round and skips the result)."""
    app, _ = server
    setup_table(phone, preset="vegas-strip", seed=12)
    _double_press_every_control(phone, app, touch=True)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_buttons_never_move_or_hide(browser, server, device):
    """Issue 33, item 7: whatever is legal (betting, insurance, a pair, a split hand,
    settled), every button is shown, the same size, at the same place."""
    app, url = server
    failures: list[str] = []
    page = open_page(browser, url, failures, **(
        PHONE if device == "phone" else {"viewport": {"width": 1280, "height": 800}}))
    setup_table(page, preset="vegas-strip", seed=13)
    game = the_game(app)
    game.table.shoe.stack("8S AH 8D 7C 2C TD 3H 5D")
    seen = [_rects(page)]
    legal_sets = [enabled_actions(page)]
    for what in ("#deal", "#play-controls [data-action=decline]",
                 "#play-controls [data-action=split]", "#play-controls [data-action=stand]",
                 "#play-controls [data-action=stand]"):
        press(page, what)
        seen.append(_rects(page))
        legal_sets.append(enabled_actions(page))
    assert game.table.phase.value == "settled"
    assert len({frozenset(s) for s in legal_sets}) >= 4  # the legal sets did change
    assert all(shown for *_, shown in seen[0].values()) and len(seen[0]) == 9
    assert all(rects == seen[0] for rects in seen), [
        {k: v for k, v in rects.items() if v != seen[0][k]} for rects in seen]
    page.context.close()
    assert failures == []


def _in_sight(page, selector: str) -> bool:
    """The element lies within the viewport and is on top at its centre (not under the
    sticky bar nor off-screen)."""
    return page.eval_on_selector(selector, """e => {
        const r = e.getBoundingClientRect();
        if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5
            || r.width === 0) return false;
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return top !== null && (top === e || e.contains(top));
    }""")


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_the_values_and_the_charts_cell_text_are_in_sight(browser, server, device):
    """Issue 33, item 6: at 1280 x 800 (two seats) and on a 390 px phone (five seats) the
    values table of the decision awaited is on screen without scrolling; in the chart
    view the hovered (desktop) or tapped (phone) cell's values are on screen."""
    app, url = server
    failures: list[str] = []
    phone = device == "phone"
    page = open_page(browser, url, failures, **(
        PHONE if phone else {"viewport": {"width": 1280, "height": 800}}))
    players = ("person",) * 5 if phone else ("person", "basic")
    setup_table(page, preset="vegas-strip", players=players, seed=14)
    the_game(app).table.shoe.stack("8S 9C 9D 9H 9S 6H 8D 7C 7D 7H 7S TC")
    for i in range(len(players) if phone else 1):
        page.fill(f"#bet-{i}", "10")
    press(page, "#deal")
    assert page.evaluate("scrollY") == 0
    assert _in_sight(page, "#values-table")
    for cell in page.locator("#values-table td").all():
        assert _in_sight(page, f"#values-table td[data-action={cell.get_attribute('data-action')}]")
    shot(page, f"values_in_sight_{device}.png", full_page=False)
    if phone:  # a phone has no mouse: a tap
        page.locator("#view-chart").tap()
    else:
        page.click("#view-chart")
    page.wait_for_selector("#chart-optimal table.chart")
    cell = "#chart-optimal table[data-kind=pair] td[data-row='8'][data-up='T']"
    if phone:
        page.locator(cell).tap()
    else:
        page.hover(cell)
    sync_api.expect(page.locator("#chart-cell")).to_contain_text("8,8 v 10")
    assert _in_sight(page, "#chart-cell") and _in_sight(page, cell)
    shot(page, f"chart_cell_in_sight_{device}.png", full_page=False)
    page.context.close()
    assert failures == []


def test_a_replaced_table_leaves_nothing_on_screen(page, server):
    """Issue 33, item 4: once this browser's table is gone (replaced when the server was
    full), the next press says so and the header no longer shows the old table."""
    app, _ = server
    setup_table(page, preset="terminal-21", seed=15)
    assert "terminal-21" in page.inner_text("#rules-summary")
    key = next(c["value"] for c in page.context.cookies() if c["name"] == "bj_session")
    assert app.state.store.drop(key)
    page.fill("#bet-0", "10")
    with page.expect_response("**/api/deal") as resp:
        page.click("#deal")
    assert resp.value.status == 404
    page.wait_for_selector("#setup:not([hidden])")
    assert "terminal-21" not in page.inner_text("#rules-summary")
    assert "no table" in page.inner_text("#rules-summary")
    assert page.is_hidden("#table") and "set one up" in page.inner_text("#message")


def test_highest_hand_settlement_is_explained_on_the_table(page, server):
    """Issue 33, item 5 (terminal-21): the table says how it pays, and a 20 that beat
    the dealer's 19 but lost to a 21 at the table says why it lost."""
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="terminal-21", players=("person", "person"), seed=16)
    game = the_game(app)
    # seat 1: T T (20) stands; seat 2: 9 5 hits 7 (21); the dealer: 9 T (19) stands
    game.table.shoe.stack("TS 9S 9C TD 5H TH 7C")
    rule = page.inner_text("#settlement")
    assert page.is_visible("#settlement") and rule.startswith("Highest hand wins")
    assert "dealer wins ties" in rule and "even one that beats the dealer" in rule
    page.fill("#bet-0", "10")
    page.fill("#bet-1", "10")
    press(page, "#deal")
    press(page, "s", key=True)
    press(page, "h", key=True)
    if game.table.phase.value != "settled":
        press(page, "s", key=True)
    assert [r.outcome.value for s in game.table.seats for r in s.results] == ["loss", "win"]
    assert page.inner_text("#seat-0-hand-0 .result") == "Lose -10"
    assert page.inner_text("#seat-0-hand-0 .why") == (
        "21 at seat 2 is the highest hand at the table: only it can win")
    assert page.locator("#seat-1-hand-0 .why").count() == 0  # the winner needs no word
    # and in the decision bar, in sight
    assert page.inner_text("#round-why") == (
        "Player 1: 21 at seat 2 is the highest hand at the table: only it can win")
    assert page.is_visible("#round-why")
    shot(page, "terminal21_highest_hand.png", full_page=False)


def test_the_usual_settlement_says_nothing_more(page, server):
    app, _ = server
    setup_table(page, preset="vegas-strip", players=("person", "person"), seed=17)
    the_game(app).table.shoe.stack("TS 9S 9C TD 5H TH 7C")
    assert page.is_hidden("#settlement")
    page.fill("#bet-0", "10")
    page.fill("#bet-1", "10")
    press(page, "#deal")
    press(page, "s", key=True)
    press(page, "h", key=True)
    assert page.locator(".why").count() == 0  # 20 beats 19: a plain win
    assert page.inner_text("#seat-0-hand-0 .result") == "Win +10"


def test_the_run_view_reads_like_a_summary(page, server):
    """Issue 33, item 8: the run view names the model (never its path) and rounds."""
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 800})
    page.click("#view-runs")
    page.wait_for_selector(".run[data-run=q-run] table.run-summary")
    text = page.inner_text("#runs-view")
    assert str(app.state.run_folder.parent) not in text and "/" not in text.replace(
        "(blackjack-web --runs FOLDER)", "")
    rows = dict(page.eval_on_selector_all(
        ".run-summary tr", "rs => rs.map(r => [r.children[0].textContent, "
        "r.children[1].textContent])"))
    assert rows["model"] == "model.npz" and rows["regret"] == "0.00678"
    assert rows["exact return of the greedy policy (per unit bet)"] == "-0.04990"
    assert page.is_visible(".run canvas.curve")
    shot(page, "run_view.png", full_page=False)


def test_the_words_say_what_is_offered(page, server):
    """Issue 33, item 9 on the page: under late surrender the pre-peek prompt offers
    insurance only, with its cost; an ace upcard reads "A showing"; the values say the
    hole card is the difference between the shoe's count and the cards not yet seen;
    a 6-deck chart says it is the infinite-deck optimum; sutton-barto's legend lists hit
    and stand only; a seat out of chips is told what to do, not offered a bet."""
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="vegas-strip", seed=18)
    game = the_game(app)
    game.table.shoe.stack("TS AH 6D 7C")
    page.fill("#bet-0", "10")
    press(page, "#deal")
    turn = page.inner_text("#turn")
    assert "insurance costs 5 and pays 10 if the dealer has blackjack" in turn
    assert "surrender" not in turn and "insurance / surrender" not in turn
    assert page.inner_text("#dealer-total") == "A showing"
    shot(page, "insurance_offer.png", full_page=False)
    press(page, "#play-controls [data-action=decline]")
    source = page.inner_text("#values-source")
    assert "309 cards not yet seen (the 308 left in the shoe and the dealer's face-down card" \
        in source and "308 of 312 cards left" in page.inner_text("#shoe")
    page.click("#view-chart")
    page.wait_for_selector("#chart-optimal table.chart")
    about = page.inner_text("#chart-about")
    assert "with an infinite deck" in about and "6-deck shoe" in about
    assert "exact optimal" not in about
    page.click("#view-table")
    page.click("#show-setup")
    setup_table(page, preset="sutton-barto", seed=19)
    page.click("#view-chart")
    page.wait_for_function("() => document.querySelector('#chart-title').textContent"
                           ".includes('sutton-barto')")
    legend = page.eval_on_selector_all("#chart-legend .legend", "ls => ls.map(l => l.textContent)")
    assert legend == ["H hit", "S stand"]
    assert page.inner_text("#chart-about").startswith("The exact optimal play")


def test_a_seat_out_of_chips_is_not_offered_a_bet(page, server):
    app, _ = server
    page.fill("#bankroll", "10")
    setup_table(page, preset="vegas-strip", seed=20)
    the_game(app).table.shoe.stack("TS 9H 6D TC")  # 16 stands against 19: lost
    page.fill("#bet-0", "10")
    press(page, "#deal")
    press(page, "s", key=True)
    press(page, "Enter", key=True)
    assert page.locator("#bet-0").count() == 0
    assert "out of chips" in page.inner_text("#broke-0")


# ---------------------------------------------------------------- issue 39: items 15-20
SIZES = {"desktop": {"viewport": {"width": 1280, "height": 800}}, "phone": PHONE}


@pytest.fixture(params=list(SIZES))
def sized(request, browser, server):
    """A page at 1280 x 800 and at a 390 x 844 phone (the issue's two widths)."""
    failures: list[str] = []
    page = open_page(browser, server[1], failures, **SIZES[request.param])
    page.device = request.param
    yield page
    page.context.close()
    assert failures == []


def test_a_no_hole_card_dealer_shows_its_upcard_not_a_soft_total(sized, server):
    """Item 15: under european-no-hole-card the dealer's one card, an ace, read "soft 11"
    (the upcard was named only beside a face-down hole card); it reads "A showing", and
    the dealer's total once it has played."""
    app, _ = server
    setup_table(sized, preset="european-no-hole-card", seed=39)
    game = the_game(app)
    game.table.shoe.stack("TS AH 7C 9D")  # 17 against an ace; the dealer draws 9: soft 20
    sized.fill("#bet-0", "10")
    press(sized, "#deal")
    if game.table.phase.value == "insurance":
        press(sized, "#play-controls [data-action=decline]")
    assert len(game.table.dealer.cards) == 1
    assert sized.inner_text("#dealer-total") == "A showing"
    assert "soft" not in sized.inner_text("#dealer-total")
    press(sized, "s", key=True)
    sized.wait_for_selector("#next:not([disabled])")
    assert sized.inner_text("#dealer-total") == "soft 20"
    shot(sized, f"enhc_ace_showing_{sized.device}.png", full_page=False)


def test_a_player_out_of_chips_is_told_so_and_offered_a_new_table(sized, server):
    """Item 16: with every seat out of chips the bar said "Place your bets, then Deal",
    Deal glowed, and pressing it answered 422. It says they are out of chips, Deal is
    off (no request goes out), and a New table button opens the setup."""
    app, _ = server
    sized.fill("#bankroll", "10")
    setup_table(sized, preset="vegas-strip", seed=20)
    the_game(app).table.shoe.stack("TS 9H 6D TC")  # 16 stands against 19: lost
    sized.fill("#bet-0", "10")
    press(sized, "#deal")
    press(sized, "s", key=True)
    press(sized, "Enter", key=True)  # the next round: nobody can bet
    turn = sized.inner_text("#turn")
    assert "out of chips" in turn and "Place your bets" not in turn
    assert sized.is_disabled("#deal")
    assert "legal" not in (sized.get_attribute("#deal", "class") or "")
    sent: list[str] = []
    sized.on("request", lambda r: sent.append(r.url) if "/api/deal" in r.url else None)
    sized.clock.fast_forward(DOUBLE_MS)
    sized.keyboard.press("Enter")
    sized.wait_for_timeout(300)
    assert sent == []
    assert _in_sight(sized, "#new-table")
    shot(sized, f"out_of_chips_{sized.device}.png", full_page=False)
    sized.click("#new-table")
    assert sized.is_visible("#setup")


def _acting_hand_in_sight(page) -> bool:
    return page.evaluate("""() => {
        const h = document.querySelector('.hand-box.acting');
        const bar = document.querySelector('#controls').getBoundingClientRect().top;
        const r = h.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= bar + 0.5;
    }""")


def test_the_hand_to_act_is_scrolled_into_sight(sized, server):
    """Item 17: in a 3-person terminal-21 hot seat on a phone the third seat's hand sat
    under the decision bar (its hand at y 591-726, the bar from 583); each hand to act
    is now in sight, above the bar."""
    app, _ = server
    setup_table(sized, preset="terminal-21", players=("person",) * 3, seed=40)
    game = the_game(app)
    game.table.shoe.stack("9S TS 7D 9C 5H 8H 6C 2C 8C 6D TD")
    for seat in range(3):
        sized.fill(f"#bet-{seat}", "10")
    press(sized, "#deal")
    seen = []
    while game.table.to_act is not None:
        seen.append(game.table.to_act[0])
        assert _acting_hand_in_sight(sized), (sized.device, game.table.to_act)
        press(sized, "s", key=True)
    assert seen == [0, 1, 2]
    shot(sized, f"terminal21_settled_{sized.device}.png", full_page=False)


def test_a_long_hand_stays_in_its_seat(sized, server):
    """Item 18: with five seats on a phone a sixth card covered the neighbouring seat
    (five cards already spilled 9 px); the cards of a long hand overlap more instead."""
    app, _ = server
    setup_table(sized, preset="vegas-strip", players=("person",) * 5, seed=41,
                overrides='{"decks": 4}')
    game = the_game(app)
    # seat 1: 2 2 then 2 2 3 3 (7 cards, 17 hard ... every hit small); the others stand
    game.table.shoe.stack("2C 9C 9D 9H 9S 6H 2D 7C 7D 7H 7S TC 2H 2S 3C 3D 4C")
    for seat in range(5):
        sized.fill(f"#bet-{seat}", "10")
    press(sized, "#deal")
    for _ in range(5):
        press(sized, "h", key=True)
    assert len(game.table.seats[0].hands[0].cards) == 7
    spill = sized.eval_on_selector_all(".seat", """ss => ss.flatMap(s => {
        const b = s.getBoundingClientRect();
        return [...s.querySelectorAll('.card')].map(c => c.getBoundingClientRect())
          .filter(r => r.left < b.left - 0.5 || r.right > b.right + 0.5)
          .map(r => [s.id, r.left, r.right, b.left, b.right]); })""")
    assert spill == []
    # each card's corner (rank and suit) is still in sight: the next card starts after it
    gaps = sized.eval_on_selector_all("#seat-0 .card", "cs => cs.map(c => "
                                      "c.getBoundingClientRect().left)")
    steps = [b - a for a, b in itertools.pairwise(gaps)]
    assert min(steps) >= 8, steps
    shot(sized, f"long_hand_{sized.device}.png", full_page=False)


def test_the_run_view_lays_nested_figures_out_as_rounded_rows(sized, server):
    """Item 19: a nested figure (regret if split hands play as index) showed as raw
    text with 17-digit floats; every figure is rounded and each entry is its own row."""
    sized.click("#view-runs")
    sized.wait_for_selector(".run[data-run=q-run] table.run-summary")
    rows = dict(sized.eval_on_selector_all(
        ".run-summary tr", "rs => rs.map(r => [r.children[0].textContent, "
        "r.children[1].textContent])"))
    assert rows["regret if split hands play as index · 0"] == "0.00678"
    assert rows["regret if split hands play as index · 1"] == "0.00702"
    text = sized.inner_text("#runs-view")
    assert "{" not in text and not re.search(r"\d\.\d{6,}", text), text


def test_the_values_read_in_the_buttons_order_and_the_help_says_where(sized, server):
    """Item 20: the values in the bar were listed stand, hit, double under buttons that
    read Hit, Stand, Double; and the help said the numbers were "beside the buttons"."""
    app, _ = server
    setup_table(sized, preset="vegas-strip", seed=42)
    the_game(app).table.shoe.stack("8S 6H 8D TC")
    sized.fill("#bet-0", "10")
    press(sized, "#deal")
    shown = sized.eval_on_selector_all("#values-table td[data-action]",
                                       "ts => ts.map(t => t.dataset.action)")
    buttons = sized.eval_on_selector_all("#play-controls [data-action]",
                                         "bs => bs.map(b => b.dataset.action)")
    assert shown == [b for b in buttons if b in shown] and len(shown) == 5
    assert "beside the buttons" not in sized.inner_text("#values-explained")
    assert "above the buttons" in sized.inner_text("#values-explained")
    shot(sized, f"pair_values_{sized.device}.png", full_page=False)
    press(sized, "#play-controls [data-action=split]")
    shot(sized, f"split_{sized.device}.png", full_page=False)


def test_the_values_panel_stays_inside_the_felt(page, server):
    """Item 20: the Values panel's bottom corners passed the felt's curved edge."""
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="vegas-strip", seed=43)
    outside = page.evaluate("""() => {
        const felt = document.querySelector('main');
        const m = felt.getBoundingClientRect();
        const style = getComputedStyle(felt);
        const [rx, ry] = style.borderBottomLeftRadius.split(' ').map(parseFloat);
        const ryy = Number.isFinite(ry) ? ry : rx;
        const v = document.querySelector('#values').getBoundingClientRect();
        const inside = (x, y, cx) => {  // within the ellipse of the corner at cx
          if (y <= m.bottom - ryy) return true;
          const dx = (x - cx) / rx, dy = (y - (m.bottom - ryy)) / ryy;
          return dx * dx + dy * dy <= 1.0001;
        };
        return [[v.left, v.bottom, m.left + rx], [v.right, v.bottom, m.right - rx]]
          .filter(([x, y, cx]) => (x < m.left + rx || x > m.right - rx) && !inside(x, y, cx));
    }""")
    assert outside == []


def test_the_chart_uses_the_width_of_the_page(page, server):
    """Item 20: the chart used the left 330 px of a 1280 px page."""
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="vegas-strip", seed=44)
    page.click("#view-chart")
    page.wait_for_selector("#chart-optimal table.chart")
    span = page.eval_on_selector_all("#chart-optimal table.chart", """ts => {
        const rs = ts.map(t => t.getBoundingClientRect());
        return Math.max(...rs.map(r => r.right)) - Math.min(...rs.map(r => r.left)); }""")
    assert span >= 0.6 * 1280, span
    shot(page, "chart_1280.png", full_page=False)


def test_a_bot_is_not_named_as_the_dealer(page, server):
    """Item 20: a bot playing the "dealer" strategy sat beside the real Dealer named
    "dealer"."""
    setup_table(page, preset="vegas-strip", players=("person", "dealer", "basic"), seed=45)
    names = page.eval_on_selector_all(".seat-name", "ns => ns.map(n => n.textContent)")
    assert names == ["1. Player 1", "2. dealer-style bot", "3. basic bot"]


def test_seven_seats_keep_their_cards_readable(page, server):
    """Item 20: the cards were tiny with seven seats (41 px wide at 1280)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="atlantic-city", players=("person",) * 7, seed=46)
    for seat in range(7):
        page.fill(f"#bet-{seat}", "10")
    press(page, "#deal")
    width = page.eval_on_selector("#seat-0 .card", "c => c.getBoundingClientRect().width")
    assert width >= 50, width
    shot(page, "seven_seats_1280.png", full_page=False)


def test_a_long_idle_table_is_warned_about_before_it_can_be_replaced(sized, server):
    """Item 20: the page never polls, so a person thinking longer than the eviction age
    on a full server lost the table without warning. Before that age the bar says so,
    and Keep my table asks the server (which keeps the table as used)."""
    app, _ = server
    setup_table(sized, preset="vegas-strip", seed=47)
    age = app.state.store.min_idle
    assert sized.is_hidden("#idle")
    sized.clock.fast_forward(int(1000 * (age - 200)))
    sized.wait_for_timeout(100)
    assert sized.is_hidden("#idle")
    sized.clock.fast_forward(1000 * 150)
    sized.wait_for_selector("#idle:not([hidden])")
    assert "can be given to a new visitor" in sized.inner_text("#idle")
    assert _in_sight(sized, "#keep")
    shot(sized, f"idle_warning_{sized.device}.png", full_page=False)
    with sized.expect_response("**/api/session"):
        sized.click("#keep")
    sized.wait_for_selector("#idle", state="hidden")


def test_a_click_begun_before_the_table_changed_is_no_decision(page, server):
    """Issue 33, item 3: a press that began (pointer down) while the table still showed
    the state before is not taken, even if released once the new state is drawn and
    long after the press before (Chromium sends the pointerdown to the disabled button
    and the click once it is enabled again)."""
    app, _ = server
    page.set_viewport_size({"width": 1280, "height": 800})
    setup_table(page, preset="vegas-strip", seed=21)
    game = the_game(app)
    game.table.shoe.stack("TS 9H 2D 7C 3C 4D")  # T 2 v 9: hit (3), then hit or stand
    page.fill("#bet-0", "10")
    press(page, "#deal")
    real_act = game.act

    def slow_act(*args, **kwargs):  # the server takes a second to answer
        time.sleep(1.0)
        real_act(*args, **kwargs)

    game.act = slow_act
    page.clock.pause_at(time.time() + 3600)
    stand = _centre(page, "stand")
    with page.expect_response("**/api/act"):
        page.click("#play-controls [data-action=hit]")
        page.clock.run_for(DOUBLE_MS + 100)  # well after the Hit: not a double click
        page.mouse.move(*stand)
        page.mouse.down()  # on Stand, while the table still shows T 2 (Stand disabled)
        page.clock.run_for(100)
    page.wait_for_function("() => window.bjIdle()")  # T 2 3 drawn, Stand enabled again
    page.clock.run_for(DOUBLE_MS + 100)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/api/" in r.url else None)
    page.mouse.up()  # the click: begun before T 2 3 was on screen
    page.wait_for_timeout(300)
    assert sent == [] and page.evaluate("window.bjIdle()")
    assert [d["action"] for d in game.state()["log"]] == ["hit"]
    assert game.table.to_act == (0, 0) and len(game.table.seats[0].hands[0].cards) == 3
    # a new press on it, begun now, is taken
    page.clock.run_for(DOUBLE_MS)
    game.act = real_act
    with page.expect_response("**/api/act"):
        page.mouse.click(*stand)
    page.wait_for_function("() => window.bjIdle()")
    assert [d["action"] for d in game.state()["log"]] == ["hit", "stand"]
