-- grain: one row per live dynamic config, its current scd2 version; key: project, config_id
{#
The current rows of `stg_dynamic_config_versions`.
#}
select
    *
from {{ ref('stg_dynamic_config_versions') }}
where is_current
