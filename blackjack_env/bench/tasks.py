"""The benchmark's tasks: each a record, defined once here, from which its runner, its
grader and its page are derived.

A task has a name and a version (its id is ``NAME-vVERSION``: ``vegas-play-v1``). The
version changes whenever anything that decides a grade changes: the rules, the
observation, the actions, the budgets, the metric, the grading method or the shipped
rounds. :meth:`Task.fingerprint` is a hash of all of them, recorded in every results
file; a test pins each version's fingerprint, so a task cannot change under its old
version, and a results file of another version is refused (:mod:`.results`).

Three grades, all exact where the analysis allows (:mod:`.grading`):

* ``regret`` (infinite deck): the optimal expected return per unit bet minus the exact
  expected return of the policy's greedy play
  (:func:`blackjack_env.agents.grading.exact_grade`);
* ``shoe-regret`` (a finite shoe shuffled before every round): the
  composition-dependent optimum of a round off a full shoe
  (:func:`blackjack_env.analysis.composition.composition_return`) minus the exact return of the
  policy's play off that shoe, which the analysis computes for a policy of the totals
  (:func:`blackjack_env.analysis.finite_shoe_return`). The observation hides the
  shoe (the true count and the fraction of the shoe left are shown as those of a full
  shoe, :mod:`.observe`), so every policy of the task is such a policy and its grade is
  its exact return in the env it trains in;
* ``ceiling-fraction`` (bets): the expected net per round of the policy's bets on a
  fixed set of priced rounds (:mod:`.rounds`), each valued by its exact edge, as a
  fraction of the perfect counter's ceiling on the same rounds
  (:func:`blackjack_env.analysis.counter.ceiling_fraction`);
* ``held-out-regret`` (a rule space): one policy, which reads the rules in its
  observation, graded exactly on every rule set of the space's fixed held-out set
  (:func:`blackjack_env.agents.rule_sets.grade_rule_sets`, infinite deck); the score is
  the mean regret over those rule sets, with its median, worst and interval beside it.
  The task trains on the space's other rule sets: its env draws one at each reset
  (``rules=<the space>``, the task's ``rule_space``).

Each task also registers a Gymnasium id (:attr:`Task.env_id`, e.g.
``blackjack_env/bench-vegas-play-v1``) that builds its env, with the observation the task
shows, so a user trains on exactly what is graded: ``gym.make(task("vegas-play").env_id,
obs_mode="vector")``.

Tasks not yet defined would be listed in :data:`PLANNED` with the reason (none today).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from blackjack_env.analysis.composition import METHOD
from blackjack_env.bench.observe import HideShoe
from blackjack_env.bench.rounds import round_set_digest
from blackjack_env.engine.rules import Rules, preset
from blackjack_env.engine.rulespace import RuleSpace, default_space, held_out, held_out_file
from blackjack_env.envs.view.layout import Layout, ObsMode

__all__ = [
    "BUDGETS",
    "PLANNED",
    "TASKS",
    "Task",
    "format_budget",
    "parse_budget",
    "task",
]

#: The sample budgets of the tasks in env steps. As in Atari-100k, the policy graded at a
#: budget has been trained on at most that many steps of its env.
BUDGETS: tuple[int, ...] = (100_000, 1_000_000, 10_000_000)

#: The observation modes the analysis can encode (the dict mode shows the cards of every
#: hand and the shoe, which the exact grade does not track).
GRADED_MODES = ("tuple", "multidiscrete", "vector")


@dataclass(frozen=True)
class Task:
    """One task of the benchmark (see the module docstring).

    ``obs_modes``: the observations a policy may read, the first the default one (of a
    user's callable; each learner reads its own, see :mod:`.algos`). ``bet_sizes``: the
    bets offered before each round (a bets task), in base bets. ``rounds``: the file of
    priced rounds a bets task is graded on (:mod:`.rounds`). ``baselines``: the
    algorithms of the shipped table (:data:`blackjack_env.bench.algos.ALGOS`).
    """

    name: str
    version: int
    title: str
    description: str
    rules_name: str
    rules: Rules
    grade: str
    obs_modes: tuple[str, ...]
    metric: str
    better: str
    reference: str
    grading: str
    limits: str
    budgets: tuple[int, ...] = BUDGETS
    hide_shoe: bool = False
    bet_sizes: tuple[int, ...] = ()
    rounds: str = ""
    baselines: tuple[str, ...] = field(default=())
    rule_space: str = ""
    about_baselines: str = ""

    @property
    def id(self) -> str:
        """``NAME-vVERSION``, the task's versioned id."""
        return f"{self.name}-v{self.version}"

    @property
    def env_id(self) -> str:
        """The Gymnasium id of the task's env (registered when this module loads)."""
        return f"blackjack_env/bench-{self.name}-v{self.version}"

    @property
    def higher_is_better(self) -> bool:
        return self.better == "higher"

    @property
    def space(self) -> RuleSpace | None:
        """The rule space the task's env draws from, or None for a task of one rule set
        (its ``rules``)."""
        return default_space(self.rule_space) if self.rule_space else None

    @property
    def observe_rules(self) -> bool:
        """Whether the observation ends with the rule features (a rule-space task)."""
        return bool(self.rule_space)

    def held_out(self) -> tuple[Rules, ...]:
        """The rule sets a rule-space task is graded on: the space's fixed held-out set
        (:func:`~blackjack_env.engine.rulespace.held_out`, 256 rule sets the env never
        draws); ValueError for a task of one rule set."""
        if not self.rule_space:
            raise ValueError(f"{self.name} plays one rule set; it has no held-out rule sets")
        return held_out(self.rule_space)

    def layout(self, obs_mode: str | None = None) -> Layout:
        """The env's spaces in ``obs_mode`` (default: the task's first)."""
        mode = ObsMode(self.check_obs_mode(obs_mode))
        space = self.space
        if space is None:
            return Layout(self.rules, mode, bet_sizes=self.bet_sizes)
        return Layout(self.rules, mode, bet_sizes=self.bet_sizes, max_hands=space.max_hands,
                      observe_rules=True)

    @property
    def n_actions(self) -> int:
        return self.layout().n_actions

    @property
    def action_names(self) -> list[str]:
        return self.layout().action_names()

    def env_kwargs(self, obs_mode: str | None = None) -> dict[str, Any]:
        """The keyword arguments of ``blackjack_env/Blackjack-v0`` for the task's table."""
        kwargs: dict[str, Any] = {"rules": self.space or self.rules,
                                  "obs_mode": self.check_obs_mode(obs_mode)}
        if self.rule_space:
            kwargs["observe_rules"] = True
        if self.bet_sizes:
            kwargs["bet_sizes"] = self.bet_sizes
        return kwargs

    def make_env(self, obs_mode: str | None = None, **kwargs: Any) -> gym.Env:
        """The task's env (``gym.make(self.env_id, ...)``)."""
        return gym.make(self.env_id, obs_mode=self.check_obs_mode(obs_mode), **kwargs)

    def check_obs_mode(self, obs_mode: str | None) -> str:
        """``obs_mode`` (default: the task's first) if the task allows it, else ValueError."""
        if obs_mode is None:
            return self.obs_modes[0]
        if obs_mode not in self.obs_modes:
            raise ValueError(f"{self.name} is graded on the observation modes "
                             f"{', '.join(self.obs_modes)}, not {obs_mode!r}")
        return obs_mode

    def check_budget(self, budget: int) -> int:
        if budget not in self.budgets:
            raise ValueError(f"{self.name} defines the budgets "
                             f"{', '.join(format_budget(b) for b in self.budgets)} env steps, "
                             f"not {format_budget(budget)}")
        return budget

    def definition(self) -> dict[str, Any]:
        """Everything that decides a grade, as JSON (what :meth:`fingerprint` hashes): the
        words that describe it are left out, so they can be improved under one version."""
        out: dict[str, Any] = {
            "name": self.name, "version": self.version, "rules": self.rules.to_dict(),
            "grade": self.grade, "obs_modes": list(self.obs_modes), "better": self.better,
            "budgets": list(self.budgets), "hide_shoe": self.hide_shoe,
            "bet_sizes": list(self.bet_sizes),
        }
        if self.grade in ("shoe-regret", "ceiling-fraction"):
            out["composition_method"] = METHOD  # the CD analysis that prices the reference
        if self.rounds:
            out["rounds"] = {"file": self.rounds, "sha256": round_set_digest(self.rounds)}
        space = self.space
        if space is not None:  # the space trained on and the rule sets graded on
            graded = json.dumps([r.to_dict() for r in self.held_out()], sort_keys=True)
            out["rule_space"] = {"version": self.rule_space, "space": space.to_dict(),
                                 "observe_rules": True,
                                 "held_out": {"file": held_out_file(self.rule_space),
                                              "rule_sets": len(self.held_out()),
                                              "sha256": hashlib.sha256(
                                                  graded.encode()).hexdigest()}}
        return out

    def fingerprint(self) -> str:
        """A short hash of :meth:`definition`."""
        text = json.dumps(self.definition(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _vegas(decks: int | None, penetration: float | None) -> Rules:
    return preset("vegas-strip").replace(decks=decks, penetration=penetration)


_PLAY_BASELINES = ("optimum", "stand", "random", "q-learning", "ppo", "a2c", "maskable-ppo",
                   "dqn", "jax-ppo")

_REGRET_GRADING = (
    "The exact expected return per unit bet of the policy's greedy play, computed by the "
    "analysis over every decision state (blackjack_env.agents.grading.exact_grade): the "
    "policy is asked once at each state, as the env would show it, and the returns of "
    "every deal are summed with their exact probabilities. The score is the regret: the "
    "optimal return minus the policy's. No sampling: two policies that differ by 1e-6 are "
    "told apart.")

#: The tasks, by name.
TASKS: dict[str, Task] = {t.name: t for t in (
    Task(
        name="v1-play",
        version=1,
        title="Gymnasium's Blackjack-v1, graded exactly",
        description=(
            "The game of Gymnasium's Blackjack-v1 (Sutton and Barto's example 5.1, "
            "sab=True): an infinite deck, stand or hit, naturals paid 1:1, no double, split "
            "or surrender. The bridge to every paper that reports on Blackjack-v1: a policy "
            "of this task plays that env one to one."),
        rules_name="sutton-barto",
        rules=preset("sutton-barto"),
        grade="regret",
        obs_modes=("tuple", "multidiscrete", "vector"),
        metric="exact regret per unit bet",
        better="lower",
        reference="the optimal return of the rules (blackjack_env.analysis.solve)",
        grading=_REGRET_GRADING,
        limits=(
            "None for the observation modes allowed: the analysis's states are exactly "
            "what they show."),
        baselines=_PLAY_BASELINES,
    ),
    Task(
        name="vegas-play",
        version=1,
        title="Vegas Strip play on an infinite deck, five actions",
        description=(
            "Las Vegas Strip rules (dealer stands on soft 17, peeks, blackjack pays 3:2, "
            "double any two cards and after splits, split to four hands, late surrender) on "
            "an infinite deck: stand, hit, double, split, surrender, masked to the legal "
            "ones."),
        rules_name="vegas-strip",
        rules=_vegas(None, None),
        grade="regret",
        obs_modes=("multidiscrete", "tuple", "vector"),
        metric="exact regret per unit bet",
        better="lower",
        reference="the optimal return of the rules (blackjack_env.analysis.solve)",
        grading=_REGRET_GRADING,
        limits=(
            "A policy whose choice on a split hand depends on which split hand it plays "
            "(the hand index, which the analysis's state does not carry) is graded as if "
            "it played every split hand as the second; the grade reports how many states "
            "that concerns (split_states_depending_on_hand_index) and the regret for each "
            "other choice. The JAX PPO's network does not read the index."),
        baselines=_PLAY_BASELINES,
    ),
    Task(
        name="shoe-play",
        version=1,
        title="Vegas Strip play off a 6-deck shoe shuffled before every round",
        description=(
            "The Vegas Strip rules with a 6-deck shoe, shuffled before every round: each "
            "round is dealt off a full shoe, so the cards drawn change the odds of the "
            "next (removal effects) but no count carries over. The observation hides the "
            "shoe: its true count and the fraction left always read as a full shoe's."),
        rules_name="vegas-strip",
        rules=_vegas(6, None),
        grade="shoe-regret",
        obs_modes=("multidiscrete", "tuple", "vector"),
        metric="exact regret per unit bet against the composition-dependent optimum",
        better="lower",
        reference=(
            "the composition-dependent (CDZ-) optimum of a round off a full 6-deck shoe "
            "(blackjack_env.analysis.composition_return): the best return of a player who "
            "decides on the exact cards of the hand"),
        grading=(
            "The exact expected return of the policy's greedy play off a full 6-deck shoe, "
            "computed by the finite-shoe analysis (blackjack_env.analysis."
            "finite_shoe_return): every hand followed card by card without replacement. "
            "The policy is asked at each state as the env shows it (the shoe hidden), so "
            "this is its exact expected return per round in the task's env. The score is "
            "the composition-dependent optimum minus that return."),
        limits=(
            "The policy sees totals, not the cards of its hand, so no policy of the task "
            "reaches the reference: the best total-dependent chart the analysis derives "
            "(the optimum baseline, blackjack_env.analysis.finite_chart) has a regret of "
            "about 0.0004, the value of reading the exact cards. Split hands follow the "
            "finite analysis's approximation (each split hand is played off the shoe less "
            "the pair and the upcard, not less the other split hands' cards; "
            "blackjack_env.analysis.finite), and the hand-index limit of vegas-play "
            "applies."),
        hide_shoe=True,
        baselines=_PLAY_BASELINES,
    ),
    Task(
        name="spread-bet",
        version=1,
        title="Bet a 1-2-4-8 spread off a 6-deck shoe, graded against the perfect counter",
        description=(
            "The Vegas Strip rules with a 6-deck shoe cut at 75%: before each round the "
            "policy bets 1, 2, 4 or 8 base bets, seeing the true count and the fraction of "
            "the shoe left (the vector observation of the bet step). Only the bets are "
            "graded, on a fixed, shipped set of priced rounds."),
        rules_name="vegas-strip",
        rules=_vegas(6, 0.75),
        grade="ceiling-fraction",
        obs_modes=("vector",),
        metric="fraction of the perfect counter's ceiling (expected net per round)",
        better="higher",
        reference=(
            "the ceiling of a 1-8 spread on the same rounds: 8 where the round's exact edge "
            "is positive, 1 otherwise, which maximises the expected net of every round"),
        grading=(
            "Each round of the shipped set has its exact edge: the composition-dependent "
            "return of a round off its pool of unseen cards (blackjack_env.analysis."
            "counter.price_rounds). The policy's bet before each round, asked at the "
            "round's bet-step observation, times that edge, summed over the rounds, over "
            "the ceiling's sum on the same rounds: no outcome noise. The 95% interval "
            "treats the shoe as the unit of sampling (other shoes would give another "
            "figure)."),
        limits=(
            "The edges value composition-dependent play: the grade is of the bets alone, "
            "as if every round were played perfectly for its cards; the policy's own play "
            "is graded by the play tasks. A policy that reads more than the bet-step "
            "observation (the exact cards left) is not graded by this task."),
        budgets=BUDGETS,
        bet_sizes=(1, 2, 4, 8),
        rounds="spread-bet-rounds-v1.npz",
        baselines=("ceiling", "hi-lo", "flat", "random-bets", "jax-ppo"),
    ),
    Task(
        name="rules-generalize",
        version=1,
        title="One policy for every rule set: trained on a rule space, graded exactly on "
              "rule sets it never saw",
        description=(
            "The default rule space v1 (blackjack_env.engine.rulespace.default_space): "
            "casino rules on an infinite deck that differ in the dealer's soft 17, the "
            "blackjack payout, the hole card, the double and split rules and surrender. "
            "The task's env draws one of the space's training rule sets at every reset "
            "(its held-out rule sets never) and the observation ends with the rule "
            "features of the table's rules (observe_rules), so one policy learns to play "
            "every table by reading its rules. It is graded on the space's fixed held-out "
            "set: rule sets no training draw ever shows."),
        rules_name="default-v1",
        rules=default_space("v1").base,
        grade="held-out-regret",
        obs_modes=("vector", "features"),
        metric="mean exact regret over the held-out rule sets",
        better="lower",
        reference=(
            "each held-out rule set's own optimal return (blackjack_env.analysis.solve): "
            "the best play for the rules at the table, which the observation shows"),
        grading=(
            "The policy's greedy play is graded exactly on every rule set of the held-out "
            "set (blackjack_env.agents.rule_sets.grade_rule_sets, as blackjack-evaluate "
            "--rule-sets held-out:v1 grades): for each rule set, the policy is asked at "
            "every state the analysis may reach, as the env shows it (the rule features "
            "of that rule set appended), and its exact return is subtracted from the rule "
            "set's optimal return. The score is the mean of those regrets over the rule "
            "sets; beside it the results file keeps the median, the worst rule set, the "
            "95% interval of the mean over rule sets (a bootstrap with a fixed seed: "
            "which rule sets were held out, not outcome noise), which rule axes cost most, "
            "and every rule set's regret."),
        limits=(
            "The held-out rule sets are drawn from the same axes as the training ones (one "
            "rule set in eight of the space, chosen by a hash of its values): the task "
            "measures play on unseen combinations of rule values, not on values no "
            "training table had. The grade is on an infinite deck. Split hands are shown "
            "with hand index 1, as in vegas-play: a policy whose choice depends on the "
            "index is counted (split_states_depending_on_hand_index); the JAX PPO's "
            "network does not read it."),
        baselines=("optimum", "vegas-chart", "stand", "random", "jax-ppo", "ppo"),
        about_baselines=(
            "The exact optimum of each rule set (regret 0: a check of the whole pipeline, "
            "from the held-out list to the grade); a fixed chart, the basic strategy of "
            "vegas-strip played whatever the rules: one chart for every table, as a "
            "policy blind to the rule features plays, so a learner that reads the rules "
            "should beat it; always stand and the random legal policy (simulated on every "
            "rule set: it has no deterministic policy), the floors. Learners: the JAX PPO, "
            "which trains one network over the rule space in one jitted program (its "
            "tables draw their rules from the space, blackjack-train --algo jax-ppo "
            "--rule-space v1), and stable-baselines3 PPO on the task's Gymnasium env, "
            "which draws a rule set at each reset, graded by the same exact grade (its "
            "network asked every state of a rule set in one forward pass); that env "
            "builds a new table at every reset under a rule space, so its steps cost many "
            "times a one-rule env's, and SB3's row waits for its command (the results "
            "page). Tabular "
            "Q-learning is left out: its table is keyed by the observation, and the rule "
            "features are a vector of floats in [0, 1] (blackjack_env.envs.view.fields."
            "RULE_FEATURE_TABLE), which it cannot index; without them it would learn one "
            "chart for every rule set, as the fixed chart plays."),
        rule_space="v1",
    ),
)}

#: Tasks the benchmark will have, by name, with why they are not here yet (none today:
#: ``rules-generalize`` waited for rules as data, and is now a task of :data:`TASKS`).
PLANNED: dict[str, str] = {}


def task(name: str) -> Task:
    """The task ``name`` (``vegas-play``) or ``NAME-vVERSION`` (``vegas-play-v1``, which
    must be the version this package defines); ValueError naming the tasks otherwise."""
    base, _, version = name.rpartition("-v")
    if base in TASKS and version.isdigit():
        found = TASKS[base]
        if int(version) != found.version:
            raise ValueError(f"{name}: this package defines {found.id}, not version {version}")
        return found
    if name in TASKS:
        return TASKS[name]
    if name in PLANNED:
        raise ValueError(f"{name} is not available yet: {PLANNED[name]}")
    raise ValueError(f"unknown task {name!r}; the tasks are {', '.join(TASKS)}")


def parse_budget(text: str | int) -> int:
    """A budget typed as ``1e5``, ``100000`` or ``100,000``; ValueError otherwise."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    raw = str(text).strip().replace(",", "").replace("_", "")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"budget {text!r}: give env steps as a number, e.g. 1e5") from None
    if not value.is_integer() or value < 1:
        raise ValueError(f"budget {text!r}: a whole number of env steps >= 1")
    return int(value)


def format_budget(budget: int) -> str:
    """``1e5`` for 100,000, ``2e6`` for 2,000,000 (a digit times a power of ten); the
    number with thousands separators otherwise."""
    digits = str(budget)
    if budget >= 1000 and set(digits[1:]) == {"0"}:
        return f"{digits[0]}e{len(digits) - 1}"
    return f"{budget:,}"


def _make_task_env(task_name: str, **kwargs: Any) -> gym.Env:
    """The env of a task (the entry point of its registered id)."""
    found = TASKS[task_name]
    env = gym.make("blackjack_env/Blackjack-v0", **{**found.env_kwargs(kwargs.pop(
        "obs_mode", None)), **kwargs})
    return HideShoe(env) if found.hide_shoe else env


for _task in TASKS.values():
    if _task.env_id not in gym.registry:
        gym.register(_task.env_id, entry_point=_make_task_env,
                     kwargs={"task_name": _task.name}, disable_env_checker=True)
