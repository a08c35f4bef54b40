"""Every code example of the documentation site runs (``docs/examples/*.py``), and its
output is the one the pages show (``docs/examples/output/NAME.txt``).

The pages include these files (``literalinclude``); ``test_pages.py`` checks that no page
carries Python code of its own. What an example needs to be tested is said here, in
``EXAMPLES`` (not in the example, which a reader copies):

* ``requires``: modules it imports; skipped without them;
* ``marker``: ``integration`` (or ``slow``): run with ``pytest -m integration`` / ``-m slow``;
* ``small``: environment variables that size it down for the test (a tutorial's
  budget); the page says so beside the output;
* ``output``: ``approximate``: its numbers may move with the platform (a float reduction
  in JAX or torch): compared to 2 significant digits, the words exactly.

Each runs in this process with its working directory in a temporary folder, as a user
would run it. Its standard output must equal the committed ``output/NAME.txt`` (which the
page includes under the code); ``BJ_DOCS_UPDATE=1`` rewrites that file instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
import runpy
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "docs" / "examples"
OUTPUT = EXAMPLES_DIR / "output"
NUMBER = re.compile(r"[-+]?\d[\d,]*\.?\d*(?:e[-+]?\d+)?")


#: What each example needs to be tested (see the module docstring), by file name.
EXAMPLES: dict[str, dict[str, list[str]]] = {
    "jax_table": {"requires": ["jax", "blackjack_env.jax"], "marker": ["integration"]},
    "rules_as_data": {"requires": ["jax", "blackjack_env.jax"], "marker": ["integration"]},
    "render_frame": {"requires": ["pygame"]},
    "grading_rule_sets": {"small": ["BJ_RULE_SETS=24"]},
    "tutorial_bench": {"requires": ["stable_baselines3"], "output": ["approximate"]},
    "supersuit_sb3": {"requires": ["supersuit", "stable_baselines3"], "marker": ["integration"]},
    "tianshou_envs": {"requires": ["tianshou"], "marker": ["integration"]},
    "tutorial_counting": {"small": ["BJ_TUTORIAL_ROUNDS=6000"]},
    "tutorial_first_agent": {"small": ["BJ_TUTORIAL_HANDS=20000"]},
    "tutorial_one_agent": {"requires": ["jax", "optax", "flax"], "marker": ["slow"],
                           "small": ["BJ_TUTORIAL_STEPS=81920"], "output": ["approximate"]},
    "tutorial_jax_ppo": {"requires": ["jax", "optax", "flax"], "marker": ["slow"],
                         "small": ["BJ_TUTORIAL_STEPS=16384"], "output": ["approximate"]},
    "tutorial_sb3": {"requires": ["sb3_contrib"], "marker": ["integration"],
                     "small": ["BJ_TUTORIAL_STEPS=4096"], "output": ["approximate"]},
}


def _header(path: Path, key: str) -> list[str]:
    return EXAMPLES.get(path.stem, {}).get(key, [])


def _params() -> list[object]:
    out = []
    for path in sorted(EXAMPLES_DIR.glob("*.py")):
        marks = [getattr(pytest.mark, m) for m in _header(path, "marker")]
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


def _approx_equal(got: str, want: str) -> bool:
    """Same words; every number the same to 2 significant digits (or within 0.002)."""
    if NUMBER.sub("#", got) != NUMBER.sub("#", want):
        return False
    for a, b in zip(NUMBER.findall(got), NUMBER.findall(want), strict=True):
        x, y = float(a.replace(",", "")), float(b.replace(",", ""))
        if abs(x - y) > max(0.002, 0.05 * max(abs(x), abs(y))):
            return False
    return True


@pytest.mark.parametrize("path", _params())
def test_example_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    for module in _header(path, "requires"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{path.name} needs {module}")
    for setting in _header(path, "small"):
        name, value = setting.split("=", 1)
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert out.strip(), f"{path.name} printed nothing"
    shown = OUTPUT / f"{path.stem}.txt"
    if os.environ.get("BJ_DOCS_UPDATE") == "1":
        OUTPUT.mkdir(exist_ok=True)
        shown.write_text(out)
        return
    assert shown.is_file(), (
        f"{shown.name} is missing: run BJ_DOCS_UPDATE=1 pytest tests/docs/test_examples.py")
    want = shown.read_text()
    if "approximate" in _header(path, "output"):
        assert _approx_equal(out, want), f"{path.name} printed\n{out}\npage shows\n{want}"
    else:
        assert out == want, f"{path.name} printed\n{out}\nbut the page shows\n{want}"


def test_the_examples_hold_no_test_settings() -> None:
    """The code a page shows carries no test-harness header (they live in ``EXAMPLES``),
    and every entry of ``EXAMPLES`` names an example."""
    stems = {p.stem for p in EXAMPLES_DIR.glob("*.py")}
    assert set(EXAMPLES) <= stems, set(EXAMPLES) - stems
    for path in sorted(EXAMPLES_DIR.glob("*.py")):
        found = re.findall(r"^# (?:requires|marker|small|output):", path.read_text(), re.M)
        assert not found, f"{path.name} holds test settings {found}: move them to EXAMPLES"


def test_every_output_file_belongs_to_an_example() -> None:
    stems = {p.stem for p in EXAMPLES_DIR.glob("*.py")}
    extra = {p.name for p in OUTPUT.glob("*.txt") if p.stem not in stems}
    assert not extra, f"output files of no example: {sorted(extra)}"


def test_approximate_comparison() -> None:
    assert _approx_equal("regret 0.1538, worst 0.1561", "regret 0.1540, worst 0.1570")
    assert not _approx_equal("regret 0.1538", "regret 0.2538")
    assert not _approx_equal("regret 0.1538", "return 0.1538")
