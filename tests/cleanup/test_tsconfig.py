"""The TypeScript settings `gatehouse cleanup` reads (pipelines/cleanup/tsconfig.py): the nearest tsconfig.json of
a file, read as tsc reads it (comments, trailing commas, `extends` chains), turns the parameters' rename on where it
sets noUnusedParameters, and nowhere else. tsc itself reads the same kind of file in test_compiles.py."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from gatehouse.pipelines.cleanup import tsconfig
from gatehouse.pipelines.cleanup.branches import Worktree
from gatehouse.pipelines.cleanup.decisions import Choice
from gatehouse.pipelines.cleanup.patch import GatePatch, _rewrite_file, checkout_settings
from gatehouse.pipelines.cleanup.tsconfig import TsConfigs, loads_jsonc

ON = '{ "compilerOptions": { "noUnusedParameters": true } }'
OFF = '{ "compilerOptions": { "noUnusedParameters": false } }'


def write(top: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (top / path).parent.mkdir(parents=True, exist_ok=True)
        (top / path).write_text(text)
    return top


def test_comments_and_trailing_commas_are_read_as_tsc_reads_them_and_strings_kept_whole():
    text = (
        '\ufeff// the project\n{\n  /* options */ "compilerOptions": {\n    "outDir": "out//a/*b*/",  // kept\n'
        '    "paths": { "@/*": ["src/*",], },\n    "rootDir": "a\\",}",\n  },\n}\n'
    )
    assert loads_jsonc(text) == {"compilerOptions": {"outDir": "out//a/*b*/", "paths": {"@/*": ["src/*"]}, "rootDir": 'a",}'}}
    with pytest.raises(ValueError):
        loads_jsonc('{ "compilerOptions": { /* never closed }')


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"tsconfig.json": ON}, True),
        ({"tsconfig.json": OFF}, False),
        # strict does not imply it (tsc's own rule), nor does noUnusedLocals
        ({"tsconfig.json": '{ "compilerOptions": { "strict": true, "noUnusedLocals": true } }'}, False),
        ({}, False),
        # only `true` sets it: a string is an error to tsc
        ({"tsconfig.json": '{ "compilerOptions": { "noUnusedParameters": "true" } }'}, False),
        ({"tsconfig.json": "{ not json"}, False),
        # a relative extends, with or without `.json`, a chain of two; the child's own options win
        ({"tsconfig.json": '{ "extends": "./configs/base" }', "configs/base.json": ON}, True),
        (
            {
                "tsconfig.json": '{ "extends": "./configs/base.json" }',
                "configs/base.json": '{ "extends": "./root" }',
                "configs/root.json": ON,
            },
            True,
        ),
        (
            {
                "tsconfig.json": '{ "extends": "./base.json", "compilerOptions": { "noUnusedParameters": false } }',
                "base.json": ON,
            },
            False,
        ),
        (
            {
                "tsconfig.json": '{ "extends": "./base.json", "compilerOptions": { "noUnusedParameters": true } }',
                "base.json": OFF,
            },
            True,
        ),
        # an array (TypeScript 5): the later wins over the earlier
        ({"tsconfig.json": '{ "extends": ["./on.json", "./off.json"] }', "on.json": ON, "off.json": OFF}, False),
        ({"tsconfig.json": '{ "extends": ["./off.json", "./on.json",], }', "on.json": ON, "off.json": OFF}, True),
        # a package under node_modules: its tsconfig.json, the file its package.json names, or a file of it
        ({"tsconfig.json": '{ "extends": "@acme/tsconfig" }', "node_modules/@acme/tsconfig/tsconfig.json": ON}, True),
        (
            {
                "tsconfig.json": '{ "extends": "@acme/tsconfig" }',
                "node_modules/@acme/tsconfig/strict.json": ON,
                "node_modules/@acme/tsconfig/package.json": '{ "tsconfig": "strict.json" }',
            },
            True,
        ),
        ({"tsconfig.json": '{ "extends": "@acme/tsconfig/strict.json" }', "node_modules/@acme/tsconfig/strict.json": ON}, True),
        # one that cannot be found counts as not set; the others still count
        ({"tsconfig.json": '{ "extends": "@acme/missing" }'}, False),
        ({"tsconfig.json": '{ "extends": ["./on.json", "./missing"] }', "on.json": ON}, True),
        # a cycle ends (tsc refuses it; the file is read once)
        ({"tsconfig.json": '{ "extends": "./a.json" }', "a.json": '{ "extends": "./tsconfig.json" }'}, False),
        # a solution-style config (Vite's): the projects it references
        (
            {
                "tsconfig.json": '{ "files": [], "references": [{ "path": "./tsconfig.app.json" }, { "path": "./node" }] }',
                "tsconfig.app.json": ON,
                "node/tsconfig.json": OFF,
            },
            True,
        ),
    ],
)
def test_the_setting_is_read_from_the_nearest_tsconfig_and_what_it_extends(tmp_path, files, expected):
    write(tmp_path, files)
    assert TsConfigs(tmp_path).no_unused_parameters("src/checkout.ts") is expected


def test_each_setting_is_read_on_its_own(tmp_path):
    # strict implies neither
    write(
        tmp_path,
        {
            "tsconfig.base.json": '{ "compilerOptions": { "noUnusedLocals": true, "strict": true } }',
            "tsconfig.json": '{ "extends": "./tsconfig.base", "compilerOptions": { "noUnusedParameters": false, }, }',
            "web/tsconfig.json": '{ "compilerOptions": { "noUnusedParameters": true } }',
        },
    )
    configs = TsConfigs(tmp_path)
    assert (configs.no_unused_locals("src/a.ts"), configs.no_unused_parameters("src/a.ts")) == (True, False)
    assert (configs.no_unused_locals("web/a.ts"), configs.no_unused_parameters("web/a.ts")) == (False, True)


def test_a_missing_extends_is_logged_at_debug(tmp_path, caplog):
    write(tmp_path, {"tsconfig.json": '{ "extends": "@acme/missing", "compilerOptions": { "strict": true } }'})
    with caplog.at_level(logging.DEBUG, logger="gatehouse.cleanup"):
        assert TsConfigs(tmp_path).no_unused_parameters("a.ts") is False
    assert "extends '@acme/missing', which is not found" in caplog.text


def test_a_package_is_found_in_the_users_checkout_and_nothing_above_the_checkout_is_read(tmp_path):
    # the cleanup's work tree holds tracked files only: node_modules is the user's checkout's
    tree = write(tmp_path / "tree", {"web/tsconfig.json": '{ "extends": "@acme/tsconfig" }', "api/a.ts": ""})
    checkout = write(tmp_path / "checkout", {"node_modules/@acme/tsconfig/tsconfig.json": ON})
    write(tmp_path, {"tsconfig.json": ON, "outside.json": ON})
    assert TsConfigs(tree, (checkout,)).no_unused_parameters("web/src/a.ts") is True
    assert TsConfigs(tree).no_unused_parameters("web/src/a.ts") is False
    # above the checkout: neither the walk up nor an extends goes there
    assert TsConfigs(tree, (checkout,)).no_unused_parameters("api/a.ts") is False
    write(tree, {"api/tsconfig.json": '{ "extends": "../../outside.json" }'})
    assert TsConfigs(tree, (checkout,)).no_unused_parameters("api/a.ts") is False


def test_each_tsconfig_of_a_monorepo_is_read_once(tmp_path, monkeypatch):
    write(
        tmp_path,
        {
            "tsconfig.base.json": ON,
            "packages/shop/tsconfig.json": '{ "extends": "../../tsconfig.base.json" }',
            "packages/admin/tsconfig.json": '{ "compilerOptions": { "strict": true } }',
        },
    )
    reads: list[Path] = []
    read = tsconfig._configuration
    monkeypatch.setattr(tsconfig, "_configuration", lambda config: reads.append(config) or read(config))
    configs = TsConfigs(tmp_path)
    for n in range(200):
        assert configs.no_unused_parameters(f"packages/shop/src/part{n % 7}/f{n}.ts") is True
        assert configs.no_unused_parameters(f"packages/admin/src/f{n}.tsx") is False
    assert sorted(path.relative_to(tmp_path).as_posix() for path in reads) == [
        "packages/admin/tsconfig.json",
        "packages/shop/tsconfig.json",
        "tsconfig.base.json",
    ]


SOURCE = (
    'export function price(user: User, total: number) {\n  if (Statsig.checkGate(user, "g")) {\n    return 0;\n  }\n'
    "  return total;\n}\n"
)


def test_the_cleanup_renames_in_the_package_that_sets_it_and_nowhere_else(tmp_path):
    # two packages of one repository, one compiled with noUnusedParameters through an extends
    write(
        tmp_path,
        {
            "tsconfig.strict.json": '// shared\n{ "compilerOptions": { "noUnusedParameters": true, }, }\n',
            "packages/shop/tsconfig.json": json.dumps({"extends": "../../tsconfig.strict"}),
            "packages/admin/tsconfig.json": json.dumps({"compilerOptions": {"strict": True}}),
            "packages/shop/src/price.ts": SOURCE,
            "packages/admin/src/price.ts": SOURCE,
            "scripts/price.ts": SOURCE,
        },
    )
    worktree = Worktree(tmp_path, tmp_path, "base")
    patch = GatePatch(Choice("g", (), False, "disabled"), "gatehouse/cleanup/g")
    settings = checkout_settings(worktree)
    for path in ("packages/shop/src/price.ts", "packages/admin/src/price.ts", "scripts/price.ts"):
        _rewrite_file(worktree, patch, path, False, settings)
    assert patch.left == {}
    kept = "export function price(user: User, total: number) {\n  return total;\n}\n"
    assert (tmp_path / "packages/shop/src/price.ts").read_text() == kept.replace("(user", "(_user")
    assert (tmp_path / "packages/admin/src/price.ts").read_text() == kept
    assert (tmp_path / "scripts/price.ts").read_text() == kept


def test_a_solution_style_config_reads_its_projects_for_the_files_they_take(tmp_path):
    # Vite's layout, with a tests' project that does not refuse unread locals: which project compiles a file, its own
    # `files`, `include` and `exclude` say; where two take it and differ, the setting is in doubt
    write(
        tmp_path,
        {
            "tsconfig.json": '{ "files": [], "references": [{ "path": "./tsconfig.app.json" },'
            ' { "path": "./tsconfig.node.json" }, { "path": "./tsconfig.test.json" }] }',
            "tsconfig.app.json": '{ "compilerOptions": { "noUnusedLocals": true }, "include": ["src"],'
            ' "exclude": ["src/legacy/*.ts"] }',
            "tsconfig.node.json": '{ "compilerOptions": { "noUnusedLocals": false }, "files": ["vite.config.ts"] }',
            "tsconfig.test.json": '{ "compilerOptions": { "noUnusedLocals": false }, "include": ["src/**/*.test.ts"] }',
            # a solution whose one project takes none of its folder's files: every project it names, in doubt
            "tools/tsconfig.json": '{ "files": [], "references": [{ "path": "../tsconfig.app.json" }] }',
            # not a solution (it compiles its own files): its own options, whatever the project it references sets
            "web/tsconfig.json": '{ "include": ["src"], "references": [{ "path": "../tsconfig.app.json" }] }',
        },
    )
    configs = TsConfigs(tmp_path)
    assert {path: (configs.no_unused_locals(path), configs.no_unused_locals_in_doubt(path)) for path in PATHS} == {
        "src/cart/a.ts": (True, False),
        "src/cart/a.test.ts": (True, True),
        "src/legacy/old.ts": (True, True),  # excluded, taken by none: every project it names, which differ
        "vite.config.ts": (False, False),
        "tools/a.ts": (True, True),
        "web/src/a.ts": (False, False),
    }


PATHS = ("src/cart/a.ts", "src/cart/a.test.ts", "src/legacy/old.ts", "vite.config.ts", "tools/a.ts", "web/src/a.ts")


def test_a_file_its_nearest_tsconfig_does_not_take_is_in_doubt_and_patterns_come_through_extends(tmp_path):
    # tsc's build of a project leaves out a file its `files`/`include` less `exclude` do not take, while an editor
    # reads it with the nearest tsconfig's options: in doubt. A project naming none of the three inherits them from what
    # it extends, each relative to the folder of the tsconfig that names it (here configs/, so `../app`)
    write(
        tmp_path,
        {
            "tsconfig.json": '{ "extends": "./configs/base.json", "compilerOptions": { "noUnusedLocals": true } }',
            "configs/base.json": '{ "include": ["../app"], "exclude": ["../app/generated"] }',
            # a solution whose app project takes only src (its base's include), so e2e/ is the e2e project's alone
            "site/tsconfig.json": '{ "files": [], "references": [{ "path": "./tsconfig.app.json" },'
            ' { "path": "./tsconfig.e2e.json" }] }',
            "site/tsconfig.base.json": '{ "include": ["src"] }',
            "site/tsconfig.app.json": '{ "extends": "./tsconfig.base.json", "compilerOptions": { "noUnusedLocals": true } }',
            "site/tsconfig.e2e.json": '{ "include": ["e2e"], "compilerOptions": { "noUnusedLocals": false } }',
        },
    )
    configs = TsConfigs(tmp_path)
    paths = ("app/a.ts", "app/generated/b.ts", "scripts/c.ts", "site/src/a.ts", "site/e2e/a.ts")
    assert {path: (configs.no_unused_locals(path), configs.no_unused_locals_in_doubt(path)) for path in paths} == {
        "app/a.ts": (True, False),
        "app/generated/b.ts": (True, True),
        "scripts/c.ts": (True, True),
        "site/src/a.ts": (True, False),
        "site/e2e/a.ts": (False, False),
    }


@pytest.mark.parametrize(
    ("project", "takes"),
    [
        # a folder is every file under it, but what a wildcard matches never starts with a dot nor is node_modules
        (
            '{ "include": ["src"] }',
            {"src/a.ts": True, "src/deep/b.tsx": True, "src/.cache/a.ts": False, "src/node_modules/m/a.ts": False},
        ),
        # no exclude: tsc's own (node_modules and the outDir); a file named in `files` is taken whatever excludes it
        (
            '{ "compilerOptions": { "outDir": "dist" }, "files": ["dist/keep.ts"], "include": ["**/*"] }',
            {"a.ts": True, "dist/a.ts": False, "dist/keep.ts": True, "x/node_modules/a.ts": False},
        ),
        # `?`, `*` within a name, `./`; an include ending in `**` takes nothing
        ('{ "include": ["./src/v?/*.ts", "lib/**"] }', {"src/v1/a.ts": True, "src/v10/a.ts": False, "lib/a.ts": False}),
    ],
)
def test_a_projects_patterns_take_the_files_tsc_takes(tmp_path, project, takes):
    write(tmp_path, {"tsconfig.json": project})
    configs = TsConfigs(tmp_path)
    assert {path: configs._takes(tmp_path / "tsconfig.json", tmp_path / path) for path in takes} == takes
