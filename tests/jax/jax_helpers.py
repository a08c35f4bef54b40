"""Shared drivers of the JAX table tests: the numpy vector env and the JAX table (the pure
object, or its Gymnasium vector adapter) fed the same stacked cards and the same actions,
compared sub-env by sub-env at every step (:func:`run_parity`); the adapter under a list
of rule sets against one numpy env per rule set (:class:`NumpyTables`).

**Shared programs.** Compiling the JAX table is most of what its tests cost, and a
compiled program is keyed by the table's shapes (:class:`~blackjack_env.jax.tables.Config`),
observation mode and illegal-action policy, never by its rules (rules are data). So the
tests build their tables with :func:`table`: a finite shoe is widened to
:data:`SHOE_DECKS` decks and a seat to :data:`HANDS` hand slots (a rule set of fewer
decks or hands plays in the first of them, as every rule set of a batch does), so that
tables that differ only in their rules, decks or split limit share one program; and the
parity runs drive :data:`PARITY_TABLES` tables with one rule set per table (stacked
params), so that every run of a program, over any list of rule sets, shares its
compilations. A test whose fact does not depend on the shapes takes the arguments of
one of the shared tables below (:data:`VECTOR`, :data:`FEATURES`, ...)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial
from typing import Any

import numpy as np

jax = __import__("pytest").importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.engine import Rules, preset  # noqa: E402
from blackjack_env.envs import view  # noqa: E402
from blackjack_env.envs.settings import KEEP_DECKS, read_rules  # noqa: E402
from blackjack_env.envs.step import Decision  # noqa: E402
from blackjack_env.envs.vector import BlackjackVectorEnv  # noqa: E402
from blackjack_env.jax import BlackjackJax, program  # noqa: E402
from blackjack_env.jax.chips import bankroll  # noqa: E402
from blackjack_env.jax.gym import BlackjackJaxVectorEnv  # noqa: E402
from blackjack_env.jax.state import State  # noqa: E402
from blackjack_env.jax.tables import Config  # noqa: E402
from tests.envs.vector_helpers import stacked_cards  # noqa: E402

#: observations agree to this (float32 fields computed in float32 by JAX and in float64
#: then rounded by numpy: the true count can differ in the last bit)
OBS_ATOL = 1e-6

#: the decks of every shared table's finite shoe (vegas-strip's: a table built by an
#: adapter for a vegas-strip-shaped rule set has the shared shape without widening; a
#: rule set of fewer decks plays the first ``52 * decks`` places: ``Params.shoe_cards``)
SHOE_DECKS = 6
#: the hand slots per seat of every shared table (the most any rule set splits to)
HANDS = 4
#: tables of every pure parity run (:func:`run_parity`), whatever its rule sets
PARITY_TABLES = 128

# The shared tables: the arguments of a test whose fact does not depend on them. Their
# rules are of the shared shape (6 decks, 4 hands); ``{**SHARED, "rules": ...}`` gives
# any other rule set of the shape, or of fewer decks or hands (:func:`table` widens it).
#: the JAX table's defaults: one seat, a finite shoe, five actions, ``"features"``, one
#: round an episode (named: the numpy envs' default mode is ``"multidiscrete"``)
FEATURES: dict[str, Any] = {"rules": "vegas-strip", "obs_mode": "features"}
#: an infinite deck, the insurance question asked, the ``"multidiscrete"`` observation
INFINITE: dict[str, Any] = {
    "rules": "vegas-strip", "decks": None, "obs_mode": "multidiscrete",
    "insurance_decisions": True,
}  # fmt: skip
#: three learner seats at a table, early surrender and the insurance question asked
#: seat by seat, ``"vector"``
SEATS: dict[str, Any] = {
    "rules": preset("vegas-strip", surrender="early", resplit_aces=True),
    "obs_mode": "vector", "insurance_decisions": True, "seats_per_table": 3,
}  # fmt: skip
#: bet steps of three sizes, three rounds an episode, ``"features"``
BETS: dict[str, Any] = {
    "rules": "vegas-strip", "obs_mode": "features", "bet_sizes": (1, 2, 4),
    "rounds_per_episode": 3, "insurance_decisions": True,
}  # fmt: skip
#: bet steps, a bankroll of 8 base bets over 5 rounds, the ``"dict"`` observation
BANKROLL: dict[str, Any] = {
    "rules": "vegas-strip", "obs_mode": "dict", "bet_sizes": (1, 2, 4),
    "rounds_per_episode": 5, "bankroll": 8, "insurance_decisions": True,
}  # fmt: skip
#: ``"penalize"`` (half a base bet) with bet steps and a bankroll, ``"vector"``
PENALIZE: dict[str, Any] = {
    "rules": preset("vegas-strip", surrender="early"), "obs_mode": "vector",
    "bet_sizes": (1, 2, 4), "rounds_per_episode": 5, "bankroll": 8,
    "insurance_decisions": True, "illegal_action": "penalize", "illegal_penalty": 0.5,
}  # fmt: skip
#: the ``"tuple"`` observation (which takes no bet steps, insurance decisions or early
#: surrender)
TUPLE: dict[str, Any] = {"rules": "vegas-strip", "obs_mode": "tuple"}


def _widened(rules: Rules) -> list[Rules]:
    """Rule sets that widen a table of ``rules`` to the shared shape (a finite shoe of
    :data:`SHOE_DECKS` decks, :data:`HANDS` hand slots), the widest first; none where
    ``rules`` has it already."""
    wide: dict[str, Any] = {}
    if rules.decks is not None and rules.shoe_decks != SHOE_DECKS:
        wide["decks"] = SHOE_DECKS
        wide["seats_per_deck"] = None
    if rules.can_split and rules.max_split_hands < HANDS:
        wide["max_split_hands"] = HANDS
    out = []
    for keys in (tuple(wide), ("decks", "seats_per_deck")):
        changes = {k: wide[k] for k in keys if k in wide}
        if changes:
            try:
                out.append(rules.replace(**changes))
            except ValueError:  # (split_bet="halve" splits to 2 hands at most)
                continue
    return out


def own_rules(kwargs: dict[str, Any]) -> Rules:
    """The rule set of the env arguments ``kwargs`` (their ``decks`` applied)."""
    rules = read_rules(kwargs.get("rules", "vegas-strip"))
    decks = kwargs.get("decks", KEEP_DECKS)
    return rules if decks == KEEP_DECKS else rules.replace(decks=decks)


def _key(kwargs: dict[str, Any]) -> str:
    return repr(sorted(kwargs.items(), key=lambda kv: kv[0]))


_TABLES: dict[str, BlackjackJax] = {}


def table(**kwargs: Any) -> BlackjackJax:
    """The pure JAX table of the numpy env's arguments ``kwargs`` (``seats_per_table``
    too), built to the shared shape (:func:`_widened`: its program is that of every table
    with the same other arguments); one per argument set in a run. Its ``rules``,
    ``default_params`` and ``settings`` are ``kwargs``' own."""
    key = _key(kwargs)
    if key not in _TABLES:
        kw = {k: v for k, v in kwargs.items() if k not in ("rules", "decks")}
        rules = own_rules(kwargs)
        env = None
        for wide in _widened(rules):
            try:
                env = BlackjackJax(rules=[rules, wide], **kw)
                break
            except ValueError:  # (another shape: a table of its own)
                continue
        _TABLES[key] = env if env is not None else BlackjackJax(rules=rules, **kw)
    return _TABLES[key]


