"""gatehouse as a user installs it: a wheel built from the repository's tracked files, installed without -e into
a new virtual environment, runs the demo, the report and the notebooks from site-packages, and puts one name
there, `gatehouse`.

The new environment takes the third-party dependencies from this one (a path file pointing at its
site-packages, whose own path files, the editable install among them, Python does not read, and JUPYTER_PATH
for nbconvert's templates): only gatehouse itself comes from the wheel, and the commands run in a folder that
is not the checkout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from zipfile import ZipFile

import pytest

from tests.fresh_clone import copy_tracked_files

pytestmark = pytest.mark.slow


def run(*argv: str | Path, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, **env} if env else None
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}: {done.stderr[-3000:]}"
    return done


def test_the_wheel_runs_the_demo_the_report_and_the_notebooks(tmp_path):
    source = copy_tracked_files(tmp_path / "source")
    wheels = tmp_path / "wheels"
    # pyproject's build backend (setuptools, installed here) called as a frontend calls it, in one process: `pip wheel
    # --no-build-isolation` started pip and then a process of the backend's for each of its three hooks
    build = "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])"
    built = run(sys.executable, "-c", build, wheels, cwd=source)
    # setuptools is told of every folder it ships: none of its "Package would be ignored" walls of text
    assert "would be ignored" not in built.stdout + built.stderr and "BuildBackendWarning" not in built.stdout + built.stderr
    # the distribution's own name (`gatehouse` on the package index is another project's); the import name stays
    [wheel] = wheels.glob("gatehouse_console-*.whl")
    with ZipFile(wheel) as archive:
        top_level = {name.split("/")[0] for name in archive.namelist()}
        names = archive.namelist()
    assert top_level == {"gatehouse", wheel.name.split("-py3")[0] + ".dist-info"}
    assert "gatehouse/notebooks/stale_gates.ipynb" in names and "gatehouse/pipelines/models/marts/gates/stale_gates.sql" in names
    assert "gatehouse/contract/console-openapi.json" in names  # the client's and the twin's vocabularies are read from it
    # the dbt package that `gatehouse views --dbt` builds, every file of it
    shipped = {name.removeprefix("gatehouse/dbt/") for name in names if name.startswith("gatehouse/dbt/")}
    assert shipped == {str(path.relative_to(source / "dbt")) for path in (source / "dbt").rglob("*") if path.is_file()}

    env = tmp_path / "env"
    run(sys.executable, "-m", "venv", "--without-pip", env, cwd=tmp_path)
    python = env / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).stdout.strip())
    (site / "gatehouse_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # pip from this environment's site-packages run by the new one's interpreter (`pip --python` starts pip twice)
    run(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel, cwd=tmp_path)

    work = tmp_path / "work"
    work.mkdir()
    # one interpreter for both questions: each start imported gatehouse again
    where = run(python, "-c", "import gatehouse.pipelines.reports.lanes as r; print(r.__file__); print(r.NOTEBOOK_DIR);"
                " from gatehouse.pipelines.warehouse.dbt_build import installed_package as p; print(p())", cwd=work)  # fmt: skip
    module, notebooks, dbt_package = where.stdout.split()
    assert module.startswith(str(site)) and notebooks == str(site / "gatehouse" / "notebooks")
    assert dbt_package == str(site / "gatehouse" / "dbt")

    gatehouse = env / "bin" / "gatehouse"
    # the shared dependencies' data files (nbconvert's templates) are under this environment's prefix
    shared = {"JUPYTER_PATH": str(Path(sys.prefix) / "share" / "jupyter")}
    run(gatehouse, "run", "--demo", "--no-progress", cwd=work)
    report = run(gatehouse, "report", "--duckdb", "demo.duckdb", cwd=work, **shared)
    assert report.stdout.splitlines()[-4:] == [
        "  reports/stale_gates.html",
        "  reports/exposure_growth.html",
        "  reports/ingestion_health.html",
        "  reports/stale_gates.csv",
    ]
    for name in ("stale_gates", "exposure_growth", "ingestion_health"):
        html = (work / "reports" / f"{name}.html").read_text()
        assert '<img src="data:image/svg+xml;base64,' in html, f"{name}: the notebook ran and drew its charts"
    # the notebooks open on their own too, from the installed package, against the demo's snapshot
    run(python, "-m", "nbconvert", "--to", "notebook", "--execute", "--output", work / "run.ipynb",
        site / "gatehouse" / "notebooks" / "stale_gates.ipynb", cwd=work,
        GATEHOUSE__DUCKDB=str(work / "demo.duckdb"), **shared)  # fmt: skip
    assert "Data in `" in (work / "run.ipynb").read_text()
