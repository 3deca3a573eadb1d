"""The checkpoint container — PyTorch's ``caffe2/serialize/inline_container.{h,cc}`` (PyTorchStreamWriter/Reader).

A checkpoint is a ZIP archive whose entries all live under one top-level folder (``archive/`` for buffers,
the file's stem for paths).  The writer lays records out as PyTorch's miniz writer does, byte for byte:

* each record is stored uncompressed, behind a local header whose CRC and size fields are zero (flag bit 3,
  0x0008, plus bit 11, UTF-8 names), with the real CRC-32 and sizes in a data descriptor after the data
  (``PK\x07\x08``, 32-bit sizes, or 64-bit ones once the size or the header's offset reaches 0xFFFFFFFF);
* a record's data starts on a multiple of ``storage_alignment`` bytes (64) from the start of the archive:
  the padding goes into the local header's extra field under the tag ``FB``, after a ZIP64 extra field
  (sizes, then the header offset, each only when it overflows 32 bits);
* ``write_end_of_file`` adds ``version``, ``byteorder`` and ``.data/serialization_id`` when they were not
  written, then the central directory and the ZIP64 end records (always written, as miniz does).

That layout is what lets ``load(mmap=True)`` point tensors straight into the mapped file, and what lets a
loader compute each record's data offset from the previous one (:func:`record_data_offset`).  Reading goes
through :mod:`zipfile` for the central directory; record data is read straight into the destination buffer
without checking its CRC-32, as PyTorch's reader does not.

Invariant: ``PyTorchFileWriter`` records read back byte for byte through ``PyTorchFileReader``, Python's
``zipfile`` and PyTorch's reader, and every record's data offset is a multiple of the alignment.
"""

from __future__ import annotations

import os
import random
import re
import struct
import sys
import zipfile
import zlib

import numpy as np

__all__ = ["PyTorchFileWriter", "PyTorchFileReader", "archive_name_of", "descriptor_size", "is_zipfile", "read_exact",
           "record_data_offset"]

_LOCAL_SIG = 0x04034B50
_DESCRIPTOR_SIG = 0x08074B50
_CENTRAL_SIG = 0x02014B50
_EOCD_SIG = 0x06054B50
_EOCD64_SIG = 0x06064B50
_EOCD64_LOCATOR_SIG = 0x07064B50
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")  # 30 bytes
_CENTRAL_HEADER = struct.Struct("<IHHHHHHIIIHHHHHII")  # 46 bytes
_FLAGS = 0x0808  # bit 3: sizes and CRC in a data descriptor; bit 11: UTF-8 names (miniz's choice)
_MADE_BY_ZIP64 = 0x031E  # in the ZIP64 end record: Unix, spec 3.0
_VERSION_ZIP64 = 45
# Values at or above this do not fit the 32-bit fields; a test lowers it to exercise the ZIP64 branch.
ZIP64_LIMIT = 0xFFFFFFFF
_ZERO_CHUNK = 1 << 20
# the archive format versions PyTorch 2.13 reads (caffe2/serialize/versions.h)
MIN_SUPPORTED_VERSION, MAX_SUPPORTED_VERSION = 1, 0xA
_CORRUPT_HINT = ("This is an internal miniz error. If you are seeing this error, there is a high likelihood that "
                 "your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was "
                 "transferred incorrectly, or the file was modified after saving.")


def is_zipfile(f) -> bool:
    """Whether the stream at its current position starts with a ZIP local header (PyTorch's ``_is_zipfile``)."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def record_data_offset(header_offset: int, full_name_len: int, size: int, alignment: int) -> int:
    """Where a record's data starts when its local header starts at ``header_offset`` (``getOffset``)."""
    start = header_offset + _LOCAL_HEADER.size + full_name_len + 4  # + the FB field's tag and length
    if size >= ZIP64_LIMIT or header_offset >= ZIP64_LIMIT:
        start += 4 + (16 if size >= ZIP64_LIMIT else 0) + (8 if header_offset >= ZIP64_LIMIT else 0)
    return start + (-start % alignment)


def descriptor_size(header_offset: int, size: int) -> int:
    """Bytes of the data descriptor after a record's data: 24 with ZIP64 sizes, else 16."""
    return 24 if size >= ZIP64_LIMIT or header_offset >= ZIP64_LIMIT else 16


