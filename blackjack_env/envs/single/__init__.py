"""The single env: one learner seat at a table whose other seats are played by fixed
strategies (``gymnasium.make("blackjack_env/Blackjack-v0")`` and the other registered ids).

* :mod:`~blackjack_env.envs.single.env`: :class:`BlackjackEnv`, the ``gymnasium.Env``
  (its docstring is the specification every env follows), a thin adapter over
* :mod:`~blackjack_env.envs.single.core`: the per-step work, compiled by mypyc
  (:class:`~blackjack_env.envs.single.core.EnvCore`, the step machine, and
  :class:`~blackjack_env.envs.single.core.LearnerView`, the per-step half of the
  learner's view).
"""

from blackjack_env.envs.single.env import BlackjackEnv

__all__ = ["BlackjackEnv"]

# the class keeps the package as its home (its pickles and documented path)
BlackjackEnv.__module__ = __name__
