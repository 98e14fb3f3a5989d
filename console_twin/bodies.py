"""Validation of request bodies, as the service answers it: a list of {property, errorMessage}.

The shapes are those of the OpenAPI request schemas; the twin checks them on its own (it shares nothing
with the client's local validation, so each catches the other's mistakes). The vocabularies (condition types,
permission flags, warehouse fields, SCIM ops) are the published document's own, read by gatehouse.contract.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Any

from gatehouse.contract import CONDITION_TYPES, ROLE_PERMISSION_FLAGS, SCIM_OPS, WH_CONNECTION_FIELDS

# The twin keeps group membership only; other SCIM paths (displayName, externalId) are refused.
SCIM_PATHS = ("members",)

Errors = list[dict]


def field_error(property_path: str, message: str) -> dict:
    return {"property": property_path, "errorMessage": message}


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _check_string(errors: Errors, container: dict, key: str, where: str, *, required: bool, nullable: bool = False) -> None:
    if key not in container:
        if required:
            errors.append(field_error(where, "Required"))
        return
    value = container[key]
    if value is None and nullable:
        return
    if not isinstance(value, str):
        errors.append(field_error(where, "must be a string"))
    elif required and not value.strip():
        errors.append(field_error(where, "must not be empty"))


def _check_array(
    errors: Errors, container: dict, key: str, where: str, check_item: Callable[[Errors, object, str], None]
) -> None:
    """A required array member, each of its items checked by `check_item` at `where[index]`."""
    if key not in container:
        errors.append(field_error(where, "Required"))
    elif not isinstance(container[key], list):
        errors.append(field_error(where, "must be an array"))
    else:
        for index, item in enumerate(container[key]):
            check_item(errors, item, f"{where}[{index}]")


def _check_condition(errors: Errors, condition: object, where: str) -> None:
    if not isinstance(condition, dict):
        errors.append(field_error(where, "must be an object"))
        return
    if "type" not in condition:
        errors.append(field_error(f"{where}.type", "Required"))
    elif condition["type"] not in CONDITION_TYPES:
        errors.append(field_error(f"{where}.type", f"must be one of {', '.join(CONDITION_TYPES)}"))
    target = condition.get("targetValue")
    single = isinstance(target, str) or _is_number(target)
    uniform_list = isinstance(target, list) and (
        all(isinstance(item, str) for item in target) or all(_is_number(item) for item in target)
    )
    if target is not None and not single and not uniform_list:
        errors.append(field_error(f"{where}.targetValue", "must be a string, a number, or an array of strings or of numbers"))
    _check_string(errors, condition, "operator", f"{where}.operator", required=False)
    for key in ("field", "customID"):
        _check_string(errors, condition, key, f"{where}.{key}", required=False, nullable=True)


def _named_object(errors: Errors, value: object, where: str) -> dict[str, Any] | None:
    """A release pipeline's phase or rule: an object with an optional `id` and a required `name`.

    None when it is not an object, and nothing more can be checked."""
    if not isinstance(value, dict):
        errors.append(field_error(where, "must be an object"))
        return None
    _check_string(errors, value, "id", f"{where}.id", required=False)
    _check_string(errors, value, "name", f"{where}.name", required=True)
    return value


def _check_pipeline_rule(errors: Errors, value: object, where: str) -> None:
    rule = _named_object(errors, value, where)
    if rule is None:
        return
    _check_array(errors, rule, "conditions", f"{where}.conditions", _check_condition)
    environments = rule.get("environments")
    if environments is not None and not (isinstance(environments, list) and all(isinstance(e, str) for e in environments)):
        errors.append(field_error(f"{where}.environments", "must be an array of strings or null"))


def _check_phase(errors: Errors, value: object, where: str) -> None:
    phase = _named_object(errors, value, where)
    if phase is None:
        return
    if "timeIntervalMs" not in phase:
        errors.append(field_error(f"{where}.timeIntervalMs", "Required"))
    elif not _is_number(phase["timeIntervalMs"]) or phase["timeIntervalMs"] < 0:
        errors.append(field_error(f"{where}.timeIntervalMs", "must be a non-negative number"))
    if "requiredReview" not in phase:
        errors.append(field_error(f"{where}.requiredReview", "Required"))
    elif not isinstance(phase["requiredReview"], bool):
        errors.append(field_error(f"{where}.requiredReview", "must be a boolean"))
    _check_array(errors, phase, "rules", f"{where}.rules", _check_pipeline_rule)


def release_pipeline_errors(body: object, *, creating: bool) -> Errors:
    """Create requires `name`; update takes the same shape with every member optional (ReleasePipelineUpdateDto)."""
    if not isinstance(body, dict):
        return [field_error("", "must be an object")]
    errors: Errors = []
    _check_string(errors, body, "name", "name", required=creating)
    if "name" in body and not creating and isinstance(body["name"], str) and not body["name"].strip():
        errors.append(field_error("name", "must not be empty"))
    if "phases" in body:
        if not isinstance(body["phases"], list):
            errors.append(field_error("phases", "must be an array"))
        else:
            for index, phase in enumerate(body["phases"]):
                _check_phase(errors, phase, f"phases[{index}]")
    _check_string(errors, body, "triggerNotice", "triggerNotice", required=False, nullable=True)
    return errors


def role_errors(body: object) -> Errors:
    if not isinstance(body, dict):
        return [field_error("", "must be an object")]
    errors: Errors = []
    _check_string(errors, body, "name", "name", required=True)
    if "permissions" not in body:
        errors.append(field_error("permissions", "Required"))
    elif not isinstance(body["permissions"], dict):
        errors.append(field_error("permissions", "must be an object"))
    else:
        for flag, value in body["permissions"].items():
            if flag not in ROLE_PERMISSION_FLAGS:
                errors.append(field_error(f"permissions.{flag}", "is not a permission"))
            elif not isinstance(value, bool):
                errors.append(field_error(f"permissions.{flag}", "must be a boolean"))
    return errors


def warehouse_connection_errors(body: object) -> Errors:
    if not isinstance(body, dict):
        return [field_error("", "must be an object")]
    errors: Errors = []
    for member, fields in body.items():
        if member not in WH_CONNECTION_FIELDS:
            errors.append(field_error(member, f"must be one of {', '.join(WH_CONNECTION_FIELDS)}"))
            continue
        if not isinstance(fields, dict):
            errors.append(field_error(member, "must be an object"))
            continue
        for name, value in fields.items():
            where = f"{member}.{name}"
            if name not in WH_CONNECTION_FIELDS[member]:
                errors.append(field_error(where, "is not a connection parameter"))
            elif value is None and WH_CONNECTION_FIELDS[member][name]:
                continue
            elif not isinstance(value, str):
                errors.append(field_error(where, "must be a string"))
    return errors


def _check_scim_member(errors: Errors, member: object, where: str) -> None:
    if not isinstance(member, dict):
        errors.append(field_error(where, "must be an object"))
        return
    for key in ("value", "display"):
        _check_string(errors, member, key, f"{where}.{key}", required=True)


def scim_patch_errors(body: object) -> Errors:
    if not isinstance(body, dict):
        return [field_error("", "must be an object")]
    errors: Errors = []
    schemas = body.get("schemas")
    if schemas is not None and not (isinstance(schemas, list) and all(isinstance(s, str) for s in schemas)):
        errors.append(field_error("schemas", "must be an array of strings"))
    operations = body.get("Operations")
    if "Operations" not in body:
        return errors + [field_error("Operations", "Required")]
    if not isinstance(operations, list) or not operations:
        return errors + [field_error("Operations", "must be a non-empty array")]
    for index, operation in enumerate(operations):
        where = f"Operations[{index}]"
        if not isinstance(operation, dict):
            errors.append(field_error(where, "must be an object"))
            continue
        if operation.get("op") not in SCIM_OPS:
            errors.append(field_error(f"{where}.op", f"must be one of {', '.join(SCIM_OPS)}"))
        if "path" not in operation:
            errors.append(field_error(f"{where}.path", "Required"))
        elif operation["path"] not in SCIM_PATHS:
            errors.append(field_error(f"{where}.path", f"must be one of {', '.join(SCIM_PATHS)}"))
        _check_array(errors, operation, "value", f"{where}.value", _check_scim_member)
    return errors


def unarchive_errors(body: object) -> Errors:
    if body is None:
        return []  # the reason is optional, and so is a body that would only carry it
    if not isinstance(body, dict):
        return [field_error("", "must be an object")]
    errors: Errors = []
    _check_string(errors, body, "unarchiveReason", "unarchiveReason", required=False)
    return errors
