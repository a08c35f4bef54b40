"""The web server: a Starlette app that holds one :class:`~blackjack_env.web.game.Game`
per browser session and serves the page.

Routes (every answer is JSON except the page and its two static files):

========================  =====================================================
``GET /``                 the page (``index.html``); ``/app.js``, ``/style.css``
``GET /api/options``      presets, rule fields, players, limits (for the setup form)
``POST /api/session``     a new table for this browser: ``{mode, preset, overrides,
                          players, bankroll, bot_bet, seed}``
``GET /api/session``      ``{state}``: this browser's table, or ``null`` (never 404)
``GET /api/state``        the table's state (``?frame=N``: an earlier frame)
``POST /api/deal``        ``{bets: {seat: chips}, frame?}``: the people's bets, the deal
``POST /api/act``         ``{seat, action, frame}``: a person's decision
``POST /api/raise``       ``{seat, amount, frame}``: add to the bet (``bet_raising`` rules)
``POST /api/next``        ``{frame?}``: the next round (same shoe)
``POST /api/step``        ``{frame?}``: watch mode: one step
``GET /api/chart``        the strategy chart of this table's rules (``?agent=NAME``:
                          beside an agent's, with the differing cells and their cost)
``GET /api/runs``         the run folders the server was given: curve and summary
========================  =====================================================

Every change names the state it answers: ``frame`` is the number of the latest frame the
page drew (``state.frame``). A decision or a raise must carry it, and one that answers
an earlier frame (a double click, a held key, a second tab) is refused with 409 and
changes nothing, so it can never act on the next hand.

Safety: a session is named by a random cookie (``HttpOnly``, ``SameSite=Strict``) and
can reach only its own table; sessions are bounded in number, in all and per client
address, and expire when idle; when there is no room, a new table replaces one idle for
longer than a person thinks about a hand, between rounds before one with a round in play
(:class:`SessionStore`), so neither a burst of new tables nor a player who stops to think
loses anyone's table. Every body is
read with a size limit, must be a JSON object with known keys and typed values, and a
refused request answers 4xx with ``{"error": message}`` and changes nothing. POST bodies
must be ``application/json`` (a cross-site form cannot send them), and only the
configured host names are served (no DNS rebinding; ``*`` is refused). Every answer of
the API, a 404 or 405 included, is JSON. No request reads or writes a file, imports a
module or evaluates text: the static files are read once, when the app is built, and
bots are chosen from a fixed list of names and the agents given at start; the run
folders given at start are read once, then.

Work on a table (a deal, a decision, the values of the next decision: a first-time
strategy can take seconds) runs on a worker thread, one request at a time per table, so
one session's computation never stalls the others.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

# everything a request may need is imported with the app, so no request imports a module
import blackjack_env.agents.counting
import blackjack_env.agents.fixed
import blackjack_env.analysis
import blackjack_env.envs.view.layout  # noqa: F401  (the agents' observations)
from blackjack_env.agents.seats import seat_strategy
from blackjack_env.engine import PRESETS, Action, Rules, preset
from blackjack_env.engine.rules import FIELD_NAMES
from blackjack_env.web.game import BOT_NAMES, PERSON, Game, Invalid, WebError
from blackjack_env.web.values import analysis_rules, chart_document, read_run

__all__ = ["SessionStore", "WebConfig", "create_app", "fixed_bots"]

COOKIE = "bj_session"
MAX_BODY = 16_384
_STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
           "/app.js": ("app.js", "text/javascript; charset=utf-8"),
           "/style.css": ("style.css", "text/css; charset=utf-8")}
_ACTIONS = {a.name.lower(): a for a in Action}


def fixed_bots() -> dict[str, Callable[[Rules, int | None], Any]]:
    """The built-in players a request may name, as factories ``(rules, seed) -> strategy``."""
    def factory(name: str) -> Callable[[Rules, int | None], Any]:
        # only these fixed names ever reach seat_strategy (it would also read a path);
        # basic and counter derive their chart from the rules as the values do (one seat)
        if name in ("basic", "counter"):
            return lambda rules, seed: seat_strategy(name, analysis_rules(rules), seed=seed)
        return lambda rules, seed: seat_strategy(name, rules, seed=seed)

    return {name: factory(name) for name in BOT_NAMES}


@dataclass
class WebConfig:
    """Server settings (the command's options feed these)."""

    max_sessions: int = 16
    idle_seconds: float = 1800.0
    #: a table is replaced by a new one only once idle this long (a person thinking about
    #: a hand never is; above idle_seconds, idle_seconds)
    evict_idle_seconds: float = 600.0
    #: tables one client (address) may hold at once (above max_sessions, max_sessions)
    max_per_client: int = 4
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")
    agents: dict[str, Any] = field(default_factory=dict)  # name -> loaded agent strategy
    max_bankroll: int = 10**9
    runs: dict[str, Any] = field(default_factory=dict)  # name -> run folder (the run view)

    def __post_init__(self) -> None:
        if self.max_sessions < 1:
            raise ValueError(f"max_sessions={self.max_sessions}: hold at least 1 table")
        if not self.idle_seconds > 0:
            raise ValueError(f"idle_seconds={self.idle_seconds}: use a positive number")
        if not self.evict_idle_seconds >= 0:
            raise ValueError(f"evict_idle_seconds={self.evict_idle_seconds}: use a number "
                             f">= 0 (above idle_seconds it is idle_seconds)")
        if self.max_per_client < 1:
            raise ValueError(f"max_per_client={self.max_per_client}: allow at least 1 table")
        hosts = tuple(h.strip().lower() for h in self.allowed_hosts)
        bad = [h for h in hosts if not h or "*" in h or "/" in h or " " in h]
        if bad or not hosts:
            raise ValueError(f"allowed_hosts {bad or hosts!r}: name each host (a wildcard "
                             f"would turn the Host check off)")
        self.allowed_hosts = hosts


class _Full(WebError):
    """Every session slot is taken."""

    status = 429


class _NoSession(WebError):
    """No table for this browser."""

    status = 404


@dataclass
class _Slot:
    game: Game
    used: float  # the clock's time of the table's last request
    client: str  # who made the table (its address)


class SessionStore:
    """Games by session id: at most ``limit`` in all and ``per_client`` per client, each
    dropped after ``idle`` seconds unused.

    A new table that finds no room (the server holds ``limit`` tables, or its client
    holds ``per_client``) replaces one that can be spared: one idle for at least
    ``min_idle`` seconds (longer than a person thinks about a hand), not serving a request
    (``busy``), the client's own when the client is at its limit. Among those, a table
    between rounds goes before one with a round in play (``in_play``), and the longest
    idle first; so a table with chips in play is never dropped while another is idle
    longer, and a burst of new tables cannot drop anyone's table (nor each other: they
    are all fresh). Where none can be spared the new table is refused (429) and the
    message says when to try again."""

    def __init__(self, limit: int, idle: float, clock: Callable[[], float] = time.monotonic,
                 busy: Callable[[Game], bool] = lambda game: False, *,
                 min_idle: float = 600.0, per_client: int = 4,
                 in_play: Callable[[Game], bool] = lambda game: game.in_play):
        self.limit = limit
        self.idle = idle
        self.clock = clock
        self.busy = busy
        self.min_idle = min_idle
        self.per_client = per_client
        self.in_play = in_play
        self.evicted = 0  # tables dropped to make room (not counting expired ones)
        self._games: dict[str, _Slot] = {}

    def __len__(self) -> int:
        return len(self._games)

    def expire(self) -> None:
        now = self.clock()
        for key in [k for k, slot in self._games.items() if now - slot.used > self.idle]:
            del self._games[key]

    def get(self, key: str | None) -> Game | None:
        self.expire()
        if key is None or key not in self._games:
            return None
        slot = self._games[key]
        slot.used = self.clock()
        return slot.game

    def put(self, key: str, game: Game, client: str = "") -> None:
        """Hold ``game`` under ``key`` (a key already held keeps its slot), for
        ``client``; make room as the class says, or raise the 429."""
        self.expire()
        if key in self._games:
            self._games[key] = _Slot(game, self.clock(), self._games[key].client)
            return
        own = [k for k, slot in self._games.items() if slot.client == client]
        if len(own) >= self.per_client:
            self._make_room(own, f"this client (address {client or 'unknown'}) holds its "
                                 f"maximum of {self.per_client} tables")
        elif len(self._games) >= self.limit:
            self._make_room(list(self._games), f"the server holds its maximum of "
                                               f"{self.limit} tables")
        self._games[key] = _Slot(game, self.clock(), client)

    def _make_room(self, keys: list[str], full: str) -> None:
        now = self.clock()
        spare = [(self.in_play(slot.game), slot.used, k) for k in keys
                 for slot in (self._games[k],)
                 if now - slot.used >= self.min_idle and not self.busy(slot.game)]
        if not spare:
            soonest = min(self._games[k].used for k in keys) + self.min_idle - now
            raise _Full(
                f"{full}, and every one was used in the last {_minutes(self.min_idle)}; "
                f"try again in {_minutes(max(soonest, 1.0))} (a table idle that long can "
                f"be replaced), or go back to a table this browser already has"
            )
        del self._games[min(spare)[2]]
        self.evicted += 1

    def drop(self, key: str) -> bool:
        """Drop the table of ``key`` (as an eviction would); whether there was one."""
        return self._games.pop(key, None) is not None

    def games(self) -> Iterable[Game]:
        return [slot.game for slot in self._games.values()]


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} minutes"


