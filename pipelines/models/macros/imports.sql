{#
The import CTEs a model opens with: one per model it reads as it is, `name as (select * from <model>)`, so what
a model reads stands in one place at its top. Called after `with` (or after another CTE and its comma):
`with {{ imports(gates='stg_gates', holdouts='stg_holdouts') }},`. A read with a filter of its own stays a CTE.
#}
{% macro imports() -%}
{% for name, model in kwargs.items() %}
{{ name }} as (
    select * from {{ ref(model) }}
){{ ",\n\n" if not loop.last else "" }}
{%- endfor %}
{%- endmacro %}
