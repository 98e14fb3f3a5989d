{#
dlt loads a list inside a record as a child table: the parent row's `_dlt_id` in `_dlt_parent_id`, the place in
the list in `_dlt_list_idx` and, for a list of plain values (ids, names), the value in `value`. The staging
models of such lists differ only in names; their columns are written once here.
#}

{# A list of plain values, from a raw child table aliased `alias`: parent row, position, value. #}
{% macro list_values(alias, parent, position, value) -%}
{{ alias }}._dlt_parent_id as {{ parent }},
    {{ alias }}._dlt_list_idx as {{ position }},
    {{ alias }}.value as {{ value }}
{%- endmacro %}

{# A history of statuses (`status`, `status_timestamp`), from a raw child table aliased `alias`. #}
{% macro status_entries(alias, parent) -%}
{{ alias }}._dlt_parent_id as {{ parent }},
    -- the service lists a history newest first: position 0 is the latest status
    {{ alias }}._dlt_list_idx as status_position,
    {{ alias }}.status,
    {{ utc_timestamp(alias ~ '.status_timestamp') }} as status_at
{%- endmacro %}
