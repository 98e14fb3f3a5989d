-- grain: one row per change in a dynamic config's scd2 history (first seen, modified, retired, restored); key: config_id, observed_at
with versions as (
    select * from analytics.stg_dynamic_config_versions
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

condition_targets as (
    select
        config_condition_row_id,
        string_agg(target_value, '|' order by target_position) as target_values
    from config_targets
    group by config_condition_row_id
),

rule_conditions as (
    select
        config_conditions.config_rule_row_id,
        string_agg(
            coalesce(config_conditions.condition_type, '') || '/' || coalesce(config_conditions.operator, '') || '/'
            || coalesce(config_conditions.field, '') || '/' || coalesce(condition_targets.target_values, ''),
            ';' order by config_conditions.condition_position
        ) as conditions_fingerprint
    from config_conditions
    left join condition_targets
        on condition_targets.config_condition_row_id = config_conditions.config_condition_row_id
    group by config_conditions.config_rule_row_id
),

rule_variants as (
    select
        config_rule_row_id,
        string_agg(
            coalesce(variant_id, '') || ':' || coalesce(cast(pass_percentage as varchar), '') || ':' || coalesce(return_value, ''),
            ';' order by variant_position
        ) as variants_fingerprint
    from config_variants
    group by config_rule_row_id
),

version_rules as (
    -- what a rule change means here: any rule added, removed, reordered, re-targeted, re-weighted or returning another value
    select
        config_rules.config_version_id,
        count(*) as rule_count,
        string_agg(
            coalesce(config_rules.rule_id, '') || ':' || coalesce(config_rules.rule_name, '') || ':'
            || coalesce(cast(config_rules.pass_percentage as varchar), '') || ':' || coalesce(config_rules.return_value, '')
            || '[' || coalesce(rule_conditions.conditions_fingerprint, '') || '][' || coalesce(rule_variants.variants_fingerprint, '') || ']',
            ',' order by config_rules.rule_position
        ) as rules_fingerprint
    from config_rules
    left join rule_conditions
        on rule_conditions.config_rule_row_id = config_rules.config_rule_row_id
    left join rule_variants
        on rule_variants.config_rule_row_id = config_rules.config_rule_row_id
    group by config_rules.config_version_id
),

version_holdouts as (
    select
        config_version_id,
        string_agg(holdout_id, ',' order by holdout_position) as holdouts_fingerprint
    from config_holdouts
    group by config_version_id
),

sequenced as (
    select
        versions.config_version_id,
        versions.config_id,
        versions.config_name,
        versions.description,
        versions.status,
        versions.is_enabled,
        versions.default_value,
        versions.owner_id,
        versions.team,
        versions.release_pipeline_id,
        versions.version,
        versions.last_modified_at,
        versions.last_modifier_name,
        versions.valid_from,
        versions.valid_to,
        coalesce(version_rules.rule_count, 0) as rule_count,
        version_rules.rules_fingerprint,
        version_holdouts.holdouts_fingerprint,
        lag(versions.valid_from) over config_history as previous_valid_from,
        lag(versions.valid_to) over config_history as previous_valid_to,
        lead(versions.valid_from) over config_history as next_valid_from,
        lag(versions.config_name) over config_history as previous_config_name,
        lag(versions.description) over config_history as previous_description,
        lag(versions.status) over config_history as previous_status,
        lag(versions.is_enabled) over config_history as previous_is_enabled,
        lag(versions.default_value) over config_history as previous_default_value,
        lag(versions.owner_id) over config_history as previous_owner_id,
        lag(versions.team) over config_history as previous_team,
        lag(versions.release_pipeline_id) over config_history as previous_release_pipeline_id,
        lag(versions.version) over config_history as previous_version,
        lag(coalesce(version_rules.rule_count, 0)) over config_history as previous_rule_count,
        lag(version_rules.rules_fingerprint) over config_history as previous_rules_fingerprint,
        lag(version_holdouts.holdouts_fingerprint) over config_history as previous_holdouts_fingerprint
    from versions
    left join version_rules
        on version_rules.config_version_id = versions.config_version_id
    left join version_holdouts
        on version_holdouts.config_version_id = versions.config_version_id
    window config_history as (partition by versions.config_id order by versions.valid_from)
),

version_changes as (
    select
        config_id,
        config_name,
        case
            when previous_valid_from is null then 'first seen'
            when previous_valid_to < valid_from then 'restored'
            else 'modified'
        end as change_kind,
        valid_from as observed_at,
        last_modified_at as changed_at,
        last_modifier_name as changed_by,
        case
            when previous_valid_from is not null then coalesce(
                nullif(
                    concat_ws(
                        ', ',
                        case when config_name is distinct from previous_config_name then 'name' end,
                        case when description is distinct from previous_description then 'description' end,
                        case when status is distinct from previous_status then 'status' end,
                        case when is_enabled is distinct from previous_is_enabled then 'is_enabled' end,
                        case when default_value is distinct from previous_default_value then 'default_value' end,
                        case when rules_fingerprint is distinct from previous_rules_fingerprint then 'rules' end,
                        case when holdouts_fingerprint is distinct from previous_holdouts_fingerprint then 'holdouts' end,
                        case when owner_id is distinct from previous_owner_id then 'owner' end,
                        case when team is distinct from previous_team then 'team' end,
                        case when release_pipeline_id is distinct from previous_release_pipeline_id then 'release_pipeline' end
                    ),
                    ''
                ),
                'other'
            )
        end as changed_fields,
        previous_version,
        version,
        previous_status,
        status,
        previous_is_enabled,
        is_enabled,
        previous_default_value,
        default_value,
        previous_rule_count,
        rule_count,
        config_version_id
    from sequenced
),

retirements as (
    -- a version closed without a successor at the same moment: the config left the list
    select
        config_id,
        config_name,
        'retired' as change_kind,
        valid_to as observed_at,
        cast(null as timestamp) as changed_at,
        cast(null as varchar) as changed_by,
        cast(null as varchar) as changed_fields,
        version as previous_version,
        cast(null as bigint) as version,
        status as previous_status,
        cast(null as varchar) as status,
        is_enabled as previous_is_enabled,
        cast(null as boolean) as is_enabled,
        default_value as previous_default_value,
        cast(null as varchar) as default_value,
        rule_count as previous_rule_count,
        cast(null as bigint) as rule_count,
        config_version_id
    from sequenced
    where valid_to is not null
        and (next_valid_from is null or next_valid_from > valid_to)
),

final as (
    select * from version_changes
    union all
    select * from retirements
)

select * from final
