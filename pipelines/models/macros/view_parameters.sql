{#
The parameters of the analysis views (`analytics.view_parameters`, one row a name; their defaults in
`gatehouse.pipelines.models.build.DEFAULT_PARAMETERS`) as one row, a column each of those a model reads. Called
inside a CTE: `parameters as (\n    {{ view_parameters('stall_days', 'late_days') }}\n)`, then `cross join parameters`.
#}
{% macro view_parameters() -%}
select
{% for name in varargs %}
        max(case when name = '{{ name }}' then value end) as {{ name }}{{ "," if not loop.last else "" }}
{% endfor %}
    from analytics.view_parameters
{%- endmacro %}
