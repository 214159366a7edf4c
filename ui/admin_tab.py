"""The admin tab: accounts, their roles and groups, the support threshold τ, and the audit panel.

The tab is hidden from other roles, but that is presentation only: every handler gets the
identity from the request and the service method checks `manage_accounts` / `set_tau` itself.
"""

from __future__ import annotations

from collections.abc import Callable

import gradio as gr
from gradio.context import Context

from governance.identity import ROLES, Identity, PermissionDenied
from pipeline.gate.calibration import describe_gate
from pipeline.ground.config import GATE
from ui.render import esc
from ui.review_tab import build_audit_panel
from ui.service import WarrantService

_HEADERS = ["username", "role", "display name", "sign-in", "groups"]


def build_admin_tab(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    """Build the tab's components inside the caller's open `gr.Tab(...)` context."""
    status = gr.Markdown("", elem_id="warrant-admin-status")
    with gr.Group():
        gr.Markdown("### Accounts")
        accounts = gr.Dataframe(headers=_HEADERS, interactive=False, elem_id="warrant-accounts")
        refresh = gr.Button("Refresh", size="sm")
        with gr.Row():
            role_user = gr.Textbox(label="Username")
            role_value = gr.Radio(list(ROLES), label="New role", value="user")
            change_role = gr.Button("Change role")
        with gr.Row():
            groups_user = gr.Textbox(label="Username", elem_id="warrant-groups-user")
            groups_value = gr.Textbox(
                label="Groups",
                info="the restricted documents this account may read: hr, finance (empty: everyone's only)",
                elem_id="warrant-groups",
            )
            set_groups = gr.Button("Set groups", elem_id="warrant-set-groups")
        with gr.Row():
            new_user = gr.Textbox(label="New username", info="3-32 letters, digits, . _ -")
            new_password = gr.Textbox(label="Password", type="password", info="at least 8 characters")
            new_role = gr.Radio(list(ROLES), label="Role", value="user")
            create = gr.Button("Create account")
    with gr.Group():
        gr.Markdown(
            "### Support threshold τ\nAn answer is given only when σ ≥ τ. Changes are audited and kept across restarts."
        )
        gr.Markdown(describe_gate(service.engine.tau, GATE))
        tau = gr.Slider(0.0, 1.0, step=0.01, value=service.engine.tau, label="τ")
        set_tau = gr.Button("Set τ")

    def _rows(identity: Identity) -> list[list[str]]:
        return [
            [a["username"], a["role"], a["display_name"], a["provider"], a["groups"]]
            for a in service.list_accounts(identity)
        ]

    def _guarded(request: gr.Request, action: Callable[[Identity], str]):
        try:
            identity = identity_of(request)
            message = action(identity)
            return message, _rows(identity), service.engine.tau
        except (PermissionDenied, ValueError) as exc:
            return str(exc), gr.update(), gr.update()

    def list_all(request: gr.Request):
        return _guarded(request, lambda i: "")

    def change(username: str, role: str, request: gr.Request):
        return _guarded(request, lambda i: service.set_role(i, username, role))

    def add(username: str, password: str, role: str, request: gr.Request):
        return _guarded(request, lambda i: service.create_account(i, username, password, role))

    def groups(username: str, value: str, request: gr.Request):
        return _guarded(request, lambda i: service.set_groups(i, username, value))

    def threshold(value: float, request: gr.Request):
        return _guarded(request, lambda i: service.set_tau(i, value))

    outputs = [status, accounts, tau]
    refresh.click(list_all, None, outputs, api_name="list_accounts")
    change_role.click(change, [role_user, role_value], outputs, api_name="set_role")
    create.click(add, [new_user, new_password, new_role], outputs, api_name="create_account")
    set_groups.click(groups, [groups_user, groups_value], outputs, api_name="set_groups")
    set_tau.click(threshold, [tau], outputs, api_name="set_tau")

    def on_load(request: gr.Request):
        """Fill the table for admins; stay silent for everyone else (the tab is hidden for them)."""
        try:
            identity = identity_of(request)
            service.follow_other_processes()  # τ may have been changed by another app process
            return "", _rows(identity), service.engine.tau
        except (PermissionDenied, ValueError):
            return "", gr.update(), gr.update()

    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(on_load, None, outputs, api_visibility="private")

    build_backend_panel(service, identity_of)

    with gr.Group():
        gr.Markdown("### Audit log")
        build_audit_panel(service, identity_of)


def backend_html(status: dict) -> str:
    """The answer backend as admins see it: extractive, or the LLM endpoint with its last error."""
    if not status:
        return ""
    if status.get("backend") == "extractive":
        return (
            "<div><b>Active backend: extractive</b> (WARRANT_LLM_BASE_URL and WARRANT_LLM_MODEL are not "
            "set): answers are the policies' own sentences, cited.</div>"
        )
    error = (
        f"{esc(status.get('last_error'))} ({esc(status.get('last_error_at'))})" if status.get("last_error") else "none"
    )
    return (
        f"<div><b>Active backend: OpenAI-compatible LLM</b> <code>{esc(status.get('model'))}</code> at "
        f"<code>{esc(status.get('base_url'))}</code>; every sentence it writes is checked against its "
        f"citation.</div><div>Calls: {esc(status.get('calls', 0))} · fell back to extractive: "
        f"{esc(status.get('fallbacks', 0))} · last success: {esc(status.get('last_ok_at') or 'none yet')}</div>"
        f"<div>Last error: <span id='warrant-backend-error'>{error}</span></div>"
    )


def build_backend_panel(service: WarrantService, identity_of: Callable[[gr.Request], Identity]) -> None:
    with gr.Group():
        gr.Markdown("### Answer backend")
        shown = gr.HTML("", elem_id="warrant-backend-status")
        refresh = gr.Button("Refresh backend status", size="sm")

    def current(request: gr.Request) -> str:
        try:
            return backend_html(service.answer_backend(identity_of(request)))
        except (PermissionDenied, ValueError):
            return ""

    refresh.click(current, None, shown, api_name="answer_backend")
    if isinstance(Context.root_block, gr.Blocks):
        Context.root_block.load(current, None, shown, api_visibility="private")
