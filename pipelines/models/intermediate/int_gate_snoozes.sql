-- grain: one row per snooze written and per project it applies to; key: project, snooze_id
{#
The snoozes of `stg_gate_snoozes` as each project's gates see them, to be joined on `project` and `gate_id`: a snooze
of every project (written without `--project`, `project` null there) becomes one row for each project whose console
has ever held the gate id; a project's own snooze stays its one row (none while the project, or the gate in it, is
not among the views' projects: `view_projects`). `is_latest` is the newest row of the project and gate, whichever
way it was written, so the one in force is the last a person wrote for it: a snooze of every project written after
a project's own replaces it there, and an `unsnooze` of every project ends them all.

Whether it is in force is the reader's to say, against its own today: while `snoozed_until` is later than it. An
ended snooze's row ends on the day it was written (`snoozed_until` is the date of `snoozed_at`; a snooze is always
written to end on a later day): a reader whose today is a clock that can lag the wall clock (`as_of`, the console's
at the last run) compares `snoozed_until` with the later of the two dates, so an `unsnooze` takes effect at once.

| column | meaning |
|---|---|
| `project` | the console |
| `gate_id` | the gate |
| `snooze_id` | the row of `stg_gate_snoozes` |
| `snoozed_until` | the date the gate comes back to the worklist and the alerts; the day it ended, for an ended snooze |
| `snooze_reason` | the person's own words (`ended by hand` for `gatehouse gates unsnooze`) |
| `snoozed_at` | when it was written (UTC) |
| `snoozed_by` | the user who ran the command; null when unknown |
| `is_latest` | the newest row of the project and gate: the one in force |
#}
with snoozes as (
    select * from {{ ref('stg_gate_snoozes') }}
),

gate_projects as (
    select distinct
        project,
        gate_id
    from {{ ref('stg_gate_versions') }}
),

applied as (
    -- a snooze of every project, on each project that holds the gate; a project's own, on that project alone
    select
        gate_projects.project,
        snoozes.gate_id,
        snoozes.snooze_id,
        snoozes.snoozed_until,
        snoozes.snooze_reason,
        snoozes.snoozed_at,
        snoozes.snoozed_by
    from snoozes
    inner join gate_projects
        on gate_projects.gate_id = snoozes.gate_id
        and (snoozes.project is null or snoozes.project = gate_projects.project)
),

final as (
    select
        project,
        gate_id,
        snooze_id,
        snoozed_until,
        snooze_reason,
        snoozed_at,
        snoozed_by,
        row_number() over (
            partition by project, gate_id
            order by snoozed_at desc, snooze_id desc
        ) = 1 as is_latest
    from applied
)

select * from final
