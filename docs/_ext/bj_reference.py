"""Sphinx extension: the references and pictures of the site, generated from the code.

At ``builder-inited`` it writes MyST files and PNGs under ``docs/_generated/`` (not
committed), which the pages include. Nothing in them is typed by hand:

* the env ids (``blackjack_env.ENV_IDS``) with their spaces, as ``gym.make`` builds them;
* every constructor argument: its default from the signature, what is allowed from the
  validator itself (``EnvSettings`` is asked with a value it must refuse, and its
  ``ValueError`` says what it allows), its meaning from the class docstring's
  ``## Arguments`` bullet (an argument without one fails the build);
* each observation mode's fields: names and positions from the view module's constants,
  ranges and dtypes from the observation space the env reports;
* the action codes (``Action`` and each id's ``action_names``) and the info keys, read
  from a played round;
* the rules reference (``Rules`` fields) and every preset with its rules;
* the pictures (strategy charts, learning curve, effects of removal, an ``rgb_array``
  frame), small and quick (the slow numbers come from committed run files under
  ``docs/data/`` that ``docs/make_data.py`` writes and a slow test checks).

It imports few, public things (``blackjack_env``, ``blackjack_env.envs``,
``blackjack_env.analysis``, ``blackjack_env.agents.plots``), so modules may move
beneath them. The run time is logged (a few seconds).
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # docs/
OUT = HERE / "_generated"
FIG = OUT / "fig"
DATA = HERE / "data"


# ---------------------------------------------------------------------------- helpers
def cell(value: Any) -> str:
    """``value`` as the text of one Markdown table cell."""
    text = str(value).replace("\n", " ").replace("|", "\\|")
    return text.strip()


def code(value: Any) -> str:
    text = str(value)
    if "`" in text:
        return cell(text)
    return f"`{cell(text)}`"


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class Argument:
    """One argument of an arguments table; each field is MyST inline text."""

    name: str
    #: the annotation as the signature writes it ("" where it has none)
    kind: str
    #: ``"required"``, or the default as MyST (```1```, ```1` (this id)``)
    default: str
    meaning: str
    #: what the validator allows, in its words (``None``: the table has no such column)
    allowed: str | None = None


#: The class of every arguments table: ``_static/site.css`` turns its rows into one
#: block per argument on a narrow screen.
ARGS_CLASS = "bj-args"
#: An allowed-values text longer than this (characters) is folded into a ``<details>``.
FOLD = 100


def annotation(param: inspect.Parameter) -> str:
    """A parameter's annotation as the signature writes it (``""`` where it has none)."""
    kind = param.annotation
    if kind is inspect.Parameter.empty:
        return ""
    return kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))


def _flat(value: Any) -> str:
    return " ".join(str(value).split())


def _inline_html(text: str) -> str:
    """MyST inline text as HTML (a ``<summary>`` is raw HTML): escaped, code spans kept."""
    import html

    return re.sub(r"`([^`]+)`", r'<code class="docutils literal notranslate">\1</code>',
                  html.escape(text, quote=False))


def fold(text: str) -> list[str]:
    """``text`` as the lines of a cell: as it is when short, else a ``<details>`` whose
    summary is its first clause (up to the first parenthesis or comma, at most about 60
    characters) and whose body is the rest, so that opened it reads as one text."""
    text = _flat(text)
    if len(text) <= FOLD:
        return [text]
    cut = -1
    for mark in (" (", ", "):
        at = text.find(mark, 15)
        if 0 < at <= 60 and (cut < 0 or at < cut):
            cut = at
    if cut < 0:
        cut = text.rfind(" ", 0, 60)
    head, rest = text[:cut].rstrip(","), text[cut:].strip()
    if text[cut:].startswith(","):
        rest = rest[1:].strip()
    return [f"<details><summary>{_inline_html(head)} …</summary>", "", rest, "",
            "</details>"]


def argument_table(arguments: Sequence[Argument], meaning: str = "meaning",
                   allowed: str = "allowed") -> str:
    """The one table of ``arguments``, as a MyST ``list-table`` of class ``ARGS_CLASS``.

    A row per argument: its name, type and default in the first cell (three short
    paragraphs), its meaning, then (where the arguments have it) what is allowed, folded
    into a ``<details>`` when long. On a wide screen it reads as a table; on a phone
    the site's stylesheet shows each row as a block (name, type and default on one line,
    the meaning below, then what is allowed), from this same table.
    """
    with_allowed = any(a.allowed is not None for a in arguments)
    header = ["argument", meaning] + ([allowed] if with_allowed else [])
    lines = ["```{list-table}", ":header-rows: 1", f":class: {ARGS_CLASS}", ":widths: auto",
             ""]
    lines.append("* - " + header[0])
    lines += [f"  - {h}" for h in header[1:]]
    for arg in arguments:
        first = [f"**`{arg.name}`**"]
        if arg.kind:
            first.append(f"`{_flat(arg.kind)}`")
        first.append(arg.default if arg.default == "required" else f"default {arg.default}")
        lines.append(f"* - {first[0]}")
        for part in first[1:]:
            lines += ["", f"    {part}"]
        cells = [[_flat(arg.meaning)]]
        if with_allowed:
            cells.append(fold(arg.allowed or ""))
        for cell_lines in cells:
            lines.append(f"  - {cell_lines[0]}")
            lines += [f"    {line}" if line else "" for line in cell_lines[1:]]
    lines.append("```")
    return "\n".join(lines) + "\n"


