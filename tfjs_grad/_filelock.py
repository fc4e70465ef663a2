"""`locked(folder)`: an advisory lock between processes that write and read one folder.

`tf.io.save_weights` and `tf.train.save_checkpoint` hold an exclusive `flock` on the
folder they write, and the loads a shared one, so two processes saving into one folder
take turns instead of deleting each other's unfinished files, and a load never sees
files vanish. Threads of one process are serialised too: each call opens its own
descriptor, and `flock` locks per open file.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

if sys.platform != "win32":
    import fcntl


@contextlib.contextmanager
def locked(folder: str | os.PathLike[str], *, exclusive: bool) -> Iterator[int | None]:
    """Hold a `flock` on `folder` (exclusive to write, shared to read) and yield its
    descriptor; without one (Windows, or a folder that cannot be opened) yield None.

    >>> import tempfile
    >>> from tfjs_grad._filelock import locked
    >>> with locked(tempfile.gettempdir(), exclusive=True) as fd:
    ...     fd is not None
    True
    """
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield None
        return
    try:
        if sys.platform != "win32":
            with contextlib.suppress(OSError):  # a filesystem without locks: go on without
                fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield fd
    finally:
        os.close(fd)  # also releases the lock
