-- grain: one row per live gate, its current scd2 version; key: gate_id
select
    *
from analytics.stg_gate_versions
where is_current
