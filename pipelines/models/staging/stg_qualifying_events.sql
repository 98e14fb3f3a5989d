-- grain: one row per qualifying event (merged on name); key: project, qualifying_event_name
{#
From `console.qualifying_events`: `qualifying_event_name` ← `name`; `description`; `event_sql` ← `sql`;
`table_name`; `timestamp_column`; `timestamp_as_day`.
#}
select
    qualifying_events.project,
    qualifying_events.name as qualifying_event_name,
    qualifying_events.description,
    qualifying_events.sql as event_sql,
    qualifying_events.table_name,
    qualifying_events.timestamp_column,
    qualifying_events.timestamp_as_day
from {{ source('qualifying_events') }} as qualifying_events
