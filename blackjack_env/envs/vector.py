"""The batched vector environment: N blackjack tables stepped at once with numpy."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from blackjack_env.engine import play
from blackjack_env.engine.cards import Card
from blackjack_env.engine.play import Action, array_hi_lo_true_count, array_soft
from blackjack_env.engine.rules import HoleCard, Rules, Surrender
from blackjack_env.envs import view
from blackjack_env.envs.batch import BatchPhase, TableBatch
from blackjack_env.envs.observations import (
    Decision,
    Layout,
    ObsMode,
    check_reset_options,
)
from blackjack_env.envs.settings import (
    EnvSettings,
    IllegalAction,
    check_action,
    check_stack,
    json_ready_spec,
)
from blackjack_env.envs.step import (
    DECISION_BY_BATCH_PHASE,
    PENALTY_ACTION,
    array_map_illegal,
    array_map_illegal_bet,
    array_table_actions,
    illegal_message,
)

__all__ = ["BlackjackVectorEnv", "random_legal_actions"]

# Action codes as plain ints, derived from the enum (mask columns)
_STAND, _HIT, _DOUBLE, _SPLIT, _SURRENDER, _INSURE = (int(a) for a in Action if a < Action.DECLINE)
_BATCH_INSURE = int(BatchPhase.INSURE)
_DECISION = DECISION_BY_BATCH_PHASE  # batch phase -> the learner's Decision (envs.step)
_KNOWN_OPTIONS = ("cards", "reset_mask")
_PLAY, _INSURANCE, _SETTLED = int(Decision.PLAY), int(Decision.INSURANCE), int(Decision.SETTLED)
_BET = int(Decision.BET)
_BATCH_OVER = int(BatchPhase.OVER)


class BlackjackVectorEnv(VectorEnv):
    """``num_envs`` blackjack seats (one learner per table, or ``seats_per_table``) stepped
    together with numpy arrays.

    ## Description

    The batched form of :class:`~blackjack_env.envs.blackjack.BlackjackEnv`
    (``gymnasium.make_vec("blackjack_env/Blackjack-v0", num_envs=N)`` builds it
    through the ``vector_entry_point``). Each sub-env is one table with one
    learner seat and a dealer, with its own shoe (finite shoes reshuffled between
    rounds once the cut card is out, or an infinite deck). The game is played by
    :class:`~blackjack_env.envs.batch.TableBatch`, the engine's round as
    numpy arrays: one ``step`` advances every table with a few dozen array
    operations, not N Python objects.

    Rules, spaces, action meanings, masks, illegal-action handling, rewards and
    episode ends are those of ``BlackjackEnv`` with the same arguments (its
    docstring is the specification; the parity tests replay stacked shoes
    through both and compare every observation, mask and reward). The single
    and batched envs draw different random cards for the same seed: they are
    equal in distribution, not in stream.

    ## Spaces

    ``single_action_space`` / ``single_observation_space`` are exactly those of
    ``BlackjackEnv`` (built by the same :class:`~blackjack_env.envs.observations.Layout`);
    ``action_space`` / ``observation_space`` are their batched forms. Actions
    are an int array of shape ``(num_envs,)``.

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

    ## Bets and bankrolls

    With ``bet_sizes`` every round opens with a BET step (``phase = BET``), as in the
    single env: only the bet actions ``P + k`` the table limits and the learner's chips
    allow are legal; the observation shows no cards and the count of the cards not yet
    dealt (the last round's cards are in the discard tray, the shoe reshuffled if the
    cut card was out); an illegal bet action is mapped, raised or penalised as there.
    A round settled at the deal (a natural, a dealer blackjack found by the peek) ends
    on the bet step itself, with its reward. With a finite ``bankroll`` each sub-env's
    learner holds chips: doubles, matched splits and insurance are legal only when the
    chips off the table cover them, and the session terminates when they cannot cover
    the smallest bet. ``gymnasium.make_vec("blackjack_env/BlackjackCounting-v0", ...)``
    builds this env.

    ## Several learner seats per table

    ``seats_per_table=S`` (default 1) seats S learners at each table: ``num_envs`` must be
    a multiple of S, and sub-env ``r`` is seat ``r % S`` of table ``r // S`` (layout: one
    batch row per seat, the seats of a table adjacent; ``info["table"]`` and
    ``info["seat"]`` say so). Each sub-env is the agent ``seat_s`` of the multi-agent
    table (:class:`~blackjack_env.envs.parallel.BlackjackParallelEnv`, whose docstring
    is the specification; the parity tests deal stacked shoes to both and compare every
    seat's observation, mask, reward and termination at every step): the seats share the
    table's shoe and dealer, the cards are dealt in casino order (a card to each seat, the
    upcard, a second card to each seat, the hole card), the pre-peek questions are asked
    seat by seat before the peek, seat 0 plays all its hands first, then seat 1, ..., and
    the dealer plays after the last seat. Each step, only the seat each table waits for
    acts: ``info["active"]`` marks the sub-envs whose action the *next* step plays (one
    per table while a round runs, none for a table whose episode has ended); the other
    seats' actions are ignored and their observations show phase ``SETTLED`` with an
    all-ones mask. When a round is settled every seat of the table gets its reward on that
    step (``round_over`` / ``round_net`` per seat); all other steps give 0. Episodes end
    per table, all its seats together, so ``reset(options={"reset_mask": ...})`` must
    take whole tables; ``options["cards"]`` stacks a table's shoe through its seat-0
    sub-env (the other seats' entries None). In ``"dict"`` mode ``seat_cards`` shows
    every seat's cards, in seat order, as the multi-agent table does. With one seat per
    step acting, a table of S seats takes about S times more steps per round; the
    settled seat-rounds per second are in ``scripts/bench_vector.py --seats 3 7``.

    Multi-seat tables take a fixed bet and unlimited credit (``bet_sizes``, ``bankroll``
    refused), illegal actions ``"map"`` or ``"raise"`` (as the multi-agent table), and
    no ``num_seats`` / ``others`` (every seat is a learner). After ``rounds_per_episode``
    rounds a table's episode is truncated, as the single env's (the multi-agent table's
    ``rounds`` terminate it).

    ## Info

    Batched, each key with its ``_key`` mask (all True): ``action_mask``
    ``(num_envs, n)`` int8; ``phase`` (``Decision`` codes); ``round`` (rounds
    started in the episode); ``bankroll`` (as the single env's: the learner's chips
    off the table with a finite ``bankroll``, the session's net chips with unlimited
    credit); ``shoe_remaining`` (undealt cards, -1 for an
    infinite deck); ``reshuffled``; after ``step``: ``illegal_action``,
    ``action_played``, ``round_over`` (a round was settled on this step) and
    ``round_net`` (its result in base bets; 0 elsewhere). Per-card details
    (``hands``, ``dealer``, ``settlement``) are not produced: read
    ``env.batch`` arrays (:class:`~blackjack_env.envs.batch.TableBatch`), or use the single env.

    Actions are integer arrays (any int dtype); bool, float (even whole-number) and
    object arrays are refused with the single env's message, quoting the value. The
    arrays in ``info`` and the observations are the env's copies: writing to them
    changes nothing. ``step`` before ``reset`` raises ``gymnasium.error.ResetNeeded``.

    ## Reset options

    ``cards``: text such as ``"AS KH 9D 7C"`` dealt first at every table, or a
    sequence with one entry (text or None) per sub-env. ``reset_mask``: bool
    array, reset only these sub-envs (the others keep their state; their
    returned observation is unchanged). Options are checked before anything changes:
    a refused reset (a bad card, a card named more often than the shoe holds it)
    leaves every table as it was.

    ## Arguments

    ``num_envs`` and the arguments of ``BlackjackEnv``, validated as there by
    :meth:`~blackjack_env.envs.settings.EnvSettings.batched` (``env.settings``), plus
    ``autoreset_mode`` and ``max_episode_steps`` (int or None: truncate an
    episode after this many steps, counted as Gymnasium's ``TimeLimit`` counts them:
    the step that resets a sub-env under ``"NextStep"`` is not one of the new
    episode's steps), and ``seats_per_table`` (above). Not supported (``ValueError``):
    seats played by fixed strategies (``num_seats`` / rules with ``seats > 1``; use the
    single env or the multi-agent env), ``bet_raising`` rules and ``render_mode``. All
    four observation modes are supported (``"dict"`` makes the batch keep the cards by
    rank, which costs some speed).

    ## Performance

    ``scripts/bench_vector.py`` measures hands per second against a
    ``SyncVectorEnv`` of 64 ``Blackjack-v1`` in the same run. ``"SameStep"``
    autoreset is the fastest mode (no step is spent on resets).

    ## Version History

    * v0: initial version. Later additions that leave the existing behaviour as it was:
      ``bet_sizes`` and a finite ``bankroll`` (2026-11), so every registered id with one
      seat, ``BlackjackCounting-v0`` included, has this native batched env;
      ``seats_per_table`` (2026-11): several learner seats per table.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        max_episode_steps: int | None = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or (
            num_envs < 1
        ):
            raise ValueError(f"num_envs={num_envs!r} must be an int >= 1")
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in AutoresetMode)
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r} is not allowed; choose one of {allowed}"
            ) from None
        if max_episode_steps is not None and (
            isinstance(max_episode_steps, bool)
            or not isinstance(max_episode_steps, (int, np.integer))
            or max_episode_steps < 1
        ):
            raise ValueError(f"max_episode_steps={max_episode_steps!r} must be an int >= 1 or None")
        if max_episode_steps is not None:
            max_episode_steps = int(max_episode_steps)
        settings = EnvSettings.batched(**kwargs)  # every argument checked there
        #: the validated settings (frozen), as the single env's
        self.settings = settings
        rules: Rules = settings.rules
        self.rules = rules
        self.layout = Layout(
            rules, settings.obs_mode, settings.bet, settings.bet_sizes, settings.insurance_decisions
        )
        self.obs_mode = settings.obs_mode
        self.bet = settings.bet
        self.illegal_action = settings.illegal_action
        self.illegal_penalty = settings.illegal_penalty
        self.rounds_per_episode = settings.rounds_per_episode
        self.action_names = self.layout.action_names()
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = mode
        # per instance: this env's autoreset mode (Gymnasium reads it there)
        self.metadata = {**self.metadata, "autoreset_mode": mode}  # type: ignore[misc]
        self.render_mode = None

        n = self.num_envs = int(num_envs)
        #: learner seats per table: sub-env ``r`` is seat ``r % seats`` of table ``r // seats``
        self.seats = settings.seats_per_table
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
        self._no_env = np.zeros(n, dtype=bool)  # (internal: never handed out)
        self._no_env.flags.writeable = False
        self._infinite = rules.shoe_decks is None
        decks = rules.shoe_decks
        self._full_ranks = None if decks is None else 4 * decks

        self.batch: TableBatch | None = None
        self._mask_rows: np.ndarray | None = None  # action-mask row by batch key (_mask_table)
        self._bucket_rows: np.ndarray | None = None  # count field by count (_count_buckets)
        self._bucket_width = self._bucket_top = 0
        self._mask = np.zeros((n, self._n_actions), dtype=np.int8)
        self._phase = np.full(n, Decision.SETTLED, dtype=np.int64)
        self._rounds = np.zeros(n, dtype=np.int64)
        self._steps = np.zeros(n, dtype=np.int64)
        self._session_net = np.zeros(n, dtype=np.float64)
        self._ended = np.zeros(n, dtype=bool)  # episode over, reset pending
        self._init_bets()
        # a pre-peek (insurance / early surrender) decision can occur
        self._pre_peek_decisions = rules.hole_card is HoleCard.PEEK and (
            self.layout.insurance_decisions or rules.surrender is Surrender.EARLY
        )

    # ================================================================ API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(
                f"seed={seed!r} must be an int or None (the batched env has one generator)"
            )
        n = self.num_envs
        cards: Any = None
        mask = self._all_true
        # options are read and checked before anything changes: a refused reset leaves
        # every table as it was
        if options is not None:
            check_reset_options(options, _KNOWN_OPTIONS)
            cards = options.get("cards")
            if "reset_mask" in options:
                mask = np.asarray(options["reset_mask"])
                if mask.dtype != bool or mask.shape != (n,):
                    raise ValueError(
                        f"options['reset_mask'] must be a bool array of shape ({n},), got "
                        f"dtype {mask.dtype} shape {mask.shape}"
                    )
                if self.seats > 1 and not _table_aligned(mask, self.seats):
                    raise ValueError(
                        f"options['reset_mask'] must reset whole tables: the {self.seats} "
                        f"seats of a table (sub-envs t * {self.seats} ..) together"
                    )
        stacks = self._stacks(cards)
        super().reset(seed=None if seed is None else int(seed))
        idx = mask.nonzero()[0]
        if seed is not None or self.batch is None:
            self.batch = TableBatch(
                self.rules,
                n,
                self.np_random,
                bet=self.bet,
                ask_insurance=self.layout.insurance_decisions,
                track_cards=self.obs_mode is ObsMode.DICT,
                bet_sizes=self.settings.bet_sizes,
                bankroll=self.settings.bankroll,
                seats=self.seats,
            )
            idx = self._arange
        else:
            self.batch.finish_rounds(idx)
            self.batch.clear_stacks(idx)
        if stacks:
            stacks = {t: c for t, c in stacks.items() if mask[t]}
        self._start_rounds(idx, stacks, episode=True)
        self._rounds[idx] = 1
        self._steps[idx] = 0
        self._session_net[idx] = 0.0
        self._ended[idx] = False
        self._refresh()
        obs = self._observation()
        return obs, self._info()

    def step(
        self, actions: Any
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        batch = self.batch
        if batch is None:
            raise ResetNeeded("call reset() before step()")
        n = self.num_envs
        a = self._check_actions(actions)
        resetting = self._no_env  # (a read-only array of False)
        any_reset = False
        if np.count_nonzero(self._ended):
            if self.autoreset_mode is AutoresetMode.NEXT_STEP:
                resetting = self._ended  # (replaced, never written, at the end of the step)
                any_reset = True
            else:
                bad = self._ended.nonzero()[0]
                raise ValueError(
                    f"sub-env(s) {bad[:10].tolist()} ended their episode; with "
                    f"autoreset_mode='Disabled' reset them with "
                    f"reset(options={{'reset_mask': mask}}) before stepping"
                )
        legal = self._mask.reshape(-1).view(np.bool_).take(self._row_start + a)  # (0 / 1)
        illegal = ~(legal | resetting)
        played = a
        if np.count_nonzero(illegal):
            if self.illegal_action is IllegalAction.RAISE:
                t = int(illegal.nonzero()[0][0])
                raise ValueError(illegal_message(
                    int(a[t]), self.action_names, Decision(self._phase[t]).name,
                    self._mask[t].nonzero()[0].tolist(), f"sub-env {t}: ",
                ))  # fmt: skip
            if self.illegal_action is IllegalAction.PENALIZE:
                # the round ends (played out after the step)
                played = np.where(illegal, PENALTY_ACTION, a)
            else:
                played = self._map_illegal(a, illegal)
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
        # (the batch's net is 0 where no round ended; resetting sub-envs did not step, so
        # they report nothing)
        round_net = net
        reward = round_net
        if penalize:
            reward = round_net - np.where(illegal, self.illegal_penalty, 0.0)
        self._session_net += round_net * self.bet if self.bet != 1 else round_net
        if self._exact_chips:  # the exact chips (a multiple of 1 / den), correctly rounded
            self._session_net = np.rint(self._session_net * self._chip_den) / self._chip_den
        if self.max_episode_steps is not None:  # (the step count is read only then)
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
            # (a sub-env reset on this step starts a new episode: its step count is not
            # the ended episode's, so it is never truncated again here)
            truncated |= ~terminated & ~resetting & (self._steps >= self.max_episode_steps)
        if any_reset:
            idx = resetting.nonzero()[0]
            if self.max_episode_steps is not None:  # (else every ended round is over)
                batch.finish_rounds(idx)  # an episode truncated mid-round is played out first
            batch.clear_stacks(idx)
            self._start_rounds(idx, episode=True)
            self._rounds[idx] = 1
            self._steps[idx] = 0
            self._session_net[idx] = 0.0
        done = terminated | truncated
        info_extra = {
            "illegal_action": illegal,
            "action_played": played,
            "round_over": over,
            "round_net": round_net,
        }
        if self.autoreset_mode is AutoresetMode.SAME_STEP and np.count_nonzero(done):
            # the ended sub-envs' last observation: a SETTLED phase, every action legal
            # (rows of the other sub-envs in final_obs are not meaningful)
            # (a SETTLED row shows no can-double/split/surrender: the mask is not read)
            self._phase = self._phase.copy()  # (by index: faster than np.where)
            self._phase[done.nonzero()[0]] = _SETTLED
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
            self._start_rounds(idx, episode=True)
            self._rounds[idx] = 1
            self._steps[idx] = 0
            self._session_net[idx] = 0.0
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

    @property
    def core(self) -> TableBatch | None:
        """Deprecated name of :attr:`batch` (the :class:`TableBatch` that plays the tables)."""
        warnings.warn("BlackjackVectorEnv.core is deprecated; use .batch", DeprecationWarning,
                      stacklevel=2)
        return self.batch

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n)`` bool: legal actions (sb3-contrib MaskablePPO convention)."""
        return self._mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self.batch = None

    # ============================================================ internals
    def _check_actions(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions)
        if (  # the common case, checked fast
            a.dtype == np.int64
            and a.shape == (self.num_envs,)
            # (0 <= a < n_actions in one pass: a negative int64 read as uint64 is >= 2 ** 63)
            and not np.count_nonzero(a.view(np.uint64) >= self._n_actions)
        ):
            return a
        if a.shape == () and self.num_envs == 1:
            a = a.reshape(1)
        if a.shape != (self.num_envs,):
            raise ValueError(
                f"actions must be ints of shape ({self.num_envs},), got dtype {a.dtype} "
                f"shape {a.shape}"
            )
        if a.dtype.kind not in "iu":  # bools, floats (even whole ones), objects: refused
            for t, value in enumerate(a.tolist()):
                check_action(value, self._n_actions, self.action_names, f"sub-env {t}: ")
        a = a.astype(np.int64, copy=False)
        bad = (a < 0) | (a >= self._n_actions)
        if np.count_nonzero(bad):
            t = int(bad.nonzero()[0][0])
            raise ValueError(
                f"sub-env {t}: action {a[t]} is outside the action space "
                f"Discrete({self._n_actions}); actions are "
                f"{', '.join(f'{i} {name}' for i, name in enumerate(self.action_names))}"
            )
        return a

    def _map_illegal(self, a: np.ndarray, illegal: np.ndarray) -> np.ndarray:
        """The single env's mapping (:func:`.step.array_map_illegal`; bet steps are
        mapped by :meth:`_bet_step`)."""
        return array_map_illegal(a, illegal, self._phase, self._mask[:, _HIT].astype(bool))

    def _stacks(self, cards: Any) -> dict[int, list[Card]] | None:
        """``options["cards"]`` as cards per table, read and checked (``ValueError``)."""
        if cards is None:
            return None
        n = self.num_envs
        decks = self.rules.shoe_decks
        s = self.seats
        if isinstance(cards, str):
            one = check_stack(cards, decks)
            return {t: list(one) for t in range(0, n, s)}
        if isinstance(cards, Sequence) and len(cards) == n and all(
            c is None or isinstance(c, (str, list, tuple)) for c in cards
        ):
            if s > 1 and any(c for t, c in enumerate(cards) if t % s):
                raise ValueError(
                    f"options['cards']: with seats_per_table={s} a table's cards are given "
                    f"at its seat-0 sub-env (t * {s}); the other seats' entries must be None"
                )
            return {t: check_stack(c, decks) for t, c in enumerate(cards) if c}
        raise ValueError(
            f"options['cards'] must be text like 'AS KH 9D' (for every table) or a sequence "
            f"of {n} entries (text, a list of cards, or None), got {cards!r:.80}"
        )

    def _refresh(self) -> None:
        """Recompute the observation phase and the action masks from the batch."""
        batch = self.batch
        assert batch is not None
        if self._mask_rows is None:
            self._mask_rows = self._mask_table(batch)
        self._phase = _DECISION.take(batch.phase)
        self._mask = self._mask_rows.take(batch.legal_keys(), axis=0)
        if self._bets:
            self._refresh_bets()
        if self.seats > 1:  # a seat the table does not wait for: SETTLED, every action
            self._acting = batch.acting()
            waiting = ~self._acting
            self._phase[waiting] = _SETTLED
            self._mask[waiting] = 1

    def _mask_table(self, batch: TableBatch) -> np.ndarray:
        """``(K, n)`` int8: the action-mask row of a table by its batch key
        (:meth:`TableBatch.legal_keys`), built once from the batch's ``legal_table``.

        A hand in play: its legal playing actions (never INSURE); the pre-peek question:
        STAND (decline), and INSURE / SURRENDER where the batch allows them; a settled
        round: every action (any action continues)."""
        cm = batch.legal_table
        phase = _DECISION.take(batch.legal_table_phase)
        n_play = self._n_play
        mask = np.zeros((cm.shape[0], self._n_actions), dtype=np.int8)
        mask[:, :n_play] = cm[:, :n_play]
        if n_play == 6:
            mask[:, _INSURE] = False
        ins = phase == _INSURANCE
        if n_play > _SURRENDER:  # (with fewer actions no pre-peek question is asked)
            mask[ins, _STAND] = 1
            if n_play == 6:
                mask[ins, _INSURE] = cm[ins, _INSURE]
            mask[ins, _SURRENDER] = cm[ins, _SURRENDER]
            mask[ins, _HIT] = 0
            mask[ins, _DOUBLE] = 0
            mask[ins, _SPLIT] = 0
        mask[phase == _SETTLED] = 1  # a settled round: any action continues
        mask.flags.writeable = False
        return mask

    def _focus(self) -> tuple[np.ndarray, np.ndarray]:
        batch = self.batch
        assert batch is not None
        play = self._phase == _PLAY
        if batch.max_hands == 1:
            return np.zeros(self.num_envs, dtype=np.int64), play
        # (focus_index's clamp of the last hand to the hands held is a no-op here: the
        # batch's last_hand is a hand the round holds, 0 before any decision)
        h = batch.last_hand.copy()
        p = play.nonzero()[0]  # (by index: faster than np.where on a random mask)
        h[p] = batch.cur.take(p)
        return h, play

    def _true_count(self) -> np.ndarray:
        batch = self.batch
        assert batch is not None
        if self._infinite:
            return np.zeros(self.num_envs, dtype=np.float64)
        unseen_hilo, remaining = batch.unseen_hilo()
        return _true_counts(-unseen_hilo, remaining)

    def _count_buckets(self) -> np.ndarray | None:
        """The multidiscrete count field of each table, looked up by (running count,
        unseen cards) in a table of :func:`view.count_bucket` of :func:`_true_counts`
        built once (the same values, computed once per pair); None for an infinite deck.
        """
        batch = self.batch
        assert batch is not None
        if self._infinite:
            return None
        unseen_hilo, remaining = batch.unseen_hilo()
        if self._bucket_rows is None:  # rows by running count, columns by unseen cards
            width = batch.shoe_size + 1
            # |running| is at most the cards of one tag in the shoe
            tags = np.array(play.HI_LO_TAGS)
            assert self._full_ranks is not None  # (a finite shoe: counted)
            top = self._full_ranks * max(np.count_nonzero(tags > 0), np.count_nonzero(tags < 0))
            running = np.arange(-top, top + 1)[:, None].repeat(width, axis=1)
            unseen = np.arange(width)[None, :].repeat(running.shape[0], axis=0)
            grid = view.count_bucket(_true_counts(running.reshape(-1), unseen.reshape(-1)))
            self._bucket_rows = grid.astype(np.int8)
            self._bucket_width = width
            self._bucket_top = int(top)
        # row top - unseen_hilo (the running count, minus the unseen cards' tags)
        key = unseen_hilo * -self._bucket_width
        key += remaining
        key += self._bucket_top * self._bucket_width
        return self._bucket_rows.take(key)

    def _observe(self) -> Any:
        batch = self.batch
        assert batch is not None
        mode = self.obs_mode
        if batch.max_hands > 1 or mode is not ObsMode.TUPLE:
            h, play = self._focus()
        if batch.max_hands > 1:
            fi = h * self.num_envs + self._arange
            hard = batch.hard.reshape(-1)[fi]  # (hand h of table t: flat element h * N + t)
            soft = array_soft(hard, batch.ace.reshape(-1)[fi])
        else:  # (hand 0)
            fi = self._arange
            hard = batch.hard[0]
            soft = array_soft(hard, batch.ace[0])
        total = hard + 10 * soft
        up = batch.dealer_up_value()
        if mode is ObsMode.TUPLE:
            return view.encode_tuple(total, up, soft.astype(np.int64))
        phase = self._phase
        mask = self._mask
        # (the pre-peek question, phase INSURANCE, is asked only under _pre_peek_decisions)
        ins = phase == _INSURANCE if self._pre_peek_decisions else None
        flags = mask.view(np.bool_)  # (the mask holds 0 / 1)
        can_double = play & flags[:, _DOUBLE] if self._n_play > 2 else np.zeros_like(play)
        can_split = play & flags[:, _SPLIT] if self._n_play > 2 else np.zeros_like(play)
        surr_phase = play if ins is None else play | ins
        can_surr = surr_phase & flags[:, _SURRENDER] if self._n_play > 2 else np.zeros_like(play)
        if mode is ObsMode.MULTIDISCRETE:
            bucket = self._count_buckets()
            return view.encode_multidiscrete(
                phase, total, up, soft, can_double, can_split, can_surr, h,
                self._true_count() if bucket is None else None, bucket,
            )
        tc = self._true_count()
        if mode is ObsMode.DICT:
            return self._observe_dict(h, fi, total, soft, up, tc)
        n_hands = self.rules.max_split_hands
        can_insure = ins & (mask[:, _INSURE] > 0) if self._n_play == 6 and ins is not None else 0
        ncards = batch.ncards.reshape(-1)[fi]
        pair = (ncards == 2) & (batch.r0.reshape(-1)[fi] == batch.r1.reshape(-1)[fi])
        shoe_left = 1.0 if self._infinite else batch.remaining() / batch.shoe_size
        return view.encode_vector(
            phase, total, soft, up, can_double, can_split, can_surr, can_insure, h, n_hands,
            batch.nhands, ncards, pair, tc, shoe_left,
        )

    def _observe_dict(
        self,
        h: np.ndarray,
        fi: np.ndarray,
        total: np.ndarray,
        soft: np.ndarray,
        up: np.ndarray,
        tc: np.ndarray,
    ) -> dict[str, np.ndarray]:
        """The ``"dict"`` observation (fields as ``Layout.observe``), batched."""
        batch = self.batch
        assert batch is not None
        n = self.num_envs
        hand_cards = batch.hand_ranks.reshape(-1, 13)[fi]
        up_rank = batch.rank_of_card[batch.up]
        dealer_cards = np.zeros((n, 13), dtype=np.int64)
        dealer_cards[self._arange, up_rank] = 1
        shown = batch.hole_revealed
        dealer_cards[shown] = batch.dealer_ranks[shown]
        exists = np.arange(batch.max_hands)[:, None] < batch.nhands[None, :]
        seat_cards = (batch.hand_ranks * exists[:, :, None]).sum(axis=0)  # one seat: (N, 13)
        if self.seats > 1:  # every seat of the table, in seat order, seen from each seat
            seat_cards = np.repeat(seat_cards.reshape(-1, 13 * self.seats), self.seats, axis=0)
        if self._infinite:
            unseen = np.full((n, 13), 4, dtype=np.int64)
        else:
            unseen = batch.counts.copy()
            hidden = (batch.hole >= 0) & ~batch.hole_revealed
            if np.count_nonzero(hidden):
                t = hidden.nonzero()[0]
                unseen[t, batch.rank_of_card[batch.hole[t]]] += 1
        stake = batch.stake.reshape(-1)[fi] / self.bet
        bankroll = self._bankroll_chips() / self.bet
        return view.encode_dict(
            self._phase.copy(), total, soft.astype(np.int64), up, h.astype(np.int64),
            batch.nhands.copy(), hand_cards, dealer_cards, seat_cards, unseen, tc, stake,
            bankroll, self._mask.copy(),
        )

    def _info(self, extra: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
        batch = self.batch
        assert batch is not None
        t = self._all_true
        info: dict[str, Any] = {  # (copies: writing to them changes nothing here)
            "action_mask": self._mask.copy(),
            "_action_mask": t,
            "phase": self._phase.copy(),
            "_phase": t,
            "round": self._rounds.copy(),
            "_round": t,
            "bankroll": self._bankroll_chips(),
            "_bankroll": t,
            "shoe_remaining": batch.remaining(),
            "_shoe_remaining": t,
            "reshuffled": batch.reshuffled.copy(),
            "_reshuffled": t,
        }
        if self.seats > 1:
            info["table"] = self._table
            info["_table"] = t
            info["seat"] = self._seat
            info["_seat"] = t
            info["active"] = self._acting & ~self._ended  # (an ended episode: nobody)
            info["_active"] = t
        if extra:
            for key, value in extra.items():
                info[key] = value
                info["_" + key] = t
        return info

    # ============================================== bet steps and bankrolls
    def _init_bets(self) -> None:
        """Constants of the bet step (``bet_sizes``) and of a finite ``bankroll``."""
        settings = self.settings
        view_ = self.layout.view
        #: a BET step opens every round (``bet_sizes``)
        self._bets = bool(settings.bet_sizes)
        self._bet_chips = np.array(settings.bet_sizes, dtype=np.int64) * self.bet
        # the bet sizes the table limits allow (the bankroll's cover is checked per step)
        self._bet_within = np.array(
            [view_.bet_allowed(k, None) for k in range(len(settings.bet_sizes))], dtype=bool
        )
        # with varying stakes, a payout such as 6:5 times a stake is not exact in floats:
        # rewards are then taken from the exact chips (the single env's float(Fraction))
        den = play.chip_denominator(self.rules)
        self._chip_den = den
        self._exact_chips = (self._bets or settings.bankroll is not None) and den & (den - 1) != 0

    def _exact_net(self, net: np.ndarray) -> np.ndarray:
        """Round results in base bets, from the exact chips (multiples of ``1 / den``)."""
        den = self._chip_den
        return np.rint(net * (self.bet * den)) / den / self.bet

    def _start_rounds(
        self,
        idx: np.ndarray,
        stacks: dict[int, list[Card]] | None = None,
        episode: bool = False,
    ) -> None:
        """Start the next round at tables ``idx``: dealt at once with a fixed bet, or
        opened for its BET step with ``bet_sizes`` (``stacks`` are then dealt after the
        bet). ``episode``: a new session, which starts with ``bankroll`` chips."""
        batch = self.batch
        assert batch is not None
        bankroll = self.settings.bankroll
        if episode and batch.bankroll is not None and bankroll is not None:
            batch.set_chips(idx, bankroll)
        if not self._bets:
            batch.start_rounds(idx, stacks)
            return
        batch.open_rounds(idx)
        if stacks:
            for t, cards in stacks.items():
                batch.stack(int(t), cards)

    def _active(self, resetting: np.ndarray) -> np.ndarray | None:
        """The tables that step: not reset on this step, not at a BET step."""
        skip = resetting
        if self._bets:
            assert self.batch is not None
            skip = resetting | self.batch.opened
        return ~skip if np.count_nonzero(skip) else None

    def _bet_step(
        self,
        a: np.ndarray,
        illegal: np.ndarray,
        played: np.ndarray,
        resetting: np.ndarray,
        over: np.ndarray,
        net: np.ndarray,
    ) -> np.ndarray:
        """The BET steps of this step: the tables at one place their bet (an illegal
        action bets what the single env's mapping chooses) and are dealt; a round settled
        at the deal ends on this step (``over`` and ``net`` are written). Returns
        ``played`` with the bet actions played."""
        batch = self.batch
        assert batch is not None
        rows = (batch.opened & ~resetting).nonzero()[0]
        played = played.copy()  # (it may be the caller's array)
        if not rows.size:
            return played
        n_play = self._n_play
        allowed = self._mask[rows, n_play:] > 0
        want = a[rows] - n_play
        k = want
        bad = illegal[rows]
        if np.count_nonzero(bad):
            k = np.where(bad, array_map_illegal_bet(want, allowed), want)
        played[rows] = n_play + k
        batch.start_rounds(rows, bets=self._bet_chips[k])
        settled = rows[batch.phase[rows] == _BATCH_OVER]
        if settled.size:
            over[settled] = True
            net[settled] = batch.round_net(settled)
        return played

    def _broke(self, more: np.ndarray) -> np.ndarray:
        """Tables among ``more`` whose learner cannot cover the smallest bet now."""
        batch = self.batch
        assert batch is not None and batch.bankroll is not None
        out = np.zeros(self.num_envs, dtype=bool)
        rows = more.nonzero()[0]
        if rows.size:
            out[rows] = ~play.array_can_cover(batch.chips(rows), self.settings.min_cost)
        return out

    def _bankroll_chips(self) -> np.ndarray:
        """``info["bankroll"]``: the learner's chips off the table (a finite bankroll), or
        the session's net chips (unlimited credit); a new array."""
        batch = self.batch
        assert batch is not None
        if batch.bankroll is None:
            return self._session_net.copy()
        return batch.chips(self._arange)

    def _refresh_bets(self) -> None:
        """:meth:`_refresh` for tables at a BET step: the phase, and only the bet sizes the
        table limits and the learner's chips allow."""
        batch = self.batch
        assert batch is not None
        rows = batch.opened.nonzero()[0]
        if not rows.size:
            return
        self._phase[rows] = _BET
        allowed = np.broadcast_to(self._bet_within, (rows.size, self._bet_within.size))
        if batch.bankroll is not None:
            allowed = allowed & play.array_can_cover(
                batch.chips(rows)[:, None], self._bet_chips[None, :]
            )
        mask = np.zeros((rows.size, self._n_actions), dtype=np.int8)
        mask[:, self._n_play :] = allowed
        self._mask[rows] = mask

    def _observation(self) -> Any:
        """:meth:`_observe`, with the BET step's observation at tables awaiting a bet."""
        obs = self._observe()
        if self._bets:
            assert self.batch is not None
            rows = self.batch.opened.nonzero()[0]
            if rows.size:
                self._observe_bets(obs, rows)
        return obs

    def _observe_bets(self, obs: Any, rows: np.ndarray) -> None:
        """Write the BET step's observation of tables ``rows`` into ``obs``: no cards on
        the table (totals, upcard, hands 0), the count of the cards not dealt."""
        batch = self.batch
        assert batch is not None
        m = rows.size
        zero = np.zeros(m, dtype=np.int64)
        phase = np.full(m, _BET, dtype=np.int64)
        hilo, remaining = batch.shoe_count(rows)
        tc = _true_counts(-hilo, remaining)
        mode = self.obs_mode
        if mode is ObsMode.MULTIDISCRETE:
            obs[rows] = view.encode_multidiscrete(
                phase, zero, zero, zero, zero, zero, zero, zero, tc
            )
        elif mode is ObsMode.VECTOR:
            shoe_left = 1.0 if self._infinite else remaining / batch.shoe_size
            obs[rows] = view.encode_vector(
                phase, zero, zero, zero, zero, zero, zero, zero, zero,
                self.rules.max_split_hands, zero, zero, zero, tc, shoe_left,
            )  # fmt: skip
        elif mode is ObsMode.DICT:
            none = np.zeros((m, 13), dtype=np.int64)
            unseen = np.full((m, 13), 4, dtype=np.int64) if self._infinite else batch.counts[rows]
            seats = np.zeros((m, 13 * self.rules.seats), dtype=np.int64)
            part = view.encode_dict(
                phase, zero, zero, zero, zero, zero, none, none, seats, unseen, tc,
                np.zeros(m), self._bankroll_chips()[rows] / self.bet, self._mask[rows],
            )  # fmt: skip
            for key, value in part.items():
                obs[key][rows] = value


#: Hi-Lo true counts, batched (``engine.play.array_hi_lo_true_count``; the callers pass
#: minus the Hi-Lo sum of the unseen cards: a full shoe's sum is 0)
_true_counts = array_hi_lo_true_count


def _table_aligned(mask: np.ndarray, seats: int) -> bool:
    """Whether ``mask`` (one bool per sub-env) takes the seats of each table together."""
    by_table = mask.reshape(-1, seats)
    return bool((by_table == by_table[:, :1]).all())


# The legal actions of a mask row of at most 8 actions, as the bits of one byte: the
# number of legal actions by byte, and the j-th legal action (in increasing order) at
# entry 8 * byte + j for j below that number (a stable sort puts the set bits first; for
# byte 0 entry 0 is action 0).
_BIT_OF = (np.arange(256)[:, None] >> np.arange(8)) & 1
_LEGAL_COUNT = _BIT_OF.sum(axis=1).astype(np.float64)
_NTH_LEGAL = np.argsort(1 - _BIT_OF, axis=1, kind="stable").astype(np.intp).reshape(-1)
_BYTE_WEIGHTS = (1 << np.arange(8)).astype(np.uint8)


def random_legal_actions(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of an action mask, in numpy.

    ``mask``: ``(N, A)`` 0 / 1 (``info["action_mask"]`` of the batched env, int8, or
    bool); returns ``(N,)`` int action indices. With ``u`` the row's uniform number
    (one ``rng.random(N)`` call) and ``k`` its count of legal actions, the row gets
    its ``floor(u * k)``-th legal action in increasing order (a row with none: 0).
    Masks of up to 8 actions are read as one byte per row and looked up; wider ones
    by a running count (the same actions).
    """
    mask = np.asarray(mask)
    if mask.ndim != 2:
        raise ValueError(f"mask must be 2-D (rows, actions), got shape {mask.shape}")
    u = rng.random(mask.shape[0])
    if mask.shape[1] > 8:
        counts = np.cumsum(mask != 0, axis=1, dtype=np.int64)
        pick = (u * counts[:, -1]).astype(np.int64)
        return (counts > pick[:, None]).argmax(axis=1)
    bits = mask.view(np.uint8) if mask.dtype.itemsize == 1 else (mask != 0).view(np.uint8)
    byte = (bits @ _BYTE_WEIGHTS[: mask.shape[1]]).astype(np.intp)
    pick = (u * _LEGAL_COUNT.take(byte)).astype(np.intp)
    byte <<= 3
    byte += pick
    return _NTH_LEGAL.take(byte)
