"""The batched env: ``num_envs`` tables stepped at once with numpy arrays
(``gymnasium.make_vec(id, num_envs=N)`` of every registered id).

:class:`BlackjackVectorEnv` (:mod:`~blackjack_env.envs.vector.env`: the Gymnasium API
and autoreset) plays :class:`~blackjack_env.envs.batch.TableBatch` tables; each other
job has its module, a mixin of the env whose state :mod:`~.state` declares:

``checks.py``
    the arguments, actions and reset options, checked;
``bets.py``
    bet steps and finite bankrolls;
``observe.py``
    the learner's decisions, masks and observations, from the tables' arrays (the
    encoders of :mod:`blackjack_env.envs.view.fields`);
``info.py``
    the info dict;
``random_legal.py``
    :func:`random_legal_actions`, one random legal action per row of a mask;
``sb3.py``
    :class:`~blackjack_env.envs.vector.sb3.SB3VecEnv`, the env as a stable-baselines3
    ``VecEnv`` (imports stable-baselines3: not loaded here).
"""

from blackjack_env.envs.vector.env import BlackjackVectorEnv
from blackjack_env.envs.vector.random_legal import random_legal_actions

__all__ = ["BlackjackVectorEnv", "random_legal_actions"]

# the class keeps the package as its home (its pickles and documented path)
BlackjackVectorEnv.__module__ = __name__
