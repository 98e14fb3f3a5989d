"""The one shape of a `gatehouse` command's parser: a help line, a description, examples kept as written."""

from __future__ import annotations

import argparse
from typing import Any


def add_command(subparsers: Any, name: str, *, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
    return subparsers.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
