"""`GET /metrics` for operators (Prometheus text format), behind a bearer token.

Off unless `WARRANT_METRICS_TOKEN` is set: then the route answers 404, like any path that is not
there. With a token, a request must send `Authorization: Bearer <token>` (compared in constant
time), or it gets 401. The numbers are the whole deployment's, whichever process answers
(governance.metrics). Registered before Gradio is mounted, so it needs no login session: a scraper
has none.
"""

from __future__ import annotations

import hmac

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST

from governance.metrics import OperatorMetrics


def add_metrics_route(app: FastAPI, token: str, metrics: OperatorMetrics) -> None:
    expected = f"Bearer {token}".encode()

    @app.get("/metrics", include_in_schema=False)
    def operator_metrics(request: Request) -> Response:
        if not token:
            return PlainTextResponse("Not Found", status_code=404)
        supplied = request.headers.get("authorization", "").encode("utf-8", "replace")
        if not hmac.compare_digest(supplied, expected):
            return PlainTextResponse(
                "A metrics token is required.", status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)
