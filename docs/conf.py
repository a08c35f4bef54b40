"""Sphinx configuration of the blackjack_env site (MyST pages, furo theme).

Build (README): ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
The references and pictures are generated from the code at build time by the local
extension ``_ext/bj_reference.py``; the code examples are files under ``examples/``,
included in the pages and run by ``tests/docs/test_examples.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # pygame draws the rgb_array frame off-screen
os.environ.setdefault("MPLBACKEND", "Agg")
# the docs document the source: functions of the compiled (mypyc) modules carry no
# signature or module for autodoc, so their pages and links are built from pure Python
os.environ["BLACKJACK_ENV_PURE"] = "1"

import blackjack_env  # noqa: E402

project = "blackjack_env"
author = "the blackjack_env developers"
copyright = "2026, the blackjack_env developers"
release = version = blackjack_env.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "bj_reference",
    "bj_bench",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_generated/**", "overflow.py", "examples", "data", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist", "substitution"]
# the figures the pages quote ({{ name }}), each computed from its source (_ext/bj_figures.py)
import bj_figures  # noqa: E402

myst_substitutions = bj_figures.figures()
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"blackjack_env {release}"
html_static_path = ["_static"]
html_css_files = ["site.css"]


def _repository() -> str:
    """The repository's address, from pyproject.toml's ``[project.urls]`` (one place)."""
    import re

    text = (HERE.parent / "pyproject.toml").read_text()
    match = re.search(r'^Repository = "([^"]+)"', text, re.M)
    return match.group(1) if match else ""


REPOSITORY = _repository()
html_theme_options: dict[str, object] = {}
if REPOSITORY:
    html_theme_options = {
        # furo's buttons at the top of every page: the page's source in the repository
        "source_repository": REPOSITORY + "/",
        "source_branch": "main",
        "source_directory": "docs/",
        "top_of_page_buttons": ["view"],
        "announcement": f'<a href="{REPOSITORY}">Source code on GitHub</a> · MIT license',
        "footer_icons": [{"name": "GitHub", "url": REPOSITORY, "html": "GitHub",
                          "class": ""}],
    }
html_show_sourcelink = False

# ---- autodoc: the API reference from the docstrings
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options: dict[str, object] = {}
# the [docs] extra has no torch: the SB3 adapter's base class is mocked while documenting it
autodoc_mock_imports = ["stable_baselines3", "sb3_contrib", "torch"]
# the JAX table's aliases in its annotations (jaxtyping's PRNGKeyArray, and
# blackjack_env.jax.arrays' and program's) are shown by their names, not their values
autodoc_type_aliases = {
    "PRNGKeyArray": "~jaxtyping.PRNGKeyArray",
    "Observation": "~blackjack_env.jax.arrays.Observation",
    "Info": "~blackjack_env.jax.arrays.Info",
    "Keys": "~blackjack_env.jax.arrays.Keys",
    "GymnaxReset": "~blackjack_env.jax.program.GymnaxReset",
    "GymnaxStep": "~blackjack_env.jax.program.GymnaxStep",
}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# the docstrings use Markdown-style "## Section" headings and tables inside reST: they
# read well as text; Sphinx would warn about them as reST, so they are kept literal
suppress_warnings = ["autodoc.import_object"]

# ---- nitpicky (-n): every cross-reference must resolve, except to outside projects
# (the build is offline: no intersphinx) and to private helpers the docstrings name
nitpick_ignore_regex = [
    (r"py:.*", r"(np|numpy|gym|gymnasium|torch|pettingzoo|stable_baselines3|sb3_contrib|"
               r"jax|jaxlib|jaxtyping|collections|typing|pathlib|fractions|enum|dataclasses|"
               r"inspect)\..*"),
    # the axes of a jaxtyping annotation (Int32[Array, '*seats hands']: a string, no object;
    # blackjack_env.jax.arrays names them)
    (r"py:class", r"'[^']*'"),
    # RuleTables' array types (jaxtyping's, imported there for type checkers only, so
    # named, not resolved)
    (r"py:class", r"(Bool|Float32|Float64|Int8|Int64)"),
    # the JAX table's type aliases, shown by name in signatures (autodoc_type_aliases below)
    # and defined in the code (blackjack_env/jax/arrays.py, program.py): autodoc would print
    # their values, jaxtyping's classes, garbled ("alias of tuple[Array], ...")
    (r"py:class", r"blackjack_env\.jax\.(arrays|program)\."
                  r"(Observation|Info|Keys|GymnaxReset|GymnaxStep)"),
    (r"py:.*", r"(Any|Callable|Sequence|Mapping|Iterable|Iterator|Path|Fraction|Final|"
               r"ndarray|optional|Generator|Protocol|ClassVar|TypeVar|Self)"),
    (r"py:.*", r".*\._[a-z].*"),  # private names
    # the JAX table's inner modules (state, params, illegal-action tables): the page of
    # BlackjackJax is their documentation; they are being reorganised into modules
    (r"py:.*", r"blackjack_env\.jax\.(core|tables|env|illegal|spaces)(\..*)?"),
    (r"py:mod", r"blackjack_env\.envs\.view"),
    # the envs' spaces of one configuration (Task.layout returns it); the env pages and the
    # observation reference document what it holds
    (r"py:class", r"blackjack_env\.envs\.view\.layout\.Layout"),
    # helpers of the PPO that its docstrings name (module-level functions)
    (r"py:func", r"(seat_gae|play_agent|grade_bets)"),
]

# ---- linkcheck: internal links only (the CI machines reach no web site)
linkcheck_ignore = [r"https?://.*"]
