"""Where a deployment's dlt state is kept: beside its DuckDB file, or for a warehouse in a folder of its own per
destination, host, database and dataset under the user's own dlt folder, so two deployments on one machine never
share state or a run lock."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path

from gatehouse.pipelines.warehouse.names import DATASET_NAME

log = logging.getLogger("gatehouse.destination")

# What tells one warehouse from another in its credentials (none of them a secret), for its state's folder.
WAREHOUSE_PLACE = ("host", "port", "database", "project_id", "server_hostname", "http_path", "catalog", "account")


def warehouse_state_root() -> Path:
    """The user's own dlt folder (DLT_DATA_DIR when set, else ~/.dlt), never dlt's machine-wide /var/dlt as root."""
    data_dir = os.environ.get("DLT_DATA_DIR")
    return (Path(data_dir) if data_dir else Path.home() / ".dlt") / "gatehouse"


def warehouse_digest(name: str) -> str:
    """A digest of where the warehouse `name` is (its credentials' non-secret parts) and of the dataset."""
    from dlt.common.configuration import resolve_configuration
    from dlt.common.destination import Destination as DltDestination

    try:
        reference = DltDestination.from_reference(name)
        spec = reference.spec() if reference is not None else None
        config = resolve_configuration(spec, sections=("destination", name), accept_partial=True) if spec else None
        credentials = getattr(config, "credentials", None)
    except Exception:  # an unknown destination is refused with its own line where the pipeline is made
        credentials = None
    place = [name, DATASET_NAME] + [
        str(getattr(credentials, part, None) or "") for part in WAREHOUSE_PLACE if credentials is not None
    ]
    return hashlib.sha256("\x1f".join(place).encode()).hexdigest()[:12]


def adopt_machine_wide_state(pipeline_name: str, working_dir: Path) -> None:
    """A warehouse pipeline's state that dlt kept in its machine-wide folder (before deployments had their own):
    moved once into this deployment's folder, said in one line."""
    from dlt.common.pipeline import get_dlt_pipelines_dir

    old = Path(get_dlt_pipelines_dir()) / pipeline_name
    new = working_dir / pipeline_name
    if old.is_dir() and not new.exists() and old.resolve() not in (new.resolve(), *new.resolve().parents):
        new.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(old), str(new))
        log.warning("moved pipeline state %s to %s: each deployment keeps its own (gatehouse.pipelines_dir)", old, new)
