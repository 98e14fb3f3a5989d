-- grain: one row per snooze written, the history of `gatehouse gates snooze` and `unsnooze`; key: snooze_id
{#
From `console.gate_snoozes`, kept in the warehouse and never in the console: `snooze_id`; `project`, null for a
snooze of every project that holds the gate id; `gate_id`; `snoozed_until`, the date the gate comes back to the
worklist and the alerts (it is out of them while the date is later than today); `snooze_reason` ← `reason`, the
person's own words; `snoozed_at` (UTC); `snoozed_by`, the user who ran the command, null when unknown;
`is_latest`: the newest row of its `project` (null as one value) and `gate_id`, the one in force. `unsnooze` writes a
row whose `snoozed_until` is the day it ran: it ends the snooze and keeps its history.
#}
select
    snoozed.snooze_id,
    snoozed.project,
    snoozed.gate_id,
    snoozed.snoozed_until,
    snoozed.reason as snooze_reason,
    {{ utc_timestamp('snoozed.snoozed_at') }} as snoozed_at,
    snoozed.snoozed_by,
    row_number() over (
        partition by snoozed.project, snoozed.gate_id
        order by snoozed.snoozed_at desc, snoozed.snooze_id desc
    ) = 1 as is_latest
from {{ source('gate_snoozes') }} as snoozed
