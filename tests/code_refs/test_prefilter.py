"""ripgrep as the scanner's prefilter: the same hits and counts as the Python scanner alone, on files made to
tell them apart (NUL bytes late in a file, odd names, ignore files, hidden files, links, regex metacharacters in ids,
calls over lines), whether rg walks the repository or is given the files' names."""

from __future__ import annotations

import logging
import os
import random
import re

import pytest

from gatehouse.pipelines.code_refs import scan
from gatehouse.pipelines.code_refs.scan import (
    CHECK_CALL,
    DEFAULT_EXCLUDES,
    Entity,
    Matcher,
    MatchRules,
    is_excluded,
    kept_paths,
    open_repository,
    ripgrep,
    scan_repository,
)
from tests.code_refs.test_scan import git, write

ENTITIES = [
    Entity("gate", "new_checkout"),
    Entity("dynamic_config", "pricing"),
    Entity("gate", "dark-mode"),
    # regex metacharacters, a space, a non-ASCII letter: literals to rg as to the scanner
    Entity("gate", "a.b"),
    Entity("gate", "x+y(v2)"),
    Entity("gate", "[beta]^$|"),
    Entity("gate", "with space"),
    Entity("gate", "café"),
    Entity("dynamic_config", "-leading-dash"),
]
RULES = [
    MatchRules(),
    MatchRules(whole_token=True, aliases={"NEW_CHECKOUT": ["new_checkout"], "Prices.Main": ["pricing"]}),
    MatchRules(delimiters="\"'`<>:-]"),
]
FILES = {
    "src/app.py": b'if check("new_checkout"):\n    pass\nx = NEW_CHECKOUT\n',
    "src/late_nul.txt": b"x" * 9000 + b"\0" + b'\n"pricing"\n',  # text to the scanner: rg must not stop at the NUL
    "src/logo.png": b"\x89PNG\0\0" + b'"new_checkout"',
    "src/big.json": b'{"k": "new_checkout"}' + b" " * 25_000,
    "src/calls.ts": b'statsig.checkGate(\n  user,\n  "ghost_gate",\n)\nuseDynamicConfig ("ghost_config")\n',
    "src/meta.js": b'f("a.b"); f("aXb"); f(`x+y(v2)`); f("[beta]^$|"); f(\'with space\'); f("caf\xc3\xa9")\n',
    "src/utf16.txt": "\ufeff'pricing' is here".encode("utf-16"),
    "src/crlf.txt": b"\"pricing\"\r\n'dark-mode'\r\n",
    "src/one token.yaml": b"gate: new_checkout\nprice: pricing\n",
    "-leading.py": b'check("-leading-dash")\n',
    "odd\nname:1:.py": b'check("pricing")\n',  # rg's output is path NUL number ':' line: the name is read to the NUL
    ".env": b"FLAG='new_checkout'\n",
    ".ignore": b"src/\n*.py\n",  # rg's own ignore files: not the scanner's rules
    ".rgignore": b"*\n",
    ".gitignore": b"ignored/\n",
    "ignored/forced.py": b'check("pricing")\n',  # tracked all the same (git add -f)
    "docs/readme.md": b"use `pricing` for prices, <new_checkout> and :dark-mode:\n",
    "empty.txt": b"",
    "nothing.txt": b"no ids here\n" * 100,
}
LATIN1_NAME = b"caf\xe9.py"


