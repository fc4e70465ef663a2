"""`tf.data.Dataset`: a recipe for a stream of elements, as tfjs-data 4.22 has it.

A Dataset makes a fresh stream each time it is iterated (`iterator()`, a `for` loop,
`toArray`, `fit`); its methods return new Datasets that transform the stream lazily.
Sizes follow tfjs's rules (`size`: a count, `math.inf`, or None when unknown). tfjs's
asynchronous calls are synchronous here and also awaitable: `await ds.toArray()` and
`ds.toArray()` give the same list.

>>> import tfjs_grad as tf
>>> ds = tf.data.array([1, 2, 3, 4, 5]).map(lambda x: x * 10).batch(2)
>>> [b.arraySync() for b in ds.toArray()], ds.size
([[10.0, 20.0], [30.0, 40.0], [50.0]], 3)
"""

from __future__ import annotations

import asyncio
import inspect
import math
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np

from .._tensor import Tensor
from ..memory import tidy
from ..ops import stack, tensor
from ._alea import Alea

_DONE = object()  # a stream's end, as a value in shuffle's buffer


async def _resolved(value: Any) -> Any:
    return value


class _AwaitableList(list):  # type: ignore[type-arg]
    """A list that `await` also gives (tfjs's `toArray()` returns a Promise)."""

    def __await__(self) -> Any:
        return _resolved(self).__await__()


class IteratorResult(NamedTuple):
    """One step of a stream: `value`, and `done` once the stream has ended (tfjs's
    `{value, done}`). Awaitable, as tfjs's `await iterator.next()`."""

    value: Any
    done: bool

    def __await__(self) -> Any:
        return _resolved(self).__await__()


class LazyIterator:
    """A stream of elements: `next()` gives an `IteratorResult`; also a Python iterator.

    >>> import tfjs_grad as tf
    >>> it = tf.data.array([7, 8]).iterator()
    >>> it.next(), it.next(), it.next().done
    (IteratorResult(value=7, done=False), IteratorResult(value=8, done=False), True)
    """

    def __init__(self, source: Iterator[Any]):
        self._source = source

    def next(self) -> IteratorResult:
        try:
            return IteratorResult(next(self._source), False)
        except StopIteration:
            return IteratorResult(None, True)

    def __iter__(self) -> Iterator[Any]:
        return self._source

    def __next__(self) -> Any:
        return next(self._source)

    def toArray(self) -> list[Any]:  # noqa: N802 (tfjs's name)
        """Every remaining element."""
        return _AwaitableList(self._source)

    def forEachAsync(self, f: Callable[[Any], Any]) -> Any:  # noqa: N802 (tfjs's name)
        """Call `f` on every remaining element (an `async def` f is awaited)."""
        for element in self._source:
            _settle(f(element))
        return _resolved(None) if _in_event_loop() else None

    to_array = toArray
    for_each_async = forEachAsync


def _in_event_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _settle(result: Any) -> Any:
    """Run a coroutine a callback returned to completion (its value), else the value."""
    if not inspect.isawaitable(result):
        return result
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(_awaited(result))
        except BaseException as error:  # noqa: BLE001 (re-raised in the caller's thread)
            box["error"] = error

    if _in_event_loop():  # asyncio.run cannot nest: a thread of its own
        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
    else:
        work()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


def _check_count(value: Any, name: str, method: str) -> None:
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value)
    ):
        raise TypeError(f"Dataset.{method}(): '{name}' must be a number, got {value!r}")


