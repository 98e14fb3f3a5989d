"""Typed errors, one-line actionable messages, configuration checks and secret redaction."""

from __future__ import annotations

import logging
import pickle
import threading
import time

import httpx
import pytest

from gatehouse.sources.console.client import ClientOptions, ConsoleClient
from gatehouse.sources.console.errors import (
    AuthError,
    ConfigurationError,
    ConsoleError,
    ForbiddenError,
    NotFoundError,
    SecretRegistry,
    ValidationError,
    redact,
)
from tests.client.conftest import API_KEY, BASE_URL, SCIM_TOKEN, answer, assert_no_secret


def error_answer(status: int, message: str, **extra):
    return lambda request, sent: answer(status, {"status": status, "message": message, **extra})


@pytest.mark.parametrize(
    "status, message, extra, error, expected",
    [
        pytest.param(
            400,
            "Invalid request.",
            {"errors": [{"property": "name", "errorMessage": "Required"}]},
            ValidationError,
            "the console rejected GET /console/v1/gates/g1 (HTTP 400: Invalid request.): name: Required",
            id="400",
        ),
        pytest.param(
            401,
            "This endpoint only accepts an active CONSOLE key, but an invalid key was sent.",
            {},
            AuthError,
            "the console rejected the API key (HTTP 401): check sources.console.api_key / SOURCES__CONSOLE__API_KEY",
            id="401",
        ),
        pytest.param(
            403,
            "Forbidden resource",
            {},
            ForbiddenError,
            "the console refused GET /console/v1/gates/g1 (HTTP 403: Forbidden resource): this needs a console API key with"
            " read access",
            id="403",
        ),
        pytest.param(
            404,
            "gate g1 not found",
            {},
            NotFoundError,
            "gate 'g1' not found (GET /console/v1/gates/g1, HTTP 404: gate g1 not found)",
            id="404",
        ),
        pytest.param(409, "conflict", {}, ConsoleError, "unexpected HTTP 409 from GET /console/v1/gates/g1: conflict", id="409"),
    ],
)
def test_error_statuses_become_typed_one_line_errors(make_client, status, message, extra, error, expected):
    client, console = make_client(error_answer(status, message, **extra))
    with pytest.raises(error) as raised:
        client.get_gate("g1")
    err = raised.value
    assert type(err) is error
    assert str(err).startswith(expected)
    assert "\n" not in str(err)
    assert (err.status, err.method, err.path) == (status, "GET", "/console/v1/gates/{id}")
    assert len(console.sent) == 1  # client errors are not retried
    if extra:
        assert err.field_errors == extra["errors"]


def test_404_of_an_ingestion_run_names_the_run(make_client):
    client, _ = make_client(error_answer(404, "runID r-1 not found"))
    with pytest.raises(NotFoundError, match=r"^ingestion run 'r-1' not found"):
        client.get_ingestion_run("r-1")


@pytest.mark.parametrize(
    "write, permission",
    [
        (lambda c: c.update_wh_connection({"bigquery": {"project": "p"}}), "data_warehouse_ingestion_and_exports_edit_access"),
        (lambda c: c.create_release_pipeline({"name": "p"}), "create_release_pipelines"),
        (lambda c: c.unarchive_dynamic_config("c1"), "edit_or_delete_configs"),
    ],
)
def test_403_says_which_permission_is_needed(make_client, write, permission):
    client, _ = make_client(error_answer(403, "Forbidden resource"))
    with pytest.raises(ForbiddenError, match=permission):
        write(client)


def test_401_on_scim_names_the_scim_token(make_client):
    client, _ = make_client(error_answer(401, "bad token"))
    with pytest.raises(AuthError, match="rejected the SCIM token .*sources.console.scim_token / SOURCES__CONSOLE__SCIM_TOKEN"):
        client.patch_scim_group("g", {"Operations": [{"op": "add", "path": "members", "value": []}]})


# ------------------------------------------------------------------ configuration


