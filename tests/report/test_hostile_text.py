"""Console text is typed by colleagues of the reader: loaded exactly as sent, it never runs, hides or changes what a
person sees. A console whose every text field holds markup, script, terminal escapes, Slack mentions, chart
mathematics, spreadsheet formulas and bidi overrides is loaded and reported on once; then each output is checked:
the HTML reports in the headless browser, the terminal summary, the alerts' Slack and webhook payloads, the CSV."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
from typing import Any
from xml.etree import ElementTree

import duckdb
import pytest

from gatehouse.pipelines.alerts.conditions import current_conditions, messages
from gatehouse.pipelines.alerts.delivery import SLACK, WEBHOOK, Channel, payload
from gatehouse.pipelines.cli.main import main
from gatehouse.pipelines.reports.report import NOTEBOOKS
from gatehouse.pipelines.untrusted import for_csv
from gatehouse.pipelines.warehouse.destination import Destination
from tests.drills.conftest import load, make_twin
from tools import report_pages

SCRIPT = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
TERMINAL = "\x1b[2J\x1b[31m \x1b]8;;http://evil.example\x07link\x1b]8;;\x07 \x07"
HOSTILE = (
    f'{SCRIPT} {TERMINAL} <!channel> <!here> <@U123> $10 ^_^ $20 \\frac{{a}}{{b}} =HYPERLINK("http://x") \u202eevil\u202c'
    " gate\u200bname \u061c[1-2]\u061c x\U000e0069\U000e0067"
)  # a lookalike, a reordering, hidden text
# Every free-text field the console serves, wherever it sits in an answer; ids and keys stay as they are.
TEXT_FIELDS = {
    "name",
    "description",
    "ownerName",
    "creatorName",
    "lastModifierName",
    "team",
    "groupName",
    "sourceName",
    "source",
    "tags",
}
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\u061c\U000e0000-\U000e0fff]")
MENTIONS = ("<!channel>", "<!here>", "<@U123>")

# Run in the page before anything else: a dialog any script opens is recorded, not shown; after load the page
# reports what the data could have made of it.
GUARD = """<script>
window.__dialogs = [];
['alert', 'confirm', 'prompt'].forEach(function (name) {
  window[name] = function (text) { window.__dialogs.push(name + ':' + text); };
});
window.addEventListener('load', function () {
  var handlers = [];
  document.querySelectorAll('*').forEach(function (element) {
    Array.prototype.forEach.call(element.attributes, function (attribute) {
      if (attribute.name.toLowerCase().indexOf('on') === 0) { handlers.push(element.tagName + '.' + attribute.name); }
    });
  });
  var found = {
    dialogs: window.__dialogs,
    handlers: handlers,
    scripts_from_data: Array.prototype.filter.call(document.scripts, function (s) {
      return s.textContent.indexOf('alert(1)') >= 0 && s.textContent.indexOf('__dialogs') < 0; }).length,
    images_not_inline: Array.prototype.filter.call(document.images, function (i) {
      return (i.getAttribute('src') || '').indexOf('data:') !== 0; }).length,
    shown_as_text: document.body.textContent.indexOf('<scr' + 'ipt>alert(1)</scr' + 'ipt>') >= 0,
  };
  var out = document.createElement('pre');
  out.id = 'hostile-probe';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


def hostile(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: hostile(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [hostile(v, key) for v in value]
    if isinstance(value, str) and key in TEXT_FIELDS:
        return f"{HOSTILE} {value}"
    return value


def make_hostile(endpoint: str, item: dict) -> dict:
    item = hostile(item)
    if endpoint in ("gates", "gate") and item.get("id", "").endswith(("a", "e")):
        item["description"] = HOSTILE + " " + "x" * 200_000  # a 200 kB description
    return item


@pytest.fixture(scope="module")
def hostile_console(tmp_path_factory, forked_gatehouse) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("hostile")
    database = work / "gatehouse.duckdb"
    twin = make_twin(transform_item=make_hostile)
    with twin.serve() as base_url:
        load(twin, base_url, database)
    made = forked_gatehouse("report", "--duckdb", str(database), "--out", str(work / "reports"))
    assert made.returncode == 0, made.stderr[-3000:]
    return {"database": database, "reports": work / "reports", "stdout": made.stdout, "stderr": made.stderr}


def test_the_console_text_is_loaded_exactly_as_sent(hostile_console):
    with duckdb.connect(str(hostile_console["database"]), read_only=True) as connection:
        names = [name for (name,) in connection.execute("select name from console.gates").fetchall()]
    assert names and all(name.startswith(HOSTILE) for name in names)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_no_element_attribute_or_script_in_a_report_comes_from_the_data(hostile_console, headless_browser, tmp_path, name):
    report = hostile_console["reports"] / f"{name}.html"
    page = report.read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(page.replace("\n", "").replace("\t", "").replace("\r", ""))
    probe = tmp_path / f"{name}-probe.html"
    probe.write_text(page.replace("<head>", "<head>" + GUARD, 1), encoding="utf-8")
    dump = report_pages._run(headless_browser, tmp_path / "profile", "--window-size=1280,900", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="hostile-probe">(.*?)</pre>', dump.stdout, re.S)
    assert found, dump.stderr[-2000:]
    seen = json.loads(found[1].replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"))
    assert seen == {
        "dialogs": [],
        "handlers": [],
        "scripts_from_data": 0,
        "images_not_inline": 0,
        "shown_as_text": seen["shown_as_text"],
    }
    if name == "stale_gates":  # the owners' names head the worklist's groups: shown, as text
        assert seen["shown_as_text"] is True


# what a chart is drawn with (pipelines/reports/charts.py): shapes and text, nothing that runs, links or loads
CHART_ELEMENTS = {"svg", "rect", "line", "polyline", "polygon", "circle", "text"}


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_every_chart_draws_console_text_as_text(hostile_console, name):
    page = (hostile_console["reports"] / f"{name}.html").read_text(encoding="utf-8")
    charts = [
        ElementTree.fromstring(base64.b64decode(data))
        for data in re.findall(r'<img src="data:image/svg\+xml;base64,([^"]+)"', page)
    ]
    assert len(charts) >= 3
    texts = []
    for chart in charts:
        for element in chart.iter():
            assert element.tag.split("}")[-1] in CHART_ELEMENTS, element.tag
            assert not [attribute for attribute in element.attrib if attribute.lower().startswith("on") or "href" in attribute]
            texts.append(element.text or "")
    assert not [text for text in texts if RAW_CONTROL.search(text)]
    # the console's names are on the charts as they read, markup and all, cut in the middle when long
    assert any(text.startswith("<script>alert(1)</scrip…") for text in texts), [text for text in texts if "script" in text][:5]


def test_the_terminal_summary_holds_no_control_character(hostile_console):
    for output in (hostile_console["stdout"], hostile_console["stderr"]):
        assert not RAW_CONTROL.search(output.replace("\n", "")), repr(RAW_CONTROL.search(output.replace("\n", "")))
    assert "\\x1b[2J" in hostile_console["stdout"]  # shown, as an escape


def test_alerts_ping_nobody_and_carry_no_control_character(hostile_console, monkeypatch, capsys):
    destination = Destination(duckdb_path=hostile_console["database"]).for_reading()
    with destination.reader() as reader:
        sent = messages(current_conditions(reader))
    assert any(HOSTILE[:20] in m.text or "alert(1)" in m.text for m in sent)
    slack = payload(Channel(SLACK, "https://hooks.invalid/x"), "gatehouse.duckdb", sent)
    assert not any(mention in slack["text"] for mention in MENTIONS)
    assert "&lt;!channel&gt;" in slack["text"] and not RAW_CONTROL.search(slack["text"].replace("\n", ""))
    webhook = payload(Channel(WEBHOOK, "https://hooks.invalid/y"), "gatehouse.duckdb", sent)
    assert all(not RAW_CONTROL.search(alert["text"].replace("\n", "")) for alert in webhook["alerts"])
    # as sent: JSON escapes whatever control character a key (the data's own id) holds
    body = json.dumps(webhook)  # as delivery.post sends it
    assert not RAW_CONTROL.search(body)

    monkeypatch.setenv("RUNTIME__SLACK_INCOMING_HOOK", "https://hooks.invalid/never-sent")
    assert main(["alerts", "--dry-run", "--duckdb", str(hostile_console["database"])]) == 0
    printed = capsys.readouterr().out
    assert "alert(1)" in printed and not RAW_CONTROL.search(printed.replace("\n", ""))


def test_csv_is_parseable_and_runs_no_formula(hostile_console, capsys):
    query = "select name, description from console.gates order by id"
    assert main(["sql", "--duckdb", str(hostile_console["database"]), "--format", "csv", query]) == 0
    csv.field_size_limit(1_000_000)  # the 200 kB descriptions
    printed = capsys.readouterr().out
    assert not RAW_CONTROL.search(printed.replace("\n", "").replace("\r", ""))  # `cat`, a spreadsheet: nothing runs
    rows = list(csv.reader(io.StringIO(printed)))
    with duckdb.connect(str(hostile_console["database"]), read_only=True) as connection:
        expected = connection.execute(query).fetchall()
    # each cell the text as the terminal shows it (its line breaks kept), a formula's start quoted
    assert [tuple(row) for row in rows[1:]] == [tuple(for_csv(value) for value in row) for row in expected]
    formula = '=HYPERLINK("http://x")'
    assert main(["sql", "--duckdb", str(hostile_console["database"]), "--format", "csv", f"select '{formula}' as f"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == '"\'=HYPERLINK(""http://x"")"'
