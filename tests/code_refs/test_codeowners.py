"""The CODEOWNERS reader: GitHub's patterns and last match, GitLab's sections, where the file is looked for."""

from __future__ import annotations

import os

import pytest

from gatehouse.pipelines.code_refs.codeowners import file_owners, parse_codeowners, pattern_regex, read_codeowners


@pytest.mark.parametrize(
    "pattern, owned, not_owned",
    [
        # no slash: a file or folder of that name at any depth, and everything below the folder
        ("*", ["a.py", "src/deep/b.go"], []),
        ("*.js", ["a.js", "src/app/b.js"], ["a.jsx", "src/a.ts"]),
        ("docs", ["docs", "docs/a.md", "src/docs/b/c.md"], ["docs.md", "mydocs/a.md"]),
        # a trailing slash: folders only, anywhere (GitHub's `apps/` example)
        ("apps/", ["apps/a.py", "src/apps/b/c.py"], ["apps", "myapps/a.py"]),
        # a leading slash anchors at the root
        ("/docs/", ["docs/a.md", "docs/x/b.md"], ["src/docs/a.md"]),
        ("/build/logs/", ["build/logs/a.log"], ["x/build/logs/a.log", "build/logs"]),
        # a slash in the middle anchors too; `*` stops at a folder (GitHub: docs/* is not docs/x/y.md)
        ("docs/*", ["docs/a.md"], ["docs/x/b.md", "src/docs/a.md"]),
        ("apps/github", ["apps/github", "apps/github/a.rb"], ["src/apps/github/a.rb", "apps/githubber"]),
        # `**/` any folders, none too; a trailing `/**` everything below
        ("**/logs", ["logs/a", "build/logs/a", "a/b/logs"], ["logsx/a"]),
        ("src/**/test.py", ["src/test.py", "src/a/b/test.py"], ["lib/src/test.py"]),
        ("/data/**", ["data/a", "data/b/c"], ["data", "x/data/a"]),
        ("a?.py", ["ab.py", "x/ac.py"], ["abc.py", "a/.py"]),
        # `[ ]` is not a range (GitHub does not support one): the characters themselves
        ("/f[ab].py", ["f[ab].py"], ["fa.py"]),
        # case matters, as in GitHub
        ("/README.md", ["README.md"], ["readme.md"]),
    ],
)
def test_patterns_follow_github_s_gitignore_rules(pattern, owned, not_owned):
    regex = pattern_regex(pattern)
    assert [path for path in owned if not regex.fullmatch(path)] == []
    assert [path for path in not_owned if regex.fullmatch(path)] == []


GITHUB = r"""
# comment
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
/build/logs/ @doctocat
docs/*  docs@example.com @octo-org/docs-team  @doctocat
apps/ @octocat
/apps/github
!/apps/excluded @nobody
\#notes.txt @hash-owner
my\ file.txt @spaced
"""


@pytest.mark.parametrize(
    "path, owners",
    [
        ("README.md", ("@global-owner1", "@global-owner2")),
        # the last matching rule wins, owners not added up
        ("src/app.js", ("@js-owner",)),
        ("main.go", ("docs@example.com",)),
        ("build/logs/today.log", ("@doctocat",)),
        # duplicates once, in the rule's order
        ("docs/intro.md", ("docs@example.com", "@octo-org/docs-team", "@doctocat")),
        ("docs/guide/a.md", ("@global-owner1", "@global-owner2")),
        ("x/apps/a.py", ("@octocat",)),
        # a rule without owners leaves the path unowned
        ("apps/github/a.rb", ()),
        # a negation is skipped (not supported): apps/ still owns it
        ("apps/excluded", ("@octocat",)),
        ("#notes.txt", ("@hash-owner",)),
        ("my file.txt", ("@spaced",)),
    ],
)
def test_github_the_last_matching_rule_wins(path, owners):
    assert parse_codeowners(GITHUB).owners(path) == owners


GITLAB = """
* @everyone
[Documentation] @docs-team
docs/
/docs/api/ @api-writers
^[Database][2] @dba
*.sql
/db/legacy/ @legacy-owner @dba
[Frontend]
*.ts @fe @fe
/web/vendor/
[documentation]
/docs/internal/ @internal-docs
[Empty] @ghost
"""


