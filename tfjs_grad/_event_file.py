"""TensorBoard event files, written directly: TFRecord framing around hand-encoded
`tensorflow.Event` protobuf messages holding scalars and histograms. The few fields
needed are encoded here, so logging needs no protobuf or TensorFlow package.

Layout of one record (TFRecord): length (uint64 LE), masked CRC-32C of the length,
the bytes, masked CRC-32C of the bytes. Field numbers are tensorflow's `event.proto` and
`summary.proto`: Event{wall_time=1, step=2, file_version=3, summary=5}, Summary{value=1},
Summary.Value{tag=1, simple_value=2, histo=5}, HistogramProto{min=1, max=2, num=3, sum=4,
sum_squares=5, bucket_limit=6, bucket=7}.

>>> import tempfile
>>> f = EventFile(tempfile.mkdtemp(), ".v2")
>>> f.write(scalar_event("loss", 0.5, 3)); f.close()
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from collections.abc import Sequence

import numpy as np


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli), the checksum TFRecord uses.

    >>> hex(crc32c(b"123456789"))
    '0xe3069283'
    """
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1  # int64 as protobuf encodes it
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _bytes_field(number: int, data: bytes) -> bytes:
    return _field(number, 2) + _varint(len(data)) + data


def _double_field(number: int, value: float) -> bytes:
    return _field(number, 1) + struct.pack("<d", value)


def _doubles_field(number: int, values: Sequence[float]) -> bytes:  # packed repeated
    return _bytes_field(number, struct.pack(f"<{len(values)}d", *values))


def _event(summary_value: bytes, step: int) -> bytes:
    summary = _bytes_field(1, summary_value)
    return _double_field(1, time.time()) + _field(2, 0) + _varint(step) + _bytes_field(5, summary)


def scalar_event(tag: str, value: float, step: int) -> bytes:
    """An Event holding one scalar summary."""
    value_message = _bytes_field(1, tag.encode()) + _field(2, 5) + struct.pack("<f", value)
    return _event(value_message, step)


def histogram_event(tag: str, values: np.ndarray, step: int, buckets: int) -> bytes:
    """An Event holding a histogram of `values` in `buckets` equal-width buckets."""
    values = np.asarray(values, np.float64).ravel()
    if values.size == 0:
        lo = hi = 0.0
        counts, edges = np.zeros(0), np.zeros(0)
    else:
        lo, hi = float(values.min()), float(values.max())
        counts, edges = np.histogram(values, bins=buckets, range=(lo, hi if hi > lo else lo + 1))
    histo = (
        _double_field(1, lo)
        + _double_field(2, hi)
        + _double_field(3, float(values.size))
        + _double_field(4, float(values.sum()))
        + _double_field(5, float(np.square(values).sum()))
        + _doubles_field(6, [float(e) for e in edges[1:]])
        + _doubles_field(7, [float(c) for c in counts])
    )
    return _event(_bytes_field(1, tag.encode()) + _bytes_field(5, histo), step)


class EventFile:
    """One `events.out.tfevents.<time>.<host><suffix>` file in `folder`, opened with the
    file-version record TensorBoard expects first; `write` appends a record (thread-safe)."""

    def __init__(self, folder: str, suffix: str):
        os.makedirs(folder, exist_ok=True)
        name = f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}{suffix}"
        self.path = os.path.join(folder, name)
        self._lock = threading.Lock()
        self._file = open(self.path, "ab")  # noqa: SIM115 (closed by close())
        version = _double_field(1, time.time()) + _bytes_field(3, b"brain.Event:2")
        self.write(version)
        self.flush()

    def write(self, record: bytes) -> None:
        header = struct.pack("<Q", len(record))
        framed = (
            header
            + struct.pack("<I", _masked(crc32c(header)))
            + record
            + struct.pack("<I", _masked(crc32c(record)))
        )
        with self._lock:
            self._file.write(framed)

    def flush(self) -> None:
        with self._lock:
            if not self._file.closed:
                self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()
