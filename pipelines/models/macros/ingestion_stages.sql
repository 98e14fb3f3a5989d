{#
The stages an ingestion run, and each source in it, passes through, in order (`enqueued` is the run's alone).
`ingestion_run_health` and `ingestion_source_health` time them the same way: when each stage was first reached,
in seconds from the run's `enqueued_at`.
#}
{% set stages = ["started", "download_started", "download_complete", "metrics_started", "metrics_complete", "pulse_started", "pulse_complete"] %}

{#
From status rows (`status`, `status_position` with 0 the newest, `status_at`), to aggregate: `<stage>_at`, the
first time each stage (`first_stages`, then `stages`) was reached; the newest status; errors, and the errors
followed by a newer status (the console retried after them). Called at a column's indentation in a `select`.
#}
{% macro stage_times(first_stages=[]) -%}
{% for stage in first_stages + stages %}
{{ "        " if not loop.first else "" }}min(case when status = '{{ stage }}' then status_at end) as {{ stage }}_at,
{% endfor %}
        max(status_at) as last_status_at,
        count(case when status like '%error' then 1 end) as error_count,
        count(case when status like '%error' and status_position > 0 then 1 end) as retry_count
{%- endmacro %}

{#
`seconds_to_<stage>`: from `enqueued_at` to each of `stages` in the columns `<times>.<stage>_at`; then
`last_status_at`, `<times>.last_status_at`, and `duration_seconds`, from `enqueued_at` to it.
#}
{% macro stage_durations(times, enqueued_at) -%}
{% for stage in stages %}
{{ "        " if not loop.first else "" }}{{ epoch_seconds(times ~ '.' ~ stage ~ '_at') }} - {{ epoch_seconds(enqueued_at) }} as seconds_to_{{ stage }},
{% endfor %}
        {{ times }}.last_status_at,
        {{ epoch_seconds(times ~ '.last_status_at') }} - {{ epoch_seconds(enqueued_at) }} as duration_seconds
{%- endmacro %}
