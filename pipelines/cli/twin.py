"""`gatehouse twin serve`: the console twin over HTTP on loopback, until Ctrl-C."""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import tempfile
import threading
from pathlib import Path

from gatehouse.console_twin import SIZES, ConsoleHost, ConsoleTwin, TwinSettings
from gatehouse.pipelines.cli.parser import add_command, add_command_group, bounded, given, positive_int
from gatehouse.pipelines.errors import GatehouseError
from gatehouse.pipelines.projects import check_name

SERVE_EPILOG = """\
examples:
  gatehouse twin serve                          # a small organisation on 127.0.0.1:8787; export what it prints
  gatehouse twin serve --size medium --port 0   # a larger one on any free port
  gatehouse twin serve --projects web,mobile    # one organisation per project, each under its own key
  gatehouse twin serve --rate-limit 30/10 --latency-ms 50   # a console that throttles, as the real one does
  gatehouse twin serve --admin                  # then: curl -X POST 'http://127.0.0.1:8787/_twin/advance?days=7'

In another shell, after exporting the printed variables: gatehouse run --duckdb twin.duckdb
"""

# Up to this many ids the exports are printed; beyond, they go to a file the user sources.
INLINE_ID_LIMIT = 40


# bind() ended in an OverflowError traceback past 65535
PORT = bounded(int, "a port from 0 to 65535", 0, 65535)
# a negative latency failed every request of the twin (time.sleep refuses it)
LATENCY_MS = bounded(int, "0 or more milliseconds", 0)


def register(subparsers) -> None:
    twin_commands = add_command_group(
        subparsers,
        "twin",
        help="a local console twin for demos, tests and drills",
        metavar="TWIN_COMMAND",
        description="A console of your own on 127.0.0.1: a deterministic synthetic organisation (gates, configs,"
        " holdouts, experiments, ingestion runs) served over the console's interface, with its rate limit and"
        " paging, so that gatehouse can be tried, tested and drilled with no account (docs/twin.md).",
        epilog=SERVE_EPILOG,
    )
    serve = add_command(
        twin_commands,
        "serve",
        help="serve a synthetic console organisation over HTTP until Ctrl-C",
        description="Serve a deterministic synthetic console organisation on 127.0.0.1 and print the "
        "environment variables that point gatehouse at it.",
        epilog=SERVE_EPILOG,
    )
    serve.add_argument(
        "--port",
        type=PORT,
        default=8787,
        help="port on 127.0.0.1 (0: any free port; default 8787)",
    )
    serve.add_argument("--size", choices=sorted(SIZES), default="small", help="organisation size (default small)")
    serve.add_argument("--seed", type=int, default=0, help="organisation seed (default 0)")
    serve.add_argument(
        "--projects",
        type=_projects,
        metavar="NAME,NAME",
        help="serve one organisation per project at the same address, each under its own key"
        " (seeds SEED, SEED+1, ...), and print each project's settings",
    )
    serve.add_argument("--api-key", type=given, default=TwinSettings.api_key, help="the console key the twin accepts")
    serve.add_argument("--scim-token", type=given, default=TwinSettings.scim_token, help="the SCIM bearer token the twin accepts")
    serve.add_argument("--latency-ms", type=LATENCY_MS, default=0, help="added to every request")
    serve.add_argument(
        "--rate-limit",
        type=_rate_limit,
        metavar="N/SECONDS",
        help="answer 429 beyond N requests per SECONDS (default: no limit)",
    )
    serve.add_argument(
        "--retry-after",
        choices=("seconds", "http-date", "none"),
        default="seconds",
        help="the Retry-After form of a 429 (default seconds)",
    )
    serve.add_argument("--max-limit", type=positive_int, help="cap on the `limit` of list pages (default: none)")
    serve.add_argument("--admin", action="store_true", help="serve POST /_twin/advance?days=N to move the clock")
    serve.set_defaults(handler=serve_twin)


