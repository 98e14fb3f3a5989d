"""Writes the model sections of docs/data-model.md from the model files (`make docs`).

Each model documents itself in its file: the header line (grain and key) and the Markdown comment under it. The
document keeps its own prose; between the markers

    <!-- models in FOLDER: ... -->
    <!-- end of models in FOLDER -->

it holds one `### analytics.<name>` section per model of pipelines/models/FOLDER, in build order, and nothing else.
`tests/views/test_model_graph.py` checks that the document is what this writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from gatehouse.pipelines.models.graph import ViewDefinition, view_definitions

# A maintainer's tool, run in a checkout (`make docs`): docs/ is not shipped in the wheel.
DATA_MODEL = Path(__file__).resolve().parents[2] / "docs" / "data-model.md"

_REGION = re.compile(
    r"(?P<start><!-- models in (?P<folder>[a-z_/]+): [^\n]*-->\n)(?P<body>.*?)(?P<end><!-- end of models in (?P=folder) -->)",
    re.S,
)
START_MARKER = "<!-- models in {folder}: generated from each model's file by `make docs`; edit the model, not this -->"


def model_section(definition: ViewDefinition) -> str:
    grain = f"Grain: {definition.grain}; key {', '.join(f'`{column}`' for column in definition.key)}."
    doc = definition.doc.strip()
    if not doc:
        return f"### analytics.{definition.name}\n{grain}\n"
    joiner = "\n\n" if doc.startswith("|") else "\n"
    return f"### analytics.{definition.name}\n{grain}{joiner}{doc}\n"


def render(document: str, definitions: list[ViewDefinition]) -> str:
    """The document with every region of models rewritten; a folder of models without a region is refused."""
    by_folder: dict[str, list[ViewDefinition]] = {}
    for definition in definitions:
        by_folder.setdefault(definition.folder, []).append(definition)
    regions = [match["folder"] for match in _REGION.finditer(document)]
    missing = sorted(set(by_folder) - set(regions))
    if missing:
        raise ValueError(
            f"{DATA_MODEL.name} has no region for the models in {', '.join(missing)}: add"
            f" {START_MARKER.format(folder=missing[0])}"
        )
    empty = sorted(set(regions) - set(by_folder))
    if empty:
        raise ValueError(f"{DATA_MODEL.name} has a region for {', '.join(empty)}, where there are no models")

    def rewrite(match: re.Match[str]) -> str:
        sections = "\n".join(model_section(definition) for definition in by_folder[match["folder"]])
        return f"{START_MARKER.format(folder=match['folder'])}\n{sections}{match['end']}"

    return _REGION.sub(rewrite, document)


def main() -> int:
    current = DATA_MODEL.read_text(encoding="utf-8")
    written = render(current, view_definitions())
    if written != current:
        DATA_MODEL.write_text(written, encoding="utf-8")
        print(f"wrote {DATA_MODEL}")
    else:
        print(f"{DATA_MODEL} is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
