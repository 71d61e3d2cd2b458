"""Consumer lag: how many messages of a topic a consumer group has not yet committed.

Read at every metrics scrape of the serving process (frecall/observability/metrics.py)
through one AdminClient: the end offsets of the topics, and each group's committed
offsets. A partition the group never committed counts from the topic's first offset.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from confluent_kafka import ConsumerGroupTopicPartitions, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec  # type: ignore[attr-defined]

from streams.topics import client_config

log = logging.getLogger(__name__)


class LagReader:
    """Lag of `groups` (group → its topics) and the size of a dead-letter topic."""

    def __init__(
        self,
        bootstrap: str,
        groups: Mapping[str, Sequence[str]],
        dead_letters: str,
        timeout: float = 5.0,
    ) -> None:
        self._admin = AdminClient(client_config(bootstrap))
        self._groups = {g: list(t) for g, t in groups.items()}
        self._dlq = dead_letters
        self._timeout = timeout

    def _partitions(self, topics: Sequence[str]) -> list[TopicPartition]:
        metadata = self._admin.list_topics(timeout=self._timeout).topics
        return [
            TopicPartition(topic, p)
            for topic in topics
            if topic in metadata
            for p in sorted(metadata[topic].partitions)
        ]

    def _offsets(
        self, partitions: list[TopicPartition], spec: OffsetSpec
    ) -> dict[tuple[str, int], int]:
        if not partitions:
            return {}
        futures = self._admin.list_offsets(
            {tp: spec for tp in partitions}, request_timeout=self._timeout
        )
        return {
            (tp.topic, tp.partition): f.result(self._timeout).offset for tp, f in futures.items()
        }

    def read(self) -> tuple[dict[tuple[str, str], int], int | None]:
        """((group, topic) → lag, messages in the dead-letter topic)."""
        topics = sorted({t for ts in self._groups.values() for t in ts} | {self._dlq})
        partitions = self._partitions(topics)
        ends = self._offsets(partitions, OffsetSpec.latest())  # type: ignore[no-untyped-call]
        starts = self._offsets(partitions, OffsetSpec.earliest())  # type: ignore[no-untyped-call]
        lags: dict[tuple[str, str], int] = {}
        for group, group_topics in self._groups.items():
            mine = [tp for tp in partitions if tp.topic in group_topics]
            committed = self._committed(group, mine)
            for tp in mine:
                at = committed.get((tp.topic, tp.partition), -1)
                start = starts[(tp.topic, tp.partition)]
                behind = ends[(tp.topic, tp.partition)] - (at if at >= 0 else start)
                lags[(group, tp.topic)] = lags.get((group, tp.topic), 0) + max(0, behind)
        dead = sum(ends[k] - starts[k] for k in ends if k[0] == self._dlq)
        return lags, dead

    def _committed(
        self, group: str, partitions: list[TopicPartition]
    ) -> dict[tuple[str, int], int]:
        if not partitions:
            return {}
        request = [ConsumerGroupTopicPartitions(group, partitions)]
        future = self._admin.list_consumer_group_offsets(request, request_timeout=self._timeout)[
            group
        ]
        try:
            answer = future.result(self._timeout)
        except Exception as exc:  # an unknown group has committed nothing
            log.debug("offsets of %s: %s", group, exc)
            return {}
        return {(tp.topic, tp.partition): tp.offset for tp in answer.topic_partitions or []}
