"""ripgrep as the scanner's prefilter: the same hits and counts as the Python scanner alone, on files made to
tell them apart (NUL bytes late in a file, odd names, ignore files, regex metacharacters in ids, calls over lines)."""

from __future__ import annotations

import logging
import os
import random
import re

import pytest

from gatehouse.pipelines.code_refs import scan
from gatehouse.pipelines.code_refs.scan import (
    CHECK_CALL,
    Entity,
    Matcher,
    MatchRules,
    open_repository,
    ripgrep,
    scan_repository,
)
from tests.code_refs.test_scan import git, write

ENTITIES = [
    Entity("gate", "new_checkout"), Entity("dynamic_config", "pricing"), Entity("gate", "dark-mode"),
    # regex metacharacters, a space, a non-ASCII letter: literals to rg as to the scanner
    Entity("gate", "a.b"), Entity("gate", "x+y(v2)"), Entity("gate", "[beta]^$|"), Entity("gate", "with space"),
    Entity("gate", "café"), Entity("dynamic_config", "-leading-dash"),
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
    "src/crlf.txt": b'"pricing"\r\n\'dark-mode\'\r\n',
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


def both(root, matcher, workers, max_file_bytes=20_000):
    repo = open_repository(root)
    with_rg = scan_repository(repo, matcher, max_file_bytes=max_file_bytes, workers=workers, use_ripgrep=True)
    without = scan_repository(repo, matcher, max_file_bytes=max_file_bytes, workers=workers, use_ripgrep=False)
    return with_rg, without


def test_ripgrep_is_installed_with_the_package():
    assert ripgrep() is not None


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("workers", [1, 2])
def test_the_prefilter_finds_what_the_python_scanner_finds(repository, rules, workers, monkeypatch):
    matched: list[str] = []  # files Python read whole, or read lines of
    match_files, lines = scan._match_files, scan._ripgrep_lines
    monkeypatch.setattr(scan, "_match_files", lambda root, files, m: matched.extend(f[0] for f in files) or match_files(root, files, m))
    monkeypatch.setattr(scan, "_ripgrep_lines", lambda output: [line for line in lines(output) if not matched.append(line[0])])
    (hits, stats), (expected_hits, expected_stats) = both(repository, Matcher(ENTITIES, rules), workers)
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
    (hits, stats), (expected_hits, expected_stats) = both(repository, Matcher(ENTITIES), workers=1)
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
    pieces = [b'"', b"'", b"`", b"\n", b" ", b"<", b">", b":", b"-", b"]", b"_", b"x", b"\0", b"\xe9", b"new_checkout",
              b"pricing", b"dark-mode", b"a.b", b"NEW_CHECKOUT", b"Prices.Main", "café".encode(), b"with space"]
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
