"""A secret typed as an option of any `gatehouse` command (`--accessToken X`, `--password=X`, `--api_key X`...):
refused in one line naming the option, its value never shown. argparse would echo it ("unrecognized arguments: --accessToken
dapi-..."), so such an option and its value are taken out before argparse reads anything."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from gatehouse.pipelines.cli.console.warehouse import WAREHOUSES
from gatehouse.pipelines.errors import GatehouseError

# Words that make an option name look like a secret, however it is spelt (`--accessToken`, `--access_token`,
# `--ACCESS-TOKEN` all read `accesstoken`): the usual ones, and every secret field of a warehouse connection.
SECRET_WORDS = tuple(sorted({
    "token", "password", "passwd", "passphrase", "secret", "apikey", "privatekey", "accesskey", "credential", "bearer",
    *(secret.field.lower() for warehouse in WAREHOUSES.values() for secret in warehouse.secrets),
}))  # fmt: skip
# Short ones, a secret only as a whole word of the name (`--key`, `--auth-header`; not `--keyword`, `--author`).
SECRET_WHOLE_WORDS = frozenset({"key", "pwd", "auth"})  # not "pass": `--pass-rate` is an option
# What an option looks like (an argument with a space in it is a value, whatever it starts with).
OPTION = re.compile(r"-{1,2}[A-Za-z][\w-]*")

REFUSAL = (
    "{option} is not accepted: secrets are never taken from the command line, where shell history and process lists"
    " keep them (rotate it if it was real); the console's API key and SCIM token come from .dlt/secrets.toml or"
    " SOURCES__CONSOLE__*, a warehouse's secrets from --secrets-file or GATEHOUSE_* (see the command's --help)"
)


class SecretRefusingParser(argparse.ArgumentParser):
    """The parser of `gatehouse` and (argparse makes them of their parent's class) of each of its commands: before
    parsing, an option the command does not know whose name looks like a secret is taken out with the argument
    after it (its value, even one starting with `-`); the command then only refuses it."""

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:
        arguments = list(sys.argv[1:] if args is None else args)
        secret = first_secret_option(arguments, known_options(self))
        if secret is None:
            return super().parse_known_args(arguments, namespace)
        # Nothing else is read: any other complaint of argparse could quote the value.
        refused = namespace if namespace is not None else argparse.Namespace()
        refused.handler = _Refusal(secret)
        return refused, []

    def error(self, message: str) -> NoReturn:
        """One line on standard error, exit 2: argparse prints the command's usage above its message, and quotes
        the arguments it did not know, the value after an unknown option too (which may be a secret)."""
        self.exit(2, f"{self.prog}: error: {_values_hidden(message)}\n")


UNRECOGNIZED = "unrecognized arguments: "


def _values_hidden(message: str) -> str:
    """argparse's message with whatever follows an unknown option left out (`--key=…`, `--key X Y`, `--key -X`) up to
    the next long option: said, not shown (a value may hold spaces, or start with `-`). A word before any option (a
    word too many) is quoted, as argparse does."""
    if not message.startswith(UNRECOGNIZED):
        return message
    shown, hidden, after_option = [], 0, False
    for argument in message.removeprefix(UNRECOGNIZED).split(" "):
        option, equals, _ = argument.partition("=")
        if argument.startswith("--") and OPTION.fullmatch(option):
            shown.append(option)
            hidden += bool(equals)
            after_option = True
        elif after_option:
            hidden += 1
        else:
            shown.append(argument)
    said = f" (and {hidden} word{'s' if hidden > 1 else ''} after them, not shown)" if hidden else ""
    return UNRECOGNIZED + " ".join(shown) + said


def first_secret_option(arguments: Sequence[str], known: set[str]) -> str | None:
    """The first argument that is an unknown option named like a secret, as typed up to any `=`; None when none is."""
    for argument in arguments:
        if argument == "--":
            return None
        option = argument.split("=", 1)[0]
        if OPTION.fullmatch(option) and option not in known and looks_secret(option) and not _abbreviates(option, known):
            return option
    return None


def _abbreviates(option: str, known: set[str]) -> bool:
    """Whether `option` may be argparse's abbreviation of an option that names no secret (`--pass` of `--pass-rate`):
    argparse takes it for that option. One that names a secret itself (`--secrets-file`) is no such excuse."""
    return any(name.startswith(option) and not looks_secret(name) for name in known)


def looks_secret(option: str) -> bool:
    name = re.sub(r"[-_]", "", option).lower()
    words = {word.lower() for word in re.findall(r"[A-Za-z][a-z0-9]*", option)}
    return any(word in name for word in SECRET_WORDS) or bool(words & SECRET_WHOLE_WORDS)


def known_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of `parser` and of its commands, at any depth (`--secrets-file` is not a secret)."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                found |= known_options(command)
    return found


class _Refusal:
    """The handler of a command given a secret as an option: one line, nothing sent."""

    def __init__(self, option: str) -> None:
        self.option = option

    def __call__(self, args: argparse.Namespace) -> NoReturn:
        raise GatehouseError(REFUSAL.format(option=self.option))
