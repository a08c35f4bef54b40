"""CleanRL's single-file PPO and DQN, run unchanged on the registered ids.

CleanRL is a collection of scripts, not a package: point ``CLEANRL_DIR`` at a
checkout (the folder holding ``cleanrl/`` and ``cleanrl_utils/``) and run
``CLEANRL_DIR=... python -m pytest -m integration tests/integration/test_cleanrl.py``.
Skipped when it is not set. The ``blackjack_env:`` prefix of the id makes
``gym.make`` import the package; DQN needs float observations, hence the
``BlackjackVector-v0`` id (CleanRL's command line cannot pass ``obs_mode``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

CLEANRL = Path(os.environ.get("CLEANRL_DIR", "")) if os.environ.get("CLEANRL_DIR") else None
if CLEANRL is None or not (CLEANRL / "cleanrl" / "ppo.py").is_file():
    pytest.skip("set CLEANRL_DIR to a CleanRL checkout to run these", allow_module_level=True)
pytest.importorskip("torch")
pytest.importorskip("tensorboard")


@pytest.mark.parametrize(
    ("script", "env_id", "extra"),
    [
        ("ppo.py", "blackjack_env/Blackjack-v0", ["--total-timesteps", "2048"]),
        ("dqn.py", "blackjack_env/BlackjackVector-v0",
         ["--total-timesteps", "1500", "--learning-starts", "500"]),
    ],
)
def test_cleanrl_script_runs(tmp_path: Path, script: str, env_id: str, extra: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(CLEANRL)}
    run = subprocess.run(
        [sys.executable, str(CLEANRL / "cleanrl" / script), "--env-id", f"blackjack_env:{env_id}",
         *extra],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "SPS:" in run.stdout
    assert any((tmp_path / "runs").iterdir())  # CleanRL's TensorBoard run folder
