-- grain: one row per live gate: the one judgement every list, alert and cleanup reads, with its evidence; key: project, gate_id
{#
From `gate_staleness` (today's state and the console's stale rules), `int_gate_answers` (the answer of every
version gatehouse loaded), `int_gate_code_evidence` and `stg_code_reference_scans` (every code scan), `stg_extraction_runs`,
`int_gate_snoozes`, `as_of` and `view_parameters`. docs/gate-lifecycle.md tells how a gate moves from stage to stage, with a timeline.

**Held since.** A version's answer changes with its status, enabled flag, or rules (position, id, pass percentage,
audience); a change of description, owner or checks per hour leaves it. `held_since` is when the current answer
began: the console's `last_modified_at` of the version that brought it, never earlier than the last run
(`stg_extraction_runs`) before the load that found it, which still saw the version before it. For the first version gatehouse loaded, its `last_modified_at`: the console changed nothing
since, so the answer held at least that long.

**Stages**, in this order (the first that applies):

| stage | when |
|---|---|
| `archived` | the console archived it |
| `in use` | permanent; or referenced by holdouts, configs or gates, or answering users differently, and not stale by the console's rules |
| `needs a person` | stale by the console's rules but referenced by holdouts, configs or gates, or answering users differently; or one answer that the console's own stale reason contradicts |
| `ready: archive in the console` | nothing checks it (`checks_per_hour` 0 or null) and no repository references it, every repository's last scan complete and recent; never while a scanned repository references it, nor before any scan |
| `approaching` | one answer to every user, for fewer than `ready_after_days` days; `ready_on` is the day it becomes ready if nothing changes |
| `ready: remove from code` | one answer for `ready_after_days` or more: its checks can become `cleanup_value` wherever the code holds them (a gate still checked that no scanned repository has ever referenced is here too, its action saying so: the value is known, where the code is is not) |
| `removed from code` | one answer, no repository references it any more (complete, recent scans), but it is still checked at run time: deploys pending or code that is not scanned |

| column | meaning |
|---|---|
| `project`, `gate_id`, `gate_name`, `status`, `gate_type`, `is_enabled`, `rollout_state`, `checks_per_hour`, `created_at`, `owner_name`, `owner_email`, `team`, `referencing_holdout_ids`, `referencing_config_ids`, `referencing_gate_ids` | from `current_gates` |
| `staleness`, `type_reason`, `type_reason_source` | the console's stale rules today (`gate_staleness`); `type_reason` is the console's reason or the one its rules predict |
| `stage`, `stage_rank` | the judgement above; rank 1 `ready: remove from code`, 2 `ready: archive in the console`, 3 `needs a person`, 4 `removed from code`, 5 `approaching`, 6 `in use`, 7 `archived` |
| `cleanup_value` | `true` or `false`: what every check returns and what `gatehouse cleanup` writes in its place; set only at `ready: remove from code` |
| `answer`, `answer_reason` | what every user gets today, and why (null: its rules pass some users only) |
| `decision` | why this stage: the value and how long it held, or why a person must decide |
| `action` | what to do, in one sentence: the worklist's, the CSV's, the summary's and the alerts' |
| `held_since`, `days_at_value` | when the current answer began; whole days since, to the project's "as of" (null while users get different answers) |
| `ready_on` | `approaching`: the day it becomes ready if nothing changes |
| `answer_changes_in_window` | changes of its answer's ingredients (status, enabled, rules) within `answer_change_window_days` |
| `answer_returns_in_window`, `answer_return_window_days` | the times within `answer_return_window_days` it left its present answer for the other (a partial rollout is neither): from 1, it came back to its answer, and a person decides |
| `checks_per_hour_before`, `checks_trend` | checks per hour `checks_trend_days` ago, by the console's clock (a version holds from the run that loaded it to the run that loaded the next), and `never checked`, `stopped`, `falling` (below half), `rising` (above double), `steady`, or null before gatehouse loaded it then |
| `first_loaded_at`, `last_changed_at` | the first load of the gate (the console's clock at its run), and the console's last change of it |
| `is_code_scanned` | some repository has been scanned |
| `code_reference_count`, `referencing_repositories`, `code_owners`, `last_referenced_at` | from `int_gate_code_evidence`: `code_owners` are the CODEOWNERS of the files that check it, to route the gate to beside its console owner |
| `missing_repositories` | repositories whose last scan is older than `code_scan_max_age_days` before the project's "as of", skipped files that could hold a reference, or predates gatehouse's record of that (`is_complete` null): their silence is no evidence |
| `gone_from_code_since` | no repository references it now, though one did: the first scan that no longer found it (`int_gate_code_evidence`) |
| `snoozed_until`, `snooze_reason`, `is_snoozed` | the snooze in force (`gatehouse gates snooze`, `int_gate_snoozes`): out of the worklist and the alerts while `snoozed_until` is later than the "as of" date (or the day the snooze was written) |
| `on_worklist` | a person has something to do: every stage but `in use`, `archived`, and `approaching` more than `stale_warning_days` from ready; never while snoozed |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/joins.sql' import join_on, left_joins %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(gates='gate_staleness', answers='int_gate_answers', code_evidence='int_gate_code_evidence',
                code_scans='stg_code_reference_scans', extraction_runs='stg_extraction_runs', as_of='as_of') }},

