"""Local validation of request bodies, before anything is sent.

Each validator collects every problem (as the console's own `{"property", "errorMessage"}`
pairs, with JSON-path-like properties such as `phases[0].rules[1].conditions[0].type`) and
raises one `LocalValidationError` listing them all. Unknown properties are rejected with
the list of valid ones: in a write, a misspelt field is a silent no-op at best.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gatehouse.contract import CONDITION_TYPES, ROLE_PERMISSION_FLAGS, SCIM_OPS, WH_CONNECTION_FIELDS
from gatehouse.sources.console.errors import LocalValidationError

PIPELINE_FIELDS = ("name", "phases", "triggerNotice")
PHASE_FIELDS = ("id", "name", "timeIntervalMs", "requiredReview", "rules")
RULE_FIELDS = ("id", "name", "conditions", "environments")
CONDITION_FIELDS = ("type", "targetValue", "operator", "field", "customID")
SCIM_BODY_FIELDS = ("schemas", "Operations")
SCIM_OPERATION_FIELDS = ("op", "path", "value")
SCIM_MEMBER_FIELDS = ("value", "display")


class _Problems:
    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []

    def add(self, prop: str, message: str) -> None:
        self.errors.append({"property": prop, "errorMessage": message})

    def raise_if_any(self, what: str) -> None:
        if self.errors:
            # Each field error keeps its full list of valid values; the one-line summary
            # names each list once, at the end.
            problems, vocabularies = [], []
            for e in self.errors:
                problem, _, vocabulary = e["errorMessage"].partition("; valid")
                problems.append(f"{e['property'] or '(body)'}: {problem}")
                if vocabulary and f"valid{vocabulary}" not in vocabularies:
                    vocabularies.append(f"valid{vocabulary}")
            listed = "; ".join(problems) + "".join(f" ({v})" for v in vocabularies)
            raise LocalValidationError(
                f"invalid {what} ({len(self.errors)} problem{'s' if len(self.errors) > 1 else ''}, nothing sent): {listed}",
                field_errors=self.errors,
            )


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _object(value: Any, prop: str, problems: _Problems, allowed: tuple[str, ...]) -> bool:
    if not isinstance(value, Mapping):
        problems.add(prop, f"must be an object, got {type(value).__name__}")
        return False
    for name in value:
        if name not in allowed:
            problems.add(_join(prop, str(name)), f"unknown property; valid: {', '.join(allowed)}")
    return True


def _string(
    value: Any,
    prop: str,
    problems: _Problems,
    *,
    required: bool,
    nullable: bool = False,
    non_empty: bool = False,
    present: bool = True,
) -> None:
    if not present:
        if required:
            problems.add(prop, "required")
        return
    if value is None:
        if not nullable:
            problems.add(prop, "required" if required else "must be a string, not null")
        return
    if not isinstance(value, str):
        problems.add(prop, f"must be a string, got {type(value).__name__}")
    elif non_empty and not value.strip():
        problems.add(prop, "must not be empty")


def _bool(value: Any, prop: str, problems: _Problems, *, present: bool) -> None:
    if not present:
        problems.add(prop, "required")
    elif not isinstance(value, bool):
        problems.add(prop, f"must be a boolean, got {type(value).__name__}")


def _list(value: Any, prop: str, problems: _Problems, *, present: bool, required: bool, nullable: bool = False) -> list:
    if not present:
        if required:
            problems.add(prop, "required")
        return []
    if value is None and nullable:
        return []
    if not isinstance(value, list):
        problems.add(prop, f"must be an array, got {type(value).__name__}")
        return []
    return value


def require_id(value: Any, what: str) -> str:
    """Path ids must be non-empty strings (they are URL-quoted when the path is built)."""
    if not isinstance(value, str) or not value.strip():
        raise LocalValidationError(
            f"invalid {what}: must be a non-empty string, got {value!r}",
            field_errors=[{"property": what, "errorMessage": "must be a non-empty string"}],
        )
    return value


def _condition(cond: Any, prop: str, problems: _Problems) -> None:
    if not _object(cond, prop, problems, CONDITION_FIELDS):
        return
    if "type" not in cond:
        problems.add(_join(prop, "type"), "required")
    elif cond["type"] not in CONDITION_TYPES:
        problems.add(_join(prop, "type"), f"unknown condition type {cond['type']!r}; valid: {', '.join(CONDITION_TYPES)}")
    if "targetValue" in cond:
        target = cond["targetValue"]
        ok = (
            target is None
            or isinstance(target, str)
            or (isinstance(target, (int, float)) and not isinstance(target, bool))
            or (isinstance(target, list) and all(isinstance(t, str) for t in target))
            or (isinstance(target, list) and all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in target))
        )
        if not ok:
            problems.add(_join(prop, "targetValue"), "must be a string, a number, an array of strings or an array of numbers")
    _string(cond.get("operator"), _join(prop, "operator"), problems, required=False, present="operator" in cond)
    _string(cond.get("field"), _join(prop, "field"), problems, required=False, nullable=True, present="field" in cond)
    _string(cond.get("customID"), _join(prop, "customID"), problems, required=False, nullable=True, present="customID" in cond)


def _rule(rule: Any, prop: str, problems: _Problems) -> None:
    if not _object(rule, prop, problems, RULE_FIELDS):
        return
    _string(rule.get("id"), _join(prop, "id"), problems, required=False, present="id" in rule)
    _string(rule.get("name"), _join(prop, "name"), problems, required=True, non_empty=True, present="name" in rule)
    for i, cond in enumerate(
        _list(rule.get("conditions"), _join(prop, "conditions"), problems, present="conditions" in rule, required=True)
    ):
        _condition(cond, f"{_join(prop, 'conditions')}[{i}]", problems)
    envs = _list(
        rule.get("environments"),
        _join(prop, "environments"),
        problems,
        present="environments" in rule,
        required=False,
        nullable=True,
    )
    for i, env in enumerate(envs):
        if not isinstance(env, str):
            problems.add(f"{_join(prop, 'environments')}[{i}]", f"must be a string, got {type(env).__name__}")


def _phase(phase: Any, prop: str, problems: _Problems) -> None:
    if not _object(phase, prop, problems, PHASE_FIELDS):
        return
    _string(phase.get("id"), _join(prop, "id"), problems, required=False, present="id" in phase)
    _string(phase.get("name"), _join(prop, "name"), problems, required=True, non_empty=True, present="name" in phase)
    interval = phase.get("timeIntervalMs")
    if "timeIntervalMs" not in phase:
        problems.add(_join(prop, "timeIntervalMs"), "required")
    elif isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
        problems.add(_join(prop, "timeIntervalMs"), f"must be a non-negative integer (milliseconds), got {interval!r}")
    _bool(phase.get("requiredReview"), _join(prop, "requiredReview"), problems, present="requiredReview" in phase)
    for i, rule in enumerate(_list(phase.get("rules"), _join(prop, "rules"), problems, present="rules" in phase, required=True)):
        _rule(rule, f"{_join(prop, 'rules')}[{i}]", problems)


def validate_release_pipeline(body: Any, *, creating: bool = True) -> dict:
    """The body of a release-pipeline create (ReleasePipelineCreateDto: `name` required) or update
    (ReleasePipelineUpdateDto: the same members, none required; a `name` sent must still be text)."""
    problems = _Problems()
    if _object(body, "", problems, PIPELINE_FIELDS):
        _string(body.get("name"), "name", problems, required=creating, non_empty=True, present="name" in body)
        for i, phase in enumerate(_list(body.get("phases"), "phases", problems, present="phases" in body, required=False)):
            _phase(phase, f"phases[{i}]", problems)
        _string(
            body.get("triggerNotice"), "triggerNotice", problems, required=False, nullable=True, present="triggerNotice" in body
        )
    problems.raise_if_any("release pipeline")
    return dict(body)


def validate_role(name: Any, permissions: Any) -> dict:
    """A custom role: a name and boolean flags among the 27 known permission names."""
    problems = _Problems()
    _string(name, "name", problems, required=True, non_empty=True)
    if not isinstance(permissions, Mapping):
        problems.add("permissions", f"must be an object of boolean flags, got {type(permissions).__name__}")
    else:
        for flag, value in permissions.items():
            if flag not in ROLE_PERMISSION_FLAGS:
                problems.add(
                    f"permissions.{flag}",
                    f"unknown permission flag; valid flags: {', '.join(ROLE_PERMISSION_FLAGS)}",
                )
            elif not isinstance(value, bool):
                problems.add(f"permissions.{flag}", f"must be true or false, got {value!r}")
    problems.raise_if_any("role")
    return {"name": name, "permissions": dict(permissions)}


def validate_wh_connection(body: Any) -> dict:
    """A warehouse-connection update: databricks / snowflake / bigquery with their known string fields."""
    problems = _Problems()
    members = tuple(WH_CONNECTION_FIELDS)
    if _object(body, "", problems, members):
        if not any(m in body for m in members):
            problems.add("", f"give at least one of {', '.join(members)}")
        for member, fields in WH_CONNECTION_FIELDS.items():
            if member not in body:
                continue
            value = body[member]
            if not _object(value, member, problems, tuple(fields)):
                continue
            for name, field_value in value.items():
                if name in fields:
                    _string(field_value, f"{member}.{name}", problems, required=False, nullable=fields[name])
    problems.raise_if_any("warehouse connection update")
    return dict(body)


def validate_scim_patch(body: Any) -> dict:
    """A SCIM group patch: Operations of op (replace/add/remove), path and value [{value, display}]."""
    problems = _Problems()
    if _object(body, "", problems, SCIM_BODY_FIELDS):
        for i, schema in enumerate(_list(body.get("schemas"), "schemas", problems, present="schemas" in body, required=False)):
            if not isinstance(schema, str):
                problems.add(f"schemas[{i}]", f"must be a string, got {type(schema).__name__}")
        operations = _list(body.get("Operations"), "Operations", problems, present="Operations" in body, required=True)
        if "Operations" in body and isinstance(body["Operations"], list) and not operations:
            problems.add("Operations", "must hold at least one operation")
        for i, op in enumerate(operations):
            prop = f"Operations[{i}]"
            if not _object(op, prop, problems, SCIM_OPERATION_FIELDS):
                continue
            if "op" not in op:
                problems.add(f"{prop}.op", "required")
            elif op["op"] not in SCIM_OPS:
                problems.add(f"{prop}.op", f"unknown op {op['op']!r}; valid: {', '.join(SCIM_OPS)}")
            _string(op.get("path"), f"{prop}.path", problems, required=True, non_empty=True, present="path" in op)
            for j, member in enumerate(_list(op.get("value"), f"{prop}.value", problems, present="value" in op, required=True)):
                mprop = f"{prop}.value[{j}]"
                if _object(member, mprop, problems, SCIM_MEMBER_FIELDS):
                    for name in SCIM_MEMBER_FIELDS:
                        _string(member.get(name), f"{mprop}.{name}", problems, required=True, present=name in member)
    problems.raise_if_any("SCIM group patch")
    return dict(body)


def validate_unarchive_reason(reason: Any) -> dict:
    problems = _Problems()
    _string(reason, "unarchiveReason", problems, required=False, present=reason is not None)
    problems.raise_if_any("unarchive request")
    return {} if reason is None else {"unarchiveReason": reason}
