-- grain: one row per live gate and live entity that references it; key: referenced_gate_id, referrer_kind, referrer_id
with gates as (
    select * from analytics.stg_gates
),

gate_rules as (
    select * from analytics.stg_gate_rules
),

gate_conditions as (
    select * from analytics.stg_gate_rule_conditions
),

gate_targets as (
    select * from analytics.stg_gate_condition_targets
),

configs as (
    select * from analytics.stg_dynamic_configs
),

config_rules as (
    select * from analytics.stg_dynamic_config_rules
),

config_conditions as (
    select * from analytics.stg_dynamic_config_rule_conditions
),

config_targets as (
    select * from analytics.stg_dynamic_config_condition_targets
),

holdouts as (
    select * from analytics.stg_holdouts
),

holdout_gates as (
    select * from analytics.stg_holdout_gates
),

gate_holdouts as (
    select * from analytics.stg_gate_holdouts
),

-- a rule condition of type passes_gate / fails_gate names the gates it depends on in its target values
from_gates as (
    select
        gate_targets.target_value as referenced_gate_id,
        'gate' as referrer_kind,
        gates.gate_id as referrer_id
    from gates
    inner join gate_rules
        on gate_rules.gate_version_id = gates.gate_version_id
    inner join gate_conditions
        on gate_conditions.gate_rule_row_id = gate_rules.gate_rule_row_id
    inner join gate_targets
        on gate_targets.gate_condition_row_id = gate_conditions.gate_condition_row_id
    where gate_conditions.condition_type in ('passes_gate', 'fails_gate')
        and gate_targets.target_value <> gates.gate_id
),

from_configs as (
    select
        config_targets.target_value as referenced_gate_id,
        'dynamic_config' as referrer_kind,
        configs.config_id as referrer_id
    from configs
    inner join config_rules
        on config_rules.config_version_id = configs.config_version_id
    inner join config_conditions
        on config_conditions.config_rule_row_id = config_rules.config_rule_row_id
    inner join config_targets
        on config_targets.config_condition_row_id = config_conditions.config_condition_row_id
    where config_conditions.condition_type in ('passes_gate', 'fails_gate')
),

from_holdouts as (
    select
        holdout_gates.gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        holdouts.holdout_id as referrer_id
    from holdouts
    inner join holdout_gates
        on holdout_gates.holdout_row_id = holdouts.holdout_row_id

    union all

    select
        holdouts.targeting_gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        holdouts.holdout_id as referrer_id
    from holdouts
    where holdouts.targeting_gate_id is not null

    union all

    -- a gate's own holdoutIDs: the holdout applies to it, even when the holdout itself was not loaded
    select
        gates.gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        gate_holdouts.holdout_id as referrer_id
    from gates
    inner join gate_holdouts
        on gate_holdouts.gate_version_id = gates.gate_version_id
),

all_references as (
    select * from from_gates
    union
    select * from from_configs
    union
    select * from from_holdouts
),

final as (
    select
        all_references.referenced_gate_id,
        all_references.referrer_kind,
        all_references.referrer_id
    from all_references
    inner join gates
        on gates.gate_id = all_references.referenced_gate_id
)

select * from final
