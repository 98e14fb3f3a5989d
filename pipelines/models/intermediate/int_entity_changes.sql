-- grain: one row per change in the scd2 history of a gate or a dynamic config (first seen, modified, retired, restored); key: project, entity_type, entity_id, observed_at
{#
The one change history behind `gate_changes` and `dynamic_config_changes`: each version compared with the one before
it (`lag` over the entity's versions by `valid_from`), and a `retired` row for each version that closed without a
successor. From `int_entity_versions`, its rules (`int_entity_rules`) and their conditions, target values and
variants.

| column | meaning |
|---|---|
| `project` | the console |
| `entity_type`, `entity_id`, `entity_name` | the gate or config |
| `change_kind`, `observed_at`, `changed_at`, `changed_by` | as in `gate_changes` |
| `changed_fields` | for `modified`/`restored`: which of `name`, `description`, `status`, `type`, `type_reason`, `is_enabled`, `default_value`, `rules` (any rule added, removed, reordered, renamed, re-targeted, re-weighted, a config's return values and variants), `holdouts`, `owner`, `team`, `checks_per_hour`, `release_pipeline` differ from the previous version; `other` when none did. An attribute of the other kind is null on both sides, so never listed |
| `previous_version`, `version`, `previous_status`, `status`, `previous_gate_type`, `gate_type`, `previous_type_reason`, `type_reason`, `previous_is_enabled`, `is_enabled`, `previous_default_value`, `default_value`, `previous_rule_count`, `rule_count` | before and after; for `retired` the "after" side is null. A gate's type and a config's default value are null for the other kind |
| `version_id` | the version the row is about |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
{% from 'macros/entity_kinds.sql' import stack_entity_kinds %}
{# What `changed_fields` calls each attribute that differs from the previous version's. #}
{% set change_labels = {
    'entity_name': 'name',
    'description': 'description',
    'status': 'status',
    'gate_type': 'type',
    'type_reason': 'type_reason',
    'is_enabled': 'is_enabled',
    'default_value': 'default_value',
    'rules_fingerprint': 'rules',
    'holdout_ids': 'holdouts',
    'owner_id': 'owner',
    'team': 'team',
    'checks_per_hour': 'checks_per_hour',
    'release_pipeline_id': 'release_pipeline',
} %}
{# The attributes a change shows before and after, with their types: the "after" of a retirement is a typed null. #}
{% set before_and_after = {
    'version': 'bigint',
    'status': 'varchar',
    'gate_type': 'varchar',
    'type_reason': 'varchar',
    'is_enabled': 'boolean',
    'default_value': 'varchar',
    'rule_count': 'bigint',
} %}
with {{ imports(versions='int_entity_versions', rules='int_entity_rules') }},

conditions as (
    {{ stack_entity_kinds('rule_conditions', ['rule_row_id', 'condition_row_id'],
                          ['condition_position', 'condition_type', 'operator', 'field']) }}
),

targets as (
    {{ stack_entity_kinds('condition_targets', ['condition_row_id'], ['target_position', 'target_value']) }}
),

variants as (
    select * from {{ ref('stg_dynamic_config_rule_variants') }}
),

condition_targets as (
    select
        project,
        entity_type,
        condition_row_id,
        {% call string_agg("'|'", "target_position") %}target_value{% endcall %} as target_values
    from targets
    group by project, entity_type, condition_row_id
),

rule_conditions as (
    select
        conditions.project,
        conditions.entity_type,
        conditions.rule_row_id,
        {% call string_agg("';'", "conditions.condition_position") %}
            coalesce(conditions.condition_type, '') || '/' || coalesce(conditions.operator, '') || '/'
            || coalesce(conditions.field, '') || '/' || coalesce(condition_targets.target_values, '')
        {% endcall %} as conditions_fingerprint
    from conditions
    left join condition_targets
        {{ join_on('condition_targets', 'conditions', 'entity_type', 'condition_row_id') }}
    group by conditions.project, conditions.entity_type, conditions.rule_row_id
),

rule_variants as (
    select
        project,
        config_rule_row_id as rule_row_id,
        {% call string_agg("';'", "variant_position") %}
            coalesce(variant_id, '') || ':' || coalesce(cast(pass_percentage as {{ string_type() }}), '') || ':' || coalesce(return_value, '')
        {% endcall %} as variants_fingerprint
    from variants
    group by project, config_rule_row_id
),

version_rules as (
    -- what a rule change means here: any rule added, removed, reordered, renamed, re-targeted, re-weighted or
    -- (a config's) returning another value
    select
        rules.project,
        rules.entity_type,
        rules.version_id,
        {% call string_agg("','", "rules.rule_position") %}coalesce(rules.rule_id, '') || ':'
            || coalesce(rules.rule_name, '') || ':'
            || coalesce(cast(rules.pass_percentage as {{ string_type() }}), '') || ':' || coalesce(rules.return_value, '')
            || '[' || coalesce(rule_conditions.conditions_fingerprint, '')
            || '][' || coalesce(rule_variants.variants_fingerprint, '') || ']'{% endcall %} as rules_fingerprint
    from rules
    left join rule_conditions
        {{ join_on('rule_conditions', 'rules', 'entity_type', 'rule_row_id') }}
    left join rule_variants
        {{ join_on('rule_variants', 'rules', 'rule_row_id') }}
        and rules.entity_type = 'dynamic_config'
    group by rules.project, rules.entity_type, rules.version_id
),

sequenced as (
    select
        versions.*,
        version_rules.rules_fingerprint,
        lag(valid_from) over entity_history as previous_valid_from,
        lag(valid_to) over entity_history as previous_valid_to,
        lead(valid_from) over entity_history as next_valid_from,
{% for column in change_labels.keys() | list + ['version', 'rule_count'] %}
        lag({{ column }}) over entity_history as previous_{{ column }}{{ "," if not loop.last }}
{% endfor %}
    from versions
    left join version_rules
        {{ join_on('version_rules', 'versions', 'entity_type', 'version_id') }}
    window entity_history as (
        partition by versions.project, versions.entity_type, versions.entity_id order by versions.valid_from
    )
),

version_changes as (
    select
        project,
        entity_type,
        entity_id,
        entity_name,
        case
            when previous_valid_from is null then 'first seen'
            when previous_valid_to < valid_from then 'restored'
            else 'modified'
        end as change_kind,
        valid_from as observed_at,
        last_modified_at as changed_at,
        last_modifier_name as changed_by,
        -- the attributes of one kind are null for the other, so they never count as changed there
        case
            when previous_valid_from is not null then coalesce(
                -- the labels of the changed attributes, each after ', ', less the first ', '
                nullif(
                    substr(
{% for column, label in change_labels.items() %}
                        coalesce(case when {{ column }} is distinct from previous_{{ column }} then ', {{ label }}' end, '')
                        {{- " ||" if not loop.last }}
{% endfor %}
                        ,
                        3
                    ),
                    ''
                ),
                'other'
            )
        end as changed_fields,
{% for column in before_and_after %}
        previous_{{ column }},
        {{ column }},
{% endfor %}
        version_id
    from sequenced
),

retirements as (
    select
        project,
        entity_type,
        entity_id,
        entity_name,
        'retired' as change_kind,
        valid_to as observed_at,
        cast(null as {{ timestamp_type() }}) as changed_at,
        cast(null as {{ string_type() }}) as changed_by,
        cast(null as {{ string_type() }}) as changed_fields,
{% for column, type in before_and_after.items() %}
        {{ column }} as previous_{{ column }},
        cast(null as {{ type }}) as {{ column }},
{% endfor %}
        version_id
    from sequenced
    -- closed without a successor at the same moment: the entity left the list
    where valid_to is not null and (next_valid_from is null or next_valid_from > valid_to)
),

final as (
    select * from version_changes

    union all

    select * from retirements
)

select * from final
