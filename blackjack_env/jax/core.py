"""The round of one blackjack table as pure functions of a fixed-shape state (JAX): the
public functions of the JAX table's modules, re-exported under one name.

The table is written by concept, mirroring the numpy batched tables
(:mod:`blackjack_env.envs.batch`) file for file:

* :mod:`~blackjack_env.jax.state`: :class:`State` (every field's dtype, shape and unit),
  :func:`new_state`, :data:`SEAT_FIELDS` and the readers the modules share;
* :mod:`~blackjack_env.jax.shoe`: the shoe and the random draws (:func:`rng`,
  :func:`draw`, :func:`open_shoe`); :mod:`~blackjack_env.jax.loops`: the guarded loop;
* :mod:`~blackjack_env.jax.hands`: legality (:func:`legal_key`, :func:`legal_mask`) and a
  hand's decision (:func:`act_play`, splits, :func:`advance`);
* :mod:`~blackjack_env.jax.dealer` (the dealer's turn, the peek) and
  :mod:`~blackjack_env.jax.settlement` (:func:`pay`, :func:`round_net`);
* :mod:`~blackjack_env.jax.chips`: the learner's chips, the BET step's mask;
* :mod:`~blackjack_env.jax.round`: a round (:func:`start_round`, :func:`open_round`,
  :func:`step`, :func:`act_insurance`, :func:`play_out`) and the episode
  (:func:`end_round`, :func:`next_round`, :func:`first_round`);
* :mod:`~blackjack_env.jax.seats`: several learner seats (:func:`acting`, :func:`masks`,
  :func:`active`);
* :mod:`~blackjack_env.jax.observe`: the observation in every mode (:func:`observe`).

Every function is pure: state in, state out, randomness only from the key it is given,
every branch a ``where`` or a bounded ``lax`` loop, so ``jax.vmap`` makes N tables and
``jax.jit`` compiles them unchanged.
"""

from __future__ import annotations

from blackjack_env.jax.chips import (
    bankroll,
    bet_mask,
    chip_units,
    covers_chips,
    covers_insurance,
    split_stake_ok,
    to_units,
)
from blackjack_env.jax.dealer import dealer_add, dealer_turn, peek
from blackjack_env.jax.hands import (
    act_play,
    advance,
    decision_of,
    hands_done,
    legal_key,
    legal_mask,
    map_illegal,
    play_hand,
    seat_done,
    second_card,
    split_allowed,
    split_hand,
    table_decision,
)
from blackjack_env.jax.loops import guarded_while, when
from blackjack_env.jax.observe import (
    OBSERVERS,
    count_bucket,
    focus_fields,
    hole_hidden,
    observe,
    observe_dict,
    observe_multidiscrete,
    observe_tuple,
    observe_vector,
    seat_ranks,
    true_count,
    unseen_ranks,
)
from blackjack_env.jax.round import (
    act_insurance,
    end_round,
    first_round,
    next_round,
    open_round,
    play_decision,
    play_out,
    start_round,
    step,
)
from blackjack_env.jax.seats import (
    act_insurance_seats,
    acting,
    active,
    deal_seats,
    masks,
    merge_seat,
    play_seat,
    seat_view,
    step_seats,
)
from blackjack_env.jax.settlement import (
    category,
    outcomes,
    pay,
    round_net,
    settle,
    settle_by_compare,
)
from blackjack_env.jax.shoe import Rng, draw, open_shoe, rng
from blackjack_env.jax.state import (
    F32,
    I32,
    SEAT_FIELDS,
    State,
    count_rank,
    dealer_natural,
    hand_onehot,
    hand_soft,
    hand_total,
    hands_axis,
    is_natural,
    live_hands,
    natural_effects,
    naturals,
    new_state,
    rank_width,
    seat_axes,
    select,
)

__all__ = [
    "F32",
    "I32",
    "OBSERVERS",
    "SEAT_FIELDS",
    "Rng",
    "State",
    "act_insurance",
    "act_insurance_seats",
    "act_play",
    "acting",
    "active",
    "advance",
    "bankroll",
    "bet_mask",
    "category",
    "chip_units",
    "count_bucket",
    "count_rank",
    "covers_chips",
    "covers_insurance",
    "deal_seats",
    "dealer_add",
    "dealer_natural",
    "dealer_turn",
    "decision_of",
    "draw",
    "end_round",
    "first_round",
    "focus_fields",
    "guarded_while",
    "hand_onehot",
    "hand_soft",
    "hand_total",
    "hands_axis",
    "hands_done",
    "hole_hidden",
    "is_natural",
    "legal_key",
    "legal_mask",
    "live_hands",
    "map_illegal",
    "masks",
    "merge_seat",
    "natural_effects",
    "naturals",
    "new_state",
    "next_round",
    "observe",
    "observe_dict",
    "observe_multidiscrete",
    "observe_tuple",
    "observe_vector",
    "open_round",
    "open_shoe",
    "outcomes",
    "pay",
    "peek",
    "play_decision",
    "play_hand",
    "play_out",
    "play_seat",
    "rank_width",
    "rng",
    "round_net",
    "seat_axes",
    "seat_done",
    "seat_ranks",
    "seat_view",
    "second_card",
    "select",
    "settle",
    "settle_by_compare",
    "split_allowed",
    "split_hand",
    "split_stake_ok",
    "start_round",
    "step",
    "step_seats",
    "table_decision",
    "to_units",
    "true_count",
    "unseen_ranks",
    "when",
]
