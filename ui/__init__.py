"""Gradio UI and the service layer it (and the scenario runner) calls.

`ui.service` imports no Gradio, so scripts can drive exactly what the UI drives.
"""