@pytest.mark.parametrize(
    "base_url",
    ["", None, "console.test", "ftp://console.test", "https://", "http:///v1", "https://user:pw@console.test",
     "https://console.test/?a=1", "https://console.test/console/v1", "http://[::1", "http://console.test:99999",
     "http://console.test:port"],
)  # fmt: skip
def test_bad_base_url_is_refused_up_front_naming_the_setting(base_url):
    with pytest.raises(ConfigurationError, match="sources.console.base_url"):
        ClientOptions(base_url=base_url, api_key=API_KEY)


@pytest.mark.parametrize("base_url", ["https://user:pw-sentinel@console.test", "https://console.test/?api_key=pw-sentinel"])
def test_a_base_url_holding_a_secret_is_refused_without_showing_it(base_url):
    with pytest.raises(ConfigurationError) as refused:
        ClientOptions(base_url=base_url, api_key=API_KEY)
    assert "sources.console.base_url" in str(refused.value) and "pw-sentinel" not in str(refused.value)


@pytest.mark.parametrize(
    "base_url, normalised",
    [("https://console.test/", "https://console.test"), ("http://127.0.0.1:8080/proxy/", "http://127.0.0.1:8080/proxy")],
)
def test_good_base_urls_are_normalised(base_url, normalised):
    assert ClientOptions(base_url=base_url, api_key=API_KEY).base_url == normalised


@pytest.mark.parametrize("api_key", [None, "", "   "])
def test_missing_api_key_names_setting_and_environment_variable(api_key):
    with pytest.raises(ConfigurationError, match="sources.console.api_key .*SOURCES__CONSOLE__API_KEY"):
        ClientOptions(base_url=BASE_URL, api_key=api_key)


@pytest.mark.parametrize(
    "name, value", [("page_size", 0), ("max_attempts", -1), ("max_workers", 1.5), ("timeout", 0), ("rate_limit_window", "10")]
)
def test_invalid_numeric_options_are_refused(name, value):
    with pytest.raises(ConfigurationError, match=f"sources.console.{name}"):
        ClientOptions(base_url=BASE_URL, api_key=API_KEY, **{name: value})


@pytest.mark.parametrize("dry_run", [False, True])
def test_scim_without_token_is_a_configuration_error_before_sending(make_client, dry_run):
    client, console = make_client(lambda request, sent: answer(), scim_token=None)
    with pytest.raises(ConfigurationError, match="sources.console.scim_token"):
        client.patch_scim_group("g", {"Operations": [{"op": "add", "path": "members", "value": []}]}, dry_run=dry_run)
    assert console.sent == []


def test_base_url_with_a_path_prefix_is_kept(make_client):
    client, console = make_client(
        lambda request, sent: answer(200, {"message": "ok", "data": {"id": "g"}}), base_url="https://console.test/proxy"
    )
    client.get_gate("g")
    assert console.sent[0].url == "https://console.test/proxy/console/v1/gates/g"


# ------------------------------------------------------------------ redaction

ECHOES = [
    pytest.param(f"an invalid key was sent. Key: {API_KEY}", id="whole-key"),
    pytest.param(f"an invalid key was sent. Key: {API_KEY[:11]}...", id="prefix"),
    pytest.param(f"Key: {API_KEY[-8:]}", id="suffix-8-chars"),
    pytest.param(f"key {API_KEY.upper()}", id="case-changed"),
    pytest.param(f"token {SCIM_TOKEN} and key {API_KEY}", id="both-secrets"),
]


@pytest.mark.parametrize("echo", ECHOES)
def test_a_server_echoing_the_key_never_leaks_it(make_client, caplog, echo):
    caplog.set_level(logging.DEBUG, logger="sources.console")
    client, _ = make_client(error_answer(401, echo, errors=[{"property": API_KEY, "errorMessage": echo}]))
    with pytest.raises(AuthError) as raised:
        client.get_gate("g1")
    err = raised.value
    for text in (str(err), repr(err), err.message, str(err.field_errors), str(pickle.loads(pickle.dumps(err)))):
        assert_no_secret(text)
    assert "***" in str(err)
    assert str(err).startswith("the console rejected the API key (HTTP 401)")
    for record in caplog.records:
        assert_no_secret(record.getMessage())


