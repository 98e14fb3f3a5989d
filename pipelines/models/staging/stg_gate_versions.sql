-- grain: one row per version of a gate, the whole scd2 history; key: project, gate_version_id
{#
From `console.gates`: `gate_version_id` ← `_dlt_id`, with `~1`, `~2` on a later row of the same content (a gate that
returned to an earlier content shares that row's `_dlt_id`: macros/entity_kinds.sql `version_key`); `gate_id` ← `id`; `gate_name` ← `name`; `description`;
`id_type`; `status` (`In Progress`, `Launched`, `Disabled`, `Archived`); `gate_type` ← `type` (TEMPORARY, PERMANENT,
STALE, TEMPLATE); `type_reason`; `is_enabled`; `checks_per_hour` (double; null when the console gives none); `team`;
`owner_id`, `owner_name`, `owner_type`, `owner_email` ← `owner__owner_*`; `requires_review` ←
`review_settings__required_review`; `measure_metric_lifts`; `version`; `created_at` ← `created_time`; `creator_id`,
`creator_name`, `creator_email`; `last_modified_at` ← `last_modified_time`; `last_modifier_id`,
`last_modifier_name`, `last_modifier_email`; `valid_from` ← `_dlt_valid_from`; `valid_to` ← `_dlt_valid_to`;
`is_current` (`valid_to` is null); `load_id` ← `_dlt_load_id`.
#}
{% from 'macros/entity_kinds.sql' import version_identity, version_owner, version_history %}
select
    versions.project,
    {{ version_identity('gate') }},
    versions.type as gate_type,
    versions.type_reason,
    versions.is_enabled,
    -- a count that once held a fraction lands in dlt's variant column
    cast(coalesce(versions.checks_per_hour__v_double, versions.checks_per_hour) as {{ double_type() }}) as checks_per_hour,
    versions.team,
    {{ version_owner() }},
    versions.review_settings__required_review as requires_review,
    versions.measure_metric_lifts,
    {{ version_history() }}
from {{ source('gates') }} as versions
