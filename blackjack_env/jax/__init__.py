"""The blackjack table as a pure function in JAX (needs the ``[jax]`` extra).

:class:`BlackjackJax` is the gymnax-style environment object (``reset(key, params)``,
``step(key, state, action, params)`` with auto-reset, ``default_params``, spaces); the
round itself is pure functions of one table's :class:`~blackjack_env.jax.state.State`
(``jax.vmap`` makes many tables), split by concept as the numpy batched tables (``state``,
``shoe``, ``hands``, ``dealer``, ``settlement``, ``chips``, ``round``, ``seats``,
``observe``) and re-exported together by :mod:`blackjack_env.jax.core`; its rule tables
are read on the host by :mod:`blackjack_env.jax.tables` off the rule-table layer
(:class:`~blackjack_env.envs.tables.RuleTables`, built from :mod:`blackjack_env.engine.play`)
that the numpy batched tables read too. ``BlackjackJax`` takes the numpy envs' argument
names (:class:`~blackjack_env.envs.settings.EnvArgs`, :meth:`BlackjackJax.from_args`).
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "blackjack_env.jax needs JAX: pip install 'blackjack_env[jax]' (jax, optax, flax)"
    ) from exc

from blackjack_env.jax.env import DEFAULT_OBS_MODE, BlackjackJax, GymnaxV1
from blackjack_env.jax.gym import ENV_ID, BlackjackJaxEnv, BlackjackJaxVectorEnv, register
from blackjack_env.jax.state import State
from blackjack_env.jax.tables import Config, Params

register()  # gymnasium.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", num_envs=N)

__all__ = [
    "DEFAULT_OBS_MODE",
    "ENV_ID",
    "BlackjackJax",
    "BlackjackJaxEnv",
    "BlackjackJaxVectorEnv",
    "Config",
    "GymnaxV1",
    "Params",
    "State",
]
