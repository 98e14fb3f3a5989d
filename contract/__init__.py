"""The console's published contract: its OpenAPI document, shipped beside this module as package data, and the
vocabularies of it that the client and the twin both check bodies and filters against.

The vocabularies are read from the document, not copied from it, so that the contract has one source of
truth: the client (sources/) and the twin (console_twin/) import this package and nothing of each other. It
imports nothing of the house's other packages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

OPENAPI_PATH = Path(__file__).with_name("console-openapi.json")
OPENAPI: dict[str, Any] = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))

_SCHEMAS = OPENAPI["components"]["schemas"]
_RULE = _SCHEMAS["ReleasePipelineCreateDto"]["properties"]["phases"]["items"]["properties"]["rules"]["items"]
_GATE_FILTERS = {
    parameter["name"]: parameter["schema"] for parameter in OPENAPI["paths"]["/console/v1/gates"]["get"]["parameters"]
}

# a custom role's permission flags, in the order of the interface (the create-role body's `permissions`)
ROLE_PERMISSION_FLAGS: tuple[str, ...] = tuple(_SCHEMAS["RoleContractDto"]["properties"]["permissions"]["properties"])
# a rule condition's `type`
CONDITION_TYPES: tuple[str, ...] = tuple(_RULE["properties"]["conditions"]["items"]["properties"]["type"]["enum"])
# warehouse connection member -> {field: nullable}
WH_CONNECTION_FIELDS: dict[str, dict[str, bool]] = {
    member: {name: field.get("nullable", False) for name, field in schema["properties"].items()}
    for member, schema in _SCHEMAS["WhConnectionUpdateDto"]["properties"].items()
}
# a SCIM group patch's operations
SCIM_OPS: tuple[str, ...] = tuple(
    _SCHEMAS["ScimPartialUpdateGroupDto"]["properties"]["Operations"]["items"]["properties"]["op"]["enum"]
)
# the gate list's filters: a gate's `type` and `typeReason`; `passRate` and `rolloutRate` take the same values
GATE_TYPES: tuple[str, ...] = tuple(_GATE_FILTERS["type"]["enum"])
GATE_TYPE_REASONS: tuple[str, ...] = tuple(_GATE_FILTERS["typeReason"]["enum"])
RATE_FILTERS: tuple[str, ...] = tuple(_GATE_FILTERS["passRate"]["oneOf"][0]["enum"])
