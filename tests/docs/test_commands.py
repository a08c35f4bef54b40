"""Every command a page of the site shows is held by a test.

The commands are read from every page's shell blocks (```` ```bash ````, backslash lines
joined, ``&&`` split, comments dropped) and from its inline code that names a command
of this package (```blackjack-...```, ```python scripts/...```, ```python -m
blackjack_env...```). Each must be one of:

* **ours**: the command's ``--help`` (asked in this process) lists every ``--flag`` the
  page gives, so a renamed or dropped option fails here; and each command of a shell
  block (the reproduce commands among them: the pages' figures come from them) is also
  run at a small size (:data:`SMALL`: the page's command with its budget options
  replaced, every flag of the page's kept), or listed in :data:`HELP_ONLY` with the
  reason it is not;
* **outside**: a tool of another project or the set-up (pip, pytest, sphinx, RL Zoo,
  CleanRL), listed in :data:`OUTSIDE` with the test or the CI step that runs it.

A command in none of them fails :func:`test_every_command_is_held`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import runpy
import shlex
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

#: A command of another project or of the set-up: the prefix, and what runs it.
OUTSIDE = {
    "pip install": "the install itself (CI installs every extra)",
    "apt-get install": "the system set-up",
    "python3 -m venv": "the set-up",
    "python -m pytest": "the test run itself (CI)",
    "BLACKJACK_ENV_PURE=1 python -m pytest": "the pure-Python test run (CI)",
    "python -m sphinx": "this site's build (CI builds it with -W -n)",
    "python -m rl_zoo3": "tests/integration/test_rl_zoo.py",
    "python cleanrl/": "tests/integration/test_cleanrl.py",
    "python docs/make_data.py": "tests/docs/test_data.py (slow) recomputes what it writes",
}

#: Reproduce commands run at a small size: the page's command -> (the command run, marker).
#: The marker ``slow`` keeps the JAX compilations out of the default run.
SMALL: dict[str, tuple[str, str | None]] = {
    "blackjack-evaluate counter --rules vegas-strip --hands 1000000 --bet-sizes 1,2,4,8 "
    "--session 100 --out docs/data/counter-1m.json":
        ("blackjack-evaluate counter --rules vegas-strip --hands 300 --bet-sizes 1,2,4,8 "
         "--session 100 --json --out counter-1m.json", None),
    "python scripts/bench_engine.py": ("python scripts/bench_engine.py --hands 300 --repeats 1",
                                       None),
    "python scripts/bench_env.py": ("python scripts/bench_env.py --steps 300 --repeats 1",
                                    None),
    "python scripts/bench_vector.py --seats 3 7":
        ("python scripts/bench_vector.py --seats 3 --tables 42 --seconds 0.05 "
         "--baseline-envs 2", None),
    "python scripts/bench_vector.py --id blackjack_env/BlackjackCounting-v0":
        ("python scripts/bench_vector.py --id blackjack_env/BlackjackCounting-v0 --tables 16 "
         "--seconds 0.05 --baseline-envs 2", None),
    "blackjack-train --algo q-learning --rules sutton-barto --hands 1000000 --out runs/q":
        ("blackjack-train --algo q-learning --rules sutton-barto --hands 2000 --out runs/q",
         None),
    "python scripts/bench_jax.py --rules sutton-barto vegas-strip --policy random chart "
    "--tables 4096 65536":
        ("python scripts/bench_jax.py --rules sutton-barto --policy random --tables 16 "
         "--steps 20 --repeats 1 --numpy-seconds 1", "slow"),
    "blackjack-counter --rules vegas-strip --rounds 100000 --penetration 0.75 --spread 1-8 "
    "--seed 0":
        ("blackjack-counter --rules vegas-strip --rounds 12 --penetration 0.75 --spread 1-8 "
         "--seed 0 --no-progress --store counter.jsonl", None),
    "python scripts/bench_rule_sets.py":
        ("python scripts/bench_rule_sets.py --rule-sets 4 --workers 1", None),
    "blackjack-bench list": ("blackjack-bench list", None),
    "python scripts/jax_ppo_counting.py --seeds 4 --timesteps 20000000 --hands 8000000":
        ("python scripts/jax_ppo_counting.py --seeds 1 --timesteps 4096 --hands 200 "
         "--num-envs 16", "slow"),
}

#: docs/tutorials/one-agent.md's two commands: a generalist trained over the default rule
#: space, then a saved model graded on the space's held-out rule sets.
ONE_AGENT = ("blackjack-train --algo jax-ppo --rule-space v1 --timesteps 8000000",
             "blackjack-evaluate runs/jax-ppo-space-v1/model.npz --rule-sets held-out")

#: docs/counting.md's perfect-counter table: three commands run in one folder, the
#: second and third reading the store of priced rounds the first wrote.
PERFECT_COUNTER = (
    "blackjack-counter --rules vegas-strip --rounds 100000 --penetration 0.75 --spread 1-8 "
    "--seed 0",
    "blackjack-train --algo jax-ppo --rules vegas-strip --bet-sizes 1,2,4,8 --seeds 1 "
    "--timesteps 20000000 --out runs/count",
    "blackjack-evaluate runs/count/model-bets.npz --bet-sizes 1,2,4,8 --session 100 "
    "--hands 1000000 --ceiling 100000",
)

#: Page commands held by their ``--help`` only, and why no small run is needed.
HELP_ONLY = {
    "blackjack-main": "its job is the default run of blackjack-train --algo q-learning "
                      "(run small above) and tests/scripts run it small",
    "python scripts/main.py": "the same command as blackjack-main",
    "blackjack-train --algo maskable-ppo --rules vegas-strip --decks inf --timesteps 2000000":
        "the SB3 tutorial runs the same training small (-m integration)",
    "blackjack-train --algo jax-ppo --rules vegas-strip --decks inf":
        "the JAX PPO tutorial runs the same training small (-m slow)",
    "python -m blackjack_env.agents.jax_seats --seats 3": "tests/jax/test_jax_seats_ppo.py",
    "blackjack-evaluate runs/main": "needs a trained run; tests/scripts evaluate one",
    PERFECT_COUNTER[1]: "run small after the counter, before the evaluation, by "
                        "test_the_perfect_counter_commands_in_one_folder (-m slow)",
    PERFECT_COUNTER[2]: "needs the run above: run small by "
                        "test_the_perfect_counter_commands_in_one_folder (-m slow)",
    "blackjack-chart runs/main": "needs a trained run; tests/scripts chart one",
    "blackjack-train --algo q-learning --rules sutton-barto --hands 200000 --seed 1":
        "the run docs/data/learning-run.json records: python docs/make_data.py learning "
        "makes it, tests/docs/test_data.py (-m slow) makes it again and compares",
    "blackjack-evaluate basic --rules vegas-strip --rule-sets held-out":
        "run whole by tests/agents/test_rule_sets_command.py::"
        "test_the_page_figures_come_from_the_command (-m slow), which compares its table "
        "with the page's",
    ONE_AGENT[0]: "run small, then graded, by test_the_one_agent_commands_in_one_folder "
                  "(-m slow)",
    ONE_AGENT[1]: "needs the run above: run by test_the_one_agent_commands_in_one_folder "
                  "(-m slow)",
    "blackjack-web": "serves until stopped; tests/web start it",
    "blackjack-web --agent runs/main": "serves until stopped; tests/web start it",
    "python scripts/bench_vector.py": "the default of the rows run small above",
    "python scripts/bench_vector.py --tables 8192": "the same benchmark at another size",
    "python scripts/bench_vector.py --rule-space v1": "run small by tests/scripts/"
        "test_scripts_smoke.py::test_bench_vector_times_a_rule_space (-m slow: it builds "
        "the tables of 4,499 rule sets)",
    "blackjack-bench run vegas-play --algo jax-ppo --seeds 5":
        "hours of training; tests/bench run each task end to end at a tiny budget (jax-ppo: "
        "-m slow), and the shipped results file came from it",
    "blackjack-bench run vegas-play --algo ppo --seeds 5":
        "hours of training; tests/bench run ppo end to end at a tiny budget",
    "blackjack-bench report docs/data/bench --out report":
        "tests/bench/test_bench_report.py runs report on docs/data/bench",
    "blackjack-bench table --out results":
        "the whole table (hours); tests/bench run the table on tiny tasks",
    "blackjack-bench table --out results --budgets 1e5":
        "its first stage (minutes); tests/bench run the table on tiny tasks",
    "blackjack-bench grade vegas-play my_policy.py:policy --out docs/data/bench --name my-algo "
    "--budget 1e6": "needs the user's policies; tests/bench/test_bench_run.py submits a row",
    "blackjack-bench grade v1-play ppo-v1-play.zip":
        "needs the zip the tutorial saves; tests/bench grade SB3 zips",
    "blackjack-bench grade v1-play my_policy.py:hit_below_17 --json grades.json":
        "needs the user's file; tests/bench grade callables named FILE.py:NAME",
}

INLINE = re.compile(r"`((?:blackjack-[a-z]+|python scripts/|python -m blackjack_env)[^`]*)`")


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md")
                  if "_build" not in p.parts and "_generated" not in p.parts)


def data_commands() -> list[tuple[str, str]]:
    """``(file, command)`` for each command a run file of ``docs/data`` records (its
    ``command`` entries): the pages show them through the tables the build makes of
    those files."""
    import json

    out: list[tuple[str, str]] = []

    def walk(name: str, value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "command" and isinstance(item, str):
                    out.append((name, " ".join(item.split())))
                else:
                    walk(name, item)
        elif isinstance(value, list):
            for item in value:
                walk(name, item)

    for path in sorted((DOCS / "data").glob("*.json")):
        walk(f"data/{path.name}", json.loads(path.read_text()))
    return out


def page_commands(inline: bool = True) -> list[tuple[str, str]]:
    """``(page, command)`` for every command the pages show (``inline=False``: those of
    the shell blocks and of the run files behind the generated tables only)."""
    out = list(data_commands())
    for page in _pages():
        text = page.read_text()
        name = str(page.relative_to(DOCS))
        for block in re.findall(r"^```(?:bash|shell|sh|console)\n(.*?)^```", text, re.M | re.S):
            for line in block.replace("\\\n", " ").splitlines():
                line = "" if line.lstrip().startswith("#") else line.split(" #")[0]
                for command in line.split("&&"):
                    if command.strip():
                        out.append((name, " ".join(command.split())))
        for span in INLINE.findall(text) if inline else ():
            command = " ".join(span.split())
            if " " in command or command in HELP_ONLY:  # a bare name is no command line
                out.append((name, command))
    return out


def _outside(command: str) -> str | None:
    return next((why for prefix, why in OUTSIDE.items() if command.startswith(prefix)), None)


def _ours(command: str) -> bool:
    return bool(re.match(r"(blackjack-[a-z]+|python scripts/\S+\.py|"
                         r"python -m blackjack_env\S*)( |$)", command))


def run_ours(argv: list[str], cwd: Path) -> str:
    """Run one of our commands in this process; its output (stdout and stderr)."""
    buffer = io.StringIO()
    old_argv, old_path = sys.argv[:], sys.path[:]
    code: object = 0
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        try:
            if argv[0].startswith("blackjack-"):
                (point,) = entry_points(group="console_scripts", name=argv[0])
                code = point.load()(argv[1:])
            elif argv[:2] == ["python", "-m"]:
                sys.argv = [argv[2], *argv[3:]]
                # (as `python -m` does, from its source: a module other tests imported
                # is run afresh, not re-run under its imported name, which runpy warns of)
                imported = sys.modules.pop(argv[2], None)
                try:
                    runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
                finally:
                    if imported is not None:
                        sys.modules[argv[2]] = imported
            else:
                script = ROOT / argv[1]
                sys.argv = [str(script), *argv[2:]]
                sys.path.insert(0, str(script.parent))
                runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.argv[:] = old_argv
            sys.path[:] = old_path
    out = buffer.getvalue()
    assert code in (0, None), f"{' '.join(argv)} exited with {code}:\n{out[-2000:]}"
    return out


def _needs(command: str) -> list[str]:
    heavy = {"jax": ("bench_jax", "jax_ppo", "jax-ppo", "jax_seats"),
             "sb3_contrib": ("maskable-ppo",)}
    return [m for m, words in heavy.items() if any(w in command for w in words)]


def test_every_command_is_held() -> None:
    """A shell block's command is run small, held by its --help with a reason, or
    outside; a command named in the text is ours (its flags checked below) or outside."""
    loose = [(page, c) for page, c in page_commands(inline=False)
             if not _outside(c) and c not in SMALL and c not in HELP_ONLY]
    loose += [(page, c) for page, c in page_commands() if not _outside(c) and not _ours(c)]
    assert not loose, (
        "commands on the pages that no test holds (add them to SMALL or HELP_ONLY in "
        f"tests/docs/test_commands.py): {loose}")
    shown = {c for _, c in page_commands()}
    stale = [c for c in [*SMALL, *HELP_ONLY] if c not in shown]
    assert not stale, f"SMALL / HELP_ONLY name commands no page shows any more: {stale}"


def _our_commands() -> list[str]:
    return sorted({c for _, c in page_commands() if _ours(c)})


@pytest.mark.parametrize("command", _our_commands())
def test_the_flags_a_page_gives_exist(command: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for module in _needs(command):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}")
    argv = shlex.split(command)
    program = argv[:3] if argv[:2] == ["python", "-m"] else argv[:2] if argv[0] == "python" \
        else argv[:2] if argv[0] == "blackjack-bench" else argv[:1]  # (its subcommand's)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    help_text = run_ours([*program, "--help"], tmp_path)
    flags = {f.split("=")[0] for f in argv[len(program):] if f.startswith("--")}
    missing = sorted(f for f in flags if not re.search(rf"{re.escape(f)}\b", help_text))
    assert not missing, f"{command}: --help does not list {missing}"


def _small_params() -> list[object]:
    out = []
    for page_command, (small, marker) in SMALL.items():
        marks = [getattr(pytest.mark, marker)] if marker else []
        out.append(pytest.param(page_command, small, id=page_command.split(" --")[0],
                                marks=marks))
    return out


@pytest.mark.parametrize(("page_command", "small"), _small_params())
def test_reproduce_commands_run_small(page_command: str, small: str, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for module in _needs(small):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module}")
    page_flags = {f for f in shlex.split(page_command) if f.startswith("--")}
    small_flags = {f for f in shlex.split(small) if f.startswith("--")}
    assert page_flags <= small_flags, (
        f"the small run drops flags of the page's command: {sorted(page_flags - small_flags)}")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    out = run_ours(shlex.split(small), tmp_path)
    assert out.strip(), f"{small} printed nothing"


def test_the_counting_command_bets_by_the_count(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's counting command must spread its bets (without ``--bet-sizes`` the
    counter bets flat): on the same seed and rounds, the spread's per-round returns
    vary far more (bets of 1 to 8) than the flat counter's."""
    import json

    monkeypatch.chdir(tmp_path)
    base = "blackjack-evaluate counter --rules vegas-strip --hands 2000 --json --out {}"
    spread = base.format("spread.json") + " --bet-sizes 1,2,4,8 --session 100"
    run_ours(shlex.split(spread), tmp_path)
    run_ours(shlex.split(base.format("flat.json")), tmp_path)
    spread_sd = json.loads((tmp_path / "spread.json").read_text())["simulation"]["sd"]
    flat_sd = json.loads((tmp_path / "flat.json").read_text())["simulation"]["sd"]
    figures = json.loads((DOCS / "data" / "counting-figures.json").read_text())
    assert "--bet-sizes 1,2,4,8 --session 100" in figures["command_row"]["command"]
    assert flat_sd < 1.4 < 1.5 * flat_sd < spread_sd


