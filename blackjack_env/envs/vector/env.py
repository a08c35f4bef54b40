"""The batched vector environment: N blackjack tables stepped at once with numpy."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from blackjack_env.engine.rules import Rules
from blackjack_env.envs.batch import TableBatch
from blackjack_env.envs.codes import BatchPhase
from blackjack_env.envs.settings import (
    EnvArgs,
    EnvSettings,
    check_one_shoe,
    check_reset_options,
    json_ready_spec,
)
from blackjack_env.envs.step import (
    Decision,
    IllegalAction,
    array_play_illegal,
    array_table_actions,
)
from blackjack_env.envs.tables import RuleBank, RuleTables
from blackjack_env.envs.vector.checks import (
    check_actions,
    check_autoreset_mode,
    check_max_episode_steps,
    check_num_envs,
    check_reset_mask,
    check_seed,
    read_stacks,
)
from blackjack_env.envs.vector.info import InfoMixin
from blackjack_env.envs.vector.observe import ObserveMixin
from blackjack_env.envs.vector.random_legal import random_legal_actions
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = ["BlackjackVectorEnv", "random_legal_actions"]

_BATCH_INSURE = int(BatchPhase.INSURE)
_KNOWN_OPTIONS = ("cards", "reset_mask")
_SETTLED = int(Decision.SETTLED)


class BlackjackVectorEnv(VectorEnv, ObserveMixin, InfoMixin):
    """``num_envs`` blackjack seats (one learner per table, or ``seats_per_table``) stepped
    together with numpy arrays.

    ## Description

    The batched form of :class:`~blackjack_env.envs.single.BlackjackEnv`, whose
    docstring is the specification: rules, spaces (``single_action_space`` /
    ``single_observation_space``, the single env's), action meanings, masks, bet steps,
    bankrolls, illegal-action handling, rewards and episode ends are the single env's with
    the same arguments; the parity tests replay stacked shoes through both and compare
    every observation, mask and reward. ``gymnasium.make_vec(id, num_envs=N)`` builds it
    for every registered id. Each sub-env is one table with its own shoe; the tables are
    played as numpy arrays (the engine's round, reading the same rule tables; the module
    ``blackjack_env.envs.batch``). What differs from the single env is below.

    * Random cards: the same seed draws other cards than the single env's (equal in
      distribution, not in stream); the env has one generator (``seed`` an int or None).
    * Actions: an int array of shape ``(num_envs,)`` (any int dtype; bool, float and
      object arrays refused with the single env's message). ``step`` before ``reset``
      raises ``gymnasium.error.ResetNeeded``.
    * No rendering, no seats played by fixed strategies (``num_seats`` / rules with
      ``seats > 1``: use the single or the multi-agent env), no ``bet_raising`` rules
      (``ValueError``). ``"dict"`` observations make the batch keep the cards by rank,
      which costs some speed.

    ## Autoreset

    ``autoreset_mode`` (``metadata["autoreset_mode"]``):

    * ``"NextStep"`` (default, as Gymnasium's vector envs): the step that ends
      an episode returns its last observation; on the next step that sub-env is
      reset (its action is ignored) and returns the first observation of a new
      episode with reward 0, ``terminated = truncated = False``.
    * ``"SameStep"``: the ending step returns the new episode's first
      observation; the last one is in ``info["final_obs"]`` (a batched
      observation, valid where ``info["_final_obs"]``) with
      ``info["final_info"]`` (``round_net`` etc.). No step is spent on resets.
    * ``"Disabled"``: an ended sub-env must be reset with
      ``reset(options={"reset_mask": mask})`` before it steps again.

    Resetting a sub-env without a seed keeps its shoe (as ``BlackjackEnv.reset()``
    does): a round still in play is first played out with the learner standing.
    ``max_episode_steps`` (int or None) truncates an episode after this many steps,
    counted as Gymnasium's ``TimeLimit`` counts them (the step that resets a sub-env
    under ``"NextStep"`` is not one of the new episode's steps).

    ## Several learner seats per table

    ``seats_per_table=S`` (default 1) seats S learners at each table: ``num_envs`` must be
    a multiple of S, and sub-env ``r`` is seat ``r % S`` of table ``r // S``
    (``info["table"]``, ``info["seat"]``). Each sub-env is the agent ``seat_s`` of the
    multi-agent table (:class:`~blackjack_env.envs.multiagent.BlackjackParallelEnv`, whose
    docstring is the specification: casino order of the deal, pre-peek questions seat by
    seat, seat 0 plays all its hands first; the parity tests compare every seat at every
    step). Each step only the seat each table waits for acts: ``info["active"]`` marks the
    sub-envs whose action the *next* step plays (none for a table whose episode has
    ended); the other seats' actions are ignored and their observations show phase
    ``SETTLED`` with an all-ones mask. A settled round rewards every seat of the table on
    that step. Episodes end per table, so ``reset_mask`` takes whole tables and
    ``options["cards"]`` stacks a table's shoe through its seat-0 sub-env (the other
    seats' entries None). In ``"dict"`` mode ``seat_cards`` shows every seat's cards, as
    the multi-agent table does. Multi-seat tables take a fixed bet and unlimited credit
    (``bet_sizes``, ``bankroll`` refused), illegal actions ``"map"`` or ``"raise"``, and no
    ``num_seats`` / ``others`` / ``seat``; after ``rounds_per_episode`` rounds a table's
    episode is truncated, as the single env's. A table of S seats takes about S times
    more steps per round (``scripts/bench_vector.py --seats 3 7``).

    ## Rule spaces (domain randomization)

    ``rules`` may be a :class:`~blackjack_env.engine.rulespace.RuleSpace` (or its
    ``to_dict()``, as ``spec`` records it): every sub-env draws its rule set from the
    space at each of its resets, autoresets included, from the env's ``np_random`` (one
    stream: the same seed and actions give the same draws and games), and plays that
    episode at a fresh table under it (a finite shoe starts full). With several seats
    per table every seat of a table plays the table's draw. The sampler never draws the
    space's held-out rule sets. ``info["rules_index"]`` gives each sub-env's rule set as
    its index in the space (``env.rule_space.rules_at(i)``; an int array, fixed-shape and
    cheap to stack at every step, where a list of dicts would not be; the single env
    gives ``Rules.to_dict()`` at reset). The tables play each rule set exactly as a
    batched env of fixed rules would (``tests/envs/test_batch_rules.py``): their rule
    tables are stacked in ``env.bank`` (a :class:`~blackjack_env.envs.tables.RuleBank`;
    each rule set's tables are built the first time it is drawn, about 2-5 ms, so the
    first steps of a large space take longer), and each table reads its own rows. One
    shoe size per env: a space that varies the deck count is refused here (the single
    env plays it); penetration may vary. The observation space is the space's:
    ``H`` is its largest ``max_split_hands``.

    ## Observations that carry the rules

    ``observe_rules=True`` (``"vector"``, ``"features"``, ``"dict"``; refused with
    ``"tuple"`` and ``"multidiscrete"``): as the single env, each sub-env's observation
    ends with its table's rule features (the dict: key ``"rules"``), the same encoder
    (:func:`~blackjack_env.envs.view.fields.rule_features`), so one policy reads both.

    ## Info

    Batched, each key with its ``_key`` mask (all True): ``action_mask``
    ``(num_envs, n)`` int8, ``phase``, ``round``, ``bankroll``, ``shoe_remaining``,
    ``reshuffled``; after ``step``: ``illegal_action``, ``action_played``,
    ``round_over`` (a round was settled on this step) and ``round_net`` (its result in
    base bets; 0 elsewhere), each as the single env's. Per-card details (``hands``,
    ``dealer``, ``settlement``) are not produced: read the ``env.batch`` arrays, or use
    the single env. The arrays in ``info`` and the observations are the env's copies.

    ## Reset options

    ``cards``: text such as ``"AS KH 9D 7C"`` dealt first at every table, or a
    sequence with one entry (text or None) per sub-env. ``reset_mask``: bool
    array, reset only these sub-envs (the others keep their state; their
    returned observation is unchanged). Options are checked before anything changes:
    a refused reset leaves every table as it was.

    ## Arguments

    ``num_envs`` and the arguments of ``BlackjackEnv`` as keywords, or ``args`` (one
    :class:`~blackjack_env.envs.settings.EnvArgs` holding them whole), validated once
    by :meth:`~blackjack_env.envs.EnvSettings.batched` (``env.settings``), plus
    ``autoreset_mode``, ``max_episode_steps`` and ``seats_per_table`` (above). ``decks``
    replaces the rules' decks, as in every env (``EnvArgs.decks``). The rule tables the
    batch reads are ``env.tables`` (:class:`~blackjack_env.envs.tables.RuleTables`).

    ## Code

    This module is the Gymnasium API and autoreset; each other job has its module:
    :mod:`~blackjack_env.envs.vector.checks` (argument checks),
    :mod:`~blackjack_env.envs.step` (the illegal-action policy, shared with the other
    envs), :mod:`~blackjack_env.envs.vector.bets` (bet steps and bankrolls),
    :mod:`~blackjack_env.envs.vector.observe` (decisions, masks, observations),
    :mod:`~blackjack_env.envs.vector.info` (the info dict); their state is declared in
    :mod:`~blackjack_env.envs.vector.state`.

    ## Performance

    ``scripts/bench_vector.py`` measures hands per second against a
    ``SyncVectorEnv`` of 64 ``Blackjack-v1`` in the same run. ``"SameStep"``
    autoreset is the fastest mode (no step is spent on resets).

    ## Version History

    * v0: initial version. Later additions that leave the existing behaviour as it was:
      ``bet_sizes`` and a finite ``bankroll`` (2026-11), so every registered id with one
      seat, ``BlackjackCounting-v0`` included, has this native batched env;
      ``seats_per_table`` (2026-11): several learner seats per table; ``observe_rules``
      and ``rules=RuleSpace`` (2026-12): observations that carry the rules, and a rule set
      drawn per sub-env at each reset; both off by default, where the env is as before.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        args: EnvArgs | None = None,
        *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
        seats_per_table: int = 1,
        **kwargs: Any,
    ) -> None:
        if args is not None and not isinstance(args, EnvArgs):
            raise TypeError(
                f"args={args!r} must be an EnvArgs (the env's arguments whole) or None; give "
                f"the other arguments by keyword, e.g. rules=..."
            )
        num_envs = check_num_envs(num_envs)
        mode = check_autoreset_mode(autoreset_mode)
        max_episode_steps = check_max_episode_steps(max_episode_steps)
        # every argument checked there, once (an EnvArgs whole, or the keywords)
        whole = () if args is None else (args,)
        settings = EnvSettings.batched(seats_per_table, *whole, **kwargs)
        check_one_shoe(settings.rule_space)
        self.settings = settings
        #: the rule space each sub-env draws its rules from at each reset (None: fixed rules)
        self.rule_space = settings.rule_space
        #: under a rule space, the rule tables of the rule sets drawn (built on first draw)
        self.bank: RuleBank | None = None
        if self.rule_space is not None:
            self.bank = RuleBank(
                self.rule_space, bet=settings.bet, bet_sizes=settings.bet_sizes,
                bankroll=settings.bankroll, insurance_decisions=settings.insurance_decisions,
            )  # fmt: skip
            #: the rule tables of these settings (under a rule space: its first rule set's)
            self.tables = self.bank.first
        else:
            self.tables = RuleTables.from_settings(settings)
        rules: Rules = settings.rules
        self.rules = rules
        self.layout = Layout(
            rules, settings.obs_mode, settings.bet, settings.bet_sizes,
            settings.insurance_decisions, settings.max_hands, settings.observe_rules,
        )
        self.obs_mode = settings.obs_mode
        self.bet = settings.bet
        self.illegal_action = settings.illegal_action
        self.illegal_penalty = settings.illegal_penalty
        self.rounds_per_episode = settings.rounds_per_episode
        #: the name of each action index (as the single env's)
        self.action_names = self.layout.action_names()
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = mode
        # per instance: this env's autoreset mode (Gymnasium reads it there)
        self.metadata = {**self.metadata, "autoreset_mode": mode}  # type: ignore[misc]
        self.render_mode = None

        n = self.num_envs = num_envs
        self.seats = rules.seats
        if n % self.seats:
            raise ValueError(
                f"num_envs={n} must be a multiple of seats_per_table={self.seats} (one "
                f"sub-env per seat)"
            )
        self._seat = self._table = None
        if self.seats > 1:
            self._seat = np.arange(n) % self.seats
            self._table = np.arange(n) // self.seats
            self._seat.flags.writeable = False
            self._table.flags.writeable = False
        self.single_action_space = self.layout.action_space()
        self.single_observation_space = self.layout.observation_space()
        self.action_space = batch_space(self.single_action_space, n)
        self.observation_space = batch_space(self.single_observation_space, n)
        self._n_actions = self.layout.n_actions
        self._n_play = self.layout.n_play
        self._arange = np.arange(n)
        self._row_start = self._arange * self._n_actions  # flat index of each mask row
        self._all_true = np.ones(n, dtype=bool)
        self._no_env = np.zeros(n, dtype=bool)
        self._no_env.flags.writeable = False
        self._infinite = rules.shoe_decks is None
        decks = rules.shoe_decks
        self._full_ranks = None if decks is None else 4 * decks

        self.batch: TableBatch | None = None
        self._mask_rows = None
        self._bucket_rows = None
        self._bucket_width = self._bucket_top = 0
        self._mask = np.zeros((n, self._n_actions), dtype=np.int8)
        self._phase = np.full(n, Decision.SETTLED, dtype=np.int64)
        self._rounds = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._session_net = np.zeros(n, dtype=np.float64)
        self._ended = np.zeros(n, dtype=bool)
        self._init_bets()
        self._pre_peek_decisions = self.tables.pre_peek_decisions
        self._observe_rules = settings.observe_rules
        #: each sub-env's rule set, as its index in the rule space (0 for fixed rules)
        self._rules_index = np.zeros(n, dtype=np.int64)
        if self.bank is not None:
            # any rule set of the space may ask a pre-peek question: STAND declines it
            self._pre_peek_decisions = True

    # ================================================================ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env (or those of ``options["reset_mask"]``): ``(observations,
        info)``, batched. ``seed`` (an int) reseeds the env and starts fresh tables;
        ``options["cards"]`` stacks cards at every table, or per sub-env (see "Reset
        options"). Options are checked before anything changes."""
        seed = check_seed(seed)
        n = self.num_envs
        cards: Any = None
        mask = self._all_true
        # options are read and checked before anything changes: a refused reset leaves
        # every table as it was
        if options is not None:
            check_reset_options(options, _KNOWN_OPTIONS)
            cards = options.get("cards")
            if "reset_mask" in options:
                mask = check_reset_mask(options["reset_mask"], n, self.seats)
        stacks = read_stacks(cards, n, self.seats, self.rules.shoe_decks)  # one shoe size
        super().reset(seed=seed)
        idx = mask.nonzero()[0]
        if seed is not None or self.batch is None:
            track = self.obs_mode is ObsMode.DICT
            if self.bank is not None:
                self.batch = TableBatch.from_bank(self.bank, n, self.np_random, track)
            else:
                self.batch = TableBatch.from_tables(self.tables, n, self.np_random, track)
            idx = self._arange
        else:
            self.batch.finish_rounds(idx)
            self.batch.clear_stacks(idx)
        if stacks:
            stacks = {t: c for t, c in stacks.items() if mask[t]}
        self._new_episodes(idx, stacks)
        self._ended[idx] = False
        self._refresh()
        obs = self._observation()
        return obs, self._info()

    def step(
        self, actions: Any
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action per sub-env (an int array of shape ``(num_envs,)``; the names
        are ``action_names``): ``(observations, rewards, terminated, truncated,
        info)``, each batched, with the autoreset of ``autoreset_mode`` (see
        "Autoreset")."""
        batch = self.batch
        if batch is None:
            raise ResetNeeded("call reset() before step()")
        n = self.num_envs
        a = check_actions(actions, n, self._n_actions, self.action_names)
        resetting = self._no_env
        any_reset = False
        if np.count_nonzero(self._ended):
            if self.autoreset_mode is AutoresetMode.NEXT_STEP:
                resetting = self._ended  # replaced, never written, at the end of the step
                any_reset = True
            else:
                bad = self._ended.nonzero()[0]
                raise ValueError(
                    f"sub-env(s) {bad[:10].tolist()} ended their episode; with "
                    f"autoreset_mode='Disabled' reset them with "
                    f"reset(options={{'reset_mask': mask}}) before stepping"
                )
        legal = self._mask.reshape(-1).view(np.bool_).take(self._row_start + a)
        illegal = ~(legal | resetting)
        played = a
        if np.count_nonzero(illegal):
            played = array_play_illegal(
                self.illegal_action, a, illegal, self._phase, self._mask, self.action_names
            )
        decisions = played
        if self._pre_peek_decisions:  # STAND answers the pre-peek question: decline
            ins = batch.phase == _BATCH_INSURE
            if np.count_nonzero(ins):
                decisions = array_table_actions(played, ins)
        active = self._active(resetting) if any_reset or self._bets else None
        over, net = batch.step(decisions, active=active)
        if self._bets:
            played = self._bet_step(a, illegal, played, resetting, over, net)
        penalize = self.illegal_action is IllegalAction.PENALIZE and bool(np.count_nonzero(illegal))
        if penalize:
            pend = (illegal & ~over).nonzero()[0]
            batch.finish_rounds(pend)
            over[pend] = True
            net[pend] = batch.round_net(pend)
        if self._exact_chips:
            net = self._exact_net(net)
        # the batch's net is 0 where no round ended (resetting sub-envs did not step)
        round_net = net
        reward = round_net
        if penalize:
            reward = round_net - np.where(illegal, self.illegal_penalty, 0.0)
        self._session_net += round_net * self.bet if self.bet != 1 else round_net
        if self._exact_chips:  # the exact chips (a multiple of 1 / den), correctly rounded
            self._session_net = np.rint(self._session_net * self._chip_den) / self._chip_den
        if self.max_episode_steps is not None:  # the step count is read only then
            self._steps += 1
        limit = self.rounds_per_episode
        truncated = np.zeros(n, dtype=bool)
        if limit == 1:
            terminated = over.copy()
        else:
            terminated = np.zeros(n, dtype=bool)
            more = over if limit is None else over & (self._rounds < limit)
            truncated = over & ~more
            if batch.bankroll is not None:  # the learner cannot cover the smallest bet
                terminated = self._broke(more)
                more = more & ~terminated
            nxt = more.nonzero()[0]
            if nxt.size:
                self._start_rounds(nxt)
                self._rounds[nxt] += 1
        if self.max_episode_steps is not None:
            # a sub-env reset on this step starts a new episode: it is not truncated here
            truncated |= ~terminated & ~resetting & (self._steps >= self.max_episode_steps)
        if any_reset:
            idx = resetting.nonzero()[0]
            if self.max_episode_steps is not None:  # else every ended round is over
                batch.finish_rounds(idx)  # an episode truncated mid-round is played out first
            batch.clear_stacks(idx)
            self._new_episodes(idx)
        done = terminated | truncated
        info_extra = {
            "illegal_action": illegal,
            "action_played": played,
            "round_over": over,
            "round_net": round_net,
        }
        if self.autoreset_mode is AutoresetMode.SAME_STEP and np.count_nonzero(done):
            # the ended sub-envs' last observation, as "NextStep" returns it: a SETTLED
            # phase, which shows no can-double/split/surrender, and (the dict's
            # action_mask) every action legal; the rows of the other sub-envs in
            # final_obs are not meaningful
            ended = done.nonzero()[0]
            self._phase = self._phase.copy()  # set by index: faster than np.where
            self._phase[ended] = _SETTLED
            if self.obs_mode is ObsMode.DICT:  # (the other modes do not read the mask)
                self._mask = self._mask.copy()
                self._mask[ended] = 1
            final_obs = self._observe()
            final_info = {
                "round_net": info_extra["round_net"],
                "_round_net": done,
                "round": self._rounds.copy(),
                "_round": done,
            }
            idx = done.nonzero()[0]
            batch.finish_rounds(idx)  # truncated by max_episode_steps mid-round
            batch.clear_stacks(idx)
            self._new_episodes(idx)
            self._refresh()
            obs = self._observation()
            info = self._info(info_extra)
            info["final_obs"] = final_obs
            info["_final_obs"] = done
            info["final_info"] = final_info
            info["_final_info"] = done
        else:
            if self.autoreset_mode is not AutoresetMode.SAME_STEP:
                self._ended = done
            self._refresh()
            obs = self._observation()
            info = self._info(info_extra)
        return obs, reward, terminated, truncated, info

    @property  # type: ignore[override]
    def spec(self) -> Any:
        """Gymnasium's ``EnvSpec`` (set by ``make_vec``); a ``Rules`` given as ``rules`` is
        recorded as its dict, so ``spec.to_json()`` works."""
        return self.__dict__.get("_spec")

    @spec.setter
    def spec(self, value: Any) -> None:
        self.__dict__["_spec"] = json_ready_spec(value)

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool: legal actions (sb3-contrib MaskablePPO convention)."""
        return self._mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self.batch = None

    # ============================================================ autoreset
    def _new_episodes(self, idx: np.ndarray, stacks: dict[int, Any] | None = None) -> None:
        """Start a new episode at sub-envs ``idx`` (a reset or an autoreset): under a rule
        space, a rule set drawn for each table (from the env's ``np_random``); its first
        round, with ``bankroll`` chips, and the episode's counters at zero."""
        if self.rule_space is not None and self.bank is not None and idx.size:
            batch = self.batch
            assert batch is not None
            lead = idx if self.seats == 1 else idx[idx % self.seats == 0]
            drawn = self.rule_space.sample_indices(self.np_random, lead.size)
            if self.seats > 1:  # every seat of a table plays its rules
                drawn = np.repeat(drawn, self.seats)
            batch.set_rules(idx, self.bank.slots(drawn))
            self._rules_index[idx] = drawn
        self._start_rounds(idx, stacks, episode=True)
        self._rounds[idx] = 1
        self._steps[idx] = 0
        self._session_net[idx] = 0.0

