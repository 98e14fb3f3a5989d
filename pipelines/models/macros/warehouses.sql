{#
The few places where the warehouses' SQL differs, each a macro the models call instead of writing one warehouse's
form. In the dbt package each dispatches on the adapter (`adapter.dispatch(name, 'gatehouse')`, so a project can
override one with `dispatch:` in its dbt_project.yml): `duckdb__` or `default__` is the form gatehouse's own views
are written in, DuckDB's (gatehouse renders the models with it and translates them for its destination with
sqlglot), the others the form each warehouse needs. A model calls them as dbt's cross-database macros are called,
with SQL as text: `{{ epoch_seconds('as_of.as_of_at') }}`. The models need no import: gatehouse makes each
`default__`/`duckdb__` macro a global of the models' Jinja under the plain name (graph.py), dbt finds the package's
macros by name.
#}

{# The SQL types the models cast to where warehouses name them differently (dbt's type_string() and type_float()
give `varchar(256)` on Redshift and a single-precision float on DuckDB and Databricks, which are not the views'). #}
{% macro string_type() -%}{{ return(adapter.dispatch('string_type', 'gatehouse')()) }}{%- endmacro %}
{% macro default__string_type() -%}varchar{%- endmacro %}
{% macro redshift__string_type() -%}varchar(65535){%- endmacro %}
{% macro bigquery__string_type() -%}string{%- endmacro %}
{% macro databricks__string_type() -%}string{%- endmacro %}

{% macro double_type() -%}{{ return(adapter.dispatch('double_type', 'gatehouse')()) }}{%- endmacro %}
{% macro default__double_type() -%}double{%- endmacro %}
{% macro postgres__double_type() -%}double precision{%- endmacro %}
{% macro redshift__double_type() -%}double precision{%- endmacro %}
{% macro bigquery__double_type() -%}float64{%- endmacro %}

{# a time of day without a time zone, in UTC (what every timestamp column of the views is) #}
{% macro timestamp_type() -%}{{ return(adapter.dispatch('timestamp_type', 'gatehouse')()) }}{%- endmacro %}
{% macro default__timestamp_type() -%}timestamp{%- endmacro %}
{% macro snowflake__timestamp_type() -%}timestamp_ntz{%- endmacro %}
{% macro bigquery__timestamp_type() -%}datetime{%- endmacro %}
{% macro databricks__timestamp_type() -%}timestamp_ntz{%- endmacro %}

{# `value`, a time with a time zone (or text dlt loaded from one), as the UTC time of day without a zone #}
{% macro utc_timestamp(value) -%}{{ return(adapter.dispatch('utc_timestamp', 'gatehouse')(value)) }}{%- endmacro %}
{% macro default__utc_timestamp(value) -%}cast({{ value }} as timestamp with time zone) at time zone 'UTC'{%- endmacro %}
{% macro snowflake__utc_timestamp(value) -%}convert_timezone('UTC', cast({{ value }} as timestamp_tz))::timestamp_ntz{%- endmacro %}
{% macro bigquery__utc_timestamp(value) -%}datetime(cast({{ value }} as timestamp), 'UTC'){%- endmacro %}
{% macro databricks__utc_timestamp(value) -%}cast(to_utc_timestamp(cast({{ value }} as timestamp), current_timezone()) as timestamp_ntz){%- endmacro %}

{# milliseconds since 1970 (the console's `createdTime`) as the UTC time of day #}
{% macro epoch_ms_timestamp(milliseconds) -%}{{ return(adapter.dispatch('epoch_ms_timestamp', 'gatehouse')(milliseconds)) }}{%- endmacro %}
{% macro default__epoch_ms_timestamp(milliseconds) -%}to_timestamp({{ milliseconds }} / 1000.0) at time zone 'UTC'{%- endmacro %}
{% macro postgres__epoch_ms_timestamp(milliseconds) -%}to_timestamp(cast({{ milliseconds }} as double precision) / 1000.0) at time zone 'UTC'{%- endmacro %}
{% macro redshift__epoch_ms_timestamp(milliseconds) -%}timestamp 'epoch' + cast({{ milliseconds }} as double precision) / 1000.0 * interval '1 second'{%- endmacro %}
{% macro snowflake__epoch_ms_timestamp(milliseconds) -%}to_timestamp_ntz({{ milliseconds }}, 3){%- endmacro %}
{% macro bigquery__epoch_ms_timestamp(milliseconds) -%}datetime(timestamp_millis(cast({{ milliseconds }} as int64)), 'UTC'){%- endmacro %}
{% macro databricks__epoch_ms_timestamp(milliseconds) -%}cast(timestamp_millis(cast({{ milliseconds }} as bigint)) as timestamp_ntz){%- endmacro %}

{# seconds since 1970 of a time of day (UTC), a double: differences of two are durations in seconds #}
{% macro epoch_seconds(value) -%}{{ return(adapter.dispatch('epoch_seconds', 'gatehouse')(value)) }}{%- endmacro %}
{% macro default__epoch_seconds(value) -%}extract(epoch from {{ value }}){%- endmacro %}
{% macro postgres__epoch_seconds(value) -%}cast(extract(epoch from {{ value }}) as double precision){%- endmacro %}
{% macro redshift__epoch_seconds(value) -%}cast(extract(epoch from {{ value }}) as double precision){%- endmacro %}
{% macro snowflake__epoch_seconds(value) -%}cast(date_part(epoch_microsecond, {{ value }}) as double) / 1000000{%- endmacro %}
{% macro bigquery__epoch_seconds(value) -%}unix_micros(timestamp({{ value }})) / 1000000{%- endmacro %}
{% macro databricks__epoch_seconds(value) -%}cast(timestampdiff(microsecond, timestamp_ntz '1970-01-01 00:00:00', {{ value }}) as double) / 1000000{%- endmacro %}

{# `value` (a date) `days` later; a negative count is earlier #}
{% macro add_days(value, days) -%}{{ return(adapter.dispatch('add_days', 'gatehouse')(value, days)) }}{%- endmacro %}
{% macro default__add_days(value, days) -%}{{ value }} {{ '-' if days is number and days < 0 else '+' }} {{ days | abs if days is number else days }}{%- endmacro %}
{% macro bigquery__add_days(value, days) -%}date_add({{ value }}, interval {{ days }} day){%- endmacro %}
{% macro databricks__add_days(value, days) -%}date_add({{ value }}, {{ days }}){%- endmacro %}

{# the whole days from the date `earlier` to the date `later` #}
{% macro days_between(later, earlier) -%}{{ return(adapter.dispatch('days_between', 'gatehouse')(later, earlier)) }}{%- endmacro %}
{% macro default__days_between(later, earlier) -%}{{ later }} - {{ earlier }}{%- endmacro %}
{% macro bigquery__days_between(later, earlier) -%}date_diff({{ later }}, {{ earlier }}, day){%- endmacro %}
{% macro databricks__days_between(later, earlier) -%}datediff({{ later }}, {{ earlier }}){%- endmacro %}

{# the values of the call's body in a group, joined by `separator` (SQL text: "', '") in the order of `order_by`
(SQL text); the body may start with `distinct`:
`{% call string_agg("', '", "repository") %}distinct repository{% endcall %}` #}
{% macro string_agg(separator, order_by) -%}{{ return(adapter.dispatch('string_agg', 'gatehouse')(separator, order_by, caller=caller)) }}{%- endmacro %}
{% macro default__string_agg(separator, order_by) -%}string_agg({{ caller() }}, {{ separator }} order by {{ order_by }}){%- endmacro %}
{% macro redshift__string_agg(separator, order_by) -%}listagg({{ caller() }}, {{ separator }}) within group (order by {{ order_by }}){%- endmacro %}
{% macro snowflake__string_agg(separator, order_by) -%}listagg({{ caller() }}, {{ separator }}) within group (order by {{ order_by }}){%- endmacro %}
{% macro databricks__string_agg(separator, order_by) -%}listagg({{ caller() }}, {{ separator }}) within group (order by {{ order_by }}){%- endmacro %}

{# true when `condition` holds for a row of the group #}
{% macro bool_or(condition) -%}{{ return(adapter.dispatch('bool_or', 'gatehouse')(condition)) }}{%- endmacro %}
{% macro default__bool_or(condition) -%}bool_or({{ condition }}){%- endmacro %}
{% macro snowflake__bool_or(condition) -%}boolor_agg({{ condition }}){%- endmacro %}
{% macro bigquery__bool_or(condition) -%}logical_or({{ condition }}){%- endmacro %}

{# a column whose name is a keyword, quoted as the warehouse stored it #}
{% macro quoted(name) -%}{{ return(adapter.dispatch('quoted', 'gatehouse')(name)) }}{%- endmacro %}
{% macro default__quoted(name) -%}"{{ name }}"{%- endmacro %}
{% macro snowflake__quoted(name) -%}"{{ name | upper }}"{%- endmacro %}
{% macro bigquery__quoted(name) -%}`{{ name }}`{%- endmacro %}
{% macro databricks__quoted(name) -%}`{{ name }}`{%- endmacro %}

{# the rows of both selects, each once (BigQuery has no plain `union`) #}
{% macro union_distinct() -%}{{ return(adapter.dispatch('union_distinct', 'gatehouse')()) }}{%- endmacro %}
{% macro default__union_distinct() -%}union{%- endmacro %}
{% macro bigquery__union_distinct() -%}union distinct{%- endmacro %}

{# a string literal of `value` (a quote in it escaped as the warehouse escapes one) #}
{% macro text_literal(value) -%}{{ return(adapter.dispatch('text_literal', 'gatehouse')(value)) }}{%- endmacro %}
{% macro default__text_literal(value) -%}'{{ value | replace("'", "''") }}'{%- endmacro %}
{% macro bigquery__text_literal(value) -%}'{{ value | replace("\\", "\\\\") | replace("'", "\\'") }}'{%- endmacro %}
{% macro databricks__text_literal(value) -%}'{{ value | replace("\\", "\\\\") | replace("'", "\\'") }}'{%- endmacro %}
