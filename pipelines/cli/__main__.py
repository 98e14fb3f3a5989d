"""`python -m gatehouse.pipelines.cli`: the `gatehouse` command, started as the console script starts it."""

import sys

from gatehouse.pipelines.cli import command

sys.exit(command())
