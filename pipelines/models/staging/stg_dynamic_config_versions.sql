-- grain: one row per version of a dynamic config, the whole scd2 history; key: project, config_version_id
{#
From `console.dynamic_configs`: `config_version_id` ← `_dlt_id` (`~1`, `~2` on a later row of the same content, as for
gates); `config_id` ← `id`; `config_name` ← `name`;
`description`; `id_type`; `status`; `is_enabled`; `is_template`; `team`; `team_id`; `owner_id`, `owner_name`,
`owner_type`, `owner_email` ← `owner__owner_*`; `release_pipeline_id`; `default_value` (the JSON as text);
`version`; `created_at`; `creator_id`, `creator_name`, `creator_email`; `last_modified_at`; `last_modifier_id`,
`last_modifier_name`, `last_modifier_email`; `valid_from`; `valid_to`; `is_current`; `load_id` (as for gates).
#}
{% from 'macros/entity_kinds.sql' import version_identity, version_owner, version_history %}
select
    versions.project,
    {{ version_identity('dynamic_config') }},
    versions.is_enabled,
    versions.is_template,
    versions.team,
    versions.team_id,
    {{ version_owner() }},
    versions.release_pipeline_id,
    cast(versions.default_value as {{ string_type() }}) as default_value,
    {{ version_history() }}
from {{ source('dynamic_configs') }} as versions
