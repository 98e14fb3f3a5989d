-- grain: one row per change in a dynamic config's scd2 history (first seen, modified, retired, restored); key: project, config_id, observed_at
{#
As `gate_changes`, the configs' rows of `int_entity_changes`: a row per version, and a `retired` row per version that
closed without a successor.

| column | meaning |
|---|---|
| `project` | the console |
| `config_id`, `config_name` | the dynamic config |
| `change_kind` | `first seen`, `modified`, `retired` or `restored`, as in `gate_changes` |
| `observed_at` | when gatehouse saw the change: the version's `valid_from`, or `valid_to` for `retired` |
| `changed_at`, `changed_by` | the console's `lastModifiedTime` and `lastModifierName` of the version; null for `retired` |
| `changed_fields` | for `modified`/`restored`: which of `name`, `description`, `status`, `is_enabled`, `default_value`, `rules` (return values and variants included), `holdouts`, `owner`, `team`, `release_pipeline` differ from the previous version; `other` when none of those did |
| `previous_version`, `version`, `previous_status`, `status`, `previous_is_enabled`, `is_enabled`, `previous_default_value`, `default_value`, `previous_rule_count`, `rule_count` | before and after; for `retired` the "after" side is null |
| `config_version_id` | the version the row is about |
#}
{% from 'macros/entity_kinds.sql' import changes_of_kind %}
{{ changes_of_kind('dynamic_config', ['version', 'status', 'is_enabled', 'default_value', 'rule_count']) }}
