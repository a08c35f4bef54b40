"""The generated parts of the env pages (``docs/envs/*.md``), one set per environment.

Each env page follows Gymnasium's layout: a summary box (import, action space,
observation space), then Description, Action Space, Observation Space, Rewards,
Starting State, Episode End, Arguments, Version History, References. What the code
knows is written here into ``_generated/envs/SLUG-PART.md`` at build time:

* ``summary``: the box, from the env the page's import line builds;
* ``actions``: the action indices and names (``action_names``) of that env;
* ``args``: the page's one arguments table (``bj_reference.argument_table``, one block
  per argument on a phone): each argument with its type and default (the signature, or
  what the id fixes) and its meaning (the class docstring's ``## Arguments``: a bullet
  ``* ``name``: text`` or a ``name`` (text) in prose);
* ``info``: the info keys as a played round shows them, each with its meaning from the
  docstring's ``## Info`` section (a key the docstring does not explain stops the build);
* the docstring sections the page shows (``rewards``, ``episode-end``, ...), as MyST;
* ``versions``: the docstring's ``## Version History``.

The prose of each page (its description, starting state where the docstring has none,
references) is the page's own.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable
from typing import Any

from bj_reference import (
    Argument,
    BuildError,
    annotation,
    argument_bullets,
    argument_table,
    code,
    docstring_section,
    glossary_links,
    rst_to_md,
    space_text,
    table,
)
from bj_reference import write as _write

SINGLE_IDS = {
    "blackjack": "blackjack_env/Blackjack-v0",
    "vector-obs": "blackjack_env/BlackjackVector-v0",
    "sutton-barto": "blackjack_env/BlackjackSuttonBarto-v0",
    "counting-env": "blackjack_env/BlackjackCounting-v0",
}


def write(name: str, text: str) -> None:
    _write(f"envs/{name}.md", text)


def _section_md(obj: Any, title: str, level: int = 3) -> str:
    text = docstring_section(obj, title).strip()
    text = re.sub(r"^### ", "#" * (level + 1) + " ", text, flags=re.M)
    text = re.sub(r"::\n", ":\n", text)
    return glossary_links(rst_to_md(text)) + "\n"


def prose_meanings(text: str) -> dict[str, str]:
    """``{name: meaning}`` of each ````name```` followed by a parenthesis in ``text``
    (the docstrings' prose lists: ``bankroll`` (chips off the table; ...))."""
    out: dict[str, str] = {}
    for match in re.finditer(r"``(\w+)``(?: = )?\s?\(", text):
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        meaning = " ".join(text[match.end():i - 1].split())
        out.setdefault(match.group(1), meaning)
    return out


def meanings(obj: Any, title: str = "Arguments") -> dict[str, str]:
    """The meanings of the names in ``obj``'s docstring section ``title``: bullets first,
    then the prose form."""
    found = prose_meanings(docstring_section(obj, title))
    if title == "Arguments":
        found.update(argument_bullets(obj))
    return {k: rst_to_md(v) for k, v in found.items()}


def _default(param: inspect.Parameter) -> str:
    default = param.default
    if default is inspect.Parameter.empty:
        return "required"
    if type(default) is object:  # a sentinel: "not given"
        return "(the rules')"
    value = getattr(default, "value", default)
    return code(repr(value))


def args_table(cls: Any, fixed: dict[str, Any] | None = None, skip: tuple[str, ...] = (),
               fallback: dict[str, str] | None = None, first: list[Argument] | None = None,
               prefer: dict[str, str] | None = None, then: list[Argument] | None = None
               ) -> str:
    """One table: every argument of ``cls.__init__`` with its type, default and meaning
    (``first`` before them, ``then`` after)."""
    fixed = fixed or {}
    known = meanings(cls)
    rows: list[Argument] = list(first or [])
    missing = []
    for name, param in inspect.signature(cls.__init__).parameters.items():
        if name in ("self", *skip) or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        meaning = (prefer or {}).get(name) or known.get(name) or (fallback or {}).get(name)
        if meaning is None:
            missing.append(name)
            continue
        default = _default(param)
        if name in fixed:
            default = f"{code(repr(fixed[name]))} (this id)"
            meaning = without_default(meaning)
        rows.append(Argument(name, annotation(param), default, meaning))
    rows.extend(then or [])
    if missing:
        raise BuildError(f"{cls.__name__}: arguments the docstring does not explain: "
                         f"{', '.join(missing)}")
    return argument_table(rows)


def _actions(names: Any) -> str:
    from bj_reference import cell

    return table(("action", "name"), [(str(i), cell(n)) for i, n in enumerate(names)])


def summary(rows: list[tuple[str, str]]) -> str:
    return table(("", ""), rows)


# ---------------------------------------------------------------------------- single env
def _info_keys(env_id: str, info_cards: bool) -> list[str]:
    import gymnasium as gym

    env = gym.make(env_id, info_cards=info_cards)
    keys: dict[str, None] = {}
    _obs, info = env.reset(seed=0)
    keys.update(dict.fromkeys(info))
    for _ in range(300):
        action = env.action_space.sample(mask=info["action_mask"])
        _obs, _r, term, trunc, info = env.step(action)
        keys.update(dict.fromkeys(info))
        if term or trunc:
            _obs, info = env.reset()
    env.close()
    return list(keys)


#: Info keys the docstring names without saying what they hold (or by their type only):
#: their meaning, written here (the docstring's word, a type, is kept in brackets).
INFO_WRITTEN = {
    "action_mask": "the legal actions of the returned observation, 1 = legal",
    "phase": "the decision the learner faces now (`Decision`: BET, INSURANCE, PLAY, "
             "SETTLED)",
    "illegal_action": "the action given was not legal now (what happened: "
                      "`illegal_action`'s policy)",
    "action_played": "the action the table played (the mapped one after an illegal "
                     "action)",
    "settlement": "on the step that settles a round: dict of round, hands, dealer (all "
                  "cards), outcomes (`Outcome` per hand), payouts and insurance (net in base "
                  "bets), net (the round's total)",
    "settled": "a round was settled on this step",
}


def without_default(text: str) -> str:
    """A docstring meaning without the default it names (``(default 1)``, ``"map"``
    (default), ``(fixed bet, default)``): for an argument the id fixes, whose first cell
    shows the id's value."""
    text = re.sub(r"\s*\(default[^()]*\)", "", text)
    text = re.sub(r",\s*default\)", ")", text)
    return re.sub(r"\s+([,.;])", r"\1", text)


def _ratio(value: Any) -> str:
    return f"{value.numerator}:{value.denominator}"


def rewards_md(settings: Any) -> str:
    """The rewards of an id, from its settings: what each outcome pays under its rules."""
    from blackjack_env.engine.rules import DoubleRule, Settlement, Surrender, TieRule

    rules = settings.rules
    if rules.settlement is not Settlement.DEALER:
        raise BuildError(f"rewards_md: no words yet for settlement={rules.settlement}")
    pays = ["+1 a win, -1 a loss"]
    pays.append({TieRule.PUSH: "0 a push (equal totals)",
                 TieRule.DEALER_WINS: "-1 a tie (the dealer wins ties)",
                 TieRule.PLAYER_LOSES: "-1 equal totals, 0 blackjack against blackjack",
                 }[rules.ties])
    payout = rules.blackjack_payout
    if payout is None:
        pays.append("a natural is paid as any win")
    else:
        pays.append(f"{float(payout):+g} a natural ({_ratio(payout)})")
    if rules.double is not DoubleRule.NEVER:
        pays.append("+2 / -2 a won / lost double")
    if rules.surrender is not Surrender.NONE:
        pays.append(f"-0.5 a surrender ({rules.surrender.value})")
    if rules.max_split_hands > 1:
        pays.append("after a split, the sum over the hands, each with its own bet")
    text = ("The learner's net chips of the round divided by the base bet `bet`, on the "
            "step that settles it; every other step gives 0. " + "; ".join(pays) + ".")
    if rules.insurance:
        text += (" Insurance and even money are offered against an ace: with "
                 "`insurance_decisions=True` the learner may take them (the round's net "
                 "includes the insurance bet's), else they are declined for it.")
    if settings.bet_sizes:
        sizes = ", ".join(str(b) for b in settings.bet_sizes)
        text += (f" Each figure is multiplied by the round's bet ({sizes} base bets, chosen "
                 f"at the BET step): a won bet of {settings.bet_sizes[-1]} is "
                 f"{settings.bet_sizes[-1]:+d}.")
    text += (' Under `illegal_action="penalize"` an illegal action also subtracts '
             "`illegal_penalty`.\n")
    causes = ", ".join(no_decision_causes(rules))
    if no_decision_rounds(rules) and settings.bet_sizes:
        text += (f"\nA round that needs no decision after the bet ({causes}) is settled on "
                 "the BET step that deals it, which returns its reward.\n")
    elif no_decision_rounds(rules):
        text += (f"\nA round in which the learner has no decision ({causes}) is *not* "
                 "skipped: its observation shows phase `SETTLED` (the settled cards are in "
                 "`info`) and the next step, whatever its action, returns that round's "
                 "reward, so such rounds count in returns as the others.\n")
    return text


def no_decision_causes(rules: Any) -> list[str]:
    """Why a round of these rules may need no decision of the learner."""
    from blackjack_env.engine.rules import HoleCard

    causes = []
    if rules.natural_ends_hand:
        causes.append("a natural that ends the hand")
    if rules.hole_card is HoleCard.PEEK:
        causes.append("a dealer blackjack found by the peek")
    if rules.natural_paid_at_deal:
        causes.append("a natural paid at the deal")
    return causes


def no_decision_rounds(rules: Any) -> bool:
    return bool(no_decision_causes(rules))


def starting_state_md(settings: Any, num_seats: int) -> str:
    """How an episode of an id starts, from its settings."""
    rules = settings.rules
    if rules.decks is None:
        text = ("An infinite deck: every card is drawn independently (there is nothing to "
                "count); `reset(seed=...)` seeds the draws. ")
    else:
        text = (f"`reset(seed=...)` builds a freshly shuffled {rules.decks}-deck shoe, cut "
                f"at {rules.penetration:.0%}; it persists across rounds and episodes (a "
                "reset without a seed keeps it) and is reshuffled between rounds once the "
                "cut card is out. ")
    if num_seats == 1:
        text += ("The table has one seat, the learner's (`num_seats` adds seats that "
                 "`others` plays). ")
    else:
        text += (f"The table has {num_seats} seats; the learner plays seat "
                 f"{settings.seat} and `others` the rest. ")
    if settings.bet_sizes:
        text += ("Each round opens with a BET step: the first observation shows phase "
                 "`BET` and no cards, the learner's bet action deals the round. ")
    else:
        text += ("The learner bets `bet` chips (one base bet), the cards are dealt in "
                 "casino order, and the first observation is the learner's first "
                 "decision")
        if no_decision_rounds(rules):
            text += " (or a `SETTLED` one when the round needs none, see Rewards)"
        text += ". "
    if settings.insurance_decisions or rules.surrender.value == "early":
        text += ("Against an ace (or a ten) a pre-peek step (phase `INSURANCE`) comes "
                 "first. ")
    return text.strip() + "\n"


def episode_end_md(settings: Any) -> str:
    """How an episode of an id ends, from its settings."""
    rounds = settings.rounds_per_episode
    if rounds == 1:
        text = "An episode is one round: it *terminates* on the step that settles it."
    elif rounds is None:
        text = ("An episode has no round limit: after a round is settled the next one "
                "starts at once (its first observation comes with the settled round's "
                "reward).")
    else:
        text = (f"An episode is a session of {rounds} rounds: after a round is settled the "
                "next one starts at once (its first observation comes with the settled "
                "round's reward; the shoe carries over and is reshuffled whenever the cut "
                f"card is out, within a session too), and the {rounds}th settlement "
                "*truncates* the episode.")
    if settings.bankroll is None:
        text += (" The learner has unlimited credit (`bankroll=None`); with a `bankroll` "
                 "the episode also terminates when its chips cannot cover the smallest "
                 "bet.")
    else:
        text += (" The episode also terminates when the learner's chips cannot cover the "
                 "smallest bet.")
    return text + "\n"


def versions_md(cls: Any, env_id: str, all_ids: Iterable[str]) -> str:
    """The docstring's ``## Version History`` lines about ``env_id``: those that name no
    id, and those that name it."""
    section = docstring_section(cls, "Version History")
    bullets = re.findall(r"^\* (.*?)(?=^\* |\Z)", section, re.M | re.S)
    keep = []
    for bullet in bullets:
        named = [i for i in all_ids if i in bullet]
        if not named or env_id in named:
            keep.append("* " + rst_to_md(" ".join(bullet.split())))
    if not keep:
        raise BuildError(f"no Version History line about {env_id}")
    return "\n".join(keep) + "\n"


def actions_md(env: Any) -> str:
    """The action space of an id: its actions, named, and how the mask and an illegal
    action work there."""
    names = env.unwrapped.action_names
    settings = env.unwrapped.settings
    playing = len(names) - len(settings.bet_sizes or ())
    text = (f"`{env.action_space}`: the {playing} playing decisions with the engine's "
            "`Action` numbers")
    if settings.bet_sizes:
        text += (f", then {len(settings.bet_sizes)} bet actions (legal only at the BET "
                 "step)")
    text += (". `info[\"action_mask\"]` (int8, 1 = legal) and "
             "`env.unwrapped.action_masks()` (booleans, for sb3-contrib's MaskablePPO) give "
             "the legal ones; an illegal action is mapped to a documented legal one by "
             "default (`illegal_action`).\n\n")
    return text + _actions(names)


def single_env_pages() -> None:
    import gymnasium as gym

    import blackjack_env
    from blackjack_env.envs import BlackjackEnv

    gym.register_envs(blackjack_env)
    # info keys: every key a few hundred random steps show, with the docstring's meaning
    info_doc = meanings(BlackjackEnv, "Info")
    info_rows = []
    with_cards = _info_keys("blackjack_env/Blackjack-v0", True)
    without = _info_keys("blackjack_env/Blackjack-v0", False)
    for key in dict.fromkeys([*with_cards, *without]):
        meaning = INFO_WRITTEN.get(key, info_doc.get(key))
        if key in INFO_WRITTEN and key in info_doc and info_doc[key] not in meaning:
            meaning += f" ({info_doc[key]})"
        if meaning is None:
            raise BuildError(f"info key {key!r} is not explained in BlackjackEnv's ## Info")
        where = ("always" if key in with_cards and key in without else
                 "`info_cards=True` (default)" if key in with_cards else "`info_cards=False`")
        info_rows.append((code(key), where, meaning))
    write("single-info", table(("key", "present with", "meaning"), info_rows))
    for part, title in (("reset-options", "Reset options"),
                        ("libraries", "With other RL libraries")):
        write(f"single-{part}", _section_md(BlackjackEnv, title))
    for slug, env_id in SINGLE_IDS.items():
        write_single_id(slug, env_id)


def write_single_id(slug: str, env_id: str) -> None:
    """The generated parts of one id's page, each from that id's own env."""
    import gymnasium as gym
    from bj_reference import observation_table

    import blackjack_env
    from blackjack_env.envs import BlackjackEnv

    fixed = blackjack_env.ENV_IDS[env_id]
    env = gym.make(env_id)
    settings = env.unwrapped.settings
    made = ", ".join(f"{k}={v!r}" for k, v in fixed.items())
    write(f"{slug}-summary", summary([
        ("Import", code(f'gym.make("{env_id}")')),
        ("Action Space", code(env.action_space)),
        ("Observation Space", code(space_text(env.observation_space))),
        ("Observation mode", code(repr(settings.obs_mode.value))),
        ("Rules", code(rules_name(settings.rules))),
        ("Arguments it fixes", code(made) if made else "none (the defaults)"),
        ("Batched", code(f'gym.make_vec("{env_id}", num_envs=N)')),
    ]))
    write(f"{slug}-actions", actions_md(env))
    mode = settings.obs_mode.value
    write(f"{slug}-obs", f"The `{mode}` mode ([all observation modes](../observations.md)): "
          f"`{space_text(env.observation_space)}`. The fields describe the learner's "
          "{term}`focus hand`.\n\n"
          + observation_table(mode, env.observation_space))
    write(f"{slug}-rewards", rewards_md(settings))
    num_seats = settings.rules.seats  # num_seats= replaces rules.seats
    write(f"{slug}-starting-state", starting_state_md(settings, num_seats))
    write(f"{slug}-episode-end", episode_end_md(settings))
    write(f"{slug}-versions", versions_md(BlackjackEnv, env_id, blackjack_env.ENV_IDS))
    env.close()
    write(f"{slug}-args", args_table(BlackjackEnv, fixed))


def rules_name(rules: Any) -> str:
    """The preset these rules are, by name (``"vegas-strip"``), or ``"custom"``."""
    from blackjack_env.engine import PRESETS

    for name, entry in PRESETS.items():
        if entry.rules == rules:
            return name
    return "custom"


# ---------------------------------------------------------------------------- batched
#: The single env's arguments the batched env takes no other value of than one seat's
#: (``tests/docs/test_env_pages.py`` checks that it refuses the others).
VECTOR_REFUSED = ("num_seats", "seat", "others", "render_mode")

def vector_page() -> None:
    import gymnasium as gym

    from blackjack_env.envs import BlackjackEnv
    from blackjack_env.envs.vector import BlackjackVectorEnv

    envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=4)
    write("make-vec-summary", summary([
        ("Import", code('gym.make_vec("blackjack_env/Blackjack-v0", num_envs=N)')),
        ("Class", code("blackjack_env.envs.vector.BlackjackVectorEnv")),
        ("Action Space (N=4)", code(envs.action_space)),
        ("Observation Space (N=4)", code(space_text(envs.observation_space))),
        ("Single env", "the id's: same spaces, masks, rewards and episode ends"),
    ]))
    envs.close()
    single = meanings(BlackjackEnv)
    from gymnasium.vector import AutoresetMode

    modes = ", ".join(f"`{m.value}`" for m in AutoresetMode)
    extra = {
        "num_envs": "tables stepped at once (sub-envs; with `seats_per_table=S`, "
                    "`num_envs / S` tables of S learner seats)",
        "autoreset_mode": f"Gymnasium's autoreset mode, one of {modes} (see Autoreset; "
                          "`SameStep` is the fastest: no step is spent on resets)",
        "max_episode_steps": "steps after which a sub-env's episode is truncated "
                             "(None: no limit)",
        "seats_per_table": "learner seats per table (1..7): every seat a sub-env, the "
                           "table's shoe and dealer shared",
    }
    sig = inspect.signature(BlackjackEnv.__init__).parameters
    own = inspect.signature(BlackjackVectorEnv.__init__).parameters
    then = [Argument(n, annotation(sig[n]), _default(sig[n]), m) for n, m in single.items()
            if n in sig and n not in own and n not in VECTOR_REFUSED]
    write("make-vec-args", args_table(BlackjackVectorEnv, prefer=extra, then=then)
          + "\nThe single env's " + ", ".join(code(n) for n in VECTOR_REFUSED)
          + " have no use here: the batched env seats one learner per table and draws "
          "nothing (`num_seats` other than 1, a `seat` other than 0, a list of `others` "
          "and a `render_mode` are refused; a strategy name is checked and plays no seat; "
          "several learners at a table: `seats_per_table`).\n")
    for part, title in (("description", "Description"), ("autoreset", "Autoreset"),
                        ("seats", "Several learner seats per table"), ("info", "Info"),
                        ("reset-options", "Reset options"), ("versions", "Version History")):
        write(f"make-vec-{part}", _section_md(BlackjackVectorEnv, title))


