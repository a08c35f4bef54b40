"""Sphinx extension: the benchmark's pages, generated from the task records and from the
results files in the repository (``docs/data/bench``), nothing typed by hand.

At ``builder-inited`` it writes under ``docs/_generated/``:

* ``bench/tasks.md``: the tasks table (``blackjack_env.bench.TASKS``) and the planned ones;
* ``bench/task-NAME.md``: each task's page body (its definition, grading, limits,
  baselines), and one for each planned task saying why it is not there yet;
* ``bench/algos.md``: the algorithms, their reach in the table and why;
* ``bench/leaderboard-NAME.md``: each task's leaderboard,
  ``blackjack_env.bench.report.markdown`` of ``docs/data/bench`` (what ``blackjack-bench
  report docs/data/bench`` prints; a test compares the two);
* ``bench/timing.md``: the table's measured time per budget, summed from the files;
* ``bench/schema.md``: the results file's fields, from its JSON Schema;
* ``fig/bench-NAME-{steps,wall,profile}.png``: ``blackjack_env.bench.report.plots``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bj_reference import OUT, announce, table, write

HERE = Path(__file__).resolve().parent.parent  # docs/
RESULTS = HERE / "data" / "bench"


def task_page(task: Any) -> str:
    from blackjack_env.bench import ALGOS
    from blackjack_env.bench.tasks import format_budget

    rules = task.rules
    space = task.space
    if space is None:
        rules_text = f"`{task.rules_name}`: {rules.summary()}"
    else:
        held = task.held_out()
        axes = "; ".join(f"`{name}` " + ", ".join(f"`{_shown(v)}`" for v in values)
                         for name, values in space.axes)
        rules_text = (f"the default rule space `{task.rule_space}` (`{space.name}`): "
                      f"{len(space):,} rule sets, the product of the axes {axes}; every other "
                      f"field as in {rules.summary()}. Training draws only the "
                      f"{space.training_size:,} rule sets the space does not hold out; the "
                      f"grade is on its fixed held-out set of {len(held)} "
                      f"(`blackjack_env.engine.rulespace.held_out(\"{task.rule_space}\")`, "
                      f"[rule spaces](../rule-space.md))")
    rows = [
        ("id", f"`{task.id}` (fingerprint `{task.fingerprint()}`)"),
        ("env", f"`gym.make(\"{task.env_id}\", obs_mode=MODE)` after `import "
                f"blackjack_env.bench`"
         + ("" if space is None else ": `blackjack_env/Blackjack-v0` with `rules=` the space "
                                     "(a rule set drawn at each reset) and "
                                     "`observe_rules=True`")),
        ("rules", rules_text),
        ("decks", "infinite" if rules.decks is None else
         f"{rules.shoe_decks}, " + ("shuffled before every round" if rules.penetration is None
                                    else f"cut at {rules.penetration:.0%}")),
        ("observation", ", ".join(f"`{m}`" for m in task.obs_modes)
         + (" (the shoe hidden: true count 0, a full shoe)" if task.hide_shoe else "")
         + (" with the rule features of the table's rules appended (`observe_rules`)"
            if task.observe_rules else "")),
        ("actions", ", ".join(f"{i} {n}" for i, n in enumerate(task.action_names))),
        ("budgets", ", ".join(f"{b:,}" for b in task.budgets) + " env steps"),
        ("metric", f"{task.metric} ({task.better} is better)"),
        ("reference", task.reference),
        ("baselines", ", ".join(f"`{n}` ({ALGOS[n].title})" for n in task.baselines)),
    ]
    if task.rounds:
        from blackjack_env.bench.grading import round_set

        rs = round_set(task)
        rows.append(("priced rounds", f"`{task.rounds}` (shipped with the package): "
                                      f"{len(rs.rounds):,} rounds of {rs.shoes:,} shoes, "
                                      f"dealing seed {rs.seed}, penetration "
                                      f"{rs.penetration:g}; made by `python -m "
                                      f"blackjack_env.bench.rounds --rounds "
                                      f"{len(rs.rounds)}`, which no user needs to run"))
    budgets = ", ".join(format_budget(b) for b in task.budgets)
    return "\n".join([
        f"# {task.id}: {task.title}", "", task.description, "",
        table(["", ""], rows), "",
        "## How it is graded", "", task.grading, "",
        "## Limits of the grade", "", task.limits, "",
        *(["## Why these baselines", "", task.about_baselines, ""] if task.about_baselines
          else []),
        "## Run it", "",
        f"Every baseline at the budgets it reaches ({budgets} defined): "
        f"`blackjack-bench table --tasks {task.name} --out results`; one learner: "
        f"`blackjack-bench run {task.name} --algo ALGO --seeds 5`; your own policy: "
        f"`blackjack-bench grade {task.name} POLICY` ([the tutorial](../tutorials/"
        f"benchmark.md)). Its leaderboard is on [the results page](../benchmark.md).", "",
    ])


def _shown(value: Any) -> str:
    """An axis value as a page shows it (an enum by its value, a payout as ``3:2``)."""
    from fractions import Fraction

    if isinstance(value, Fraction):
        return f"{value.numerator}:{value.denominator}"
    return str(getattr(value, "value", value))


def planned_page(name: str, why: str) -> str:
    return f"# {name} (not yet available)\n\n{why}\n"


def tasks_table() -> str:
    from blackjack_env.bench import PLANNED, TASKS
    from blackjack_env.bench.tasks import format_budget

    rows = [(f"[`{t.id}`](bench/{t.name}.md)", t.title, f"{t.metric} ({t.better})",
             ", ".join(format_budget(b) for b in t.budgets))
            for t in TASKS.values()]
    rows += [(f"[`{name}`](bench/{name}.md)", "not yet available", "", "")
             for name in PLANNED]
    return table(["task", "what", "metric", "budgets (env steps)"], rows)


def algos_table() -> str:
    from blackjack_env.bench import ALGOS, TASKS
    from blackjack_env.bench.report import speeds
    from blackjack_env.bench.tasks import format_budget

    measured = speeds(RESULTS)
    rows = []
    for a in ALGOS.values():
        speed, cost = "", ""
        if a.trained and a.name in measured:
            s = measured[a.name]
            speed = f"{s.steps_per_cpu_second:,.0f} at {format_budget(s.budget)}"
            tasks = [t for t in TASKS.values() if a.name in t.baselines]
            beyond = sorted({b for t in tasks for b in t.budgets if b > a.reach})
            if beyond:
                hours = 5 * beyond[0] * len(tasks) / s.steps_per_cpu_second / 3600
                cost = f"{format_budget(beyond[0])}: {hours:,.1f} CPU-hours"
        rows.append((f"`{a.name}`", a.title, a.kind, a.about,
                     format_budget(a.reach) if a.trained else "", speed, cost))
    return table(["name", "algorithm", "kind", "what", "largest budget in the table",
                  "env steps per CPU-second (measured)",
                  "next budget, 5 seeds, every task"], rows)


def timing() -> str:
    """The table's measured time, per budget, from the results files."""
    from blackjack_env.bench.report import timing as cost
    from blackjack_env.bench.tasks import format_budget

    rows = []
    total = missing = 0.0
    unknown = False
    for row in cost(RESULTS):
        total += row["cpu_seconds"]
        left = row["missing_cpu_seconds"]
        unknown |= left is None and row["missing_runs"] > 0
        missing += left or 0.0
        rows.append(("references" if row["budget"] is None else format_budget(row["budget"]),
                     f"{row['runs']}", f"{row['cpu_seconds']:,.0f}",
                     f"{row['wall_seconds']:,.0f}",
                     f"{row['missing_runs']}" if row["missing_runs"] else "",
                     "" if not row["missing_runs"] else "unknown" if left is None else
                     f"{left:,.0f}"))
    rows.append(("all", "", f"{total:,.0f} ({total / 7200:.2f} h on 2 cores)", "", "",
                 f"{missing:,.0f} ({missing / 7200:.2f} h on 2 cores)"
                 + (" and runs of unknown speed" if unknown else "")))
    return table(["budget", "graded policies", "CPU seconds", "wall seconds (shared "
                  "machine)", "policies not in the folder", "their CPU seconds (estimated "
                  "from the learners' speeds)"], rows)


