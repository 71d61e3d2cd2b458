"""Stream code only: the Faust app and its agents, Kafka producers and consumers, topics.

The embedded runner and the distributed deployment's wiring sit above, in frecall/embedded/
and frecall/distributed/; the logic the agents run is in workers/ (docs/architecture.md).
"""
