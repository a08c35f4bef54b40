"""What the page is told to say (issue 33, item 9): only what is offered, the insurance
cost, an ace upcard, the cards not yet seen, the chart's legend and a seat out of chips.
Expected figures are worked out by hand in each test's comment."""

from __future__ import annotations

import pytest

from tests.web.helpers import check_conserved, client, game_of, make_app, post, sit


@pytest.fixture()
def app():
    return make_app()


@pytest.fixture()
def browser(app):
    return client(app)


def test_insurance_offer_says_its_cost_and_an_ace_is_shown_as_an_ace(app, browser):
    # vegas-strip (late surrender): T 6 v A (hole 7), bet 10: insurance costs 5 and pays
    # 10; surrender is not offered before the peek (it is late), so not said
    sit(browser, app=app, cards="TS AH 6D 7C", players=["person"], preset="vegas-strip")
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    assert state["phase"] == "insurance" and set(state["legal"]) == {"insure", "decline"}
    assert state["insurance"] == {"even_money": False, "cost": 5, "pays": 10}
    assert state["dealer"]["showing"] == "A"  # was drawn as "soft 11 showing"
    state = post(browser, "/api/act", {"seat": 0, "action": "insure"})
    assert state["insurance"] is None and state["dealer"]["showing"] == "A"
    assert state["seats"][0]["insurance"] == 5  # what the offer said it would cost
    state = post(browser, "/api/act", {"seat": 0, "action": "stand"})
    assert state["dealer"]["showing"] is None and state["dealer"]["total"] == 18
    # an odd bet: 15 -> insurance 7.5 (an exact half), pays 15
    post(browser, "/api/next", {})
    game_of(app, browser).table.shoe.stack("TS AH 6D 7C")
    state = post(browser, "/api/deal", {"bets": {"0": 15}})
    assert state["insurance"] == {"even_money": False, "cost": 7.5, "pays": 15}
    check_conserved(game_of(app, browser))


def test_even_money_and_early_surrender_are_said_as_offered(app, browser):
    # A K v A (hole 7), bet 10: even money pays 10 now; early surrender is offered
    # before the peek under surrender=early (the 16 of the next round)
    sit(browser, app=app, cards="AS AH KD 7C", players=["person"], preset="vegas-strip",
        overrides={"surrender": "early"})
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    assert state["insurance"] == {"even_money": True, "cost": None, "pays": 10}
    assert state["dealer"]["showing"] == "A"
    # a 6 upcard reads 6
    sit(browser, app=app, cards="TS 6H 9D 7C", players=["person"], preset="vegas-strip")
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    assert state["dealer"]["showing"] == "6" and state["insurance"] is None


def test_the_values_say_which_cards_are_not_yet_seen(app, browser):
    # six decks (312 cards), T 6 v 9, hole 7 face down: 309 cards not seen by the
    # players = the 308 left in the shoe + the hole card
    sit(browser, app=app, cards="TS 9H 6D 7C", players=["person"], preset="vegas-strip")
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    assert state["shoe"]["remaining"] == 308
    assert ("given the 309 cards not yet seen (the 308 left in the shoe and the dealer's "
            "face-down card;") in state["values"]["source"]


def test_a_seat_out_of_chips_is_told_what_to_do(app, browser):
    # bankroll 10, bet 10, T 6 v 9 (hole T) stands and loses: bankroll 0
    sit(browser, app=app, cards="TS 9H 6D TC", players=["person"], preset="vegas-strip",
        bankroll=10)
    assert post(browser, "/api/deal", {"bets": {"0": 10}})["phase"] == "player_turns"
    post(browser, "/api/act", {"seat": 0, "action": "stand"})
    state = post(browser, "/api/next", {})
    seat = state["seats"][0]
    assert seat["bankroll"] == 0 and seat["broke"] and seat["next_bet"] == 0  # was 10
    game = game_of(app, browser)
    before = game.state()
    # no bet at all: 422 (not the 409 of a stale frame), saying what to do
    resp = browser.post("/api/deal", json={"bets": {"0": 0}})
    assert resp.status_code == 422, resp.text
    assert "every seat is out of chips" in resp.json()["error"]
    assert "set up a new table" in resp.json()["error"]
    resp = browser.post("/api/deal", json={"bets": {}})
    assert resp.status_code == 422 and game.state() == before


def test_no_bet_at_a_table_with_chips_names_the_seats_and_the_limits(app, browser):
    sit(browser, app=app, players=["person", "person"], preset="vegas-strip")
    resp = browser.post("/api/deal", json={"bets": {}})
    assert resp.status_code == 422
    assert resp.json()["error"] == "no seat has a bet: bet 1 to 1000 at seats 1, 2, then deal"
    # a bet under the bankroll is offered as the bankroll
    sit(browser, app=app, players=["person"], preset="vegas-strip", bankroll=30, bot_bet=50)
    assert post(browser, "/api/deal", {"bets": {}}, status=422)
    assert browser.get("/api/state").json()["seats"][0]["next_bet"] == 30


def test_the_chart_legend_lists_only_the_codes_in_the_chart(app, browser):
    codes = browser.get("/api/chart?preset=sutton-barto").json()["codes"]
    assert codes == {"H": "hit", "S": "stand"}  # no double, split or surrender there
    doc = browser.get("/api/chart?preset=vegas-strip").json()
    assert {"H", "S", "D", "Ds", "P", "Rh"} <= set(doc["codes"])
    assert doc["finite"] and doc["decks"] == 6
    assert client(make_app()).get("/api/chart?preset=sutton-barto").json()["decks"] is None


def test_a_no_hole_card_dealers_one_card_is_shown_as_showing(app, browser):
    """Issue 39, item 15: under european-no-hole-card the dealer's single card (an ace)
    was sent with no ``showing`` and drawn as "soft 11"; it is sent as "A" showing until
    the dealer has played. T 7 (17) v A; the dealer then draws 9: soft 20, 17 loses."""
    sit(browser, app=app, cards="TS AH 7C 9D", players=["person"],
        preset="european-no-hole-card")
    state = post(browser, "/api/deal", {"bets": {"0": 10}})
    if state["phase"] == "insurance":
        state = post(browser, "/api/act", {"seat": 0, "action": "decline"})
    assert len(state["dealer"]["cards"]) == 1 and state["dealer"]["showing"] == "A"
    state = post(browser, "/api/act", {"seat": 0, "action": "stand"})
    assert state["dealer"]["showing"] is None
    assert (state["dealer"]["total"], state["dealer"]["soft"]) == (20, True)


def test_a_table_where_nobody_can_bet_says_so_instead_of_offering_a_deal(app, browser):
    """Issue 39, item 16: a bankroll of 10 lost on the first round (16 v 19): in the next
    betting phase the state says why no round can be dealt (the page shows it in place
    of "Place your bets, then Deal" and turns Deal off); with chips left it says
    nothing."""
    state = sit(browser, app=app, cards="TS 9H 6D TC", players=["person"],
                preset="vegas-strip", bankroll=10)
    assert state["cannot_deal"] is None
    post(browser, "/api/deal", {"bets": {"0": 10}})
    post(browser, "/api/act", {"seat": 0, "action": "stand"})
    state = post(browser, "/api/next", {})
    assert state["phase"] == "betting" and state["seats"][0]["bankroll"] == 0
    assert state["cannot_deal"].startswith("You are out of chips (under the table minimum")
    assert "new table" in state["cannot_deal"]
