-- grain: one row per change in a dynamic config's scd2 history (first seen, modified, retired, restored); key: project, config_id, observed_at
{#
As `gate_changes`, the configs' rows of `int_entity_changes`, with `project`, `config_id`, `config_name`, `change_kind`,
`observed_at`, `changed_at`, `changed_by`, `changed_fields` (among `name`, `description`, `status`, `is_enabled`,
`default_value`, `rules` — including return values and variants —, `holdouts`, `owner`, `team`, `release_pipeline`),
`previous_version`, `version`, `previous_status`, `status`, `previous_is_enabled`, `is_enabled`,
`previous_default_value`, `default_value`, `previous_rule_count`, `rule_count`, `config_version_id`.
#}
{% from 'macros/entity_kinds.sql' import changes_of_kind %}
{{ changes_of_kind('dynamic_config', ['version', 'status', 'is_enabled', 'default_value', 'rule_count']) }}
