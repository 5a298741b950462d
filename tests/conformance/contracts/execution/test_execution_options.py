"""--execution-service takes an http(s) endpoint URL and reads the token from an environment variable, never from
the command line; what is missing is a usage error naming the variable to set."""

from __future__ import annotations

import pytest

from conformance.harness.execution_service import ExecutionEndpoint, endpoint_from
from conformance.options import EXECUTION_TOKEN_VARIABLE


class _Options:
    def __init__(self, **values: object) -> None:
        self.values = {"--execution-token-env": EXECUTION_TOKEN_VARIABLE, **values}

    def getoption(self, name: str, default: object = None) -> object:
        return self.values.get(name, default)


def _endpoint(**values: object) -> ExecutionEndpoint | None:
    return endpoint_from(_Options(**values))  # type: ignore[arg-type]


def test_no_option_certifies_no_service() -> None:
    assert _endpoint() is None


def test_the_token_comes_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KIT_TEST_EXEC_TOKEN", "a-token-of-some-length")
    endpoint = _endpoint(
        **{"--execution-service": "http://127.0.0.1:8787/execute", "--execution-token-env": "KIT_TEST_EXEC_TOKEN"}
    )
    assert endpoint == ExecutionEndpoint("http://127.0.0.1:8787/execute", "a-token-of-some-length")
    assert endpoint.is_local() and endpoint.port == 8787


def test_a_missing_token_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(EXECUTION_TOKEN_VARIABLE, raising=False)
    with pytest.raises(pytest.UsageError, match=EXECUTION_TOKEN_VARIABLE):
        _endpoint(**{"--execution-service": "http://127.0.0.1:8787/execute"})


def test_an_endpoint_that_is_no_http_url_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXECUTION_TOKEN_VARIABLE, "a-token-of-some-length")
    with pytest.raises(pytest.UsageError, match="http"):
        _endpoint(**{"--execution-service": "127.0.0.1:8787"})
