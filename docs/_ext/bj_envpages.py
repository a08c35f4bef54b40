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
from typing import Any

from bj_reference import (
    Argument,
    BuildError,
    annotation,
    argument_bullets,
    argument_table,
    code,
    docstring_section,
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
    return rst_to_md(text) + "\n"


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
    for part, title in (("rewards", "Rewards"), ("starting-state", "Starting State"),
                        ("episode-end", "Episode End"), ("reset-options", "Reset options"),
                        ("libraries", "With other RL libraries"),
                        ("versions", "Version History")):
        write(f"single-{part}", _section_md(BlackjackEnv, title))
    for slug, env_id in SINGLE_IDS.items():
        fixed = blackjack_env.ENV_IDS[env_id]
        env = gym.make(env_id)
        made = ", ".join(f"{k}={v!r}" for k, v in fixed.items())
        write(f"{slug}-summary", summary([
            ("Import", code(f'gym.make("{env_id}")')),
            ("Action Space", code(env.action_space)),
            ("Observation Space", code(space_text(env.observation_space))),
            ("Arguments it fixes", code(made) if made else "none (the defaults)"),
            ("Batched", code(f'gym.make_vec("{env_id}", num_envs=N)')),
        ]))
        write(f"{slug}-actions", _actions(env.unwrapped.action_names))
        env.close()
        write(f"{slug}-args", args_table(BlackjackEnv, fixed))


# ---------------------------------------------------------------------------- batched
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
    extra = {
        "num_envs": "tables stepped at once (sub-envs; with `seats_per_table=S`, "
                    "`num_envs / S` tables of S learner seats)",
        "autoreset_mode": "Gymnasium's autoreset mode: `NextStep` (Gymnasium's default) or "
                          "`SameStep` (the fastest: no step is spent on resets)",
        "max_episode_steps": "steps after which a sub-env's episode is truncated "
                             "(None: no limit)",
    }
    from blackjack_env.envs import EnvSettings

    seats = inspect.signature(EnvSettings.batched).parameters["seats_per_table"]
    first = [Argument("seats_per_table", annotation(seats), code(repr(seats.default)),
                      "learner seats per table (1..7): every seat a sub-env, the table's "
                      "shoe and dealer shared")]
    sig = inspect.signature(BlackjackEnv.__init__).parameters
    then = [Argument(n, annotation(sig[n]), _default(sig[n]), m) for n, m in single.items()
            if n in sig and n not in ("render_mode",)]
    write("make-vec-args", args_table(BlackjackVectorEnv, prefer=extra, first=first,
                                      then=then))
    for part, title in (("description", "Description"), ("autoreset", "Autoreset"),
                        ("seats", "Several learner seats per table"), ("info", "Info"),
                        ("reset-options", "Reset options"), ("versions", "Version History")):
        write(f"make-vec-{part}", _section_md(BlackjackVectorEnv, title))


# ---------------------------------------------------------------------------- PettingZoo
def multiagent_pages() -> None:
    from blackjack_env.envs import multiagent
    from blackjack_env.envs.parallel import BlackjackParallelEnv, parallel_env

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
        ("Import", code("from blackjack_env.envs.parallel import parallel_env")),
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
    from blackjack_env.envs import parallel

    # the class defers to its module's docstring: the page shows that one's sections
    for part, title in (("steps", "Steps"), ("state", "State")):
        write(f"parallel-{part}", _section_md(parallel, title))
    del BlackjackParallelEnv


# ---------------------------------------------------------------------------- JAX
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
        ("Observation", code('"vector": float32 (17,)') + " by default"),
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
