-- grain: one row per live dynamic config; key: project, config_id
{#
From `stg_dynamic_configs`, its current version in `int_entity_versions` (rule count, holdouts), its rules in
`int_entity_rules` (variants), `int_gate_dependencies` and `as_of`.

| column | meaning |
|---|---|
| `project` | the console |
| `config_id`, `config_name`, `description`, `id_type`, `status`, `is_enabled`, `is_template`, `team`, `owner_id`, `owner_name`, `owner_email`, `release_pipeline_id`, `default_value`, `version`, `creator_name`, `created_at`, `last_modifier_name`, `last_modified_at` | as in `stg_dynamic_configs` |
| `days_since_created`, `days_since_modified` | as for gates |
| `rule_count`, `variant_count` | rules of the current version, and variants over them |
| `referenced_gate_ids` | gates named by its `passes_gate` / `fails_gate` conditions (existing or not) |
| `holdout_ids` | its `holdoutIDs` |
| `version_seen_at`, `config_version_id` | as for gates |
#}
{% from 'macros/entity_kinds.sql' import days_since_changes %}
{% from 'macros/joins.sql' import join_on, left_joins %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(configs='stg_dynamic_configs', as_of='as_of') }},

versions as (
    select * from {{ ref('int_entity_versions') }}
    where entity_type = 'dynamic_config' and is_current
),

config_rules as (
    select * from {{ ref('int_entity_rules') }}
    where entity_type = 'dynamic_config'
),

gate_dependencies as (
    select * from {{ ref('int_gate_dependencies') }}
    where entity_type = 'dynamic_config'
),

variant_counts as (
    select
        config_rules.project,
        config_rules.version_id,
        cast(sum(config_rules.variant_count) as bigint) as variant_count
    from configs
    inner join config_rules
        {{ join_on('config_rules', 'configs', 'version_id = config_version_id') }}
    group by config_rules.project, config_rules.version_id
),

gate_lists as (
    select
        project,
        version_id,
        {% call string_agg("', '", "referenced_gate_id") %}distinct referenced_gate_id{% endcall %} as referenced_gate_ids
    from gate_dependencies
    group by project, version_id
),

final as (
    select
        configs.project,
        configs.config_id,
        configs.config_name,
        configs.description,
        configs.id_type,
        configs.status,
        configs.is_enabled,
        configs.is_template,
        configs.team,
        configs.owner_id,
        configs.owner_name,
        configs.owner_email,
        configs.release_pipeline_id,
        configs.default_value,
        configs.version,
        configs.creator_name,
        configs.created_at,
        configs.last_modifier_name,
        configs.last_modified_at,
        {{ days_since_changes('configs') }},
        versions.rule_count,
        coalesce(variant_counts.variant_count, 0) as variant_count,
        gate_lists.referenced_gate_ids,
        versions.holdout_ids,
        configs.valid_from as version_seen_at,
        configs.config_version_id
    from configs
    -- outer joins kept as inner ones by a filter PostgreSQL cannot see through (the same rows), as `current_gates` does
    left join as_of
        on as_of.project = configs.project
    {{ left_joins('configs', 'version_id = config_version_id', 'versions', 'variant_counts', 'gate_lists') }}
    where coalesce(versions.version_id is not null and as_of.project is not null, false)
)

select * from final
