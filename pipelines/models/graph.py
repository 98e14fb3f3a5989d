"""The model files of the analysis layer: where they sit, what each reads, the order they are built in.

A model is one SQL file under `pipelines/models/`, in the folder of its layer:

- `staging/stg_*.sql`: one raw table each, renamed, cast, deduplicated (read with `{{ source('table') }}`);
- `intermediate/int_*.sql`: steps shared by several marts (both entity kinds stacked, change histories...);
- `marts/<area>/*.sql`: the views people query.

The file's name is the view's name. Its first line states the grain and key (`-- grain: ...; key: col, col`), then
comes its documentation as a Jinja comment (`{# ... #}`, Markdown; docs/data-model.md is generated from it), then
the `select`. A model names every model it reads with `{{ ref('name') }}`, rendered as `analytics.name`; the build
order is derived from those refs (a topological sort; among models ready at the same time, the lower layer first,
then the name). A ref to an unknown model, models reading each other in a cycle, a model reading a later layer or
naming a view of `analytics` without `ref()` are refused with one line (`GatehouseError`) naming them.

The files are Jinja templates: `macros/*.sql` holds the macros that write SQL shared by several models once (the
staging columns gates and dynamic configs share, `macros/entity_kinds.sql`; a join's condition, project first,
`macros/joins.sql`), imported by the models that use them.
"""

from __future__ import annotations

import graphlib
import heapq
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.abc import Traversable
from types import MappingProxyType

import jinja2
import jinja2.runtime

from gatehouse.pipelines.errors import GatehouseError

SCHEMA = "analytics"

# A model reads only its own layer or the layers before it.
LAYERS = ("staging", "intermediate", "marts")
MACRO_FOLDER = "macros"
# The macros where the warehouses' SQL differs, which the models call without importing them.
WAREHOUSE_MACROS = "warehouses.sql"

_HEADER = re.compile(r"^--\s*grain:\s*(?P<grain>.+?);\s*key:\s*(?P<key>.+?)\s*$")
_DOC = re.compile(r"\A[^\n]*\n\{#(?P<doc>.*?)#\}", re.S)
_MODEL_NAME = re.compile(r"[a-z][a-z0-9_]*")
# Schema `analytics` also holds the parameter tables, which are tables, not models.
_SCHEMA_READ = re.compile(rf"\b{SCHEMA}\.([a-z0-9_]+)")


@dataclass(frozen=True)
class ViewDefinition:
    name: str
    grain: str
    key: tuple[str, ...]
    sql: str  # the rendered model: the header line, then the view's select (refs rendered, source markers kept)
    layer: str = ""
    path: str = ""  # below pipelines/models, e.g. marts/gates/stale_gates.sql
    depends_on: tuple[str, ...] = ()  # the models it reads, by name
    doc: str = ""  # its documentation (Markdown), from the comment under the header

    @property
    def is_staging(self) -> bool:
        return self.name.startswith("stg_")

    @property
    def not_null_key(self) -> tuple[str, ...]:
        """The key columns that are never null: all, but for a grain that says some rows are under a null project
        (`code_orphans`: an id no project ever had)."""
        return tuple(column for column in self.key if not (column == "project" and "a null project" in self.grain))

    @property
    def folder(self) -> str:
        return self.path.rpartition("/")[0]


def view_definitions(folder: Traversable | None = None) -> list[ViewDefinition]:
    """Every model (of the packaged folder, or of `folder`), in the order it is built: each after the models it reads."""
    if folder is None:
        return list(_packaged_definitions())
    return _load(folder)


@lru_cache(maxsize=1)
def _packaged_definitions() -> tuple[ViewDefinition, ...]:
    return tuple(_load(resources.files("gatehouse.pipelines.models")))


