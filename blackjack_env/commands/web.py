"""``blackjack-web``: the table in a browser, on a local web server.

Usage::

    blackjack-web                                  # http://127.0.0.1:<free port>/
    blackjack-web --port 8000 --agent runs/q runs/ppo  # trained agents can take a seat
    blackjack-web --host 0.0.0.0 --allow-host table.lan  # other machines too (warned)

Open the printed address, choose the rules, the seats and who plays them (people in
turn at one screen, or bots: basic, dealer, never-bust, random, stand, counter, or an
agent given with ``--agent``), then play, or watch the bots play step by step with the
value of every decision. Needs the ``web`` extra: ``pip install -e ".[web]"``.

Only requests whose ``Host`` names this machine are served (no DNS rebinding): the
loopback names, the ``--host`` address itself (unless it is a wildcard such as
``0.0.0.0``), and the names given with ``--allow-host``. Listening on an address other
than loopback needs ``--allow-host`` (the names other machines will type), so the check
is never turned off. ``--runs`` names run folders the page's run view may show.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from blackjack_env.agents.registry import find_model, load_agent
from blackjack_env.agents.seats import AgentStrategy
from blackjack_env.cli import option
from blackjack_env.commands import fail, run_command

__all__ = ["Settings", "build", "main", "run"]

_LOCAL = ("127.0.0.1", "localhost", "::1")
_WILDCARD = ("0.0.0.0", "::", "")


@dataclass
class Settings:
    host: Annotated[str, option("ADDRESS")] = "127.0.0.1"
    """address to listen on; anything but 127.0.0.1 / localhost lets other machines in (and needs --allow-host)"""  # noqa: E501
    port: Annotated[int, option("PORT", "a free one")] = 0
    """port to listen on"""
    agent: Annotated[list[str], option("PATH [PATH ...]", "none")] = field(default_factory=list)
    """trained agents (run folders or .npz / .zip model files) that may take a seat; the page names them, never their path"""  # noqa: E501
    max_sessions: int = 16
    """tables held at once (one per browser session)"""
    max_per_client: int = 4
    """tables one client address may hold at once (a new one beyond replaces its own longest-idle table, once idle --evict-minutes; behind a proxy every client has its address)"""  # noqa: E501
    idle_minutes: float = 30.0
    """a table unused this long is dropped"""
    evict_minutes: float = 10.0
    """when all --max-sessions are taken, a new table replaces one unused this long (between rounds before one with a round in play); none sooner, so no one thinking about a hand loses the table"""  # noqa: E501
    allow_host: Annotated[list[str], option("NAME [NAME ...]", "loopback only")] = field(
        default_factory=list
    )
    """host names the page may be reached by besides loopback (needed with a --host other than loopback, e.g. --allow-host table.lan 192.168.1.20)"""  # noqa: E501
    runs: Annotated[list[str], option("FOLDER [FOLDER ...]", "none")] = field(
        default_factory=list
    )
    """run folders (of blackjack-train) the run view shows: learning curve and summary"""


def build(settings: Settings) -> tuple[Any, dict[str, str]]:
    """The app for these settings, and the agents' names -> paths."""
    try:
        # deferred: loads starlette (the optional [web] extra)
        from blackjack_env.web.server import WebConfig, create_app
    except ImportError as err:
        raise fail(f"the web table needs the web extra: pip install -e '.[web]' ({err})") from None
    if not 1 <= settings.max_sessions <= 1000:
        raise fail(f"--max-sessions {settings.max_sessions}: use 1..1000")
    if not 0 < settings.idle_minutes <= 24 * 60:
        raise fail(f"--idle-minutes {settings.idle_minutes}: use a number of minutes in (0, 1440]")
    if not 1 <= settings.max_per_client <= 1000:
        raise fail(f"--max-per-client {settings.max_per_client}: use 1..1000")
    if not 0 <= settings.evict_minutes <= 24 * 60:
        raise fail(f"--evict-minutes {settings.evict_minutes}: use a number of minutes in "
                   f"[0, 1440] (above --idle-minutes it is --idle-minutes)")
    agents: dict[str, Any] = {}
    names: dict[str, str] = {}
    if settings.agent:
        for path in settings.agent:
            model = find_model(path)
            base = Path(path).resolve().name or "agent"
            name = f"agent:{base}"
            k = 2
            while name in agents:
                name, k = f"agent:{base}-{k}", k + 1
            agents[name] = AgentStrategy(load_agent(model))
            names[name] = str(model)
    hosts = allowed_hosts(settings)
    runs: dict[str, Any] = {}
    for path in settings.runs:
        folder = Path(path)
        if not folder.is_dir():
            raise fail(f"--runs {path}: no such folder (give run folders written by "
                       f"blackjack-train)")
        name = folder.resolve().name or "run"
        k = 2
        while name in runs:
            name, k = f"{folder.resolve().name}-{k}", k + 1
        runs[name] = folder.resolve()
    config = WebConfig(max_sessions=settings.max_sessions,
                       idle_seconds=settings.idle_minutes * 60.0,
                       evict_idle_seconds=settings.evict_minutes * 60.0,
                       max_per_client=settings.max_per_client,
                       allowed_hosts=hosts, agents=agents, runs=runs)
    return create_app(config), names


