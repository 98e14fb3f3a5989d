{#
Gates and dynamic configs have the same shape in the console: versions kept as scd2 history, rules with
conditions and their target values, holdout ids (a config's rules also return a value and have variants). The
columns their staging models share are written once here, and the intermediate `int_entity_*` models stack the
two kinds with an `entity_type` column.

`entity_kinds`: each kind by its `entity_type` (the values of `code_references.entity_type`, and the middle of its
staging models' names: `stg_gate_rules`, `stg_dynamic_config_rules`), with the prefix of its staging models' key
columns (`gate_version_id`, `config_version_id`).
#}
{% from 'macros/joins.sql' import join_on %}
{% set entity_kinds = {"gate": "gate", "dynamic_config": "config"} %}
{% set entity_tables = {"gate": "gates", "dynamic_config": "dynamic_configs"} %}

{#
A version's key, read from a raw scd2 table aliased `alias`: its row's `_dlt_id`, unless an earlier row has it too.
dlt's scd2 `_dlt_id` is the hash of the row's whole content, its lists included: a gate or config that returns to an
earlier content (a count back to what it was, no version bump) is inserted again under the retired row's hash, and its
nested rows (rules, holdout ids) are stored once, for both. The second row of a hash is `<_dlt_id>~1`, the third
`~2`, in the order they became valid: a key unique per row hash and `valid_from`, and the first row's never changes.
#}
{% macro version_key(alias) -%}
{{ alias }}._dlt_id || case
        when row_number() over (partition by {{ alias }}.project, {{ alias }}._dlt_id order by {{ alias }}._dlt_valid_from, {{ alias }}._dlt_load_id) = 1 then ''
        else '~' || cast(row_number() over (partition by {{ alias }}.project, {{ alias }}._dlt_id order by {{ alias }}._dlt_valid_from, {{ alias }}._dlt_load_id) - 1 as {{ string_type() }})
    end
{%- endmacro %}

{#
A list of a kind's versions (its rules, its holdout ids), a whole staging model: the raw child table `table` aliased
`alias`, each row under every version whose row hash it names as `_dlt_parent_id`, so that a content two versions
share is listed under each of them, once; `project`, then the columns the call's body writes:
`{% call version_list('gate', 'gates__rules', 'rules') %}{{ rule_columns('gate') }}{% endcall %}`.
#}
{% macro version_list(entity_type, table, alias) -%}
with versions as (
    select
        versions.project,
        versions._dlt_id as row_hash,
        {{ version_key('versions') }} as version_id
    from {{ source(entity_tables[entity_type]) }} as versions
)

select
    {{ alias }}.project,
    {{ caller() }}
from {{ source(table) }} as {{ alias }}
inner join versions
    {{ join_on('versions', alias, 'row_hash = _dlt_parent_id') }}
{%- endmacro %}

{# A version's identity: the first columns of stg_<kind>_versions, read from a raw table aliased `versions`. #}
{% macro version_identity(entity_type) -%}
{% set prefix = entity_kinds[entity_type] %}
{{ version_key('versions') }} as {{ prefix }}_version_id,
    versions.id as {{ prefix }}_id,
    versions.name as {{ prefix }}_name,
    versions.description,
    versions.id_type,
    versions.status
{%- endmacro %}

{% macro version_owner() -%}
versions.owner__owner_id as owner_id,
    versions.owner__owner_name as owner_name,
    versions.owner__owner_type as owner_type,
    versions.owner__owner_email as owner_email
{%- endmacro %}

{# Who made the version and when, and its place in the scd2 history: the last columns of stg_<kind>_versions. #}
{% macro version_history() -%}
versions.version,
    {{ epoch_ms_timestamp('versions.created_time') }} as created_at,
    versions.creator_id,
    versions.creator_name,
    versions.creator_email,
    {{ epoch_ms_timestamp('versions.last_modified_time') }} as last_modified_at,
    versions.last_modifier_id,
    versions.last_modifier_name,
    versions.last_modifier_email,
    {{ utc_timestamp('versions._dlt_valid_from') }} as valid_from,
    {{ utc_timestamp('versions._dlt_valid_to') }} as valid_to,
    versions._dlt_valid_to is null as is_current,
    versions._dlt_load_id as load_id
{%- endmacro %}

{#
`days_since_created`, `days_since_modified`: whole days (24 h) from the `created_at` / `last_modified_at` of the
relation aliased `alias` (a live gate or config) to `as_of.as_of_at`.
#}
{% macro days_since_changes(alias) -%}
cast(floor(({{ epoch_seconds('as_of.as_of_at') }} - {{ epoch_seconds(alias ~ '.created_at') }}) / 86400) as integer) as days_since_created,
        cast(floor(({{ epoch_seconds('as_of.as_of_at') }} - {{ epoch_seconds(alias ~ '.last_modified_at') }}) / 86400) as integer) as days_since_modified
{%- endmacro %}

{# The columns of stg_<kind>_rules, read from a raw rules table aliased `rules` joined to `versions_by_row_hash` aliased `versions`. #}
{% macro rule_columns(entity_type) -%}
{% set prefix = entity_kinds[entity_type] %}
rules._dlt_id as {{ prefix }}_rule_row_id,
    versions.version_id as {{ prefix }}_version_id,
    rules._dlt_list_idx as rule_position,
    rules.id as rule_id,
    rules.base_id as rule_base_id,
    rules.name as rule_name,
    cast(coalesce(rules.pass_percentage__v_double, rules.pass_percentage) as {{ double_type() }}) as pass_percentage
{%- endmacro %}

{# The columns of stg_<kind>_rule_conditions, from a raw conditions table aliased `conditions`. #}
{% macro condition_columns(entity_type) -%}
{% set prefix = entity_kinds[entity_type] %}
conditions._dlt_id as {{ prefix }}_condition_row_id,
    conditions._dlt_parent_id as {{ prefix }}_rule_row_id,
    conditions._dlt_list_idx as condition_position,
    conditions.type as condition_type,
    conditions.operator,
    conditions.field,
    conditions.custom_id
{%- endmacro %}

{# The columns of stg_<kind>_condition_targets, from a raw target values table aliased `target_values`. #}
{% macro target_columns(entity_type) -%}
target_values._dlt_parent_id as {{ entity_kinds[entity_type] }}_condition_row_id,
    target_values._dlt_list_idx as target_position,
    -- the first type seen takes `value`; values of another type land in dlt's variant columns
    coalesce(
        cast(target_values.value as {{ string_type() }}),
        target_values.value__v_text,
        cast(target_values.value__v_bigint as {{ string_type() }}),
        cast(target_values.value__v_double as {{ string_type() }})
    ) as target_value
{%- endmacro %}

{# The columns of stg_<kind>_holdouts, from a raw holdoutIDs table aliased `holdout_ids` joined to `versions_by_row_hash` aliased `versions`. #}
{% macro holdout_columns(entity_type) -%}
versions.version_id as {{ entity_kinds[entity_type] }}_version_id,
    holdout_ids._dlt_list_idx as holdout_position,
    holdout_ids.value as holdout_id
{%- endmacro %}

{#
The staging models `stg_<kind>_<model>` of both kinds, one on the other, `project` and `entity_type` first: each of `keys` is
read from its kind's prefixed column (`gate_version_id` and `config_version_id` as `version_id`; `id as entity_id`
reads `gate_id` and `config_id` as `entity_id`), `columns` as they are, and each of `kind_columns` (name: (the
kind that has it, its type)) from that kind, a typed null for the other. Call it inside a CTE:
`rules as (\n    {{ stack_entity_kinds('rules', [...], [...]) }}\n)`.
#}
{% macro stack_entity_kinds(model, keys, columns=[], kind_columns={}) -%}
{% for entity_type, prefix in entity_kinds.items() %}
{% if not loop.first %}


    union all

    {%+ endif %}
select
        project,
        '{{ entity_type }}' as entity_type
{%- for key in keys %}
{% set column, _, alias = key.partition(" as ") %},
        {{ prefix }}_{{ column }} as {{ alias or column }}
{%- endfor %}
{%- for column in columns %},
        {{ column }}
{%- endfor %}
{%- for column, (kind, type) in kind_columns.items() %},
        {{ column if kind == entity_type else "cast(null as " ~ type ~ ") as " ~ column }}
{%- endfor %}

    from {{ ref("stg_" ~ entity_type ~ "_" ~ model) }}
{%- endfor %}
{%- endmacro %}

{#
One kind's rows of `int_entity_changes`, its columns named for the kind (`gate_id`, `config_version_id`), with
the before and after of the attributes in `compared`.
#}
{% macro changes_of_kind(entity_type, compared) -%}
{% set prefix = entity_kinds[entity_type] %}
with changes as (
    select * from {{ ref("int_entity_changes") }}
    where entity_type = '{{ entity_type }}'
),

final as (
    select
        project,
        entity_id as {{ prefix }}_id,
        entity_name as {{ prefix }}_name,
        change_kind,
        observed_at,
        changed_at,
        changed_by,
        changed_fields,
{% for column in compared %}
        previous_{{ column }},
        {{ column }},
{% endfor %}
        version_id as {{ prefix }}_version_id
    from changes
)

select * from final
{%- endmacro %}