@pytest.mark.parametrize("echo", ECHOES)
def test_echoed_keys_in_retried_failures_never_reach_the_log(make_client, caplog, echo):
    caplog.set_level(logging.DEBUG)
    client, _ = make_client(error_answer(503, echo), max_attempts=2)
    with pytest.raises(ConsoleError) as raised:
        client.get_gate("g1")
    logging.getLogger("sources.console").error("failed", exc_info=raised.value)
    assert caplog.records, "the retry should have been logged"
    for record in caplog.records:
        assert_no_secret(record.getMessage())
        assert_no_secret(record.exc_text or "")
    assert_no_secret(caplog.text)


def test_options_and_client_repr_hide_secrets(make_client):
    client, _ = make_client(lambda request, sent: answer())
    for text in (repr(client.options), str(client.options), repr(client)):
        assert_no_secret(text)
        assert "***" in text


def test_redactor_masks_the_key_its_beginning_and_its_end_but_never_a_run_from_its_middle():
    registry = SecretRegistry()
    registry.add("abcdefghijklmnop")
    registry.add("tiny")
    assert registry.redact("key=abcdefghijklmnop!") == "key=***!"
    assert registry.redact("Key: abcdefghij...") == "Key: ***..."  # a truncated echo: 10 of its first characters
    assert registry.redact("Key: ...ijklmnop") == "Key: ...***"  # its last 8
    assert registry.redact("x cdefghij y") == "x cdefghij y"  # 8 chars from the middle: not a key's echo
    assert registry.redact("x abcdefg y") == "x abcdefg y"  # 7 chars: too short to be recognised
    assert registry.redact("a tiny secret") == "a *** secret"
    assert registry.redact("nothing here") == "nothing here"


def test_a_key_that_holds_a_common_word_leaves_messages_with_that_word_readable():
    registry = SecretRegistry()
    key = "console-Wq4INTERNALz9Server7Errorx2"
    registry.add(key)
    assert registry.redact("HTTP 500: Internal Server Error") == "HTTP 500: Internal Server Error"
    assert registry.redact(f"HTTP 401: invalid key. Key: {key[:14]}...") == "HTTP 401: invalid key. Key: ***..."
    # the scheme alone is every key's: it stays, and so does what merely starts like it
    assert (
        registry.redact("GET https://console-twin.example/console/v1/gates")
        == "GET https://console-twin.example/console/v1/gates"
    )


def test_a_pem_key_is_masked_line_by_line_but_not_its_public_armour():
    registry = SecretRegistry()
    pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\nAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"
    registry.add(pem)
    assert registry.redact("body MIIEvQIBADANBgkq and AoIBAQC7") == "body *** and ***"  # a line's start, a line's end
    # the armour is the same in every key: its words stay readable wherever they appear
    assert registry.redact("unknown property; valid: privateKey, project") == "unknown property; valid: privateKey, project"
    assert registry.redact("-----BEGIN PRIVATE KEY-----") == "-----BEGIN PRIVATE KEY-----"
    # the key itself, armour and all, is one mask
    assert registry.redact(f"key={pem}!") == "key=***!"


def test_errors_built_anywhere_are_redacted():
    # what a client registers when it is made (this test may be the first of its process)
    ConsoleClient(ClientOptions(base_url=BASE_URL, api_key=API_KEY, scim_token=SCIM_TOKEN)).close()
    err = ConsoleError(f"boom {API_KEY}\nsecond line")
    assert_no_secret(str(err))
    assert "\n" not in str(err)
    assert_no_secret(redact(f"x{SCIM_TOKEN}x"))


