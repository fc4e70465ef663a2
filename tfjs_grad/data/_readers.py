"""Where Datasets come from: `tf.data.array`, `generator`, `zip` and `csv`, as tfjs-data
4.22 makes them (a local file or `file://` URL for csv).

>>> import tfjs_grad as tf
>>> ds = tf.data.zip({"a": tf.data.array([1, 2, 3]), "b": tf.data.array([4, 5])})
>>> ds.toArray(), ds.size
([{'a': 1, 'b': 4}, {'a': 2, 'b': 5}], 2)
"""

from __future__ import annotations

import asyncio
import inspect
import math
import os
import re
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from ._dataset import Dataset, dataset_from_iterator_fn


def array(items: Sequence[Any]) -> Dataset:
    """A Dataset of `items` (numbers, lists, Tensors, dicts), in order.

    >>> import tfjs_grad as tf
    >>> tf.data.array([{"item": 1}, {"item": 2}]).toArray()
    [{'item': 1}, {'item': 2}]
    """
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise TypeError(f"tf.data.array() expects a list of elements, got {type(items).__name__}")
    items = list(items)
    return dataset_from_iterator_fn(lambda: iter(items), len(items))


def generator(generator: Any) -> Dataset:
    """A Dataset whose every pass calls `generator()` and reads what it yields.

    `generator` is a generator function (or `async def` generator function), or any
    function returning an iterable, an async iterable, or a tfjs-style object whose
    `next()` returns `{value, done}`. An iterable (a list, a generator object) is
    accepted too; a one-shot iterator can be read only once.

    >>> import tfjs_grad as tf
    >>> def counter():
    ...     for i in range(3):
    ...         yield {"xs": [i], "ys": [2 * i]}
    >>> tf.data.generator(counter).batch(3).toArray()[0]["ys"].arraySync()
    [[0.0], [2.0], [4.0]]
    """
    if callable(generator) and not hasattr(generator, "__iter__"):
        make = generator
    elif hasattr(generator, "__iter__") or hasattr(generator, "__aiter__"):
        source = generator
        used = [False]

        def make() -> Any:
            if _one_shot(source):
                if used[0]:
                    raise ValueError(
                        "tf.data.generator() was given an iterator, which can be read once; "
                        "pass a generator function to iterate the Dataset again"
                    )
                used[0] = True
            return source
    else:
        raise TypeError(
            "tf.data.generator() expects a generator function (or a function returning an "
            f"iterator), got {type(generator).__name__}"
        )
    return dataset_from_iterator_fn(lambda: _stream(make()), None)


def _one_shot(source: Any) -> bool:
    """An iterator (it is its own iterator) rather than a re-iterable collection."""
    if hasattr(source, "__anext__"):
        return True
    return hasattr(source, "__next__") and iter(source) is source


def _stream(made: Any) -> Iterator[Any]:
    if hasattr(made, "__aiter__"):
        return _from_async(made.__aiter__())
    if hasattr(made, "__iter__"):
        return iter(made)
    if callable(getattr(made, "next", None)):  # a tfjs-style {next() -> {value, done}}
        return _from_js_style(made)
    raise TypeError(
        "The function passed to tf.data.generator() must return an iterator (a generator, "
        f"an iterable or an object with next()), got {type(made).__name__}"
    )


def _from_js_style(iterator: Any) -> Iterator[Any]:
    with _EventLoop() as loop:
        while True:
            result = iterator.next()
            if inspect.isawaitable(result):
                result = loop.run(_awaited(result))
            done = result.get("done") if isinstance(result, Mapping) else result.done
            if done:
                return
            yield result["value"] if isinstance(result, Mapping) else result.value


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


_EXHAUSTED = object()


async def _next_of(iterator: AsyncIterator[Any]) -> Any:
    try:
        return await iterator.__anext__()
    except StopAsyncIteration:
        return _EXHAUSTED


def _from_async(iterator: AsyncIterator[Any]) -> Iterator[Any]:
    with _EventLoop() as loop:
        try:
            while (value := loop.run(_next_of(iterator))) is not _EXHAUSTED:
                yield value
        finally:  # a consumer that stops early: the generator's own cleanup runs now
            close = getattr(iterator, "aclose", None)
            if close is not None:
                loop.run(close())