def build_order(reads: Mapping[str, Iterable[str]], rank: Callable[[str], int] = lambda name: 0) -> list[str]:
    """The models in an order where each comes after the models it reads: a topological sort (`graphlib`) that
    takes, among the models ready at the same time, the lowest `rank` (the layer), then the first name. A model
    reading an unknown model, or models reading each other in a cycle, are refused with one line naming them."""
    reads = {name: sorted(set(names)) for name, names in sorted(reads.items())}
    unknown = [f"{name} -> {read}" for name, names in reads.items() for read in names if read not in reads]
    if unknown:
        raise GatehouseError(f"view models read unknown models (no such file): {', '.join(unknown)}")
    sorter = graphlib.TopologicalSorter(reads)
    try:
        sorter.prepare()
    except graphlib.CycleError as cycle:
        # graphlib names the cycle from each model to one reading it: said the way a reader follows the reads,
        # from its first name, so that the same files always give the same line
        path = list(reversed(cycle.args[1][1:]))
        first = path.index(min(path))
        path = path[first:] + path[:first]
        raise GatehouseError(f"view models read each other in a cycle: {' -> '.join(path + path[:1])}") from None
    ready: list[tuple[int, str]] = []
    order: list[str] = []
    while sorter.is_active():
        for name in sorter.get_ready():
            heapq.heappush(ready, (rank(name), name))
        _, name = heapq.heappop(ready)
        order.append(name)
        sorter.done(name)
    return order


def _load(root: Traversable) -> list[ViewDefinition]:
    models = dict(_model_files(root))
    renderer = _Renderer(root)
    rendered = {path: renderer.render(path, name) for name, path in models.items()}
    layer_of = {name: path.split("/")[0] for name, path in models.items()}
    reads = {name: rendered[path][1] for name, path in models.items()}
    order = build_order(reads, rank=lambda name: LAYERS.index(layer_of[name]))
    for name in order:
        _check_reads(name, layer_of, reads[name], rendered[models[name]][0])
    return [_definition(name, models[name], layer_of[name], *rendered[models[name]]) for name in order]


def _model_files(root: Traversable) -> Iterator[tuple[str, str]]:
    """(name, path below root) of every model file; anything else that looks like one is refused."""
    seen: dict[str, str] = {}
    for path in _sql_files(root, ""):
        top = path.split("/")[0]
        if top == MACRO_FOLDER:
            continue
        name = path.rpartition("/")[2].removesuffix(".sql")
        if top not in LAYERS or "/" not in path:
            raise GatehouseError(f"view model file {path} is not in a layer folder ({', '.join(LAYERS)})")
        if not _MODEL_NAME.fullmatch(name):
            raise GatehouseError(f"view model file {path}: the name must be the view's, lowercase snake_case")
        if name in seen:
            raise GatehouseError(f"view model {name} is defined twice: {seen[name]} and {path}")
        seen[name] = path
        yield name, path


def _sql_files(folder: Traversable, prefix: str) -> Iterator[str]:
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            yield from _sql_files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".sql"):
            yield f"{prefix}{entry.name}"


class _ModelLoader(jinja2.BaseLoader):
    """Templates by their path below pipelines/models, read as package data."""

    def __init__(self, root: Traversable) -> None:
        self.root = root

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, None, Callable[[], bool]]:
        entry = self.root.joinpath(*template.split("/"))
        if not entry.is_file():
            raise jinja2.TemplateNotFound(template)
        return entry.read_text(encoding="utf-8"), None, lambda: True


