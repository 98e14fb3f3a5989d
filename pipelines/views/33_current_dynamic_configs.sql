-- grain: one row per live dynamic config; key: config_id
with configs as (
    select * from analytics.stg_dynamic_configs
),

config_rules as (
    select * from analytics.stg_dynamic_config_rules
),

config_variants as (
    select * from analytics.stg_dynamic_config_rule_variants
),

config_conditions as (
    select * from analytics.stg_dynamic_config_rule_conditions
),

config_targets as (
    select * from analytics.stg_dynamic_config_condition_targets
),

config_holdouts as (
    select * from analytics.stg_dynamic_config_holdouts
),

as_of as (
    select * from analytics.as_of
),

variant_counts as (
    select
        config_rule_row_id,
        count(*) as variant_count
    from config_variants
    group by config_rule_row_id
),

rule_summary as (
    select
        config_rules.config_version_id,
        count(*) as rule_count,
        cast(sum(variant_counts.variant_count) as bigint) as variant_count
    from configs
    inner join config_rules
        on config_rules.config_version_id = configs.config_version_id
    left join variant_counts
        on variant_counts.config_rule_row_id = config_rules.config_rule_row_id
    group by config_rules.config_version_id
),

gate_lists as (
    select
        config_rules.config_version_id,
        string_agg(distinct config_targets.target_value, ', ' order by config_targets.target_value) as referenced_gate_ids
    from configs
    inner join config_rules
        on config_rules.config_version_id = configs.config_version_id
    inner join config_conditions
        on config_conditions.config_rule_row_id = config_rules.config_rule_row_id
    inner join config_targets
        on config_targets.config_condition_row_id = config_conditions.config_condition_row_id
    where config_conditions.condition_type in ('passes_gate', 'fails_gate')
    group by config_rules.config_version_id
),

holdout_lists as (
    select
        config_version_id,
        string_agg(holdout_id, ', ' order by holdout_position) as holdout_ids
    from config_holdouts
    group by config_version_id
),

final as (
    select
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
        cast(floor((extract(epoch from as_of.as_of_at) - extract(epoch from configs.created_at)) / 86400) as integer) as days_since_created,
        cast(floor((extract(epoch from as_of.as_of_at) - extract(epoch from configs.last_modified_at)) / 86400) as integer) as days_since_modified,
        coalesce(rule_summary.rule_count, 0) as rule_count,
        coalesce(rule_summary.variant_count, 0) as variant_count,
        gate_lists.referenced_gate_ids,
        holdout_lists.holdout_ids,
        configs.valid_from as version_seen_at,
        configs.config_version_id
    from configs
    cross join as_of
    left join rule_summary
        on rule_summary.config_version_id = configs.config_version_id
    left join gate_lists
        on gate_lists.config_version_id = configs.config_version_id
    left join holdout_lists
        on holdout_lists.config_version_id = configs.config_version_id
)

select * from final