class _Entry:
    __slots__ = ("name", "offset", "size", "crc")

    def __init__(self, name, offset, size, crc):
        self.name, self.offset, self.size, self.crc = name, offset, size, crc


def archive_name_of(path: str) -> str:
    """The archive folder PyTorch gives a checkpoint written to ``path``: the file name up to its last dot."""
    stem = os.path.basename(path)
    dot = stem.rfind(".")
    return (stem[:dot] if dot > 0 else stem) or "archive"


class PyTorchFileWriter:
    """Writes records ``<archive>/<name>`` into a file or a stream, aligned and uncompressed
    (``torch._C.PyTorchFileWriter``).

    Args:
        file_name_or_buffer: a path (the archive folder is its stem) or an object with ``write``.
        compute_crc32: False writes 0 for every CRC (faster; zip tools then reject the file).
        storage_alignment: the byte boundary each record's data starts on.
        archive_name: the archive folder, when it is not the one ``file_name_or_buffer`` implies.

    Example:
        >>> import io
        >>> buf = io.BytesIO()
        >>> w = PyTorchFileWriter(buf)
        >>> w.write_record("data.pkl", b"...", 3)
        >>> w.write_end_of_file()
    """

    def __init__(self, file_name_or_buffer, compute_crc32: bool = True, storage_alignment: int = 64, *,
                 archive_name: str | None = None):
        if isinstance(file_name_or_buffer, (str, os.PathLike)):
            path = os.fspath(file_name_or_buffer)
            self._f, self._owned, self._archive = open(path, "wb"), True, archive_name_of(path)  # noqa: SIM115
        else:
            self._f, self._owned, self._archive = file_name_or_buffer, False, "archive"
        if archive_name is not None:  # a file written under another name first (save's atomic rename)
            self._archive = archive_name
        self._crc32 = compute_crc32
        self._alignment = storage_alignment
        self._pos = 0  # bytes written so far, relative to the start of the archive
        self._entries: list[_Entry] = []
        self._written: set[str] = set()
        self._serialization_id = ""
        self._finished = False

    def archive_name(self) -> str:
        return self._archive

    def serialization_id(self) -> str:
        return self._serialization_id

    def get_all_written_records(self) -> set[str]:
        return set(self._written)

    def set_min_version(self, version: int) -> None:
        """Accepted for PyTorch's API; the ``version`` record stays 3 (what PyTorch 2.13 writes)."""

    def write_record(self, name: str, data, nbytes: int | None = None) -> None:
        """Append one record; ``data`` is bytes, a str, a memoryview or a C-contiguous numpy array."""
        view = data.encode() if isinstance(data, str) else memoryview(data).cast("B")
        if nbytes is not None and nbytes != len(view):
            view = view[:nbytes]
        self._add(name, len(view), [view])

    def write_record_metadata(self, name: str, nbytes: int) -> None:
        """Append a record of ``nbytes`` zero bytes: its header, and room for data filled in later (its CRC is 0,
        as PyTorch's: the real data is not known yet)."""
        self._add(name, nbytes, _zeros(nbytes), checksum=False)

    def _add(self, name: str, size: int, chunks, checksum: bool = True) -> None:
        if self._finished:
            raise RuntimeError("PytorchStreamWriter failed writing file: the archive was already finished")
        if name in self._written:
            raise RuntimeError(f"Tried to serialize file twice: {name}")
        self._written.add(name)
        full = f"{self._archive}/{name}".encode()
        offset = self._pos
        big_size, big_offset = size >= ZIP64_LIMIT, offset >= ZIP64_LIMIT
        fields = ([size, size] if big_size else []) + ([offset] if big_offset else [])
        zip64 = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
        data_at = record_data_offset(offset, len(full), size, self._alignment)
        pad = data_at - (offset + _LOCAL_HEADER.size + len(full) + len(zip64) + 4)
        extra = zip64 + struct.pack("<2sH", b"FB", pad) + b"Z" * pad
        self._write(_LOCAL_HEADER.pack(_LOCAL_SIG, 0, _FLAGS, 0, 0, 0, 0, 0, 0, len(full), len(extra)) + full + extra)
        crc = 0
        for chunk in chunks:
            if self._crc32 and checksum:
                crc = zlib.crc32(chunk, crc)
            self._write(chunk)
        if fields:
            self._write(struct.pack("<IIQQ", _DESCRIPTOR_SIG, crc, size, size))
        else:
            self._write(struct.pack("<IIII", _DESCRIPTOR_SIG, crc, size, size))
        self._entries.append(_Entry(full, offset, size, crc))

    def write_end_of_file(self) -> None:
        """Add the missing ``version``/``byteorder``/serialization id, the central directory and the end records."""
        if self._finished:
            return
        if "version" not in self._written and ".data/version" not in self._written:
            self.write_record("version", b"3\n")
        if "byteorder" not in self._written:
            self.write_record("byteorder", sys.byteorder.encode())
        if ".data/serialization_id" not in self._written:
            self._serialization_id = "".join(random.choice("0123456789") for _ in range(40))
            self.write_record(".data/serialization_id", self._serialization_id.encode())
        self._finished = True
        cd_start = self._pos
        for e in self._entries:
            self._write(self._central_header(e))
        cd_size = self._pos - cd_start
        n = len(self._entries)
        eocd64_at = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", _EOCD64_SIG, 44, _MADE_BY_ZIP64, _VERSION_ZIP64, 0, 0, n, n, cd_size,
                                cd_start))
        self._write(struct.pack("<IIQI", _EOCD64_LOCATOR_SIG, 0, eocd64_at, 1))
        self._write(struct.pack("<IHHHHIIH", _EOCD_SIG, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF),
                                min(cd_size, 0xFFFFFFFF), min(cd_start, 0xFFFFFFFF), 0))
        if hasattr(self._f, "flush"):
            self._f.flush()
        if self._owned:
            self._f.close()

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
        size = e.size if size32 is None else size32
        header = _CENTRAL_HEADER.pack(_CENTRAL_SIG, 0, _VERSION_ZIP64 if fields else 0, _FLAGS, 0, 0, 0, e.crc, size,
                                      size, len(e.name), len(extra), 0, 0, 0, 0,
                                      e.offset if offset32 is None else offset32)
        return header + e.name + extra

    def _write(self, b) -> None:
        self._f.write(b)
        self._pos += len(b)