snoozes as (
    select * from {{ ref('int_gate_snoozes') }}
    where is_latest
),

parameters as (
    {{ view_parameters('ready_after_days', 'answer_change_window_days', 'checks_trend_days', 'code_scan_max_age_days',
                       'stale_warning_days', 'answer_return_window_days') }}
),

versions as (
    select
        answers.*,
        (answers.answer_fingerprint is distinct from lag(answers.answer_fingerprint) over (
            partition by answers.project, answers.gate_id order by answers.valid_from, answers.gate_version_id
        )) as is_answer_change,
        lag(answers.valid_from) over (
            partition by answers.project, answers.gate_id order by answers.valid_from, answers.gate_version_id
        ) as previous_seen_at
    from answers
),

sightings as (
    -- when each run saw the console, by the console's clock
    select
        project,
        load_id,
        coalesce(service_time, finished_at) as seen_at
    from extraction_runs
),

answer_timeline as (
    -- each answer change among the runs, in load order, with the latest sighting by a run loaded before it: a
    -- running max over one ordered pass, not a join on `load_id <`, which PostgreSQL ran as nested loops
    select
        project,
        load_id,
        0 as is_sighting,
        gate_id,
        gate_version_id,
        previous_seen_at,
        last_modified_at,
        valid_from,
        null as seen_at
    from versions
    where is_answer_change

    union all

    select
        project,
        load_id,
        1 as is_sighting,
        null as gate_id,
        null as gate_version_id,
        null as previous_seen_at,
        null as last_modified_at,
        null as valid_from,
        seen_at
    from sightings
),

answer_seen as (
    select
        answer_timeline.*,
        -- a sighting of the same load comes after the change (ordered last): only earlier loads count
        max(seen_at) over (
            partition by project
            order by load_id, is_sighting
            rows between unbounded preceding and current row
        ) as seen_before
    from answer_timeline
),

answer_changes as (
    select
        project,
        gate_id,
        -- the console's date of the change, but never before a run that still saw the version before it: a change
        -- between two runs happened after the first of them
        case
            when previous_seen_at is null then coalesce(last_modified_at, valid_from)
            else greatest(
                coalesce(last_modified_at, valid_from),
                coalesce(max(seen_before), previous_seen_at)
            )
        end as changed_at,
        previous_seen_at is not null as is_later_change
    from answer_seen
    where is_sighting = 0
    group by project, gate_id, gate_version_id, previous_seen_at, last_modified_at, valid_from
),

history as (
    select
        answer_changes.project,
        answer_changes.gate_id,
        max(answer_changes.changed_at) as held_since,
        count(
            case
                when answer_changes.is_later_change
                    and {{ epoch_seconds('as_of.as_of_at') }} - {{ epoch_seconds('answer_changes.changed_at') }}
                    < parameters.answer_change_window_days * 86400 then 1
            end
        ) as answer_changes_in_window
    from answer_changes
    inner join as_of
        on as_of.project = answer_changes.project
    cross join parameters
    group by answer_changes.project, answer_changes.gate_id
),

answer_stretches as (
    -- where each stretch of one answer to every user began, a partial rollout between two of them aside: off, 50%,
    -- off again is one stretch (a rollout tried and rolled back); off, on, off again is two
    select
        project,
        gate_id,
        answer,
        -- by the console's clock, as the answer's changes are dated (the load's own clock is another machine's)
        coalesce(last_modified_at, valid_from) as began_at,
        lag(answer) over (partition by project, gate_id order by valid_from, gate_version_id) as previous_answer
    from answers
    where answer is not null
),

