"""Training loops shared by the scripts: tabular runs with a progress bar, a learning
curve, exact checkpoints of the greedy policy, and Ctrl-C handling.

:func:`train_tabular` plays ``hands`` rounds (one round = one episode) in a
Gymnasium env, letting the agent learn from each; it records the mean reward
of every block of rounds and, ``curve_points`` times along the run, calls
``grade(agent)`` (e.g. the exact return of the greedy policy). Ctrl-C stops
it cleanly: the log says ``interrupted`` and the caller saves a checkpoint.

Seeding: the env is reset with ``seed`` before the first round of a run (and
with ``seed + rounds already done`` when a run resumes); the agent explores
with its own generator, so a run is reproducible bit for bit.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blackjack_env.agents.tabular import TabularAgent

__all__ = ["TrainLog", "train_tabular"]


@dataclass
class TrainLog:
    """What a run recorded.

    ``blocks``: (rounds done, mean reward of the block). ``grades``: (rounds
    done, ``grade(agent)`` result). ``interrupted``: stopped by Ctrl-C.
    """

    blocks: list[tuple[int, float]] = field(default_factory=list)
    grades: list[tuple[int, Any]] = field(default_factory=list)
    interrupted: bool = False
    seconds: float = 0.0
    rounds: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "blocks": [list(b) for b in self.blocks],
            "grades": [[n, g] for n, g in self.grades],
            "interrupted": self.interrupted,
            "seconds": self.seconds,
            "rounds": self.rounds,
        }


def train_tabular(
    agent: TabularAgent,
    env: Any,
    hands: int,
    *,
    seed: int | None = None,
    block: int = 10_000,
    curve_points: int = 10,
    grade: Callable[[TabularAgent], Any] | None = None,
    progress: bool = True,
    log: TrainLog | None = None,
) -> TrainLog:
    """Train until ``agent.episodes_done == hands`` (so a resumed agent only finishes)."""
    if not isinstance(hands, int) or hands < 1:
        raise ValueError(f"hands={hands!r} must be a positive int")
    log = log if log is not None else TrainLog()
    start = agent.episodes_done
    todo = hands - start
    grade_every = max(hands // max(curve_points, 1), 1)
    bar = None
    if progress and todo > 0:
        # deferred: loads tqdm (the optional [main] extra)
        from tqdm.auto import tqdm

        bar = tqdm(total=hands, initial=start, unit="hand", smoothing=0.05,
                   desc=f"{agent.algo}", mininterval=0.5)
    t0 = time.perf_counter()
    rewards = np.zeros(block)
    filled = 0
    first_seed = None if seed is None else seed + start
    try:
        while agent.episodes_done < hands:
            eps = agent.epsilon(hands)
            reward = agent.train_episode(env, eps, seed=first_seed)
            first_seed = None
            rewards[filled] = reward
            filled += 1
            done = agent.episodes_done
            if filled == block:
                log.blocks.append((done, float(rewards.mean())))
                filled = 0
                if bar is not None:
                    bar.update(block)
                    bar.set_postfix(eps=f"{eps:.3f}", mean=f"{log.blocks[-1][1]:+.3f}")
            if grade is not None and (done % grade_every == 0 or done == hands):
                log.grades.append((done, grade(agent)))
    except KeyboardInterrupt:
        log.interrupted = True
    finally:
        if filled:
            log.blocks.append((agent.episodes_done, float(rewards[:filled].mean())))
        if bar is not None:
            bar.n = agent.episodes_done
            bar.refresh()
            bar.close()
        log.seconds += time.perf_counter() - t0
        log.rounds = agent.episodes_done
    return log