def test_transport_exception_text_is_redacted(make_client):
    def handler(request, sent):
        raise httpx.ReadError(f"connection reset while sending {API_KEY}")

    client, _ = make_client(handler, max_attempts=1)
    with pytest.raises(ConsoleError) as raised:
        client.get_gate("g1")
    assert_no_secret(str(raised.value))
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_client_can_be_built_without_a_transport():
    with ConsoleClient(ClientOptions(base_url=BASE_URL, api_key=API_KEY)) as client:
        assert client.server_time is None


def test_a_scim_only_client_patches_groups_and_refuses_console_paths_before_sending(make_client):
    client, console = make_client(lambda request, sent: answer(200, {}), api_key=None)
    body = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "add", "path": "members", "value": [{"value": "u1", "display": "U One"}]}],
    }
    assert client.patch_scim_group("grp", body).status == 200
    with pytest.raises(ConfigurationError, match="sources.console.api_key"):
        client.get_gate("g1")
    assert [(sent.path, "service-api-key" in sent.headers) for sent in console.sent] == [("/scim/Groups/grp", False)]


def test_after_a_rejected_key_nothing_more_is_sent(make_client):
    client, console = make_client(lambda request, sent: answer(401, {"status": 401, "message": "invalid key"}))
    for _ in range(2):
        with pytest.raises(AuthError):
            client.get_gate("g1")
    with pytest.raises(AuthError):
        list(client.fetch_many(client.get_holdout, ["h1", "h2", "h3"]))
    assert [sent.path for sent in console.sent] == ["/console/v1/gates/g1"]


def test_after_a_forbidden_read_no_other_read_is_sent(make_client):
    client, console = make_client(lambda request, sent: answer(403, {"status": 403, "message": "Forbidden resource"}))
    for gate in ("g1", "g2"):
        with pytest.raises(ForbiddenError):
            client.get_gate(gate)
    assert [sent.path for sent in console.sent] == ["/console/v1/gates/g1"]


def test_the_first_request_goes_alone_before_the_fan_out(make_client):
    """Until the console has answered once, concurrent callers wait: a bad key is sent once, not once per thread."""
    in_flight, most = [0], [0]
    lock = threading.Lock()

    def handler(request, sent):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return answer(401, {"status": 401, "message": "invalid key"})

    client, console = make_client(handler)
    with pytest.raises(AuthError):
        list(client.fetch_many(client.get_holdout, [f"h{i}" for i in range(16)]))
    assert most[0] == 1 and len(console.sent) == 1


def test_the_fan_out_starts_once_the_first_answer_says_success_before_its_body_is_read(make_client):
    """A slow first body (a long list page) does not hold the other threads back once its status is 200."""
    body_may_finish = threading.Event()

    class SlowBody(httpx.SyncByteStream):
        def __iter__(self):
            yield b'{"data": {"id": "g1"'
            body_may_finish.wait(10)
            yield b"}}"

    def handler(request, sent):
        if request.url.path.endswith("/gates/g1"):
            return httpx.Response(200, headers={"Content-Type": "application/json"}, stream=SlowBody())
        return answer(200, {"data": {"id": request.url.path.rsplit("/", 1)[-1]}})

    client, console = make_client(handler)
    answers: dict[str, dict] = {}
    first = threading.Thread(target=lambda: answers.setdefault("g1", client.get_gate("g1")))
    second = threading.Thread(target=lambda: answers.setdefault("h1", client.get_holdout("h1")))
    first.start()
    try:
        deadline = time.monotonic() + 5
        while not console.sent and time.monotonic() < deadline:
            time.sleep(0.005)
        second.start()
        second.join(2)
        assert answers == {"h1": {"id": "h1"}}, "the second request waited for the first answer's body"
    finally:
        body_may_finish.set()
        first.join(5)
        second.join(5)
    assert answers == {"g1": {"id": "g1"}, "h1": {"id": "h1"}}
    assert [sent.path for sent in console.sent] == ["/console/v1/gates/g1", "/console/v1/holdouts/h1"]
