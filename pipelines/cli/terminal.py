"""What the commands print: each line through the terminal's rule for console text (pipelines/untrusted.py),
so a name a console user typed never clears a screen, recolours a line or plants a hidden link."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from gatehouse.pipelines.untrusted import for_terminal, tool_message


def say(*lines: Any, file: TextIO | None = None) -> None:
    """Each line on its own line of standard output (or `file`), its control and bidi characters made visible."""
    out = file if file is not None else sys.stdout
    for line in lines:
        for part in str(line).split("\n"):  # our own line breaks; any in the data are shown as \x0a
            out.write(for_terminal(part) + "\n")


def error(message: Any) -> None:
    """The one line a command fails with, on standard error: a database's or a tool's message it quotes loses
    its colours, and whatever else in it controls a terminal is shown as an escape."""
    sys.stderr.write(f"gatehouse: error: {tool_message(message)}\n")