def _error(err: WebError | str, status: int | None = None) -> JSONResponse:
    message = str(err)
    code = status if status is not None else getattr(err, "status", 400)
    return JSONResponse({"error": message}, status_code=code)


async def _body(request: Request, allowed: Mapping[str, type | tuple[type, ...]]) -> dict:
    """The request's JSON object, checked: size, content type, known keys, value types."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise Invalid("send the body as JSON (Content-Type: application/json)")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise Invalid(f"the body is larger than {MAX_BODY} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        data = json.loads(raw.decode("utf-8"), parse_int=_json_int, parse_float=_json_float,
                          parse_constant=_json_constant)
    except WebError:
        raise
    except (ValueError, RecursionError) as err:  # (JSONDecodeError, UnicodeDecodeError)
        raise Invalid(f"the body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise Invalid(f"the body must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise Invalid(f"unknown field(s) {', '.join(map(repr, unknown))[:200]}; "
                      f"allowed: {', '.join(allowed)}")
    for key, value in data.items():
        kinds = allowed[key]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in (
                kinds if isinstance(kinds, tuple) else (kinds,))):
            raise Invalid(f"field {key!r} has the wrong type ({type(value).__name__})")
    return data


#: the longest number a body may hold, in characters: every number the API reads fits in
#: 20 digits (a seed < 2**63, a bankroll <= 10**9); Python refuses to convert integers of
#: more than 4,300 digits (a ValueError that was a 500), so longer ones are refused here
MAX_NUMBER_CHARS = 40


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_CHARS:
        raise Invalid(f"a number in the body has {len(text.lstrip('-'))} digits; numbers "
                      f"here have at most {MAX_NUMBER_CHARS}")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise Invalid(f"a number in the body is {len(text)} characters long; numbers here "
                      f"have at most {MAX_NUMBER_CHARS}")
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise Invalid(f"the number {text[:20]} is out of range")
    return value


def _json_constant(text: str) -> Any:
    raise Invalid(f"{text} is not a JSON number (send a finite number)")


def _frame(data: dict, required: bool) -> int | None:
    if "frame" not in data and not required:
        return None
    if "frame" not in data:
        raise Invalid("field 'frame' is required: the number of the frame this decision "
                      "answers (state.frame), so that a repeated request cannot act twice")
    return _int(data, "frame", 0, 2**53)


class _HostCheck:
    """Serve only requests whose ``Host`` names one of ``allowed``, with no port or a
    port number (no DNS rebinding, no malformed header); any other gets 400 with a JSON
    error."""

    def __init__(self, app: Any, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = frozenset(h.lower() for h in allowed)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            host = ""
            for key, value in scope.get("headers", ()):
                if key == b"host":
                    host = value.decode("latin-1").strip().lower()
                    break
            with_port = host.count(":") == 1 or (host.startswith("[") and "]:" in host)
            name, _, port = host.rpartition(":") if with_port else (host, "", "")
            bad_port = with_port and not (port.isascii() and port.isdigit() and len(port) <= 5
                                          and 0 < int(port) <= 65535)
            if name not in self.allowed or bad_port:
                response = _error(f"host {host[:80]!r} is not served here; the server was "
                                  f"started for {', '.join(sorted(self.allowed))}", 400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _int(data: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    value = data.get(key, default)
    if value is None:
        raise Invalid(f"field {key!r} is required")
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(f"{key}={value!r} must be a whole number from {low} to {high}")
    return value


def _rules(name: Any, overrides: Any, players: list[str]) -> Rules:
    if name not in PRESETS:
        raise Invalid(f"unknown preset {str(name)[:60]!r}; presets are {', '.join(PRESETS)}")
    overrides = dict(overrides or {})
    if len(overrides) > len(FIELD_NAMES):
        raise Invalid("too many rule overrides")
    for key, value in overrides.items():
        if key not in FIELD_NAMES:
            raise Invalid(f"unknown rule {key[:60]!r}; rules are {', '.join(FIELD_NAMES)}")
        if not _plain(value):
            raise Invalid(f"rule {key} must be a number, text, true/false, null, or a short "
                          f"list / object of those")
    if "seats" in overrides:
        raise Invalid("give the number of seats by the players list (one entry per seat), "
                      "not as a rule override")
    try:
        base = preset(name, **overrides)
        seats = len(players)
        if not 1 <= seats <= 7:
            raise Invalid(f"players has {seats} entries; a table has 1 to 7 seats")
        if seats != base.seats:
            base = base.replace(seats=seats)
        return base
    except (ValueError, TypeError) as err:
        if isinstance(err, WebError):
            raise
        raise Invalid(str(err)) from None


def _plain(value: Any, depth: int = 0) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return not isinstance(value, str) or len(value) <= 40
    if depth > 0:
        return False
    if isinstance(value, list):
        return len(value) <= 13 and all(_plain(v, 1) for v in value)
    if isinstance(value, dict):
        return len(value) <= 13 and all(_plain(v, 1) for v in value.values())
    return False


class _Api:
    """The app's parts, one method each: the page's files, the sessions (one table per
    browser, one request at a time per table), each API endpoint, and the routes."""

    def __init__(self, config: WebConfig, clock: Callable[[], float],
                 bots: Mapping[str, Callable[[Rules, int | None], Any]] | None) -> None:
        self.config = config
        self.players = self._players(config, bots)
        self.run_docs = [read_run(name, folder) for name, folder in config.runs.items()]
        package = resources.files("blackjack_env.web") / "static"
        self.static = {path: ((package / name).read_bytes(), ctype)
                       for path, (name, ctype) in _STATIC.items()}
        locks: weakref.WeakKeyDictionary[Game, asyncio.Lock] = weakref.WeakKeyDictionary()
        self.locks = locks
        self.store = SessionStore(config.max_sessions, config.idle_seconds, clock,
                                  busy=lambda game: game in locks and locks[game].locked(),
                                  min_idle=min(config.evict_idle_seconds, config.idle_seconds),
                                  per_client=min(config.max_per_client, config.max_sessions))

    @staticmethod
    def _players(config: WebConfig, bots: Mapping[str, Callable[[Rules, int | None], Any]] | None
                 ) -> dict[str, Callable[[Rules, int | None], Any]]:
        """Who can sit at a table besides a person: the bots, then the agents loaded at
        start (each a strategy whatever the rules and seed)."""
        players: dict[str, Callable[[Rules, int | None], Any]] = dict(
            bots if bots is not None else fixed_bots())
        for name, strategy in config.agents.items():

            def player(rules: Rules, seed: int | None, s: Any = strategy) -> Any:
                return s

            players[name] = player
        return players

    # ------------------------------------------------------------------ the page
    def page(self, request: Request) -> Response:
        body, ctype = self.static[request.url.path]
        return Response(body, media_type=ctype, headers={
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'",
        })

    # ------------------------------------------------------------------ sessions
    def game_of(self, request: Request) -> Game:
        game = self.store.get(request.cookies.get(COOKIE))
        if game is None:
            raise _NoSession("no table for this browser (new, expired, or given to a newer "
                             "table when the server was full): set one up first")
        return game

    async def on_table(self, game: Game, work: Callable[[], Any] | None = None,
                       frame: int | None = None) -> JSONResponse:
        """Run ``work`` (a change to ``game``), then read its state document, on a worker
        thread, one request at a time per table."""
        def run() -> dict[str, Any]:
            if work is not None:
                work()
            return game.state(frame)

        async with self.locks.setdefault(game, asyncio.Lock()):
            return JSONResponse(await run_in_threadpool(run))

    @staticmethod
    def handler(fn: Callable[..., Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                return await fn(request)
            except WebError as err:
                return _error(err)
        return endpoint

    def seat_field(self, data: dict, game: Game) -> int:
        return _int(data, "seat", 0, len(game.table.seats) - 1)

    @staticmethod
    def checked(game: Game, frame: int | None, work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            game.check_frame(frame)
            work()
        return run

    # ------------------------------------------------------------------ endpoints
    async def options(self, request: Request) -> Response:
        return JSONResponse({
            "presets": [{"name": p.name, "summary": p.summary, "seats": p.rules.seats,
                         "rules": p.rules.to_dict()} for p in PRESETS.values()],
            "fields": list(FIELD_NAMES),
            "players": [PERSON, *self.players],
            "agents": list(self.config.agents),
            "actions": list(_ACTIONS),
            # a table idle this long may be given to a new table when the server is full
            # (the page warns before), and one idle idle_seconds is dropped
            "evict_seconds": self.store.min_idle,
            "idle_seconds": self.store.idle,
        })

    async def new_session(self, request: Request) -> Response:
        data = await _body(request, {"mode": str, "preset": str, "overrides": dict,
                                     "players": list, "bankroll": int, "bot_bet": int,
                                     "seed": (int, type(None))})
        seats = data.get("players", [PERSON])
        if not 1 <= len(seats) <= 7 or not all(isinstance(p, str) for p in seats):
            raise Invalid("players must be a list of 1 to 7 names ('person' or a bot name)")
        rules = _rules(data.get("preset", "vegas-strip"), data.get("overrides"), seats)
        seed = data.get("seed")
        if seed is not None:
            seed = _int(data, "seed", 0, 2**63 - 1)
        bankroll = _int(data, "bankroll", 1, self.config.max_bankroll, 1000)
        bot_bet = _int(data, "bot_bet", 1, self.config.max_bankroll, 10)
        game = await run_in_threadpool(
            Game, rules=rules, rules_name=data.get("preset", "vegas-strip"),
            mode=data.get("mode", "play"), players=list(seats), bots=self.players,
            bankroll=bankroll, bot_bet=bot_bet, seed=seed,
        )
        response = await self.on_table(game)  # (the first values are computed here)
        key = request.cookies.get(COOKIE)
        if key is None or self.store.get(key) is None:
            key = secrets.token_urlsafe(24)
        self.store.put(key, game, request.client.host if request.client else "")
        response.set_cookie(COOKIE, key, httponly=True, samesite="strict")
        return response

    async def current(self, request: Request) -> Response:
        """This browser's table, or null: the page's first question (never an error)."""
        game = self.store.get(request.cookies.get(COOKIE))
        if game is None:
            return JSONResponse({"state": None})
        response = await self.on_table(game)
        return JSONResponse({"state": json.loads(bytes(response.body))})

    async def state(self, request: Request) -> Response:
        game = self.game_of(request)
        frame = request.query_params.get("frame")
        if frame is None:
            return await self.on_table(game)
        if not (frame.isascii() and frame.isdigit()) or len(frame) > 12:
            raise Invalid(f"frame={frame[:20]!r} must be a whole number")
        return await self.on_table(game, frame=int(frame))

    async def deal(self, request: Request) -> Response:
        game = self.game_of(request)
        data = await _body(request, {"bets": dict, "frame": int})
        frame = _frame(data, required=False)
        bets: dict[int, int] = {}
        for key, value in data.get("bets", {}).items():
            if not (key.isascii() and key.isdigit() and len(key) == 1):
                raise Invalid(f"bets are keyed by seat number 0..6, got {key[:20]!r}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise Invalid(f"the bet of seat {key} must be a whole number of chips")
            bets[int(key)] = value
        def work() -> None:
            game.check_frame(frame)
            game.deal(bets)

        return await self.on_table(game, work)

    async def act(self, request: Request) -> Response:
        game = self.game_of(request)
        data = await _body(request, {"seat": int, "action": str, "frame": int})
        seat = self.seat_field(data, game)
        name = data.get("action")
        if name not in _ACTIONS:
            raise Invalid(f"action {str(name)[:30]!r} is unknown; actions: {', '.join(_ACTIONS)}")
        frame = _frame(data, required=True)
        return await self.on_table(game, lambda: game.act(seat, _ACTIONS[name], frame))

    async def raise_bet(self, request: Request) -> Response:
        game = self.game_of(request)
        data = await _body(request, {"seat": int, "amount": int, "frame": int})
        seat = self.seat_field(data, game)
        amount = _int(data, "amount", 1, self.config.max_bankroll)
        frame = _frame(data, required=True)
        return await self.on_table(game, lambda: game.raise_bet(seat, amount, frame))

    async def next_round(self, request: Request) -> Response:
        game = self.game_of(request)
        frame = _frame(await _body(request, {"frame": int}), required=False)
        return await self.on_table(game, self.checked(game, frame, game.next_round))

    async def step(self, request: Request) -> Response:
        game = self.game_of(request)
        frame = _frame(await _body(request, {"frame": int}), required=False)
        return await self.on_table(game, self.checked(game, frame, game.step))

    async def chart(self, request: Request) -> Response:
        game = self.store.get(request.cookies.get(COOKIE))
        name = request.query_params.get("preset")
        if game is not None and name is None:
            rules, label = game.rules, game.rules_name
        else:
            name = name or "vegas-strip"
            if name not in PRESETS:
                raise Invalid(f"unknown preset {name[:60]!r}; presets are {', '.join(PRESETS)}")
            rules, label = preset(name), name
        agent_name = request.query_params.get("agent")
        agent = None
        if agent_name:
            if agent_name not in self.config.agents:
                raise Invalid(f"no agent {agent_name[:60]!r}; the server was given "
                              f"{', '.join(self.config.agents) or 'none (start it with --agent)'}")
            agent = self.config.agents[agent_name]

        def work() -> dict[str, Any]:
            try:
                doc = chart_document(rules, agent, agent_name)
            except ValueError as err:  # an agent that cannot answer under these rules
                raise Invalid(f"{agent_name} cannot be charted under {label} "
                              f"({rules.summary()}): {err}; it was trained on other "
                              f"rules") from None
            doc["preset"] = label
            return doc

        return JSONResponse(await run_in_threadpool(work))

    async def runs(self, request: Request) -> Response:
        return JSONResponse({"runs": self.run_docs})

    async def not_found(self, request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 404)
        if code == 405:
            return _error(f"{request.method} is not allowed on {request.url.path[:80]}", 405)
        return _error(f"no such page or route: {request.url.path[:80]}", code)

    # ------------------------------------------------------------------ routes
    def routes(self) -> list[Route]:
        handler = self.handler
        routes = [Route(path, self.page, methods=["GET"]) for path in _STATIC]
        routes.append(Route("/favicon.ico", lambda request: Response(status_code=204)))
        routes += [
            Route("/api/options", handler(self.options), methods=["GET"]),
            Route("/api/session", handler(self.new_session), methods=["POST"]),
            Route("/api/session", handler(self.current), methods=["GET"]),
            Route("/api/state", handler(self.state), methods=["GET"]),
            Route("/api/deal", handler(self.deal), methods=["POST"]),
            Route("/api/act", handler(self.act), methods=["POST"]),
            Route("/api/raise", handler(self.raise_bet), methods=["POST"]),
            Route("/api/next", handler(self.next_round), methods=["POST"]),
            Route("/api/step", handler(self.step), methods=["POST"]),
            Route("/api/chart", handler(self.chart), methods=["GET"]),
            Route("/api/runs", handler(self.runs), methods=["GET"]),
        ]
        return routes


def create_app(config: WebConfig | None = None, *, clock: Callable[[], float] = time.monotonic,
               bots: Mapping[str, Callable[[Rules, int | None], Any]] | None = None,
               ) -> Starlette:
    """The app. ``config.agents`` maps a name to an agent strategy loaded at start."""
    config = config or WebConfig()
    api = _Api(config, clock, bots)
    app = Starlette(routes=api.routes(), middleware=[
        Middleware(_HostCheck, allowed=config.allowed_hosts),
    ], exception_handlers={HTTPException: api.not_found})
    app.state.store = api.store
    app.state.config = config
    return app