class _EventLoop:
    """An event loop of the stream's own, run in a thread of its own: async generators
    are driven the same way whether or not the caller's thread runs a loop already (a
    notebook's does, and `run_until_complete` cannot nest in it)."""

    def __enter__(self) -> _EventLoop:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="tf.data async generator", daemon=True
        )
        self._thread.start()
        return self

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def __exit__(self, *exc: object) -> None:
        self.run(self._loop.shutdown_asyncgens())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def zip_datasets(datasets: Any) -> Dataset:
    """Elements of several Datasets side by side, in the structure given (a list, a
    dict, or nested ones); it ends with the shortest.

    >>> import tfjs_grad as tf
    >>> tf.data.zip([tf.data.array([1, 2]), tf.data.array([3, 4])]).toArray()
    [[1, 3], [2, 4]]
    """
    if not isinstance(datasets, (list, tuple, Mapping)):
        raise TypeError("The argument to zip() must be an object or array.")
    leaves: list[Dataset] = []
    _collect(datasets, leaves)
    sizes = [d.size for d in leaves]
    size = None if not sizes or any(s is None for s in sizes) else min(sizes)  # type: ignore[type-var]

    def zipped(streams: list[Iterator[Any]]) -> Iterator[Any]:
        while True:
            values = []
            for stream in streams:
                value = next(stream, _END)
                if value is _END:
                    return
                values.append(value)
            yield _rebuilt(datasets, iter(values))

    return dataset_from_iterator_fn(lambda: zipped([iter(d.iterator()) for d in leaves]), size)


_END = object()


def _collect(structure: Any, leaves: list[Dataset]) -> None:
    if isinstance(structure, Dataset):
        leaves.append(structure)
    elif isinstance(structure, Mapping):
        for value in structure.values():
            _collect(value, leaves)
    elif isinstance(structure, (list, tuple)):
        for value in structure:
            _collect(value, leaves)
    else:
        raise TypeError("Leaves of the structure passed to zip() must be Datasets, not primitives.")


def _rebuilt(structure: Any, values: Iterator[Any]) -> Any:
    if isinstance(structure, Dataset):
        return next(values)
    if isinstance(structure, Mapping):
        return {key: _rebuilt(value, values) for key, value in structure.items()}
    return [_rebuilt(value, values) for value in structure]


class CSVDataset(Dataset):
    """Rows of a CSV file as dicts keyed by column name (tfjs's `tf.data.csv`); with
    label columns (`columnConfigs: {name: {isLabel: true}}`) each element is
    `{xs: {features}, ys: {labels}}`. Numbers are parsed; other text stays a string."""

    def __init__(self, path: str, config: Mapping[str, Any]):
        unknown = set(config) - {
            "hasHeader", "columnNames", "columnConfigs", "configuredColumnsOnly",
            "delimiter", "delimWhitespace",
        }  # fmt: skip
        if unknown:
            raise ValueError(f"tf.data.csv(): unknown config key(s) {sorted(unknown)}")
        self.path = path
        self.hasHeader = config.get("hasHeader") is not False
        names = config.get("columnNames")
        self._names: list[str] | None = None if names is None else [str(n) for n in names]
        self.columnConfigs: dict[str, Any] = dict(config.get("columnConfigs") or {})
        self.configuredColumnsOnly = bool(config.get("configuredColumnsOnly"))
        if config.get("delimWhitespace"):
            if config.get("delimiter") is not None:
                raise ValueError("Delimiter should not be provided when delimWhitespace is true.")
            self.delimiter, self._whitespace = " ", True
        else:
            self.delimiter, self._whitespace = config.get("delimiter") or ",", False
        if not isinstance(self.delimiter, str) or len(self.delimiter) != 1:
            raise ValueError(
                f"tf.data.csv(): 'delimiter' must be one character, got {self.delimiter!r}"
            )
        self._validated = False
        self.size = None

    def _lines(self) -> Iterator[str]:
        with open(self.path, encoding="utf-8", newline="") as file:
            text = file.read()
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines:
            yield line[:-1] if line.endswith("\r") else line

    def columnNames(self) -> list[str]:  # noqa: N802 (tfjs's name)
        """The column names (from columnNames, else the header line); with
        configuredColumnsOnly, the configured ones in columnConfigs' order (as tfjs)."""
        self._validate()
        assert self._names is not None
        return list(self.columnConfigs) if self.configuredColumnsOnly else list(self._names)

    def _validate(self) -> None:
        if self._validated:
            return
        from_file = None
        if self.hasHeader:
            first = next(self._lines(), None)
            if first is None:
                raise ValueError("No data was found for CSV parsing.")
            from_file = self._parse(first, None)
        if self._names is None and from_file is None:
            raise ValueError("Column names must be provided if there is no header line.")
        if self._names is not None and from_file is not None and len(from_file) != len(self._names):
            raise ValueError(
                f"The length of provided columnNames ({len(self._names)}) does not match the "
                f"length of the header line read from file ({len(from_file)})."
            )
        names = self._names if self._names is not None else from_file
        assert names is not None
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"Duplicate column names found: {','.join(duplicates)}")
        for key in self.columnConfigs:
            if key not in names:
                raise ValueError(
                    f'The key "{key}" provided in columnConfigs does not match any of the '
                    f"column names ({','.join(names)})."
                )
        self._names = list(names)
        self._validated = True

    def iterator(self) -> Any:
        self._validate()
        lines = self._lines()
        if self.hasHeader:
            next(lines, None)
        return dataset_from_iterator_fn(lambda: (self._element(line) for line in lines)).iterator()

    def _element(self, line: str) -> Any:
        assert self._names is not None
        values = self._parse(line, len(self._names))
        features: dict[str, Any] = {}
        labels: dict[str, Any] = {}
        for key, value in zip(self._names, values):
            config = self.columnConfigs.get(key)
            if self.configuredColumnsOnly and config is None:
                continue
            config = {} if config is None else config
            if value == "":
                if "default" in config:
                    parsed = config["default"]
                elif config.get("required") or config.get("isLabel"):
                    raise ValueError(f"Required column {key} is empty in this line: {line}")
                else:
                    parsed = None
            else:
                parsed = _parsed(value, config.get("dtype"))
            (labels if config.get("isLabel") else features)[key] = parsed
        return features if not labels else {"xs": features, "ys": labels}

    def _parse(self, line: str, expected: int | None) -> list[str]:
        """tfjs's CSV state machine: quoted fields, doubled quotes, whitespace runs."""
        out, field_start, state = [], 0, "out"
        delimiter, quote = self.delimiter, '"'
        for i, char in enumerate(line):
            if state == "out":
                if char == quote:
                    field_start, state = i + 1, "quote"
                elif char == delimiter:
                    field_start = i + 1
                    if not (delimiter == " " and self._whitespace):
                        out.append("")
                else:
                    field_start, state = i, "field"
            elif state == "field":
                if char == delimiter:
                    out.append(line[field_start:i])
                    field_start, state = i + 1, "out"
            elif state == "quote":
                if char == quote:
                    state = "after_quote"
            elif state == "after_quote":
                if char == delimiter:
                    out.append(line[field_start : i - 1])
                    field_start, state = i + 1, "out"
                elif char == quote:
                    state = "quote"
                else:
                    state = "quote_in_quote"
            elif char == quote:  # quote_in_quote
                state = "quote"
        out.append(line[field_start:-1] if state == "after_quote" else line[field_start:])
        if expected is not None and len(out) != expected:
            raise ValueError(
                f"Invalid row in csv file. Should have {expected} elements in a row, but got "
                f"{','.join(out)}"
            )
        return out


