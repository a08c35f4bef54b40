"""The multi-agent table: every seat a PettingZoo agent (``pip install -e ".[multiagent]"``).

* :mod:`~blackjack_env.envs.multiagent.aec`: :class:`BlackjackAECEnv` (the AEC API; its
  docstring is the specification), made by :func:`env` (wrapped) or :func:`raw_env`;
* :mod:`~blackjack_env.envs.multiagent.parallel`: :class:`BlackjackParallelEnv`, the same
  table through the parallel API, made by :func:`parallel_env`.
"""

from blackjack_env.envs.multiagent.aec import BlackjackAECEnv, env, raw_env
from blackjack_env.envs.multiagent.parallel import BlackjackParallelEnv, parallel_env

__all__ = ["BlackjackAECEnv", "BlackjackParallelEnv", "env", "parallel_env", "raw_env"]

# the classes keep the package as their home (their pickles and documented paths)
for _public in (BlackjackAECEnv, BlackjackParallelEnv):
    _public.__module__ = __name__
del _public
