"""``scripts/web.py`` / ``blackjack-web``: starts a server on 127.0.0.1 and a free port,
prints the address, serves the page; warns before listening on another address."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen([sys.executable, str(ROOT / "scripts" / "web.py"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def address_of(proc: subprocess.Popen) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "http://" in line:
            return line.split()[3]
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"no address printed; stderr: {proc.stderr.read()}")


def test_starts_on_localhost_and_a_free_port_and_serves_the_page():
    proc = start()
    try:
        url = address_of(proc)
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0/")
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    page = resp.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert "<title>blackjack_env table</title>" in page
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_another_host_only_with_a_warning():
    proc = start("--host", "127.0.0.2")  # loopback, but not the default: warned
    try:
        address_of(proc)
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "warning: listening on 127.0.0.2" in err


@pytest.mark.parametrize(("args", "needle"), [
    (["--max-per-client", "0"], "--max-per-client 0: use 1..1000"),
    (["--evict-minutes", "-1"], "--evict-minutes -1.0: use a number of minutes in [0, 1440]"),
    (["--evict-minutes", "nan"], "--evict-minutes nan"),
])
def test_the_eviction_options_are_checked(capsys, args, needle):
    from blackjack_env.commands.web import main

    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err
