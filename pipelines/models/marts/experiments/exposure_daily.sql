-- grain: one row per experiment, group and day, from the group's first reported day to the experiment's last; key: project, experiment_id, group_id, exposure_date
{#
From `stg_cumulative_exposures` and `as_of`.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id`, `group_id` | the series |
| `group_name` | the group's name on its latest reported day |
| `exposure_date` | every calendar day of the span (a day the console skipped is filled) |
| `cumulative_exposures` | the console's count that day; on a filled day, the last reported count |
| `new_exposures` | the day's increment: the count minus the previous day's, never negative; the first day's count on the first day |
| `is_cumulative_drop`, `dropped_exposures` | the count went down from the previous day, and by how much (the drop is flagged, not hidden; `new_exposures` is 0 that day, so a series that dropped sums to more than its last count) |
| `is_reported` | false on a filled day |
| `is_partial_day` | the day is the console's current day (`as_of_date`) or later: its count still grows until the day closes, so its new exposures are a part of a day's |
| `experiment_cumulative_exposures` | sum of the groups' counts that day |
| `exposure_share` | the group's share of it (null when it is 0) |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with recursive {{ imports(exposures='stg_cumulative_exposures', as_of='as_of') }},

calendar as (
    select
        min(exposure_date) as calendar_date
    from exposures

    union all

    select
        {{ add_days('calendar_date', 1) }} as calendar_date
    from calendar
    where calendar_date < (select max(exposure_date) from exposures)
),

group_spans as (
    -- each group's first day and its experiment's last, by a window over the groups, not a join back to them: PostgreSQL
    -- sized that join at one row and everything downstream of the days with it
    select
        project,
        experiment_id,
        group_id,
        min(exposure_date) as first_date,
        max(max(exposure_date)) over (partition by project, experiment_id) as last_date
    from exposures
    group by
        project,
        experiment_id,
        group_id
),

group_days as (
    -- a day the service skipped still belongs to the series: its cumulative count is the last reported one
    select
        group_spans.project,
        group_spans.experiment_id,
        group_spans.group_id,
        calendar.calendar_date as exposure_date
    from group_spans
    inner join calendar
        on calendar.calendar_date between group_spans.first_date and group_spans.last_date
),

reported as (
    -- one window pass instead of joins back to the reported days: PostgreSQL's planner cannot size a
    -- recursive calendar and chose nested loops over them (24 s for 8,000 rows, against 0.2 s on DuckDB)
    select
        group_days.project,
        group_days.experiment_id,
        group_days.group_id,
        group_days.exposure_date,
        exposures.exposure_date is not null as is_reported,
        exposures.cumulative_exposures as reported_cumulative_exposures,
        -- a skipped day belongs to the run of the last reported day before it
        count(exposures.exposure_date) over (
            partition by group_days.project, group_days.experiment_id, group_days.group_id
            order by group_days.exposure_date
            rows between unbounded preceding and current row
        ) as reported_run,
        -- the name a group had on its latest reported day
        first_value(exposures.group_name) over (
            partition by group_days.project, group_days.experiment_id, group_days.group_id
            order by exposures.exposure_date desc nulls last
            rows between unbounded preceding and unbounded following
        ) as group_name
    from group_days
    left join exposures
        {{ join_on('exposures', 'group_days', 'experiment_id', 'group_id', 'exposure_date') }}
),

carried as (
    -- a day the service skipped carries the last reported cumulative count (each run starts on a reported day)
    select
        project,
        experiment_id,
        group_id,
        group_name,
        exposure_date,
        is_reported,
        max(reported_cumulative_exposures) over (
            partition by project, experiment_id, group_id, reported_run
        ) as cumulative_exposures
    from reported
),

compared as (
    select
        carried.*,
        lag(carried.cumulative_exposures) over (
            partition by carried.project, carried.experiment_id, carried.group_id
            order by carried.exposure_date
        ) as previous_cumulative_exposures
    from carried
),

final as (
    select
        carried.project,
        carried.experiment_id,
        carried.group_id,
        carried.group_name,
        carried.exposure_date,
        carried.cumulative_exposures,
        -- the day's increment; a cumulative series that goes down adds nothing that day and is flagged
        case
            when carried.previous_cumulative_exposures is null then carried.cumulative_exposures
            when carried.cumulative_exposures > carried.previous_cumulative_exposures
                then carried.cumulative_exposures - carried.previous_cumulative_exposures
            else 0
        end as new_exposures,
        coalesce(carried.cumulative_exposures < carried.previous_cumulative_exposures, false) as is_cumulative_drop,
        case
            when carried.cumulative_exposures < carried.previous_cumulative_exposures
                then carried.previous_cumulative_exposures - carried.cumulative_exposures
            else 0
        end as dropped_exposures,
        carried.is_reported,
        coalesce(carried.exposure_date >= as_of.as_of_date, false) as is_partial_day,
        cast(
            sum(carried.cumulative_exposures) over (
                partition by carried.project, carried.experiment_id, carried.exposure_date
            ) as bigint
        ) as experiment_cumulative_exposures,
        cast(carried.cumulative_exposures as {{ double_type() }}) / nullif(
            sum(carried.cumulative_exposures) over (partition by carried.project, carried.experiment_id, carried.exposure_date),
            0
        ) as exposure_share
    from compared as carried
    left join as_of
        on as_of.project = carried.project
)

select * from final