def batched_step(env: BlackjackJax) -> Any:
    """``env.step_full`` (the rich ``info``) over a batch of tables: the env's compiled
    ``program.batch_step``, shared by every env of the same program."""
    return partial(program.batch_step, env.program, full=True)


@cache
def batched_chips(cfg: Config) -> Any:
    """The learner's chips at each table of a batch, each under its own rules (the numpy
    env's ``info["bankroll"]``)."""
    return jax.jit(jax.vmap(lambda st, p: bankroll(st, p, cfg)))


def flat(x: Any, seats: int) -> Any:
    """A JAX output of tables of ``seats`` seats (leading axes tables, seats) as the numpy
    env's sub-envs (a dict or tuple: per field)."""
    if isinstance(x, dict):
        return {k: flat(v, seats) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(flat(v, seats) for v in x)
    a = np.asarray(x)
    return a if seats == 1 else a.reshape(-1, *a.shape[2:])


def assert_obs_equal(jx: Any, ref: Any, rows: np.ndarray, what: str = "") -> None:
    """Observations agree at ``rows`` (per field of a dict or tuple observation)."""
    if isinstance(ref, dict):
        assert set(jx) == set(ref), (what, sorted(jx), sorted(ref))
        for k in ref:
            assert_obs_equal(jx[k], ref[k], rows, f"{what} {k}")
        return
    if isinstance(ref, tuple):
        for i, (a, b) in enumerate(zip(jx, ref, strict=True)):
            assert_obs_equal(a, b, rows, f"{what} [{i}]")
        return
    np.testing.assert_allclose(
        np.asarray(jx)[rows], np.asarray(ref)[rows], rtol=1e-6, atol=OBS_ATOL, err_msg=what
    )


class PureTables:
    """``n`` tables of the pure JAX table (``program.batch_step``, each table under its
    own rule set: stacked params) seen as the numpy vector env (SameStep): flat actions
    in, one row per sub-env out (sub-env ``t * S + s`` is seat ``s`` of table ``t``), the
    ``info`` keys :func:`run_parity` compares. ``rules``: one rule set per table (default:
    the env's own at every table); a batch of :data:`PARITY_TABLES` tables of a program
    compiles once, whatever the rule sets."""

    def __init__(self, env: BlackjackJax, n: int, rules: Sequence[Any] | None = None) -> None:
        self.env, self.n, self.s = env, n, env.seats
        listed = [env.rules] * n if rules is None else list(rules)
        assert len(listed) == n, (len(listed), n)
        self.params = env.stack_params(listed)
        self._step = batched_step(env)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        info = {**info, "bankroll": batched_chips(self.env.config)(self.state, self.params)}
        return {k: flat(v, self.s) for k, v in info.items()}

    def reset(self, seed: int, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        env, p = self.env, self.params
        state = env.stack(env.new_state(self.n, p), options["cards"][:: self.s], params=p)
        obs, self.state = env.start_round(jax.random.PRNGKey(seed), state, p)
        self.key = jax.random.PRNGKey(seed + 1)
        info = {"action_mask": env.action_mask(self.state, p)}
        if self.s > 1:
            info["active"] = env.active(self.state, p)
        return flat(obs, self.s), self._info(info)

    def step(self, a: np.ndarray) -> tuple[Any, ...]:
        self.key, sub = jax.random.split(self.key)
        shaped = a.reshape(self.n, self.s) if self.s > 1 else a
        obs, self.state, r, d, info = self._step(
            jax.random.split(sub, self.n), self.state, np.asarray(shaped, np.int32), self.params
        )
        info = self._info(info)
        info["final_obs"] = info.pop("final_observation")
        info["_final_obs"] = flat(d, self.s)
        return flat(obs, self.s), flat(r, self.s), info["terminated"], info["truncated"], info


def _cat(parts: Sequence[Any]) -> Any:
    """Outputs of several vector envs (arrays, dicts or tuples of them, per sub-env along
    the first axis) joined along that axis."""
    first = parts[0]
    if isinstance(first, dict):
        return {k: _cat([p[k] for p in parts]) for k in first}
    if isinstance(first, tuple):
        return tuple(_cat([p[i] for p in parts]) for i in range(len(first)))
    return np.concatenate([np.asarray(p) for p in parts])


def _blank(example: Any) -> Any:
    """Zeros shaped as ``example`` (an array, dict or tuple of them): an entry a vector env
    left out of its ``info`` (``final_obs`` where none of its sub-envs ended), masked
    False wherever it is read."""
    if isinstance(example, dict):
        return {k: _blank(v) for k, v in example.items()}
    if isinstance(example, tuple):
        return tuple(_blank(v) for v in example)
    return np.zeros_like(np.asarray(example))


def _cat_info(infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The ``info`` dicts of several vector envs as one: every key any of them gives (an
    env without it contributes zeros, its ``_key`` mask False)."""
    keys = dict.fromkeys(k for info in infos for k in info)
    out: dict[str, Any] = {}
    for k in keys:
        example = next(info[k] for info in infos if k in info)
        out[k] = _cat([info[k] if k in info else _blank(example) for info in infos])
    return out


def _hand_scale(hands: int) -> np.ndarray:
    """The divisors of the vector's hand fields at ``hands`` hand slots (``VEC_HAND_INDEX``:
    ``max(1, H - 1)``, ``VEC_NUM_HANDS``: ``H``; ``envs.view.fields``)."""
    return np.array([max(1, hands - 1), hands], dtype=np.float64)


class NumpyTables:
    """Several numpy vector envs (SameStep) side by side, seen as one: env ``k`` (the
    settings ``kwargs[k]``, ``m`` sub-envs) holds sub-envs ``k * m .. (k + 1) * m - 1``;
    observations, rewards and ``info`` joined along the sub-env axis. The reference of
    the JAX vector adapter built for a list of rule sets (``m // S`` tables each).

    ``hands``: the adapter's hand slots per seat (``Config.hands``, the largest
    ``max_split_hands`` of its list). The flat observations (``"vector"``,
    ``"features"``) scale the hand index and the number of hands by the env's hand
    slots (``VEC_HAND_INDEX``, ``VEC_NUM_HANDS``): each env's are rescaled from its own
    rule set's to ``hands`` (in float64; compared to the adapter's float32 within
    :data:`OBS_ATOL`), so that rule sets of fewer hands share the adapter's program.
    The other modes show the index and count themselves."""

    def __init__(self, kwargs: Sequence[dict[str, Any]], m: int, hands: int) -> None:
        self.envs = [BlackjackVectorEnv(m, autoreset_mode="SameStep", **kw) for kw in kwargs]
        self.m = m
        flat = self.envs[0].obs_mode.value in ("vector", "features")
        self._rescale = [
            _hand_scale(e.settings.max_hands) / _hand_scale(hands)
            if flat and e.settings.max_hands != hands else None
            for e in self.envs
        ]  # fmt: skip

    def _obs(self, parts: Sequence[Any]) -> Any:
        out = []
        for obs, scale in zip(parts, self._rescale, strict=True):
            if scale is not None:
                obs = np.array(obs, dtype=np.float64)
                obs[:, [view.VEC_HAND_INDEX, view.VEC_NUM_HANDS]] *= scale
            out.append(obs)
        return _cat(out)

    def _info(self, infos: Sequence[dict[str, Any]]) -> dict[str, Any]:
        info = _cat_info(infos)
        if "final_obs" in info:  # (each env's own, rescaled; zeros where none ended)
            example = next(i["final_obs"] for i in infos if "final_obs" in i)
            info["final_obs"] = self._obs([i.get("final_obs", _blank(example)) for i in infos])
        if "table" in info:  # (each env's tables are its own 0..; here after the others')
            tables = self.m // self.envs[0].seats
            info["table"] = info["table"] + np.repeat(np.arange(len(infos)) * tables, self.m)
        return info

    def reset(self, seed: int, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        m, cards = self.m, options["cards"]
        out = [e.reset(seed=seed + k, options={"cards": cards[k * m : (k + 1) * m]})
               for k, e in enumerate(self.envs)]  # fmt: skip
        return self._obs([o for o, _ in out]), self._info([i for _, i in out])

    def step(self, a: np.ndarray) -> tuple[Any, ...]:
        m = self.m
        out = [e.step(a[k * m : (k + 1) * m]) for k, e in enumerate(self.envs)]
        obs, r, te, tr, infos = zip(*out, strict=True)
        return self._obs(obs), _cat(r), _cat(te), _cat(tr), self._info(infos)


#: ``info`` entries compared at every step where the JAX side gives them: the step's
#: (every sub-env stepped), and the state's (those whose episode goes on: an ended one's
#: are the next episode's, dealt cards no longer stacked)
_STEP_INFO = ("action_played", "illegal_action", "round_over", "round_net", "table", "seat")
_STATE_INFO = ("phase", "round", "bankroll", "shoe_remaining", "reshuffled")
#: the adapter's ``info`` under a list of rule sets, which a numpy env of one rule set
#: does not give: each sub-env's rule set (its index in the list)
_LIST_INFO = ("rules_index", "_rules_index")


def run_parity(
    jx: BlackjackJax | BlackjackJaxVectorEnv,
    kwargs: dict[str, Any] | Sequence[dict[str, Any]],
    n: int,
    seed: int,
    length: int = 90,
    max_steps: int = 120,
    wild: float = 0.15,
) -> dict[str, int]:
    """``n`` tables (``S`` seats each) of the JAX table and ``n * S`` sub-envs of the numpy
    vector env (SameStep; sub-env ``t * S + s`` is seat ``s`` of table ``t``), reset with
    the same stacked cards and fed the same random actions (unmasked ones ``wild`` of the
    time: the mapping or penalty of illegal actions is compared). ``jx``: the pure object
    (``n`` tables under ``jax.vmap``) or the Gymnasium vector adapter (``n * S``
    sub-envs, driven through its ``reset(options={"cards": ...})`` and ``step``).

    ``kwargs``: the numpy env's settings, or a list of ``K`` settings that differ only in
    their rules (the JAX side then holds ``K * n`` tables: tables ``k * n .. (k + 1) * n
    - 1`` play ``kwargs[k]``'s rules, each against its own numpy env,
    :class:`NumpyTables`; the adapter built with ``rules=`` the list of each rule set
    ``n`` times, the pure table with stacked params): one compiled program plays every
    rule set of a shape. The pure table's runs compile once per program for
    ``K * n`` = :data:`PARITY_TABLES` tables.

    Every sub-env's observation, mask, active seat, reward, termination, truncation, played
    action, illegal flag, round over and net, chips (and the adapter's phase, round,
    shoe, reshuffle, table, seat and final info) agree until its table's first episode
    ends, and ``final_obs`` on that step. The adapter's ``info`` has the numpy env's
    keys at every step (its ``rules_index`` under a list: each table's place in the
    list), and each of them, ``_key`` masks and ``final_info``'s entries included, is
    compared exactly (values and dtypes: float64 chips, bit for bit); the pure table's
    float32 reward and chips to 1e-6. Returns counts of what was compared (steps,
    ended episodes, truncations, illegal actions, those at a BET step, splits, nonzero
    rewards)."""
    table = jx.table if isinstance(jx, BlackjackJaxVectorEnv) else jx
    exact = isinstance(jx, BlackjackJaxVectorEnv)
    s = table.seats
    settings = [kwargs] if isinstance(kwargs, dict) else list(kwargs)
    k_sets = len(settings)
    if isinstance(jx, BlackjackJaxVectorEnv):
        side: Any = jx
        assert jx.num_envs == k_sets * n * s
    else:  # (each table its rule set's params: kwargs[k]'s rules, with their decks)
        own = [own_rules(kw) for kw in settings]
        side = PureTables(jx, k_sets * n, [r for r in own for _ in range(n)])
    if table.config.infinite:  # (the stacked-card buffer's size)
        length = min(length, table.config.shoe_size)
    rng = np.random.default_rng(seed)
    total = k_sets * n * s
    cards: list[str | None] = [None] * total
    ref = NumpyTables(settings, n * s, table.config.hands)
    for t in range(k_sets * n):
        rules = ref.envs[t // n].rules
        cards[t * s] = stacked_cards(rules, rng, length, s if s > 1 else None)
    obs_np, info_np = ref.reset(seed=seed, options={"cards": cards})
    obs_jx, info_jx = side.reset(seed=seed, options={"cards": cards})
    live = np.ones(total, dtype=bool)
    seen = dict.fromkeys(
        ("steps", "ended", "illegal", "illegal_bet", "split", "nonzero", "truncated"), 0
    )
    listed = exact and k_sets > 1
    for _ in range(max_steps):
        if exact:  # the numpy env's keys, each compared below
            assert set(info_jx) - set(_LIST_INFO) == set(info_np), (
                sorted(info_jx), sorted(info_np))
            if listed:
                np.testing.assert_array_equal(
                    info_jx["rules_index"], np.repeat(np.arange(k_sets * n), s))
        m_np = info_np["action_mask"].astype(bool)
        np.testing.assert_array_equal(m_np[live], np.asarray(info_jx["action_mask"], bool)[live])
        assert_obs_equal(obs_jx, obs_np, live, "obs")
        if s > 1:
            np.testing.assert_array_equal(info_np["active"][live], info_jx["active"][live])
        if not live.any():
            break
        legal_pick = (rng.random(m_np.shape) * m_np).argmax(axis=1)
        unmasked = rng.random(total) < wild
        a = np.where(unmasked, rng.integers(0, table.num_actions, total), legal_pick)
        bet_step = info_np["phase"] == int(Decision.BET)
        obs_np, r_np, te_np, tr_np, info_np = ref.step(a)
        obs_jx, r_jx, te_jx, tr_jx, info_jx = side.step(a)
        ended = live & info_jx.get("_final_obs", np.zeros(total, bool))
        np.testing.assert_array_equal(ended, live & (te_np | tr_np))
        np.testing.assert_array_equal(te_jx[live], te_np[live])
        np.testing.assert_array_equal(tr_jx[live], tr_np[live])
        if exact:  # the adapter's float64 chips: the numpy env's, bit for bit
            assert r_jx.dtype == r_np.dtype == np.float64
            np.testing.assert_array_equal(r_jx[live], r_np[live])
        else:  # (the pure table's float32 reward)
            np.testing.assert_allclose(r_jx[live], r_np[live], rtol=1e-6, atol=1e-6)
        for keys, rows in ((_STEP_INFO, live), (_STATE_INFO, live & ~ended)):
            for k in keys:
                if k not in info_jx:
                    continue
                if exact:
                    assert info_jx[k].dtype == info_np[k].dtype, k
                    np.testing.assert_array_equal(info_jx[k][rows], info_np[k][rows], err_msg=k)
                else:
                    np.testing.assert_allclose(
                        info_jx[k][rows], info_np[k][rows], rtol=1e-6, atol=1e-6, err_msg=k
                    )
        if exact:  # every ``_key`` mask (final_obs and final_info: the ended sub-envs)
            for k in info_np:
                if k.startswith("_"):
                    np.testing.assert_array_equal(info_jx[k][live], info_np[k][live], err_msg=k)
        if ended.any():
            assert_obs_equal(info_jx["final_obs"], info_np["final_obs"], ended, "final_obs")
            if "final_info" in info_jx:  # (the adapter's: every entry and mask)
                fin_jx, fin_np = info_jx["final_info"], info_np["final_info"]
                assert set(fin_jx) == set(fin_np), (sorted(fin_jx), sorted(fin_np))
                for k in fin_np:
                    assert fin_jx[k].dtype == fin_np[k].dtype, k
                    np.testing.assert_array_equal(fin_jx[k][ended], fin_np[k][ended], err_msg=k)
        seen["steps"] += int(live.sum())
        seen["ended"] += int(ended.sum())
        seen["truncated"] += int((ended & tr_np).sum())
        seen["illegal"] += int((live & info_np["illegal_action"]).sum())
        seen["illegal_bet"] += int((live & bet_step & info_np["illegal_action"]).sum())
        seen["split"] += int((live & (a == 3) & ~info_np["illegal_action"]).sum())
        seen["nonzero"] += int((live & (r_np != 0)).sum())
        live &= ~ended
    assert not live.any(), "some episode did not end within max_steps"
    return seen


# ----------------------------------------------------------------- conservation scans
def invariants(env: BlackjackJax, st: State, p: Any) -> dict[str, Any]:
    """Violations of the card and chip invariants of one table of one or several seats
    (hand arrays ``(H,)`` or ``(S, H)``), an int32 per check: every card once in the
    shoe (the first ``p.shoe_cards`` places of the row), the round's cards exactly those
    behind ``pos`` since ``round_start``, the undealt Hi-Lo sum, each settled hand's net
    its stake times its outcome's payout, a stake of a base bet, two or a half (fixed
    bets), a round over has every hand settled and every seat over (a table awaiting its
    bet has no cards on it)."""
    cfg = env.config
    size = cfg.shoe_size
    n = p.shoe_cards  # (the shoe: the first n places of the row; the rest unused)
    live = jnp.arange(cfg.hands) < jnp.expand_dims(st.nhands, -1)
    on_table = jnp.sum(jnp.where(live, st.ncards, 0)) + st.dealer_ncards
    if cfg.bets:  # (awaiting a bet: the cards are discarded)
        on_table = jnp.where(st.opened, 0, on_table)
    out = {}
    if not cfg.infinite:
        places = jnp.arange(size)
        counts = jnp.bincount(st.shoe.astype(jnp.int32), weights=(places < n).astype(jnp.int32),
                              length=52)  # fmt: skip
        out["shoe_multiset"] = jnp.any(counts != n // 52)
        out["round_cards"] = (st.pos - st.round_start) % n != on_table
        out["left"] = (st.left < 0) | (st.left + on_table > n) | (st.pos >= n)
        idx = (st.pos + places) % n
        tags = p.hilo_of_card[st.shoe[idx].astype(jnp.int32)]
        out["undealt_hilo"] = jnp.sum(jnp.where(places < st.left, tags, 0)) != st.undealt_hilo
    net = st.stake.astype(jnp.float32) * p.payouts[jnp.maximum(st.outcome, 0)]
    out["net"] = jnp.any(live & st.settled & (jnp.abs(net - st.net) > 1e-5))
    if not cfg.bets:
        bet = p.bet
        odd = (st.stake != bet) & (st.stake != 2 * bet) & (st.stake != bet // 2)
        out["stake"] = jnp.any(live & odd)
    out["over_unsettled"] = jnp.any((jnp.expand_dims(st.phase, -1) == 2) & live & ~st.settled)
    out["one_phase_over"] = jnp.any(st.phase == 2) & ~jnp.all(st.phase == 2)
    return {k: v.astype(jnp.int32) for k, v in out.items()}


def scan_tables(start: Any, table_step: Any, params: Any, steps: int, seed: int) -> dict[str, int]:
    """Tables scanned ``steps`` steps inside one ``jit``, each under its own rules
    (``params``: stacked, one row per table): ``start(key, p) -> (state, mask)`` makes one
    table, ``table_step(key, state, mask, p) -> (state, mask, counts)`` steps it
    (``counts``: a dict of ints, invariant violations and counters). Returns each count
    summed over the tables and the steps."""
    n = int(jnp.shape(params.bet)[0])

    @jax.jit
    def run(key: Any, ps: Any) -> Any:
        k0, k1 = jax.random.split(key)
        st, mask = jax.vmap(start)(jax.random.split(k0, n), ps)
        step = jax.vmap(table_step)
        shapes = jax.eval_shape(step, jax.random.split(k1, n), st, mask, ps)[2]
        tot = {k: jnp.zeros((), jnp.int32) for k in shapes}

        def body(carry: Any, k: Any) -> Any:
            st, mask, tot = carry
            st, mask, counts = step(jax.random.split(k, n), st, mask, ps)
            tot = {k_: tot[k_] + counts[k_].astype(jnp.int32).sum() for k_ in tot}
            return (st, mask, tot), None

        (_, _, tot), _ = jax.lax.scan(body, (st, mask, tot), jax.random.split(k1, steps))
        return tot

    return {k: int(v) for k, v in run(jax.random.PRNGKey(seed), params).items()}


def violations(counts: dict[str, int]) -> dict[str, int]:
    """The invariant checks among :func:`scan_tables`' counts (counters start with ``_``)."""
    return {k: v for k, v in counts.items() if not k.startswith("_")}


