"""The `frecall` commands: each parses nothing (frecall/cli.py did), asks the `Deployment`
one thing, and prints the answer. The work is below them: the deployments, `workers/`."""