def _kind(spec: dict[str, Any]) -> str:
    if "const" in spec:
        return f"`{spec['const']}`"
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"])
    if "$ref" in spec:
        return "object (below)" if spec["$ref"].endswith("run") else "object"
    kind = spec.get("type", "")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def schema_table() -> str:
    """The results schema's fields, from ``results.schema.json``."""
    from blackjack_env.bench.results import schema

    doc = schema()
    rows = []
    for name, spec in doc["properties"].items():
        inner = ", ".join(f"`{k}`" for k in spec.get("properties", {}))
        rows.append((f"`{name}`", _kind(spec), spec.get("description", "")
                     + (f" ({inner})" if inner else "")))
    for name, spec in doc["$defs"]["run"]["properties"].items():
        inner = ", ".join(f"`{k}`" for k in spec.get("properties", {}))
        if name == "grade":
            inner = ", ".join(f"`{k}`" for k in doc["$defs"]["grade"]["properties"])
            spec = {**spec, "description": "the grade: the score and its figures"}
        rows.append((f"`runs[].{name}`", _kind(spec), spec.get("description", "")
                     + (f" ({inner})" if inner else "")))
    return table(["field", "type", "meaning"], rows)


def leaderboard_pages(folder: Path) -> dict[str, str]:
    """Each task's leaderboard as the page shows it (``bench/leaderboard-NAME.md``)."""
    from blackjack_env.bench import TASKS
    from blackjack_env.bench.report import leaderboard, markdown

    return {name: markdown(TASKS[name], rows) for name, rows in leaderboard(folder).items()}


def generate(app: Any = None) -> None:
    start = time.perf_counter()
    from blackjack_env.bench import PLANNED, TASKS
    from blackjack_env.bench.report import plots

    for task in TASKS.values():
        write(f"bench/task-{task.name}.md", task_page(task))
    for name, why in PLANNED.items():
        write(f"bench/task-{name}.md", planned_page(name, why))
    write("bench/tasks.md", tasks_table() + "\n")
    write("bench/algos.md", algos_table() + "\n")
    for name, text in leaderboard_pages(RESULTS).items():
        write(f"bench/leaderboard-{name}.md", text)
    write("bench/timing.md", timing() + "\n")
    write("bench/schema.md", schema_table() + "\n")
    plots(RESULTS, OUT / "fig")
    announce(app, f"bj_bench: the benchmark's pages generated in "
                  f"{time.perf_counter() - start:.1f} s")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    generate()
