"""A hand-built console, loaded with a small dlt pipeline exactly as the console source loads it.

Two loads build the scd2 history: `FIRST` (service clock 2026-11-10 12:00 UTC) and `SECOND`
(2026-11-20 12:00 UTC, the "as of" of every age the views compute). Records are in the API's
camelCase shape; the resource hints are the source's, so table and column names are dlt's own.
The expected rows in the tests were worked out by hand from these records (see the comments there).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import dlt

SCD2 = {"disposition": "merge", "strategy": "scd2"}


def json_column(name: str) -> dict[str, str]:
    # a fresh dict each time: dlt writes the column's name into the hint it is given, so a shared one
    # would carry the first column's name into the next load of the session
    return {"name": name, "data_type": "json"}


FIRST_LOAD_AT = "2026-11-10T12:00:00Z"
SECOND_LOAD_AT = "2026-11-20T12:00:00Z"


def ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)


def person(key: str | None) -> dict[str, Any] | None:
    if key is None:
        return None
    return {"ownerID": f"u_{key}", "ownerName": key.title(), "ownerType": "USER", "ownerEmail": f"{key}@example.com"}


def condition(kind: str, *targets: str) -> dict[str, Any]:
    return {"type": kind, "targetValue": list(targets), "operator": "any" if targets else None, "field": None, "customID": None}


def rule(rule_id: str, name: str, pass_percentage: float, *conditions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": rule_id,
        "baseID": rule_id,
        "name": name,
        "passPercentage": pass_percentage,
        "conditions": list(conditions),
        "environments": [],
        **extra,
    }


EVERYONE = condition("public")


def gate(
    gate_id: str,
    *,
    created: str,
    modified: str,
    owner: str | None,
    team: str | None,
    rules: list[dict[str, Any]],
    checks: int | None,
    type_: str = "TEMPORARY",
    type_reason: str = "NONE",
    status: str = "In Progress",
    enabled: bool = True,
    holdouts: tuple[str, ...] = (),
    version: int = 1,
) -> dict[str, Any]:
    owner_record = person(owner)
    return {
        "id": gate_id,
        "name": gate_id.replace("_", " ").title(),
        "description": f"gate {gate_id}",
        "idType": "userID",
        "lastModifierID": owner_record["ownerID"] if owner_record else "console",
        "lastModifiedTime": ms(modified),
        "lastModifierName": owner_record["ownerName"] if owner_record else "CONSOLE API",
        "lastModifierEmail": None,
        "creatorID": owner_record["ownerID"] if owner_record else "console",
        "createdTime": ms(created),
        "creatorName": owner_record["ownerName"] if owner_record else "CONSOLE API",
        "creatorEmail": None,
        "targetApps": [],
        "holdoutIDs": list(holdouts),
        "tags": ["cleanup"] if type_ == "STALE" else [],
        "isEnabled": enabled,
        "status": status,
        "rules": rules,
        "checksPerHour": checks,
        "type": type_,
        "typeReason": type_reason,
        "team": team,
        "reviewSettings": {"requiredReview": False, "allowedReviewers": []},
        "measureMetricLifts": True,
        "owner": owner_record,
        "monitoringMetrics": [],
        "version": version,
    }


def gates(load: int) -> list[dict[str, Any]]:
    launch_banner = dict(
        created="2026-05-01T12:00:00Z",
        modified="2026-08-22T12:00:00Z",
        owner="alice",
        team="Growth",
        rules=[rule("lb1", "everyone", 100, EVERYONE)],
        status="Launched",
        version=4,
    )
    recent_exp = dict(created="2026-10-01T12:00:00Z", owner="erin", team="Search", checks=50)
    return [
        # the service marked it stale between the two loads (type and reason only; nobody edited it)
        gate("launch_banner", **launch_banner, checks=100)
        if load == 1
        else gate("launch_banner", **launch_banner, checks=120, type_="STALE", type_reason="STALE_PROBABLY_LAUNCHED"),
        gate(
            "old_checkout",
            created="2026-02-01T00:00:00Z",
            modified="2026-05-15T06:00:00Z",
            owner="bob",
            team="Payments",
            rules=[rule("oc1", "everyone", 0, EVERYONE)],
            checks=12,
            type_="STALE",
            type_reason="STALE_PROBABLY_UNLAUNCHED",
            status="Disabled",
            enabled=False,
            holdouts=("h_q3",),
        ),
        gate(
            "search_v2",
            created="2026-01-10T12:00:00Z",
            modified="2026-06-23T12:00:00Z",
            owner="bob",
            team="Search",
            rules=[rule("sv1", "half", 50, condition("user_id", "u1", "u2"))],
            checks=None,
        ),
        gate(
            "promo_rollout",
            created="2026-07-01T00:00:00Z",
            modified="2026-10-01T12:00:00Z",
            owner="alice",
            team="Growth",
            rules=[
                rule("pr1", "beta users", 100, condition("passes_gate", "beta_users")),
                rule("pr2", "rollout", 25, EVERYONE),
            ],
            checks=40,
        ),
        gate(
            "new_nav",
            created="2026-08-12T12:00:00Z",
            modified="2026-10-26T12:00:00Z",
            owner="alice",
            team="Growth",
            rules=[rule("nn1", "everyone", 100, EVERYONE)],
            checks=10,
            status="Launched",
        ),
        gate(
            "kill_switch",
            created="2025-01-01T00:00:00Z",
            modified="2025-02-01T00:00:00Z",
            owner="carol",
            team="Platform",
            rules=[rule("ks1", "everyone", 100, EVERYONE)],
            checks=0,
            type_="PERMANENT",
        ),
        gate("recent_exp", **recent_exp, modified="2026-11-01T12:00:00Z", rules=[rule("re1", "ramp", 10, EVERYONE)])
        if load == 1
        else gate(
            "recent_exp", **recent_exp, modified="2026-11-15T12:00:00Z", rules=[rule("re1", "ramp", 50, EVERYONE)], version=2
        ),
        gate(
            "beta_users",
            created="2026-03-01T00:00:00Z",
            modified="2026-04-01T00:00:00Z",
            owner="erin",
            team="Search",
            rules=[rule("bu1", "beta", 100, condition("email", "@example.com"))],
            checks=5,
        ),
        gate(
            "orphan_flag",
            created="2026-03-20T12:00:00Z",
            modified="2026-09-01T12:00:00Z",
            owner=None,
            team=None,
            rules=[],
            checks=3,
        ),
        gate(
            "archived_gate",
            created="2025-06-01T00:00:00Z",
            modified="2025-07-01T00:00:00Z",
            owner="carol",
            team="Platform",
            rules=[],
            checks=0,
            status="Archived",
        ),
        gate(
            "dark_launch",
            created="2026-04-01T00:00:00Z",
            modified="2026-09-21T00:00:00Z",
            owner="dan",
            team="Search",
            rules=[rule("dl1", "staff", 0, condition("email", "@staff.example.com"))],
            checks=7,
        ),
        *(
            [
                gate(
                    "retired_gate",
                    created="2026-01-01T00:00:00Z",
                    modified="2026-02-01T00:00:00Z",
                    owner="dan",
                    team="Search",
                    rules=[],
                    checks=1,
                )
            ]
            if load == 1
            else []
        ),
    ]


def dynamic_config(
    config_id: str,
    *,
    modified: str,
    version: int,
    default: dict[str, Any],
    rules: list[dict[str, Any]],
    holdouts: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "id": config_id,
        "name": config_id.replace("_", " ").title(),
        "idType": "userID",
        "description": f"config {config_id}",
        "lastModifierID": "u_bob",
        "lastModifiedTime": ms(modified),
        "lastModifierName": "Bob",
        "lastModifierEmail": "bob@example.com",
        "createdTime": ms("2026-06-01T00:00:00Z"),
        "creatorID": "u_bob",
        "creatorName": "Bob",
        "creatorEmail": "bob@example.com",
        "tags": [],
        "targetApps": [],
        "holdoutIDs": list(holdouts),
        "team": "Payments",
        "teamID": "t_payments",
        "version": version,
        "isEnabled": True,
        "rules": rules,
        "defaultValue": default,
        "defaultValueJson5": "{}",
        "owner": person("bob"),
        "schema": "{}",
        "schemaJson5": "{}",
        "releasePipelineID": None,
        "isTemplate": False,
        "status": "Enabled",
    }


def dynamic_configs(load: int) -> list[dict[str, Any]]:
    checkout_rules = [
        rule(
            "cr1",
            "block old checkout",
            100,
            condition("fails_gate", "old_checkout"),
            returnValue={"layout": "legacy"},
            returnValueJson5="{}",
        ),
    ]
    return [
        dynamic_config("c_checkout", modified="2026-10-01T12:00:00Z", version=2, default={"layout": "v1"}, rules=checkout_rules)
        if load == 1
        else dynamic_config(
            "c_checkout", modified="2026-11-12T12:00:00Z", version=3, default={"layout": "v2"}, rules=checkout_rules
        ),
        dynamic_config(
            "c_pricing",
            modified="2026-09-01T00:00:00Z",
            version=1,
            default={"price": 10},
            holdouts=("h_q3",),
            rules=[
                rule(
                    "pp1",
                    "price test",
                    50.5,
                    condition("passes_gate", "deleted_gate"),
                    returnValue={"price": 10},
                    returnValueJson5="{}",
                    variants=[
                        {
                            "id": "v_low",
                            "name": "low",
                            "passPercentage": 50,
                            "returnValue": {"price": 9},
                            "returnValueJson5": "{}",
                        },
                        {
                            "id": "v_high",
                            "name": "high",
                            "passPercentage": 50,
                            "returnValue": {"price": 11},
                            "returnValueJson5": "{}",
                        },
                    ],
                ),
                rule("pp2", "everyone", 100, EVERYONE, returnValue={"price": 10}, returnValueJson5="{}"),
            ],
        ),
        *([dynamic_config("c_old", modified="2026-03-01T00:00:00Z", version=1, default={}, rules=[])] if load == 1 else []),
    ]


def holdout(
    holdout_id: str,
    *,
    gate_ids: list[str],
    experiment_ids: list[str],
    pass_percentage: float,
    is_global: bool,
    targeting: str | None,
) -> dict[str, Any]:
    return {
        "id": holdout_id,
        "name": holdout_id,
        "description": f"holdout {holdout_id}",
        "idType": "userID",
        "lastModifierID": "u_bob",
        "lastModifiedTime": ms("2026-07-01T00:00:00Z"),
        "lastModifierName": "Bob",
        "lastModifierEmail": None,
        "creatorID": "u_bob",
        "createdTime": ms("2026-06-01T00:00:00Z"),
        "creatorName": "Bob",
        "creatorEmail": None,
        "targetApps": [],
        "tags": [],
        "team": "Payments",
        "isEnabled": True,
        "isGlobal": is_global,
        "passPercentage": pass_percentage,
        "gateIDs": gate_ids,
        "experimentIDs": experiment_ids,
        "layerIDs": [],
        "targetingGateID": targeting,
    }


HOLDOUTS = [
    # an integer first, a fraction second: the fraction lands in dlt's variant column
    holdout("h_q3", gate_ids=["old_checkout"], experiment_ids=["exp_ab"], pass_percentage=5, is_global=False, targeting=None),
    holdout("h_global", gate_ids=[], experiment_ids=[], pass_percentage=2.5, is_global=True, targeting="kill_switch"),
]

QUALIFYING_EVENTS = [
    {
        "name": "purchase",
        "description": "a purchase",
        "tags": [],
        "sql": "select * from purchases where ds between {service_start_date} and {service_end_date}",
        "timestampColumn": "ts",
        "timestampAsDay": False,
        "idTypeMapping": [{"serviceUnitID": "userID", "column": "user_id"}],
        "tableName": "purchases",
        "customFieldMapping": [],
    }
]


def exposure_series(experiment_id: str, groups: dict[str, tuple[str, dict[str, int]]]) -> list[dict[str, Any]]:
    return [
        {"experiment_id": experiment_id, "group_id": group_id, "group_name": name, "date": day, "exposures": count}
        for group_id, (name, days) in groups.items()
        for day, count in days.items()
    ]


def days(first_day: int, *counts: int | None) -> dict[str, int]:
    """Cumulative counts from 2026-11-<first_day> on; None leaves a day out of the series."""
    return {f"2026-11-{first_day + i:02d}": count for i, count in enumerate(counts) if count is not None}


EXPOSURES = [
    # two groups; control has a zero day (14th), test drops by 20 on the 14th and skips the 17th
    *exposure_series(
        "exp_ab",
        {
            "control": ("Control", days(11, 100, 220, 330, 330, 450, 560, 680, 800, 900)),
            "test": ("Test", days(11, 110, 210, 320, 300, 440, 550, None, 790, 890)),
        },
    ),
    *exposure_series("exp_solo", {"all": ("Everyone", days(17, 50, 81, 81))}),
    *exposure_series("exp_skewed", {"a": ("A", days(18, 400, 1000)), "b": ("B", days(18, 300, 800))}),
    # three groups that stop growing after the 15th
    *exposure_series(
        "exp_stalled",
        {
            "x": ("X", days(10, 10, 20, 30, 40, 50, 60, 60, 60, 60, 60)),
            "y": ("Y", days(10, 12, 22, 32, 42, 52, 62, 62, 62, 62, 62)),
            "z": ("Z", days(10, 8, 18, 28, 38, 48, 58, 58, 58, 58, 58)),
        },
    ),
    # four groups on one day: a chi-square with three degrees of freedom
    *exposure_series("exp_four", {g: (g.upper(), days(19, n)) for g, n in {"g1": 100, "g2": 120, "g3": 90, "g4": 130}.items()}),
]


def status_list(day: str, *entries: tuple[str, str]) -> list[dict[str, str]]:
    """(HH:MM:SS, status) pairs, newest first as the service lists them."""
    return [{"statusTimestamp": f"{day}T{clock}.000Z", "status": status} for clock, status in entries]


def ingestion_run(run_id: str, day: str, latest: str, sources: list[str], history: list, granular: list) -> dict[str, Any]:
    return {
        "runID": run_id,
        "latestStatus": latest,
        "lastUpdatedAt": history[0]["statusTimestamp"],
        "createdAt": f"{day}T{history[-1]['statusTimestamp'][11:]}",
        "trigger": "scheduled",
        "sources": sources,
        "dateStamps": sorted({d["dateStamp"] for g in granular for d in g["statusByDate"]}),
        "runHistory": history,
        "granularHistory": granular,
    }


def source_history(source: str, latest: str, by_date: dict[str, list]) -> dict[str, Any]:
    return {
        "source": source,
        "latestSourceStatus": latest,
        "statusByDate": [{"dateStamp": stamp, "statuses": statuses} for stamp, statuses in by_date.items()],
    }


FULL_RUN = (
    "pulse_complete",
    "pulse_started",
    "metrics_complete",
    "metrics_started",
    "download_complete",
    "download_started",
    "started",
)


def ingestion_runs(load: int) -> list[dict[str, Any]]:
    d9, d18, d19, d20 = "2026-11-09", "2026-11-18", "2026-11-19", "2026-11-20"
    old_steps = list(zip(("01:40:00", "01:30:00", "01:25:00", "01:15:00", "01:12:00", "01:05:00", "01:02:00"), FULL_RUN))
    run_old = ingestion_run(
        "run_old",
        d9,
        "pulse_complete",
        ["Events 1"],
        status_list(d9, *old_steps, ("01:00:00", "enqueued")),
        # as the console twin does: a source's own history stops at its download stages
        [source_history("Events 1", "download_complete", {"2026-11-08": status_list(d9, *old_steps[4:])})],
    )
    if load == 1:
        return [run_old]
    ok_steps = list(zip(("01:30:00", "01:21:00", "01:20:00", "01:11:00", "01:10:00", "01:02:00", "01:01:00"), FULL_RUN))
    retry_steps = [
        ("02:50:00", "pulse_complete"),
        ("02:45:00", "pulse_started"),
        ("02:40:00", "metrics_complete"),
        ("02:35:00", "metrics_started"),
        ("02:30:00", "download_complete"),
        ("02:20:00", "download_started"),
        ("02:10:00", "download_error"),
        ("02:05:00", "download_started"),
        ("02:01:00", "started"),
    ]
    return [
        ingestion_run(
            "run_ok",
            d18,
            "pulse_complete",
            ["Events 1"],
            status_list(d18, *ok_steps, ("01:00:00", "enqueued")),
            [source_history("Events 1", "pulse_complete", {"2026-11-17": status_list(d18, *ok_steps)})],
        ),
        # download failed once and was retried; Events 2 covers two date stamps
        ingestion_run(
            "run_retry",
            d18,
            "pulse_complete",
            ["Events 1", "Events 2"],
            status_list(d18, *retry_steps, ("02:00:00", "enqueued")),
            [
                source_history("Events 1", "pulse_complete", {"2026-11-17": status_list(d18, *retry_steps)}),
                source_history(
                    "Events 2",
                    "pulse_complete",
                    {
                        "2026-11-16": status_list(
                            d18, ("02:15:00", "download_complete"), ("02:06:00", "download_started"), ("02:01:00", "started")
                        ),
                        "2026-11-17": status_list(
                            d18,
                            ("02:49:00", "pulse_complete"),
                            ("02:44:00", "pulse_started"),
                            ("02:39:00", "metrics_complete"),
                            ("02:34:00", "metrics_started"),
                            ("02:25:00", "download_complete"),
                            ("02:16:00", "download_started"),
                        ),
                    },
                ),
            ],
        ),
        ingestion_run(
            "run_failed",
            d19,
            "download_error",
            ["Events 2"],
            status_list(
                d19,
                ("01:06:00", "download_error"),
                ("01:03:00", "download_started"),
                ("01:01:30", "started"),
                ("01:00:00", "enqueued"),
            ),
            [
                source_history(
                    "Events 2",
                    "download_error",
                    {
                        "2026-11-18": status_list(
                            d19, ("01:05:30", "download_error"), ("01:03:00", "download_started"), ("01:01:30", "started")
                        )
                    },
                )
            ],
        ),
        # failed, retried, failed again
        ingestion_run(
            "run_failed_retry",
            d19,
            "download_error",
            ["Events 1", "Events 3"],
            status_list(
                d19,
                ("02:20:00", "download_error"),
                ("02:15:00", "download_started"),
                ("02:08:00", "download_error"),
                ("02:03:00", "download_started"),
                ("02:01:00", "started"),
                ("02:00:00", "enqueued"),
            ),
            [
                source_history(
                    "Events 1",
                    "download_error",
                    {
                        "2026-11-18": status_list(
                            d19,
                            ("02:19:00", "download_error"),
                            ("02:15:00", "download_started"),
                            ("02:07:00", "download_error"),
                            ("02:03:00", "download_started"),
                            ("02:01:00", "started"),
                        )
                    },
                ),
                source_history(
                    "Events 3",
                    "download_complete",
                    {
                        "2026-11-18": status_list(
                            d19, ("02:10:00", "download_complete"), ("02:04:00", "download_started"), ("02:01:00", "started")
                        )
                    },
                ),
            ],
        ),
        # still running; Events 4 is listed but has no granular history yet
        ingestion_run(
            "run_running",
            d20,
            "download_started",
            ["Events 3", "Events 4"],
            status_list(d20, ("01:04:00", "download_started"), ("01:02:00", "started"), ("01:00:00", "enqueued")),
            [
                source_history(
                    "Events 3",
                    "download_started",
                    {"2026-11-19": status_list(d20, ("01:04:00", "download_started"), ("01:02:00", "started"))},
                )
            ],
        ),
    ]


def exposures(load: int) -> list[dict[str, Any]]:
    # the first load holds the series up to the 15th; the second everything (the 15th again, as the source reloads it)
    return [row for row in EXPOSURES if load == 2 or row["date"] <= "2026-11-15"]


# what each run followed, as the source records it: every experiment with a series (exp_ab named by holdout h_q3 too)
FOLLOWED_EXPERIMENTS = list(dict.fromkeys(row["experiment_id"] for row in EXPOSURES))


def extraction_run(load: int) -> dict[str, Any]:
    at = FIRST_LOAD_AT if load == 1 else SECOND_LOAD_AT
    return {
        "extraction_id": f"extraction_{load}",
        "service_time": at,
        "started_at": at,
        "finished_at": at,
        "followed_experiment_count": len(FOLLOWED_EXPERIMENTS),
        "followed_experiment_ids": FOLLOWED_EXPERIMENTS,
    }


@dlt.source(name="console", max_table_nesting=4)
def hand_built_console(load: int, tables: tuple[str, ...] | None = None):
    boundary = FIRST_LOAD_AT if load == 1 else SECOND_LOAD_AT
    scd2 = {**SCD2, "boundary_timestamp": boundary}
    resources = [
        dlt.resource(gates(load), name="gates", primary_key="id", write_disposition=scd2),
        dlt.resource(
            dynamic_configs(load),
            name="dynamic_configs",
            primary_key="id",
            write_disposition=scd2,
            columns={"default_value": json_column("default_value")},
            nested_hints={
                "rules": {"columns": {"return_value": json_column("return_value")}},
                ("rules", "variants"): {"columns": {"return_value": json_column("return_value")}},
            },
        ),
        dlt.resource(HOLDOUTS, name="holdouts", primary_key="id", write_disposition="merge"),
        dlt.resource(QUALIFYING_EVENTS, name="qualifying_events", primary_key="name", write_disposition="merge"),
        dlt.resource(
            exposures(load),
            name="cumulative_exposures",
            primary_key=("experiment_id", "group_id", "date"),
            write_disposition="merge",
        ),
        dlt.resource(ingestion_runs(load), name="ingestion_runs", primary_key="run_id", write_disposition="merge"),
        dlt.resource([extraction_run(load)], name="extraction_runs", primary_key="extraction_id", write_disposition="append"),
    ]
    return [r for r in resources if tables is None or r.name in tables]


def load_console(
    database: Path, work_dir: Path, records_by_load=(1, 2), tables: tuple[str, ...] | None = None, destination: Any = None
) -> Path:
    """Loads the hand-built console into `database` (dataset `console`), one dlt run per load.

    `destination` (a dlt destination, e.g. a PostgreSQL server's) replaces the DuckDB file `database`,
    whose name then only names the pipeline."""
    pipeline = console_pipeline(database, work_dir, destination)
    for load in records_by_load:
        pipeline.run(hand_built_console(load, tables))
    if tables is None:
        from tests.code_refs.hand_built import load_code_references
        from tests.gates.hand_built import load_gate_snoozes

        load_code_references(pipeline)
        load_gate_snoozes(pipeline)
    return database


def console_pipeline(database: Path, work_dir: Path, destination: Any = None) -> dlt.Pipeline:
    return dlt.pipeline(
        pipeline_name=f"hand_built_{database.stem}",
        destination=destination or dlt.destinations.duckdb(str(database)),
        dataset_name="console",
        pipelines_dir=str(work_dir / "dlt_pipelines"),
    )
