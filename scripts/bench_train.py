"""Benchmark: the default stable-baselines3 training, quiet and beside busy processes,
with one torch thread (the default) and with torch's own thread count.

Each case runs ``blackjack-train --algo maskable-ppo --rules vegas-strip --decks inf
--timesteps T --no-progress --torch-threads N`` (the SB3 defaults otherwise: 4 envs,
rollouts of 2,048 steps per env, cut to the budget) in a fresh process and reads the
training's own seconds from its ``summary.json`` (env and model set-up, learning and
saving; not the imports or the final exact grade). ``N`` is 1, the default, and 0,
torch's own setting (one thread per core), which was the default before.

First every case runs on the machine as it is ("quiet"; the load average is printed),
then again beside ``--busy`` competitor processes, each a pure-Python busy loop started
by this script and ended by it when the busy runs are done (each also stops by itself
after a bound, should this script be killed). A run that takes longer than ``--limit``
seconds is stopped and reported as ``> limit``. The figures: seconds of each case, the
slowdown beside the busy processes (busy / quiet) and, within each column, torch's own
thread count against one thread (a bound, ``> limit / seconds``, where a run was stopped).
``--bar`` adds a quiet run of the one-thread case with the progress bar on (written to a
pipe): its cost against the bar off.

Usage::

    python scripts/bench_train.py                      # 8,192 timesteps, 3 busy processes
    python scripts/bench_train.py --timesteps 16384 --busy 2 --json bench_train.json
"""

from __future__ import annotations

import sys

from _launch import importing

with importing():  # a missing package or Ctrl-C here: one line, status 2 / 130
    import json
    import os
    import subprocess
    import tempfile
    import time
    from collections.abc import Sequence
    from dataclasses import dataclass
    from pathlib import Path
    from typing import Annotated, Any

    from blackjack_env.cli import (
        UsageError,
        check_at_least,
        check_positive,
        check_writable,
        finish_benchmark,
        load_average,
        missing_package,
        option,
        run_command,
    )


@dataclass
class Settings:
    """The default SB3 training, quiet and beside busy processes, with 1 and torch's own
    number of threads."""

    timesteps: int = 8192
    """timesteps of each training run"""
    busy: int = 3
    """busy competitor processes beside the busy runs"""
    limit: float = 150.0
    """seconds after which a run is stopped (reported as > limit)"""
    repeats: int = 1
    """runs per case; the fastest is reported"""
    bar: bool = False
    """also time the one-thread case quiet with the progress bar on"""
    json: Annotated[str | None, option("FILE", "not written")] = None
    """write the figures as JSON to this path"""


#: (label, --torch-threads): 1 is the default, 0 torch's own setting (the old default)
CASES: tuple[tuple[str, int], ...] = (("1 thread", 1), ("torch's own", 0))

_TRAIN = ("import sys; from blackjack_env.commands.train import main; "
          "sys.exit(main(sys.argv[1:]))")
_BUSY = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\n" \
        "while time.monotonic() < end:\n    pass\n"


