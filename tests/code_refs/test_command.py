"""`gatehouse code-refs`: what a scan loads, what a rescan replaces, and bad input as one line."""

from __future__ import annotations

import os
from datetime import UTC
from pathlib import Path
from types import SimpleNamespace

import pytest

from gatehouse.pipelines.cli.code_refs import project_lines
from gatehouse.pipelines.code_refs.scan import DYNAMIC_CONFIG, GATE, Entity, Hit
from tests.code_refs.conftest import commit_files, query
from tests.conftest import closed_port

REFERENCES = """
    select repository, branch, path, line, "column", entity_type, entity_id, text, matched, match_kind
    from console.code_references order by repository, path, line, "column", entity_type
"""
WEB_FILES = {
    "src/banner.ts": 'if (statsig.checkGate(user, "launch_banner")) {\n  show();\n}\n',
    "src/checkout.py": (
        'CHECKOUT = "old_checkout"\nlayout = get_config(user, "c_checkout")\nif check_gate(user, "ghost_gate"):\n    pass\n'
    ),
    "config/flags.yaml": "gates:\n  - dark_launch\n",
    "README.md": "the `launch_banner_v2` gate is not launch_banner\n",
}


def test_a_scan_loads_every_reference_with_its_location(database, tmp_path, gatehouse):
    web = tmp_path / "web"
    commit_files(web, WEB_FILES)
    run = gatehouse("code-refs", str(web), "--duckdb", str(database), "--whole-token")
    assert run.code == 0, run.err
    rows = query(database, REFERENCES)
    assert rows == [
        # whole-token mode: the YAML list item, and the README's unquoted mention (not the _v2 one)
        (
            "web",
            "main",
            "README.md",
            1,
            36,
            "gate",
            "launch_banner",
            "the `launch_banner_v2` gate is not launch_banner",
            "launch_banner",
            "token",
        ),
        ("web", "main", "config/flags.yaml", 2, 5, "gate", "dark_launch", "- dark_launch", "dark_launch", "token"),
        (
            "web",
            "main",
            "src/banner.ts",
            1,
            30,
            "gate",
            "launch_banner",
            'if (statsig.checkGate(user, "launch_banner")) {',
            "launch_banner",
            "literal",
        ),
        ("web", "main", "src/checkout.py", 1, 13, "gate", "old_checkout", 'CHECKOUT = "old_checkout"', "old_checkout", "literal"),
        (
            "web",
            "main",
            "src/checkout.py",
            2,
            28,
            "dynamic_config",
            "c_checkout",
            'layout = get_config(user, "c_checkout")',
            "c_checkout",
            "literal",
        ),
        (
            "web",
            "main",
            "src/checkout.py",
            3,
            22,
            "gate",
            "ghost_gate",
            'if check_gate(user, "ghost_gate"):',
            "ghost_gate",
            "check_call",
        ),
    ]
    [(commit,)] = query(database, 'select distinct "commit" from console.code_references')
    assert len(commit) == 40
    assert query(
        database,
        "select repository, reference_count, gate_count, dynamic_config_count, unknown_id_count, files_scanned from"
        " console.code_reference_scans",
    ) == [
        ("web", 6, 4, 1, 1, 4),
    ]
    assert run.out.splitlines() == [
        # the counts code_reference_scans holds: ghost_gate is one of the 4 gates, and the one id the console lacks
        f"web (main {commit[:12]}): 6 references to 4 gates and 1 dynamic config, 1 of these ids the console does not have",
        "  4 files scanned (0.0 MB)",
    ]
    # the views see them at once
    assert query(database, "select entity_id, console_status from analytics.code_orphans") == [("ghost_gate", "never existed")]


def references_by_repository(database: Path) -> list[tuple]:
    return query(database, "select repository, path, line, entity_id from console.code_references order by all")


def test_a_rescan_replaces_its_repository_only_also_when_nothing_is_left(database, tmp_path, gatehouse):
    web, api = tmp_path / "web", tmp_path / "api"
    commit_files(web, {"a.py": 'check("launch_banner")\ncheck("new_nav")\n'})
    commit_files(api, {"b.go": 'check("dark_launch")\n'})
    assert gatehouse("code-refs", str(web), str(api), "--duckdb", str(database)).code == 0
    assert references_by_repository(database) == [
        ("api", "b.go", 1, "dark_launch"),
        ("web", "a.py", 1, "launch_banner"),
        ("web", "a.py", 2, "new_nav"),
    ]
    # a reference removed from the code disappears
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    assert gatehouse("code-refs", str(web), "--duckdb", str(database)).code == 0
    assert references_by_repository(database) == [("api", "b.go", 1, "dark_launch"), ("web", "a.py", 1, "new_nav")]
    # and when none is left, the repository has no rows; the other repository keeps its own
    commit_files(web, {"a.py": "nothing here\n"})
    assert gatehouse("code-refs", str(web), "--duckdb", str(database)).code == 0
    assert references_by_repository(database) == [("api", "b.go", 1, "dark_launch")]
    # the history keeps every scan's counts
    assert query(
        database, "select repository, reference_count from console.code_reference_scans order by scanned_at, repository"
    ) == [
        ("api", 1),
        ("web", 2),
        ("web", 1),
        ("web", 0),
    ]
    assert query(
        database,
        "select gate_id, code_reference_count from analytics.stale_gates where gate_id in ('launch_banner', 'dark_launch')"
        " order by 1",
    ) == [
        ("dark_launch", 1),
        ("launch_banner", 0),
    ]


