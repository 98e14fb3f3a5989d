"""Every constant of the console client and source, and nowhere else; the defaults of its settings are in settings.py."""

from __future__ import annotations

LOGGER_NAME = "sources.console"

# --- configuration keys, named in error messages so the user knows what to fix ---
SETTING_BASE_URL = "sources.console.base_url"
SETTING_API_KEY = "sources.console.api_key"
ENV_API_KEY = "SOURCES__CONSOLE__API_KEY"
SETTING_SCIM_TOKEN = "sources.console.scim_token"
ENV_SCIM_TOKEN = "SOURCES__CONSOLE__SCIM_TOKEN"

# --- paths (relative to base_url) ---
API_PREFIX = "/console/v1"
SCIM_PREFIX = "/scim"

GATES_PATH = f"{API_PREFIX}/gates"
GATE_PATH = f"{API_PREFIX}/gates/{{id}}"
HOLDOUT_PATH = f"{API_PREFIX}/holdouts/{{id}}"
DYNAMIC_CONFIGS_PATH = f"{API_PREFIX}/dynamic_configs"
DYNAMIC_CONFIG_UNARCHIVE_PATH = f"{API_PREFIX}/dynamic_configs/{{id}}/unarchive"
RELEASE_PIPELINES_PATH = f"{API_PREFIX}/release_pipelines"
RELEASE_PIPELINE_PATH = f"{API_PREFIX}/release_pipelines/{{id}}"
QUALIFYING_EVENTS_PATH = f"{API_PREFIX}/experiments/qualifying_events"
CUMULATIVE_EXPOSURES_PATH = f"{API_PREFIX}/experiments/{{id}}/cumulative_exposures"
INGESTION_RUN_PATH = f"{API_PREFIX}/ingestion/runs/{{id}}"
ROLES_PATH = f"{API_PREFIX}/roles"
WH_CONNECTIONS_PATH = f"{API_PREFIX}/wh_connections"
SCIM_GROUP_PATH = f"{SCIM_PREFIX}/Groups/{{id}}"

# --- headers ---
API_KEY_HEADER = "SERVICE-API-KEY"
SCIM_AUTH_HEADER = "Authorization"
RESPECT_REVIEW_HEADER = "x-respect-review-settings"
USER_AGENT = "gatehouse/0.1 (+sources.console)"

# --- the tables of the source: a run loads all of them, or those named (`gatehouse run --resources`) ---
TABLES = ("gates", "dynamic_configs", "qualifying_events", "holdouts", "cumulative_exposures", "ingestion_runs")

# --- paging ---
# A list compared with its last load before it is loaded (a rerun's: unchanged.ListContent) holds a page as objects
# only while its items are digested and spooled as bytes, not while dlt extracts them: it is read in pages this many
# times larger, and handed to dlt in pages of `page_size`. A larger factor saves requests but raises a rerun's peak
# memory with the page held parsed (bench/RESULTS.md, peak RSS).
SPOOLED_PAGE_FACTOR = 2.5
FIRST_PAGE = 1  # `page` is 1-based
# --- HTTP behaviour ---
# Full-jitter exponential backoff: sleep uniform(0, min(cap, base * 2**(attempt-1))).
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 30.0

# --- rate limit: documented as ~100 requests per 10 s per project ---
# On a 429 the limiter lowers its rate by this factor; after each full window without a 429
# it gives back this share of the configured rate (additive increase, multiplicative decrease).
# A mild decrease: a lone 429 is more often timing noise at the edge of the limit than a lower limit.
RATE_LIMIT_DECREASE_FACTOR = 0.8
RATE_LIMIT_RECOVERY_SHARE = 0.1
# A finished request holds its slot this share longer than the window: twice the 500 ppm a clock kept by NTP
# may run fast or slow, so the service's window never ends before the client's (the arrival-versus-start
# question is settled by holding slots until the answer, see ratelimit.py). A larger margin idles the rate
# budget for its share of every window (bench/RESULTS.md).
RATE_LIMIT_WINDOW_MARGIN = 0.001
# How much sooner one request may be counted by the service, after it was sent, than the fastest round
# trip seen so far suggests (its scheduling, a busy machine): the limiter credits each answer with the
# shortest round trip less this (ratelimit.py).
RATE_LIMIT_ARRIVAL_JITTER_S = 0.010

# fetch_many keeps at most this many requests per worker submitted or answered and not yet taken, so memory
# follows the batch. Its consumer is a dlt resource that dlt resumes only between other resources' pages
# (a list page takes a few hundred ms to read and reshape): with 2 a worker the pool sat idle between
# resumptions (17.6 requests/s while the lists were read on a busy machine); 8 a worker is over a second
# of the rate budget at 50/s, and a few hundred kB of answers.
IN_FLIGHT_PER_WORKER = 8

# --- secret redaction: any run of this many characters of a secret is masked ---
SECRET_FRAGMENT_LENGTH = 8
REDACTED = "***"

# The request body vocabularies and the gate list's filter values are the published contract's: gatehouse.contract.
