"""The blackjack table as a pure function in JAX (needs the ``[jax]`` extra).

:class:`BlackjackJax` is the gymnax-style environment object (``reset(key, params)``,
``step(key, state, action, params)`` with auto-reset, ``default_params``, spaces); its
rule tables are read on the host by :mod:`blackjack_env.jax.tables` off the rule-table
layer (:class:`~blackjack_env.envs.tables.RuleTables`, built from
:mod:`blackjack_env.engine.play`) that the numpy batched tables read too. ``BlackjackJax``
takes the numpy envs' argument names (:class:`~blackjack_env.envs.settings.EnvArgs`,
:meth:`BlackjackJax.from_args`).

The round itself is pure functions of one table's :class:`~blackjack_env.jax.state.State`
(``jax.vmap`` makes many tables), written by concept, mirroring the numpy batched tables
(:mod:`blackjack_env.envs.batch`) file for file; each function is read from the module
that defines it:

* :mod:`~blackjack_env.jax.state`: :class:`State` (every field's dtype, shape and unit),
  ``new_state``, ``SEAT_FIELDS`` and the readers the modules share;
  :mod:`~blackjack_env.jax.arrays`: the axes of the annotations' array types (jaxtyping's
  ``Int32[Array, "*seats hands"]``, annotations only) and the aliases of what is not one
  array;
* :mod:`~blackjack_env.jax.shoe`: the shoe and the random draws (``rng``, ``draw``,
  ``open_shoe``); :mod:`~blackjack_env.jax.loops`: the guarded loop and branch;
* :mod:`~blackjack_env.jax.hands`: legality (``legal_key``, ``legal_mask``) and a hand's
  decision (``act_play``, splits, ``advance``);
* :mod:`~blackjack_env.jax.dealer` (the dealer's turn, the peek) and
  :mod:`~blackjack_env.jax.settlement` (``pay``, ``round_net``);
* :mod:`~blackjack_env.jax.chips`: the learner's chips, the BET step's mask;
* :mod:`~blackjack_env.jax.round`: a round (``start_round``, ``open_round``, ``step``,
  ``act_insurance``, ``play_out``) and the episode (``end_round``, ``next_round``,
  ``first_round``);
* :mod:`~blackjack_env.jax.seats`: several learner seats (``acting``, ``masks``,
  ``active``);
* :mod:`~blackjack_env.jax.observe`: the observation in every mode (``observe``).

Every function is pure: state in, state out, randomness only from the key it is given,
every branch a ``where`` or a bounded ``lax`` loop, so ``jax.vmap`` makes N tables and
``jax.jit`` compiles them unchanged.
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        "blackjack_env.jax needs JAX: pip install 'blackjack_env[jax]' (jax, optax, flax)"
    ) from exc

from blackjack_env.jax.env import DEFAULT_OBS_MODE, BlackjackJax
from blackjack_env.jax.gym import ENV_ID, BlackjackJaxEnv, BlackjackJaxVectorEnv, register
from blackjack_env.jax.gymnax import GymnaxV1
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