def test_repository_name_and_aliases(database, tmp_path, gatehouse):
    web = tmp_path / "checkout-abc123"
    commit_files(web, {"flags.py": "LAUNCH = 1\nif enabled(LAUNCH_BANNER):\n    pass\n"})
    aliases = tmp_path / "aliases.yaml"
    aliases.write_text("launch_banner: [LAUNCH_BANNER]\n")
    run = gatehouse("code-refs", str(web), "--repository-name", "acme/web", "--aliases", str(aliases), "--duckdb", str(database))
    assert run.code == 0, run.err
    assert query(database, "select repository, path, line, entity_id, matched, match_kind from console.code_references") == [
        ("acme/web", "flags.py", 2, "launch_banner", "LAUNCH_BANNER", "alias"),
    ]
    assert "alias of" not in run.err


def test_an_alias_of_an_id_no_run_loaded_is_refused(database, tmp_path, gatehouse):
    # the scan matches an alias to the ids it knows only: a typo's references would never be found
    web = tmp_path / "web"
    commit_files(web, {"flags.py": "if enabled(LAUNCH_BANNER):\n    pass\n"})
    before = query(database, "select table_name from information_schema.tables order by all")
    run = gatehouse("code-refs", str(web), "--alias", "launch_baner=LAUNCH_BANNER", "--duckdb", str(database))
    assert (run.code, run.err.splitlines()[-1]) == (
        2,
        "gatehouse: error: alias of launch_baner: no gate or dynamic config of that id has been loaded (did you mean"
        " launch_banner?); nothing scanned, the references already loaded are kept",
    )
    assert query(database, "select table_name from information_schema.tables order by all") == before


def test_a_plain_folder_has_no_branch_or_commit(database, tmp_path, gatehouse):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "x.sh").write_text("flag='new_nav'\n")
    assert gatehouse("code-refs", str(tmp_path / "scripts"), "--duckdb", str(database)).code == 0
    assert query(database, 'select repository, branch, "commit", path from console.code_references') == [
        ("scripts", None, None, "x.sh")
    ]


def _empty_repository(tmp: Path) -> str:
    commit_files(tmp / "empty", {})
    return str(tmp / "empty")


def _empty_folder(tmp: Path) -> str:
    (tmp / "nothing").mkdir()
    return str(tmp / "nothing")


def _a_file(tmp: Path) -> str:
    (tmp / "file.py").write_text("x")
    return str(tmp / "file.py")


BAD_PATHS = {
    "missing": (lambda tmp: str(tmp / "nowhere"), "no such file or directory"),
    "a file": (_a_file, "not a directory"),
    "an empty repository": (
        _empty_repository,
        "tracks no file (an empty repository or an unfinished checkout); nothing scanned, the references already loaded are kept",
    ),
    "an empty folder": (_empty_folder, "holds no file; nothing scanned"),
}


def test_a_bad_path_is_one_line_and_keeps_the_loaded_references(database, tmp_path, gatehouse):
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    assert gatehouse("code-refs", str(web), "--duckdb", str(database)).code == 0
    # each problem in turn on the one loaded database: a refused scan loads nothing, so each meets what the first left
    for problem, (make, message) in BAD_PATHS.items():
        path = make(tmp_path)
        # together with a good path: nothing of either is loaded
        run = gatehouse("code-refs", str(web), path, "--duckdb", str(database))
        assert run.code == 2 and run.out == "", (problem, run.code, run.out)
        assert message in run.error_line and run.error_line.startswith("gatehouse: error: "), (problem, run.error_line)
        assert references_by_repository(database) == [("web", "a.py", 1, "new_nav")], problem
        assert query(database, "select count(*) from console.code_reference_scans") == [(1,)], problem


def test_an_unreadable_folder_is_one_line(database, tmp_path, gatehouse, monkeypatch):
    # tests may run as root, for whom chmod 000 changes nothing: the permission check is what is tested
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if Path(path) == locked else real_access(path, mode))
    run = gatehouse("code-refs", str(locked), "--duckdb", str(database))
    assert run.code == 2 and "cannot read this folder (permission denied)" in run.error_line


