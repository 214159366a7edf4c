"""Compose the web app: FastAPI login routes + the Gradio Blocks mounted behind a session check.

Every gradio route (page, config, queue, API) passes through `auth_dependency`, which accepts
only a valid signed cookie of a current session of an existing account; the tabs then build the
`Identity` of each call from `request.username`. Tabs for reviewers and admins are hidden from
other roles, which is presentation only: their handlers check the role again on the server.
Around everything: the client's address as the configured proxies vouch for it
(`ui.client_address`), cross-origin refusal and security headers (`ui.http_security`); inside Gradio,
its own refusal of any client file outside the upload folder and the list of paths it never
serves (`ui.uploads`). See SECURITY.md. Beside the login routes, `/metrics` for operators, off
unless a token is set (`ui.metrics_route`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import gradio as gr
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse

from governance.identity import Identity, PermissionDenied
from pipeline.ground.config import REPO_ROOT, set_server_environment
from pipeline.ground.keys import load_or_create_secret
from pipeline.ground.storage import tighten_permissions
from ui.admin_tab import build_admin_tab
from ui.chat_tab import build_chat_tab
from ui.client_address import forwarded_client
from ui.document_view import add_document_route
from ui.documents_tab import build_documents_tab
from ui.http_security import add_http_protections, limit_bodies
from ui.insights_tab import build_insights_tab
from ui.login import add_login_routes, set_session_cookie
from ui.memory_tab import build_memory_tab
from ui.metrics_route import add_metrics_route
from ui.render import CSS, esc
from ui.review_tab import build_my_claims, build_review_tab, review_label
from ui.service import WarrantService
from ui.session import SessionCookies, identity_reader, request_identity_reader, session_reader
from ui.uploads import only_uploads, protected_paths


def build_blocks(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> gr.Blocks:
    with gr.Blocks(title="Warrant") as blocks:
        header = gr.HTML("<b>Warrant</b>", elem_id="warrant-header")
        with gr.Tabs(elem_id="warrant-tabs") as tabs:
            with gr.Tab("Chat", id="chat"):
                chat = build_chat_tab(service, identity_of)
            with gr.Tab("My memory", id="memory"):
                build_memory_tab(service, identity_of)
            with gr.Tab("My claims", id="claims") as claims_tab:
                claim_box = build_my_claims(service, identity_of, claims_tab)
            with gr.Tab("Review", id="review", visible=False) as review_tab:
                build_review_tab(service, identity_of, review_tab)
            with gr.Tab("Admin", id="admin", visible=False) as admin_tab:
                build_admin_tab(service, identity_of)
            with gr.Tab("Documents", id="documents", visible=False) as documents_tab:
                build_documents_tab(service, identity_of)
            with gr.Tab("Insights", id="insights", visible=False) as insights_tab:
                build_insights_tab(service, identity_of, insights_tab)

        def on_load(request: gr.Request):
            try:
                identity = identity_of(request)
            except PermissionDenied:
                return (
                    "<a href='/login'>Log in</a>",
                    gr.update(visible=False),
                    gr.update(visible=False),
                    gr.update(visible=False),
                    gr.update(visible=False),
                )
            who = (
                f"<div style='text-align:right'>Signed in as <b id='warrant-user'>{esc(identity.display_name)}"
                f"</b> ({esc(identity.role)}) · <form method='post' action='/logout' style='display:inline'>"
                "<button type='submit' id='warrant-logout' style='background:none;border:none;padding:0;"
                "color:inherit;text-decoration:underline;cursor:pointer;font:inherit'>Log out</button></form></div>"
            )
            reviews = identity.can("review_tickets")
            return (
                who,
                gr.Tab(
                    visible=reviews, label=review_label(service.open_ticket_count(identity)) if reviews else "Review"
                ),
                gr.update(visible=identity.can("manage_accounts")),
                gr.update(visible=identity.can("ingest")),
                gr.update(visible=reviews),
            )

        def prefill_claim(sid: str, request: gr.Request):
            """The chat's "File a claim": open My claims with the claim the user made in the chat."""
            try:
                statement = service.claim_to_file(identity_of(request), sid)
            except PermissionDenied:
                return gr.update(), gr.update()
            return gr.Tabs(selected="claims"), statement

        outputs = [header, review_tab, admin_tab, documents_tab, insights_tab]
        blocks.load(on_load, None, outputs, api_visibility="private")
        chat.file_claim.click(prefill_claim, [chat.session_id], [tabs, claim_box], api_visibility="private")
    # Queue positions go out once a second instead of to every waiting browser after every finished
    # turn: with 20 users waiting, the per-turn broadcast cost more than the answer (see bench.md).
    blocks.queue(status_update_rate=1)
    # Uploads Gradio keeps (in <home>/uploads) are deleted after WARRANT_UPLOAD_MAX_AGE_S.
    age = service.config.upload_max_age_s
    blocks.delete_cache = (max(60, age // 4), age)
    return blocks


def build_app(service: WarrantService) -> FastAPI:
    """The FastAPI app to serve with uvicorn (see app.py)."""
    config = service.config
    set_server_environment(config.home)
    tighten_permissions(config.home)  # folders made since the service started (users/, uploads/)
    secret = load_or_create_secret(config.home, config.secret)
    cookies = SessionCookies(secret, max_age_s=config.session_max_s, idle_s=config.session_idle_s)
    current_session = session_reader(cookies, service.accounts.session_version)

    def current_username(request) -> str | None:
        session = current_session(request)
        return session.username if session else None

    sso = bool(config.oidc_metadata_url and config.oidc_client_id and config.oidc_client_secret)
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    # Only the listed origins get CORS headers (none by default); with a CORSMiddleware of its own
    # on the parent app, Gradio does not echo every Origin.
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(config.allowed_origins),
        allow_credentials=True,
        allow_methods=["*"],
        allow_headers=["*"],
    )
    add_login_routes(app, service, cookies, current_session, cross_site=config.on_spaces, sso=sso)
    add_document_route(app, service, request_identity_reader(service, current_session))
    add_metrics_route(app, config.metrics_token, service.operator_metrics())
    if sso:
        from governance.auth_oidc import add_oidc_routes

        def sign_in(subject_id: str, username: str, display_name: str, groups: list[str] | None = None):
            identity = service.sso_identity(subject_id, username, display_name, groups)
            response = RedirectResponse("/", status_code=303)
            set_session_cookie(
                response,
                cookies,
                identity.username,
                config.on_spaces,
                version=service.accounts.session_version(identity.username) or 0,
            )
            return response

        add_oidc_routes(app, config, secret, sign_in)
    blocks = build_blocks(service, identity_reader(service))
    # The empty chat's example questions are asked once, in the background, before anyone waits on them.
    threading.Thread(target=service.example_questions, name="example-questions", daemon=True).start()
    app = gr.mount_gradio_app(
        app,
        blocks,
        path="/",
        auth_dependency=current_username,
        css=CSS,
        footer_links=[],
        ssr_mode=False,
        show_error=False,
        max_file_size=int(config.max_upload_mb * 1024 * 1024),
        blocked_paths=protected_paths(config.home, roots=(REPO_ROOT, Path.cwd())),
    )
    only_uploads(blocks)
    app.add_middleware(limit_bodies)
    add_http_protections(app, config, current_username)
    app.add_middleware(forwarded_client, hops=config.trusted_proxy_hops)  # outermost: runs first
    return app
