"""stable-baselines3 helpers: tiny runs train, save, reload, act within the mask, grade exactly."""

from __future__ import annotations

import tempfile
import warnings

import numpy as np
import pytest

import blackjack_env  # noqa: F401
from blackjack_env.agents.grading import exact_grade
from blackjack_env.agents.registry import load_agent
from blackjack_env.agents.sb3 import SB3Agent, SB3Config, train_sb3
from blackjack_env.engine import preset

RULES = preset("vegas-strip", decks=None)


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Tiny networks gain nothing from threads, and on a shared 2-core machine they thrash."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
TINY = {"n_steps": 256, "batch_size": 128, "n_epochs": 2}


def _states(agent, n=200):
    """Masks and observations from real env decisions."""
    import gymnasium as gym

    env = gym.make("blackjack_env/Blackjack-v0", rules=RULES)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    out = []
    while len(out) < n:
        out.append((obs.copy(), info["action_mask"].copy()))
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    return out


@pytest.mark.parametrize(
    ("algo", "subproc"),
    [
        ("maskable-ppo", False),
        ("dqn", False),
        pytest.param("maskable-ppo", True, marks=pytest.mark.slow, id="maskable-ppo-subproc"),
        pytest.param("ppo", True, marks=pytest.mark.slow, id="ppo-subproc"),
        pytest.param("a2c", False, marks=pytest.mark.slow, id="a2c"),
    ],
)
def test_tiny_run_saves_reloads_and_respects_masks(tmp_path, monkeypatch, algo, subproc):
    temp = tmp_path / "temp"  # where SB3's default logger would make an SB3-<time> folder
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.delenv("SB3_LOGDIR", raising=False)  # (tests/conftest.py sets it)
    warnings.filterwarnings("ignore", message="Training and eval env are not of the same type")
    hyper = {"dqn": {"learning_starts": 200, "buffer_size": 5_000},
             "a2c": {"n_steps": 16}}.get(algo, TINY)
    config = SB3Config(algo=algo, env_kwargs={"rules": RULES}, timesteps=1_024, n_envs=2,
                       subproc=subproc, eval_freq=512, eval_episodes=20, checkpoint_freq=512,
                       hyperparameters=hyper, seed=0)
    agent, finished = train_sb3(config, tmp_path, progress=False)
    assert finished and agent.model.num_timesteps >= 1_024
    assert not list(temp.glob("SB3-*")), "training left a log folder in the temp dir"
    assert (tmp_path / "eval" / "evaluations.npz").exists()
    assert list((tmp_path / "checkpoints").glob("*.zip"))
    assert list((tmp_path / "monitor").rglob("*.monitor.csv"))
    path = agent.save(tmp_path / "model.zip")
    again = load_agent(path)
    assert isinstance(again, SB3Agent) and again.algo == algo
    for obs, mask in _states(again):
        a = again.act(obs, mask)
        assert mask[a] == 1
        assert a == agent.act(obs, mask)
    grade = exact_grade(again, RULES)
    assert grade is not None and grade["regret"] >= -1e-12


def test_config_is_validated():
    with pytest.raises(ValueError, match="algo"):
        SB3Config(algo="sac")
    with pytest.raises(ValueError, match="timesteps"):
        SB3Config(timesteps=0)
    with pytest.raises(ValueError, match="torch_threads"):
        SB3Config(torch_threads=-1)
    with pytest.raises(ValueError, match="torch_threads"):
        SB3Config(torch_threads=True)


def _thread_probe(seen: list[int]):
    """An SB3 callback that records torch's intra-op thread count at every step."""
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    class Probe(BaseCallback):
        def _on_step(self) -> bool:
            seen.append(torch.get_num_threads())
            return True

    return Probe()


@pytest.mark.parametrize("threads", [1, 0])
def test_torch_threads_apply_while_training_and_are_recorded(tmp_path, threads):
    """Training runs with ``torch_threads`` threads (0: torch's setting as it was), the number
    in force is recorded in sb3_config.json, and the number before is put back after."""
    import json

    import torch

    torch.set_num_threads(2)  # as torch's default on these 2-core machines (fixture restores)
    seen: list[int] = []
    config = SB3Config(env_kwargs={"rules": RULES}, timesteps=256, n_envs=2, eval_freq=10_000,
                       eval_episodes=2, checkpoint_freq=10_000, torch_threads=threads,
                       hyperparameters={"n_steps": 128, "batch_size": 128, "n_epochs": 1})
    train_sb3(config, tmp_path, progress=False, callback=_thread_probe(seen))
    expected = threads or 2
    assert seen and set(seen) == {expected}
    saved = json.loads((tmp_path / "sb3_config.json").read_text())
    assert saved["torch_threads"] == threads and saved["torch_threads_used"] == expected
    assert torch.get_num_threads() == 2


def test_progress_bar_closed_and_printed_lines_above_it_even_after_ctrl_c(tmp_path, capsys):
    """The bar is closed when train_sb3 returns, after Ctrl-C too (it is never drawn again
    after what the caller prints next), and a line printed while it is shown comes out
    whole on its own line."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class SayThenStop(BaseCallback):
        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= 256:
                print("a line said during training")
                raise KeyboardInterrupt

        def _on_step(self) -> bool:
            return True

    config = SB3Config(env_kwargs={"rules": RULES}, timesteps=2_048, n_envs=2,
                       eval_freq=10_000, eval_episodes=2, checkpoint_freq=10_000,
                       hyperparameters={"n_steps": 128, "batch_size": 128, "n_epochs": 1})
    _, finished = train_sb3(config, tmp_path, progress=True, callback=SayThenStop())
    assert not finished and (tmp_path / "interrupted.zip").exists()
    assert not getattr(tqdm, "_instances", ())  # no bar left open to redraw itself
    said = capsys.readouterr()
    assert "a line said during training\n" in said.out.splitlines(keepends=True)
    assert "256/2048" in said.err  # the bar was shown, on stderr


def test_training_envs_leave_the_cards_out_of_info_unless_asked():
    """stable-baselines3 deep-copies every step's info: the project's envs train with
    numbers-only infos (nothing in training reads the cards) unless the user says
    otherwise; other ids, and the dict given, are left as they are."""
    from blackjack_env.agents.sb3 import make_vec_env, training_env_kwargs

    env_id = "blackjack_env/Blackjack-v0"
    given = {"obs_mode": "vector"}
    assert training_env_kwargs(env_id, given) == {"obs_mode": "vector", "info_cards": False}
    assert given == {"obs_mode": "vector"}
    assert training_env_kwargs(env_id, {"info_cards": True}) == {"info_cards": True}
    assert training_env_kwargs("Blackjack-v1", {"natural": True}) == {"natural": True}
    for cards in (False, True):
        kwargs = training_env_kwargs(env_id, {"rules": RULES, "info_cards": cards} if cards
                                     else {"rules": RULES})
        venv = make_vec_env(env_id, kwargs, 2, 0)
        venv.reset()
        infos = venv.step(np.zeros(2, dtype=np.int64))[3]
        venv.close()
        assert all(("hands" in info) is cards for info in infos)
