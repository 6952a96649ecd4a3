"""The run layer: what drives a server over time — the runtime (launch, attach, relaunch, telemetry), the cell
runner, the pair runner and the chat session. It sits above the clients (core/engine, core/launch), the figures
(core/measure) and the artifacts (core/sessions); the UI and the CLI sit above it."""