def test_every_code_block_is_of_a_kind_a_test_walks() -> None:
    """A page's code blocks are shell commands (walked above), text (a layout or an
    output, nothing to run), or MyST directives (``{literalinclude}`` of an example that
    ``test_examples.py`` runs, ``{include}``, ``{eval-rst}``, ``{toctree}``, ``{raw}``):
    a block of another language (Python typed into a page) would be untested."""
    allowed = {"bash", "text"}
    directives = {"literalinclude", "include", "eval-rst", "toctree", "raw", "glossary"}
    odd = []
    for page in _pages():
        fence = None
        for line in page.read_text().splitlines():
            if fence is None and line.startswith("```"):
                fence = line[3:].strip()
                name = fence[1:].split("}")[0] if fence.startswith("{") else None
                if (name not in directives) if name is not None else (fence not in allowed):
                    odd.append(f"{page.relative_to(DOCS)}: {line}")
            elif fence is not None and line.startswith("```"):
                fence = None
    assert not odd, f"code blocks no test walks: {odd}"


@pytest.mark.slow  # the JAX PPO's compilation: 15-30 s
def test_the_perfect_counter_commands_in_one_folder(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/counting.md's three commands, in order in one folder, at a small size (24
    rounds, a few thousand training steps, 300 simulated rounds): the evaluation grades
    the trained policy's bets on the rounds the counter priced, pricing none again."""
    import json

    pytest.importorskip("jax")
    monkeypatch.chdir(tmp_path)
    counter_cmd, train_cmd, evaluate_cmd = (shlex.split(c) for c in PERFECT_COUNTER)

    def sized(argv: list[str], **values: str) -> list[str]:
        argv = list(argv)
        for flag, value in values.items():
            argv[argv.index("--" + flag.replace("_", "-")) + 1] = value
        return argv

    run_ours([*sized(counter_cmd, rounds="24"), "--no-progress"], tmp_path)
    (store,) = tmp_path.glob("counter-*.jsonl")
    priced = store.read_bytes()
    assert len(priced.splitlines()) == 1 + 24
    run_ours([*sized(train_cmd, timesteps="2048"), "--n-envs", "16", "--n-steps", "8",
              "--curve-points", "2", "--no-progress"], tmp_path)
    assert (tmp_path / "runs" / "count" / "model-bets.npz").is_file()
    run_ours([*sized(evaluate_cmd, hands="300", ceiling="24"), "--out", "e.json"], tmp_path)
    assert store.read_bytes() == priced  # the evaluation priced nothing again
    result = json.loads((tmp_path / "e.json").read_text())
    names = [row["name"] for row in result["ceiling"]["rows"]]
    assert result["ceiling"]["rounds"] == 24 and len(names) == 7
    assert "model-bets.npz: bets graded by the exact edge, CD play" in names


