"""The scanner alone: matching rules, files it reads and skips, encodings."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gatehouse.pipelines.code_refs.scan import (
    DEFAULT_EXCLUDES,
    Entity,
    Matcher,
    MatchRules,
    ScanInputError,
    is_excluded,
    open_repository,
    scan_repository,
)

DEFAULT_RULES = MatchRules()
ENTITIES = [Entity("gate", "new_checkout"), Entity("dynamic_config", "pricing"), Entity("gate", "dark-mode")]


def found(text: str | bytes, rules: MatchRules = DEFAULT_RULES, entities=ENTITIES) -> list[tuple]:
    data = text.encode() if isinstance(text, str) else text
    return [(h.entity_id, h.line, h.column, h.match_kind) for h in Matcher(entities, rules).hits(data, "f")]


@pytest.mark.parametrize(
    "source, expected",
    [
        ('if gate("new_checkout"):', [("new_checkout", 1, 10, "literal")]),
        ("check('new_checkout')", [("new_checkout", 1, 8, "literal")]),
        ("check(`new_checkout`)", [("new_checkout", 1, 8, "literal")]),
        # the examples: not inside a longer literal, not inside an identifier
        ('check("new_checkout_v2")', []),
        ('check("old_new_checkout")', []),
        ("if new_checkout_enabled:", []),
        ("new_checkout = 1", []),
        # case-sensitive
        ('check("New_Checkout")', []),
        # an unbalanced quote earlier on the line does not hide the literal after it
        ("it's checked: 'new_checkout'", [("new_checkout", 1, 16, "literal")]),
        # two literals on a line, two lines
        (
            'a("pricing", "new_checkout")\nb("new_checkout")',
            [("pricing", 1, 4, "literal"), ("new_checkout", 1, 15, "literal"), ("new_checkout", 2, 4, "literal")],
        ),
        ('x = "dark-mode"', [("dark-mode", 1, 6, "literal")]),
        # a literal never spans lines
        ('"new_checkout\n"', []),
    ],
)
def test_an_id_counts_only_as_a_whole_string_literal(source, expected):
    assert found(source) == expected


@pytest.mark.parametrize(
    "source, rules, expected",
    [
        ("<new_checkout>", MatchRules(), []),
        ("<new_checkout>", MatchRules(delimiters="\"'`<>"), [("new_checkout", 1, 2, "literal")]),
        ("gate: new_checkout\n", MatchRules(), []),
        ("gate: new_checkout\n", MatchRules(whole_token=True), [("new_checkout", 1, 7, "token")]),
        (
            "gates: [new_checkout, dark-mode]",
            MatchRules(whole_token=True),
            [("new_checkout", 1, 9, "token"), ("dark-mode", 1, 23, "token")],
        ),
        # a whole token is still not part of a longer one
        ("gate: new_checkout_v2 new-checkout dark-mode-2", MatchRules(whole_token=True), []),
        # an alias stands for a constant: a whole token or a literal, never part of a longer name
        (
            "if gates.check(NEW_CHECKOUT_GATE):",
            MatchRules(aliases={"NEW_CHECKOUT_GATE": ["new_checkout"]}),
            [("new_checkout", 1, 16, "alias")],
        ),
        ("NEW_CHECKOUT_GATE_2", MatchRules(aliases={"NEW_CHECKOUT_GATE": ["new_checkout"]}), []),
        # an alias for an id the console does not have finds nothing
        ("UNKNOWN", MatchRules(aliases={"UNKNOWN": ["nope"]}), []),
    ],
)
def test_options_add_delimiters_whole_tokens_and_aliases(source, rules, expected):
    assert found(source, rules) == expected


@pytest.mark.parametrize(
    "source, expected",
    [
        ('statsig.checkGate(user, "ghost_gate")', [("gate", "ghost_gate", "check_call")]),
        ("statsig.check_gate(user, 'ghost_gate')", [("gate", "ghost_gate", "check_call")]),
        ('const c = useDynamicConfig("ghost_config")', [("dynamic_config", "ghost_config", "check_call")]),
        ('statsig.get_config(user, "ghost_config")', [("dynamic_config", "ghost_config", "check_call")]),
        # a known id is reported once, as a literal of its own type
        ('checkGate(user, "new_checkout")', [("gate", "new_checkout", "literal")]),
        ('mycheckGate(user, "ghost")', []),
        ("checkGate(user, gateName)", []),
    ],
)
def test_sdk_calls_reveal_ids_the_console_does_not_have(source, expected):
    hits = Matcher(ENTITIES).hits(source.encode(), "f")
    assert [(h.entity_type, h.entity_id, h.match_kind) for h in hits] == expected


def test_an_id_that_is_both_a_gate_and_a_config_is_both():
    hits = Matcher([Entity("gate", "x"), Entity("dynamic_config", "x")]).hits(b'"x"', "f")
    assert [(h.entity_type, h.entity_id) for h in hits] == [("dynamic_config", "x"), ("gate", "x")]


@pytest.mark.parametrize(
    "data, column, text",
    [
        ('é = "new_checkout"'.encode(), 6, 'é = "new_checkout"'),
        ('é = "new_checkout"'.encode("latin-1"), 6, '\ufffd = "new_checkout"'),
        ('"new_checkout" # ünïcode'.encode("utf-16-le").replace(b"\0", b""), 2, None),
        (b'\xff\xfe\x80 "new_checkout"\r\n', 6, '\ufffd\ufffd\ufffd "new_checkout"'),
    ],
)
def test_any_encoding_is_read_and_columns_count_characters(data, column, text):
    [hit] = Matcher(ENTITIES).hits(data, "f")
    assert hit.column == column
    if text is not None:
        assert hit.text == text


def test_line_text_is_trimmed_and_capped():
    [hit] = Matcher(ENTITIES).hits(b'    x("new_checkout")' + b"y" * 500 + b"   \n", "f")
    assert hit.text == 'x("new_checkout")' + "y" * 182 + "…"


def test_a_long_line_keeps_an_excerpt_around_the_id():
    # a one-line JSON export: the id far past the line's first 200 characters
    gates = [{"id": f"gate_{n:04d}", "enabled": True} for n in range(300)]
    gates.insert(250, {"id": "new_checkout", "enabled": True})
    data = json.dumps({"gates": gates}).encode()
    [hit] = Matcher(ENTITIES).hits(data, "flags.json")
    start = data.index(b'"new_checkout"') + 1
    assert (hit.line, hit.column) == (1, start + 1)
    assert start == 9519
    # 198 characters around the 12 of the id (93 before it, 93 after), an ellipsis on each side
    assert hit.text == "…" + data[start - 93 : start + 12 + 93].decode() + "…"
    assert len(hit.text) == 200 and '"new_checkout"' in hit.text


@pytest.mark.parametrize(
    "line, text",
    [
        # the id at the end of a long line: cut at the start only, the id its last characters
        ("[" + "1, " * 100 + '"pricing"]', "…" + ("1, " * 100)[-189:] + '"pricing"]'),
        # short lines are kept whole, without their surrounding blanks
        ('\t  cfg = "pricing"  ', 'cfg = "pricing"'),
    ],
)
def test_excerpt_ends(line, text):
    [hit] = Matcher(ENTITIES).hits(line.encode(), "f")
    assert hit.text == text and len(hit.text) <= 200


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=t@example.com", "-c", "user.name=t", *args], check=True, capture_output=True
    )


def write(root: Path, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)


FILES = {
    "src/app.py": b'if check("new_checkout"):\n    pass\n',
    "src/ignored.py": b'check("new_checkout")\n',
    "src/logo.png": b"\x89PNG\0\0" + b'"new_checkout"',
    "src/big.json": b'{"k": "new_checkout"}' + b" " * 2000,
    "node_modules/lib/index.js": b'check("new_checkout")\n',
    "generated/flags.ts": b'check("pricing")\n',
    "docs/readme.md": b"use `pricing` for prices\n",
    ".gitignore": b"src/ignored.py\n",
}


@pytest.fixture
def repository(tmp_path) -> Path:
    root = tmp_path / "web"
    root.mkdir()
    write(root, FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    write(root, {"src/untracked.py": b'check("new_checkout")\n'})
    return root


@pytest.mark.parametrize("workers", [1, 2])
def test_a_repository_is_read_through_its_tracked_files(repository, workers):
    repo = open_repository(repository)
    assert (repo.name, repo.is_git, repo.branch, len(repo.commit or "")) == ("web", True, "main", 40)
    hits, stats = scan_repository(
        repo, Matcher(ENTITIES), excludes=DEFAULT_EXCLUDES + ("generated/*",), max_file_bytes=1000, workers=workers
    )
    # not: the ignored and untracked files, the binary, the one over 1,000 bytes, node_modules, generated/
    assert [(h.path, h.line, h.column, h.entity_id) for h in hits] == [
        ("docs/readme.md", 1, 6, "pricing"),
        ("src/app.py", 1, 11, "new_checkout"),
    ]
    assert (stats.files_listed, stats.files_scanned, stats.skipped_binary, stats.skipped_large, stats.skipped_excluded) == (
        7,
        3,
        1,
        ["src/big.json"],
        2,
    )


@pytest.mark.parametrize("collecting", [True, False])
def test_a_scan_leaves_python_s_collector_as_it_found_it(repository, monkeypatch, collecting):
    # a scan holds the cyclic collector while it runs; afterwards it is on or off as before, after a failure too
    import gc

    from gatehouse.pipelines.code_refs import scan

    repo = open_repository(repository)
    (gc.enable if collecting else gc.disable)()
    try:
        hits, _ = scan_repository(repo, Matcher(ENTITIES))
        assert gc.isenabled() is collecting
        monkeypatch.setattr(scan, "list_files", lambda repository, *_: (_ for _ in ()).throw(OSError("the listing failed")))
        with pytest.raises(OSError, match="the listing failed"):
            scan_repository(repo, Matcher(ENTITIES))
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
    assert hits


def test_a_plain_folder_is_read_whole_except_version_control(tmp_path):
    write(tmp_path, {"a/b.go": b'x := "pricing"\n', ".git/config": b'"pricing"', "c.txt": b"'new_checkout'"})
    repo = open_repository(tmp_path, name="plain")
    hits, stats = scan_repository(repo, Matcher(ENTITIES))
    assert (repo.name, repo.is_git, repo.branch, repo.commit) == ("plain", False, None, None)
    assert [(h.path, h.entity_id) for h in hits] == [("a/b.go", "pricing"), ("c.txt", "new_checkout")]
    assert stats.files_scanned == 2


def test_a_subfolder_of_a_repository_is_the_repository(repository):
    repo = open_repository(repository / "src")
    assert repo.root == repository.resolve() and repo.name == "web"


@pytest.mark.parametrize(
    "path, globs, excluded",
    [
        ("node_modules/x/y.js", ("node_modules",), True),
        ("web/node_modules/y.js", ("node_modules",), True),
        ("src/app.min.js", ("*.min.js",), True),
        ("src/app.js", ("*.min.js",), False),
        ("generated/a/b.ts", ("generated/*",), True),
        ("src/generated/b.ts", ("generated/*",), False),
        ("src/generated/b.ts", ("*/generated",), True),
    ],
)
def test_exclude_globs(path, globs, excluded):
    assert is_excluded(path, globs) is excluded


def test_missing_and_unreadable_paths_are_one_line_errors(tmp_path):
    with pytest.raises(ScanInputError, match="no such file or directory"):
        open_repository(tmp_path / "nope")
    (tmp_path / "f").write_text("x")
    with pytest.raises(ScanInputError, match="not a directory"):
        open_repository(tmp_path / "f")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("workers", [1, 2])
def test_symlinks_and_special_files_are_not_followed(tmp_path, workers):
    # A FIFO used to block the scan forever (open() waits for a writer); a symlink was read through, to a file
    # outside the folder or twice to one inside it. Neither is the repository's own text: both are skipped.
    outside = tmp_path / "outside.py"
    outside.write_bytes(b'check("pricing")\n')
    root = tmp_path / "scripts"
    write(root, {"a.py": b'check("new_checkout")\n'})
    os.mkfifo(root / "pipe")
    (root / "to_outside.py").symlink_to(outside)
    (root / "twice.py").symlink_to(root / "a.py")
    (root / "loop1").symlink_to(root / "loop2")
    (root / "loop2").symlink_to(root / "loop1")
    hits, stats = scan_repository(open_repository(root), Matcher(ENTITIES), workers=workers)
    assert [(h.path, h.line, h.entity_id) for h in hits] == [("a.py", 1, "new_checkout")]
    assert (stats.files_listed, stats.files_scanned, stats.skipped_special, stats.unreadable) == (6, 1, 5, [])


def test_a_tracked_symlink_is_not_followed(repository):
    (repository / "src" / "link.py").symlink_to(repository / "src" / "app.py")
    git(repository, "add", "src/link.py")
    git(repository, "commit", "-q", "-m", "link")
    hits, stats = scan_repository(open_repository(repository), Matcher(ENTITIES))
    assert [h.path for h in hits] == ["docs/readme.md", "generated/flags.ts", "src/app.py", "src/big.json"]
    assert stats.skipped_special == 1


def test_a_folder_git_does_not_track_inside_a_repository_is_a_plain_folder(repository):
    # e.g. a checkout under a home folder kept in git (dotfiles), or a virtualenv's site-packages: scanning the
    # enclosing repository instead read none of the folder's files and stored them under the wrong name
    write(repository, {"build/out/flags.js": b'check("pricing")\n'})
    repo = open_repository(repository / "build" / "out")
    assert (repo.root, repo.name, repo.is_git, repo.branch, repo.commit) == (
        (repository / "build" / "out").resolve(),
        "out",
        False,
        None,
        None,
    )
    hits, _ = scan_repository(repo, Matcher(ENTITIES))
    assert [(h.path, h.entity_id) for h in hits] == [("flags.js", "pricing")]


def test_positions_of_many_hits_in_a_file_are_those_of_each_line_scanned_alone():
    # Many hits on one line and across lines, multi-byte and undecodable bytes between them, CRLF, a token
    # right after a non-ASCII letter, an id that is not ASCII: the positions found walking forward through the
    # file (linear in its size) are those of each line scanned on its own, where line and column are plain.
    entities = ENTITIES + [Entity("gate", "café")]
    rules = MatchRules(whole_token=True, aliases={"NEW_CHECKOUT": ["new_checkout"]})
    line = 'é "new_checkout" ü pricing "café" énew_checkout NEW_CHECKOUT check_gate(u, "ghost") `dark-mode`'.encode()
    lines = [line, line.replace("é".encode(), b"\xe9") + b"\r", b"", b'"pricing"' * 300, b"x = 1", line]
    data = b"\n".join(lines)
    matcher = Matcher(entities, rules)
    expected = [
        (number, hit.column, hit.text, hit.entity_id, hit.match_kind)
        for number, text in enumerate(lines, start=1)
        for hit in matcher.hits(text, "f")
    ]
    assert len(expected) == 7 + 6 + 7 + 300  # the Latin-1 line has no "café"
    assert [(hit.line, hit.column, hit.text, hit.entity_id, hit.match_kind) for hit in matcher.hits(data, "f")] == expected


def test_a_repository_git_refuses_is_one_line_not_a_plain_folder(repository, monkeypatch):
    # A checkout owned by another user (a CI container, a mounted volume): git refuses it, and the scan used to
    # read it as a plain folder, untracked and ignored files included, with no branch or commit, exit 0.
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # git's own switch for this check
    with pytest.raises(ScanInputError) as refused:
        open_repository(repository / "src")
    assert str(refused.value) == (
        f"{repository / 'src'}: git refuses this repository (detected dubious ownership in repository at"
        f" '{repository}'); if you trust it: git config --global --add safe.directory {repository}"
    )


def test_a_folder_with_git_data_but_no_git_command_is_one_line(repository, monkeypatch):
    # without git the tracked files cannot be told from the rest: not read as a plain folder in silence
    monkeypatch.setenv("PATH", str(repository / "no-such-bin"))
    with pytest.raises(ScanInputError) as refused:
        open_repository(repository)
    assert (
        str(refused.value)
        == f"{repository}: a git repository, but the git command is not installed: install git to scan its tracked files"
    )