def test_no_database_or_no_console_data_is_one_line(tmp_path, gatehouse):
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    run = gatehouse("code-refs", str(web), "--duckdb", str(tmp_path / "none.duckdb"))
    assert run.code == 2 and "no database at" in run.error_line and "gatehouse run" in run.error_line
    assert not (tmp_path / "none.duckdb").exists()
    import duckdb

    duckdb.connect(str(tmp_path / "empty.duckdb")).close()
    run = gatehouse("code-refs", str(web), "--duckdb", str(tmp_path / "empty.duckdb"))
    assert run.code == 2 and run.error_line == (
        f"gatehouse: error: no run has loaded {tmp_path / 'empty.duckdb'} yet (it holds no extraction): load it with"
        " `gatehouse run` (or `gatehouse run --demo`, then read it with --duckdb demo.duckdb); nothing was read or written"
    )


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--alias", "launch_banner"], "--alias 'launch_banner': expected ID=STRING"),
        (["{tmp}/other", "--repository-name", "x"], "--repository-name names one repository: give one PATH with it"),
        (["--aliases", "{tmp}/none.yaml"], "cannot read it"),
        (["--delimiters", "a<"], "--delimiters 'a<': give ASCII punctuation only"),
        (["--delimiters", "«»"], "give ASCII punctuation only"),
        # every file would be 'too large' and the rescan would replace the references with none
        (["--max-file-size", "-1"], "--max-file-size -1: give a number of bytes, or 0 for no limit"),
    ],
)
def test_bad_options_are_one_line(argv, message, database, tmp_path, gatehouse):
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    argv = [a.format(web=web, tmp=tmp_path) for a in argv]
    run = gatehouse("code-refs", str(web), *argv, "--duckdb", str(database))
    assert run.code == 2 and message in run.error_line


def test_help_explains_with_examples(gatehouse, capsys):
    with pytest.raises(SystemExit) as stop:
        gatehouse("code-refs", "--help")
    assert stop.value.code == 0
    text = capsys.readouterr().out
    assert "examples:" in text and "gatehouse code-refs . --repository-name acme/web --destination motherduck" in text


def test_an_unreachable_destination_is_one_line_without_its_password(tmp_path, gatehouse, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", f"postgresql://loader:pw-sentinel-91@127.0.0.1:{closed_port()}/dw")
    monkeypatch.chdir(tmp_path)
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    run = gatehouse("code-refs", str(web), "--destination", "postgres")
    assert run.code == 2
    assert run.error_line.startswith("gatehouse: error: destination postgres: cannot connect: ")
    assert "pw-sentinel-91" not in run.err + run.out


@pytest.mark.parametrize("as_git", [True, False], ids=["repository", "plain folder"])
@pytest.mark.parametrize(
    ("folder", "file", "repository", "path"),
    [
        # file names are bytes on POSIX; one saved in Latin-1 ('café.py') is not valid UTF-8 and used to fail the load
        (b"web", b"caf\xe9.py", "web", "caf\N{REPLACEMENT CHARACTER}.py"),
        # git could not list a repository under such a folder (its path was decoded with replacement characters),
        # and a plain folder's name failed the load
        (b"r\xe9po", b"a.py", "r\N{REPLACEMENT CHARACTER}po", "a.py"),
    ],
    ids=["file name", "folder name"],
)
def test_a_name_that_is_not_utf8_is_scanned_and_loaded_with_a_replacement_character(
    folder, file, repository, path, as_git, database, tmp_path, gatehouse
):
    web = tmp_path / os.fsdecode(folder)
    web.mkdir()
    (web / os.fsdecode(file)).write_text('check("new_nav")\n')
    if as_git:
        commit_files(web, {})
    run = gatehouse("code-refs", str(web), "--duckdb", str(database))
    assert run.code == 0, run.err
    assert references_by_repository(database) == [(repository, path, 1, "new_nav")]


def test_symlinks_and_special_files_are_counted_as_skipped(database, tmp_path, gatehouse):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "x.sh").write_text("flag='new_nav'\n")
    (scripts / "y.sh").symlink_to(scripts / "x.sh")
    os.mkfifo(scripts / "pipe")
    run = gatehouse("code-refs", str(scripts), "--duckdb", str(database))
    assert run.code == 0, run.err
    assert run.out.splitlines() == [
        "scripts: 1 reference to 1 gate and 0 dynamic configs, 0 of these ids the console does not have",
        "  1 files scanned (0.0 MB), skipped: 2 symlinks or special files",
    ]