def allowed_hosts(settings: Settings) -> tuple[str, ...]:
    """The ``Host`` names served: loopback, the ``--host`` address (not a wildcard) and
    ``--allow-host``; a non-loopback ``--host`` without ``--allow-host`` is refused."""
    names = []
    for name in settings.allow_host:
        name = name.strip().lower()
        if not name or any(c in name for c in "*/ @?#") or len(name) > 253:
            raise fail(f"--allow-host {name!r}: give a host name or address as a browser "
                       f"sends it (e.g. table.lan or 192.168.1.20); wildcards are not allowed")
        names.append(name)
    host = settings.host.strip().lower()
    if host not in _LOCAL and not host.startswith("127.") and not names:
        raise fail(f"--host {settings.host} lets other machines in, so name the host names "
                   f"they will use with --allow-host NAME (e.g. --allow-host "
                   f"{'table.lan' if host in _WILDCARD else host}); the Host check stays on")
    hosts = ["127.0.0.1", "localhost", "[::1]"]
    if host not in _WILDCARD:
        hosts.append(f"[{host}]" if ":" in host else host)
    hosts += [f"[{n}]" if ":" in n and not n.startswith("[") else n for n in names]
    return tuple(dict.fromkeys(hosts))


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _check_port(host: str, port: int) -> None:
    """``--port`` is free on ``host`` (one error line, before the server starts)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind((host, port))
        except OSError as err:
            raise fail(f"--port {port}: cannot listen on {host} ({err.strerror}); try "
                       f"--port 0 for a free port") from None


def run(settings: Settings) -> dict[str, Any]:
    """Start the server and serve until Ctrl-C."""
    if not 0 <= settings.port <= 65535:
        raise fail(f"--port {settings.port}: use 0 (a free port) or 1..65535")
    app, names = build(settings)
    try:
        # deferred: loads uvicorn (the optional [web] extra)
        import uvicorn
    except ImportError as err:
        raise fail(f"the web table needs the web extra: pip install -e '.[web]' ({err})") from None
    port = settings.port or _free_port(settings.host)
    if settings.port:
        _check_port(settings.host, port)
    if settings.host not in _LOCAL:
        print(f"warning: listening on {settings.host}: other machines can open this table "
              f"(no password); use --host 127.0.0.1 to keep it local", file=sys.stderr)
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    for name, path in names.items():
        print(f"agent {name}: {path}")
    address = f"http://{shown}:{port}/"

    class Server(uvicorn.Server):  # type: ignore[misc]
        """Says the address once it listens (and handles Ctrl-C)."""

        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print(f"blackjack table at {address}  (Ctrl-C stops it)", flush=True)

    # uvicorn.Server rather than uvicorn.run, which swallows the Ctrl-C it re-raises after
    # its graceful shutdown: the Ctrl-C reaches run_command (status 130, one line)
    server = Server(uvicorn.Config(app, host=settings.host, port=port, log_level="warning"))
    try:
        server.run()
    except SystemExit:  # uvicorn's exit when it cannot start (it has logged why)
        server.started = False
    if not server.started:
        raise fail(f"--port {port}: the server could not start on {settings.host} (the "
                   f"reason is above); try --port 0 for a free port")
    return {"host": settings.host, "port": port}


def main(argv: list[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="blackjack-web",
                       description="The blackjack table in a browser, on a local web server.")


if __name__ == "__main__":
    sys.exit(main())
