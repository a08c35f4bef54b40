"""``blackjack-web``: the table in a browser, on a local web server.

Usage::

    blackjack-web                                  # http://127.0.0.1:<free port>/
    blackjack-web --port 8000 --agent runs/q runs/ppo  # trained agents can take a seat
    blackjack-web --host 0.0.0.0                    # other machines too (warned)

Open the printed address, choose the rules, the seats and who plays them (people in
turn at one screen, or bots: basic, dealer, never-bust, random, stand, counter, or an
agent given with ``--agent``), then play, or watch the bots play step by step with the
value of every decision. Needs the ``web`` extra: ``pip install -e ".[web]"``.
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blackjack_env.agents.commands import fail, run_command

__all__ = ["Settings", "build", "main", "run"]

_LOCAL = ("127.0.0.1", "localhost", "::1")


@dataclass
class Settings:
    host: str = "127.0.0.1"
    """address to listen on; anything but 127.0.0.1 / localhost lets other machines in"""
    port: int = 0
    """port to listen on (0: a free one)"""
    agent: list[str] = field(default_factory=list)
    """trained agents (run folders or .npz / .zip model files), one or more; only these can take a seat (the page never names a path)"""  # noqa: E501
    max_sessions: int = 16
    """tables held at once (one per browser session)"""
    idle_minutes: float = 30.0
    """a table unused this long is dropped"""


def build(settings: Settings) -> tuple[Any, dict[str, str]]:
    """The app for these settings, and the agents' names -> paths."""
    try:
        from blackjack_env.web.server import WebConfig, create_app
    except ImportError as err:
        raise fail(f"the web table needs the web extra: pip install -e '.[web]' ({err})") from None
    if not 1 <= settings.max_sessions <= 1000:
        raise fail(f"--max-sessions {settings.max_sessions}: use 1..1000")
    if not 0 < settings.idle_minutes <= 24 * 60:
        raise fail(f"--idle-minutes {settings.idle_minutes}: use a number of minutes in (0, 1440]")
    agents: dict[str, Any] = {}
    names: dict[str, str] = {}
    if settings.agent:
        from blackjack_env.agents.registry import find_model, load_agent
        from blackjack_env.agents.seats import AgentStrategy

        for path in settings.agent:
            model = find_model(path)
            base = Path(path).resolve().name or "agent"
            name = f"agent:{base}"
            k = 2
            while name in agents:
                name, k = f"agent:{base}-{k}", k + 1
            agents[name] = AgentStrategy(load_agent(model))
            names[name] = str(model)
    hosts = ("127.0.0.1", "localhost", "[::1]")
    if settings.host not in _LOCAL:
        hosts = ("*",)
    config = WebConfig(max_sessions=settings.max_sessions,
                       idle_seconds=settings.idle_minutes * 60.0,
                       allowed_hosts=hosts, agents=agents)
    return create_app(config), names


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