def _zeros(n: int):
    block = bytes(min(n, _ZERO_CHUNK))
    while n > 0:
        step = min(n, _ZERO_CHUNK)
        yield memoryview(block)[:step]
        n -= step


class PyTorchFileReader:
    """Reads the records of a checkpoint archive by name, without the top folder (``torch._C.PyTorchFileReader``).

    Args:
        file_name_or_buffer: a path or a readable, seekable object (only ``read``/``seek``/``tell`` are used).

    Raises:
        RuntimeError: the bytes are no zip archive (PyTorch's "failed finding central directory" message).
    """

    def __init__(self, file_name_or_buffer):
        if isinstance(file_name_or_buffer, (str, os.PathLike)):
            file_name_or_buffer = open(os.fspath(file_name_or_buffer), "rb")  # noqa: SIM115
        elif not hasattr(file_name_or_buffer, "seekable"):  # zipfile reads the attribute
            file_name_or_buffer = _SeekableReader(file_name_or_buffer)
        self._f = file_name_or_buffer
        try:
            self._zip = zipfile.ZipFile(file_name_or_buffer)
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central "
                               f"directory. {_CORRUPT_HINT}") from e
        if not infos:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: archive has no records")
        first = infos[0].filename
        if "/" not in first:
            raise RuntimeError(f"[enforce fail at inline_container.cc:180] . file in archive is not in a "
                               f"subdirectory: {first}")
        self.folder = first.split("/", 1)[0]
        prefix = f"{self.folder}/"
        self._records = {i.filename[len(prefix):]: i for i in infos if i.filename.startswith(prefix)}
        self.version = self._check_version()

    def _check_version(self) -> int:
        """The archive's format version (``.data/version`` or ``version``), within what PyTorch 2.13 reads (1-10)."""
        if not self.has_record(".data/version") and not self.has_record("version"):
            raise RuntimeError('Expected hasRecord("version") to be true, but got false.  (Could this error message be '
                               'improved?  If so, please report an enhancement request to PyTorch.)')
        text = self.get_record(".data/version" if self.has_record(".data/version") else "version").decode("latin-1")
        number = re.match(r"\s*([+-]?\d+)", text)  # std::stoll: leading blanks, a sign, digits; the rest ignored
        if number is None:
            raise RuntimeError(f"[enforce fail at inline_container.cc:215] . Couldn't parse the version {text} as "
                               "Long Long.")
        version = int(number.group(1))
        if version < MIN_SUPPORTED_VERSION:
            raise RuntimeError(f"[enforce fail at inline_container.cc:219] . Attempted to read a PyTorch file with "
                               f"version {version}, but the minimum supported version for reading is "
                               f"{MIN_SUPPORTED_VERSION}. Your PyTorch script module file is too old. Please "
                               "regenerate it with latest version of PyTorch to mitigate this issue.")
        if version > MAX_SUPPORTED_VERSION:
            raise RuntimeError(f"[enforce fail at inline_container.cc:230] . Attempted to read a PyTorch file with "
                               f"version {version}, but the maximum supported version for reading is "
                               f"{MAX_SUPPORTED_VERSION}. The version of your PyTorch installation may be too old, "
                               "please upgrade PyTorch to latest version to mitigate this issue.")
        return version

    def has_record(self, name: str) -> bool:
        return name in self._records

    def get_all_records(self) -> list[str]:
        return list(self._records)

    def serialization_id(self) -> str:
        return self.get_record(".data/serialization_id").decode() if self.has_record(".data/serialization_id") else ""

    def _info(self, name: str):
        info = self._records.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found. {_CORRUPT_HINT}")
        return info

    def get_record(self, name: str) -> bytes:
        """The record's bytes (their CRC-32 unchecked, as in PyTorch; see :meth:`read_into`)."""
        info = self._info(name)
        if info.compress_type == zipfile.ZIP_STORED:
            out = np.empty(info.file_size, np.uint8)
            self.read_into(name, out)
            return out.tobytes()
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}. {_CORRUPT_HINT}") from e

    def get_record_size(self, name: str) -> int:
        return self._info(name).file_size

    def get_record_header_offset(self, name: str) -> int:
        return self._info(name).header_offset

    def get_record_offset(self, name: str) -> int:
        """Where the record's data starts in the stream (after its local header)."""
        info = self._info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"record {name} is compressed; only stored (uncompressed) records have an offset")
        self._f.seek(info.header_offset)
        head = self._f.read(_LOCAL_HEADER.size)
        if len(head) != _LOCAL_HEADER.size or head[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: bad local header. {_CORRUPT_HINT}")
        fields = _LOCAL_HEADER.unpack(head)
        return info.header_offset + _LOCAL_HEADER.size + fields[9] + fields[10]

    def get_record_offset_no_read(self, cursor: int, name: str, size: int, alignment: int) -> int:
        """The data offset of record ``name`` of ``size`` bytes whose header starts at ``cursor`` (no I/O)."""
        return record_data_offset(cursor, len(f"{self.folder}/{name}".encode()), size, alignment)

    def read_into(self, name: str, out: np.ndarray) -> None:
        """Fill the uint8 array ``out`` (exactly the record's size) with the record's bytes.

        The CRC-32 is not checked, as PyTorch's reader does not check it: a file whose bytes were edited in
        place after saving (or written with ``compute_crc32=False``) loads as PyTorch loads it.
        """
        info = self._info(name)
        if info.file_size != out.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: expected {out.size} "
                               f"bytes, the archive holds {info.file_size}. {_CORRUPT_HINT}")
        if info.compress_type != zipfile.ZIP_STORED:
            out[:] = np.frombuffer(self.get_record(name), np.uint8)
            return
        self._f.seek(self.get_record_offset(name))
        got = read_exact(self._f, memoryview(out))
        if got != out.size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the file ends after {got} "
                               f"of {out.size} bytes. {_CORRUPT_HINT}")


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

    def __getattr__(self, name):  # readinto, when the wrapped object has one (read_exact prefers it)
        if name == "readinto":
            return self._f.readinto
        raise AttributeError(name)

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