@pytest.fixture
def repository(tmp_path):
    root = tmp_path / "web"
    root.mkdir()
    write(root, FILES)
    (root / os.fsdecode(LATIN1_NAME)).write_bytes(b'check("pricing")\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "add", "-f", "ignored/forced.py")
    git(root, "commit", "-q", "-m", "first")
    (root / "src" / "link.py").symlink_to(root / "src" / "app.py")
    return root


def both(root, matcher, workers, max_file_bytes=20_000, paths=None):
    repo = open_repository(root)
    with_rg = scan_repository(repo, matcher, max_file_bytes=max_file_bytes, workers=workers, paths=paths, use_ripgrep=True)
    without = scan_repository(repo, matcher, max_file_bytes=max_file_bytes, workers=workers, paths=paths, use_ripgrep=False)
    return with_rg, without


def record_python_reads(monkeypatch) -> list[str]:
    """The files Python reads whole, or reads rg's lines of (relative paths)."""
    matched: list[str] = []
    match_files, runs = scan._match_files, scan._ripgrep_runs

    def recorded_runs(output, prefix=0):
        found, used = runs(output, prefix)
        matched.extend(run[0] for run in found)
        return found, used

    monkeypatch.setattr(
        scan, "_match_files", lambda root, found, m: matched.extend(f[0] for f in found) or match_files(root, found, m)
    )
    monkeypatch.setattr(scan, "_ripgrep_runs", recorded_runs)
    return matched


def test_ripgrep_is_installed_with_the_package():
    assert ripgrep() is not None


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("by_name", [False, True], ids=["walk", "by-name"])
def test_the_prefilter_finds_what_the_python_scanner_finds(repository, rules, workers, by_name, monkeypatch):
    matched = record_python_reads(monkeypatch)
    paths = scan.list_files(open_repository(repository)) if by_name else None
    (hits, stats), (expected_hits, expected_stats) = both(repository, Matcher(ENTITIES, rules), workers, paths=paths)
    assert hits == expected_hits
    assert stats == expected_stats
    assert len(expected_hits) > 10 and any(hit.match_kind == CHECK_CALL for hit in hits)
    # rg did prefilter: files with no id were not read by Python
    assert "src/app.py" in matched and "nothing.txt" not in matched and "empty.txt" not in matched


def test_a_plain_folder_with_a_fifo_and_the_pool(tmp_path):
    write(tmp_path, FILES)
    os.mkfifo(tmp_path / "pipe")
    write(tmp_path, {f"many/{n}.py": b'check("new_checkout")\n' for n in range(3 * scan.CHUNK_FILES)})
    (hits, stats), (expected_hits, expected_stats) = both(tmp_path, Matcher(ENTITIES), workers=2, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats
    assert stats.skipped_special == 1 and len(hits) > 3 * scan.CHUNK_FILES


def test_more_paths_than_one_argument_list_holds(repository, monkeypatch):
    monkeypatch.setattr(os, "sysconf", lambda name: 2 * 4096 + 2 * sum(len(k) + len(v) + 2 for k, v in os.environ.items()))
    write(repository, {f"batch/{'n' * 100}{n}.py": b'check("pricing")\n' for n in range(200)})
    git(repository, "add", "-A")
    git(repository, "commit", "-q", "-m", "many")
    started = []
    popen = scan.subprocess.Popen
    monkeypatch.setattr(scan.subprocess, "Popen", lambda argv, **kw: started.append(argv) or popen(argv, **kw))
    (hits, stats), (expected_hits, expected_stats) = both(
        repository, Matcher(ENTITIES), workers=1, paths=scan.list_files(open_repository(repository))
    )
    assert hits == expected_hits and stats == expected_stats
    assert len(started) > 2 * scan.RIPGREP_BATCHES  # batches split further


def test_without_ripgrep_the_python_scanner_reads_every_file(repository, monkeypatch, caplog):
    monkeypatch.setattr(scan, "ripgrep", lambda: None)
    with caplog.at_level(logging.INFO, logger="gatehouse.code_refs"):
        (hits, stats), (expected_hits, expected_stats) = both(repository, Matcher(ENTITIES), workers=1)
    assert hits == expected_hits and stats == expected_stats
    assert [record.getMessage() for record in caplog.records if "ripgrep" in record.getMessage()] == [
        "ripgrep (rg) is not installed: every file is read by the Python scanner, which is slower"
    ]


def test_a_failing_ripgrep_falls_back_to_reading_every_file(repository, monkeypatch, tmp_path, caplog):
    failing = tmp_path / "rg"
    failing.write_text("#!/bin/sh\necho 'rg: compiled regex exceeds size limit of 104857600' >&2\nexit 2\n")
    failing.chmod(0o755)
    monkeypatch.setattr(scan, "ripgrep", lambda: str(failing))
    (hits, stats), (expected_hits, expected_stats) = both(repository, Matcher(ENTITIES), workers=1)
    assert hits == expected_hits and stats == expected_stats
    assert "ripgrep exited with code 2 (rg: compiled regex exceeds size limit of 104857600): these" in caplog.text


def reference_hits(matcher: Matcher, data: bytes) -> set[tuple]:
    """The matching rules as the regexes the scanner used before finding candidates in C."""
    delimiters = re.escape(matcher.rules.delimiters.encode())
    literals = re.compile(rb"[" + delimiters + rb"]([^" + delimiters + rb"\n]+)(?=[" + delimiters + rb"])")
    tokens = re.compile(rb"[A-Za-z0-9_\-]+")
    found = {}
    for pattern, table, group in ((literals, matcher.literal, 1), (tokens, matcher.token, 0)):
        for match in pattern.finditer(data):
            if match[group] in table:
                entities, matched = table[match[group]]
                for entity in entities:
                    found.setdefault((match.start(group), entity.entity_type, entity.entity_id), matched)
    return {(offset, entity_type, entity_id, matched) for (offset, entity_type, entity_id), matched in found.items()}


@pytest.mark.parametrize("rules", RULES)
def test_candidates_found_in_c_are_the_regex_candidates(rules):
    matcher = Matcher(ENTITIES, rules)
    pieces = [
        b'"',
        b"'",
        b"`",
        b"\n",
        b" ",
        b"<",
        b">",
        b":",
        b"-",
        b"]",
        b"_",
        b"x",
        b"\0",
        b"\xe9",
        b"new_checkout",
        b"pricing",
        b"dark-mode",
        b"a.b",
        b"NEW_CHECKOUT",
        b"Prices.Main",
        "café".encode(),
        b"with space",
    ]
    generator = random.Random(7)
    for _ in range(2000):
        data = b"".join(generator.choice(pieces) for _ in range(generator.randrange(1, 30)))
        line_starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]
        got = set()
        for hit in matcher.hits(data, "f", check_calls=False):
            line_start = line_starts[hit.line - 1]
            prefix_chars = hit.column - 1
            # the offset back from the (line, column) the hit gives
            offset = line_start + len(data[line_start:].decode("utf-8", "replace")[:prefix_chars].encode("utf-8", "replace"))
            got.add((hit.entity_type, hit.entity_id, hit.matched, hit.line, offset if b"\xe9" not in data else None))
        expected = {
            (entity_type, entity_id, matched, data.count(b"\n", 0, offset) + 1, offset if b"\xe9" not in data else None)
            for offset, entity_type, entity_id, matched in reference_hits(matcher, data)
        }
        assert got == expected, data


# What rg's walk leaves out, each with a reference: Python (or rg given the names) must find it all the same.
WALK_SAMPLE = {
    ".gitignore": b"build/\n*.log\n",
    "src/app.py": b'checkGate(user, "new_checkout")\n',
    "build/tracked.js": b'useGate("pricing")\n',  # ignored, but tracked (git add -f)
    "notes.log": b"'dark-mode' was on\n",  # ignored by a glob, tracked
    ".github/workflows/flags.yml": b'gate: "new_checkout"\n',  # in a hidden folder
    ".env.example": b"FLAG='pricing'\n",  # hidden
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\0\0" + b'"new_checkout"',  # binary: no reference
    "assets/notes.png": b'a text file named like an image: "dark-mode"\n',  # skipped by the walk, text all the same
    # a NUL after the binary test's 8,000 bytes: text, read whole; rg's test stops at the NUL (here past its first
    # buffer, so it may print the line before it): no reference twice, none missed
    "data/late.txt": b'"pricing"\n' + b"x" * 200_000 + b"\n\0\n" + b'"new_checkout"\n',
    "data/plain.txt": b'nothing but "pricing"\n',
}


@pytest.fixture
def walk_sample(tmp_path):
    root = tmp_path / "sample"
    root.mkdir()
    write(root, WALK_SAMPLE)
    (root / "link.py").symlink_to("src/app.py")  # tracked as a link: skipped, as special
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "add", "-f", "build/tracked.js", "notes.log")
    git(root, "commit", "-q", "-m", "first")
    (root / "untracked.py").write_bytes(b'"pricing"\n')  # walked by rg, not listed by git: no reference
    return root


