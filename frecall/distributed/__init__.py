"""The distributed deployment (FR_KAFKA_BOOTSTRAP + FR_REDIS_URL set).

Topology (docs/architecture.md, "The two deployments"): `frecall worker` processes run the
Faust agents — extraction (`fr.turns` → `fr.edges`) and lifecycle (`fr.edges`,
`fr.commands` → Redis slot index + fact store → `fr.transitions`). `frecall serve` runs the
query service and the indexer, the one writer of the vector index, which projects
`fr.transitions` into it: a Qdrant server (FR_QDRANT_URL) in production, or the
single-process Qdrant Edge store in the data dir, owned by that serving process.
`DistributedDeployment` (deployment.py) is the `Deployment` port over all of it.

Generations: `replay --from-kafka` rebuilds into a new Redis key prefix and a new vector
index, then switches the `<prefix>:generation` pointer; processes opened later use it.
"""