def train_seconds(timesteps: int, threads: int, limit: float, *, bar: bool = False
                  ) -> tuple[float | None, int | None]:
    """One training run in a fresh process: (its training seconds, torch threads used),
    or (None, None) when it ran past ``limit`` seconds and was stopped."""
    with tempfile.TemporaryDirectory(prefix="bench_train-") as folder:
        out = Path(folder) / "run"
        args = ["--algo", "maskable-ppo", "--rules", "vegas-strip", "--decks", "inf",
                "--timesteps", str(timesteps), "--torch-threads", str(threads),
                "--out", str(out), "--progress" if bar else "--no-progress"]
        proc = subprocess.Popen([sys.executable, "-c", _TRAIN, *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        try:
            _, err = proc.communicate(timeout=limit + 30.0)  # + imports and the final grade
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None, None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        if proc.returncode != 0:
            last = (err or "").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            raise RuntimeError(f"the training run failed: {last[0]}")
        summary = json.loads((out / "summary.json").read_text())
        seconds = float(summary["seconds"])
        return (None, None) if seconds > limit else (seconds, summary.get("torch_threads"))


def best_of(repeats: int, timesteps: int, threads: int, limit: float, *, bar: bool = False
            ) -> tuple[float | None, int | None]:
    runs = [train_seconds(timesteps, threads, limit, bar=bar) for _ in range(repeats)]
    done = [r for r in runs if r[0] is not None]
    return min(done) if done else (None, None)


def start_busy(n: int, seconds: float) -> list[subprocess.Popen[bytes]]:
    """``n`` pure-Python busy loops, each ending by itself after ``seconds``."""
    return [subprocess.Popen([sys.executable, "-c", _BUSY, str(seconds)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def stop_busy(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait()


def _s(seconds: float | None, limit: float) -> str:
    return f"> {limit:.0f} s" if seconds is None else f"{seconds:.1f} s"


def _ratio(a: float | None, b: float | None, limit: float) -> str:
    """``a / b``; a run stopped at the limit (None) gives a bound, ``> limit / b``."""
    if b is None:
        return "n/a"
    return f"> {limit / b:.2f}x" if a is None else f"{a / b:.2f}x"


def _div(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def run(settings: Settings) -> dict[str, Any]:
    """Check the options, measure, print, write the JSON asked for."""
    check_at_least("timesteps", settings.timesteps, 1, "timesteps per run")
    check_at_least("busy", settings.busy, 0, "busy processes")
    check_positive("limit", settings.limit, "seconds per run")
    check_at_least("repeats", settings.repeats, 1, "runs per case")
    check_writable("json", settings.json)
    try:
        import sb3_contrib  # noqa: F401
        import torch
    except ImportError as err:
        raise UsageError(missing_package(err, "train")) from None
    load = load_average()
    print(f"torch {torch.__version__}, {os.cpu_count()} CPUs, torch's own thread count "
          f"{torch.get_num_threads()}; load average at the start: "
          f"{', '.join(f'{x:.2f}' for x in load) if load else 'n/a'}")
    print(f"MaskablePPO on vegas-strip (infinite deck), {settings.timesteps:,} timesteps; "
          f"the training's own seconds, best of {settings.repeats}")
    t, limit, reps = settings.timesteps, settings.limit, settings.repeats
    quiet = {label: best_of(reps, t, n, limit) for label, n in CASES}
    bar = best_of(reps, t, 1, limit, bar=True) if settings.bar else None
    busy: dict[str, tuple[float | None, int | None]] = {}
    if settings.busy:
        bound = (len(CASES) * reps * (limit + 60.0)) + 60.0
        competitors = start_busy(settings.busy, bound)
        try:
            time.sleep(0.5)  # let them start spinning
            busy = {label: best_of(reps, t, n, limit) for label, n in CASES}
        finally:
            stop_busy(competitors)
    head = f"beside {settings.busy} busy" if settings.busy else "(no busy runs)"
    print(f"{'torch threads':<22}{'quiet':>10}{head:>18}{'busy / quiet':>14}")
    rows = []
    for label, n in CASES:
        q, used = quiet[label]
        b = busy.get(label, (None, None))[0]
        name = f"{label} ({used})" if used else label
        print(f"{name:<22}{_s(q, limit):>10}{_s(b, limit) if settings.busy else '':>18}"
              f"{_ratio(b, q, limit) if settings.busy else '':>14}")
        rows.append({"case": label, "torch_threads_option": n, "torch_threads_used": used,
                     "quiet_seconds": q, "busy_seconds": b if settings.busy else None,
                     "busy_over_quiet": _div(b, q)})
    one, own = CASES[0][0], CASES[1][0]
    print(f"torch's own / 1 thread: quiet {_ratio(quiet[own][0], quiet[one][0], limit)}"
          + (f", beside {settings.busy} busy {_ratio(busy[own][0], busy[one][0], limit)}"
             if settings.busy else ""))
    results: dict[str, Any] = {"timesteps": t, "cases": rows, "load_average_start": load,
                               "own_over_one_quiet": _div(quiet[own][0], quiet[one][0]),
                               "own_over_one_busy": _div(busy.get(own, (None,))[0],
                                                         busy.get(one, (None,))[0])}
    if bar is not None:
        print(f"progress bar on (1 thread, quiet): {_s(bar[0], limit)} = "
              f"{_ratio(bar[0], quiet[one][0], limit)} of the bar off")
        results["bar_quiet_seconds"] = bar[0]
        results["bar_over_no_bar"] = _div(bar[0], quiet[one][0])
    finish_benchmark(results, settings, settings.json)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(Settings, run, argv, prog="bench_train.py")


if __name__ == "__main__":
    sys.exit(main())
