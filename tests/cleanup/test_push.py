"""`gatehouse cleanup --push REMOTE`: each new branch pushed to a local bare repository (the push address of a remote
that reads as GitHub's), never forced nor over a branch the remote has; the address that opens its pull request on
GitHub, GitLab and Bitbucket."""

from __future__ import annotations

import pytest

from gatehouse.pipelines.cleanup.branches import review_address
from tests.cleanup.conftest import git

DECIDED = ("new_checkout", "old_banner")


def test_each_new_branch_is_pushed_and_never_over_one_the_remote_has(repository, database, gatehouse, tmp_path):
    # the remote reads as GitHub's; its pushes go to a local bare repository (git's pushurl): offline
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", str(remote))
    git(repository, "remote", "add", "origin", "git@github.com:acme/shop.git")
    git(repository, "remote", "set-url", "--push", "origin", str(remote))
    done = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database), "--push", "origin")
    assert done.code == 0, done.err
    for gate_id in DECIDED:
        branch = f"gatehouse/cleanup/{gate_id}"
        assert git(remote, "rev-parse", branch) == git(repository, "rev-parse", branch)
        assert (
            f"{gate_id}: pushed {branch} to origin; open its pull request: "
            f"https://github.com/acme/shop/compare/main...gatehouse%2Fcleanup%2F{gate_id}?expand=1\n"
        ) in done.out
    # the commit message is the request's description: the evidence travels with the branch
    assert "console type and reason" in git(remote, "log", "-1", "--format=%B", "gatehouse/cleanup/new_checkout")

    # a branch the remote has already (someone's work) is never pushed over
    git(repository, "branch", "-D", "gatehouse/cleanup/old_banner")
    pushed = git(remote, "rev-parse", "gatehouse/cleanup/old_banner")
    done = gatehouse("cleanup", "old_banner", "--repo", str(repository), "--duckdb", str(database), "--push", "origin")
    assert done.code == 2
    assert done.err.splitlines()[-1] == (
        "gatehouse: error: origin has a branch gatehouse/cleanup/old_banner already:"
        " not pushed over it (delete it there to push this one)"
    )
    assert git(remote, "rev-parse", "gatehouse/cleanup/old_banner") == pushed


def test_push_refuses_an_unknown_remote_and_a_dry_run_before_anything_is_made(repository, database, gatehouse):
    before = git(repository, "for-each-ref")
    done = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database), "--push", "upstream")
    assert (done.code, done.err.splitlines()[-1]) == (
        2,
        f"gatehouse: error: --push upstream: {repository} has no remote of that name (see `git remote -v`)",
    )
    done = gatehouse("cleanup", "--all", "--repo", str(repository), "--duckdb", str(database), "--push", "o", "--dry-run")
    assert done.err.splitlines()[-1] == (
        "gatehouse: error: --push and --dry-run: a dry run writes nothing, so it pushes nothing; choose one"
    )
    assert git(repository, "for-each-ref") == before


@pytest.mark.parametrize(
    "url, address",
    [
        (
            "https://github.com/acme/shop.git",
            "https://github.com/acme/shop/compare/main...gatehouse%2Fcleanup%2Fnew_checkout?expand=1",
        ),
        (
            "git@github.com:acme/shop.git",
            "https://github.com/acme/shop/compare/main...gatehouse%2Fcleanup%2Fnew_checkout?expand=1",
        ),
        (
            "https://gitlab.example.com/platform/web/shop.git",
            "https://gitlab.example.com/platform/web/shop/-/merge_requests/new?merge_request%5Bsource_branch%5D="
            "gatehouse%2Fcleanup%2Fnew_checkout&merge_request%5Btarget_branch%5D=main",
        ),
        (
            "ssh://git@bitbucket.org/acme/shop.git",
            "https://bitbucket.org/acme/shop/pull-requests/new?source=gatehouse%2Fcleanup%2Fnew_checkout&dest=main",
        ),
        ("/srv/git/shop.git", None),
        ("https://git.example.com/acme/shop.git", None),
    ],
)
def test_the_pull_request_address_of_each_host(repository, url, address):
    git(repository, "remote", "add", "origin", url)
    assert review_address(repository, "origin", "gatehouse/cleanup/new_checkout", "main") == address
