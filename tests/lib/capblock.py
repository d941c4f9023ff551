"""Decode a capture block's payload as the tests' own, independent reader.

A block names its codec in its header's last word (docs/capture-format.md):
0 zlib (every block of a version 1 capture), 1 zstd (what fabtrace writes
since version 2).  zstd comes from the system's libzstd through ctypes,
since this Python has no zstd module.

    import capblock
    raw = capblock.decode(codec, payload, ulen)   # bytes; capblock.Error if bad
"""
import ctypes
import ctypes.util
import zlib

ZLIB, ZSTD = 0, 1


class Error(Exception):
    pass


_zstd = None


def _lib():
    global _zstd
    if _zstd is None:
        lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
        lib.ZSTD_decompress.restype = ctypes.c_size_t
        lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
        lib.ZSTD_isError.restype = ctypes.c_uint
        lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
        lib.ZSTD_getErrorName.restype = ctypes.c_char_p
        lib.ZSTD_getErrorName.argtypes = [ctypes.c_size_t]
        _zstd = lib
    return _zstd


def decode(codec, payload, ulen):
    """The ulen bytes of records in payload; Error unless it decodes to exactly that."""
    if codec == ZLIB:
        try:
            raw = zlib.decompress(payload)
        except zlib.error as e:
            raise Error(f"zlib: {e}") from None
    elif codec == ZSTD:
        lib = _lib()
        out = ctypes.create_string_buffer(max(ulen, 1))
        n = lib.ZSTD_decompress(out, ulen, payload, len(payload))
        if lib.ZSTD_isError(n):
            raise Error("zstd: " + lib.ZSTD_getErrorName(n).decode())
        raw = out.raw[:n]
    else:
        raise Error(f"unknown codec {codec}")
    if len(raw) != ulen:
        raise Error(f"payload is {len(raw)} bytes, header says {ulen}")
    return raw
