-- grain: one row per change in a gate's scd2 history (first seen, modified, retired, restored); key: project, gate_id, observed_at
{#
The gates' rows of `int_entity_changes`, which compares each version of a gate or config with the one before it: a
row per version, and a `retired` row per version that closed without a successor.

| column | meaning |
|---|---|
| `project` | the console |
| `gate_id`, `gate_name` | the gate |
| `change_kind` | `first seen` (its first version loaded), `modified` (a new version replaced the previous one), `retired` (a version closed with no successor: the gate left the list), `restored` (a version after a retirement) |
| `observed_at` | when gatehouse saw the change: the version's `valid_from`, or `valid_to` for `retired` |
| `changed_at`, `changed_by` | the console's `lastModifiedTime` and `lastModifierName` of the version (a change the console makes itself, such as marking a gate stale, keeps them); null for `retired` |
| `changed_fields` | for `modified`/`restored`: which of `name`, `description`, `status`, `type`, `type_reason`, `is_enabled`, `rules` (any rule added, removed, reordered, renamed, re-targeted or re-weighted), `holdouts`, `owner`, `team`, `checks_per_hour` differ from the previous version; `other` when none of those did |
| `previous_version`, `version`, `previous_status`, `status`, `previous_gate_type`, `gate_type`, `previous_type_reason`, `type_reason`, `previous_is_enabled`, `is_enabled`, `previous_rule_count`, `rule_count` | before and after; for `retired` the "after" side is null |
| `gate_version_id` | the version the row is about |
#}
{% from 'macros/entity_kinds.sql' import changes_of_kind %}
{{ changes_of_kind('gate', ['version', 'status', 'gate_type', 'type_reason', 'is_enabled', 'rule_count']) }}
