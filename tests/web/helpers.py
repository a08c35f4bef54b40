"""Shared helpers of the web tests: an in-process app, its tables, and the invariants."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest

pytest.importorskip("starlette")
if importlib.util.find_spec("httpx2") is None:  # starlette's test client needs one of them
    pytest.importorskip("httpx")

from starlette.testclient import TestClient

from blackjack_env.engine import Phase
from blackjack_env.web.game import Game
from blackjack_env.web.server import COOKIE, WebConfig, create_app

HOSTS = ("testserver", "127.0.0.1", "localhost")


def make_app(**config: Any) -> Any:
    config.setdefault("allowed_hosts", HOSTS)
    clock = config.pop("clock", None)
    kwargs = {} if clock is None else {"clock": clock}
    return create_app(WebConfig(**config), **kwargs)


def client(app: Any) -> TestClient:
    """A browser: its own cookie jar, so its own session."""
    return TestClient(app, raise_server_exceptions=True)


def game_of(app: Any, browser: TestClient) -> Game:
    game = app.state.store.get(browser.cookies.get(COOKIE))
    assert game is not None
    return game


def sit(browser: TestClient, *, cards: str = "", app: Any = None, **body: Any) -> dict:
    """Set up a table (and stack its shoe with ``cards``); the state document."""
    body.setdefault("seed", 7)
    resp = browser.post("/api/session", json=body)
    assert resp.status_code == 200, resp.text
    if cards:
        game_of(app, browser).table.shoe.stack(cards)
    return resp.json()


def post(browser: TestClient, path: str, body: Any, status: int = 200) -> dict:
    """POST ``body``; a decision or a raise names the latest frame (as the page does)
    unless ``body`` gives one."""
    if path in ("/api/act", "/api/raise") and isinstance(body, dict) and "frame" not in body:
        latest = browser.get("/api/session").json()["state"]
        body = {**body, "frame": 0 if latest is None else latest["frame"]}
    resp = browser.post(path, json=body)
    assert resp.status_code == status, resp.text
    return resp.json()


def chips_on_table(game: Game) -> Any:
    """Chips that left the bankrolls and are not settled yet."""
    table = game.table
    total: Any = 0
    for seat in table.seats:
        if table.phase is Phase.BETTING:
            total += seat.bet
            continue
        total += sum((h.bet for h in seat.hands if not h.settled), 0)
        if table.phase is Phase.INSURANCE:
            total += seat.insurance
    return total


def check_conserved(game: Game) -> None:
    """Chips: bankrolls + unsettled stakes + the house's result = the starting chips.
    Cards: shoe + table + discard tray = the shoe's cards."""
    table = game.table
    bankrolls = sum(seat.bankroll for seat in table.seats)
    assert bankrolls + chips_on_table(game) + table.house == game.start_bankroll * len(table.seats)
    shoe = table.shoe
    if shoe.total_cards is not None:
        assert shoe.remaining + len(shoe.discards) + len(table.cards_on_table()) == \
            shoe.total_cards


def hand(state: dict, seat: int, k: int = 0) -> dict:
    return state["seats"][seat]["hands"][k]


class DirectClient:
    """A browser that calls the app in this thread, on one event loop (no test-client
    portal thread per request): the same answers, many times faster for a fuzz."""

    def __init__(self, app: Any) -> None:
        import asyncio
        import importlib

        httpx = importlib.import_module(
            "httpx2" if importlib.util.find_spec("httpx2") is not None else "httpx")
        self.loop = asyncio.new_event_loop()
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                        base_url="http://testserver")

    @property
    def cookies(self) -> Any:
        return self.client.cookies

    def get(self, url: str, **kwargs: Any) -> Any:
        return self.loop.run_until_complete(self.client.get(url, **kwargs))

    def post(self, url: str, **kwargs: Any) -> Any:
        return self.loop.run_until_complete(self.client.post(url, **kwargs))

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()
