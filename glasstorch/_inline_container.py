"""The checkpoint container — PyTorch's ``caffe2/serialize/inline_container.{h,cc}`` (PyTorchStreamWriter/Reader).

A checkpoint is a ZIP archive whose entries all live under one top-level folder (``archive/`` for buffers,
the file's stem for paths).  Records are stored uncompressed, and each record's data starts on a multiple
of ``alignment`` bytes (64) from the start of the archive: the padding goes into the local header's extra
field under the tag ``FB``.  That alignment is what lets ``load(mmap=True)`` point tensors straight into the
mapped file.  The writer always ends with the ZIP64 end records (as PyTorch's miniz writer does) and adds
per-entry ZIP64 fields only when a size or offset does not fit in 32 bits.

Reading goes through :mod:`zipfile` for the central directory; record data is read straight into the
destination buffer and checked against the CRC-32 of the directory.

Invariant: ``ZipWriter`` records read back byte for byte through ``ZipReader``, Python's ``zipfile`` and
PyTorch's reader, and every record's data offset is a multiple of the alignment.
"""

from __future__ import annotations

import struct
import zipfile
import zlib

import numpy as np

__all__ = ["ZipWriter", "ZipReader", "is_zipfile", "read_exact"]

_LOCAL_SIG = 0x04034B50
_CENTRAL_SIG = 0x02014B50
_EOCD_SIG = 0x06054B50
_EOCD64_SIG = 0x06064B50
_EOCD64_LOCATOR_SIG = 0x07064B50
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")  # 30 bytes
_CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")  # 46 bytes
_DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01, the earliest date a ZIP can hold
_VERSION = 20
_VERSION_ZIP64 = 45
# Values at or above this do not fit the 32-bit fields; a test lowers it to exercise the ZIP64 branch.
ZIP64_LIMIT = 0xFFFFFFFF
_CORRUPT_HINT = ("This is an internal miniz error. If you are seeing this error, there is a high likelihood that "
                 "your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was "
                 "transferred incorrectly, or the file was modified after saving.")


