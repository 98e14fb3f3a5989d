-- grain: one row per ingestion run and source; key: project, run_id, source_name
{#
Sources listed in `sources` or in the granular history; statuses over all date stamps of the source.

| column | meaning |
|---|---|
| `project` | the console |
| `run_id`, `source_name`, `latest_source_status` | the source in the run (status null without granular history) |
| `outcome` | `failed` (its own latest status is an error), `succeeded` (its own `pulse_complete`, or its run succeeded: a source's own history may stop at its download stages), `incomplete` (it did not fail but its run did), `running` |
| `enqueued_at`, `enqueued_date` | the run's |
| `date_stamp_count` | date stamps in its history |
| `seconds_to_*`, `last_status_at`, `duration_seconds` | as for runs, from the run's `enqueued_at`, the earliest arrival at each stage over all date stamps |
| `error_count`, `retry_count` | as for runs, within each date stamp's history |
#}
{% from 'macros/joins.sql' import join_on, left_joins %}
{% from 'macros/imports.sql' import imports %}
{% from 'macros/ingestion_stages.sql' import stage_times, stage_durations %}
with {{ imports(
    runs='stg_ingestion_runs',
    run_health='ingestion_run_health',
    run_sources='stg_ingestion_run_sources',
    source_histories='stg_ingestion_source_histories',
    source_date_stamps='stg_ingestion_source_date_stamps',
    source_statuses='stg_ingestion_source_statuses'
) }},

run_source_names as (
    -- a source listed in `sources` may have no granular history yet
    select
        project,
        run_row_id,
        source_name
    from run_sources

    {{ union_distinct() }}

    select
        project,
        run_row_id,
        source_name
    from source_histories
),

statuses as (
    select
        source_histories.project,
        source_histories.run_row_id,
        source_histories.source_name,
        source_date_stamps.date_stamp,
        source_statuses.status,
        source_statuses.status_position,
        source_statuses.status_at
    from source_histories
    inner join source_date_stamps
        {{ join_on('source_date_stamps', 'source_histories', 'source_history_row_id') }}
    inner join source_statuses
        {{ join_on('source_statuses', 'source_date_stamps', 'source_date_row_id') }}
),

stage_times as (
    -- over all date stamps of the source: the first time each stage was reached, errors retried within a date stamp
    select
        project,
        run_row_id,
        source_name,
        count(distinct date_stamp) as date_stamp_count,
        {{ stage_times() }}
    from statuses
    group by
        project,
        run_row_id,
        source_name
),

final as (
    select
        run_source_names.project,
        runs.run_id,
        run_source_names.source_name,
        source_histories.latest_source_status,
        -- a source's own history may stop at its download stages (metrics and pulse are the run's), so
        -- the run's outcome decides, unless the source failed itself
        case
            when source_histories.latest_source_status like '%error' then 'failed'
            when source_histories.latest_source_status = 'pulse_complete' or run_health.outcome = 'succeeded' then 'succeeded'
            when run_health.outcome = 'failed' then 'incomplete'
            else 'running'
        end as outcome,
        run_health.enqueued_at,
        run_health.enqueued_date,
        coalesce(stage_times.date_stamp_count, 0) as date_stamp_count,
        {{ stage_durations('stage_times', 'run_health.enqueued_at') }},
        coalesce(stage_times.error_count, 0) as error_count,
        coalesce(stage_times.retry_count, 0) as retry_count
    from run_source_names
    -- outer joins kept as inner ones by a filter PostgreSQL cannot see through (the same rows): it sizes the sources
    -- joined to their runs at one row and then groups every source's statuses once per source
    left join runs
        {{ join_on('runs', 'run_source_names', 'run_row_id') }}
    left join run_health
        {{ join_on('run_health', 'runs', 'run_id') }}
    {{ left_joins('run_source_names', ['run_row_id', 'source_name'], 'source_histories', 'stage_times') }}
    where coalesce(runs.run_id is not null and run_health.run_id is not null, false)
)

select * from final
