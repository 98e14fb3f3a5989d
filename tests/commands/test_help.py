"""`gatehouse console --help` and every subcommand's help explain themselves with an example."""

from __future__ import annotations

import argparse

import pytest

from gatehouse.pipelines.cli.main import build_parser, main


def command_paths(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                paths += command_paths(child, prefix + (name,))
    return paths


CONSOLE = next(action.choices["console"] for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction))
PATHS = [("console",) + path for path in command_paths(CONSOLE)]


def test_every_operation_of_the_interface_has_a_command():
    leaves = {" ".join(path[1:]) for path in PATHS if not any(other[: len(path)] == path and other != path for other in PATHS)}
    assert leaves == {
        "gate",
        "gates",
        "holdout",
        "dynamic-configs",
        "qualifying-events",
        "exposures",
        "ingestion-run",
        "unarchive-config",
        "release-pipeline create",
        "release-pipeline update",
        "role create",
        "wh-connection set",
        "scim group-patch",
    }


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_help_explains_with_an_example(path, capsys):
    with pytest.raises(SystemExit) as stop:
        main([*path, "--help"])
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "example" in text and "gatehouse console" in text.split("example", 1)[1]
    assert text.count("\n") > 8
