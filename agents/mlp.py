"""A trained multilayer-perceptron policy that plays with numpy alone (no JAX at play time).

:class:`MLPAgent` holds the actor network of a policy trained elsewhere (the JAX PPO of
:mod:`blackjack_env.agents.jax_ppo`) as plain arrays and answers ``act(obs, mask)`` with
the most probable *legal* action: the logits of illegal actions are set to a large
negative number, exactly as the training policy masks them, and the argmax is taken
(ties: the lowest action index). So a model trained inside ``jax.jit`` plays in the numpy
env, ``blackjack-evaluate``, the engine's seats (:class:`~blackjack_env.agents.seats.AgentStrategy`)
and the web table's watch mode with the core install only.

The network: ``x`` is the observation with the fields ``ignored`` set to 0 and the one-hot
columns of ``features`` appended (:func:`expand_features`, :data:`VECTOR_FEATURES`,
:data:`VECTOR_IGNORED`), ``h = tanh(x @ W_i + b_i)`` for each
hidden layer ``i``, then
``logits = h @ W_out + b_out`` (the layout of ``flax.linen.Dense``: ``W`` is
``[inputs, outputs]``). :meth:`MLPAgent.logits_batch` runs it on a batch, which is how
the exact grading asks every decision state of the analysis at once.

File format (:meth:`MLPAgent.save`): one NumPy ``.npz`` archive, no pickling, with the
arrays ``w0, b0, w1, b1, ...`` (the last pair is the output layer) and ``meta`` (a string
holding JSON: ``format`` ``"blackjack_env.agents.mlp/1"``, ``algo``, ``obs_mode``,
``n_actions``, ``obs_size``, ``activation``, ``features``, ``ignored``, ``observe_rules``
and free-form ``info`` about the training). ``observe_rules`` (absent in older files: False)
says the observation ends with the rule features of the table's rules
(:func:`blackjack_env.envs.view.rule_features`, appended by an env made with
``observe_rules=True``): such a policy reads the rules of the table it plays, and the exact
grading encodes the analysis's states with them
(:func:`blackjack_env.agents.obs.encode_states`), so it is graded on any rule set
(:func:`~blackjack_env.agents.grading.exact_grade`,
:func:`~blackjack_env.agents.rule_sets.grade_rule_sets`).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blackjack_env.agents.base import Agent, legal_actions
from blackjack_env.agents.grading import analysis_reason, optimal_return
from blackjack_env.agents.obs import encode_state, state_mask
from blackjack_env.analysis import evaluate_policy
from blackjack_env.cli import atomic_path
from blackjack_env.engine import Action
from blackjack_env.envs import view as V

__all__ = ["FORMAT", "MASKED_LOGIT", "RULE_MODES", "VECTOR_FEATURES", "VECTOR_IGNORED", "MLPAgent",
           "bet_observations", "exact_grades", "expand_features", "greedy_bets",
           "is_mlp_model"]

#: The observation modes that can carry the rule features, with their sizes without them.
RULE_MODES: dict[str, int] = {"vector": V.VECTOR_SIZE, "features": V.FEATURES_SIZE}

#: The ``format`` entry of a saved model's meta.
FORMAT = "blackjack_env.agents.mlp/1"
#: The logit given to an illegal action (training and play alike).
MASKED_LOGIT = -1e9

#: One-hot features added to the ``"vector"`` observation before the first layer:
#: ``(field, scale, size)`` = the field times ``scale``, rounded, one-hot over ``size``
#: values (clipped). The vector shows the hand total, the upcard and the number of cards as
#: single scaled numbers; a tanh MLP has to carve every threshold of the chart out of
#: such a number, and learns the chart much sooner from the one-hot columns (measured on
#: vegas-strip: see agents/jax_ppo.py).
VECTOR_FEATURES: tuple[tuple[int, float, int], ...] = (
    (V.VEC_TOTAL, float(V.MAX_TOTAL), V.MAX_TOTAL + 1),
    (V.VEC_UPCARD, float(V.UPCARD_HIGH), V.UPCARD_HIGH + 1),
    (V.VEC_CARDS, V.VEC_CARDS_SCALE, int(V.VEC_CARDS_SCALE) + 1),
)


#: Fields of the ``"vector"`` observation the network does not read (set to 0): the split
#: hand's index, which the exact analysis's states do not carry (it treats the hands of a
#: split alike), so a policy blind to it is graded exactly (see
#: :func:`blackjack_env.agents.obs.encode_state`).
VECTOR_IGNORED: tuple[int, ...] = (V.VEC_HAND_INDEX,)


def expand_features(obs: Any, features: Sequence[Sequence[float]], xp: Any = np,
                    ignored: Sequence[int] = ()) -> Any:
    """``obs`` (``[..., n]``) with the fields ``ignored`` set to 0 and the one-hot columns
    of ``features`` appended (see :data:`VECTOR_FEATURES`); ``xp``: the array namespace
    (``numpy`` or ``jax.numpy``), so training and play compute the same input."""
    if ignored:
        keep = np.ones(obs.shape[-1], dtype=np.float32)
        keep[list(ignored)] = 0.0
        obs = obs * xp.asarray(keep)
    parts = [obs]
    for field, scale, size in features:
        value = xp.clip(xp.round(obs[..., int(field)] * scale), 0, int(size) - 1)
        parts.append((value[..., None] == xp.arange(int(size))).astype(obs.dtype))
    return xp.concatenate(parts, axis=-1)


class MLPAgent(Agent):
    """A greedy policy from an MLP's logits, masked to the legal actions.

    Args:
        layers: ``[(W, b), ...]``: the hidden layers then the output layer.
        obs_mode: the observation mode it reads (``"vector"``).
        algo: the learner that trained it (its ``name``).
        info: free-form facts about the training, saved with the model.
        observe_rules: its observation ends with the rule features (``"vector"`` or
            ``"features"`` followed by ``RULES_SIZE`` entries; see the module doc).
    """

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]], *,
                 obs_mode: str = "vector", algo: str = "jax-ppo",
                 features: Sequence[Sequence[float]] = (), ignored: Sequence[int] = (),
                 info: dict[str, Any] | None = None, observe_rules: bool = False) -> None:
        if not isinstance(observe_rules, bool):
            raise ValueError(f"observe_rules={observe_rules!r} must be True or False")
        if observe_rules and obs_mode not in RULE_MODES:
            raise ValueError(f"observe_rules=True with obs_mode={obs_mode!r}: the rule features "
                             f"follow the {' and '.join(map(repr, RULE_MODES))} observations")
        if not layers:
            raise ValueError("layers is empty: an MLP needs at least its output layer")
        arrays = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32))
                  for w, b in layers]
        for i, (w, b) in enumerate(arrays):
            if w.ndim != 2 or b.shape != (w.shape[1],):
                raise ValueError(f"layer {i}: W of shape {w.shape} and b of shape {b.shape} "
                                 f"do not fit (W is [inputs, outputs], b is [outputs])")
            if i and w.shape[0] != arrays[i - 1][0].shape[1]:
                raise ValueError(f"layer {i} takes {w.shape[0]} inputs; layer {i - 1} gives "
                                 f"{arrays[i - 1][0].shape[1]}")
        self.layers = arrays
        self.features = tuple((int(f), float(c), int(n)) for f, c, n in features)
        self.ignored = tuple(int(f) for f in ignored)
        self.obs_mode = obs_mode
        self.algo = algo
        self.name = algo
        self.info = dict(info or {})
        self.obs_size = int(arrays[0][0].shape[0]) - sum(n for _, _, n in self.features)
        if self.obs_size < 1 or any(not 0 <= f < self.obs_size for f, _, _ in self.features) \
                or any(not 0 <= f < self.obs_size for f in self.ignored):
            raise ValueError(f"features {self.features} and ignored fields {self.ignored} do "
                             f"not fit a first layer of {arrays[0][0].shape[0]} inputs")
        self.n_actions = int(arrays[-1][0].shape[1])
        #: the observation ends with the rule features (see the module doc)
        self.observe_rules = observe_rules
        if observe_rules:
            want = RULE_MODES[obs_mode] + V.RULES_SIZE
            if self.obs_size != want:
                raise ValueError(f"observe_rules=True: the {obs_mode} observation with the rule "
                                 f"features has {want} entries; this network reads "
                                 f"{self.obs_size}")

    def logits_batch(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits, ``[N, n_actions]``, of observations ``[N, obs_size]``."""
        h = expand_features(np.asarray(obs, dtype=np.float32).reshape(-1, self.obs_size),
                            self.features, np, self.ignored)
        for w, b in self.layers[:-1]:
            h = np.tanh(h @ w + b)
        w, b = self.layers[-1]
        return h @ w + b

    def greedy_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The greedy legal action of each row (``mask``: ``[N, n_actions]``, nonzero = legal)."""
        logits = self.logits_batch(obs)
        legal = np.asarray(mask).reshape(logits.shape) != 0
        if not legal.any(axis=1).all():
            raise ValueError("an action mask allows no action: at least one entry must be 1")
        return np.argmax(np.where(legal, logits, MASKED_LOGIT), axis=1)

    def act(self, obs: Any, mask: np.ndarray | None = None) -> int:
        logits = self.logits_batch(np.asarray(obs))[0]
        legal = legal_actions(mask, self.n_actions)
        return int(legal[int(np.argmax(logits[legal]))])

    # ------------------------------------------------------------ persistence
    def save(self, path: str | Path) -> Path:
        """Write the model to ``path`` (``.npz`` added if missing); see the module doc."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"], arrays[f"b{i}"] = w, b
        meta = {"format": FORMAT, "algo": self.algo, "obs_mode": self.obs_mode,
                "n_actions": self.n_actions, "obs_size": self.obs_size,
                "activation": "tanh", "layers": len(self.layers),
                "features": [list(f) for f in self.features], "ignored": list(self.ignored),
                "observe_rules": self.observe_rules, "info": self.info}
        with atomic_path(path) as tmp, open(tmp, "wb") as f:
            payload: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **arrays}
            np.savez(f, **payload)
        return path

    @classmethod
    def load(cls, path: str | Path) -> MLPAgent:
        """Read a model written by :meth:`save`; anything else raises ``ValueError`` naming
        the file and what is wrong."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                if "meta" not in data.files:
                    raise ValueError("it has no meta array")
                meta = json.loads(str(data["meta"]))
                if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                    raise ValueError(f"its meta lacks the format {FORMAT!r}")
                n = int(meta["layers"])
                layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
        except (EOFError, zipfile.BadZipFile, json.JSONDecodeError, KeyError, TypeError,
                ValueError) as err:
            raise ValueError(f"{path}: not an MLP policy saved by this project ({err})") from None
        if meta.get("activation") != "tanh":
            raise ValueError(f"{path}: activation {meta.get('activation')!r}; this reader "
                             f"knows 'tanh'")
        try:
            agent = cls(layers, obs_mode=str(meta.get("obs_mode", "vector")),
                        algo=str(meta.get("algo", "jax-ppo")),
                        features=meta.get("features", ()), ignored=meta.get("ignored", ()),
                        info=meta.get("info") or {},
                        observe_rules=meta.get("observe_rules", False))
        except ValueError as err:
            raise ValueError(f"{path}: a damaged MLP policy ({err})") from None
        if agent.n_actions != meta.get("n_actions") or agent.obs_size != meta.get("obs_size"):
            raise ValueError(f"{path}: a damaged MLP policy (its arrays give {agent.obs_size} "
                             f"inputs and {agent.n_actions} actions, its meta says "
                             f"{meta.get('obs_size')} and {meta.get('n_actions')})")
        return agent


def is_mlp_model(path: str | Path) -> bool:
    """Whether ``path`` is an ``.npz`` written by :meth:`MLPAgent.save` (by its meta)."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            if "meta" not in data.files:
                return False
            meta = json.loads(str(data["meta"]))
    except (OSError, EOFError, ValueError, zipfile.BadZipFile):
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def exact_grades(agents: Sequence[MLPAgent], rules: Any, obs_mode: str = "vector"
                 ) -> list[dict[str, Any]]:
    """The exact grade (:func:`blackjack_env.agents.grading.exact_grade`'s figures) of the
    greedy policy of each agent, for infinite-deck ``rules``, asking the networks in batches.

    Every decision state the analysis asks about is encoded as the env shows it
    (:func:`~blackjack_env.agents.obs.encode_state`, :func:`~blackjack_env.agents.obs.state_mask`)
    and kept in one table shared by all agents; each agent's greedy actions on the table
    are computed in one batch. :func:`~blackjack_env.analysis.evaluate_policy` is then run
    with a policy that reads those actions; the states it reaches depend on the policy, so
    a pass that meets a state not yet in the table answers it provisionally, the table
    grows, the new rows are computed for every agent, and the pass is repeated. A grade is
    kept only from a pass that met no new state, so it is the exact return of the agent's
    own greedy policy. Split hands are encoded with hand index 1, as ``exact_grade``
    does; ``split_states_depending_on_hand_index`` counts, as ``exact_grade`` does (once
    per question of the analysis), the split states where the agent's choice would differ
    for another hand index (0: the grade is exact).
    """
    why = analysis_reason(rules)
    if why is not None:
        raise ValueError(f"exact_grades: {why}")
    carry = {bool(getattr(a, "observe_rules", False)) for a in agents}
    if len(carry) > 1:
        raise ValueError("exact_grades: the agents share one table of observations, so they "
                         "must all observe the rules or none")
    observe_rules = carry.pop() if carry else False
    hands_max = rules.max_split_hands
    index: dict[bytes, int] = {}
    obs_rows: list[np.ndarray] = []
    mask_rows: list[np.ndarray] = []

    def row(state: Any, hand_index: int) -> int:
        obs = np.asarray(encode_state(state, rules, obs_mode, hand_index, observe_rules),
                         dtype=np.float32)
        mask = state_mask(state, rules)
        key = obs.tobytes() + mask.tobytes()
        i = index.get(key)
        if i is None:
            i = index[key] = len(obs_rows)
            obs_rows.append(obs)
            mask_rows.append(mask)
        return i

    actions = [np.zeros(0, dtype=np.int64) for _ in agents]
    grades: list[dict[str, Any] | None] = [None] * len(agents)
    best = optimal_return(rules)
    pending = list(range(len(agents)))
    while pending:
        if obs_rows:  # bring every pending agent's actions up to the table
            obs = np.stack(obs_rows)
            masks = np.stack(mask_rows)
            for k in pending:
                done = actions[k].size
                if done < len(obs_rows):
                    actions[k] = np.concatenate(
                        [actions[k], agents[k].greedy_batch(obs[done:], masks[done:])])
        for k in list(pending):
            acts = actions[k]
            missed = False
            split_rows: dict[int, list[int]] = {}
            split_calls: list[int] = []

            def policy(state: Any, acts: np.ndarray = acts,
                       split_rows: dict[int, list[int]] = split_rows,
                       split_calls: list[int] = split_calls) -> Action:
                nonlocal missed
                i = row(state, 1)
                if state.split and hands_max > 1:
                    split_calls.append(i)
                    if i not in split_rows:
                        split_rows[i] = [row(state, h) for h in range(hands_max)]
                        if max(split_rows[i]) >= acts.size:
                            missed = True
                if i < acts.size:
                    action = Action(int(acts[i]))
                else:
                    missed = True
                    action = Action(int(np.flatnonzero(mask_rows[i])[0]))
                if state.pre_peek:
                    return Action.SURRENDER if action is Action.SURRENDER else Action.DECLINE
                return action

            value = float(evaluate_policy(rules, policy))
            if missed:
                break  # the table grew: compute the new rows for every agent, then go on
            ambiguous = sum(len({int(acts[j]) for j in split_rows[i]}) > 1
                            for i in split_calls)
            grades[k] = {"exact_return": value, "optimal_return": best, "regret": best - value,
                         "split_states_depending_on_hand_index": ambiguous}
            pending.remove(k)
    return [g for g in grades if g is not None]


