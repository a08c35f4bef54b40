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


def test_a_cold_server_computes_each_rule_set_once_for_sessions_starting_together(monkeypatch):
    """Four new sessions at once on a cold server (caches cleared), infinite deck: each
    first decision is answered within COLD_LIMIT s, and the rule set's solution is
    computed once, the other requests waiting for it (values.once), not four times."""
    import blackjack_env.analysis as analysis
    from blackjack_env.analysis import solve as real_solve
    from blackjack_env.analysis.solve import _solve_cached
    from blackjack_env.web import values

    COLD_LIMIT = 10.0  # s; measured 0.3-0.6 s on the 2-core machine under load 8
    _solve_cached.cache_clear()
    monkeypatch.setattr(values, "_ONCE", {})
    calls: list[float] = []

    def counting_solve(rules):
        calls.append(time.monotonic())
        time.sleep(0.3)  # a slow first computation, so the four really overlap
        return real_solve(rules)

    monkeypatch.setattr(analysis, "solve", counting_solve)
    monkeypatch.setattr(values, "solve", counting_solve)  # imported at its top
    app = make_app()
    firsts: dict[int, float] = {}
    errors: list[str] = []

    def one(i: int) -> None:
        with TestClient(app) as browser:
            start = time.monotonic()
            resp = browser.post("/api/session", json={
                "players": ["person"], "seed": i, "overrides": {"decks": None}})
            resp = browser.post("/api/deal", json={"bets": {"0": 10}})
            if resp.status_code != 200 or not resp.json()["values"]["available"]:
                errors.append(resp.text[:200])
            firsts[i] = time.monotonic() - start

    threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(firsts) == 4
    assert max(firsts.values()) < COLD_LIMIT, firsts
    assert len(calls) == 1, f"the rule set was solved {len(calls)} times"
    print(f"cold start, 4 sessions at once: first decisions {sorted(firsts.values())} s")
