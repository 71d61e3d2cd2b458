"""The embedded deployment: every stage in this process, over the stores of one data dir
(docs/architecture.md, "The two deployments"). `EmbeddedDeployment` (deployment.py) is the
`Deployment` port over the runner (pipeline.py); replay.py rebuilds the data dir's stores."""
