-- grain: one row per live gate, with its rollout and who references it; key: gate_id
with gates as (
    select * from analytics.stg_gates
),

gate_rules as (
    select * from analytics.stg_gate_rules
),

gate_conditions as (
    select * from analytics.stg_gate_rule_conditions
),

gate_holdouts as (
    select * from analytics.stg_gate_holdouts
),

gate_references as (
    select * from analytics.gate_references
),

as_of as (
    select * from analytics.as_of
),

rule_audiences as (
    -- an "everyone" rule: all its conditions are the console's Everyone condition (`public`), or it has none
    select
        gate_rules.gate_version_id,
        gate_rules.gate_rule_row_id,
        gate_rules.pass_percentage,
        count(case when gate_conditions.condition_type <> 'public' then 1 end) = 0 as is_everyone_rule
    from gates
    inner join gate_rules
        on gate_rules.gate_version_id = gates.gate_version_id
    left join gate_conditions
        on gate_conditions.gate_rule_row_id = gate_rules.gate_rule_row_id
    group by
        gate_rules.gate_version_id,
        gate_rules.gate_rule_row_id,
        gate_rules.pass_percentage
),

rule_summary as (
    select
        gate_version_id,
        count(*) as rule_count,
        min(pass_percentage) as min_pass_percentage,
        max(pass_percentage) as max_pass_percentage,
        count(case when is_everyone_rule then 1 end) > 0 as has_everyone_rule,
        count(case when is_everyone_rule and pass_percentage >= 100 then 1 end) > 0 as has_everyone_rule_at_100,
        count(case when is_everyone_rule and pass_percentage <= 0 then 1 end) > 0 as has_everyone_rule_at_0
    from rule_audiences
    group by gate_version_id
),

holdout_lists as (
    select
        gate_version_id,
        string_agg(holdout_id, ', ' order by holdout_position) as holdout_ids
    from gate_holdouts
    group by gate_version_id
),

reference_lists as (
    select
        referenced_gate_id,
        string_agg(case when referrer_kind = 'gate' then referrer_id end, ', ' order by referrer_id) as referencing_gate_ids,
        string_agg(case when referrer_kind = 'dynamic_config' then referrer_id end, ', ' order by referrer_id) as referencing_config_ids,
        string_agg(case when referrer_kind = 'holdout' then referrer_id end, ', ' order by referrer_id) as referencing_holdout_ids,
        count(*) as referenced_by_count
    from gate_references
    group by referenced_gate_id
),

final as (
    select
        gates.gate_id,
        gates.gate_name,
        gates.description,
        gates.id_type,
        gates.status,
        gates.gate_type,
        gates.type_reason,
        gates.is_enabled,
        gates.checks_per_hour,
        gates.team,
        gates.owner_id,
        gates.owner_name,
        gates.owner_type,
        gates.owner_email,
        gates.creator_name,
        gates.created_at,
        gates.last_modifier_name,
        gates.last_modified_at,
        gates.version,
        cast(floor((extract(epoch from as_of.as_of_at) - extract(epoch from gates.created_at)) / 86400) as integer) as days_since_created,
        cast(floor((extract(epoch from as_of.as_of_at) - extract(epoch from gates.last_modified_at)) / 86400) as integer) as days_since_modified,
        coalesce(rule_summary.rule_count, 0) as rule_count,
        rule_summary.min_pass_percentage,
        rule_summary.max_pass_percentage,
        coalesce(rule_summary.has_everyone_rule, false) as has_everyone_rule,
        coalesce(rule_summary.has_everyone_rule_at_100, false) as has_everyone_rule_at_100,
        coalesce(rule_summary.has_everyone_rule_at_0, false) as has_everyone_rule_at_0,
        case
            when rule_summary.rule_count is null then 'no rules'
            when rule_summary.max_pass_percentage <= 0 then '0%'
            when rule_summary.min_pass_percentage >= 100 and rule_summary.has_everyone_rule then '100%'
            else 'partial'
        end as rollout_state,
        holdout_lists.holdout_ids,
        reference_lists.referencing_gate_ids,
        reference_lists.referencing_config_ids,
        reference_lists.referencing_holdout_ids,
        coalesce(reference_lists.referenced_by_count, 0) as referenced_by_count,
        gates.valid_from as version_seen_at,
        gates.gate_version_id
    from gates
    cross join as_of
    left join rule_summary
        on rule_summary.gate_version_id = gates.gate_version_id
    left join holdout_lists
        on holdout_lists.gate_version_id = gates.gate_version_id
    left join reference_lists
        on reference_lists.referenced_gate_id = gates.gate_id
)

select * from final