def test_what_the_walk_leaves_out_is_searched_apart(walk_sample, monkeypatch):
    whole: list[tuple[str, bool]] = []  # files Python read whole: (path, for its references too?)
    match_files = scan._match_files
    monkeypatch.setattr(
        scan, "_match_files", lambda root, found, m: whole.extend((f[0], f[2]) for f in found) or match_files(root, found, m)
    )
    (hits, stats), (expected_hits, expected_stats) = both(walk_sample, Matcher(ENTITIES), workers=1, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats
    assert [(hit.path, hit.line, hit.column, hit.entity_id, hit.match_kind) for hit in hits] == [
        (".env.example", 1, 7, "pricing", "literal"),
        (".github/workflows/flags.yml", 1, 8, "new_checkout", "literal"),
        ("assets/notes.png", 1, 35, "dark-mode", "literal"),
        ("build/tracked.js", 1, 10, "pricing", "literal"),
        ("data/late.txt", 1, 2, "pricing", "literal"),
        ("data/late.txt", 4, 2, "new_checkout", "literal"),
        ("data/plain.txt", 1, 14, "pricing", "literal"),
        ("notes.log", 1, 2, "dark-mode", "literal"),
        ("src/app.py", 1, 18, "new_checkout", "literal"),
    ]
    assert (stats.files_listed, stats.files_scanned, stats.skipped_binary, stats.skipped_special) == (11, 9, 1, 1)
    assert stats.bytes_scanned == sum(len(data) for path, data in WALK_SAMPLE.items() if path != "assets/logo.png")
    # the walk's files are read only for their lines (app.py whole too, for its call); what it left out by Python
    assert sorted(whole) == [
        (".env.example", True),
        (".github/workflows/flags.yml", True),
        (".gitignore", True),
        ("assets/notes.png", True),
        ("build/tracked.js", True),
        ("notes.log", True),
        ("src/app.py", False),
    ]  # data/late.txt is walked: rg searches it past its NUL, as the scanner does (a text file to the probe)


def test_large_files_the_walk_leaves_out_go_to_rg_by_name(walk_sample, monkeypatch):
    monkeypatch.setattr(scan, "PYTHON_MATCH_MAX_FILE_BYTES", 15)
    started = []
    popen = scan.subprocess.Popen
    monkeypatch.setattr(scan.subprocess, "Popen", lambda argv, **kw: started.append(argv) or popen(argv, **kw))
    (hits, stats), (expected_hits, expected_stats) = both(walk_sample, Matcher(ENTITIES), workers=1, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats
    by_name = [argv for argv in started if "--no-ignore" in argv]  # RipgrepSearch's: it reads what it is given
    assert len(by_name) == 1 and b"notes.log" in by_name[0] and b"data/late.txt" not in by_name[0], by_name


def test_a_walk_that_fails_gives_way_to_rg_by_name(walk_sample, monkeypatch, tmp_path, caplog):
    wrapper = tmp_path / "rg"
    wrapper.write_text(
        f'#!/bin/sh\nfor arg; do [ "$arg" = --files ] && {{ echo "rg: a folder: Permission denied" >&2; exit 2; }}; done\n'
        f'exec {ripgrep()} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setattr(scan, "ripgrep", lambda: str(wrapper))
    started = []
    popen = scan.subprocess.Popen
    monkeypatch.setattr(scan.subprocess, "Popen", lambda argv, **kw: started.append(argv) or popen(argv, **kw))
    (hits, stats), (expected_hits, expected_stats) = both(walk_sample, Matcher(ENTITIES), workers=1, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats
    assert "ripgrep exited with code 2 (rg: a folder: Permission denied): the text files are searched by name" in caplog.text
    assert [argv for argv in started if "--no-ignore" in argv]


@pytest.mark.parametrize("globs", [(), DEFAULT_EXCLUDES, ("generated/*", "*.min.js", "/vendor/", "a*b*c", "docs/**/x.md")])
def test_exclude_globs_applied_at_once_keep_what_one_at_a_time_keeps(globs):
    generator = random.Random(3)
    parts = ["src", "node_modules", "vendor", "generated", "docs", "a", "x.md", "app.min.js", "abc", "acb", "web", "b.ts"]
    paths = ["/".join(generator.choice(parts) for _ in range(generator.randrange(1, 5))) for _ in range(3000)]
    assert kept_paths(paths, globs) == [path for path in paths if not is_excluded(path, globs)]


def test_check_calls_are_found_where_a_name_starts_as_finditer_finds_them():
    matcher = Matcher(ENTITIES)
    assert matcher.check_calls is not None
    pieces = [
        b"checkGate",
        b"checkGateSync",
        b"useGate",
        b"getConfig",
        b"x.",
        b"$",
        b"_",
        b"(",
        b")",
        b" ",
        b"\n",
        b",",
        b'"',
        b"'",
        b"user",
        b"ghost",
        b"a",
        b"useGateValue(",
        b'checkGate("',
        b'")',
    ]
    generator = random.Random(11)
    for _ in range(3000):
        data = b"".join(generator.choice(pieces) for _ in range(generator.randrange(1, 25)))
        expected = [(m.start(), m.end(), m.groups()) for m in matcher.check_calls.finditer(data)]
        assert [(m.start(), m.end(), m.groups()) for m in matcher._check_call_matches(data)] == expected, data


def test_rg_output_read_while_rg_writes_is_parsed_a_whole_line_at_a_time():
    output = (
        b'./a.py\x001:x = \'pricing\'\n./a.py\x003:y\x00z "new_checkout"\n./odd\nname:1:.py\x0012:"pricing"\n'
        b'./late.txt\x001:"pricing"\n./late.txt: WARNING: stopped searching binary file after match'
        b' (found "\\0" byte around offset 200011)\n./b.js\x00120:f(`dark-mode`)\n'
    )
    whole, used = scan._ripgrep_runs(output, 2)
    assert used == len(output)
    assert [(path, numbers) for path, numbers, _ in whole] == [
        ("a.py", [1, 3]),
        ("odd\nname:1:.py", [12]),
        ("late.txt", [1]),
        ("late.txt", []),
        ("b.js", [120]),
    ]

    def flat(runs):
        return [(path, number, line) for path, numbers, lines in runs for number, line in zip(numbers, lines)] + [
            path for path, _, lines in runs if not lines
        ]

    for cut in range(len(output) + 1):
        first, used = scan._ripgrep_runs(output[:cut], 2)
        assert used <= cut
        rest, used_rest = scan._ripgrep_runs(output[used:], 2)
        assert used + used_rest == len(output)
        assert sorted(flat(first + rest), key=str) == sorted(flat(whole), key=str), cut


def test_a_tracked_file_made_a_fifo_or_a_folder_is_probed_as_before(walk_sample):
    (walk_sample / "data" / "plain.txt").unlink()
    os.mkfifo(walk_sample / "data" / "plain.txt")  # opened without waiting for a writer, then told apart
    (walk_sample / "notes.log").unlink()
    (walk_sample / "notes.log").mkdir()  # as a submodule's folder: not counted
    (hits, stats), (expected_hits, expected_stats) = both(walk_sample, Matcher(ENTITIES), workers=1, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats
    assert (stats.files_scanned, stats.skipped_special) == (7, 2)
    assert {hit.path for hit in hits} >= {"src/app.py", "data/late.txt"} and "data/plain.txt" not in {hit.path for hit in hits}


def test_without_pread_or_readv_the_walk_is_read_once_rg_is_done(walk_sample, monkeypatch):
    monkeypatch.delattr(os, "pread")
    monkeypatch.delattr(os, "readv")
    (hits, stats), (expected_hits, expected_stats) = both(walk_sample, Matcher(ENTITIES), workers=1, max_file_bytes=None)
    assert hits == expected_hits and stats == expected_stats and len(hits) == 9


def test_skipped_files_are_listed_in_the_listing_order_whichever_way_they_were_read(tmp_path):
    write(
        tmp_path,
        {
            f"many/{n:04}.py": b'check("new_checkout")\n' + (b"#" * 200 if n % 50 == 0 else b"")
            for n in range(4 * scan.CHUNK_FILES)
        },
    )
    (hits, stats), (expected_hits, expected_stats) = both(tmp_path, Matcher(ENTITIES), workers=2, max_file_bytes=100)
    assert hits == expected_hits and stats == expected_stats
    assert stats.skipped_large == [f"many/{n:04}.py" for n in range(0, 4 * scan.CHUNK_FILES, 50)]


def test_a_compiled_name_is_counted_binary_unread(tmp_path):
    # a .pyc, .so, .class ... always holds a NUL in its first bytes: counted as binary without being opened, with rg
    # and without alike; a link with such a name is still a link
    root = tmp_path / "compiled"
    root.mkdir()
    write(
        root,
        {
            "app.py": b'check("pricing")\n',
            "app.cpython-311.pyc": b'"pricing" as text\n',
            "lib.so": b"\x7fELF\0\0",
            "Main.class": b'"pricing"\n',
        },
    )
    (root / "link.so").symlink_to("lib.so")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    (hits, stats), (expected_hits, expected_stats) = both(root, Matcher(ENTITIES), workers=1)
    assert hits == expected_hits and stats == expected_stats
    assert [(hit.path, hit.entity_id) for hit in hits] == [("app.py", "pricing")]
    assert (stats.files_listed, stats.files_scanned, stats.skipped_binary, stats.skipped_special) == (5, 1, 3, 1)