@pytest.mark.parametrize(
    "path, owners",
    [
        # the default section only
        ("main.py", ("@everyone",)),
        # one rule of each matching section, in file order; a rule without owners takes its section's default
        ("docs/guide.md", ("@everyone", "@docs-team")),
        # last match within a section: /docs/api/ after docs/
        ("docs/api/ref.md", ("@everyone", "@api-writers")),
        # an optional section with an approvals count owns like any
        ("db/schema.sql", ("@everyone", "@dba")),
        ("db/legacy/old.sql", ("@everyone", "@legacy-owner", "@dba")),
        ("web/app.ts", ("@everyone", "@fe")),
        # a rule without owners in a section without default owners: unowned in that section, owned in the others
        ("web/vendor/lib.ts", ("@everyone",)),
        # [documentation] is [Documentation] again: one section, its last matching rule wins
        ("docs/internal/notes.md", ("@everyone", "@internal-docs")),
        ("docs/api/app.ts", ("@everyone", "@api-writers", "@fe")),
    ],
)
def test_gitlab_sections_each_give_their_last_matching_rule(path, owners):
    assert parse_codeowners(GITLAB).owners(path) == owners


def test_gitlab_sections_are_read_as_sections_and_headers_are_not_rules():
    parsed = parse_codeowners(GITLAB)
    assert [(section.name, [rule.pattern for rule in section.rules]) for section in parsed.sections] == [
        ("", ["*"]),
        ("Documentation", ["docs/", "/docs/api/", "/docs/internal/"]),
        ("Database", ["*.sql", "/db/legacy/"]),
        ("Frontend", ["*.ts", "/web/vendor/"]),
        # [Empty] has no rule: it owns nothing
    ]
    assert [rule.owners for rule in parsed.sections[1].rules] == [("@docs-team",), ("@api-writers",), ("@internal-docs",)]


def test_owners_are_users_teams_roles_and_emails_only():
    parsed = parse_codeowners("* @a not-an-owner @org/team @@developer a@b.example @ @a\n/x\t@b\r\n")
    assert parsed.owners("y") == ("@a", "@org/team", "@@developer", "a@b.example")
    assert parsed.owners("x/z") == ("@b",)
    assert parse_codeowners("").owners("a") == ()


def write(root, files):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_the_first_location_found_is_read(tmp_path):
    assert read_codeowners(tmp_path) is None
    write(tmp_path, {"docs/CODEOWNERS": "* @from-docs\n", ".gitlab/CODEOWNERS": "* @from-gitlab\n"})
    assert read_codeowners(tmp_path).path == "docs/CODEOWNERS"
    write(tmp_path, {"CODEOWNERS": "* @from-root\n"})
    assert read_codeowners(tmp_path).path == "CODEOWNERS"
    write(tmp_path, {".github/CODEOWNERS": "*.py @py\n"})
    assert file_owners(tmp_path, ["a.py", "b.md", "a.py"]) == {"a.py": "@py"}


def test_a_link_or_a_folder_named_codeowners_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("* @stranger\n")
    root = tmp_path / "repo"
    (root / ".github" / "CODEOWNERS").mkdir(parents=True)
    os.symlink(outside, root / "CODEOWNERS")
    write(root, {"docs/CODEOWNERS": "* @docs\n"})
    assert file_owners(root, ["a.py"]) == {"a.py": "@docs"}


def test_only_gitlab_reads_a_pattern_with_a_slash_inside_at_any_depth():
    # GitHub (gitignore): a slash inside anchors at the root; GitLab: `docs/api` is `**/docs/api`
    github = parse_codeowners("docs/api @api\n")
    assert (github.owners("docs/api/a.md"), github.owners("x/docs/api/a.md")) == (("@api",), ())
    # a section header, or the file in .gitlab/, makes it GitLab's
    for gitlab in (parse_codeowners("[API]\ndocs/api @api\n"), parse_codeowners("docs/api @api\n", ".gitlab/CODEOWNERS")):
        assert (gitlab.owners("docs/api/a.md"), gitlab.owners("x/docs/api/a.md")) == (("@api",), ("@api",))
        # a leading slash anchors in both
        assert parse_codeowners("/docs/api @api\n", ".gitlab/CODEOWNERS").owners("x/docs/api/a.md") == ()
