"""The `gatehouse` command line: the argparse tree, one module per command; they parse arguments and print.

`command` is the console script: nothing else is imported here, so that it starts before the command's modules do.
"""

from __future__ import annotations

import gc


def command() -> int:
    """The `gatehouse` command: `main.main`, with Python's cyclic collector held while the command's modules are
    imported. The imports (dlt, pyarrow, sqlglot, the commands) would otherwise set off several full collections
    over objects that live as long as the process (a noticeable part of each command's start); they are set aside from the
    collector (`gc.freeze`) before the command itself runs, with it on. At the end the same for everything the
    command made: the collection at exit would walk it for nothing (most of all after a report); each object is still
    released and every exit handler runs. Not in `main.main`, which a test calls many times in one process."""
    gc.disable()
    try:
        from gatehouse.pipelines.cli import main

        parser = main.build_parser()
    finally:
        gc.freeze()
        gc.enable()
    code = main.main(parser=parser)
    gc.freeze()
    return code
