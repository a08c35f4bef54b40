"""Settings every test run shares (the rest of the pytest configuration is in
pyproject.toml's ``[tool.pytest.ini_options]``).

**A persistent JAX compilation cache.** Every jitted function the tests (and the
commands they start in subprocesses) compile is stored under the user's cache folder,
``~/.cache/blackjack_env/tests/jax-compilation/`` (``$XDG_CACHE_HOME`` when set), whatever
its compile time, and read back by the next process that compiles the same program: the
other xdist worker, a test's subprocess, the next run, and the next clone of the
repository on the same machine (a CI runner's fresh clone: most of the JAX tests' time
is compiling, and an unchanged program is then not compiled again). An entry is keyed by
the program (without its source locations), the jax version, the backend and the XLA
flags, so it is reused only for the same program; deleting the folder only costs the
compilations again. It holds at most :data:`JAX_CACHE_BYTES` (least recently used
entries go first). A ``JAX_COMPILATION_CACHE_DIR`` already set in the environment is used
instead, and ``JAX_COMPILATION_CACHE_DIR=`` (empty) turns the cache off (a cold run).

**XLA's CPU backend set for compiling fast** (``XLA_FLAGS``, for this process and the
commands the tests start; a flag that ``XLA_FLAGS`` already names is left as it is).
Compiling the JAX table is most of what its tests cost: one compilation per shape and
entry point (1-6 CPU-s each), against milliseconds of play. Two flags
(:data:`XLA_TEST_FLAGS`), neither of which changes the program's arithmetic (the same
HLO, no fast-math; ``scripts/jax_fingerprint.py --compare`` is identical under them):

- ``--xla_backend_optimization_level=0`` skips LLVM's optimisation of the machine code:
  measured on ``tests/jax`` in one process, XLA compile time 219 -> 150 s and the run
  283 -> 212 s, the JAX PPO tests unchanged (32 -> 35 s wall, 38 -> 35 CPU-s);
- ``--xla_cpu_use_fusion_emitters=false`` emits XLA's fused kernels the older way, which
  compiles about three times faster here: the vegas-strip table's reset and step 4.7 ->
  1.5 CPU-s, a batch of 256 of them 5.0 -> 2.1 CPU-s (jax 0.10.2, 2026-12-03), playing
  as fast.

The benchmarks (``scripts/bench_jax.py``) and users run at XLA's defaults.

**The pure-Python pass** (``pytest --pure-pass``, with ``BLACKJACK_ENV_PURE=1``): CI and
the README's test command run the tests twice, first on the build as installed (the
modules of ``blackjack_env/_native.py``'s ``KNOWN`` compiled by mypyc), then on the
pure-Python source. The two differ only inside those modules, so the second pass runs
the tests that exercise them and leaves out the tests marked ``build_neutral``: every
test in the folders and files of :data:`BUILD_NEUTRAL` (a new test there is marked too;
they are not even imported), and any test that carries the marker itself. Every test
runs in the first pass. Without ``--pure-pass`` nothing is left out, so
``BLACKJACK_ENV_PURE=1 python -m pytest tests/web`` runs the web tests on the source.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Where the tests' compiled JAX programs are kept between processes, runs and clones.
JAX_CACHE_DIR = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "blackjack_env" / "tests" / "jax-compilation"
)
#: The cache's size limit (least recently used entries are evicted past it).
JAX_CACHE_BYTES = 1 << 30

#: Test folders and files (relative to the repository root) whose tests cannot tell the
#: compiled build from the pure-Python source, each with the reason: their tests carry the
#: marker ``build_neutral`` and run in the first pass only. What they exercise of the
#: compiled modules, the tests that stay in both passes exercise too. A path is added here
#: only with its reason; a new test file elsewhere runs in both passes.
BUILD_NEUTRAL: dict[str, str] = {
    "tests/jax": "the JAX table runs its rounds in blackjack_env/jax; the compiled modules "
    "only build its tables, through the numpy env that tests/envs checks in both passes",
    "tests/agents/test_agents_jax_ppo.py": "the JAX PPO learner, on the JAX table",
    "tests/agents/test_agents_jax_ppo_bets.py": "the JAX PPO learner's bets, on the JAX table",
    "tests/web": "the web app's HTTP, session and page layer; the rounds it deals are the "
    "engine's, which tests/engine plays card by card in both passes",
    "tests/scripts": "the commands' options, messages, files and exit codes; the envs and "
    "the engine they drive are tested in both passes",
    "tests/docs": "the site's pages and examples; each name they call is tested where it "
    "is defined, in both passes",
    "tests/integration": "third-party RL tools (their own run in .ci/run, once)",
    "tests/bench": "the benchmark's tasks, runs, grades and report: learners and graders "
    "that act through the envs' public API and the analysis's functions, which tests/envs "
    "and tests/analysis check in both passes",
    "tests/agents": "the agents act through the envs' public API (reset, step, masks) and "
    "the analysis's functions; the single env they drive is compared step by step with "
    "its source in tests/envs/test_compiled.py, and the envs and the analysis are tested "
    "in both passes",
    "tests/analysis/test_composition_kernels.py": "numba's kernels of composition_return "
    "against the analysis's own Python path, both on one build; the engine functions they "
    "read are checked in both passes by tests/analysis's other files",
    "tests/analysis/test_finite.py": "the finite-shoe analysis is arithmetic over the "
    "rules' legal actions and payouts, which tests/engine checks in both passes; where the "
    "analysis meets the engine's play (test_engine_agreement, test_composition_sim, "
    "test_strategy, test_counter) it runs in both passes",
    "tests/analysis/test_infinite.py": "the infinite-deck analysis, as test_finite.py",
    "tests/analysis/test_dealer.py": "the dealer's exact outcome probabilities, as "
    "test_finite.py",
    "tests/analysis/test_decision_states.py": "the analysis's decision states, as "
    "test_finite.py",
    "tests/analysis/test_script.py": "the blackjack-analyze command's options and output, "
    "as tests/scripts",
    "tests/analysis/test_gymnasium.py": "the infinite-deck optimum (as test_infinite.py) "
    "against Gymnasium's own Blackjack-v1, which runs none of this package's modules",
    "tests/envs/test_training.py": "stable-baselines3 and sb3-contrib train through the "
    "single env's public API, which tests/envs/test_compiled.py compares step by step "
    "with its source",
    "tests/envs/test_vector_sb3.py": "stable-baselines3 on the batched env through its "
    "public API; what the batched env runs of the compiled modules (engine.play's array "
    "rules, the rule tables) tests/envs's batch and vector tests run in both passes",
    "tests/test_dead_code.py": "a static reading of the sources (nothing is run)",
    "tests/test_simulate.py": "the evaluation loop and its worker processes, over the env "
    "API that tests/envs checks in both passes",
}


def _jax_cache_settings() -> dict[str, str]:
    """The JAX settings (environment variables, read when jax is imported) that turn the
    persistent compilation cache on, or nothing where the user chose a folder, turned it
    off, or ``filelock`` is missing (jax needs it to share a size-limited cache safely
    between processes: without the lock a reader can see an entry half written)."""
    if "JAX_COMPILATION_CACHE_DIR" in os.environ or importlib.util.find_spec("filelock") is None:
        return {}
    return {
        "JAX_COMPILATION_CACHE_DIR": str(JAX_CACHE_DIR),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
        "JAX_COMPILATION_CACHE_MAX_SIZE": str(JAX_CACHE_BYTES),
    }


def _use_jax_cache() -> None:
    """Sets the cache up for this process and the processes it starts (the environment),
    and in jax itself when a plugin imported it before this file."""
    settings = _jax_cache_settings()
    os.environ.update(settings)
    if settings and "jax" in sys.modules:
        config = sys.modules["jax"].config
        config.update("jax_compilation_cache_dir", settings["JAX_COMPILATION_CACHE_DIR"])
        config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        config.update("jax_compilation_cache_max_size", JAX_CACHE_BYTES)


_use_jax_cache()

#: Where the tests keep numba's compiled kernels, beside the JAX programs: in a folder
#: named after the source's folder (:func:`_use_numba_cache`).
NUMBA_CACHE_DIR = JAX_CACHE_DIR.parent / "numba"
#: The package's numba kernels (``cache=True``): the composition analysis's, and the
#: batched tables' draw loops.
NUMBA_KERNELS = (
    ROOT / "blackjack_env" / "analysis" / "kernels.py",
    ROOT / "blackjack_env" / "envs" / "batch" / "kernels.py",
)


def _use_numba_cache() -> None:
    """numba keeps the kernels of :data:`NUMBA_KERNELS` (``cache=True``) in the
    ``__pycache__`` beside their source, which a fresh clone does not have: each clone
    compiled all of them again, 38-48 CPU-s measured (2026-12-03), in the test processes
    and again in the commands they start. Here numba's own setting ``NUMBA_CACHE_DIR``
    (for this process and every process it starts) points them all at
    :data:`NUMBA_CACHE_DIR`, where numba files a source folder's kernels under a name
    made from the folder's path (``UserProvidedCacheLocator``); each such name is made a
    link to one folder named after the source's folder alone, so the next clone on the
    machine reads them back. numba checks an entry against the SHA-256 of its source file
    (numba 0.68's source stamp), so an edited kernel is compiled again, never read stale.
    Done before numba is imported (it reads the setting then). A ``NUMBA_CACHE_DIR``
    already set (by the user, or by the pytest process that started this one) is left as
    it is, and a numba without that locator keeps the clone's folder (only colder)."""
    if os.environ.get("NUMBA_CACHE_DIR") or "numba" in sys.modules \
            or importlib.util.find_spec("numba") is None:
        return
    from numba.core import caching, config

    locator = getattr(caching, "UserProvidedCacheLocator", None)
    if locator is None or not hasattr(locator, "get_suitable_cache_subpath"):
        return
    by_path = NUMBA_CACHE_DIR / "by-path"
    for kernels in NUMBA_KERNELS:
        shared = NUMBA_CACHE_DIR / kernels.parent.name
        link = by_path / locator.get_suitable_cache_subpath(str(kernels))
        shared.mkdir(parents=True, exist_ok=True)
        by_path.mkdir(exist_ok=True)
        # made already by an earlier run of this clone, or by the other pass running beside
        with contextlib.suppress(FileExistsError):
            link.symlink_to(shared, target_is_directory=True)
    os.environ["NUMBA_CACHE_DIR"] = str(by_path)
    # this process read its settings on import (numba's config module sets its names at
    # run time: setattr, which mypy cannot check)
    setattr(config, "CACHE_DIR", str(by_path))  # noqa: B010


_use_numba_cache()

#: Where stable-baselines3's default logger points, for the tests and the commands they
#: start (``SB3_LOGDIR``, SB3's own setting; one that is set already is kept): the tests
#: that train SB3 models directly, as a user's script does, get a logger with nothing to
#: write that still made an empty ``SB3-<time>`` folder in the temp dir at every
#: ``learn()`` (60-odd a CI run); they now share this one folder.
SB3_LOG_DIR = JAX_CACHE_DIR.parent / "sb3-logs"
os.environ.setdefault("SB3_LOGDIR", str(SB3_LOG_DIR))

#: the XLA flags of the tests' compilations, by name (see above)
XLA_TEST_FLAGS = {
    "xla_backend_optimization_level": "0",
    "xla_cpu_use_fusion_emitters": "false",
}


def _use_xla_test_flags() -> None:
    flags = os.environ.get("XLA_FLAGS", "")
    added = [f"--{name}={value}" for name, value in XLA_TEST_FLAGS.items() if name not in flags]
    os.environ["XLA_FLAGS"] = " ".join([flags, *added]).strip()


_use_xla_test_flags()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--pure-pass", action="store_true",
        help="CI's second pass, on the pure-Python source (needs BLACKJACK_ENV_PURE=1): "
        "leave out the tests marked build_neutral (tests/conftest.py)")  # fmt: skip
    parser.addoption(
        "--programs-log", metavar="FILE", default=None,
        help="append to FILE one line per JAX program written to the compilation cache, "
        "with the test that wrote it (tests/conftest.py: how to count programs)")  # fmt: skip


