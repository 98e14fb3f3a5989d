-- grain: one row per version of a gate or a dynamic config, the whole scd2 history of both; key: project, entity_type, version_id
{#
The versions of both kinds in one, from `stg_gate_versions` and `stg_dynamic_config_versions`, with their rule count
and holdouts: what `int_entity_changes`, the `current_*` marts and `code_orphans` read of a version.

| column | meaning |
|---|---|
| `project` | the console |
| `entity_type` | `gate` or `dynamic_config` |
| `version_id` | `gate_version_id` or `config_version_id` |
| `entity_id`, `entity_name` | the gate's or config's id and name |
| `description`, `status`, `is_enabled`, `owner_id`, `team`, `version`, `last_modified_at`, `last_modifier_name`, `valid_from`, `valid_to`, `is_current` | of this version |
| `gate_type`, `type_reason`, `checks_per_hour` | a gate's; null for a config |
| `default_value`, `release_pipeline_id` | a config's; null for a gate |
| `rule_count` | its rules |
| `holdout_ids` | its `holdoutIDs`, comma-separated; null when none |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/entity_kinds.sql' import stack_entity_kinds %}
with rules as (
    {{ stack_entity_kinds('rules', ['version_id']) }}
),

holdouts as (
    {{ stack_entity_kinds('holdouts', ['version_id'], ['holdout_position', 'holdout_id']) }}
),

versions as (
    {{ stack_entity_kinds(
        'versions',
        ['version_id', 'id as entity_id', 'name as entity_name'],
        ['description', 'status', 'is_enabled', 'owner_id', 'team', 'version', 'last_modified_at', 'last_modifier_name', 'valid_from', 'valid_to', 'is_current'],
        kind_columns={
            'gate_type': ('gate', string_type()),
            'type_reason': ('gate', string_type()),
            'checks_per_hour': ('gate', double_type()),
            'default_value': ('dynamic_config', string_type()),
            'release_pipeline_id': ('dynamic_config', string_type()),
        },
    ) }}
),

rule_counts as (
    select
        project,
        entity_type,
        version_id,
        count(*) as rule_count
    from rules
    group by project, entity_type, version_id
),

holdout_lists as (
    select
        project,
        entity_type,
        version_id,
        {% call string_agg("', '", "holdout_position") %}holdout_id{% endcall %} as holdout_ids
    from holdouts
    group by project, entity_type, version_id
),

final as (
    select
        versions.*,
        coalesce(rule_counts.rule_count, 0) as rule_count,
        holdout_lists.holdout_ids
    from versions
    left join rule_counts
        {{ join_on('rule_counts', 'versions', 'entity_type', 'version_id') }}
    left join holdout_lists
        {{ join_on('holdout_lists', 'versions', 'entity_type', 'version_id') }}
)

select * from final