# ---------------------------------------------------------------------------- PettingZoo
def multiagent_pages() -> None:
    from blackjack_env.envs import multiagent
    from blackjack_env.envs.multiagent import BlackjackParallelEnv, parallel_env

    aec_cls = multiagent.BlackjackAECEnv
    aec = multiagent.env(num_seats=3)
    aec.reset(seed=0)
    agent = aec.agents[0]
    write("aec-summary", summary([
        ("Import", code("from blackjack_env.envs.multiagent import env")),
        ("Make", code("env(num_seats=3)")),
        ("Agents", code(", ".join(aec.agents))),
        ("Action Space (each)", code(aec.action_space(agent))),
        ("Observation Space (each)", code(space_text(aec.observation_space(agent)))),
    ]))
    aec.close()
    par = parallel_env(num_seats=3)
    par.reset(seed=0)
    write("parallel-summary", summary([
        ("Import", code("from blackjack_env.envs.multiagent import parallel_env")),
        ("Make", code("parallel_env(num_seats=3)")),
        ("Agents", code(", ".join(par.agents))),
        ("Action Space (each)", code(par.action_space(par.agents[0]))),
        ("Observation Space (each)", code(space_text(par.observation_space(par.agents[0])))),
        ("State Space", code(space_text(par.state_space))),
    ]))
    par.close()
    args = args_table(aec_cls)
    write("aec-args", args)
    write("parallel-args", args)
    for part, title in (("description", "Description"), ("actions", "Action Space"),
                        ("observations", "Observation Space"), ("rewards", "Rewards"),
                        ("episode-end", "Episode End"), ("state", "State"),
                        ("reset-options", "Reset options")):
        write(f"aec-{part}", _section_md(aec_cls, title))
    from blackjack_env.envs.multiagent import parallel

    # the class defers to its module's docstring: the page shows that one's sections
    for part, title in (("steps", "Steps"), ("state", "State")):
        write(f"parallel-{part}", _section_md(parallel, title))
    del BlackjackParallelEnv


