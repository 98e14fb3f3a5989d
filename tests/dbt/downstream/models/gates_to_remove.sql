-- grain: one row per stale gate whose flag can be removed from the code now; key: project, gate_id
with stale_gates as (
    select * from {{ ref('stale_gates') }}
),

final as (
    select
        project,
        gate_id,
        gate_name,
        owner_email,
        type_reason,
        recommended_action
    from stale_gates
    where staleness in ('marked stale', 'meets stale rules')
        and recommended_action like 'remove the flag%'
)

select * from final