def write(name: str, text: str, note: bool = True) -> None:
    path = OUT / name
    path.parent.mkdir(parents=True, exist_ok=True)
    note = "<!-- generated by docs/_ext/bj_reference.py: do not edit -->\n\n" if note else ""
    # unchanged content keeps its mtime, so Sphinx does not rebuild every page
    if not path.exists() or path.read_text() != note + text:
        path.write_text(note + text)


class BuildError(RuntimeError):
    """A reference cannot be generated: the build stops with this message."""


def docstring_section(obj: Any, title: str) -> str:
    """The text of a ``## title`` section of ``obj``'s docstring."""
    doc = inspect.getdoc(obj) or ""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.M | re.S)
    return match.group(1) if match else ""


def argument_bullets(obj: Any) -> dict[str, str]:
    """``{name: text}`` of the bullets ``* ``name``: text`` in the ``## Arguments`` section."""
    text = docstring_section(obj, "Arguments")
    out: dict[str, str] = {}
    for match in re.finditer(r"^\* ``(\w+)``: (.*?)(?=^\* |^\S|\Z)", text, re.M | re.S):
        out[match.group(1)] = " ".join(match.group(2).split())
    return out


#: Words a user meets on the pages before knowing them: the glossary defines each, and the
#: generated text links its first use on a page part to the entry.
GLOSSARY_LINKS = {
    r"\bfocus hand\b": "focus hand",
    r"\bparity tests?\b": "parity test",
    r"\bstacked (?:shoes?|cards)\b": "stacked shoe",
}


def glossary_links(text: str) -> str:
    """``text`` (MyST) with the first use of each glossary word linked to its entry
    (``{term}``), outside code spans and headings."""
    parts = re.split(r"(`[^`]*`)", text)
    for pattern, term in GLOSSARY_LINKS.items():
        for i, part in enumerate(parts):
            if i % 2:  # a code span
                continue
            lines = part.split("\n")
            done = False
            for j, line in enumerate(lines):
                if line.lstrip().startswith("#"):
                    continue
                match = re.search(pattern, line, re.I)
                if match:
                    word = match.group(0)
                    lines[j] = (line[:match.start()] + f"{{term}}`{word} <{term}>`"
                                + line[match.end():])
                    done = True
                    break
            parts[i] = "\n".join(lines)
            if done:
                break
    return "".join(parts)