# **Counting the compiled programs** (issue 38's measure of what the JAX tests compile):
# with ``--programs-log FILE`` each test appends ``test id <TAB> cache entry`` for every
# program it adds to the compilation cache (its jitted function's name, e.g. ``jit_step``,
# begins the entry's name). Run it serially on an empty cache, so that every program is
# compiled once and named by the first test that needs it::
#
#     XDG_CACHE_HOME=$(mktemp -d) python -m pytest -n 0 --programs-log programs.tsv \
#         tests/jax tests/agents tests/envs/test_field_edit.py tests/scripts/test_jax_scripts.py
#     cut -f2 programs.tsv | cut -d- -f1 | sort | uniq -c      # every program, by name
#
# Every line is one XLA compilation (``wc -l``). The table's programs are those of seven
# names (``jit_step``, ``jit_reset``, ``jit_masks``, ``jit_batch_step``,
# ``jit_start_round``, ``jit_run``, ``jit_train``); the rest are the adapters' own
# (``jit__begin``, ...), test-local jits and single operations run outside ``jit``
# (``jit_broadcast_in_dim``, ...: each new shape and dtype compiles one, so the tests read
# JAX outputs on the host, ``np.asarray`` / ``jax.device_get``, before indexing them).
# Measured on these folders (2026-12-04, serial, empty cache): 726 programs, 95 of the
# seven names, on the tree before rules became data (94ff69b; 720 in an earlier count);
# 163 and 68 since. With xdist's workers each appends its own lines; a program may then be
# named by the other worker's test.
def _cache_entries() -> set[str]:
    folder = Path(os.environ.get("JAX_COMPILATION_CACHE_DIR") or JAX_CACHE_DIR)
    if not folder.is_dir():
        return set()
    return {p.name for p in folder.iterdir() if p.name.endswith("-cache")}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterable[None]:
    log = item.config.getoption("--programs-log")
    before = _cache_entries() if log else set()
    yield
    if log:
        new = sorted(_cache_entries() - before)
        with open(log, "a", encoding="utf-8") as out:
            out.writelines(f"{item.nodeid}\t{name}\n" for name in new)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--pure-pass") and os.environ.get("BLACKJACK_ENV_PURE") != "1":
        raise pytest.UsageError(
            "--pure-pass is the pass on the pure-Python source: run it with "
            "BLACKJACK_ENV_PURE=1 in the environment"
        )


