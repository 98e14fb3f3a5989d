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
{% from 'macros/imports.sql' import imports %}
{% from 'macros/ingestion_stages.sql' import stage_times, seconds_to_stages %}
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

    union

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
        on source_date_stamps.project = source_histories.project
        and source_date_stamps.source_history_row_id = source_histories.source_history_row_id
    inner join source_statuses
        on source_statuses.project = source_date_stamps.project
        and source_statuses.source_date_row_id = source_date_stamps.source_date_row_id
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
        {{ seconds_to_stages('stage_times', 'run_health.enqueued_at') }},
        stage_times.last_status_at,
        extract(epoch from stage_times.last_status_at) - extract(epoch from run_health.enqueued_at) as duration_seconds,
        coalesce(stage_times.error_count, 0) as error_count,
        coalesce(stage_times.retry_count, 0) as retry_count
    from run_source_names
    inner join runs
        on runs.project = run_source_names.project
        and runs.run_row_id = run_source_names.run_row_id
    inner join run_health
        on run_health.project = runs.project
        and run_health.run_id = runs.run_id
    left join source_histories
        on source_histories.project = run_source_names.project
        and source_histories.run_row_id = run_source_names.run_row_id
        and source_histories.source_name = run_source_names.source_name
    left join stage_times
        on stage_times.project = run_source_names.project
        and stage_times.run_row_id = run_source_names.run_row_id
        and stage_times.source_name = run_source_names.source_name
)

select * from final
