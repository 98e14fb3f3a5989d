-- grain: one row per ingestion run; key: project, run_id
{#
From `stg_ingestion_runs`, `stg_ingestion_run_statuses`, `stg_ingestion_run_sources` and
`stg_ingestion_source_histories`.

| column | meaning |
|---|---|
| `project` | the console |
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
{% from 'macros/joins.sql' import left_joins %}
{% from 'macros/imports.sql' import imports %}
{% from 'macros/ingestion_stages.sql' import stages, stage_times, stage_durations %}
with {{ imports(
    runs='stg_ingestion_runs',
    run_statuses='stg_ingestion_run_statuses',
    run_sources='stg_ingestion_run_sources',
    source_histories='stg_ingestion_source_histories'
) }},

stage_times as (
    -- the first time each stage was reached; an error followed by a newer status was retried
    select
        project,
        run_row_id,
        {{ stage_times(first_stages=['enqueued']) }}
    from run_statuses
    group by project, run_row_id
),

source_counts as (
    select
        project,
        run_row_id,
        count(*) as source_count
    from run_sources
    group by project, run_row_id
),

failed_sources as (
    select
        project,
        run_row_id,
        count(*) as failed_source_count,
        {% call string_agg("', '", "source_name") %}source_name{% endcall %} as failed_sources
    from source_histories
    where latest_source_status like '%error'
    group by project, run_row_id
),

timed as (
    select
        runs.project,
        runs.run_id,
        runs.run_trigger,
        runs.latest_status,
        case
            when runs.latest_status = 'pulse_complete' then 'succeeded'
            when runs.latest_status like '%error' then 'failed'
            else 'running'
        end as outcome,
        coalesce(stage_times.enqueued_at, runs.created_at) as enqueued_at,
{% for stage in stages %}
        stage_times.{{ stage }}_at,
{% endfor %}
        coalesce(stage_times.last_status_at, runs.last_updated_at) as last_status_at,
        coalesce(stage_times.error_count, 0) as error_count,
        coalesce(stage_times.retry_count, 0) as retry_count,
        coalesce(source_counts.source_count, 0) as source_count,
        coalesce(failed_sources.failed_source_count, 0) as failed_source_count,
        failed_sources.failed_sources
    from runs
    {{ left_joins('runs', 'run_row_id', 'stage_times', 'source_counts', 'failed_sources') }}
),

final as (
    select
        project,
        run_id,
        run_trigger,
        latest_status,
        outcome,
        enqueued_at,
        cast(enqueued_at as date) as enqueued_date,
        {{ stage_durations('timed', 'timed.enqueued_at') }},
        error_count,
        retry_count,
        source_count,
        failed_source_count,
        failed_sources
    from timed
)

select * from final