@pytest.mark.slow  # the rule bank of 4,499 rule sets, the JAX PPO's compilation, 2 gradings
def test_the_one_agent_commands_in_one_folder(tmp_path: Path) -> None:
    """docs/tutorials/one-agent.md's two commands in one folder, the training at a small
    size: it writes the model the second command reads, and both grade the same model
    on the same 256 held-out rule sets, to the same figures."""
    import json

    pytest.importorskip("jax")
    train_cmd, evaluate_cmd = (shlex.split(c) for c in ONE_AGENT)
    train_cmd[train_cmd.index("--timesteps") + 1] = "2048"
    run_ours([*train_cmd, "--seeds", "1", "--n-envs", "16", "--n-steps", "8",
              "--curve-points", "2", "--no-progress"], tmp_path)
    run = tmp_path / "runs" / "jax-ppo-space-v1"
    assert (run / "model.npz").is_file()
    held = json.loads((run / "held-out.json").read_text())
    run_ours([*evaluate_cmd, "--out", "e.json"], tmp_path)
    graded = json.loads((tmp_path / "e.json").read_text())
    assert held["n_rule_sets"] == graded["n_rule_sets"] == 256
    for key in ("mean_regret", "median_regret", "mean_exact_return"):
        assert graded[key] == pytest.approx(held[key], abs=1e-9), key