def bet_observations(true_counts: Any, shoe_left: Any = 0.5) -> np.ndarray:
    """``[len(true_counts), VECTOR_SIZE]``: the ``"vector"`` observation of a BET step at
    each true count with ``shoe_left`` of the shoe undealt (what the table shows there:
    phase BET, no cards, the true count and the shoe fraction; ``envs.view``'s fields).
    ``shoe_left``: one fraction for every row, or one per row."""
    tc = np.asarray(true_counts, dtype=np.float64).reshape(-1)  # float64, as the env's
    zero = np.zeros(tc.size, dtype=np.int64)
    facts: dict[str, Any] = {name: zero for name in V.reads(V.VECTOR_FIELDS)}
    facts.update(phase=np.full(tc.size, 2, dtype=np.int64),  # Decision.BET
                 true_count=tc, shoe_left=np.broadcast_to(np.asarray(shoe_left, np.float64),
                                                          tc.shape))
    return np.asarray(V.encode("vector", facts, 1))


def greedy_bets(agent: MLPAgent, bet_sizes: Any, obs: np.ndarray) -> np.ndarray:
    """The bet (base bets) the greedy policy of a bet-deciding ``agent`` places at each BET
    observation ``obs`` (every size allowed, as with unlimited credit)."""
    sizes = np.asarray(bet_sizes)
    n_play = agent.n_actions - sizes.size
    mask = np.zeros((len(obs), agent.n_actions), np.int8)
    mask[:, n_play:] = 1
    return sizes[agent.greedy_batch(obs, mask) - n_play]
