-- grain: one row per live dynamic config, its current scd2 version; key: config_id
select
    *
from analytics.stg_dynamic_config_versions
where is_current
