-- grain: one row per experiment and day of its current sample-ratio test; key: project, experiment_id, test_date
{#
From `exposure_daily`, `exposure_srm_expected_shares` (the expected split) and `view_parameters`: the sequential sample-ratio mismatch test of
Lindon & Malek ("Anytime-Valid Inference for Multinomial Count Data", NeurIPS 2022), day by day over each experiment's
cumulative counts. Against the expected split θ (`exposure_srm_expected_shares`: `srm_expected_weights`, else equal shares), with a
Dirichlet prior of concentration c (`srm_prior_concentration`, α = cθ), the Bayes factor of the counts x since the
test started (n in all) is

    BF = [B(α + x) / B(α)] / Πθᵢ^xᵢ,   B(a) = ΠΓ(aᵢ) / Γ(Σaᵢ),

a test martingale under the expected split: `sequential_p_value` = min(1, 1 / max BF over the test's days so far) is
valid however often it is read (Ville's inequality), and it never rises again, so a mismatch once detected stays
detected for that test. It depends on cumulative counts alone, which is what the console gives. ln BF is formed as
Σᵢ[xᵢ ln(zᵢ / (Zθᵢ)) + αᵢ ln(zᵢ / Z) − ½ ln zᵢ + R(zᵢ) − ln Γ(αᵢ)] + ½ ln Z − R(Z) + ln Γ(c), with zᵢ = αᵢ + xᵢ,
Z = c + n and R Stirling's remainder (`macros/log_gamma.sql`): the same value without differences of large numbers.

The test starts on the day the last of the experiment's current groups appeared (a new group restarts it, counted
from that day on); a changed expected split applies to the whole test, which is then a new test of the new split.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id` | the experiment |
| `test_started_on` | the first day of the test: the day its last group appeared |
| `restarted` | the test started after the experiment's first day (a group was added) |
| `test_date` | the day |
| `group_count` | groups in the test |
| `test_exposures` | exposures of every group since the test started, up to that day |
| `log_bayes_factor` | ln BF that day |
| `sequential_p_value` | min(1, exp(−max ln BF so far)) |
| `p_value_threshold` | `srm_p_value_threshold` |
| `srm_detected` | `sequential_p_value < p_value_threshold` |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/log_gamma.sql' import log_gamma, stirling_remainder %}
{% from 'macros/imports.sql' import imports %}
with {{ imports(daily='exposure_daily', expected_shares='exposure_srm_expected_shares') }},

parameters as (
    {{ view_parameters('srm_p_value_threshold', 'srm_prior_concentration') }}
),

spans as (
    -- windows over one read of the days, not joins back to them: PostgreSQL, which cannot size these CTEs, chose
    -- nested loops that computed the days again once per row
    select
        daily.*,
        min(exposure_date) over (partition by project, experiment_id, group_id) as group_first_date,
        max(exposure_date) over (partition by project, experiment_id, group_id) as group_last_date,
        min(exposure_date) over (partition by project, experiment_id) as first_date,
        max(exposure_date) over (partition by project, experiment_id) as last_date
    from daily
),

current_groups as (
    -- the groups of the experiment's last day (each with the day it first appeared), marked on each of their days
    select
        spans.*,
        case when group_last_date = last_date then group_first_date end as current_group_first_date,
        count(case when exposure_date = last_date then 1 end) over (partition by project, experiment_id) as group_count
    from spans
),

tests as (
    select
        current_groups.*,
        max(current_group_first_date) over (partition by project, experiment_id) as test_started_on,
        max(current_group_first_date) over (partition by project, experiment_id) > first_date as restarted
    from current_groups
    where group_count >= 2
),

test_days as (
    -- each group's count the day before the test, spread over the group's days by a window, not a join back to it
    select
        tests.*,
        max(case when exposure_date = {{ add_days('test_started_on', -1) }} then cumulative_exposures end) over (
            partition by project, experiment_id, group_id
        ) as before_test_exposures
    from tests
),

counts as (
    -- each group's exposures since the test started: its count less the count the day before the test
    select
        test_days.project,
        test_days.experiment_id,
        test_days.test_started_on,
        test_days.restarted,
        test_days.group_count,
        test_days.group_id,
        test_days.exposure_date as test_date,
        expected_shares.expected_share,
        greatest(test_days.cumulative_exposures - coalesce(test_days.before_test_exposures, 0), 0) as test_count
    from test_days
    inner join expected_shares
        {{ join_on('expected_shares', 'test_days', 'experiment_id', 'group_id') }}
    where test_days.exposure_date >= test_days.test_started_on
),

group_terms as (
    select
        counts.*,
        parameters.srm_prior_concentration * counts.expected_share as prior_weight,
        parameters.srm_prior_concentration * counts.expected_share + counts.test_count as posterior,
        parameters.srm_prior_concentration + sum(counts.test_count) over (
            partition by counts.project, counts.experiment_id, counts.test_date
        ) as posterior_total
    from counts
    cross join parameters
),

group_contributions as (
    select
        project,
        experiment_id,
        test_started_on,
        restarted,
        group_count,
        group_id,
        test_date,
        test_count,
        posterior_total,
        test_count * ln(posterior / (posterior_total * expected_share))
            + prior_weight * ln(posterior / posterior_total)
            - 0.5 * ln(posterior)
            + {{ stirling_remainder('posterior') }}
            - {{ log_gamma('prior_weight') }} as contribution
    from group_terms
),

ordered_sums as (
    -- summed group by group in one order: the same value whatever order the warehouse reads the rows in
    select
        group_contributions.*,
        sum(contribution) over (
            partition by project, experiment_id, test_date
            order by group_id
            rows between unbounded preceding and current row
        ) as contribution_sum,
        sum(test_count) over (
            partition by project, experiment_id, test_date
            order by group_id
            rows between unbounded preceding and current row
        ) as exposures_so_far,
        row_number() over (partition by project, experiment_id, test_date order by group_id desc) as from_last
    from group_contributions
),

bayes_factors as (
    select
        ordered_sums.project,
        ordered_sums.experiment_id,
        ordered_sums.test_started_on,
        ordered_sums.restarted,
        ordered_sums.group_count,
        ordered_sums.test_date,
        ordered_sums.exposures_so_far as test_exposures,
        ordered_sums.contribution_sum + 0.5 * ln(ordered_sums.posterior_total)
            - {{ stirling_remainder('ordered_sums.posterior_total') }}
            + concentration.log_gamma_concentration as log_bayes_factor
    from ordered_sums
    cross join (
        select {{ log_gamma('srm_prior_concentration') }} as log_gamma_concentration from parameters
    ) as concentration
    where ordered_sums.from_last = 1
),

running as (
    select
        bayes_factors.*,
        max(log_bayes_factor) over (
            partition by project, experiment_id
            order by test_date
            rows between unbounded preceding and current row
        ) as max_log_bayes_factor
    from bayes_factors
),

final as (
    select
        running.project,
        running.experiment_id,
        running.test_started_on,
        running.restarted,
        running.test_date,
        running.group_count,
        cast(running.test_exposures as bigint) as test_exposures,
        running.log_bayes_factor,
        case
            when running.max_log_bayes_factor <= 0 then 1.0
            else exp(-running.max_log_bayes_factor)
        end as sequential_p_value,
        parameters.srm_p_value_threshold as p_value_threshold,
        running.max_log_bayes_factor > -ln(parameters.srm_p_value_threshold) as srm_detected
    from running
    cross join parameters
)

select * from final
