"""RL Zoo (rl_zoo3): train and evaluate with the Zoo's own command line.

Installs nothing: skipped without rl_zoo3. Run with ``python -m pytest -m integration
tests/integration`` (``.ci/run`` installs rl_zoo3 and runs them). The commands are the
ones docs/training.md ("RL Zoo") gives.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rl_zoo3")
pytestmark = pytest.mark.integration


def _zoo(module: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", f"rl_zoo3.{module}", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize(
    ("env_id", "extra"),
    [
        ("blackjack_env/Blackjack-v0", []),
        ("blackjack_env/BlackjackVector-v0", []),
        # dict observations need SB3's MultiInputPolicy (the Zoo's default is MlpPolicy)
        ("blackjack_env/Blackjack-v0",
         ["--env-kwargs", "obs_mode:'dict'", "-params", "policy:'MultiInputPolicy'"]),
    ],
    ids=["multidiscrete", "vector-id", "dict"],
)
def test_zoo_trains_and_enjoys(tmp_path: Path, env_id: str, extra: list[str]) -> None:
    train = _zoo("train", ["--algo", "ppo", "--env", env_id, "--gym-packages", "blackjack_env",
                           "-n", "2048", "--eval-freq", "-1", "-f", "logs", "--seed", "1",
                           *extra], tmp_path)
    assert train.returncode == 0, train.stderr[-2000:]
    runs = list((tmp_path / "logs" / "ppo").iterdir())
    assert len(runs) == 1 and (runs[0] / f"{env_id.replace('/', '-')}.zip").is_file()
    enjoy_extra = [a for a in extra if a != "-params" and "Policy" not in a]
    enjoy = _zoo("enjoy", ["--algo", "ppo", "--env", env_id, "--gym-packages", "blackjack_env",
                           "-f", "logs", "--no-render", "-n", "300", "--exp-id", "1",
                           *enjoy_extra], tmp_path)
    assert enjoy.returncode == 0, enjoy.stderr[-2000:]
