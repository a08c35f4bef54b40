"""Every generated env page says what its id does (issue 39, items 1, 5, 8 and 14).

The generator (``docs/_ext/bj_envpages.py``) runs here with its writes captured, and
each page's summary box, arguments table, observation fields, rewards, starting state,
episode end and version history are compared with the id's own spec: the env
``gym.make`` builds, its settings, the signature of its class, and what a played episode
does. A page built from another id's text (``BlackjackSuttonBarto-v0`` once showed
``Blackjack-v0``'s defaults, 3:2 naturals, doubles and a SETTLED phase it does not have)
fails here.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import blackjack_env
from blackjack_env.engine.rules import DoubleRule, Surrender

DOCS = Path(__file__).resolve().parents[2] / "docs"
gym.register_envs(blackjack_env)


def _ext(name: str) -> Any:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    """The generated env-page parts, by name (``blackjack-summary``, ...)."""
    pytest.importorskip("pettingzoo")
    envpages = _ext("bj_envpages")
    reference = _ext("bj_reference")
    written: dict[str, str] = {}

    def capture(name: str, text: str, note: bool = True) -> None:
        written[name.removeprefix("envs/").removesuffix(".md")] = text

    patch = pytest.MonkeyPatch()
    patch.setattr(envpages, "_write", capture)
    patch.setattr(reference, "write", capture)
    try:
        envpages.single_env_pages()
        envpages.vector_page()
        envpages.multiagent_pages()
        envpages.jax_pages()  # (placeholders without JAX)
    finally:
        patch.undo()
    return written


def summary_rows(text: str) -> dict[str, str]:
    rows = re.findall(r"^\| ([^|]+?) \| (.+) \|$", text, re.M)
    return {k.strip(): v.strip() for k, v in rows if k.strip()}


def argument_rows(text: str) -> dict[str, tuple[str, str]]:
    """``{name: (default cell, meaning)}`` of a generated arguments table, in order."""
    out: dict[str, tuple[str, str]] = {}
    for match in re.finditer(r"^\* - \*\*`(\w+)`\*\*\n(.*?)(?=^\* - |^```)", text, re.M | re.S):
        body = match.group(2)
        default = re.search(r"^    (required|default .*)$", body, re.M)
        meaning = re.search(r"^  - (.*)$", body, re.M)
        assert default and meaning, match.group(0)
        out[match.group(1)] = (default.group(1), meaning.group(1))
    return out


def code(value: Any) -> str:
    return f"`{value}`"


SINGLE = _ext("bj_envpages").SINGLE_IDS


@pytest.mark.parametrize(("slug", "env_id"), SINGLE.items())
def test_each_id_page_shows_its_own_spaces_and_defaults(pages, slug: str, env_id: str) -> None:
    from blackjack_env.envs import BlackjackEnv

    space_text = _ext("bj_reference").space_text
    env = gym.make(env_id)
    fixed = blackjack_env.ENV_IDS[env_id]
    settings = env.unwrapped.settings
    rows = summary_rows(pages[f"{slug}-summary"])
    assert rows["Import"] == code(f'gym.make("{env_id}")')
    assert rows["Action Space"] == code(env.action_space)
    assert rows["Observation Space"] == code(space_text(env.observation_space))
    assert rows["Observation mode"] == code(repr(settings.obs_mode.value))
    args = argument_rows(pages[f"{slug}-args"])
    params = [n for n, p in inspect.signature(BlackjackEnv.__init__).parameters.items()
              if n != "self" and p.kind is not p.VAR_KEYWORD]
    assert list(args) == params
    for name in params:
        default, meaning = args[name]
        if name in fixed:
            assert default == f"default `{fixed[name]!r}` (this id)"
            assert "(default" not in meaning and ", default)" not in meaning, (name, meaning)
        else:
            param = inspect.signature(BlackjackEnv.__init__).parameters[name]
            assert default.startswith("default ") and (
                repr(getattr(param.default, "value", param.default)) in default
                or "(the rules')" in default), (name, default)
    # one default per argument: no meaning names another default than the cell's
    assert sum("default" in meaning for _, meaning in args.values()) <= len(params) - len(
        fixed)
    # the observation fields: every field of the id's own mode, with its meaning
    obs = pages[f"{slug}-obs"]
    assert f"The `{settings.obs_mode.value}` mode" in obs
    assert obs.count("\n| ") >= 3 and "meaning" in obs
    env.close()


def _observed(env_id: str, episodes: int) -> dict[str, Any]:
    """What random legal play of ``env_id`` shows: the rewards of settled rounds, whether
    a round ever waited at a SETTLED observation (a round with no decision), the rounds
    of each episode and whether it was truncated."""
    env = gym.make(env_id)
    rng = np.random.default_rng(0)
    rewards: set[float] = set()
    no_decision = False
    rounds: list[int] = []
    truncated: list[bool] = []
    _obs, info = env.reset(seed=0)
    no_decision |= info["phase"].name == "SETTLED"
    n = 0
    bet_settles = False
    while len(rounds) < episodes:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        at_bet = info["phase"].name == "BET"
        _obs, reward, term, trunc, info = env.step(action)
        if info.get("settlement") is not None:
            n += 1
            rewards.add(round(float(reward), 6))
            bet_settles |= at_bet
        if term or trunc:
            rounds.append(n)
            truncated.append(bool(trunc))
            n = 0
            _obs, info = env.reset()
            no_decision |= info["phase"].name == "SETTLED"
        else:
            no_decision |= info["phase"].name == "SETTLED"
    env.close()
    return {"rewards": rewards, "no_decision": no_decision, "rounds": rounds,
            "truncated": truncated, "bet_settles": bet_settles}


@pytest.mark.parametrize(("slug", "env_id"), SINGLE.items())
def test_each_id_page_says_what_its_rounds_pay_and_how_its_episodes_end(
        pages, slug: str, env_id: str) -> None:
    env = gym.make(env_id)
    settings = env.unwrapped.settings
    rules = settings.rules
    env.close()
    rewards = pages[f"{slug}-rewards"]
    assert ("double" in rewards) == (rules.double is not DoubleRule.NEVER)
    assert ("surrender" in rewards) == (rules.surrender is not Surrender.NONE)
    assert ("after a split" in rewards) == (rules.max_split_hands > 1)
    payout = rules.blackjack_payout
    assert f"a natural ({payout.numerator}:{payout.denominator})" in rewards
    seen = _observed(env_id, episodes=12 if settings.rounds_per_episode > 1 else 600)
    sizes = max(settings.bet_sizes or (1,))
    biggest = 2 * rules.max_split_hands * sizes  # every split hand doubled
    assert all(abs(r) <= biggest for r in seen["rewards"])
    if not (rules.double is not DoubleRule.NEVER or rules.max_split_hands > 1 or
            settings.bet_sizes):
        assert seen["rewards"] <= {-1.0, 0.0, 1.0, float(payout)}, seen["rewards"]
    # the rounds without a decision (a SETTLED observation to step past): said where
    # play shows them, and only there
    assert ("SETTLED" in rewards) == seen["no_decision"], (slug, seen["no_decision"])
    assert ("settled on the BET step" in rewards) == seen["bet_settles"], slug
    end = pages[f"{slug}-episode-end"]
    if settings.rounds_per_episode == 1:
        assert "An episode is one round" in end and set(seen["rounds"]) == {1}
    else:
        limit = settings.rounds_per_episode
        assert f"session of {limit} rounds" in end and "reshuffled" in end
        assert set(seen["rounds"]) == {limit} and all(seen["truncated"])
    start = pages[f"{slug}-starting-state"]
    assert ("BET step" in start) == bool(settings.bet_sizes)
    assert ("infinite deck" in start.lower()) == (rules.decks is None)


def test_only_rounds_that_can_end_without_a_decision_are_said_to() -> None:
    """The rewards text of an id speaks of SETTLED rounds without a decision only where
    its rules make them: Blackjack-v0 shows such a round (a natural, or the peek), the
    Sutton-Barto id (no peek, a natural plays on) never does."""
    def opens_settled(env_id: str, resets: int) -> bool:
        env = gym.make(env_id)
        for seed in range(resets):
            _obs, info = env.reset(seed=seed)
            if info["phase"].name == "SETTLED":
                return True
        return False

    assert opens_settled("blackjack_env/Blackjack-v0", 400)
    assert not opens_settled("blackjack_env/BlackjackSuttonBarto-v0", 400)


def test_a_session_reshuffles_the_shoe_within_it(pages) -> None:
    """Item 7: a BlackjackCounting-v0 session is not "100 rounds from one shoe": seed 0's
    first session reshuffles the shoe at the cut card; the page says so."""
    env = gym.make("blackjack_env/BlackjackCounting-v0")
    _obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    reshuffles, done = 0, False
    while not done:
        _obs, _r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(
            info["action_mask"]))))
        if info["phase"].name == "BET" and info["reshuffled"]:
            reshuffles += 1
        done = term or trunc
    assert reshuffles >= 1
    assert "reshuffled" in pages["counting-env-episode-end"]
    for page in ("counting.md", "envs/counting-env.md", "tutorials/counting.md"):
        assert not re.search(r"from one (?:6-deck )?shoe", (DOCS / page).read_text()), page


def test_each_id_page_has_its_own_version_history(pages) -> None:
    vector = pages["vector-obs-versions"]
    assert "BlackjackVector-v0" in vector and "features" in vector
    for slug in ("blackjack", "sutton-barto", "counting-env"):
        assert "BlackjackVector-v0" not in pages[f"{slug}-versions"]
        assert "features" in pages[f"{slug}-versions"]


def test_the_batched_page_lists_each_argument_once_and_only_those_it_takes(pages) -> None:
    """Item 8: ``autoreset_mode`` names every mode (``Disabled`` was left out),
    ``seats_per_table`` is listed once, and the single env's arguments the batched env
    refuses are said apart, each refused indeed."""
    from gymnasium.vector import AutoresetMode

    from blackjack_env.envs import BlackjackEnv
    from blackjack_env.envs.vector import BlackjackVectorEnv

    refused = _ext("bj_envpages").VECTOR_REFUSED
    text = pages["make-vec-args"]
    args = argument_rows(text)
    names = re.findall(r"^\* - \*\*`(\w+)`\*\*", text, re.M)
    assert len(names) == len(set(names))
    own = [n for n, p in inspect.signature(BlackjackVectorEnv.__init__).parameters.items()
           if n != "self" and p.kind is not p.VAR_KEYWORD]
    single = [n for n in inspect.signature(BlackjackEnv.__init__).parameters if n != "self"]
    assert set(names) == set(own) | (set(single) - set(refused))
    for mode in AutoresetMode:
        assert f"`{mode.value}`" in args["autoreset_mode"][1]
    for name in refused:
        assert name not in names and f"`{name}`" in text.split("```")[-1]
    for bad in ({"num_seats": 2}, {"seat": 1}, {"render_mode": "ansi"},
                {"others": ["basic"]}):
        with pytest.raises(ValueError):
            gym.make_vec("blackjack_env/Blackjack-v0", num_envs=2, **bad)


def test_the_multiagent_pages_show_the_tables_signature(pages) -> None:
    from blackjack_env.envs import multiagent

    params = {n: p for n, p in inspect.signature(multiagent.BlackjackAECEnv.__init__)
              .parameters.items() if n != "self" and p.kind is not p.VAR_KEYWORD}
    for page in ("aec-args", "parallel-args"):
        args = argument_rows(pages[page])
        assert list(args) == list(params)
    aec = multiagent.env(num_seats=3)
    aec.reset(seed=0)
    rows = summary_rows(pages["aec-summary"])
    assert rows["Agents"] == code(", ".join(aec.agents))
    assert rows["Action Space (each)"] == code(aec.action_space(aec.agents[0]))


def test_the_jax_pages_show_the_tables_defaults(pages) -> None:
    """Item 1: the JAX summary gave the default observation as ``"vector"`` float32
    (17,); it is read from the env: ``features`` (73,)."""
    pytest.importorskip("jax")
    import jax

    from blackjack_env.jax import BlackjackJax

    env = BlackjackJax(rules="vegas-strip")
    obs, _state = env.reset(jax.random.PRNGKey(0), env.default_params)
    rows = summary_rows(pages["jax-summary"])
    assert rows["Observation"] == (
        code(f'"{env.obs_mode}": {np.dtype(obs.dtype).name} {tuple(obs.shape)}')
        + " by default")
    assert env.obs_mode == inspect.signature(BlackjackJax.__init__).parameters[
        "obs_mode"].default
    assert rows["Actions"] == code(f"{env.num_actions} (Discrete)")
    args = argument_rows(pages["jax-args"])
    params = [n for n, p in inspect.signature(BlackjackJax.__init__).parameters.items()
              if n != "self" and p.kind is not p.VAR_KEYWORD]
    assert list(args) == params
    assert args["obs_mode"][0] == "default `'features'`"


def test_the_jax_description_says_which_step_gives_the_final_observation(pages) -> None:
    """Item 2: the page said ``step`` returns ``info["final_observation"]``; only
    ``step_full`` and ``gymnax_v1``'s step do (``step``'s info is lean)."""
    pytest.importorskip("jax")
    import jax

    from blackjack_env.jax import BlackjackJax
    from blackjack_env.jax.gymnax import LEAN_INFO

    text = pages["jax-rewards"]
    assert "step_full" in text and "lean" in text
    env = BlackjackJax(rules="vegas-strip")  # (the JAX tests' default table: compiled once)
    params = env.default_params
    key = jax.random.PRNGKey(0)
    _obs, state = env.reset(key, params)
    *_, info = env.step(key, state, jax.numpy.int32(0), params)
    assert "final_observation" not in info and set(info) <= {*LEAN_INFO, "active"}
    *_, full = env.step_full(key, state, jax.numpy.int32(0), params)
    assert "final_observation" in full
