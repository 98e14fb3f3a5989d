"""Every owner's whole list is in the report folder: the worklist's top gates link to each owner's full list on the
page, and `stale_gates.csv` holds every stale gate with its owner, for a person to forward."""

from __future__ import annotations

import csv
import re

import duckdb

from gatehouse.pipelines.reports.format import Column, link_to
from gatehouse.pipelines.reports.report import WORKLIST_CSV, WORKLIST_CSV_COLUMNS, write_worklist_csv
from gatehouse.pipelines.warehouse.destination import Destination


def stale_gate_ids(database) -> set[tuple[str, str]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        return set(connection.execute("select project, gate_id from analytics.stale_gates").fetchall())


def test_every_stale_gate_of_the_demo_is_in_the_report_folder(demo_reports):
    expected = stale_gate_ids(demo_reports.database)
    assert len(expected) > 60
    page = (demo_reports.out / "stale_gates.html").read_text()
    full_list = page[page.index("Every gate, owner by owner") :]
    missing = [gate for _, gate in expected if f'<td class="text">{gate}</td>' not in full_list]
    assert missing == [], "every stale gate is in some owner's whole list"
    # each "…and N more for this owner" of the worklist goes to that owner's place in the full list
    links = re.findall(r'<a href="#(owner-[0-9a-f]{12})">…and (\d+) more for this owner</a>', page)
    assert links, "the demo has owners with more gates than the worklist shows"
    for place, _ in links:
        assert f'<tr class="gh-group" id="{place}">' in full_list
    with (demo_reports.out / WORKLIST_CSV).open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert list(rows[0]) == list(WORKLIST_CSV_COLUMNS)  # no console_url column without a template
    assert {(row["project"], row["gate_id"]) for row in rows} == expected and len(rows) == len(expected)
    assert all(row["recommended_action"] for row in rows)
    assert f"  {demo_reports.out / WORKLIST_CSV}" in demo_reports.stdout.splitlines()
    assert '<a href="http' not in page, "no link to the console unless its address is configured"
    # a gate the console never saw checked says so in words, not as a blank beside the zeros
    with duckdb.connect(str(demo_reports.database), read_only=True) as connection:
        [(never,)] = connection.execute("select count(*) from analytics.stale_gates where checks_per_hour is null").fetchall()
    assert never > 0 and full_list.count('<td class="num">never checked</td>') == never


def test_with_the_consoles_address_each_gate_links_to_its_page(demo_db, tmp_path, monkeypatch):
    monkeypatch.setenv("GATEHOUSE__REPORT__GATE_URL", "https://console.example.com/gates/{id}?from=gatehouse")
    path = write_worklist_csv(Destination(duckdb_path=demo_db).for_reading(), tmp_path)
    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    assert rows and all(
        row["console_url"] == f"https://console.example.com/gates/{row['gate_id']}?from=gatehouse" for row in rows
    )
    # an id a console user typed is quoted in the address, and the address escaped in the page
    cell = Column("gate_id", "Gate", "id", keep=64, link=link_to("https://console.example.com/gates/{id}?a=1&b=2")).cell(
        'x"/><script>'
    )
    assert cell == (
        '<td class="text"><a href="https://console.example.com/gates/x%22%2F%3E%3Cscript%3E?a=1&amp;b=2">'
        "x&quot;/&gt;&lt;script&gt;</a></td>"
    )


def test_a_gate_address_that_is_not_http_is_refused_in_one_line(demo_db, tmp_path, monkeypatch):
    import pytest

    from gatehouse.pipelines.errors import GatehouseError

    monkeypatch.setenv("GATEHOUSE__REPORT__GATE_URL", "javascript:alert(1)//{id}")
    with pytest.raises(GatehouseError, match=r"^gatehouse.report.gate_url must be an http\(s\) address holding \{id\}"):
        write_worklist_csv(Destination(duckdb_path=demo_db).for_reading(), tmp_path)


def test_gates_a_server_key_owns_are_one_group_that_names_the_people_to_ask(demo_reports):
    # The twin's console makes some gates through the API with a server key ("CONSOLE API", ownerType SDK_KEY):
    # such a group is said to be no person, and the people who last changed those gates are named instead.
    with duckdb.connect(str(demo_reports.database), read_only=True) as connection:
        groups = connection.execute(
            "select project, owner_key, owner_name, contacts, gate_count from analytics.stale_gates_by_owner"
            " where is_server_key_owner order by project"
        ).fetchall()
        people = connection.execute(
            "select project, contact_name, count(*) from analytics.stale_gates where is_server_key_owner"
            " and contact_name is not null group by all order by 1, 3 desc, 2"
        ).fetchall()
    assert [(project, key, name) for project, key, name, _, _ in groups] == [
        ("mobile", "(server keys)", "CONSOLE API"),
        ("web", "(server keys)", "CONSOLE API"),
    ]
    for project, _, _, contacts, count in groups:
        assert contacts == ", ".join(f"{name} ({n})" for p, name, n in people if p == project)
        heading = (
            f'<th colspan="10">{project}: (server keys) <span class="gh-aside">{count} gates'
            f" · not a person: ask {contacts}</span></th>"
        )
        page = (demo_reports.out / "stale_gates.html").read_text()
        assert page.count(heading) == 2, "in the worklist and in the whole list, once each"


def test_at_1280_px_each_more_link_takes_the_reader_to_that_owners_whole_list(headless_browser, demo_reports, tmp_path):
    import matplotlib.image as mpimg

    from gatehouse.pipelines.reports.lists import WORKLIST_PER_OWNER
    from tests.report.test_report import ARTEFACTS
    from tools import report_pages

    report = demo_reports.out / "stale_gates.html"
    links = [
        link
        for link in report_pages.followed_links(headless_browser, report, tmp_path, width=1280)
        if link["href"].startswith("#owner-")
    ]
    with duckdb.connect(str(demo_reports.database), read_only=True) as connection:
        [(crowded,)] = connection.execute(
            "select count(*) from analytics.stale_gates_by_owner where gate_count > ?", [WORKLIST_PER_OWNER]
        ).fetchall()
    assert len(links) == crowded > 0, "one link for each owner the worklist cannot show whole"
    for link in links:
        more = int(re.fullmatch(r"…and (\d+) more for this owner", link["text"])[1])
        # clicked: the address names the owner's place, which is on screen and heads all of the owner's gates
        assert link["found"] and link["hash"] == link["href"] and link["on_screen"], link
        assert f" {more + WORKLIST_PER_OWNER} gates" in link["target_text"], link
    # what a reader sees after the first link, kept beside the whole pages' screenshots
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    landed = links[0]["scrolled"]
    page = report_pages.screenshot(headless_browser, report, tmp_path / "page.png", tmp_path, width=1280, height=landed + 900)
    screen = mpimg.imread(page)[landed : landed + 900]
    mpimg.imsave(ARTEFACTS / "demo-stale_gates-owner-list.png", screen)
    assert screen.shape[:2] == (900, 1280)
    assert int((screen[..., :3].max(axis=-1) < 0.4).sum()) > 2000, "the owner's heading and gates are drawn there"


def test_exposures_name_each_experiment_whole_and_a_concluded_ones_pace_as_its_last_week(demo_reports):
    with duckdb.connect(str(demo_reports.database), read_only=True) as connection:
        experiments = connection.execute(
            "select experiment_id, status, pace_through_date, avg_daily_exposures_7d from analytics.exposure_growth"
        ).fetchall()
        [(partial,)] = connection.execute("select count(*) from analytics.exposure_daily where is_partial_day").fetchall()
    page = (demo_reports.out / "exposure_growth.html").read_text()
    assert any(status == "concluded" for _, status, _, _ in experiments) and partial > 0
    for experiment_id, status, through, pace in experiments:
        assert f'<td class="text">{experiment_id}</td>' in page, "the id whole, not cut behind a hover"
        if status == "concluded":
            assert f"{pace:,.0f} (its last week, to {through:%Y-%m-%d})" in page
    # the current day, still counting, is said to be left out of the charts
    assert "the current day, still counting, left out" in page
