{#
Every view keys on `project`, the console a row comes from, so a join between two of its relations matches the
project first and then its own keys. `join_on(joined, other, *keys)` writes that condition, one line a column:
a key is a column of the same name on both sides (`'version_id'`) or `'<joined column> = <other column>'`.
Called after the join, at the condition's indentation:
`inner join rules\n        {{ join_on('rules', 'versions', 'entity_type', 'version_id') }}` renders
`on rules.project is not distinct from versions.project and rules.entity_type = versions.entity_type and ...`.
The project term is written `is not distinct from` (the same rows: `project` is never null) so that PostgreSQL
filters on it instead of sorting or hashing the join on it: it cannot see that a computed `project` has a handful
of values, and merged the versions with their rule counts on project alone, comparing every pair of a project.
#}
{% macro join_on(joined, other) -%}
on {{ joined }}.project is not distinct from {{ other }}.project
{%- for key in varargs %}
{% set column, _, other_column = key.partition(" = ") %}

        and {{ joined }}.{{ column }} = {{ other }}.{{ other_column or column }}
{%- endfor %}
{%- endmacro %}

{#
`left_joins(other, keys, *joined)`: each relation of `joined` left-joined to `other` on the project and `keys` (one key
or a list, as `join_on` takes them): the facts a view keeps per row of `other` (its counts, lists, history), gathered
beside it. Called where the joins go, at their indentation:
`    {{ left_joins('runs', 'run_row_id', 'stage_times', 'source_counts') }}`.
#}
{% macro left_joins(other, keys) -%}
{% set keys = [keys] if keys is string else keys %}
{% for joined in varargs %}
{{ "\n    " if not loop.first else "" }}left join {{ joined }}
        {{ join_on(joined, other, *keys) }}
{%- endfor %}
{%- endmacro %}
