"""The learner's view of a table, in one module family: what the learner is shown and
may do at each step, for every env.

* :mod:`blackjack_env.envs.view.fields` (re-exported here, so ``from blackjack_env.envs
  import view; view.encode_vector(...)`` reads it): every observation mode's fields,
  their positions, bounds and spaces, and their encoders, scalar or batched. Defined
  once: a new observation field is one edit there (plus its line in the single env's
  docstring, and, for the ``"multidiscrete"`` mode, the cache key of
  ``LearnerView.observe``).
* :mod:`blackjack_env.envs.view.layout`: :class:`~.layout.ObsMode` and
  :class:`~.layout.Layout`, the spaces, action names and the ``"vector"`` /
  ``"dict"`` observations of one env configuration, read from an engine ``Table``
  (the single env and the multi-agent table).
* :class:`blackjack_env.envs.core.LearnerView` (with :func:`~blackjack_env.envs.core.focus_index`,
  :func:`~blackjack_env.envs.core.unseen_by_rank`,
  :func:`~blackjack_env.envs.core.hi_lo_true_count`): the per-step part of a layout
  (legal actions, masks, the ``"tuple"`` / ``"multidiscrete"`` observations), which
  lives in the compiled module :mod:`blackjack_env.envs.core` (measured: the compiled
  view and env core make the single env 1.7-1.8x faster); ``Layout.per_step`` is it.
* :mod:`blackjack_env.envs.view.batched`: the same observations, decisions and masks
  for the batched env, from the tables' arrays.

The decision the learner is asked (:class:`~blackjack_env.envs.step.Decision`) is
:mod:`blackjack_env.envs.step`'s. Imports point one way: ``fields`` imports nothing of
the package; ``core`` imports ``fields``; ``layout`` imports ``core``; ``batched``
imports ``fields`` and ``layout``. The old module :mod:`blackjack_env.envs.observations`
re-exports ``layout``.
"""

from blackjack_env.envs.view.fields import *  # noqa: F403  (the fields, re-exported)