_JS_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?Infinity|0[xX][0-9a-fA-F]+")


def _js_number(text: str) -> float:
    """JavaScript's `Number(text)`: NaN unless the trimmed text is a JS numeric literal."""
    stripped = text.strip()
    if stripped == "":
        return 0.0
    if not _JS_NUMBER.fullmatch(stripped):
        return math.nan
    if stripped[:2] in ("0x", "0X"):
        return float(int(stripped, 16))
    return float(stripped.replace("Infinity", "inf"))


def _parsed(value: str, dtype: Any) -> Any:
    number = _js_number(value)
    if math.isnan(number):
        return _boolean(value) if dtype == "bool" else value
    if dtype == "int32":
        return math.floor(number)
    if dtype == "bool":
        return _boolean(value)
    return number


def _boolean(value: str) -> int:
    return 1 if value == "1" or value.lower() == "true" else 0


def csv(source: Any, csvConfig: Mapping[str, Any] | None = None, **kwargs: Any) -> CSVDataset:  # noqa: N803
    """`tf.data.csv(source, csvConfig)`: a CSVDataset over a local file (a path or a
    `file://` URL). Config: `hasHeader` (True), `columnNames`, `columnConfigs` (per column
    `required`, `dtype` ('float32', 'int32', 'bool'), `default`, `isLabel`),
    `configuredColumnsOnly`, `delimiter` (','), `delimWhitespace`.

    >>> import pathlib, tempfile, tfjs_grad as tf
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "data.csv"
    >>> _ = path.write_text("a,b,label\\n1,2,0\\n3,4,1\\n")
    >>> ds = tf.data.csv(f"file://{path}", {"columnConfigs": {"label": {"isLabel": True}}})
    >>> ds.toArray()[1], ds.columnNames()
    ({'xs': {'a': 3.0, 'b': 4.0}, 'ys': {'label': 1.0}}, ['a', 'b', 'label'])
    """
    if isinstance(source, os.PathLike):
        path = os.fspath(source)
    elif isinstance(source, str):
        path = source[len("file://") :] if source.startswith("file://") else source
        if "://" in path:
            raise ValueError(
                f"tf.data.csv(): only local files and 'file://' URLs can be read, got '{source}'"
            )
    else:
        raise TypeError(f"tf.data.csv() expects a file path or 'file://' URL, got {source!r}")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"tf.data.csv(): no such file '{path}'")
    config = {_camel(k): v for k, v in {**(csvConfig or {}), **kwargs}.items()}
    return CSVDataset(path, config)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)
