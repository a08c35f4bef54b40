"""The single-learner Gymnasium environment: one seat at a casino table."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from blackjack_env import render as _render
from blackjack_env.engine.table import Action, Table
from blackjack_env.envs.settings import (
    EnvArgs,
    EnvSettings,
    check_reset_options,
    check_stack,
    json_ready_spec,
)
from blackjack_env.envs.single.core import EnvCore
from blackjack_env.envs.step import Decision, IllegalAction
from blackjack_env.envs.view.layout import Layout
from blackjack_env.strategies import Strategy, make_strategy, strategy_name

__all__ = ["BlackjackEnv"]


_KNOWN_OPTIONS = ("cards",)


class _RenderModes(list):  # type: ignore[type-arg]
    """The render modes: a list that also "contains" any value that is not a string.

    ``gymnasium.make`` calls ``render_mode.endswith("_list")`` on a mode outside the
    list, an ``AttributeError`` for ``render_mode=1``; through this list such a value
    reaches the env, whose settings refuse it with a ``ValueError`` naming
    ``render_mode`` and the allowed modes.
    """

    def __contains__(self, value: object) -> bool:
        return not isinstance(value, str) or super().__contains__(value)


class BlackjackEnv(gym.Env[Any, np.int64]):
    """One learner seat at a multi-seat casino blackjack table.

    ## Description

    The table of :mod:`blackjack_env.engine` plays the game under any
    :class:`~blackjack_env.engine.rules.Rules` (or named preset): a persistent
    shoe (reshuffled between rounds once the cut card comes out), a dealer, and
    ``num_seats`` seats. The learner plays seat ``seat``; every other seat is
    played by a fixed strategy (``others``) whenever the table waits for it, so
    the seats before the learner act before it and the seats after it act after
    it, as at a casino. The shoe persists across rounds *and* episodes; only
    ``reset(seed=...)`` builds a freshly shuffled shoe. Each episode is a session
    of ``rounds_per_episode`` rounds that starts with the learner holding
    ``bankroll`` chips.

    With the presets ``sutton-barto``, ``gymnasium`` and ``gymnasium-natural``
    and ``obs_mode="tuple"``, the spaces, the dynamics and the rewards are those
    of Gymnasium's ``Blackjack-v1`` with ``sab=True``, with ``natural=False`` and
    with ``natural=True`` respectively (``blackjack_env/BlackjackSuttonBarto-v0`` is
    registered with the first).

    ## Action Space

    ``Discrete(P + B)``. The first ``P`` actions are the playing decisions, with
    the engine's :class:`~blackjack_env.engine.table.Action` numbers:

    | index | action    | meaning                                                         |
    |-------|-----------|-----------------------------------------------------------------|
    | 0     | STAND     | stand; pre-peek: decline insurance / even money; settled: go on |
    | 1     | HIT       | take a card                                                     |
    | 2     | DOUBLE    | double the bet, take one card, stand                            |
    | 3     | SPLIT     | split a pair (each hand gets its second card when played)       |
    | 4     | SURRENDER | give up half the bet (late: first decision; early: pre-peek)    |
    | 5     | INSURE    | insurance (even money on a natural); ``insurance_decisions``    |

    ``P`` is 2 (stand, hit only) when the rules allow no double, no split and no
    surrender and no insurance decision is asked (the restricted space of
    ``Blackjack-v1``), 6 with ``insurance_decisions=True``, and 5 otherwise.
    With ``bet_sizes=(s_0, ..., s_{B-1})`` the actions ``P + k`` mean "bet
    ``s_k`` base bets" and are legal only at a bet step; ``env.unwrapped.action_names``
    names every index.

    **Insurance, even money, early surrender.** They are answered before the
    dealer peeks, as a separate step with ``phase = INSURANCE`` in which the
    legal actions are STAND (decline), INSURE (only with ``insurance_decisions``,
    when offered against an ace and affordable) and SURRENDER (early surrender
    rules). Without ``insurance_decisions`` insurance and even money are always
    declined for the learner, and the step only occurs under early surrender.

    **Legal actions** are given as ``info["action_mask"]`` (``int8``, 1 = legal,
    the convention of ``Discrete.sample(mask=...)``) and by ``action_masks()``
    (booleans, for sb3-contrib's MaskablePPO).

    **Illegal actions** (in the space but not legal now) depend on ``illegal_action``:

    * ``"map"`` (default): the action is replaced by a legal one and
      ``info["illegal_action"]`` is True (``info["action_played"]`` is the index
      played). Playing: DOUBLE, SPLIT or SURRENDER when not allowed play as HIT
      ("double, else hit", as in strategy charts), or as STAND when hitting is
      not allowed either (split aces); HIT when not allowed plays STAND; INSURE
      or a bet action plays STAND. Pre-peek: anything not legal declines
      (STAND). Bet step: a bet size not allowed (table limits, bankroll) bets the
      largest allowed size below it, else the smallest allowed size; a playing
      action bets the smallest allowed size.
    * ``"raise"``: ``ValueError`` naming the action and the legal ones; the env
      is unchanged.
    * ``"penalize"``: the round ends: the learner stands on (and declines)
      every remaining decision of the round (at a bet step, after placing the
      bet "map" chooses), and the step's reward is the round's net result
      minus ``illegal_penalty``; ``info["illegal_action"]`` is True.

    At a ``SETTLED`` observation every action is legal and only continues.
    An action outside the space (or not an integer) always raises ``ValueError``.

    ## Observation Space

    (Each field's position, bounds and encoder are defined in
    :mod:`blackjack_env.envs.view`; a field added there is described here, in its
    mode's list: the docs build stops on a field without its line.)

    Fields describe the learner's *focus hand*: the hand to act, or else the hand
    it last acted on. ``H`` is ``rules.max_split_hands``. Totals are the best total
    (an ace counts 11 unless that busts), ``0..31``. The true count is the Hi-Lo
    running count of the cards the learner has seen since the shuffle (the hole card
    only once turned) divided by the decks not yet seen (always 0 with an infinite
    deck).

    ### ``"tuple"``

    ``Tuple(Discrete(32), Discrete(11), Discrete(2))``, as ``Blackjack-v1``. It
    cannot show a bet or pre-peek step, so it is refused with ``bet_sizes``,
    ``insurance_decisions`` or early surrender.

    * 0 ``total``: the focus hand's total; 0 before the deal.
    * 1 ``upcard``: the dealer's upcard: 1 an ace, 2..10 its point value (ten, jack,
      queen, king: 10); 0 before the deal.
    * 2 ``soft``: 1 when the total counts an ace as 11 (a usable ace), else 0.

    ### ``"multidiscrete"`` (default)

    ``MultiDiscrete([4, 32, 11, 2, 2, 2, 2, H, 11])``, integers:

    * 0 ``phase``: the decision (:class:`~blackjack_env.envs.step.Decision`): 0 PLAY, 1
      INSURANCE (the pre-peek step), 2 BET, 3 SETTLED (the round is over; any action
      continues).
    * 1 ``total``: the focus hand's total, as ``"tuple"``.
    * 2 ``upcard``: the dealer's upcard, as ``"tuple"`` (1 an ace, 0 before the deal).
    * 3 ``soft``: 1 when the total is soft, as ``"tuple"``.
    * 4 ``can_double``: 1 when DOUBLE is legal now.
    * 5 ``can_split``: 1 when SPLIT is legal now.
    * 6 ``can_surrender``: 1 when SURRENDER is legal now (late: the first decision;
      early: the pre-peek step).
    * 7 ``hand_index``: the focus hand's index among the learner's hands, 0..H - 1
      (split hands left to right).
    * 8 ``count``: the true count rounded (Python ``round``: halves to even), clipped to
      -5..5, plus 5 (5: a count of 0).

    ### ``"vector"``

    ``Box(float32, shape (17,))``, every entry in [0, 1] except the true count in
    [-1, 1]:

    * 0..3 ``phase``: one-hot of the phase: PLAY, INSURANCE, BET, SETTLED.
    * 4 ``total``: the total / 31.
    * 5 ``soft``: 1 when the total is soft.
    * 6 ``upcard``: the upcard / 10 (0.1 an ace, 1 a ten-valued card, 0 before the
      deal).
    * 7 ``can_double``: 1 when DOUBLE is legal now.
    * 8 ``can_split``: 1 when SPLIT is legal now.
    * 9 ``can_surrender``: 1 when SURRENDER is legal now.
    * 10 ``can_insure``: 1 at the pre-peek step when INSURE is legal
      (``insurance_decisions``).
    * 11 ``hand_index``: the focus hand's index / max(1, H - 1).
    * 12 ``num_hands``: the learner's hands / H.
    * 13 ``cards``: the cards in the focus hand / 12, at most 1.
    * 14 ``pair``: 1 when the focus hand is a pair of equal ranks.
    * 15 ``true_count``: the true count / 10, clipped to [-1, 1].
    * 16 ``shoe``: the fraction of the shoe not yet dealt (1 for an infinite deck).

    ### ``"features"``

    ``Box(float32, shape (73,))``: the input a plain MLP that reads the raw numbers
    learns from (the vector's scaled total and upcard are hard for it to cut into the
    chart's thresholds; tools that one-hot-encode a ``MultiDiscrete`` themselves,
    such as stable-baselines3, need not):

    * 0..16 ``vector``: the 17 entries of ``"vector"``, unchanged.
    * 17..48 ``total``: one-hot of the total, 0..31 (entry 17 + total).
    * 49..59 ``upcard``: one-hot of the upcard, 0..10 (entry 49 + upcard; 50 an ace).
    * 60..72 ``cards``: one-hot of the cards in the focus hand, 0..12 (12 for 12 or
      more).

    ### ``"dict"``

    ``Dict`` of the fields below (count fields lie in 0..255):

    * ``phase``: the decision, as ``"multidiscrete"``'s phase.
    * ``player_total``: the focus hand's total.
    * ``soft``: 1 when the total is soft.
    * ``dealer_upcard``: the dealer's upcard (1 an ace, 0 before the deal).
    * ``hand_index``: the focus hand's index, 0..H - 1.
    * ``num_hands``: the learner's hands, 0..H (0 before the deal).
    * ``hand_cards``: the focus hand's cards by rank (13 counts, ace .. king).
    * ``dealer_cards``: the dealer's visible cards by rank.
    * ``seat_cards``: every seat's cards on the table (all its hands) by rank, seat by
      seat: entry ``13 * seat + rank - 1``, shape (num_seats * 13,).
    * ``unseen_cards``: the cards the learner has not seen, by rank: undealt plus the
      face-down hole card, 4 each for an infinite deck.
    * ``true_count``: the true count, clipped to [-20, 20].
    * ``bet``: the focus hand's stake in base bets.
    * ``bankroll``: the learner's chips off the table in base bets (with unlimited
      credit: the session's net result).
    * ``action_mask``: the legal actions, 1 = legal (as ``info["action_mask"]``).

    **The rules in the observation** (``observe_rules=True``; refused with ``"tuple"``
    and ``"multidiscrete"``, which cannot carry them): ``"vector"`` and ``"features"``
    end with the table's rule features (the Box grows by ``RULES_SIZE`` = 50 entries,
    each in [0, 1]: ``(67,)`` and ``(123,)``), and ``"dict"`` gains the key ``"rules"``,
    float32 (50,) in [0, 1]. The entries (one-hot enums, 0/1 flags, scaled numbers) are
    named and documented by :data:`~blackjack_env.envs.view.fields.RULE_FEATURE_TABLE`
    and made by :func:`~blackjack_env.envs.view.fields.rule_features`, the one encoder
    every env uses. Under a rule space ``H`` is the space's largest
    ``max_split_hands`` (:attr:`~blackjack_env.engine.rulespace.RuleSpace.max_hands`),
    for every rule set drawn.

    ## Rewards

    The learner's net chip result of the round (all hands, doubles, splits,
    surrender and insurance) divided by the base bet ``bet``: +1 for a win,
    +1.5 for a 3:2 blackjack, +2 / -2 for a won / lost double, -0.5 for a
    surrender, the sum over split hands. It is given at the step that ends the
    round; every other step gives 0. Under ``"penalize"`` an illegal action also
    subtracts ``illegal_penalty``.

    A round in which the learner has no decision (a natural that ends the hand,
    a dealer blackjack found by the peek, a natural paid at the deal) is *not*
    skipped: its observation has ``phase = SETTLED`` (the settled cards are in
    the observation and ``info``) and the next step, whatever its action,
    returns that round's reward. Such rounds are therefore counted in returns
    exactly like the others. With a BET step (``bet_sizes``) the bet is that round's
    decision: the BET step that deals it settles it and returns its reward.

    ## Starting State

    After ``reset`` (and between rounds) other seats bet ``bet`` chips each,
    the learner bets ``bet`` chips (or is asked with a BET step), the cards are
    dealt in casino order, and the seats before the learner act.

    ## Episode End

    * ``rounds_per_episode=1`` (default): the episode terminates when the round
      is settled.
    * ``rounds_per_episode=N > 1``: after a round is settled the next one starts
      at once (its first observation is returned with the reward of the round
      just settled); after the N-th round the episode is *truncated*.
      ``None`` plays rounds without limit.
    * The episode terminates when the learner's bankroll cannot cover the
      smallest bet for the next round.

    ## Info

    Always: ``action_mask`` (int8), ``phase`` (Decision), ``round`` (rounds
    started in this episode), ``bankroll`` (chips off the table; with unlimited
    credit the session's net chips), ``shoe_remaining`` (undealt cards, None for
    an infinite deck), ``reshuffled`` (the shoe was reshuffled before this
    round), ``hands`` (the learner's hands, tuples of
    :class:`~blackjack_env.engine.cards.Card`), ``dealer`` (the dealer's cards
    visible to the learner). After ``step``: ``illegal_action`` and
    ``action_played``. At the step that settles a round: ``settlement`` =
    dict(round, hands, dealer (all cards), outcomes (:class:`Outcome` per hand),
    payouts (net per hand in base bets), insurance (net in base bets), net
    (round total in base bets)).

    Under a rule space (``rules=RuleSpace``), the info of ``reset`` also has ``rules``
    (the episode's rules, :meth:`Rules.to_dict`: JSON-ready, ``Rules.from_dict`` reads it
    back) and ``rules_index`` (its index in the space, ``space.rules_at(i)``).

    With ``info_cards=False`` the info holds numbers only, with the same keys at every
    step, which is what tools that stack infos across envs need (Tianshou's ``Batch``
    cannot stack the variable-length card tuples): no ``hands`` or ``dealer``, and after
    ``step`` ``round_net`` (the settled round's net in base bets, 0.0 when no round was
    settled on this step) and ``settled`` (bool) in place of ``settlement``. The cards
    stay readable through ``env.unwrapped.table``.

    ## With other RL libraries

    ``blackjack_env/Blackjack-v0``'s observation (``obs_mode="multidiscrete"``) is a
    vector of ints, and stays so within v0. A tool that feeds it to a network unchanged
    meets integer tensors: CleanRL's ``dqn.py`` on ``Blackjack-v0`` stops in torch with
    a Long-versus-Float dtype error. For such tools use the id
    ``blackjack_env/BlackjackVector-v0`` (``obs_mode="vector"``, ``float32``). Tianshou
    stacks the infos of its envs and fails on the default info's card tuples: make the
    env with ``info_cards=False``.

    ## Reset options

    ``reset(options={"cards": "AS KH 9D 7C ..."})`` deals these cards first,
    then continues from the shuffled shoe. Casino deal order: first card to each
    betting seat in seat order, the dealer's upcard, second card to each seat,
    the dealer's hole card (not under no-hole-card rules), then every further
    card in the order drawn (seat by seat, hand by hand, then the dealer; a
    split hand receives its second card when play reaches it). Cards named but
    not dealt in the episode's first round are dealt in the next rounds of the
    same episode; the next ``reset`` returns them to the shoe. A bad card (or a card
    named more often than the shoe holds it) raises ``ValueError`` naming it, before
    anything changes: the running episode is left as it was.

    ## Arguments

    * ``rules``: a :class:`Rules`, a preset name (default ``"vegas-strip"``), or the
      dict of :meth:`Rules.to_dict` (how ``env.spec`` records a ``Rules``). Or a
      :class:`~blackjack_env.engine.rulespace.RuleSpace` (or its ``to_dict()``, which is
      how ``env.spec`` records it), for domain randomization: each ``reset`` draws a rule
      set from the space with the env's ``np_random`` (so a seed fixes the draws as it
      fixes the cards; the sampler never draws the space's held-out rule sets) and plays
      the episode at a new table under it, with a fresh shoe (no shoe carries over from
      one episode to the next); ``env.unwrapped.rules`` is the episode's rules. Every
      rule set of a space shares the action and observation spaces (a space whose
      rule sets would not is refused when built); the table limits (``min_bet``,
      ``max_bet``) and ``max_seats`` may not vary; ``num_seats`` and ``decks`` apply to
      every rule set (``decks`` refused when the space varies the decks). ``options
      ["cards"]`` must fit the space's smallest shoe.

    Whole-number arguments accept Python and numpy integers. Every argument is
    checked by :class:`~blackjack_env.envs.settings.EnvSettings` (``env.settings``);
    a bad one raises ``ValueError`` naming it, its value and what is allowed.
    * ``num_seats``: seats at the table (default: ``rules.seats``); replaces
      ``rules.seats``.
    * ``seat``: the learner's seat index (default 0).
    * ``others``: strategy for the other seats: a registered name (see
      :func:`blackjack_env.strategies.make_strategy`), a callable
      ``(table) -> Action``, or a sequence with one per other seat in seat order
      (default ``"dealer"``). Named random strategies are seeded from the env.
    * ``obs_mode``: ``"multidiscrete"`` (default), ``"tuple"``, ``"vector"``,
      ``"features"``, ``"dict"``.
    * ``rounds_per_episode``: int >= 1 or None (default 1).
    * ``bankroll``: the learner's starting chips per episode, or None for
      unlimited credit (default).
    * ``bet``: the base bet in chips (default: the table minimum); rewards are
      in base bets.
    * ``bet_sizes``: None (fixed bet, default) or increasing positive ints:
      bet multiples offered at a BET step before each round.
    * ``insurance_decisions``: ask the learner for insurance / even money
      (default False: always declined). Needs rules offering insurance.
    * ``illegal_action``: ``"map"`` (default), ``"raise"``, ``"penalize"``.
    * ``illegal_penalty``: the penalty of ``"penalize"`` (default 1.0).
    * ``render_mode``: None, ``"ansi"``, ``"rgb_array"``, ``"human"``.
    * ``info_cards``: True (default): the info carries the cards (``hands``,
      ``dealer``, ``settlement``); False: numeric, fixed-shape entries only (see Info).
    * ``decks``: decks in the shoe, replacing ``rules.decks`` (None: an infinite deck;
      default ``"rules"``: the rules' own). The one rule override every env takes
      (this env, the batched env, ``BlackjackJax``), since the deck count is the rule
      most often varied; other rule fields go in ``rules=preset(name, field=...)``.
    * ``observe_rules``: the observation carries the rules' features (default False; see
      Observation Space): ``"vector"``, ``"features"`` and ``"dict"`` only.

    The learner never raises a bet under ``rules.bet_raising`` (that decision is
    not in the action space); it may still be used by other seats' strategies.

    ## Version History

    A line that names an id is about that id alone; the others are about every id.

    * v0: initial version. Later additions that leave each id's default behaviour as it
      was: ``info_cards`` (2026-11); ``decks`` (2026-12); ``obs_mode="features"``
      (2026-12); ``observe_rules`` and ``rules=RuleSpace`` (2026-12, domain
      randomization). Each is a new option whose default (off, or fixed rules) behaves
      exactly as before, so the ids keep their version.
    * ``blackjack_env/BlackjackVector-v0``: registered in 2026-11, ``obs_mode="vector"``
      fixed, for tools that take only an id.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": _RenderModes(["ansi", "rgb_array", "human"]),
        "render_fps": 2,
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the signature is EnvArgs' (set below the class); every argument is checked
        # there, with one ValueError naming it
        settings = EnvSettings.single(*args, **kwargs)
        #: the validated settings (frozen)
        self.settings = settings
        rules = self.rules = settings.rules
        self._seat = settings.seat
        bet = self._bet = settings.bet
        self._bankroll = settings.bankroll
        sizes = settings.bet_sizes
        mode = settings.obs_mode
        self._min_cost = settings.min_cost
        self._rounds_per_episode = settings.rounds_per_episode
        self._illegal_action = settings.illegal_action
        self._illegal_penalty = settings.illegal_penalty
        self.render_mode = settings.render_mode
        self._others_spec = [spec for _, spec in settings.others]
        insurance_decisions = settings.insurance_decisions

        #: the rule space a rule set is drawn from at each reset (None: fixed rules)
        self.rule_space = settings.rule_space
        self.layout = Layout(
            rules, mode, bet, sizes, insurance_decisions, settings.max_hands,
            settings.observe_rules,
        )
        self.action_space = self.layout.action_space()
        self.observation_space = self.layout.observation_space()
        #: the name of each action index: ``STAND``, ``HIT``, ... then ``BET_<size>``
        self.action_names: list[str] = self.layout.action_names()
        self.obs_mode = mode

        # ---- state and per-step work (compiled; see blackjack_env.envs.single.core)
        self._core = EnvCore(self.layout, settings)  # the settings, whole
        self._renderer: Any = None

    # ================================================================ API
    @property  # type: ignore[override]
    def spec(self) -> Any:
        """Gymnasium's ``EnvSpec`` (set by ``gymnasium.make``); a ``Rules`` given as
        ``rules`` is recorded as its dict, so ``spec.to_json()`` works."""
        return self.__dict__.get("_spec")

    @spec.setter
    def spec(self, value: Any) -> None:
        self.__dict__["_spec"] = json_ready_spec(value)

    # The settings are read-only: the compiled core holds the values it plays with,
    # so assigning one after construction raises rather than being silently ignored.
    @property
    def seat(self) -> int:
        """The learner's seat index."""
        return self._seat

    @property
    def bet(self) -> int:
        """The base bet in chips (rewards are in base bets)."""
        return self._bet

    @property
    def bankroll(self) -> int | None:
        """The learner's starting chips per episode (None: unlimited credit)."""
        return self._bankroll

    @property
    def rounds_per_episode(self) -> int | None:
        """Rounds per episode (None: no limit)."""
        return self._rounds_per_episode

    @property
    def illegal_action(self) -> IllegalAction:
        """What an action that is not legal now does (see the class docstring)."""
        return self._illegal_action

    @property
    def illegal_penalty(self) -> float:
        """The penalty of ``illegal_action="penalize"``."""
        return self._illegal_penalty

    @property
    def table(self) -> Table:
        """The engine table (read it, do not act on it)."""
        table = self._core.table
        if table is None:
            raise ResetNeeded("call reset() before using the table")
        return table

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start an episode: ``(observation, info)``.

        ``seed`` (an int) reseeds the env and starts a fresh table with a full shoe;
        without it the shoe carries on (a round still in play is first played out with
        the learner standing). ``options``: ``{"cards": "AS KH 9D 7C"}`` deals these
        cards first (text, or a list of ``Card`` / card text; see "Reset options" in the
        class docstring). Under a rule space a rule set is drawn for the episode
        (``info["rules"]``, ``info["rules_index"]``). Options are checked before
        anything changes: a refused reset raises ``ValueError`` and leaves the running
        episode as it was."""
        cards = None
        space = self.rule_space
        if options is not None:
            check_reset_options(options, _KNOWN_OPTIONS)
            cards = options.get("cards")
            if cards is not None:
                # under a rule space: cards every shoe of the space holds
                decks = space.shoe_decks[0] if space is not None else self.rules.shoe_decks
                cards = check_stack(cards, decks)
        super().reset(seed=seed)
        self._core.done = True  # until this reset succeeds, step() asks for one
        core = self._core
        index = -1
        if space is not None:  # a rule set drawn for the episode, at a table of its own
            index = int(space.sample_indices(self.np_random, 1)[0])
            self.rules = space.rules_at(index)
            self._build_table()
        elif seed is not None or core.table is None:
            self._build_table()
        obs, info = core.reset(cards)
        if space is not None:
            info["rules"] = self.rules.to_dict()
            info["rules_index"] = index
        if self.render_mode == "human":
            self.render()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action`` (an index of ``action_space``; ``action_names`` names
        them): ``(observation, reward, terminated, truncated, info)``. The reward is the
        round's net result in base bets when a round ends on this step, else 0; an
        illegal action is mapped, raised or penalized as ``illegal_action`` says
        (``info["illegal_action"]``, ``info["action_played"]``). Before :meth:`reset`
        (or after the episode ended) it raises ``gymnasium.error.ResetNeeded``."""
        out = self._core.step(action)
        if self.render_mode == "human":
            self.render()
        return out

    def action_masks(self) -> np.ndarray:
        """Legal actions as booleans (sb3-contrib MaskablePPO convention)."""
        return self.layout.per_step.bool_mask(self._core.legal)

    def render(self) -> Any:
        """The table as ``render_mode`` draws it: text (``"ansi"``), an RGB frame
        (``"rgb_array"``, ``(H, W, 3)`` uint8), or a window (``"human"``, drawn at every
        reset and step; needs pygame). None, with a warning, without a render mode."""
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; make the env with render_mode="
                "'ansi', 'rgb_array' or 'human'"
            )
            return None

        table = self.table
        caption = self._caption()
        if self.render_mode == "ansi":
            return _render.render_ansi(table, self.seat, self.bet, caption)
        frame = _render.render_rgb(table, self.seat, self.bet, caption)
        if self.render_mode == "rgb_array":
            return frame
        if self._renderer is None:
            fps = self.metadata["render_fps"]
            self._renderer = _render.Window(frame.shape[1], frame.shape[0], fps)
        self._renderer.show(frame)
        return None

    def close(self) -> None:
        """Close the window of ``render_mode="human"`` (nothing else to release)."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_renderer"] = None  # a window cannot be pickled; a copy opens its own
        return state

    # ============================================================ internals
    def _build_table(self) -> None:
        """A new table and other seats' strategies, seeded from ``self.np_random``."""
        rules = self.rules
        rng = self.np_random
        n = rules.seats
        seeds = rng.integers(0, 2**63, size=n) if n > 1 else [0]
        bankrolls: list[Any] = [None] * n
        bankrolls[self.seat] = self.bankroll
        table = Table(rules, rng, bankroll=bankrolls)
        strategies: dict[int, Strategy] = {}
        names: dict[int, str] = {}
        others = iter(self._others_spec)
        for i in range(n):
            if i != self.seat:
                spec = next(others)
                strategies[i] = make_strategy(spec, rules, int(seeds[i]))
                names[i] = strategy_name(spec)
        self._core.use_table(table, strategies, names)

    def _caption(self) -> str:
        core = self._core
        parts = [f"round {core.rounds}", f"bankroll {core.bankroll_chips():g}"]
        if core.phase is not Decision.SETTLED:
            names = list(self.action_names)
            if core.phase is Decision.INSURANCE:
                names[Action.STAND] = "DECLINE"
            parts.append("legal: " + " ".join(names[i] for i in core.legal))
        s = core.last_settlement
        if s is not None:
            parts.append(f"last round {s['net']:+g}")
        return " | ".join(parts)


# The arguments are EnvArgs' fields (their defaults and help lines): inspect, help() and
# the docs show them as BlackjackEnv's signature.
BlackjackEnv.__init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
     *EnvArgs.signature().parameters.values()],
    return_annotation=None,
)
