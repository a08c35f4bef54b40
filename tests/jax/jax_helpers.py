"""Shared drivers of the JAX table tests: the numpy vector env and the JAX table (the pure
object, or its Gymnasium vector adapter) fed the same stacked cards and the same actions,
compared sub-env by sub-env at every step (:func:`run_parity`); the adapter under a list
of rule sets against one numpy env per rule set (:class:`NumpyTables`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial
from typing import Any

import numpy as np

jax = __import__("pytest").importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from blackjack_env.envs import view  # noqa: E402
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


@cache
def jax_env(key: str, **kwargs: Any) -> BlackjackJax:
    """One env per configuration name (its jitted functions compile once per test run)."""
    return BlackjackJax(**kwargs)


def batched_step(env: BlackjackJax) -> Any:
    """``env.step_full`` (the rich ``info``) over a batch of tables: the env's compiled
    ``program.batch_step``, shared by every env of the same program."""
    return partial(program.batch_step, env.program, full=True)


@cache
def batched_chips(cfg: Config) -> Any:
    """The learner's chips at each table (the numpy env's ``info["bankroll"]``)."""
    return jax.jit(jax.vmap(lambda st, p: bankroll(st, p, cfg), in_axes=(0, None)))


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
    """``n`` tables of the pure JAX table (``jax.vmap`` of ``env.step``) seen as the numpy
    vector env (SameStep): flat actions in, one row per sub-env out (sub-env ``t * S + s``
    is seat ``s`` of table ``t``), the ``info`` keys :func:`run_parity` compares."""

    def __init__(self, env: BlackjackJax, n: int) -> None:
        self.env, self.n, self.s = env, n, env.seats
        self.params = env.default_params
        self._step = batched_step(env)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        info = {**info, "bankroll": batched_chips(self.env.config)(self.state, self.params)}
        return {k: flat(v, self.s) for k, v in info.items()}

    def reset(self, seed: int, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        env, p = self.env, self.params
        state = env.stack(env.new_state(self.n), options["cards"][:: self.s])
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
            jax.random.split(sub, self.n), self.state, jnp.asarray(shaped, jnp.int32), self.params
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
    their rules (the adapter then holds ``K * n`` tables built with ``rules=`` the list
    of each rule set ``n`` times: tables ``k * n .. (k + 1) * n - 1`` play
    ``kwargs[k]``'s rules, each against its own numpy env, :class:`NumpyTables`): one
    compiled program plays every rule set of a shape.

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
    else:
        assert k_sets == 1, "the pure table plays one rule set (give the adapter a list)"
        side = PureTables(jx, n)
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
    shoe's row, the round's cards exactly those behind ``pos`` since ``round_start``, the
    undealt Hi-Lo sum, each settled hand's net its stake times its outcome's payout, a
    stake of a base bet, two or a half (fixed bets), a round over has every hand settled
    and every seat over (a table awaiting its bet has no cards on it)."""
    cfg = env.config
    n = cfg.shoe_size
    live = jnp.arange(cfg.hands) < jnp.expand_dims(st.nhands, -1)
    on_table = jnp.sum(jnp.where(live, st.ncards, 0)) + st.dealer_ncards
    if cfg.bets:  # (awaiting a bet: the cards are discarded)
        on_table = jnp.where(st.opened, 0, on_table)
    out = {}
    if not cfg.infinite:
        counts = jnp.bincount(st.shoe.astype(jnp.int32), length=52)
        out["shoe_multiset"] = jnp.any(counts != n // 52)
        out["round_cards"] = (st.pos - st.round_start) % n != on_table
        out["left"] = (st.left < 0) | (st.left + on_table > n)
        idx = (st.pos + jnp.arange(n)) % n
        tags = p.hilo_of_card[st.shoe[idx].astype(jnp.int32)]
        out["undealt_hilo"] = (
            jnp.sum(jnp.where(jnp.arange(n) < st.left, tags, 0)) != st.undealt_hilo
        )
    net = st.stake.astype(jnp.float32) * p.payouts[jnp.maximum(st.outcome, 0)]
    out["net"] = jnp.any(live & st.settled & (jnp.abs(net - st.net) > 1e-5))
    if not cfg.bets:
        bet = p.bet
        odd = (st.stake != bet) & (st.stake != 2 * bet) & (st.stake != bet // 2)
        out["stake"] = jnp.any(live & odd)
    out["over_unsettled"] = jnp.any((jnp.expand_dims(st.phase, -1) == 2) & live & ~st.settled)
    out["one_phase_over"] = jnp.any(st.phase == 2) & ~jnp.all(st.phase == 2)
    return {k: v.astype(jnp.int32) for k, v in out.items()}


def scan_tables(start: Any, table_step: Any, n: int, steps: int, seed: int) -> dict[str, int]:
    """``n`` tables scanned ``steps`` steps inside one ``jit``: ``start(key) -> (state,
    mask)`` makes one table, ``table_step(key, state, mask) -> (state, mask, counts)``
    steps it (``counts``: a dict of ints, invariant violations and counters). Returns
    each count summed over the tables and the steps."""

    @jax.jit
    def run(key: Any) -> Any:
        k0, k1 = jax.random.split(key)
        st, mask = jax.vmap(start)(jax.random.split(k0, n))
        step = jax.vmap(table_step)
        shapes = jax.eval_shape(step, jax.random.split(k1, n), st, mask)[2]
        tot = {k: jnp.zeros((), jnp.int32) for k in shapes}

        def body(carry: Any, k: Any) -> Any:
            st, mask, tot = carry
            st, mask, counts = step(jax.random.split(k, n), st, mask)
            tot = {k_: tot[k_] + counts[k_].astype(jnp.int32).sum() for k_ in tot}
            return (st, mask, tot), None

        (_, _, tot), _ = jax.lax.scan(body, (st, mask, tot), jax.random.split(k1, steps))
        return tot

    return {k: int(v) for k, v in run(jax.random.PRNGKey(seed)).items()}


def violations(counts: dict[str, int]) -> dict[str, int]:
    """The invariant checks among :func:`scan_tables`' counts (counters start with ``_``)."""
    return {k: v for k, v in counts.items() if not k.startswith("_")}
