"""The web board's OpenAPI schema, fuzzed by schemathesis against the real application:
whatever the generated requests hold, no answer is a server error (5xx), and every
answer fits the schema."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from ninefold.players.proof import strategy
from ninefold.web.app import create_app
from ninefold.web.computer import Computer

_TMP = Path(tempfile.mkdtemp())
APP = create_app(_TMP / "fuzz.sqlite", Computer(workers=1),
                 platform_url=f"sqlite:///{_TMP / 'platform.sqlite'}")  # its routes too
strategy()  # read before the fuzzing: /api/proof answers 503 until it is ready
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error_and_answers_fit_the_schema(case):
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance,
                                   response_schema_conformance])
