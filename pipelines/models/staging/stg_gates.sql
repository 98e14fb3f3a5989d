-- grain: one row per live gate, its current scd2 version; key: project, gate_id
{#
The rows of `stg_gate_versions` with `is_current`, same columns.
#}
select
    *
from {{ ref('stg_gate_versions') }}
where is_current