def _entry_of(path: Path, entries: Iterable[str]) -> int | None:
    """The place in ``entries`` (paths relative to the repository root) of the first that
    ``path`` is or lies in; ``None`` for none, or for a path outside the repository."""
    if not path.is_relative_to(ROOT):
        return None
    name = path.relative_to(ROOT).as_posix()
    return next((i for i, entry in enumerate(entries)
                 if name == entry or name.startswith(entry + "/")), None)


def _neutral(path: Path) -> bool:
    """Whether ``path`` is, or lies in, an entry of :data:`BUILD_NEUTRAL`."""
    return _entry_of(path, BUILD_NEUTRAL) is not None


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In the pure-Python pass the paths of BUILD_NEUTRAL are not even imported."""
    if config.getoption("--pure-pass") and _neutral(collection_path):
        return True
    return None


#: Folders whose files run first, longest first. pytest-xdist's ``--dist loadfile`` (the
#: default run's ``addopts``) hands the workers whole files in the order collected; a
#: long file handed out last keeps one worker busy while the other has nothing left, so
#: the files that compile JAX programs (a cold run compiles about 300 CPU-s of them) and
#: the commands' subprocesses go first, and the many short files fill in at the end.
FIRST: tuple[str, ...] = ("tests/jax", "tests/agents", "tests/scripts", "tests/bench")


def _rank(path: Path) -> int:
    """The place of ``path``'s folder in :data:`FIRST` (after them all: the rest)."""
    place = _entry_of(path, FIRST)
    return len(FIRST) if place is None else place


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: _rank(item.path))  # stable: each file's order is kept
    for item in items:
        if _neutral(item.path):
            item.add_marker(pytest.mark.build_neutral)
    if config.getoption("--pure-pass"):
        left = [i for i in items if i.get_closest_marker("build_neutral") is not None]
        if left:
            config.hook.pytest_deselected(items=left)
            items[:] = [i for i in items if i.get_closest_marker("build_neutral") is None]