def is_zipfile(f) -> bool:
    """Whether the stream at its current position starts with a ZIP local header (PyTorch's ``_is_zipfile``)."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


class _Entry:
    __slots__ = ("name", "offset", "size", "crc")

    def __init__(self, name, offset, size, crc):
        self.name, self.offset, self.size, self.crc = name, offset, size, crc


class ZipWriter:
    """Writes records ``<folder>/<name>`` into a stream, aligned and uncompressed (``PyTorchStreamWriter``).

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> w = ZipWriter(buf, "archive")
        >>> w.write_record("data.pkl", b"...")
        >>> w.close()
    """

    def __init__(self, fileobj, folder: str, alignment: int = 64):
        self._f = fileobj
        self._folder = folder
        self._alignment = alignment
        self._pos = 0  # bytes written so far, relative to the start of the archive
        self._entries: list[_Entry] = []
        self._names: set[str] = set()

    def write_record(self, name: str, data) -> None:
        """Append one record; ``data`` is bytes, a memoryview or a C-contiguous numpy array."""
        full = f"{self._folder}/{name}"
        if full in self._names:
            raise RuntimeError(f"Tried to serialize file twice: {name}")
        self._names.add(full)
        view = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
        size = len(view)
        crc = zlib.crc32(view)
        encoded = full.encode("utf-8")
        zip64 = size >= ZIP64_LIMIT
        zip64_extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        header_end = self._pos + _LOCAL_HEADER.size + len(encoded) + len(zip64_extra) + 4
        pad = -header_end % self._alignment
        extra = zip64_extra + struct.pack("<2sH", b"FB", pad) + b"Z" * pad
        small = 0xFFFFFFFF if zip64 else size
        header = _LOCAL_HEADER.pack(_LOCAL_SIG, _VERSION_ZIP64 if zip64 else _VERSION, _flags(encoded), 0, 0,
                                    _DOS_DATE, crc, small, small, len(encoded), len(extra))
        self._entries.append(_Entry(encoded, self._pos, size, crc))
        self._write(header + encoded + extra)
        self._write(view)

    def close(self) -> None:
        """Write the central directory and the (ZIP64) end records."""
        cd_start = self._pos
        for e in self._entries:
            self._write(self._central_header(e))
        cd_size = self._pos - cd_start
        n = len(self._entries)
        eocd64_at = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", _EOCD64_SIG, 44, _VERSION_ZIP64, _VERSION_ZIP64, 0, 0, n, n, cd_size,
                                cd_start))
        self._write(struct.pack("<IIQI", _EOCD64_LOCATOR_SIG, 0, eocd64_at, 1))
        self._write(struct.pack("<IHHHHIIH", _EOCD_SIG, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                                min(cd_size, 0xFFFFFFFF), min(cd_start, 0xFFFFFFFF), 0))
        if hasattr(self._f, "flush"):
            self._f.flush()

    def _central_header(self, e: _Entry) -> bytes:
        fields = []  # ZIP64 extra: only the values that overflow, in this order
        size32 = offset32 = None
        if e.size >= ZIP64_LIMIT:
            fields += [e.size, e.size]
            size32 = 0xFFFFFFFF
        if e.offset >= ZIP64_LIMIT:
            fields.append(e.offset)
            offset32 = 0xFFFFFFFF
        extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
        version = _VERSION_ZIP64 if fields else _VERSION
        size = e.size if size32 is None else size32
        header = _CENTRAL_HEADER.pack(_CENTRAL_SIG, (3 << 8) | _VERSION_ZIP64, version, _flags(e.name), 0, 0,
                                      _DOS_DATE, e.crc, size, size, len(e.name), len(extra), 0, 0, 0, 0,
                                      e.offset if offset32 is None else offset32)
        return header + e.name + extra

    def _write(self, b) -> None:
        self._f.write(b)
        self._pos += len(b)


def _flags(encoded: bytes) -> int:
    return 0x800 if any(c > 127 for c in encoded) else 0  # bit 11: the name is UTF-8


class ZipReader:
    """Reads the records of a checkpoint archive by name, without the top folder (``PyTorchStreamReader``)."""

    def __init__(self, fileobj):
        if not hasattr(fileobj, "seekable"):  # zipfile reads the attribute; read/seek/tell are all it calls
            fileobj = _SeekableReader(fileobj)
        self._f = fileobj
        try:
            self._zip = zipfile.ZipFile(fileobj)
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central "
                                         f"directory. {_CORRUPT_HINT}") from e
        if not infos:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: archive has no records")
        first = infos[0].filename
        self.folder = first.split("/", 1)[0] if "/" in first else ""
        prefix = f"{self.folder}/" if self.folder else ""
        self._records = {i.filename[len(prefix):]: i for i in infos if i.filename.startswith(prefix)}

    def has_record(self, name: str) -> bool:
        return name in self._records

    def get_all_records(self) -> list[str]:
        return list(self._records)

    def _info(self, name: str):
        info = self._records.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        return info

    def get_record(self, name: str) -> bytes:
        try:
            return self._zip.read(self._info(name))
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}. "
                                         f"{_CORRUPT_HINT}") from e

    def record_size(self, name: str) -> int:
        return self._info(name).file_size

    def record_offset(self, name: str) -> int:
        """Where the record's data starts in the stream (after its local header)."""
        info = self._info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"record {name} is compressed; only stored (uncompressed) records have an offset")
        self._f.seek(info.header_offset)
        head = self._f.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: bad local header. "
                                         f"{_CORRUPT_HINT}")
        fields = _LOCAL_HEADER.unpack(head)
        return info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]

    def read_into(self, name: str, out: np.ndarray) -> None:
        """Fill the uint8 array ``out`` (exactly the record's size) with the record's bytes, CRC-checked."""
        info = self._info(name)
        if info.file_size != out.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: expected {out.size} "
                                         f"bytes, the archive holds {info.file_size}. {_CORRUPT_HINT}")
        if info.compress_type != zipfile.ZIP_STORED:
            out[:] = np.frombuffer(self.get_record(name), np.uint8)
            return
        self._f.seek(self.record_offset(name))
        got = read_exact(self._f, memoryview(out))
        if got != out.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the file ends after {got} "
                                         f"of {out.size} bytes. {_CORRUPT_HINT}")
        if info.CRC and zlib.crc32(out) != info.CRC:  # a zero CRC means the writer skipped the checksum
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: invalid CRC-32 (the data "
                                         f"does not match its checksum). {_CORRUPT_HINT}")


class _SeekableReader:
    """A file-like with only ``read``/``seek``/``tell`` (what PyTorch's stream reader needs), given the
    ``seekable`` that :mod:`zipfile` looks up."""

    def __init__(self, f):
        self._f = f

    def read(self, n=-1):
        return self._f.read(n)

    def seek(self, *args):
        return self._f.seek(*args)

    def tell(self):
        return self._f.tell()

    def seekable(self) -> bool:
        return True


def read_exact(f, view: memoryview) -> int:
    """Fill ``view`` from ``f`` (``readinto`` when it has one, else ``read``); the byte count read."""
    got = 0
    readinto = getattr(f, "readinto", None)
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:])
        else:
            chunk = f.read(len(view) - got)
            n = len(chunk)
            view[got:got + n] = chunk
        if not n:
            break
        got += n
    return got
