"""confluent-kafka producers and consumers (the CLI's ingest, replay, the indexer loop).

Producers are idempotent with acks=all and partition by murmur2 of the key, the same
partitioner as the Java client and aiokafka (Faust), so that a user's messages land on
the same partition whoever produces them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from streams.topics import client_config
from workers.distributed.messages import Received
from workers.errors import StorageError

log = logging.getLogger(__name__)


class KafkaProducer:
    """Keyed, idempotent, acks=all. `produce` is asynchronous; `flush` waits for every
    acknowledgement and raises if any message failed."""

    def __init__(self, bootstrap: str, **extra: Any) -> None:
        config = {
            **client_config(bootstrap),
            "enable.idempotence": True,
            "acks": "all",
            "partitioner": "murmur2_random",
            "linger.ms": 5,
            "compression.type": "none",
            **extra,
        }
        self._producer = Producer(config)
        self._errors: list[str] = []
        self.offsets: dict[tuple[str, int], int] = {}

    def _delivered(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self._errors.append(f"{msg.topic()}: {err}")
            return
        key = (msg.topic() or "", msg.partition() or 0)
        self.offsets[key] = max(self.offsets.get(key, -1), msg.offset() or 0)

    def produce(self, topic: str, key: str, value: bytes) -> None:
        while True:
            try:
                self._producer.produce(
                    topic, value=value, key=key.encode(), on_delivery=self._delivered
                )
                break
            except BufferError:
                self._producer.poll(0.1)  # local queue full: let deliveries drain
        self._producer.poll(0)

    def flush(self, timeout: float = 60) -> None:
        left = self._producer.flush(timeout)
        if left:
            raise StorageError(
                "kafka", "produce", f"{left} messages not acknowledged in {timeout} s"
            )
        if self._errors:
            errors, self._errors = self._errors, []
            raise StorageError("kafka", "produce", "; ".join(errors[:5]))


def _received(msg: Message) -> Received:
    key = msg.key()
    return Received(
        topic=msg.topic() or "",
        partition=msg.partition() or 0,
        offset=msg.offset() or 0,
        key=key.decode("utf-8", errors="replace") if key is not None else None,
        value=msg.value() or b"",
    )


def read_topics(bootstrap: str, topics: list[str], timeout: float = 30) -> Iterator[Received]:
    """Every message currently in `topics`, from the beginning to the end offsets taken at
    the start (a bounded read for replay; no consumer group offsets are committed)."""
    consumer = Consumer(
        {
            **client_config(bootstrap),
            "group.id": "frecall-replay",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": False,
        }
    )
    try:
        metadata = consumer.list_topics(timeout=timeout)
        assignment: list[TopicPartition] = []
        ends: dict[tuple[str, int], int] = {}
        for topic in topics:
            if topic not in metadata.topics:
                continue
            for partition in metadata.topics[topic].partitions:
                low, high = consumer.get_watermark_offsets(
                    TopicPartition(topic, partition), timeout=timeout
                )
                if high > low:
                    ends[(topic, partition)] = high
                    assignment.append(TopicPartition(topic, partition, low))
        if not assignment:
            return
        consumer.assign(assignment)
        while ends:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                raise StorageError("kafka", "replay", str(msg.error()))
            where = (msg.topic() or "", msg.partition() or 0)
            if where not in ends:
                continue
            yield _received(msg)
            if (msg.offset() or 0) + 1 >= ends[where]:
                del ends[where]
    finally:
        consumer.close()


class ConsumerLoop:
    """A consumer-group loop in a thread: `handle` each message, commit after it.

    At-least-once: the offset is committed only once the handler returned, so a crash
    re-delivers; handlers are idempotent. A handler error is logged and retried.
    """

    def __init__(
        self,
        bootstrap: str,
        group: str,
        topics: list[str],
        handle: Callable[[Received], None],
        name: str = "consumer",
    ) -> None:
        self._consumer = Consumer(
            {
                **client_config(bootstrap),
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": 10_000,
            }
        )
        self._topics = topics
        self._handle = handle
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.errors = 0

    def start(self) -> None:
        self._consumer.subscribe(self._topics)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self._consumer.poll(0.2)
                if msg is None:
                    continue
                error = msg.error()
                if error is not None:
                    if error.code() != KafkaError._PARTITION_EOF:
                        log.warning("consumer: %s", error)
                    continue
                self._process(msg)
            except KafkaException as exc:
                log.warning("consumer: %s", exc)
                self._stop.wait(1.0)

    def _process(self, msg: Message) -> None:
        received = _received(msg)
        while not self._stop.is_set():
            try:
                self._handle(received)
                break
            except Exception:  # keep the loop alive; the message is retried
                self.errors += 1
                log.exception("consumer: %s failed; retrying", received.position)
                self._stop.wait(1.0)
        else:
            return
        self._consumer.commit(message=msg, asynchronous=True)

    def stop(self) -> None:
        """Stop after the message in hand (its offset is committed only if it was handled),
        leave the group. A handler stuck past the timeout keeps the consumer open: closing
        it under the thread would be undefined; the process exit ends both."""
        self._stop.set()
        self._thread.join(timeout=30)
        if self._thread.is_alive():
            log.warning("consumer: handler still busy after 30 s; leaving without closing")
            return
        self._consumer.close()


def commit_end_offsets(bootstrap: str, group: str, topic: str, timeout: float = 30) -> None:
    """Start `group` at the current end of `topic` (what came before is already applied)."""
    consumer = Consumer(
        {**client_config(bootstrap), "group.id": group, "enable.auto.commit": False}
    )
    try:
        metadata = consumer.list_topics(topic, timeout=timeout)
        offsets = []
        for partition in metadata.topics[topic].partitions:
            _, high = consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=timeout
            )
            offsets.append(TopicPartition(topic, partition, high))
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)
    finally:
        consumer.close()