def _projects(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"expected distinct project names such as web,mobile, got {text!r}")
    for name in names:
        try:
            check_name(name)
        except GatehouseError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return names


def _rate_limit(text: str) -> tuple[int, float]:
    try:
        requests, seconds = text.split("/")
        limit = int(requests), float(seconds)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N/SECONDS such as 100/10, got {text!r}") from None
    if limit[0] < 1 or limit[1] <= 0:
        raise argparse.ArgumentTypeError("N and SECONDS must be positive")
    return limit


def serve_twin(args: argparse.Namespace) -> int:
    settings = TwinSettings(
        api_key=args.api_key,
        scim_token=args.scim_token,
        latency=args.latency_ms / 1000,
        rate_limit=args.rate_limit,
        retry_after=args.retry_after,
        max_limit=args.max_limit,
        admin=args.admin,
    )
    if args.projects:
        twin: ConsoleTwin | ConsoleHost = ConsoleHost.of(
            {name: (args.size, args.seed + index) for index, name in enumerate(args.projects)}, settings
        )
    else:
        twin = ConsoleTwin(size=args.size, seed=args.seed, settings=settings)
    stop = threading.Event()
    # A terminating supervisor gets the same clean stop as Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # Ctrl-C stops the twin even when it was started with SIGINT ignored, which a child inherits: from a
    # background job of a non-interactive shell, or from a test worker (pytest-xdist ignores SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with twin.serve(port=args.port) as base_url:
            _print_instructions(twin, base_url, args)
            while not stop.wait(0.5):
                pass
    except OSError as err:
        raise GatehouseError(f"cannot serve the console twin on 127.0.0.1:{args.port}: {err.strerror or err}") from None
    except KeyboardInterrupt:
        pass
    print("Console twin stopped.", flush=True)
    return 0


def _exports(twin: ConsoleTwin, base_url: str, project: str | None = None) -> dict[str, str]:
    prefix = f"SOURCES__CONSOLE__PROJECTS__{project.upper()}__" if project else "SOURCES__CONSOLE__"
    return {
        f"{prefix}BASE_URL": base_url,
        f"{prefix}API_KEY": twin.settings.api_key,
        f"{prefix}SCIM_TOKEN": twin.settings.scim_token,
        f"{prefix}EXPERIMENT_IDS": json.dumps(twin.experiment_ids),
        f"{prefix}INGESTION_RUN_IDS": json.dumps(twin.ingestion_run_ids),
    }


def _print_instructions(served: ConsoleTwin | ConsoleHost, base_url: str, args: argparse.Namespace) -> None:
    if isinstance(served, ConsoleHost):
        exports = {
            name: value for project, twin in served.twins.items() for name, value in _exports(twin, base_url, project).items()
        }
        twins = list(served.twins.values())
        print(
            f"Console twin ({len(twins)} {args.size} organisations, projects {', '.join(served.twins)},"
            f" seeds {args.seed}-{args.seed + len(twins) - 1}, each under its own key) serving on {base_url}"
        )
    else:
        exports, twins = _exports(served, base_url), [served]
        print(f"Console twin ({args.size} organisation, seed {args.seed}) serving on {base_url}")
    lines = [f"export {name}={shlex.quote(value)}" for name, value in exports.items()]
    print(f"Twin clock: {twins[0].now:%Y-%m-%dT%H:%M:%SZ}", end="")
    print(f"  (advance: curl -X POST '{base_url}/_twin/advance?days=1')" if args.admin else "")
    if sum(len(twin.experiment_ids) + len(twin.ingestion_run_ids) for twin in twins) <= INLINE_ID_LIMIT:
        print("Point gatehouse at it:")
        print("\n".join(f"  {line}" for line in lines))
    else:
        env_file = Path(tempfile.gettempdir()) / f"gatehouse-twin-{base_url.rsplit(':', 1)[-1]}.env"
        env_file.write_text("\n".join(lines) + "\n")
        print(f"Point gatehouse at it:\n  source {env_file}")
    print("Press Ctrl-C to stop.", flush=True)
