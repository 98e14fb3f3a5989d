"""Request bodies and secrets files given as JSON or YAML documents."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from gatehouse.pipelines.errors import GatehouseError

STDIN = "-"


def load_document(path: str, what: str) -> dict[str, Any]:
    """The object held by the JSON or YAML file at `path` (`-` reads stdin).

    A `.json` file is parsed as JSON, anything else as YAML (which also reads JSON). Errors name
    the file and the line, never the text around it: a secrets file must not leak into a message.
    """
    text = _read_text(path, what)
    name = "stdin" if path == STDIN else path
    if Path(path).suffix.lower() == ".json":
        try:
            document = json.loads(text, object_pairs_hook=_once_each)
        except json.JSONDecodeError as err:
            raise GatehouseError(f"{what} {name} is not valid JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
        except _Repeated as err:
            raise GatehouseError(f"{what} {name} gives field {err.key!r} twice: keep the one meant") from None
    else:
        try:
            document = yaml.load(text, Loader=_OnceEachLoader)  # noqa: S506 - a SafeLoader, that refuses a key given twice
        except _Repeated as err:
            raise GatehouseError(f"{what} {name} gives field {err.key!r} twice (line {err.line}): keep the one meant") from None
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            problem = getattr(err, "problem", None) or "cannot be parsed"
            raise GatehouseError(f"{what} {name} is not valid YAML or JSON: {problem}{where}") from None
    if document is None:
        raise GatehouseError(f"{what} {name} is empty")
    if not isinstance(document, dict):
        raise GatehouseError(f"{what} {name} must hold an object (a mapping of fields), not a {type(document).__name__}")
    return document


class _Repeated(Exception):
    """A key given twice in one object: both parsers would keep the last, and the first would be sent as never typed."""

    def __init__(self, key: Any, line: int | None = None) -> None:
        self.key, self.line = key, line


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise _Repeated(key)
    return dict(pairs)


class _OnceEachLoader(yaml.SafeLoader):
    """YAML's safe loader, refusing a mapping that gives a key twice."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *base`: the keys after it may override the merged ones, as YAML means
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
            except TypeError:
                continue  # a list as a key: the loader's own message says so
            if repeated:
                raise _Repeated(key, key_node.start_mark.line + 1)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _read_text(path: str, what: str) -> str:
    if path == STDIN:
        return sys.stdin.read()
    try:
        return Path(path).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise GatehouseError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise GatehouseError(f"{what} {path} is a directory, not a file") from None
    except PermissionError:
        raise GatehouseError(f"{what} {path} cannot be read: permission denied") from None
    except UnicodeDecodeError:
        raise GatehouseError(f"{what} {path} is not UTF-8 text") from None
    except OSError as err:
        raise GatehouseError(f"{what} {path} cannot be read: {err.strerror or type(err).__name__}") from None
