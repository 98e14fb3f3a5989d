"""No secret leaves the process: every command of the product, run with distinct sentinel secrets.

Each command runs as a user runs it (in its own process, debug logging on, settings and secrets in the
environment or a secrets file) against a twin that accepts the sentinel key and SCIM token and, like the
real service, quotes a wrong key back in its 401 text. The first load and `gatehouse twin serve` start
the installed `gatehouse` script; the others are forks of one process that has imported the commands
(tests/drills/forked_commands.py), each with its own environment, output and exit, without paying
Python's start and imports again, which see no secret. None of the
sentinels may then appear, whole or as any 10-character part, in stdout, stderr (the log), or any file
the commands left behind: the DuckDB file (every table, the compressed dlt state decoded), the HTML
reports, the dlt pipeline state, load packages and trace, or anything written under HOME.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import json
import re
import shutil
import signal
import subprocess
import tempfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest
import yaml

from gatehouse.console_twin import ConsoleTwin, TwinSettings
from gatehouse.pipelines.cli.main import build_parser
from tests.conftest import closed_port
from tests.drills.computed_views import views_as_tables
from tests.drills.conftest import ORG_SEED, ORG_SIZE, clean_environment, gatehouse_command
from tests.drills.forked_commands import ForkedCommands
from tests.secret_scan import CommandOutput, leak_check

SECRETS = {
    "api key": "console-Zq8Wd3Kv6Np1Hx4Tb",
    "wrong api key": "console-Rm5Gy2Lc9Fs7Uj3Qe",
    "scim token": "scim-Pk4Vn8Ta1Xw6Ed2Ry",
    "wrong scim token": "scim-Bh7Oc3Jz5Mg9Sl4Fu",
    "snowflake password": "sfpw-Wc6Ny1Ke8Qh3Zd5Ai",
    "snowflake private key": (
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
        "Xq7Nw2Lr5Kd8Ty3Vb6Hm1Jc4Gs9Pu2Fo7Ie5Wa3Zx8Qn1Rk6Ml4SbCt0\n"
        "Jy3Hw8Ua5Dn2Kq7Ep4Mb9Zf6\n"
        "-----END ENCRYPTED PRIVATE KEY-----\n"
    ),
    "snowflake key passphrase": "sfkp-Ty5Hu2Ji9Ko6Lp3Mq",
    "databricks access token": "dapi-Vr4Nc7Xe1Bw8Qs2Gd",
    "alert webhook token": "hook-Mx3Qz8Wb5Ls1Ke7Pa",
    "bigquery private key": (
        "-----BEGIN PRIVATE KEY-----\nBv2Lg7Qy4Tc9Wn1Rx6Hs3Kd8Mf5Pz0Ja2Ue7Io4Yb9Nl6Gt1Sk3Ow8Ev5\n-----END PRIVATE KEY-----\n"
    ),
    "postgres password": "pgpw-Lx3Dn6Ry9Bh2Vt5Ka",
    "motherduck token": "mdtk-Ef8Uc1Wq4Oj7Zp3Ng",
}
leaks = leak_check(SECRETS)


@functools.cache  # the parser does not change: building it for each command's argv cost a second a drill
def leaf_commands() -> frozenset[tuple[str, ...]]:
    """Every command `gatehouse --help` leads to, as its words: ("run",), ("console", "role", "create"), ..."""

    def walk(parser, prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        subparsers = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        if not subparsers:
            return {prefix}
        return {leaf for a in subparsers for name, sub in a.choices.items() for leaf in walk(sub, (*prefix, name))}

    return frozenset(walk(build_parser(), ()))


def command_of(argv: list[str]) -> tuple[str, ...]:
    words = [a for a in argv if not a.startswith("-")]
    leaves = leaf_commands()
    for n in range(len(words), 0, -1):
        if tuple(words[:n]) in leaves:
            return tuple(words[:n])
    return ()


# ----------------------------------------------------------------------------- scanning what was left


def texts_of_file(path: Path) -> list[str]:
    """The text of a file as a reader would find a secret in it: raw, and decoded where compressed."""
    raw = path.read_bytes()
    # A secret holds no NUL byte, so a run of them may stand for one: a DuckDB file is mostly empty blocks, which
    # cost a second of scanning each.
    texts = [re.sub(rb"\x00+", b"\x00", raw).decode("utf-8", "replace")]
    if raw[:2] == b"\x1f\x8b":
        texts.append(gzip.decompress(raw).decode("utf-8", "replace"))
    if path.suffix == ".parquet":
        with duckdb.connect() as con:
            texts.append(repr(con.execute("select * from read_parquet(?)", [str(path)]).fetchall()))
    if path.suffix == ".duckdb":
        texts.append(database_text(path))
    return texts


def database_text(path: Path) -> str:
    """Every value of every table and view of a DuckDB file, dlt's compressed pipeline state decoded. Read from a copy,
    in which each view is computed into a table (tests/drills/computed_views.py)."""
    parts = []
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / path.name
        for suffix in ("", ".wal"):
            if path.with_name(path.name + suffix).exists():
                shutil.copyfile(path.with_name(path.name + suffix), copy.with_name(copy.name + suffix))
        with duckdb.connect(str(copy)) as con, views_as_tables(con):
            tables = con.execute("select table_schema, table_name from information_schema.tables").fetchall()
            for schema, table in tables:
                cursor = con.execute(f'select * from "{schema}"."{table}"')
                names = [d[0] for d in cursor.description]
                rows = cursor.fetchall()
                parts.append(repr(rows))
                if table == "_dlt_pipeline_state":
                    for row in rows:
                        encoded = dict(zip(names, row)).get("state")
                        if encoded:
                            parts.append(zlib.decompress(base64.b64decode(encoded)).decode("utf-8", "replace"))
    return "\n".join(parts)


def leaks_in_files(root: Path) -> dict[str, list[str]]:
    found = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name.endswith(".wal"):
            continue  # replayed into the .duckdb file, which is read whole
        names = sorted({name for text in texts_of_file(path) for name in leaks(text)})
        if names:
            found[str(path.relative_to(root))] = names
    return found


# ----------------------------------------------------------------------------- the commands


PIPELINE = {
    "name": "Staged rollout",
    "phases": [{"name": "Everyone", "timeIntervalMs": 0, "requiredReview": False, "rules": []}],
}
SCIM_PATCH = {"Operations": [{"op": "add", "path": "members", "value": [{"value": "user_1", "display": "Ada"}]}]}
SNOWFLAKE = ["--snowflake", "--account-name", "acme-eu", "--service-user-name", "SVC_GH", "--staging-database-name",
             "ANALYTICS", "--staging-schema-name", "GH_STAGING", "--compute-warehouse", "GH_WH"]  # fmt: skip
DATABRICKS = ["--databricks", "--host", "dbc-1234.cloud.databricks.com", "--path", "/sql/1.0/warehouses/abc",
              "--staging-database", "gh_staging"]  # fmt: skip
BIGQUERY = ["--bigquery", "--project", "acme-exp", "--staging-dataset", "gh_staging"]


def console_commands(twin: ConsoleTwin, inputs: Path) -> list[tuple[list[str], dict[str, str]]]:
    """(argv after `gatehouse -vv`, extra environment) of every console operation, in ways that fail too."""
    org = twin.organisation
    gate = org.listed_gates()[0]["id"]
    archived = next(i for i, c in org.dynamic_configs.items() if c["status"] == "Archived")
    pipeline = next(iter(org.release_pipelines))
    group = next(iter(org.scim_groups))
    files = {
        "pipeline.yaml": yaml.safe_dump(PIPELINE),
        "patch.json": json.dumps(SCIM_PATCH),
        "snowflake.yaml": yaml.safe_dump(
            {
                "snowflake": {
                    "serviceUserPassword": SECRETS["snowflake password"],
                    "privateKey": SECRETS["snowflake private key"],
                    "keyPassPhrase": SECRETS["snowflake key passphrase"],
                }
            }
        ),  # fmt: skip
    }
    for name, content in files.items():
        (inputs / name).write_text(content)
    wrong_key = {"SOURCES__CONSOLE__API_KEY": SECRETS["wrong api key"]}
    return [
        (["console", "gate", gate], {}),
        (["console", "gate", gate], wrong_key),  # 401 quoting the wrong key
        (["console", "holdout", twin.holdout_ids[0], "--format", "table"], {}),
        (["console", "exposures", twin.experiment_ids[0]], {}),
        (["console", "ingestion-run", twin.ingestion_run_ids[0]], {}),
        (["console", "gates", "--limit", "5"], {}),
        (["console", "gates"], wrong_key),
        (["console", "dynamic-configs"], {}),
        (["console", "qualifying-events", "--format", "table"], {}),
        (["console", "unarchive-config", archived, "--dry-run"], {}),
        (["console", "unarchive-config", archived, "--reason", "drill"], {}),
        (["console", "release-pipeline", "create", "--file", str(inputs / "pipeline.yaml")], {}),
        (["console", "release-pipeline", "update", pipeline, "--file", str(inputs / "pipeline.yaml"), "--dry-run"], {}),
        (["console", "release-pipeline", "update", pipeline, "--file", str(inputs / "pipeline.yaml")], wrong_key),
        (["console", "role", "create", "Drill role", "--allow", "create_configs"], {}),
        (["console", "role", "create", "Drill role 2", "--allow", "create_configs", "--dry-run"], {}),
        (["console", "scim", "group-patch", group, "--file", str(inputs / "patch.json")], {}),
        (["console", "scim", "group-patch", group, "--file", str(inputs / "patch.json"), "--dry-run"], {}),
        (
            ["console", "scim", "group-patch", group, "--file", str(inputs / "patch.json")],
            {"SOURCES__CONSOLE__SCIM_TOKEN": SECRETS["wrong scim token"]},
        ),
        (["console", "wh-connection", "set", *SNOWFLAKE, "--secrets-file", str(inputs / "snowflake.yaml")], {}),
        (["console", "wh-connection", "set", *SNOWFLAKE, "--secrets-file", str(inputs / "snowflake.yaml"), "--dry-run"], {}),
        (["console", "wh-connection", "set", *DATABRICKS], {}),
        (["console", "wh-connection", "set", *BIGQUERY, "--dry-run"], {}),
        (["console", "wh-connection", "set", *BIGQUERY], wrong_key),
    ]


def test_the_scan_finds_a_secret_wherever_it_is_written(tmp_path):
    key, token, password = SECRETS["api key"], SECRETS["scim token"], SECRETS["postgres password"]
    (tmp_path / "plain.log").write_text(f"header SERVICE-API-KEY: {key[3:17]}")
    (tmp_path / "job.insert_values.gz").write_bytes(gzip.compress(f"insert ... '{token}'".encode()))
    with duckdb.connect() as con:
        con.execute(f"copy (select '{password}' as v) to '{tmp_path / 'job.parquet'}' (format parquet)")
    state = base64.b64encode(zlib.compress(json.dumps({"api_key": SECRETS["wrong api key"]}).encode())).decode()
    with duckdb.connect(str(tmp_path / "db.duckdb")) as con:
        con.execute("create table _dlt_pipeline_state (state varchar)")
        con.execute("insert into _dlt_pipeline_state values (?)", [state])
        con.execute("create table t as select ? as v", [SECRETS["snowflake private key"]])

    assert leaks_in_files(tmp_path) == {
        "plain.log": ["api key"],
        "job.insert_values.gz": ["scim token"],
        "job.parquet": ["postgres password"],
        "db.duckdb": ["snowflake private key", "wrong api key"],
    }


@pytest.mark.slow
def test_no_command_leaks_a_secret(tmp_path):
    twin = ConsoleTwin(ORG_SIZE, ORG_SEED, TwinSettings(api_key=SECRETS["api key"], scim_token=SECRETS["scim token"]))
    work, home, inputs, outputs = tmp_path / "work", tmp_path / "home", tmp_path / "inputs", tmp_path / "outputs"
    for directory in (work, home, inputs, outputs):
        directory.mkdir()
    done: list[CommandOutput] = []

    with twin.serve() as base_url, contextlib.ExitStack() as stack:
        env = clean_environment(
            HOME=str(home),
            DLT_DATA_DIR=str(home / ".dlt"),
            SOURCES__CONSOLE__BASE_URL=base_url,
            SOURCES__CONSOLE__API_KEY=SECRETS["api key"],
            SOURCES__CONSOLE__SCIM_TOKEN=SECRETS["scim token"],
            SOURCES__CONSOLE__EXPERIMENT_IDS=json.dumps(twin.experiment_ids),
            SOURCES__CONSOLE__INGESTION_RUN_IDS=json.dumps(twin.ingestion_run_ids),
            GATEHOUSE_DATABRICKS_ACCESS_TOKEN=SECRETS["databricks access token"],
            GATEHOUSE_BIGQUERY_PRIVATE_KEY=SECRETS["bigquery private key"],
            GATEHOUSE_SNOWFLAKE_PASSWORD=SECRETS["snowflake password"],
            DESTINATION__MOTHERDUCK__CREDENTIALS__PASSWORD=SECRETS["motherduck token"],
            DESTINATION__POSTGRES__CREDENTIALS=f"postgresql://loader:{SECRETS['postgres password']}@127.0.0.1:{closed_port()}/dw",
        )

        def script(argv: list[str]) -> CommandOutput:
            ran = subprocess.run([*gatehouse_command(), *argv], env=env, cwd=work, capture_output=True, text=True,
                                 timeout=300)  # fmt: skip
            return CommandOutput(argv, ran.returncode, ran.stdout, ran.stderr)

        loaded = script(["-vv", "run", "--no-progress", "--duckdb", "gatehouse.duckdb"])
        done.append(loaded)
        assert loaded.code == 0, loaded.err
        forked = ForkedCommands(env, work, outputs)
        stack.callback(forked.close)

        def gatehouse(argv: list[str], extra: dict[str, str] | None = None) -> CommandOutput:
            result = forked.run(["-vv", *argv], {**env, **(extra or {})}, work)
            done.append(result)
            return result

        (work / "app").mkdir()
        (work / "app" / "flags.py").write_text('if check_gate(user, "ghost_gate"):\n    pass\n')
        scanned = gatehouse(["code-refs", "app", "--duckdb", "gatehouse.duckdb"])
        assert scanned.code == 0, scanned.err
        unreachable = gatehouse(["code-refs", "app", "--destination", "postgres"])
        assert unreachable.code == 2, unreachable.err
        cleaned = gatehouse(
            ["cleanup", "--all", "--repo", str(repository_checking_a_decided_gate(work)), "--duckdb", "gatehouse.duckdb"]
        )
        assert cleaned.code == 0 and "made 1 branch" in cleaned.out, cleaned.err
        decided = decided_gate(work)
        for argv in (
            ["gates", "snooze", decided, "--until", "2099-01-01", "--reason", "a freeze"],
            ["gates", "snoozes"],
            ["gates", "unsnooze", decided],
        ):
            snoozed = gatehouse([*argv, "--duckdb", "gatehouse.duckdb"])
            assert snoozed.code == 0, snoozed.err
        with ThreadPoolExecutor(max_workers=3) as pool:
            report = pool.submit(gatehouse, ["report", "--duckdb", "gatehouse.duckdb", "--out", "reports"])
            served = pool.submit(serve_twin, env, work)
            rejected = pool.submit(gatehouse, ["run", "--no-progress", "--duckdb", "rejected.duckdb"],
                                   {"SOURCES__CONSOLE__API_KEY": SECRETS["wrong api key"]})  # fmt: skip
            elsewhere = pool.submit(gatehouse, ["run", "--no-progress", "--destination", "postgres"])
            results = list(pool.map(lambda command: gatehouse(*command), console_commands(twin, inputs)))
            assert report.result().code == 0, report.result().err
            assert rejected.result().code == 2 and "401" in rejected.result().err, rejected.result().err
            assert elsewhere.result().code == 2, elsewhere.result().err
            done.append(served.result())
        views = gatehouse(["views", "--duckdb", "gatehouse.duckdb", "--set", "stall_days=3"])
        assert views.code == 0, views.err
        assert gatehouse(["views", "--destination", "postgres"]).code == 2
        queried = gatehouse(["sql", "--duckdb", "gatehouse.duckdb", "--format", "json",
                             "select * from console.extraction_runs"])  # fmt: skip
        assert queried.code == 0, queried.err
        assert gatehouse(["sql", "--destination", "postgres", "select 1"]).code == 2
        # what the alerts would send, with a webhook whose address holds a token: printed, never the token
        alerted = gatehouse(
            ["alerts", "--duckdb", "gatehouse.duckdb", "--dry-run"],
            {"GATEHOUSE__ALERTS__WEBHOOK_URL": f"http://127.0.0.1:9/hook?token={SECRETS['alert webhook token']}"},
        )
        assert alerted.code == 0 and "[webhook]" in alerted.out, alerted.err
        # every setting and where it came from: the key, the token and the webhook's address as ***
        configured = gatehouse(
            ["config"], {"GATEHOUSE__ALERTS__WEBHOOK_URL": f"http://127.0.0.1:9/hook?token={SECRETS['alert webhook token']}"}
        )
        assert configured.code == 0 and configured.out.count("***") == 3, configured.out + configured.err
        adopted = gatehouse(["projects", "adopt", "web", "--duckdb", "gatehouse.duckdb"])
        assert adopted.code == 0, adopted.err
        failed = [r.argv for r in results if r.code != 0 and not any(w in r.err for w in ("401", "HTTP"))]
        assert not failed, f"commands that should have worked failed: {failed}"

    sent = [json.dumps(r.headers) + r.body.decode("utf-8", "replace") for r in twin.requests]
    assert {"api key", "wrong api key", "scim token", "wrong scim token", "snowflake password",
            "databricks access token"} <= {n for text in sent for n in leaks(text)}, "the sentinels were in play"  # fmt: skip
    assert any(request.status == 401 for request in twin.requests), "the twin quoted a wrong key back"

    missing = leaf_commands() - {command_of(r.argv[1:]) for r in done}
    assert not missing, f"commands not exercised by this test: {sorted(missing)}"
    leaked_output = {" ".join(r.argv): leaks(r.out + r.err) for r in done if leaks(r.out + r.err)}
    assert not leaked_output, f"secrets in the output of: {leaked_output}"
    assert not leaks_in_files(work), f"secrets in files: {leaks_in_files(work)}"
    assert not leaks_in_files(home), f"secrets in files under HOME: {leaks_in_files(home)}"
    assert list(work.glob("reports/*.html")), "the reports were written and scanned"


def decided_gate(work: Path) -> str:
    """The first gate the loaded data decides a value for."""
    with duckdb.connect(str(work / "gatehouse.duckdb"), read_only=True) as connection:
        [(gate_id,)] = connection.execute(
            "select gate_id from analytics.cleanup_decisions where is_decided order by gate_id limit 1"
        ).fetchall()
    return gate_id


def repository_checking_a_decided_gate(work: Path) -> Path:
    """A git repository whose one file checks a gate the loaded data decides: `gatehouse cleanup` makes its branch."""
    gate_id = decided_gate(work)
    root = work / "service"
    root.mkdir()
    (root / "checkout.py").write_text(
        f'from statsig import statsig\n\n\ndef enabled(user):\n    return statsig.check_gate(user, "{gate_id}")\n'
    )
    identity = ["-c", "user.name=Test Person", "-c", "user.email=test@example.com"]
    for args in (["init", "--quiet"], ["add", "."], [*identity, "commit", "--quiet", "-m", "a check"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)
    return root


def serve_twin(env: dict[str, str], work: Path) -> CommandOutput:
    """`gatehouse twin serve` until it has printed its instructions, then SIGTERM (its clean stop)."""
    argv = ["-vv", "twin", "serve", "--port", "0"]
    process = subprocess.Popen([*gatehouse_command(), *argv], env=env, cwd=work, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.startswith("Press Ctrl-C"):
            break
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    return CommandOutput(argv, process.returncode, "".join(lines) + out, err)