# ----------------------------------------------------------------- rollouts
@cache
def rollout(env: BlackjackJax, n: int, steps: int) -> Any:
    """A jitted ``(key, basic) -> (observations, rewards, done, illegal)`` of ``n`` tables
    of ``env`` (its default rules) played ``steps`` steps from fresh shoes, per step and
    table: uniformly random legal actions, or basic strategy's chart
    (:func:`~blackjack_env.jax.chart.chart_policy`) where the traced flag ``basic`` is
    set (one compilation serves both policies, the statistics and the determinism
    tests)."""
    from blackjack_env.jax.chart import chart_policy

    params = env.default_params
    step_v = jax.vmap(env.step, in_axes=(0, 0, 0, None))
    chart = jax.vmap(chart_policy(env), in_axes=(0, None))

    def body(carry: Any, key: Any) -> Any:
        state, mask, basic = carry
        k_a, k_s = jax.random.split(key)
        u = jax.random.uniform(k_a, mask.shape)
        random = jnp.argmax(jnp.where(mask, u, -1.0), axis=1)
        action = jnp.where(basic, chart(state, params), random)
        obs, state, r, done, info = step_v(jax.random.split(k_s, n), state, action, params)
        return (state, info["action_mask"], basic), (obs, r, done, info["illegal_action"])

    @jax.jit
    def run(key: Any, basic: Any) -> Any:
        k0, k1 = jax.random.split(key)
        _, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k0, n), params)
        mask = env.action_mask(state, params)
        carry = (state, mask, jnp.asarray(basic, bool))
        _, out = jax.lax.scan(body, carry, jax.random.split(k1, steps))
        return out

    return run