def test_a_database_a_notebook_holds_is_waited_for_then_given_up_on_in_one_line(database, tmp_path, gatehouse):
    # the ids were read before the wait that --lock-timeout promises: a held file failed the scan at once
    from tests.drills.test_database_in_use import Holder

    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("new_nav")\n'})
    holder = Holder(database, seconds=2)
    try:
        run = gatehouse("code-refs", str(web), "--duckdb", str(database), "--lock-timeout", "120")
    finally:
        holder.release()
    assert run.code == 0, run.err
    assert references_by_repository(database) == [("web", "a.py", 1, "new_nav")]
    holder = Holder(database, seconds=120)
    try:
        run = gatehouse("code-refs", str(web), "--duckdb", str(database), "--lock-timeout", "1")
    finally:
        holder.release()
    [line] = [line for line in run.err.splitlines() if line.startswith("gatehouse: error:")]
    assert run.code == 2 and f"(PID {holder.pid})" in line and "waited 1 s" in line and "--lock-timeout" in line
    assert references_by_repository(database) == [("web", "a.py", 1, "new_nav")]


def test_an_aliases_file_that_is_not_utf8_is_one_line(database, tmp_path, gatehouse):
    # PowerShell's `>` writes UTF-16: the scan ended in a UnicodeDecodeError traceback
    web = tmp_path / "web"
    commit_files(web, {"a.py": 'check("NEW_NAV")\n'})
    aliases = tmp_path / "aliases.json"
    aliases.write_bytes('{"new_nav": ["NEW_NAV"]}'.encode("utf-16"))
    run = gatehouse("code-refs", str(web), "--duckdb", str(database), "--aliases", str(aliases))
    assert run.code == 2
    assert run.error_line == f"gatehouse: error: --aliases {aliases}: not UTF-8 text (save it as UTF-8)"
    # a UTF-8 file with a byte-order mark (PowerShell's Out-File -Encoding utf8) is read
    aliases.write_bytes('{"new_nav": ["NEW_NAV"]}'.encode("utf-8-sig"))
    assert gatehouse("code-refs", str(web), "--duckdb", str(database), "--aliases", str(aliases)).code == 0
    assert query(database, "select entity_id, matched, match_kind from console.code_references") == [
        ("new_nav", "NEW_NAV", "alias")
    ]


def test_the_summary_counts_ids_the_console_lacks_as_gates_and_configs_too():
    # A scan of gatehouse's own repository against the demo: every reference a check of an id the demo lacks,
    # once summed up as "20 references to 0 gates and 0 dynamic configs, 8 ids the console does not have".
    from datetime import datetime

    from gatehouse.pipelines.cli.code_refs import summary_lines
    from gatehouse.pipelines.code_refs.scan import Entity, Matcher, Repository, RepositoryScan, ScanStats

    code = (
        b'checkGate(user, "ghost_gate")\ncheckGate(user, "ghost_gate")\nget_config(user, "ghost_config")\n'
        b'check_gate(user, "launch_banner")\nx = "launch_banner"\n'
    )
    hits = Matcher([Entity("gate", "launch_banner")]).hits(code, "a.py")
    scan = RepositoryScan(
        Repository(Path("/src/r"), "r", False, None, None),
        hits,
        ScanStats(files_scanned=1, bytes_scanned=len(code)),
        datetime(2026, 11, 21, tzinfo=UTC),
        "s",
    )
    assert summary_lines([scan], {("gate", "launch_banner")}) == [
        "r: 5 references to 2 gates and 1 dynamic config, 2 of these ids the console does not have",
        "  1 files scanned (0.0 MB)",
    ]


def test_with_several_projects_the_summary_counts_each_projects_ids_and_names_the_shared_ones():
    # `checkout_v2` is a gate of both projects: a reference to it counts for each, and is named as shared.
    entities = {
        Entity(GATE, "checkout_v2"): ["mobile", "web"],
        Entity(GATE, "web_only"): ["web"],
        Entity(DYNAMIC_CONFIG, "theme"): ["mobile"],
        Entity(GATE, "never_referenced"): ["mobile", "web"],
    }
    hits = [
        Hit(GATE, entity_id, "app.py", line, 1, entity_id, entity_id, "LITERAL")
        for line, entity_id in enumerate(["checkout_v2", "web_only", "checkout_v2"], start=1)
    ]
    hits.append(Hit(DYNAMIC_CONFIG, "theme", "app.py", 4, 1, "theme", "theme", "LITERAL"))
    scans = [SimpleNamespace(hits=hits)]
    assert project_lines(scans, entities) == [
        "referenced ids by project: mobile 2, web 2",
        "1 referenced ids are in more than one project: checkout_v2 (mobile, web)",
    ]
    # one console: nothing more to say than the summary's counts
    assert project_lines(scans, {entity: ["default"] for entity in entities}) == []
