-- grain: one row per ingestion run; key: run_id
{#
From `stg_ingestion_runs`, `stg_ingestion_run_statuses`, `stg_ingestion_run_sources` and
`stg_ingestion_source_histories`.

| column | meaning |
|---|---|
| `run_id`, `run_trigger`, `latest_status` | the run |
| `outcome` | `succeeded` (latest status `pulse_complete`), `failed` (latest status an error; the console may still retry it, and a later run of gatehouse will then show it), `running` |
| `enqueued_at`, `enqueued_date` | the `enqueued` entry of the history, else `created_at` |
| `seconds_to_started`, `seconds_to_download_started`, `seconds_to_download_complete`, `seconds_to_metrics_started`, `seconds_to_metrics_complete`, `seconds_to_pulse_started`, `seconds_to_pulse_complete` | from `enqueued_at` to the first time the stage was reached; null if never |
| `last_status_at`, `duration_seconds` | the newest status, and the time from `enqueued_at` to it |
| `error_count` | error statuses in the history |
| `retry_count` | errors followed by a newer status (the console retried after them) |
| `source_count` | sources listed in `sources` |
| `failed_source_count`, `failed_sources` | sources whose latest status in the granular history is an error |
#}
with runs as (
    select * from {{ ref('stg_ingestion_runs') }}
),

run_statuses as (
    select * from {{ ref('stg_ingestion_run_statuses') }}
),

run_sources as (
    select * from {{ ref('stg_ingestion_run_sources') }}
),

source_histories as (
    select * from {{ ref('stg_ingestion_source_histories') }}
),

stage_times as (
    -- the first time each stage was reached; an error followed by a newer status was retried
    select
        run_row_id,
        min(case when status = 'enqueued' then status_at end) as enqueued_at,
        min(case when status = 'started' then status_at end) as started_at,
        min(case when status = 'download_started' then status_at end) as download_started_at,
        min(case when status = 'download_complete' then status_at end) as download_complete_at,
        min(case when status = 'metrics_started' then status_at end) as metrics_started_at,
        min(case when status = 'metrics_complete' then status_at end) as metrics_complete_at,
        min(case when status = 'pulse_started' then status_at end) as pulse_started_at,
        min(case when status = 'pulse_complete' then status_at end) as pulse_complete_at,
        max(status_at) as last_status_at,
        count(case when status like '%error' then 1 end) as error_count,
        count(case when status like '%error' and status_position > 0 then 1 end) as retry_count
    from run_statuses
    group by run_row_id
),

source_counts as (
    select
        run_row_id,
        count(*) as source_count
    from run_sources
    group by run_row_id
),

failed_sources as (
    select
        run_row_id,
        count(*) as failed_source_count,
        string_agg(source_name, ', ' order by source_name) as failed_sources
    from source_histories
    where latest_source_status like '%error'
    group by run_row_id
),

timed as (
    select
        runs.run_id,
        runs.run_trigger,
        runs.latest_status,
        case
            when runs.latest_status = 'pulse_complete' then 'succeeded'
            when runs.latest_status like '%error' then 'failed'
            else 'running'
        end as outcome,
        coalesce(stage_times.enqueued_at, runs.created_at) as enqueued_at,
        stage_times.started_at,
        stage_times.download_started_at,
        stage_times.download_complete_at,
        stage_times.metrics_started_at,
        stage_times.metrics_complete_at,
        stage_times.pulse_started_at,
        stage_times.pulse_complete_at,
        coalesce(stage_times.last_status_at, runs.last_updated_at) as last_status_at,
        coalesce(stage_times.error_count, 0) as error_count,
        coalesce(stage_times.retry_count, 0) as retry_count,
        coalesce(source_counts.source_count, 0) as source_count,
        coalesce(failed_sources.failed_source_count, 0) as failed_source_count,
        failed_sources.failed_sources
    from runs
    left join stage_times
        on stage_times.run_row_id = runs.run_row_id
    left join source_counts
        on source_counts.run_row_id = runs.run_row_id
    left join failed_sources
        on failed_sources.run_row_id = runs.run_row_id
),

final as (
    select
        run_id,
        run_trigger,
        latest_status,
        outcome,
        enqueued_at,
        cast(enqueued_at as date) as enqueued_date,
        extract(epoch from started_at) - extract(epoch from enqueued_at) as seconds_to_started,
        extract(epoch from download_started_at) - extract(epoch from enqueued_at) as seconds_to_download_started,
        extract(epoch from download_complete_at) - extract(epoch from enqueued_at) as seconds_to_download_complete,
        extract(epoch from metrics_started_at) - extract(epoch from enqueued_at) as seconds_to_metrics_started,
        extract(epoch from metrics_complete_at) - extract(epoch from enqueued_at) as seconds_to_metrics_complete,
        extract(epoch from pulse_started_at) - extract(epoch from enqueued_at) as seconds_to_pulse_started,
        extract(epoch from pulse_complete_at) - extract(epoch from enqueued_at) as seconds_to_pulse_complete,
        last_status_at,
        extract(epoch from last_status_at) - extract(epoch from enqueued_at) as duration_seconds,
        error_count,
        retry_count,
        source_count,
        failed_source_count,
        failed_sources
    from timed
)

select * from final
