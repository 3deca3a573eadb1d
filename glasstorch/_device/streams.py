"""Streams and events as users see them — PyTorch's ``torch/cuda/streams.py`` over any backend (``backend.py``).

A :class:`Stream` is an in-order queue of device work; a :class:`Event` is a marker in such a queue that can
be waited on, queried, and timed.  Device modules (``glasstorch.emu``, ``glasstorch.cuda``) subclass both with
their backend bound as a class attribute, so the same code serves every accelerator.

Invariant: two Stream objects are equal exactly when they wrap the same backend stream; ``with stream(s):``
restores the previous current stream of the device on exit, exceptions included.
"""

from __future__ import annotations

from .._core.device import device as _Device

__all__ = ["Stream", "Event", "StreamContext"]


class Stream:
    """A device stream (``torch.cuda.Stream``): ``Stream(device=None, priority=0)``.

    Example:
        >>> import glasstorch as torch
        >>> s = torch.emu.Stream()
        >>> with torch.emu.stream(s):
        ...     y = torch.ones(3, device="emu") * 2
        >>> s.synchronize()
    """

    backend = None  # bound by the device module
    device_type = None

    def __init__(self, device=None, priority: int = 0, *, _handle=None):
        if _handle is None:
            _handle = self.backend.new_stream(self._device_index(device), int(priority))
        self._handle = _handle

    @classmethod
    def _device_index(cls, device) -> int:
        if device is None:
            return cls._current_device()
        if isinstance(device, int):
            return device if device >= 0 else cls._current_device()
        d = device if isinstance(device, _Device) else _Device(device)
        return cls._current_device() if d.index is None else d.index

    @classmethod
    def _current_device(cls) -> int:
        return 0

    @classmethod
    def _current(cls, device=None) -> Stream:
        """The current stream of ``device`` (the current device by default) as a Stream object."""
        return cls(_handle=cls.backend.current_stream(cls._device_index(device)))

    @property
    def device(self) -> _Device:
        return _Device(self.device_type, self._handle.device)

    @property
    def device_index(self) -> int:
        return self._handle.device

    @property
    def priority(self) -> int:
        return self._handle.priority

    @property
    def stream_id(self) -> int:
        return self._handle.sid

    def wait_event(self, event: Event) -> None:
        """Make all future work on this stream wait for ``event`` (returns at once)."""
        event.wait(self)

    def wait_stream(self, stream: Stream) -> None:
        """Make all future work on this stream wait for the work queued on ``stream`` until now."""
        self.wait_event(stream.record_event())

    def record_event(self, event: Event | None = None) -> Event:
        if event is None:
            event = self._event_class()()
        event.record(self)
        return event

    @classmethod
    def _event_class(cls):
        return Event

    def query(self) -> bool:
        """Whether all work queued on this stream has completed."""
        return self.backend.stream_query(self._handle)

    def synchronize(self) -> None:
        """Wait for all work queued on this stream."""
        self.backend.stream_synchronize(self._handle)

    def __eq__(self, other):
        return isinstance(other, Stream) and other._handle is self._handle

    def __hash__(self):
        return hash((id(self._handle), self._handle.device))

    def __enter__(self):
        self._ctx = StreamContext(self)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)

    def __repr__(self):
        return (f"<torch.{self.device_type}.Stream device={self.device_type}:{self._handle.device} "
                f"{self.device_type}_stream={self._handle.sid:#x}>")


class Event:
    """A device event (``torch.cuda.Event``): ``Event(enable_timing=False, blocking=False, interprocess=False)``.

    Example:
        >>> import glasstorch as torch
        >>> start, end = torch.emu.Event(enable_timing=True), torch.emu.Event(enable_timing=True)
        >>> start.record(); torch.emu._sleep(1000); end.record(); end.synchronize()
        >>> start.elapsed_time(end) >= 0
        True
    """

    backend = None
    device_type = None
    stream_class = Stream

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                 external: bool = False):
        self.enable_timing = bool(enable_timing)
        self.blocking = bool(blocking)
        self._handle = self.backend.new_event(self.enable_timing)

    def _stream(self, stream):
        return self.stream_class._current() if stream is None else stream

    def record(self, stream: Stream | None = None) -> None:
        """Record the event on ``stream`` (the current stream by default)."""
        self.backend.record_event(self._handle, self._stream(stream)._handle)

    def wait(self, stream: Stream | None = None) -> None:
        """Make all future work on ``stream`` wait for this event's latest record."""
        self.backend.stream_wait_event(self._stream(stream)._handle, self._handle)

    def query(self) -> bool:
        """Whether the work captured by the latest record has completed."""
        return self.backend.event_query(self._handle)

    def synchronize(self) -> None:
        """Wait for the work captured by the latest record."""
        self.backend.event_synchronize(self._handle)

    def elapsed_time(self, end_event: Event) -> float:
        """Milliseconds between this event's completion and ``end_event``'s."""
        return self.backend.event_elapsed_ms(self._handle, end_event._handle)

    def __repr__(self):
        if getattr(self._handle, "token", None) is None:
            return f"<torch.{self.device_type}.Event uninitialized>"
        return f"<torch.{self.device_type}.Event {id(self._handle):#x}>"


class StreamContext:
    """``with stream(s):`` — make ``s`` the current stream of its device; ``None`` does nothing."""

    __slots__ = ("stream", "prev")

    def __init__(self, stream: Stream | None):
        self.stream = stream
        self.prev = None

    def __enter__(self):
        s = self.stream
        if s is None:
            return None
        backend = s.backend
        self.prev = backend.current_stream(s._handle.device)
        backend.set_current_stream(s._handle)
        return s

    def __exit__(self, *exc):
        if self.stream is not None:
            self.stream.backend.set_current_stream(self.prev)
        return False
