-- grain: one row per experiment; key: project, experiment_id
{#
From `exposure_daily` (each group's latest cumulative count), `exposure_srm_expected_shares` (the expected split), `exposure_srm_daily` (the sequential test) and `view_parameters`.

| column | meaning |
|---|---|
| `project` | the console |
| `experiment_id`, `group_count`, `total_exposures` | as above |
| `expected_split` | `configured` when every group has a weight in `srm_expected_weights`, else `even` |
| `chi_square` | Pearson's statistic, sum of (observed − expected)² / expected |
| `degrees_of_freedom` | `group_count − 1` |
| `chi_square_p_value` | the one-look test: the chi-square survival function at `chi_square`, computed in SQL by the closed forms of Abramowitz & Stegun 26.4.4/26.4.5 (a finite sum for even degrees of freedom; for odd ones `erfc` by the Numerical Recipes Chebyshev fit, relative error below 1.2e-7); valid for one look only: read every day, it raises false alarms far above its threshold. Null with fewer than two groups or no exposures |
| `srm_test` | the test the verdict uses: `sequential` (`exposure_srm_daily`), valid however often it is read |
| `p_value` | the sequential p-value on the last day (`exposure_srm_daily.sequential_p_value`); null with fewer than two groups |
| `p_value_threshold` | `srm_p_value_threshold` |
| `srm_detected` | `p_value < p_value_threshold`: once true it stays true for the test; false when there is nothing to test |
| `first_detected_on` | the first day of the test whose p-value was below the threshold |
| `test_started_on`, `restarted` | as `exposure_srm_daily`: a new group restarts the test from the day it appeared |
| `most_deviating_group_id`, `most_deviating_group_name`, `most_deviating_observed_share`, `most_deviating_expected_share` | the group whose observed share is furthest from its expected one |
#}
{% from 'macros/view_parameters.sql' import view_parameters %}
{% from 'macros/joins.sql' import join_on %}
{% from 'macros/imports.sql' import imports %}
with recursive {{ imports(daily='exposure_daily', expected_shares='exposure_srm_expected_shares') }},

parameters as (
    {{ view_parameters('srm_p_value_threshold') }}
),

last_dates as (
    select
        project,
        experiment_id,
        max(exposure_date) as last_date
    from daily
    group by project, experiment_id
),

observed as (
    select
        daily.project,
        daily.experiment_id,
        daily.group_id,
        daily.group_name,
        daily.cumulative_exposures as observed_exposures
    from daily
    inner join last_dates
        {{ join_on('last_dates', 'daily', 'experiment_id', 'last_date = exposure_date') }}
),

expected as (
    select
        observed.project,
        observed.experiment_id,
        observed.group_id,
        observed.group_name,
        observed.observed_exposures,
        expected_shares.expected_split,
        expected_shares.expected_share,
        sum(observed.observed_exposures) over (partition by observed.project, observed.experiment_id) as total_exposures
    from observed
    inner join expected_shares
        {{ join_on('expected_shares', 'observed', 'experiment_id', 'group_id') }}
),

contributions as (
    select
        expected.*,
        cast(observed_exposures as {{ double_type() }}) / nullif(total_exposures, 0) as observed_share,
        power(observed_exposures - expected_share * total_exposures, 2) / nullif(expected_share * total_exposures, 0)
            as chi_square_term,
        row_number() over (
            partition by project, experiment_id
            order by
                abs(cast(observed_exposures as {{ double_type() }}) / nullif(total_exposures, 0) - expected_share) desc,
                group_id
        ) as deviation_rank
    from expected
),

test_statistics as (
    select
        project,
        experiment_id,
        count(*) as group_count,
        cast(max(total_exposures) as bigint) as total_exposures,
        max(expected_split) as expected_split,
        sum(chi_square_term) as chi_square,
        count(*) - 1 as degrees_of_freedom,
        -- the one group ranked first, carried by the aggregate: a join back to it made PostgreSQL, which cannot
        -- size a ranked CTE, expect one row and recompute the p-values once per experiment
        max(case when deviation_rank = 1 then group_id end) as most_deviating_group_id,
        max(case when deviation_rank = 1 then group_name end) as most_deviating_group_name,
        max(case when deviation_rank = 1 then observed_share end) as most_deviating_observed_share,
        max(case when deviation_rank = 1 then expected_share end) as most_deviating_expected_share
    from contributions
    group by project, experiment_id
),

testable as (
    select
        *
    from test_statistics
    where degrees_of_freedom >= 1
        and total_exposures > 0
),

-- the chi-square survival function Q(x; k), term by term (Abramowitz & Stegun 26.4.4 and 26.4.5):
--   k even: exp(-x/2) * sum_{r=0}^{k/2-1} (x/2)^r / r!
--   k odd:  erfc(sqrt(x/2)) + sqrt(2/pi) * exp(-x/2) * sum_{r=1}^{(k-1)/2} x^(r-1/2) / (1*3*...*(2r-1))
series_terms as (
    select
        project,
        experiment_id,
        chi_square,
        degrees_of_freedom,
        1 as term_index,
        case when mod(degrees_of_freedom, 2) = 1 then sqrt(chi_square) else 1.0 end as term
    from testable
    where degrees_of_freedom >= 2

    union all

    select
        project,
        experiment_id,
        chi_square,
        degrees_of_freedom,
        term_index + 1 as term_index,
        case
            when mod(degrees_of_freedom, 2) = 1 then term * chi_square / (2 * term_index + 1)
            else term * (chi_square / 2) / term_index
        end as term
    from series_terms
    where term_index < floor(degrees_of_freedom / 2.0)
),

series_sums as (
    select
        project,
        experiment_id,
        sum(term) as term_sum
    from series_terms
    group by project, experiment_id
),

normal_tails as (
    -- erfc(sqrt(x/2)) by the Chebyshev fit of Numerical Recipes (erfcc), relative error below 1.2e-7, beside every
    -- experiment's statistics: the p-values are computed on the rows they belong to, not joined back to them (PostgreSQL
    -- sized that join at one row and nested it)
    select
        test_statistics.*,
        coalesce(degrees_of_freedom >= 1 and total_exposures > 0, false) as is_testable,
        case
            when degrees_of_freedom >= 1 and total_exposures > 0 then 1.0 / (1.0 + 0.5 * sqrt(chi_square / 2))
        end as t
    from test_statistics
),

p_values as (
    select
        normal_tails.*,
        case
            when not normal_tails.is_testable then null
            when mod(normal_tails.degrees_of_freedom, 2) = 0
                then exp(-normal_tails.chi_square / 2) * series_sums.term_sum
            else
                normal_tails.t * exp(
                    -normal_tails.chi_square / 2 - 1.26551223 + normal_tails.t * (1.00002368 + normal_tails.t * (0.37409196
                    + normal_tails.t * (0.09678418 + normal_tails.t * (-0.18628806 + normal_tails.t * (0.27886807
                    + normal_tails.t * (-1.13520398 + normal_tails.t * (1.48851587 + normal_tails.t * (-0.82215223
                    + normal_tails.t * 0.17087277))))))))
                )
                + 0.7978845608028654 * exp(-normal_tails.chi_square / 2) * coalesce(series_sums.term_sum, 0)
        end as p_value
    from normal_tails
    left join series_sums
        {{ join_on('series_sums', 'normal_tails', 'experiment_id') }}
),

sequential_days as (
    -- the test's last day and its first detection, by windows over one read of the daily test: a join back to the
    -- last day made PostgreSQL, which cannot size the daily test, compute it again once per experiment
    select
        project,
        experiment_id,
        test_started_on,
        restarted,
        sequential_p_value,
        srm_detected,
        min(case when srm_detected then test_date end) over (partition by project, experiment_id) as first_detected_on,
        row_number() over (partition by project, experiment_id order by test_date desc) as from_last
    from {{ ref('exposure_srm_daily') }}
),

sequential_verdicts as (
    -- the test's start and restart are the experiment's, the same on each of its days
    select
        project,
        experiment_id,
        test_started_on,
        restarted,
        first_detected_on,
        sequential_p_value,
        srm_detected
    from sequential_days
    where from_last = 1
),

final as (
    select
        p_values.project,
        p_values.experiment_id,
        p_values.group_count,
        p_values.total_exposures,
        p_values.expected_split,
        p_values.chi_square,
        p_values.degrees_of_freedom,
        -- the series and the erfc fit can overshoot [0, 1] by rounding; greatest/least would also turn null into 0
        case
            when p_values.p_value < 0 then 0.0
            when p_values.p_value > 1 then 1.0
            else p_values.p_value
        end as chi_square_p_value,
        'sequential' as srm_test,
        sequential_verdicts.sequential_p_value as p_value,
        parameters.srm_p_value_threshold as p_value_threshold,
        coalesce(sequential_verdicts.srm_detected, false) as srm_detected,
        sequential_verdicts.first_detected_on,
        sequential_verdicts.test_started_on,
        sequential_verdicts.restarted,
        p_values.most_deviating_group_id,
        p_values.most_deviating_group_name,
        p_values.most_deviating_observed_share,
        p_values.most_deviating_expected_share
    from p_values
    cross join parameters
    left join sequential_verdicts
        {{ join_on('sequential_verdicts', 'p_values', 'experiment_id') }}
)

select * from final
