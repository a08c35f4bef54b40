"""Work on one table never stalls another session: each table's work runs on a worker
thread, and the requests of one table are served one at a time."""

from __future__ import annotations

import threading
import time

from starlette.testclient import TestClient

from blackjack_env.web.server import COOKIE
from tests.web.helpers import make_app

SLOW = 1.5  # seconds the patched table takes per step


def _session(client: TestClient) -> str:
    resp = client.post("/api/session", json={"mode": "watch", "players": ["basic"], "seed": 1})
    assert resp.status_code == 200, resp.text
    key = resp.cookies.get(COOKIE)
    client.cookies.clear()
    return key


def test_a_slow_table_does_not_block_another_session():
    app = make_app()
    with TestClient(app) as client:  # one event loop serves every request below
        slow_key, fast_key = _session(client), _session(client)
        slow_game = app.state.store.get(slow_key)
        real_step = slow_game.step

        def slow_step() -> None:  # a first-time strategy computed inside the step
            time.sleep(SLOW)
            real_step()

        slow_game.step = slow_step
        done: dict[str, float] = {}

        def post_slow() -> None:
            resp = client.post("/api/step", json={}, headers={"Cookie": f"{COOKIE}={slow_key}"})
            assert resp.status_code == 200, resp.text
            done["slow"] = time.monotonic()

        start = time.monotonic()
        worker = threading.Thread(target=post_slow)
        worker.start()
        time.sleep(0.2)  # the slow step is running
        resp = client.get("/api/state", headers={"Cookie": f"{COOKIE}={fast_key}"})
        fast = time.monotonic() - start
        worker.join()
        assert resp.status_code == 200 and resp.json()["phase"] == "betting"
        # the other session was answered while the slow step still ran
        assert fast < SLOW - 0.3 < done["slow"] - start, (fast, done["slow"] - start)


def test_one_tables_requests_are_served_in_turn():
    app = make_app()
    with TestClient(app) as client:
        key = _session(client)
        game = app.state.store.get(key)
        real_step = game.step
        running = threading.Semaphore(1)
        overlaps: list[int] = []

        def guarded_step() -> None:
            if not running.acquire(blocking=False):
                overlaps.append(1)  # two steps of one table at once
                return
            try:
                time.sleep(0.05)
                real_step()
            finally:
                running.release()

        game.step = guarded_step
        headers = {"Cookie": f"{COOKIE}={key}"}
        first = client.get("/api/state", headers=headers).json()["frames"]["last"]
        threads = [threading.Thread(target=client.post, args=("/api/step",),
                                    kwargs={"json": {}, "headers": headers}) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert overlaps == []
        assert client.get("/api/state", headers=headers).json()["frames"]["last"] == first + 6
