-- grain: one row per live gate and live entity that references it; key: project, referenced_gate_id, referrer_kind, referrer_id
{#
| column | meaning |
|---|---|
| `project` | the console |
| `referenced_gate_id` | a live gate (`stg_gates`); references to gates that do not exist are left out |
| `referrer_kind` | `gate`: another live gate's rule condition of type `passes_gate` / `fails_gate` names it in its target values; `dynamic_config`: the same in a live config's rule; `holdout`: a holdout lists it in `gateIDs` or as `targetingGateID`, or the gate lists the holdout in its own `holdoutIDs` |
| `referrer_id` | the gate, config or holdout id |
#}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(
    gates='stg_gates',
    gate_dependencies='int_gate_dependencies',
    holdouts='stg_holdouts',
    holdout_gates='stg_holdout_gates',
    gate_holdouts='stg_gate_holdouts'
) }},

from_gates_and_configs as (
    select
        project,
        referenced_gate_id,
        entity_type as referrer_kind,
        entity_id as referrer_id
    from gate_dependencies
    -- a gate that names itself does not keep itself alive
    where entity_type <> 'gate' or referenced_gate_id <> entity_id
),

from_holdouts as (
    select
        holdouts.project,
        holdout_gates.gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        holdouts.holdout_id as referrer_id
    from holdouts
    inner join holdout_gates
        {{ join_on('holdout_gates', 'holdouts', 'holdout_row_id') }}

    union all

    select
        holdouts.project,
        holdouts.targeting_gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        holdouts.holdout_id as referrer_id
    from holdouts
    where holdouts.targeting_gate_id is not null

    union all

    -- a gate's own holdoutIDs: the holdout applies to it, even when the holdout itself was not loaded
    select
        gates.project,
        gates.gate_id as referenced_gate_id,
        'holdout' as referrer_kind,
        gate_holdouts.holdout_id as referrer_id
    from gates
    inner join gate_holdouts
        {{ join_on('gate_holdouts', 'gates', 'gate_version_id') }}
),

all_references as (
    select * from from_gates_and_configs
    {{ union_distinct() }}
    select * from from_holdouts
),

final as (
    select
        all_references.project,
        all_references.referenced_gate_id,
        all_references.referrer_kind,
        all_references.referrer_id
    from all_references
    inner join gates
        {{ join_on('gates', 'all_references', 'gate_id = referenced_gate_id') }}
)

select * from final
