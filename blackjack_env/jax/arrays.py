"""The array types of the JAX table's annotations: the axes named once, and the aliases of
what is not one array.

The annotations are jaxtyping's (``Int32[Array, "*seats hands"]``: a ``jax.Array`` of
int32 whose axes are ``*seats`` then ``hands``). They are annotations only: nothing checks
them when the table runs (no ``jaxtyped`` decorator, no cost), and mypy reads each as a
``jax.Array``; the tests check the fields of :class:`~blackjack_env.jax.state.State` and
:class:`~blackjack_env.jax.tables.Params` against theirs with jaxtyping's
``isinstance``. An argument typed ``ArrayLike`` also takes a Python or numpy scalar
(``on=True``).

The axes, one table's (the round's functions see one table: ``jax.vmap`` adds the
leading ``tables`` axis of a batch):

* ``seats``: the learner seats at the table (``Config.seats``); written ``*seats`` on a
  seat's value, which has the axis only with several seats (``state.SEAT_FIELDS``);
* ``hands``: the hand slots of a seat (``Config.hands``);
* ``places``: the shoe's places (``Config.shoe_size``);
* ``ranks``: cards by rank, 13 where they are tracked (``Config.track``), else 0;
* ``actions``: the env's actions (``Config.n_actions``); ``bets``: its bet sizes
  (``Config.n_bets``);
* ``tables``: the tables of a batch (a leading axis); ``*batch``: the leading axes of
  what takes one table or a batch, with one seat or several (``tables``, ``seats``, those
  it has);
* ``""``: a scalar; a number is a fixed width (13 ranks, 52 card ids). A string that would
  read as Python (one name, a number) starts with a space (``" hands"``): ruff then reads
  it as jaxtyping's, not as a forward reference (``pyproject.toml``).
"""

from __future__ import annotations

from typing import TypeAlias

from jaxtyping import Array, Key, PyTree, UInt32

__all__ = ["Info", "Keys", "Observation"]

#: One key per table of a batch (typed keys, ``jax.random.key``, or the legacy uint32
#: pairs of ``jax.random.PRNGKey``); one table's key is jaxtyping's ``PRNGKeyArray``
Keys: TypeAlias = Key[Array, " tables"] | UInt32[Array, "tables 2"]

#: One table's observation in its mode: an array (float32 ``"features"`` / ``"vector"``,
#: int32 ``"multidiscrete"``), a dict of arrays (``"dict"``) or a tuple of int32 scalars
#: (``"tuple"``); several seats add a leading ``seats`` axis to each (a pytree of arrays)
Observation: TypeAlias = PyTree[Array]
#: Arrays by key, a step's ``info`` (``gymnax.LEAN_INFO``, ``gymnax.FULL_INFO``), the
#: ended round's last observation (an :data:`Observation`) among them
Info: TypeAlias = dict[str, PyTree[Array]]
