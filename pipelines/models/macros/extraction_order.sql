{#
The order of a project's extractions, latest first, as `as_of` picks its last one (it says why): by the earlier of
the console's clock (`service_time`) and this machine's (`started_at`), ties to the later load. Called inside a
window's `order by`, over relations with the columns of `stg_extraction_runs`:
`row_number() over (partition by project order by {{ latest_extraction_first() }})`.
#}
{% macro latest_extraction_first() -%}
least(coalesce(service_time, finished_at, started_at), coalesce(started_at, service_time, finished_at)) desc,
                load_id desc,
                extraction_id desc
{%- endmacro %}