def rst_to_md(text: str) -> str:
    """Inline reST of a docstring (``code``, :role:`target`) as MyST inline text."""
    text = re.sub(r":(?:class|func|meth|mod|data|attr):`~?([^`]+)`",
                  lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    return text.replace("``", "`")


def docstring_md(obj: Any, level: int = 3) -> str:
    """``obj``'s docstring as MyST: its ``## Section`` headings at ``level``, reST inline
    markup as Markdown (the docstrings are written to read as both)."""
    doc = inspect.getdoc(obj) or ""
    doc = re.sub(r"^### ", "#" * (level + 1) + " ", doc, flags=re.M)
    doc = re.sub(r"^## ", "#" * level + " ", doc, flags=re.M)
    doc = re.sub(r"::\n", ":\n", doc)  # a reST literal-block marker: the block is indented
    return glossary_links(rst_to_md(doc)) + "\n"


class _Probe:
    """A value every validator refuses; its repr is cut from the message."""

    def __repr__(self) -> str:
        return "<probe>"


def allowed_by(validate: Callable[..., Any], name: str, fallback: str,
               context: dict[str, Any] | None = None) -> str:
    """What the validator allows for ``name``: its message for a value it must refuse
    (asked with the other arguments in ``context``, default: their defaults)."""
    try:
        validate(**{**(context or {}), name: _Probe()})
    except ValueError as exc:
        message = str(exc)
    except Exception:  # not a ValueError: the check is missing; say what the type says
        return fallback
    else:
        return fallback
    message = re.sub(rf"^{name}=<probe> ", "", message)
    message = re.sub(r"^(is not allowed; )", "", message)
    return message


# ---------------------------------------------------------------------------- envs
#: Arguments whose range depends on another: asked with that one set (a 7-seat table).
PROBE_CONTEXT: dict[str, dict[str, Any]] = {"seat": {"num_seats": 7}}

def envs_reference() -> None:
    import gymnasium as gym

    import blackjack_env
    from blackjack_env.envs import BlackjackEnv, EnvSettings

    gym.register_envs(blackjack_env)
    batched = set(getattr(blackjack_env, "BATCHED_IDS", ()))
    rows = []
    for env_id, kwargs in blackjack_env.ENV_IDS.items():
        env = gym.make(env_id)
        fixed = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "(defaults)"
        rows.append((code(env_id.split("/", 1)[1]), fixed, code(env.action_space),
                     code(space_text(env.observation_space))))
        env.close()
    native = [i for i in blackjack_env.ENV_IDS if i in batched]
    others = [i for i in blackjack_env.ENV_IDS if i not in batched]
    note = ("\n`gym.make_vec` builds the native numpy batched env for "
            + ("every id" if not others else ", ".join(code(i) for i in native))
            + ("" if not others else "; Gymnasium's `SyncVectorEnv` for "
               + ", ".join(code(i) for i in others)) + ".\n")
    write("env-ids.md", table(
        ("id (`blackjack_env/...`)", "arguments it fixes", "action space",
         "observation space"), rows) + note)

    # ---- constructor arguments of the single env
    sig = inspect.signature(BlackjackEnv.__init__)
    bullets = argument_bullets(BlackjackEnv)
    arguments: list[Argument] = []
    missing = []
    for name, param in sig.parameters.items():
        if name == "self" or param.kind is param.VAR_KEYWORD:
            continue
        if name not in bullets:
            missing.append(name)
            continue
        kind = annotation(param)
        fallback = "True or False" if kind == "bool" else "see the meaning"
        context = PROBE_CONTEXT.get(name)
        allowed = allowed_by(EnvSettings.single, name, fallback, context)
        if context:
            allowed += " (with " + ", ".join(f"{k}={v!r}" for k, v in context.items()) + ")"
        arguments.append(Argument(name, kind, code(repr(param.default)),
                                  rst_to_md(bullets[name]), rst_to_md(allowed)))
    if missing:
        raise BuildError(
            f"BlackjackEnv arguments without a bullet in its docstring's ## Arguments: "
            f"{', '.join(missing)}")
    write("env-args.md", argument_table(arguments, meaning="meaning (the class docstring)",
                                        allowed="allowed (the validator's words)"))

    # ---- the batched env's own arguments and the multi-agent table's
    from blackjack_env.envs.vector import BlackjackVectorEnv

    rows = []
    for name, param in inspect.signature(BlackjackVectorEnv.__init__).parameters.items():
        if name == "self" or param.kind is param.VAR_KEYWORD:
            continue
        default = param.default
        if isinstance(default, enum.Enum):
            default = default.value
        rows.append((code(name), code(repr(default))))
    seats = inspect.signature(EnvSettings.batched).parameters["seats_per_table"]
    rows.append((code("seats_per_table"), code(repr(seats.default))))
    write("vector-args.md", table(("argument", "default"), rows))

    from blackjack_env.envs import multiagent

    aec = multiagent.BlackjackAECEnv
    rows = []
    for name, param in inspect.signature(aec.__init__).parameters.items():
        if name == "self" or param.kind is param.VAR_KEYWORD:
            continue
        kind = annotation(param)
        fallback = "True or False" if kind == "bool" else "see the docstring"
        rows.append((code(name), code(repr(param.default)),
                     rst_to_md(allowed_by(EnvSettings.table, name, fallback))))
    write("table-args.md", table(("argument", "default", "allowed (the validator's words)"),
                                 rows))

    # ---- strategies that fill seats
    from blackjack_env import strategies

    write("strategies.md", "Seat strategies known by name (for `others`): "
          + ", ".join(code(n) for n in strategies.strategy_names()) + ".\n")

    # ---- the class docstrings, which are the specification, as MyST
    from blackjack_env.envs.multiagent import BlackjackParallelEnv

    for name, cls in (("env", BlackjackEnv), ("vector", BlackjackVectorEnv),
                      ("table", aec), ("parallel", BlackjackParallelEnv)):
        write(f"{name}-docstring.md", docstring_md(cls))

    # ---- version history of the ids, from each env's docstring section
    text = ""
    for label, cls in (("`BlackjackEnv` (every id)", BlackjackEnv),
                       ("`BlackjackVectorEnv` (`gym.make_vec`)", BlackjackVectorEnv),
                       ("the multi-agent table", aec)):
        section = docstring_section(cls, "Version History").strip()
        text += f"\n### {label}\n\n{rst_to_md(section) or 'v0: initial version.'}\n"
    ids = ", ".join(code(i) for i in blackjack_env.ENV_IDS)
    try:  # the JAX table registers its own id when imported (the [jax] extra)
        from blackjack_env.jax import ENV_ID, BlackjackJaxVectorEnv
    except ImportError:
        pass
    else:
        ids += f", and with `blackjack_env.jax` imported {code(ENV_ID)}"
        section = docstring_section(BlackjackJaxVectorEnv, "Version History").strip()
        text += (f"\n### {code(ENV_ID.split('/')[-1])} (the JAX table)\n\n"
                 f"{rst_to_md(section) or '* v0: initial version.'}\n")
    write("env-versions.md", f"Registered ids: {ids}.\n" + text)


def actions_reference() -> None:
    import gymnasium as gym

    import blackjack_env
    from blackjack_env import Action

    rows = [(str(int(a)), code(a.name)) for a in Action]
    text = table(("code", "`Action`"), rows)
    text += "\nEach id's `Discrete` actions (`env.unwrapped.action_names`):\n\n"
    rows = []
    for env_id in blackjack_env.ENV_IDS:
        env = gym.make(env_id)
        names = env.unwrapped.action_names
        rows.append((code(env_id), ", ".join(f"{i} {n}" for i, n in enumerate(names))))
        env.close()
    env = gym.make("blackjack_env/Blackjack-v0", insurance_decisions=True)
    rows.append(("`Blackjack-v0`, `insurance_decisions=True`",
                 ", ".join(f"{i} {n}" for i, n in enumerate(env.unwrapped.action_names))))
    text += table(("id", "actions"), rows)
    write("actions.md", text)


def _kind(value: Any) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        return f"ndarray {value.dtype} {value.shape}"
    if isinstance(value, enum.Enum):
        return type(value).__name__
    if isinstance(value, dict):
        return "dict: " + ", ".join(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "tuple of tuples of Card"
    if isinstance(value, tuple):
        return "tuple of Card"
    return type(value).__name__


def info_reference() -> None:
    """The info keys as a played round shows them (reset, a step, the settling step)."""
    import gymnasium as gym

    import blackjack_env

    gym.register_envs(blackjack_env)
    found: dict[tuple[bool, str], dict[str, str]] = {}
    for cards_on in (True, False):
        env = gym.make("blackjack_env/Blackjack-v0", info_cards=cards_on)
        # 8-8 against a 6: split, then hit / stand: a reset, play steps and a settling step
        _obs, info = env.reset(seed=0, options={"cards": "8S 6H 8D TC 3C 9H"})
        seen = {k: ("reset", _kind(v)) for k, v in info.items()}
        for action in (3, 1, 0, 0, 0, 0):
            _obs, _reward, term, trunc, info = env.step(action)
            for key, value in info.items():
                when = "settling step" if (
                    key in ("settlement", "round_net", "settled") and (term or trunc)
                ) else "step"
                if key not in seen:
                    seen[key] = (when, _kind(value))
            if term or trunc:
                break
        found[(cards_on, "")] = {k: f"{w}|{t}" for k, (w, t) in seen.items()}
        env.close()
    keys = list(dict.fromkeys([*found[(True, "")], *found[(False, "")]]))
    rows = []
    for key in keys:
        row = [code(key)]
        for cards_on in (True, False):
            got = found[(cards_on, "")].get(key)
            if got is None:
                row.append("-")
            else:
                when, kind = got.split("|", 1)
                row.append(f"from {when}: {kind}")
        rows.append(row)
    text = table(("key", "`info_cards=True` (default)", "`info_cards=False`"), rows)
    write("info-keys.md", text)

    # the batched env's: arrays over the sub-envs (Gymnasium's "_key" masks left out)
    import numpy as np

    from blackjack_env.envs.vector import random_legal_actions

    rows = []
    for label, kwargs in (("one seat, SameStep", {"autoreset_mode": "SameStep"}),
                          ("`seats_per_table=3`", {"seats_per_table": 3})):
        envs = gym.make_vec("blackjack_env/Blackjack-v0", num_envs=6, **kwargs)
        _obs, info = envs.reset(seed=0)
        keys = dict.fromkeys(k for k in info if not k.startswith("_"))
        rng = np.random.default_rng(0)
        for _ in range(8):
            _obs, _r, _t, _tr, step_info = envs.step(random_legal_actions(rng, info["action_mask"]))
            info = step_info
            keys.update(dict.fromkeys(k for k in step_info if not k.startswith("_")))
        envs.close()
        rows.append((label, ", ".join(code(k) for k in keys)))
    write("vector-info-keys.md", table(("batched env", "info keys (reset and steps)"), rows))


def observation_meanings(cls: Any) -> dict[str, dict[str, tuple[str | None, str]]]:
    """``{mode: {field: (index or None, meaning)}}`` from the ``### ``"mode"``````
    subsections of ``cls``'s ``## Observation Space`` (bullets ``* 0..3 ``name``: text``,
    or ``* ``name``: text`` for the dict's keys)."""
    section = docstring_section(cls, "Observation Space")
    out: dict[str, dict[str, tuple[str | None, str]]] = {}
    parts = re.split(r'^### ``"(\w+)"``.*$', section, flags=re.M)
    for mode, body in zip(parts[1::2], parts[2::2], strict=True):
        found: dict[str, tuple[str | None, str]] = {}
        for match in re.finditer(r"^\* (?:(\d+(?:\.\.\d+)?) )?``(\w+)``: (.*?)(?=^\* |^\S|\Z)",
                                 body, re.M | re.S):
            found[match.group(2)] = (match.group(1), " ".join(match.group(3).split()))
        out[mode] = found
    return out


def observation_rows(mode: str, space: Any) -> list[tuple[str, str, str, str]]:
    """``(index, field, range, dtype)`` of each field of ``mode`` in ``space``: names and
    positions from the view module's constants, ranges and dtypes from the space."""
    view = _view_module()
    rows: list[tuple[str, str, str, str]] = []
    if mode == "tuple":
        for name in _constants(view, "TUPLE_"):
            i = getattr(view, name)
            sub = space.spaces[i]
            rows.append((str(i), name[6:].lower(), f"0..{sub.n - 1}", "int"))
    elif mode == "multidiscrete":
        for name in _constants(view, "MD_", skip=("MD_SIZE",)):
            i = getattr(view, name)
            rows.append((str(i), name[3:].lower(), f"0..{int(space.nvec[i]) - 1}",
                         str(space.dtype)))
    elif mode in ("vector", "features"):
        names = _constants(view, "VEC_", skip=("VEC_CARDS_SCALE", "VEC_COUNT_SCALE"))
        if mode == "features":  # the vector's fields as one row, then the one-hots
            names = ["VEC_PHASE", "FEAT_TOTAL", "FEAT_UPCARD", "FEAT_CARDS"]
        starts = sorted((int(getattr(view, n)), n) for n in names)
        size = int(space.shape[0])
        for k, (i, name) in enumerate(starts):
            end = starts[k + 1][0] if k + 1 < len(starts) else size
            where = str(i) if end - i == 1 else f"{i}..{end - 1}"
            low = float(space.low[i:end].min())
            high = float(space.high[i:end].max())
            field = name.split("_", 1)[1].lower()
            if mode == "features" and name == "VEC_PHASE":
                field = "vector"
            rows.append((where, field, f"[{low:g}, {high:g}]", str(space.dtype)))
    else:
        for key in view.DICT_KEYS:
            sub = space.spaces[key]
            rows.append(("", key, _space_range(sub), _space_dtype(sub)))
    return rows


def observation_table(mode: str, space: Any, cls: Any = None) -> str:
    """The fields of ``mode`` as a table: index, field, range, dtype (from the space) and
    the meaning the env's docstring gives each (a field without one stops the build)."""
    if cls is None:
        from blackjack_env.envs import BlackjackEnv as cls
    meanings = observation_meanings(cls).get(mode, {})
    rows = []
    missing = []
    for where, field, values, dtype in observation_rows(mode, space):
        if field not in meanings:
            missing.append(field)
            continue
        index, meaning = meanings[field]
        if (index or "") != where:
            raise BuildError(f"{cls.__name__}'s docstring places the {mode!r} field {field!r} "
                             f"at {index!r}; the view module at {where!r}")
        # the field first: the column a phone keeps in sight while the table scrolls
        rows.append((code(field),) + ((where,) if mode != "dict" else ()) + (
            values, dtype, rst_to_md(meaning)))
    extra = set(meanings) - {r[1] for r in observation_rows(mode, space)}
    if missing or extra:
        raise BuildError(f"{cls.__name__}'s ## Observation Space, mode {mode!r}: fields "
                         f"without a line {missing}, lines of no field {sorted(extra)}")
    header = ("key",) if mode == "dict" else ("field", "index")
    return table((*header, "range", "dtype", "meaning"), rows)


#: What each observation mode is for (the modes themselves come from ``ObsMode``: a mode
#: without its line here stops the build).
MODE_USES = {
    "tuple": "Gymnasium's `Blackjack-v1` layout: tabular learners, one-to-one comparisons. "
             "No bet step, no pre-peek step.",
    "multidiscrete": "tabular learners on the full game (phase, options, hand index, a "
                     "bucketed true count); SB3's MLP policies one-hot it.",
    "vector": "a compact float form: every entry scaled to [0, 1] (the count to [-1, 1]); "
              "learners that build their own features.",
    "features": "neural networks that read the raw numbers (a JAX or torch MLP): the "
                "vector plus one-hot columns of the total, the upcard and the cards in the "
                "hand. The JAX table's default.",
    "dict": "counting and research: the cards by rank (hand, dealer, every seat, unseen), "
            "the true count, bet, bankroll, the mask. `MultiInputPolicy` in SB3.",
}


def observation_reference() -> None:
    """Each mode's fields: names and positions from the view module, ranges from the
    space, meanings from ``BlackjackEnv``'s docstring."""
    import gymnasium as gym

    import blackjack_env
    from blackjack_env.envs import ObsMode

    gym.register_envs(blackjack_env)
    default = inspect.signature(blackjack_env.envs.BlackjackEnv.__init__).parameters[
        "obs_mode"].default
    missing = [m.value for m in ObsMode if m.value not in MODE_USES]
    if missing:
        raise BuildError(f"observation modes without a line in MODE_USES: {missing}")
    rows = []
    for mode in ObsMode:
        env = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode.value)
        name = code(mode.value) + (" (default)" if mode.value == default else "")
        rows.append((name, code(space_text(env.observation_space)), MODE_USES[mode.value]))
        env.close()
    words = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven"}
    write("obs-modes.md", f"{words.get(len(rows), str(len(rows)))} encodings of the same "
          "view, chosen with `obs_mode` (spaces of `Blackjack-v0`'s defaults):\n\n"
          + table(("mode", "space", "use it for"), rows))
    for mode in ObsMode:
        env = gym.make("blackjack_env/Blackjack-v0", obs_mode=mode.value)
        space = env.observation_space
        env.close()
        text = observation_table(mode.value, space)
        text += (f"\nThe whole space (`Blackjack-v0` defaults, `vegas-strip`): "
                 f"`{cell(space_text(space))}`\n")
        write(f"obs-{mode.value}.md", text)


def _view_module() -> Any:
    from blackjack_env.envs import view

    return view


def _constants(module: Any, prefix: str, skip: Sequence[str] = ()) -> list[str]:
    names = [n for n, v in vars(module).items()
             if n.startswith(prefix) and n not in skip and type(v) is int]
    return sorted(names, key=lambda n: getattr(module, n))


def _space_range(space: Any) -> str:
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return f"0..{space.n - 1}"
    if isinstance(space, spaces.MultiBinary):
        return f"0..1, shape {space.shape}"
    if isinstance(space, spaces.Box):
        low, high = float(space.low.min()), float(space.high.max())
        return f"[{low:g}, {high:g}], shape {space.shape}"
    return str(space)


def space_text(space: Any) -> str:
    """A space in a few words: a Box by dtype, shape and bounds, not element by element."""
    from gymnasium import spaces

    if isinstance(space, spaces.Box):
        return (f"Box({space.dtype}, {space.shape}, [{float(space.low.min()):g}, "
                f"{float(space.high.max()):g}])")
    if isinstance(space, spaces.Dict):
        return f"Dict({len(space.spaces)} keys)"
    if isinstance(space, spaces.MultiDiscrete):  # numpy's repr pads with runs of spaces
        return f"MultiDiscrete({space.nvec.tolist()})"
    return str(space)


def _space_dtype(space: Any) -> str:
    return str(space.dtype)


# ---------------------------------------------------------------------------- rules
def _show(value: Any) -> str:
    from fractions import Fraction

    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    if value is None:
        return "None"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return " ".join(str(v) for v in value)
    return str(value)


def rules_reference() -> None:
    import typing

    from blackjack_env.engine import PRESETS, Rules

    hints = typing.get_type_hints(Rules)
    rows = []
    for f in dataclasses.fields(Rules):
        kind = hints.get(f.name)
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            allowed = ", ".join(code(m.value) for m in kind)
        else:
            name = getattr(kind, "__name__", None) or str(kind).replace("typing.", "")
            allowed = " or ".join(code(part.strip()) for part in str(name).split("|"))
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        rows.append((code(f.name), code(_show(default)), allowed))
    write("rules-fields.md", table(("field", "default", "type or values"), rows))

    names = list(PRESETS)
    fields = [f.name for f in dataclasses.fields(Rules)]
    text = "Bold: differs from `Rules()`. Four presets a table, so each fits a page.\n"
    for start in range(0, len(names), 4):
        group = names[start:start + 4]
        rows = []
        for name in fields:
            values = [_show(getattr(PRESETS[p].rules, name)) for p in group]
            default = _show(getattr(Rules(), name))
            shown = [v if v == default else f"**{v}**" for v in values]
            rows.append((code(name), *shown))
        text += "\n" + table(("field", *[code(p) for p in group]), rows)
    write("presets-matrix.md", text)

    edges = _house_edges(names)
    rows = [(code(p), PRESETS[p].summary, edges[p]) for p in names]
    text = table(("preset", "summary", "optimal return, infinite deck (exact)"), rows)
    text += "\n"
    for p in names:
        text += f"\n### `{p}`\n\n{PRESETS[p].summary}.\n\n{rst_to_md(PRESETS[p].details)}\n"
        rules = PRESETS[p].rules
        diff = [f"{n}={_show(getattr(rules, n))}" for n in fields
                if getattr(rules, n) != getattr(Rules(), n)]
        text += f"\nDiffers from `Rules()` in: {', '.join(code(d) for d in diff) or 'nothing'}.\n"
    write("presets.md", text)


def rule_space_reference() -> None:
    """The rule features (index, name, meaning) and the default rule space's axes."""
    from blackjack_env.engine.rulespace import DEFAULT_VERSIONS, default_space
    from blackjack_env.envs.view.fields import RULE_FEATURE_TABLE

    rows = [(i, code(name), meaning, "[0, 1]")
            for i, (name, meaning) in enumerate(RULE_FEATURE_TABLE)]
    write("rule-features.md", table(("index", "feature", "meaning", "range"), rows))
    for version in DEFAULT_VERSIONS:
        space = default_space(version)
        base = space.base.to_dict()
        rows = []
        for name, values in space.axes:
            shown = [space.base.replace(**{name: v}).to_dict()[name] for v in values]
            rows.append((code(name), ", ".join(code(_show_json(v)) for v in shown), len(values)))
        text = table(("axis", "values", "count"), rows)
        fixed = [f"{code(f'{k}={_show_json(v)}')}" for k, v in base.items()
                 if k not in space.axis_names]
        text += (f"\n{space.size:,} rule sets ({' x '.join(str(len(v)) for _, v in space.axes)});"
                 f" {space.size - space.training_size:,} held out (`hold_out={space.hold_out}`),"
                 f" the sampler draws from the other {space.training_size:,}. Every other "
                 f"field as the base: {', '.join(fixed)}.\n")
        write(f"rule-space-{version}.md", text)


def _show_json(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, list):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


def _house_edges(names: Sequence[str]) -> dict[str, str]:
    from blackjack_env.analysis import solve
    from blackjack_env.engine import preset

    out = {}
    for name in names:
        try:
            out[name] = f"{solve(preset(name, decks=None)).expected_return:+.5f}"
        except ValueError as exc:
            out[name] = "n/a: " + str(exc).split(";")[0]
    return out


# ---------------------------------------------------------------------------- pictures
CHART_PRESETS = ("vegas-strip", "downtown-h17", "european-no-hole-card", "sutton-barto")


def figures() -> None:
    import matplotlib

    matplotlib.use("Agg")
    FIG.mkdir(parents=True, exist_ok=True)
    from blackjack_env.analysis import solve
    from blackjack_env.engine import preset

    for name in CHART_PRESETS:
        solution = solve(preset(name, decks=None))
        chart = dataclasses.replace(
            solution.chart, title=f"{name}, infinite deck: optimal play (exact return "
                                  f"{solution.expected_return:+.4f})")
        chart.plot(str(FIG / f"chart-{name}.png"))
    learning_curve_figure()
    removal_figure()
    frame_figure()


def learning_curve_figure() -> None:
    from blackjack_env.agents.plots import learning_curve

    run = json.loads((DATA / "learning-run.json").read_text())
    learning_curve(FIG / "learning-curve.png", run["title"],
                   [tuple(b) for b in run["blocks"]], [tuple(g) for g in run["grades"]],
                   optimal=run["optimal"], xlabel=run.get("xlabel", "rounds played"))


def removal_figure() -> None:
    import matplotlib.pyplot as plt

    data = json.loads((DATA / "effects-of-removal.json").read_text())
    fig, ax = plt.subplots(figsize=(7.0, 3.2))
    for rules_name, colour, shift in zip(data["results"], ("#1f5fbf", "#d08020"),
                                         (-0.2, 0.2), strict=False):
        effects = data["results"][rules_name]
        ranks = [r for r in effects if r in "A23456789T"]
        ax.bar([i + shift for i in range(len(ranks))], [100 * effects[r] for r in ranks],
               width=0.4, color=colour, label=rules_name)
        ax.set_xticks(range(len(ranks)), ["10" if r == "T" else r for r in ranks])
    ax.axhline(0, color="#444", lw=0.8)
    ax.set_xlabel("card removed from a full shoe")
    ax.set_ylabel("change of the optimal return (points of %)")
    ax.set_title("Effects of removal (composition-dependent play; "
                 "blackjack_env.analysis.effects_of_removal)", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    fig.savefig(FIG / "effects-of-removal.png", dpi=100)
    plt.close(fig)


def frame_figure() -> None:
    import gymnasium as gym
    import numpy as np

    try:
        import pygame  # noqa: F401
    except ImportError as exc:
        raise BuildError("the rgb_array picture needs pygame: pip install -e '.[docs]'") from exc
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import matplotlib.pyplot as plt

    env = gym.make("blackjack_env/Blackjack-v0", render_mode="rgb_array", num_seats=3,
                   seat=1, others="basic")
    env.reset(seed=3, options={"cards": "TS 8S 9H 6D 8H 8D 5C TC"})
    env.step(3)  # split the eights
    frame = env.render()
    env.close()
    assert isinstance(frame, np.ndarray) and frame.ndim == 3
    plt.imsave(FIG / "frame.png", frame)


# ---------------------------------------------------------------------------- citation
def citation(cff_path: Path | None = None, repository: str = "") -> tuple[str, str]:
    """``(bibtex, text)``: the BibTeX entry and a one-line citation of the repository's
    ``CITATION.cff`` (the one place the citation is written), with its URL."""
    import yaml

    cff = yaml.safe_load((cff_path or HERE.parent / "CITATION.cff").read_text())
    authors = " and ".join(
        "{" + a["name"] + "}" if "name" in a else f"{a['family-names']}, {a['given-names']}"
        for a in cff["authors"])
    fields = {"author": authors, "title": "{" + cff["title"] + "}",
              "version": cff.get("version"), "license": cff.get("license")}
    date = cff.get("date-released")
    if date:
        fields["year"] = str(date)[:4]
    url = cff.get("repository-code") or cff.get("url") or repository
    if url:
        fields["url"] = url
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    bibtex = f"@software{{blackjack_env,\n{body}\n}}\n"
    names = ", ".join(a.get("name") or f"{a['given-names']} {a['family-names']}"
                      for a in cff["authors"])
    text = (f"{names}. *{cff['title']}*, version {cff.get('version')}"
            + (f", {str(date)[:4]}" if date else "") + (f". {url}" if url else "") + ".\n")
    return bibtex, text


def citation_reference() -> None:
    import re as _re

    text = (HERE.parent / "pyproject.toml").read_text()
    match = _re.search(r'^Repository = "([^"]+)"', text, _re.M)
    bibtex, line = citation(repository=match.group(1) if match else "")
    write("citation.bib", bibtex, note=False)
    write("citation.md", line)
    repo = match.group(1) if match else ""
    folder = repo.rstrip("/").rsplit("/", 1)[-1] or "blackjack_env"
    write("install-lines.md", f"""Python 3.10 or later, in a virtual environment:

```bash
# from a clone of the repository (editable: your changes take effect at once)
git clone {repo}
cd {folder} && pip install -e ".[main]"
# or straight from the repository, without a clone
pip install "blackjack_env[main] @ git+{repo}"
```

It is not on a package index (PyPI) yet; the [extras](install.md#extras) add the
training, JAX, web and multi-agent parts.
""")


# ---------------------------------------------------------------------------- sphinx
def generate(app: Any = None) -> None:
    start = time.perf_counter()
    envs_reference()
    actions_reference()
    info_reference()
    observation_reference()
    rules_reference()
    citation_reference()
    rule_space_reference()
    import bj_envpages
    import bj_figures

    bj_envpages.generate()
    write("published-cd.md", bj_figures.published_table())
    write("counting-figures.md", bj_figures.counting_table())
    write("jax-mixed.md", bj_figures.jax_mixed_table())
    write("one-agent-output.md", bj_figures.one_agent_output())
    write("one-agent.md", bj_figures.one_agent_table())
    for name, output in bj_figures.full_size_outputs().items():
        write(f"full-size/{name}.txt", output, note=False)
    figures()
    took = time.perf_counter() - start
    announce(app, f"bj_reference: references and pictures generated in {took:.1f} s")


def announce(app: Any, message: str) -> None:
    """``message`` in Sphinx's log during a build (``app`` given), else printed (the
    extension run as a script)."""
    if app is not None:
        from sphinx.util import logging

        logging.getLogger(__name__).info(message)
    else:
        print(message)


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    generate()
