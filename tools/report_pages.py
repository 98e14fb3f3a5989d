"""Opens an HTML report in the headless browser at a given width: what its layout is, and a screenshot of it.

    python -m tools.report_pages REPORTS_DIR OUT_DIR [--width 1280]   # OUT_DIR/<report>.png, whole pages

The report test (tests/report/test_report.py) asks `layout()` whether the worklist's action column is in the
viewport, no table overflows the page and every chart decoded; the bench keeps the screenshots.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools import headless_browser

WIDTH = 1280
MAX_HEIGHT = 20000  # a screenshot of a longer page is cut there
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    # anything the page asked of the network would go to a closed port: the charts must not need it
    "--proxy-server=http://127.0.0.1:9",
    "--virtual-time-budget=10000",
)
# Read back from the page after its load event, as JSON in a <pre> the DOM dump carries.
PROBE = """<script>
window.addEventListener('load', function () {
  function box(element) { var r = element.getBoundingClientRect(); return {left: r.left, right: r.right}; }
  var root = document.documentElement;
  var found = {
    viewport: root.clientWidth,
    page_width: root.scrollWidth,
    page_height: root.scrollHeight,
    tables: Array.prototype.map.call(document.querySelectorAll('table'), function (table) {
      var frame = table.closest('.gh-table') || table;
      return Object.assign(box(frame), {scrolls_inside: frame.scrollWidth > frame.clientWidth,
                                        headers: Array.prototype.map.call(table.querySelectorAll('thead th'),
                                          function (th) { return Object.assign(box(th), {text: th.textContent.trim()}); })});
    }),
    images: Array.prototype.map.call(document.images, function (img) {
      return Object.assign(box(img), {src: img.src.slice(0, img.src.indexOf(',') + 1), complete: img.complete,
                                      width: img.naturalWidth, height: img.naturalHeight,
                                      shown: img.getBoundingClientRect().width});
    })
  };
  var out = document.createElement('pre');
  out.id = 'layout-probe';
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>"""


# Each in-page link followed in turn, as a reader's click: where it leads and whether that place is then on screen.
LINK_PROBE = """<script>
window.addEventListener('load', function () {
  var followed = Array.prototype.map.call(document.querySelectorAll('a[href^="#"]'), function (link) {
    window.scrollTo(0, 0);
    link.click();
    var target = document.getElementById(link.getAttribute('href').slice(1));
    var top = target ? target.getBoundingClientRect().top : null;
    return {href: link.getAttribute('href'), text: link.textContent, found: !!target,
            target_text: target ? target.textContent.slice(0, 200) : null, hash: location.hash,
            on_screen: top !== null && top > -2 && top < window.innerHeight, scrolled: window.scrollY};
  });
  var out = document.createElement('pre');
  out.id = 'link-probe';
  out.textContent = JSON.stringify(followed);
  document.body.appendChild(out);
});
</script>"""


@dataclass(frozen=True)
class Layout:
    viewport: int
    page_width: int
    page_height: int
    tables: list[dict]
    images: list[dict]

    def column(self, header: str) -> list[dict]:
        """The header cells of that name, with their left and right edges."""
        return [th for table in self.tables for th in table["headers"] if th["text"] == header]


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)


def _probed(browser: str, report: Path, workdir: Path, width: int, script: str, marker: str) -> Any:
    """The JSON `script` leaves in `<pre id="marker">` once the report, opened at `width`, has loaded."""
    probe = workdir / f"{report.stem}-{marker}.html"
    probe.write_text(report.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    dump = _run(browser, workdir / "profile", f"--window-size={width},900", "--dump-dom", probe.as_uri())
    found = re.search(rf'<pre id="{marker}">(.*?)</pre>', dump.stdout, re.S)
    if not found:
        raise RuntimeError(f"no {marker} from {browser}:\n{dump.stderr[-2000:]}")
    return json.loads(found[1].replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def layout(browser: str, report: Path, workdir: Path, width: int = WIDTH) -> Layout:
    return Layout(**_probed(browser, report, workdir, width, PROBE, "layout-probe"))


def followed_links(browser: str, report: Path, workdir: Path, width: int = WIDTH) -> list[dict]:
    """Every in-page link of the report clicked in the browser at `width`: its href and text, whether its target
    exists, and whether the click brought the target on screen."""
    return _probed(browser, report, workdir, width, LINK_PROBE, "link-probe")


def screenshot(browser: str, report: Path, png: Path, workdir: Path, width: int = WIDTH, height: int | None = None) -> Path:
    """The whole page (up to MAX_HEIGHT) as a PNG, at `width`."""
    height = height or layout(browser, report, workdir, width).page_height
    shot = _run(
        browser, workdir / "profile", f"--window-size={width},{min(height, MAX_HEIGHT)}", f"--screenshot={png}", report.as_uri()
    )
    if not png.is_file():
        raise RuntimeError(f"no screenshot from {browser}:\n{shot.stderr[-2000:]}")
    return png


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("reports", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--width", type=int, default=WIDTH)
    parser.add_argument("--prefix", default="")
    args = parser.parse_args()
    browser = headless_browser.find()
    if browser is None:
        print(headless_browser.missing_line(apt_available=False), file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        for report in sorted(args.reports.resolve().glob("*.html")):
            png = screenshot(browser, report, args.out / f"{args.prefix}{report.stem}.png", Path(workdir), args.width)
            print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
