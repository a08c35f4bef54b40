"""Starting a command as a terminal does, for the tests that press Ctrl-C (send SIGINT).

A process started in the background by a non-interactive shell (``cmd &``, as a CI
runner or a script may start the tests) ignores SIGINT, and the processes it starts
inherit that: Python then installs no ``KeyboardInterrupt`` handler, so a test's Ctrl-C
never reaches the command (it runs on until the test's timeout, and after it).
"""

from __future__ import annotations

import signal
import subprocess
from typing import Any


def start(args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
    """``subprocess.Popen(args, text=True, **kwargs)`` whose process takes SIGINT as a
    terminal's Ctrl-C, whatever this process inherited: SIGINT's Python handler is set
    here while the process starts (a handled signal is reset to its default action by
    ``exec``; an ignored one stays ignored), then put back."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(args, text=True, **kwargs)
    finally:
        signal.signal(signal.SIGINT, previous)
