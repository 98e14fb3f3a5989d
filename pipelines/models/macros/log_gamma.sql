{#
The log-gamma function in arithmetic and `ln` alone, so that the sequential SRM test (`exposure_srm_daily`) is one SQL
text on every warehouse: DuckDB has `lgamma`, PostgreSQL (before 18), Snowflake, BigQuery and Databricks do not.

`stirling_remainder(z)` is ln Γ(z) − ((z − ½) ln z − z): Stirling's series ½ ln 2π + 1/(12z) − 1/(360z³) + 1/(1260z⁵)
− 1/(1680z⁷) for z ≥ 8 (truncation below 7e-12), and for 0 < z < 8 the same at z + 8, less ln z(z+1)…(z+7) (Γ's
recurrence). Kept apart from the leading term so that differences of log-gammas of large counts can be formed without
cancelling large numbers (see `exposure_srm_daily`). `log_gamma(z)` is the whole function. Pass a column, not an
expression: it is written out several times.
#}
{% macro _series(w) -%}
(0.918938533204672742 + 1.0 / (12.0 * {{ w }}) - 1.0 / (360.0 * power({{ w }}, 3)) + 1.0 / (1260.0 * power({{ w }}, 5))
        - 1.0 / (1680.0 * power({{ w }}, 7)))
{%- endmacro %}

{% macro stirling_remainder(z) -%}
(case
        when {{ z }} >= 8 then {{ _series(z) }}
        else ({{ z }} + 7.5) * ln({{ z }} + 8) - ({{ z }} + 8) + {{ _series('(' ~ z ~ ' + 8)') }}
            - ln({{ z }}) - ln({{ z }} + 1) - ln({{ z }} + 2) - ln({{ z }} + 3) - ln({{ z }} + 4) - ln({{ z }} + 5)
            - ln({{ z }} + 6) - ln({{ z }} + 7)
            - ({{ z }} - 0.5) * ln({{ z }}) + {{ z }}
    end)
{%- endmacro %}

{% macro log_gamma(z) -%}
(({{ z }} - 0.5) * ln({{ z }}) - {{ z }} + {{ stirling_remainder(z) }})
{%- endmacro %}