class Dataset:
    """A stream recipe; subclasses (or `dataset_from_iterator_fn`) say how to start one.

    As in tfjs, `iterator()` starts the upstream streams at once (a seeded shuffle draws
    its stream's seed then), while `repeat` starts each pass when it is reached."""

    size: float | int | None = None

    def iterator(self) -> LazyIterator:
        """A new stream over this Dataset's elements."""
        raise NotImplementedError("a Dataset subclass must define iterator()")

    def __iter__(self) -> Iterator[Any]:
        return iter(self.iterator())

    # -- transformations (tfjs's order and size rules) -------------------------------
    def batch(self, batchSize: int, smallLastBatch: bool = True) -> Dataset:  # noqa: N803
        """Group `batchSize` consecutive elements into one: numbers and nested number lists
        become a Tensor with a leading batch axis, Tensors are stacked, dicts are batched
        key by key; the last batch may be shorter unless `smallLastBatch` is False.

        >>> import tfjs_grad as tf
        >>> ds = tf.data.array([{"a": 1, "b": [1, 2]}, {"a": 2, "b": [3, 4]}]).batch(2)
        >>> {k: v.shape for k, v in ds.toArray()[0].items()}
        {'a': (2,), 'b': (2, 2)}
        """
        if (
            isinstance(batchSize, bool)
            or not isinstance(batchSize, (int, np.integer))
            or batchSize <= 0
        ):
            raise ValueError(f"batchSize needs to be positive, but it is {batchSize}")
        size = self.size
        if size is not None and size != math.inf:
            size = math.ceil(size / batchSize) if smallLastBatch else size // batchSize
        base = self

        def rows(source: Iterator[Any]) -> Iterator[Any]:
            while True:
                batch = []
                for element in source:
                    batch.append(element)
                    if len(batch) == batchSize:
                        break
                if not batch or (len(batch) < batchSize and not smallLastBatch):
                    return
                yield batch_elements(batch)
                if len(batch) < batchSize:
                    return

        return dataset_from_iterator_fn(lambda: rows(iter(base.iterator())), size)

    def concatenate(self, dataset: Dataset) -> Dataset:
        """This Dataset's elements, then `dataset`'s."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate() expects a Dataset, got {type(dataset).__name__}")
        if self.size == math.inf or dataset.size == math.inf:
            size: Any = math.inf
        elif self.size is not None and dataset.size is not None:
            size = self.size + dataset.size
        else:
            size = None
        first, second = self, dataset

        def chained(head: Iterable[Any], tail: Iterable[Any]) -> Iterator[Any]:
            yield from head
            yield from tail

        return dataset_from_iterator_fn(lambda: chained(first.iterator(), second.iterator()), size)

    def filter(self, predicate: Callable[[Any], Any]) -> Dataset:
        """The elements for which `predicate` is true (run inside `tf.tidy`)."""
        if not callable(predicate):
            raise TypeError("filter() expects a function")
        base = self

        def kept(source: Iterable[Any]) -> Iterator[Any]:
            for element in source:
                if bool(_truth(tidy(lambda e=element: predicate(e)))):
                    yield element

        return dataset_from_iterator_fn(
            lambda: kept(base.iterator()), math.inf if self.size == math.inf else None
        )

    def map(self, transform: Callable[[Any], Any]) -> Dataset:
        """`transform` applied to each element (inside `tf.tidy`: its intermediates are freed).

        >>> import tfjs_grad as tf
        >>> tf.data.array([1, 2]).map(lambda x: {"x": x, "y": x * x}).toArray()
        [{'x': 1, 'y': 1}, {'x': 2, 'y': 4}]
        """
        if not callable(transform):
            raise TypeError("map() expects a function")
        base = self

        def mapped(source: Iterable[Any]) -> Iterator[Any]:
            for element in source:
                yield tidy(lambda e=element: transform(e))

        return dataset_from_iterator_fn(lambda: mapped(base.iterator()), self.size)

    def mapAsync(self, transform: Callable[[Any], Any]) -> Dataset:  # noqa: N802 (tfjs's name)
        """`transform` (an `async def` function, or one returning an awaitable) per element."""
        if not callable(transform):
            raise TypeError("mapAsync() expects a function")
        base = self

        def mapped(source: Iterable[Any]) -> Iterator[Any]:
            for element in source:
                yield _settle(transform(element))

        return dataset_from_iterator_fn(lambda: mapped(base.iterator()), self.size)

    def prefetch(self, bufferSize: int) -> Dataset:  # noqa: N803
        """The same elements, read ahead by a background thread into a buffer of
        `bufferSize`, so producing the next elements overlaps consuming these."""
        if bufferSize is None:
            raise ValueError("`Dataset.prefetch()` requires bufferSize to be specified.")
        _check_count(bufferSize, "bufferSize", "prefetch")
        base = self
        return dataset_from_iterator_fn(
            lambda: read_ahead(base.iterator(), max(1, int(bufferSize))), self.size
        )

    def repeat(self, count: int | None = None) -> Dataset:
        """The elements `count` times over (forever when `count` is None or negative); each
        pass is a fresh stream, so a shuffled Dataset reshuffles."""
        _check_count(count, "count", "repeat")
        size = self.size
        if size is not None and count is not None and count > 0:
            size = size * count
        elif count == 0:
            size = 0
        elif size is not None:
            size = math.inf
        base = self

        def repeated() -> Iterator[Any]:
            passes = 0
            while count is None or count < 0 or passes < count:
                passes += 1
                yield from base.iterator()

        return dataset_from_iterator_fn(repeated, size)

    def skip(self, count: int | None) -> Dataset:
        """All but the first `count` elements (a None or negative count skips nothing,
        as tfjs's iterator does, though its `size` says 0)."""
        _check_count(count, "count", "skip")
        size = self.size
        if size is not None and count is not None and count >= 0 and size >= count:
            size = size - count
        elif size is not None:
            size = 0
        base = self

        def skipped(source: Iterator[Any]) -> Iterator[Any]:
            if count is not None and count >= 0:
                for _ in range(int(count)):
                    if next(source, _DONE) is _DONE:
                        return
            yield from source

        return dataset_from_iterator_fn(lambda: skipped(iter(base.iterator())), size)

    def shuffle(
        self,
        bufferSize: int,
        seed: Any = None,
        reshuffleEachIteration: bool = True,  # noqa: N803
    ) -> Dataset:
        """Elements drawn at random from a sliding buffer of `bufferSize`. With `seed` the
        order is tfjs's own for that seed (seedrandom's Alea, tfjs's buffer rule).

        >>> import tfjs_grad as tf
        >>> tf.data.array([1, 2, 3, 4, 5, 6]).shuffle(6, 7).toArray() != [1, 2, 3, 4, 5, 6]
        True
        """
        if bufferSize is None or bufferSize < 0:
            hint = (
                ""
                if self.size is None
                else "  If your data fits in main memory (for regular JS objects), and/or GPU "
                "memory (for `tf.Tensor`s), consider setting bufferSize to the dataset size "
                f"({self.size} elements)"
            )
            raise ValueError(f"`Dataset.shuffle()` requires bufferSize to be specified.{hint}")
        _check_count(bufferSize, "bufferSize", "shuffle")
        random = Alea(seed if seed else str(int(time.time() * 1000)))
        base = self

        def shuffled() -> Iterator[Any]:
            stream_seed = random.int32()
            if reshuffleEachIteration:
                stream_seed += random.int32()
            return shuffle_stream(iter(base.iterator()), int(bufferSize), str(stream_seed))

        return dataset_from_iterator_fn(shuffled, self.size)

    def take(self, count: int | None) -> Dataset:
        """The first `count` elements (all of them when `count` is None or negative)."""
        _check_count(count, "count", "take")
        size = self.size
        if size is not None and count is not None:
            size = min(size, count)
        base = self

        def taken(source: Iterable[Any]) -> Iterator[Any]:
            if count is None or count < 0:
                yield from source
                return
            if count == 0:
                return
            for seen, element in enumerate(source, 1):
                yield element
                if seen >= count:
                    return

        return dataset_from_iterator_fn(lambda: taken(base.iterator()), size)

    # -- consuming ---------------------------------------------------------------------
    def toArray(self) -> list[Any]:  # noqa: N802 (tfjs's name)
        """Every element, in a list (also awaitable)."""
        if self.size == math.inf:
            raise ValueError("Can not convert infinite data stream to array.")
        return self.iterator().toArray()

    def toArrayForTest(self) -> list[Any]:  # noqa: N802 (tfjs's name)
        """Every element, read through a prefetch buffer of 100 (as tfjs's)."""
        if self.size == math.inf:
            raise ValueError("Can not convert infinite data stream to array.")
        return _AwaitableList(read_ahead(self.iterator(), 100))

    def forEachAsync(self, f: Callable[[Any], Any]) -> Any:  # noqa: N802 (tfjs's name)
        """Call `f` on every element, in order (an `async def` f is awaited)."""
        if not callable(f):
            raise TypeError("forEachAsync() expects a function")
        return self.iterator().forEachAsync(f)

    map_async = mapAsync
    to_array = toArray
    for_each_async = forEachAsync


def _truth(value: Any) -> Any:
    if isinstance(value, (Tensor, jax.Array, np.ndarray)):
        return np.asarray(value).reshape(()).item()
    return value


class _FromIteratorFn(Dataset):
    def __init__(self, make: Callable[[], Iterable[Any]], size: float | int | None):
        self._make = make
        self.size = size

    def iterator(self) -> LazyIterator:
        stream = self._make()
        if isinstance(stream, LazyIterator):
            return stream
        return LazyIterator(iter(stream))


def dataset_from_iterator_fn(
    make: Callable[[], Iterable[Any]], size: float | int | None = None
) -> Dataset:
    """A Dataset whose `iterator()` is a fresh stream from `make()`.

    >>> dataset_from_iterator_fn(lambda: iter([1, 2])).toArray()
    [1, 2]
    """
    return _FromIteratorFn(make, size)


# -- batching (tfjs's deepBatchConcat) -------------------------------------------------
def _can_tensorify(value: Any) -> bool:
    return value is None or isinstance(
        value, (int, float, bool, str, list, tuple, Tensor, np.ndarray, np.generic, jax.Array)
    )


def batch_elements(rows: Sequence[Any]) -> Any:
    """Rows of like-structured elements as one element with a leading batch axis.

    >>> import tfjs_grad as tf
    >>> batch_elements([{"x": [1, 2]}, {"x": [3, 4]}])["x"].arraySync()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not rows:
        raise ValueError("Can't make a batch of zero elements.")
    first = rows[0]
    if _can_tensorify(first):
        if isinstance(first, Tensor):
            return stack(list(rows))
        return tensor(list(rows))
    if isinstance(first, Mapping):
        return {key: batch_elements([row[key] for row in rows]) for key in first}
    raise TypeError(
        f"Dataset.batch(): cannot batch elements of type {type(first).__name__}; elements "
        "must be numbers, arrays, Tensors, or dicts of those"
    )


# -- streams ------------------------------------------------------------------------
def shuffle_stream(source: Iterator[Any], window: int, seed: str) -> Iterator[Any]:
    """tfjs's ShuffleIterator: a window of upcoming elements; each draw takes a uniformly
    chosen slot and moves the window's last entry into it, then refills the window (the
    stream's end fills slots too, and drawing one marks the upstream exhausted)."""
    random = Alea(seed)
    buffer: list[Any] = []
    exhausted = False

    def refill() -> None:
        while len(buffer) < window:
            buffer.append(next(source, _DONE))

    while True:
        if not exhausted:
            refill()
        while buffer:
            chosen = math.floor(random() * len(buffer))
            result = buffer[chosen]
            last = buffer.pop()
            if chosen < len(buffer):
                buffer[chosen] = last
            if result is _DONE:
                exhausted = True
            else:
                refill()
                yield result
                break
        else:
            return


class _Failure(NamedTuple):
    error: BaseException


def read_ahead(stream: Iterable[Any], size: int) -> Generator[Any, None, None]:
    """`stream`'s elements, produced by a background thread up to `size` ahead; an
    exception in the producer is raised here, at its place in the stream; a consumer
    that stops early stops the thread."""
    buffer: queue.Queue[Any] = queue.Queue(maxsize=size)
    stop = threading.Event()

    def produce() -> None:
        try:
            for element in stream:
                while not stop.is_set():
                    try:
                        buffer.put(element, timeout=0.05)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            item: Any = _DONE
        except BaseException as error:  # noqa: BLE001 (re-raised in the consumer)
            item = _Failure(error)
        while not stop.is_set():
            try:
                buffer.put(item, timeout=0.05)
                return
            except queue.Full:
                continue

    thread = threading.Thread(target=produce, name="tf.data prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = buffer.get()
            if item is _DONE:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
