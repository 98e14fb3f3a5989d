"""The suite's own scheduling (tests/conftest.py): the longest files it starts first are files that exist."""

from pathlib import Path

from tests.conftest import LONGEST_FIRST, SHARED_FIXTURE_GROUPS


def test_the_longest_files_named_are_test_files():
    tests = Path(__file__).parent
    assert [name for name in LONGEST_FIRST if not (tests / name).is_file()] == []
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)


def test_the_files_sharing_a_fixture_exist_and_use_it():
    tests = Path(__file__).parent
    for name, fixture in SHARED_FIXTURE_GROUPS.items():
        assert fixture in (tests / name).read_text(), name