answer_returns as (
    -- the gate's answer left for the other one within `answer_return_window_days` (its answer's first stretch
    -- aside): if today's answer is the one it left, the gate came back to it (off, on, off again), a switch in use
    -- or an undecided rollout, whatever the length of its last stretch: it may change again, so it is never ready
    select
        answer_stretches.project,
        answer_stretches.gate_id,
        answer_stretches.previous_answer as left_answer,
        count(*) as stretches
    from answer_stretches
    inner join as_of
        on as_of.project = answer_stretches.project
    cross join parameters
    where answer_stretches.answer <> answer_stretches.previous_answer
        and {{ epoch_seconds('answer_stretches.began_at') }}
        >= {{ epoch_seconds('as_of.as_of_at') }} - parameters.answer_return_window_days * 86400
    group by answer_stretches.project, answer_stretches.gate_id, answer_stretches.previous_answer
),

load_runs as (
    -- the run that made each load of versions: a run writes its own row last, in a load of its own, so its row is
    -- the first at or after the load (a load whose run never wrote its row, a failed run, takes the next run's)
    select
        loads.project,
        loads.load_id,
        min(sightings.load_id) as run_load_id
    from (select distinct project, load_id from answers) as loads
    inner join sightings
        on sightings.project = loads.project
        and sightings.load_id >= loads.load_id
    group by loads.project, loads.load_id
),

version_times as (
    -- each version's time by the console's clock, as the answer's changes are dated: from the run that loaded it
    -- to the run that loaded the next (dlt stamps a version with the loading machine's clock, which under the
    -- twin's time travel is days apart from the console's); a load no run recorded keeps dlt's stamps
    select
        versions.project,
        versions.gate_id,
        versions.checks_per_hour,
        coalesce(sightings.seen_at, versions.valid_from) as seen_from,
        case when versions.valid_to is not null then coalesce(
            lead(coalesce(sightings.seen_at, versions.valid_from)) over (
                partition by versions.project, versions.gate_id order by versions.valid_from, versions.gate_version_id
            ),
            versions.valid_to
        ) end as seen_to
    from versions
    left join load_runs
        {{ join_on('load_runs', 'versions', 'load_id') }}
    left join sightings
        {{ join_on('sightings', 'load_runs', 'load_id = run_load_id') }}
),

checks_before as (
    -- the version that was current `checks_trend_days` before the "as of"
    select
        version_times.project,
        version_times.gate_id,
        min(version_times.seen_from) over (partition by version_times.project, version_times.gate_id) as first_loaded_at,
        case
            when {{ epoch_seconds('version_times.seen_from') }}
                <= {{ epoch_seconds('as_of.as_of_at') }} - parameters.checks_trend_days * 86400
                and (version_times.seen_to is null
                    or {{ epoch_seconds('version_times.seen_to') }}
                    > {{ epoch_seconds('as_of.as_of_at') }} - parameters.checks_trend_days * 86400)
                then 1
        end as is_then,
        coalesce(version_times.checks_per_hour, 0) as checks_per_hour
    from version_times
    inner join as_of
        on as_of.project = version_times.project
    cross join parameters
),

loaded as (
    select
        project,
        gate_id,
        min(first_loaded_at) as first_loaded_at,
        max(case when is_then = 1 then checks_per_hour end) as checks_per_hour_before
    from checks_before
    group by project, gate_id
),

latest_scans as (
    select
        repository,
        scanned_at as last_scanned_at,
        -- a scan from before gatehouse recorded completeness may have skipped an unreadable file it did not count:
        -- its silence is no evidence of absence until the repository is scanned again
        coalesce(is_complete, false) as is_complete
    from code_scans
    where is_latest
),

scan_coverage as (
    select
        as_of.project,
        count(latest_scans.repository) > 0 as is_code_scanned,
        {% call string_agg("', '", "latest_scans.repository") %}
            case
                when not latest_scans.is_complete
                    or {{ epoch_seconds('latest_scans.last_scanned_at') }}
                    < {{ epoch_seconds('as_of.as_of_at') }} - parameters.code_scan_max_age_days * 86400
                    then latest_scans.repository
            end
        {% endcall %} as missing_repositories
    from as_of
    cross join parameters
    left join latest_scans
        on true
    group by as_of.project
),

evidence as (
    select
        gates.*,
        cast(floor(({{ epoch_seconds('as_of.as_of_at') }} - {{ epoch_seconds('history.held_since') }}) / 86400) as integer)
            as days_held,
        history.held_since,
        history.answer_changes_in_window,
        coalesce(answer_returns.stretches, 0) as answer_returns_in_window,
        parameters.answer_return_window_days,
        loaded.first_loaded_at,
        loaded.checks_per_hour_before,
        scan_coverage.is_code_scanned,
        scan_coverage.missing_repositories,
        coalesce(code_evidence.code_reference_count, 0) as code_reference_count,
        code_evidence.referencing_repositories,
        code_evidence.code_owners,
        code_evidence.last_referenced_at,
        as_of.as_of_date,
        parameters.ready_after_days,
        parameters.stale_warning_days as worklist_warning_days,
        -- the console's stale reason, as the answer it implies: only the service's own can contradict the state
        case
            when gates.type_reason_source <> 'service' then null
            when gates.stale_reason in ('STALE_PROBABLY_LAUNCHED', 'STALE_ALL_TRUE') then true
            when gates.stale_reason in ('STALE_PROBABLY_UNLAUNCHED', 'STALE_ALL_FALSE', 'STALE_NO_RULES') then false
        end as reason_answer,
        gates.referenced_by_count > 0 as is_referenced_in_console,
        scan_coverage.is_code_scanned and scan_coverage.missing_repositories is null
        and coalesce(code_evidence.code_reference_count, 0) = 0 as is_absent_from_code,
        code_evidence.gone_from_code_since,
        snoozes.snoozed_until,
        snoozes.snooze_reason,
        coalesce(snoozes.snoozed_until > greatest(as_of.as_of_date, cast(snoozes.snoozed_at as date)), false) as is_snoozed
    from gates
    cross join parameters
    -- outer joins kept as inner ones by a filter PostgreSQL cannot see through (the same rows): it sizes an inner join
    -- on (project, key) or to the one-row-a-project `as_of` at one row, then reads the gates once per gate
    left join as_of
        on as_of.project = gates.project
    {{ left_joins('gates', 'gate_id', 'history', 'loaded', 'snoozes') }}
    left join answer_returns
        {{ join_on('answer_returns', 'gates', 'gate_id') }}
        and answer_returns.left_answer = gates.answer
    left join scan_coverage
        on scan_coverage.project = gates.project
    left join code_evidence
        on code_evidence.gate_id = gates.gate_id
    where coalesce(
        as_of.project is not null and history.gate_id is not null and loaded.gate_id is not null
        and scan_coverage.project is not null,
        false
    )
),

staged as (
    select
        evidence.*,
        -- in whole numbers: a double's text differs between warehouses
        case
            when checks_per_hour < 1 then 'checked less than once an hour'
            else 'checked ' || cast(cast(round(checks_per_hour) as bigint) as {{ string_type() }}) || ' times an hour'
        end as checked_words,
        case
            when status = 'Archived' then 'archived'
            when gate_type = 'PERMANENT' then 'in use'
            when is_referenced_in_console or answer is null then
                case
                    when is_referenced_in_console and staleness in ('marked stale', 'meets stale rules') then 'needs a person'
                    when is_referenced_in_console then 'in use'
                    when not is_checked and is_absent_from_code then 'ready: archive in the console'
                    when staleness in ('marked stale', 'meets stale rules') then 'needs a person'
                    else 'in use'
                end
            when reason_answer is not null and reason_answer <> answer then 'needs a person'
            when answer_returns_in_window >= 1 then 'needs a person'
            when days_held < ready_after_days then 'approaching'
            when not is_absent_from_code then 'ready: remove from code'
            when not is_checked then 'ready: archive in the console'
            when last_referenced_at is not null then 'removed from code'
            -- checked, but no scanned repository ever held it: the value is known, where the code is is not
            else 'ready: remove from code'
        end as stage
    from evidence
),

explained as (
    select
        staged.*,
        case when stage = 'ready: remove from code' then answer end as cleanup_value,
        case when stage = 'approaching' then {{ add_days('cast(held_since as date)', 'cast(ready_after_days as integer)') }} end
            as ready_on,
        case
            -- each kind of referrer there is after ' and ', less the first ' and '
            when stage = 'needs a person' and is_referenced_in_console then 'still referenced by ' || substr(
                coalesce(' and holdouts ' || referencing_holdout_ids, '')
                || coalesce(' and configs ' || referencing_config_ids, '')
                || coalesce(' and gates ' || referencing_gate_ids, ''),
                6
            )
            when stage = 'needs a person' and answer is null and stale_reason = 'STALE_PROBABLY_FORGOTTEN'
                then 'forgotten: partly rolled out for a long time; finish or roll back the rollout'
            when stage = 'needs a person' and answer is null
                then 'its rules pass some users only; finish or roll back the rollout'
            when stage = 'needs a person' and reason_answer <> answer
                then {{ text_literal("the console's reason (") }} || stale_reason
                    || ') and its state (' || answer_reason || ') disagree'
            when stage = 'needs a person' and answer_returns_in_window >= 1
                then 'it came back to ' || case when answer then 'passing' else 'failing' end || ' every user after '
                || case when answer then 'failing' else 'passing' end || ' them '
                || cast(answer_returns_in_window as {{ string_type() }}) || ' time(s) in '
                || cast(cast(answer_return_window_days as integer) as {{ string_type() }})
                || ' days: a switch in use (declare it permanent) or a rollout not yet decided'
        end as person_reason
    from staged
),

final as (
    select
        project,
        gate_id,
        gate_name,
        stage,
        case stage
            when 'ready: remove from code' then 1
            when 'ready: archive in the console' then 2
            when 'needs a person' then 3
            when 'removed from code' then 4
            when 'approaching' then 5
            when 'in use' then 6
            else 7
        end as stage_rank,
        cleanup_value,
        answer,
        answer_reason,
        case stage
            when 'archived' then 'archived in the console'
            when 'in use' then case
                when gate_type = 'PERMANENT' then 'permanent'
                when is_referenced_in_console then 'referenced by holdouts, configs or gates in the console'
                else 'its rules pass some users only'
            end
            when 'needs a person' then person_reason
            when 'approaching' then answer_reason || ' since ' || cast(cast(held_since as date) as {{ string_type() }})
                || ' (' || cast(days_held as {{ string_type() }}) || ' days); ready on ' || cast(ready_on as {{ string_type() }})
                || ' if nothing changes'
            when 'ready: archive in the console' then case
                when answer is null then 'nothing checks it and no scanned repository references it'
                else answer_reason || '; nothing checks it and no scanned repository references it'
            end
            when 'removed from code' then 'gone from every scanned repository since '
                || coalesce(cast(cast(gone_from_code_since as date) as {{ string_type() }}), 'its last scans')
                || ', still ' || checked_words
                || ': deploys pending, or code not scanned'
            else answer_reason || ' since ' || cast(cast(held_since as date) as {{ string_type() }})
                || ' (' || cast(days_held as {{ string_type() }}) || ' days)'
        end as decision,
        case stage
            when 'ready: remove from code' then
                case when answer then 'remove the flag from the code and keep the path it enables'
                    else 'remove the flag from the code and delete the path it guards'
                end
                || case
                    when not is_code_scanned then ', wherever the code checks it (no repository scanned yet)'
                    when referencing_repositories is not null then ' (' || referencing_repositories || ')'
                    else ', wherever the code checks it (referenced in no scanned repository)'
                end
            when 'ready: archive in the console' then 'archive it in the console: no code references it and nothing checks it'
            when 'needs a person' then 'ask the owner: ' || person_reason
            when 'removed from code' then 'wait until nothing checks it, then archive it in the console'
            when 'approaching' then 'nothing yet: ready on ' || cast(ready_on as {{ string_type() }}) || ' if nothing changes'
            when 'in use' then 'nothing: in use'
            else 'nothing: archived'
        end as action,
        held_since,
        case when answer is not null then days_held end as days_at_value,
        ready_on,
        answer_changes_in_window,
        answer_returns_in_window,
        checks_per_hour,
        checks_per_hour_before,
        case
            when first_loaded_at is null or checks_per_hour_before is null then null
            when coalesce(checks_per_hour, 0) = 0 and checks_per_hour_before = 0 then 'never checked'
            when coalesce(checks_per_hour, 0) = 0 then 'stopped'
            when checks_per_hour < checks_per_hour_before / 2 then 'falling'
            when checks_per_hour > checks_per_hour_before * 2 then 'rising'
            else 'steady'
        end as checks_trend,
        created_at,
        first_loaded_at,
        last_modified_at as last_changed_at,
        staleness,
        stale_reason as type_reason,
        type_reason_source,
        status,
        gate_type,
        is_enabled,
        rollout_state,
        owner_name,
        owner_email,
        team,
        referencing_holdout_ids,
        referencing_config_ids,
        referencing_gate_ids,
        is_code_scanned,
        code_reference_count,
        referencing_repositories,
        code_owners,
        last_referenced_at,
        missing_repositories,
        case when is_absent_from_code then gone_from_code_since end as gone_from_code_since,
        snoozed_until,
        snooze_reason,
        is_snoozed,
        not is_snoozed
        and stage not in ('in use', 'archived')
        and (stage <> 'approaching' or ready_on <= {{ add_days('as_of_date', 'cast(worklist_warning_days as integer)') }})
            as on_worklist
    from explained
)

select * from final
