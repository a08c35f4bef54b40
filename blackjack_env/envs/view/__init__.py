"""The learner's view of a table, in one module family: what the learner is shown and
may do at each step, for every env.

* :mod:`blackjack_env.envs.view.fields` (re-exported here, so ``from blackjack_env.envs
  import view; view.encode("vector", facts)`` reads it): every observation mode's fields,
  their positions, bounds and spaces, and their encoders, scalar or batched. Defined
  once: a new observation field is one edit there.
* :mod:`blackjack_env.envs.view.layout`: :class:`~.layout.ObsMode` and
  :class:`~.layout.Layout`, the spaces, action names and the ``"vector"`` /
  ``"dict"`` observations of one env configuration, read from an engine ``Table``
  (the single env and the multi-agent table). Its per-step half (legal actions, masks,
  the ``"tuple"`` / ``"multidiscrete"`` observations) is the compiled
  :class:`~blackjack_env.envs.single.core.LearnerView` (``Layout.per_step``).

The batched env's observations are encoded by the same functions, from the tables'
arrays (:mod:`blackjack_env.envs.vector.observe`), and so are the JAX table's
(:mod:`blackjack_env.jax.observe`). The decision the learner is asked
(:class:`~blackjack_env.envs.step.Decision`) is :mod:`blackjack_env.envs.step`'s.
Imports point one way: ``fields`` imports nothing of the package but the engine's
rules; ``single.core`` imports ``fields``; ``layout`` imports ``single.core``.
"""

from blackjack_env.envs.view.fields import *  # noqa: F403  (the fields, re-exported)