# ---------------------------------------------------------------------------- JAX
def jax_observation_text(env: Any) -> str:
    """The default observation of a ``BlackjackJax`` as the env makes it: its mode, and
    the dtype and shape of one table's observation (``"features": float32 (73,)``)."""
    space = env.observation_space(env.default_params)
    shape = getattr(space, "shape", None)
    dtype = getattr(space, "dtype", None)
    if shape is None or dtype is None:  # dict / tuple: the space's own name
        return code(f'"{env.obs_mode}": {type(space).__name__}')
    import numpy as np

    return code(f'"{env.obs_mode}": {np.dtype(dtype).name} {tuple(shape)}')


def jax_pages() -> None:
    try:
        import jax  # noqa: F401
    except ImportError:
        for name in ("jax-summary", "jax-args", "jax-gym-summary", "jax-gym-args"):
            write(name, "(This part is generated when JAX is installed: "
                        "`pip install -e \".[jax]\"`.)\n")
        for part in ("description", "seats", "actions", "observations", "bets", "rewards",
                     "gym-description", "gym-autoreset", "gym-info", "gym-reset-options"):
            write(f"jax-{part}", "\n")
        return
    import gymnasium as gym

    from blackjack_env.envs import BlackjackEnv
    from blackjack_env.jax import BlackjackJax, BlackjackJaxVectorEnv

    env = BlackjackJax(rules="vegas-strip")
    write("jax-summary", summary([
        ("Import", code("from blackjack_env.jax import BlackjackJax")),
        ("Make", code('BlackjackJax(rules="vegas-strip")')),
        ("Actions", code(f"{env.num_actions} (Discrete)")),
        ("Observation", jax_observation_text(env) + " by default"),
        ("Step", code("obs, state, reward, done, info = env.step(key, state, action, "
                      "params)")),
    ]))
    single = meanings(BlackjackEnv)
    seats = {"seats_per_table": "learner seats per table, 1..7 (Several learner seats "
                                "above)",
             "decks": "decks in the shoe, replacing the rules' (`None`: an infinite deck)"}
    write("jax-args", args_table(BlackjackJax, fallback={**single, **seats}))
    for part, title in (("description", "Description"), ("seats", "Several learner seats"),
                        ("actions", "Action Space"), ("observations", "Observation Space"),
                        ("bets", "Bets"), ("rewards", "Rewards, Episode End")):
        write(f"jax-{part}", _section_md(BlackjackJax, title))
    import blackjack_env.jax  # noqa: F401  (registers the id)

    one = gym.make("blackjack_env/BlackjackJax-v0")
    envs = gym.make_vec("blackjack_env/BlackjackJax-v0", num_envs=4)
    write("jax-gym-summary", summary([
        ("Import", code('gym.make("blackjack_env.jax:blackjack_env/BlackjackJax-v0")')),
        ("Batched", code('gym.make_vec("blackjack_env.jax:blackjack_env/BlackjackJax-v0", '
                         'num_envs=N)')),
        ("Action Space", code(one.action_space)),
        ("Observation Space", code(space_text(one.observation_space))),
        ("Batched spaces (N=4)", code(envs.action_space) + ", "
         + code(space_text(envs.observation_space))),
    ]))
    one.close()
    envs.close()
    jax_known = {**single, **seats, **meanings(BlackjackJax)}
    jax_known["illegal_action"] = ('`"map"`, `"penalize"` or `"raise"` (each action checked '
                                   'against the mask on the host)')
    rows = [Argument(n, annotation(p), _default(p), jax_known[n])
            for n, p in inspect.signature(BlackjackJax.__init__).parameters.items()
            if n in jax_known]
    write("jax-gym-args", args_table(
        BlackjackJaxVectorEnv, first=rows,
        fallback={"num_envs": "sub-envs (tables times `seats_per_table`); `gym.make` makes "
                              "one"}))
    for part, title in (("gym-description", "Description"), ("gym-autoreset", "Autoreset"),
                        ("gym-info", "Info"), ("gym-reset-options", "Reset options")):
        write(f"jax-{part}", _section_md(BlackjackJaxVectorEnv, title))


def generate() -> None:
    single_env_pages()
    vector_page()
    multiagent_pages()
    jax_pages()
