"""Observability: Prometheus metrics, OpenTelemetry traces and JSON logs.

Loaded by the serving processes (`frecall serve`, `frecall mcp`); the CLI's other commands
import only `timings` and `logs` (numpy and the standard library), so that they start as
fast as before: Prometheus and OpenTelemetry load with the servers (docs/architecture.md,
"Observability").
"""
