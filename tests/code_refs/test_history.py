"""What every scan keeps: the ids each found in each repository (`code_reference_sightings`), the owners of the
files (CODEOWNERS), and whether the scan read every file that could hold a reference."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import dlt

from gatehouse.pipelines.code_refs import scan
from gatehouse.pipelines.code_refs.scan import Hit, Repository, RepositoryScan, ScanInputError, ScanStats, open_repository
from gatehouse.pipelines.warehouse.views import apply_views
from gatehouse.sources.code_refs import code_references_source
from gatehouse.sources.code_refs.scans import incomplete_reason
from tests.code_refs.conftest import commit_files, query
from tests.views.console_dataset import console_pipeline

SIGHTINGS = """
    select dense_rank() over (order by scanned_at) as scan_number, repository, entity_type, entity_id, reference_count,
        code_owners
    from analytics.stg_code_reference_sightings order by 1, 2, 3, 4
"""
SCANS = """
    select dense_rank() over (order by scanned_at) as scan_number, repository, reference_count, is_complete, incomplete_reason
    from analytics.stg_code_reference_scans order by 1, 2
"""
WEB_CODEOWNERS = """\
# the web team owns everything; payments owns checkout, with the web team
*                   @acme/web
/src/checkout.py    @acme/payments @acme/web
docs/               writers@acme.example
"""


def test_every_scan_keeps_its_sightings_and_a_reference_that_left_has_none(database, tmp_path, gatehouse):
    web, api = tmp_path / "web", tmp_path / "api"
    commit_files(
        web,
        {
            ".github/CODEOWNERS": WEB_CODEOWNERS,
            "src/banner.ts": 'check("launch_banner")\ncheck("launch_banner")\n',
            "src/checkout.py": 'check("launch_banner")\nget_config("c_checkout")\n',
            "docs/flags.md": "`old_checkout`\n",
        },
    )
    commit_files(api, {"b.go": 'check("launch_banner")\ncheck("dark_launch")\n'})  # no CODEOWNERS
    assert gatehouse("code-refs", str(web), str(api), "--duckdb", str(database)).code == 0
    # launch_banner leaves api; web is scanned again unchanged
    commit_files(api, {"b.go": 'check("dark_launch")\n'})
    assert gatehouse("code-refs", str(web), str(api), "--duckdb", str(database)).code == 0
    web_rows = [
        ("web", "dynamic_config", "c_checkout", 1, "@acme/payments @acme/web"),
        # two files: the owners of both, each once, sorted
        ("web", "gate", "launch_banner", 3, "@acme/payments @acme/web"),
        ("web", "gate", "old_checkout", 1, "writers@acme.example"),
    ]
    assert query(database, SIGHTINGS) == [
        (1, "api", "gate", "dark_launch", 1, None),
        (1, "api", "gate", "launch_banner", 1, None),
        *((1, *row) for row in web_rows),
        # the second scan of api has no launch_banner row: its scan row says api was scanned
        (2, "api", "gate", "dark_launch", 1, None),
        *((2, *row) for row in web_rows),
    ]
    assert query(database, SCANS) == [
        (1, "api", 2, True, None),
        (1, "web", 5, True, None),
        (2, "api", 1, True, None),
        (2, "web", 5, True, None),
    ]
    # each reference names its file's owners, in the CODEOWNERS file's order
    assert query(database, "select repository, path, line, code_owners from analytics.stg_code_references order by 1, 2, 3") == [
        ("api", "b.go", 1, None),
        ("web", "docs/flags.md", 1, "writers@acme.example"),
        ("web", "src/banner.ts", 1, "@acme/web"),
        ("web", "src/banner.ts", 2, "@acme/web"),
        ("web", "src/checkout.py", 1, "@acme/payments @acme/web"),
        ("web", "src/checkout.py", 2, "@acme/payments @acme/web"),
    ]
    # the scan keys are unique
    assert query(
        database,
        "select count(*), count(distinct scan_id || repository || entity_type || entity_id)"
        " from console.code_reference_sightings",
    ) == [(9, 9)]


def test_a_file_skipped_as_too_large_makes_the_scan_incomplete_a_binary_one_does_not(database, tmp_path, gatehouse):
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("launch_banner")\n', "big.json": '{"x": "new_nav"}' + " " * 200 + "\n"})
    (web / "logo.png").write_bytes(b"\x89PNG\0\0" + b'"dark_launch"')
    commit_files(web, {})
    assert gatehouse("code-refs", str(web), "--duckdb", str(database), "--max-file-size", "100").code == 0
    assert gatehouse("code-refs", str(web), "--duckdb", str(database)).code == 0
    assert query(database, SCANS) == [(1, "web", 1, False, "1 file skipped as too large"), (2, "web", 2, True, None)]
    assert query(database, "select files_skipped_binary from console.code_reference_scans") == [(1,), (1,)]


def test_a_scan_that_fails_records_nothing_of_any_repository(database, tmp_path, gatehouse, monkeypatch):
    web, api = tmp_path / "web", tmp_path / "api"
    commit_files(web, {"a.py": 'check("launch_banner")\n'})
    commit_files(api, {"b.go": 'check("dark_launch")\n'})
    real_scan = scan.scan_repository

    def failing_for_api(repository, *args, **kwargs):
        if repository.name == "api":
            raise ScanInputError(f"{repository.root}: git cannot list the tracked files")
        return real_scan(repository, *args, **kwargs)

    monkeypatch.setattr("gatehouse.pipelines.cli.code_refs.scan_repository", failing_for_api)
    run = gatehouse("code-refs", str(web), str(api), "--duckdb", str(database))
    assert run.code == 2 and "git cannot list the tracked files" in run.error_line
    # nothing written: not even the tables
    assert query(database, "select table_name from information_schema.tables where table_name like 'code_ref%'") == []


def test_unreadable_files_and_folders_are_the_reason_too():
    assert incomplete_reason(ScanStats()) is None
    assert incomplete_reason(ScanStats(skipped_binary=3, skipped_excluded=2, skipped_special=1)) is None
    assert incomplete_reason(ScanStats(skipped_large=["a", "b", "c"], unreadable=["d.py", "e/", "f/"])) == (
        "3 files skipped as too large, 1 file unreadable, 2 folders unreadable"
    )


def test_a_plain_folder_s_unreadable_folder_is_counted_unreadable(tmp_path, monkeypatch):
    # tests may run as root, who reads any folder: os.walk's report of one it cannot read is what is tested
    (tmp_path / "plain" / "locked").mkdir(parents=True)
    (tmp_path / "plain" / "a.py").write_text('check("launch_banner")\n')
    real_walk = os.walk

    def walk(top, onerror=None, **kwargs):
        for folder, subfolders, files in real_walk(top, onerror=onerror, **kwargs):
            if "locked" in subfolders:
                subfolders.remove("locked")
                onerror(PermissionError(13, "Permission denied", os.path.join(folder, "locked")))
            yield folder, subfolders, files

    monkeypatch.setattr(os, "walk", walk)
    hits, stats = scan.scan_repository(open_repository(tmp_path / "plain"), scan.Matcher([scan.Entity("gate", "launch_banner")]))
    assert (len(hits), stats.files_scanned, stats.unreadable) == (1, 1, ["locked/"])
    assert incomplete_reason(stats) == "1 folder unreadable"


SCANNED_AT = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


@dlt.source(name="code_references", max_table_nesting=0)
def source_before_history() -> object:
    """The two tables as `gatehouse code-refs` wrote them before sightings, owners and completeness."""
    references = dlt.resource(
        [
            {
                "entity_type": "gate",
                "entity_id": "dark_launch",
                "repository": "api",
                "path": "b.go",
                "line": 1,
                "column": 7,
                "scan_id": "old",
                "scanned_at": SCANNED_AT,
            }
        ],
        name="code_references",
    )
    scans = dlt.resource(
        [{"scan_id": "old", "repository": "api", "scanned_at": SCANNED_AT, "reference_count": 1, "files_skipped_large": 0}],
        name="code_reference_scans",
    )
    return references, scans


def test_a_database_loaded_before_the_history_keeps_working(database, tmp_path, gatehouse):
    console_pipeline(database, tmp_path).run(source_before_history())
    apply_views(database)
    assert query(database, SCANS) == [(1, "api", 1, None, None)]  # not known for a scan loaded before
    assert query(database, "select count(*) from analytics.stg_code_reference_sightings") == [(0,)]
    assert query(database, "select repository, code_owners from analytics.stg_code_references") == [("api", None)]
    # the next scan adds the columns and the table
    api = tmp_path / "api"
    commit_files(api, {"b.go": 'check("dark_launch")\n', "CODEOWNERS": "* @api\n"})
    assert gatehouse("code-refs", str(api), "--duckdb", str(database)).code == 0
    assert query(database, SCANS) == [(1, "api", 1, None, None), (2, "api", 1, True, None)]
    assert query(database, SIGHTINGS) == [(1, "api", "gate", "dark_launch", 1, "@api")]  # the only scan with sightings
    assert query(database, "select repository, code_owners from analytics.stg_code_references") == [("api", "@api")]


def test_the_source_writes_owners_and_sightings_from_a_scan():
    repository = Repository(Path("/src/r"), "r", False, None, None)
    hits = [Hit("gate", "g", path, 1, 1, "", "g", "literal") for path in ("a.py", "b.py", "c.py")]
    owned = RepositoryScan(repository, hits, ScanStats(unreadable=["x.py"]), SCANNED_AT, "s", {"a.py": "@b @a", "b.py": "@a @c"})
    source = code_references_source([owned])
    assert [row.get("code_owners") for row in source.resources["code_references"]] == [None, "@b @a", "@a @c", None]
    assert list(code_references_source([owned]).resources["code_reference_sightings"]) == [
        {
            "scan_id": "s",
            "repository": "r",
            "scanned_at": SCANNED_AT,
            "entity_type": "gate",
            "entity_id": "g",
            "reference_count": 3,
            "code_owners": "@a @b @c",
        },
    ]
    [scan_row] = code_references_source([owned]).resources["code_reference_scans"]
    assert (scan_row["is_complete"], scan_row["incomplete_reason"]) == (False, "1 file unreadable")
