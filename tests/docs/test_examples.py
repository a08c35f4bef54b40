"""Every code example of the documentation site runs (``docs/examples/*.py``).

The pages include these files (``literalinclude``); ``test_pages.py`` checks that no page
carries Python code of its own. An example's header may say what it needs:
``# requires: pkg, pkg`` (skipped without them) and ``# marker: integration`` (run with
``pytest -m integration``, with the third-party RL tools). Each runs in this process with
its working directory in a temporary folder, as a user would run it.
"""

from __future__ import annotations

import importlib.util
import re
import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _header(path: Path, key: str) -> list[str]:
    match = re.search(rf"^# {key}: (.*)$", path.read_text(), re.M)
    return [w.strip() for w in match.group(1).split(",")] if match else []


def _params() -> list[object]:
    out = []
    for path in sorted(EXAMPLES.glob("*.py")):
        marks = [getattr(pytest.mark, m) for m in _header(path, "marker")]
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _params())
def test_example_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    for module in _header(path, "requires"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{path.name} needs {module}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out.strip(), f"{path.name} printed nothing"