class _Renderer:
    """Renders model files; `ref()` (in a model or in a macro it imports) records what the model reads."""

    def __init__(self, root: Traversable) -> None:
        self.loader = _ModelLoader(root)
        self.environment = jinja2.Environment(
            loader=self.loader,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )
        # Globals, not render variables: Jinja caches an imported macro file with the globals it first saw.
        self.environment.globals["ref"] = self._ref
        # kept as written: gatehouse.pipelines.models.build renders it once it has looked at the destination's raw tables
        self.environment.globals["source"] = lambda table: f"{{{{ source('{table}') }}}}"
        self.environment.globals.update(warehouse_macros(self.environment))
        self._reads: list[str] = []

    def _ref(self, name: str) -> str:
        self._reads.append(name)
        return f"{SCHEMA}.{name}"

    def render(self, path: str, name: str) -> tuple[str, list[str], str]:
        """The rendered SQL, the models it reads and the file's own text."""
        self._reads = []
        try:
            sql = self.environment.get_template(path).render()
        except jinja2.TemplateError as error:
            line = getattr(error, "lineno", None)  # a syntax error knows its line; an undefined name does not
            where = f" (line {line})" if line else ""
            raise GatehouseError(
                f"view model {name} cannot be rendered{where}: {error.message or type(error).__name__}"
            ) from error
        text, _, _ = self.loader.get_source(self.environment, path)
        return sql, self._reads, text


def warehouse_macros(environment: jinja2.Environment) -> dict[str, jinja2.runtime.Macro]:
    """The DuckDB form of each macro of `macros/warehouses.sql` (its `duckdb__` or else its `default__` macro) by
    the name the models call it by: the dbt package dispatches the same names per warehouse."""
    try:
        module = environment.get_template(f"{MACRO_FOLDER}/{WAREHOUSE_MACROS}").module
    except jinja2.TemplateNotFound:  # a folder of models that calls none (the tests' own)
        return {}
    macros = {name: value for name, value in vars(module).items() if isinstance(value, jinja2.runtime.Macro)}
    forms = {}
    for prefix in ("default__", "duckdb__"):  # DuckDB's own form, where one is written, over the default
        forms.update({name.removeprefix(prefix): macro for name, macro in macros.items() if name.startswith(prefix)})
    return forms


@lru_cache(maxsize=1)
def template_globals() -> Mapping[str, Callable[..., str]]:
    """The names a model calls without importing them, for rendering the model files outside gatehouse's build
    (sqlfluff's templater, `.sqlfluff`): `ref()` as gatehouse renders it (`analytics.name`), `source()` as the
    relation it stands for (gatehouse makes it a subquery of that table once it has looked at the destination) and
    the DuckDB form of each warehouse macro."""
    environment = _Renderer(resources.files("gatehouse.pipelines.models")).environment
    # read-only: cached, since sqlfluff runs the module that asks for them once for each file it lints
    return MappingProxyType(
        {"ref": lambda name: f"{SCHEMA}.{name}", "source": lambda table: f"console.{table}", **warehouse_macros(environment)}
    )


def _check_reads(name: str, layer_of: Mapping[str, str], reads: list[str], sql: str) -> None:
    layer = LAYERS.index(layer_of[name])
    higher = sorted(read for read in set(reads) if LAYERS.index(layer_of[read]) > layer)
    if higher:
        raise GatehouseError(
            f"view model {name} ({layer_of[name]}) reads {', '.join(f'{r} ({layer_of[r]})' for r in higher)}:"
            " a model reads only its own layer or the ones before it"
        )
    code = "\n".join(line.split("--")[0] for line in sql.splitlines())
    unnamed = sorted({read for read in _SCHEMA_READ.findall(code) if read in layer_of} - set(reads))
    if unnamed:
        raise GatehouseError(f"view model {name} reads {', '.join(unnamed)} without ref(): write {{{{ ref('{unnamed[0]}') }}}}")


def _definition(name: str, path: str, layer: str, sql: str, reads: list[str], text: str) -> ViewDefinition:
    header = _HEADER.match(sql.splitlines()[0] if sql else "")
    if header is None:
        raise GatehouseError(f"view model file {path} does not start with '-- grain: ...; key: ...'")
    key = tuple(column.strip() for column in header["key"].split(","))
    doc = _DOC.match(text)
    return ViewDefinition(
        name=name,
        grain=header["grain"],
        key=key,
        sql=sql,
        layer=layer,
        path=path,
        depends_on=tuple(sorted(set(reads))),
        doc=doc["doc"].strip("\n") if doc else "",
    )
