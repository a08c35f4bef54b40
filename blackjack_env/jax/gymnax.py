"""gymnax 1.0's form of the JAX table (:class:`GymnaxV1`, from
:meth:`~blackjack_env.jax.env.BlackjackJax.gymnax_v1`) and the step's ``info`` keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jax.numpy as jnp
from jaxtyping import Array, ArrayLike, Bool, Float32, Int32, PRNGKeyArray

from blackjack_env.jax.arrays import Info, Observation
from blackjack_env.jax.program import GymnaxReset
from blackjack_env.jax.state import State
from blackjack_env.jax.tables import Params

if TYPE_CHECKING:
    from blackjack_env.jax.env import BlackjackJax

__all__ = ["FULL_INFO", "LEAN_INFO", "GymnaxV1"]


#: The pure step's ``info`` keys (:meth:`BlackjackJax.step`): the new state's
#: ``action_mask`` (bool), and for the step ``round_over``, ``illegal_action``,
#: ``terminated``, ``truncated`` (bools) and ``discount`` (float32; 0 where terminated);
#: with several seats also ``active``. Per table about 13 bytes (5 actions).
LEAN_INFO = ("action_mask", "round_over", "illegal_action", "terminated", "truncated", "discount")
#: Added by ``BlackjackJax.step_full``: ``final_observation`` (the ended round's last
#: observation, SETTLED), ``round_net`` (float32, base bets, the penalty not taken),
#: ``round_chips`` (int32: the round's net chips exactly, in units of ``1 /
#: Config.chip_den``; 0 where no round ended), ``action_played`` (int32).
FULL_INFO = ("final_observation", "round_net", "round_chips", "action_played")


class GymnaxV1:
    """``BlackjackJax`` with gymnax 1.0's ``step`` (six values: ``obs, state,
    reward, terminated, truncated, info``, each in its own slot: an episode cut after
    ``rounds_per_episode`` rounds is ``truncated``, never ``terminated``), what gymnax's
    wrappers take (``LogWrapper``, ``FlattenObservationWrapper``,
    ``GymnaxToGymWrapper``, ``GymnaxToVectorGymWrapper``). Its ``info`` is the lean one
    (``LEAN_INFO``, as the plain ``step``'s: gymnax's ``LogWrapper`` and PureJaxRL keep
    every step's ``info`` as metrics, so each byte counts at every step of a run) with
    ``final_observation`` empty (float32 ``(0,)``, no bytes: gymnax's
    ``FlattenObservationWrapper`` reads the key at every step). ``final_observation=True``
    gives the ended round's last observation there (292 bytes a step in ``"features"``
    mode: about 3 GB over 10M steps under ``LogWrapper``), ``full_info=True`` the whole
    rich ``info`` (``BlackjackJax.step_full``). Other attributes are the table's."""

    def __init__(
        self, env: BlackjackJax, full_info: bool = False, final_observation: bool = False
    ) -> None:
        self._env = env
        #: step returns ``BlackjackJax.step_full``'s info
        self.full_info = bool(full_info)
        #: step's info holds ``final_observation`` (always with ``full_info``)
        self.final_observation = bool(final_observation) or self.full_info

    def __getattr__(self, name: str) -> Any:  # (any attribute of the table)
        # only reached for names not found on the object: read through __dict__, so an
        # object not yet initialised (copy.deepcopy builds one without __init__) answers
        # AttributeError instead of recursing; a special name (``__deepcopy__``...) is
        # not the table's: copy.deepcopy would copy the table alone
        env = self.__dict__.get("_env")
        if env is None or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(name)
        return getattr(env, name)

    def reset(self, key: PRNGKeyArray, params: Params | None = None) -> GymnaxReset:
        return self._env.reset(key, params)

    def step(
        self, key: PRNGKeyArray, state: State, action: Int32[ArrayLike, "*seats"],
        params: Params | None = None,
    ) -> tuple[
        Observation, State, Float32[Array, "*seats"], Bool[Array, "*seats"],
        Bool[Array, "*seats"], Info,
    ]:  # fmt: skip
        if not self.final_observation:  # (the lean entries)
            obs, st, reward, _done, info = self._env.step(key, state, action, params)
            info = {**info, "final_observation": jnp.zeros((0,), jnp.float32)}
        else:
            obs, st, reward, _done, info = self._env.step_full(key, state, action, params)
            if not self.full_info:
                keep = (*LEAN_INFO, "active", "final_observation")
                info = {k: v for k, v in info.items() if k in keep}
        return obs, st, reward, info["terminated"], info["truncated"], info
