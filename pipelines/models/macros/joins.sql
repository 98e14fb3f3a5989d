{#
Every view keys on `project`, the console a row comes from, so a join between two of its relations matches the
project first and then its own keys. `join_on(joined, other, *keys)` writes that condition, one line a column:
a key is a column of the same name on both sides (`'version_id'`) or `'<joined column> = <other column>'`.
Called after the join, at the condition's indentation:
`inner join rules\n        {{ join_on('rules', 'versions', 'entity_type', 'version_id') }}` renders
`on rules.project = versions.project and rules.entity_type = versions.entity_type and rules.version_id = versions.version_id`.
#}
{% macro join_on(joined, other) -%}
on {{ joined }}.project = {{ other }}.project
{%- for key in varargs %}
{% set column, _, other_column = key.partition(" = ") %}

        and {{ joined }}.{{ column }} = {{ other }}.{{ other_column or column }}
{%- endfor %}
{%- endmacro %}
