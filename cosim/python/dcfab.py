"""dcfab.py - a small ctypes wrapper over libdcfab_cosim.so (the dcfab C ABI).

For cocotb users: use a dcfab block as the reference model / scoreboard of an RTL design.

    from dcfab import TokenBucket
    tb = TokenBucket(rate_q32=1 << 30, depth=4, start_full=True)
    granted = tb.try_take(1)
    tb.tick()

Each call checks the C status and raises DcfabError (with the library's message) on
failure; nothing the Python side does can crash the process through this wrapper.
The library is found through $DCFAB_LIB, else target/{release,debug}/libdcfab_cosim.so
under $CARGO_TARGET_DIR or the repository root.
"""

import ctypes
import os
from ctypes import POINTER, byref, c_char_p, c_int32, c_uint8, c_uint32, c_uint64, c_void_p

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(_HERE))

# Status codes (cosim/include/dcfab.h).
DCFAB_OK = 0
DCFAB_ERR_NULL_HANDLE = -1
DCFAB_ERR_BAD_HANDLE = -2
DCFAB_ERR_WRONG_KIND = -3
DCFAB_ERR_NULL_POINTER = -4
DCFAB_ERR_ARG = -5
DCFAB_ERR_CONFIG = -6
DCFAB_ERR_FULL = -7
DCFAB_ERR_INTERNAL = -8
DCFAB_ABI_VERSION = 1


class DcfabError(RuntimeError):
    """A dcfab call failed: `status` is the DCFAB_ERR_* code, str() the library's message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def candidates():
    """Paths where the library is looked for, in order."""
    env = os.environ.get("DCFAB_LIB")
    if env:
        yield env
    targets = [os.environ.get("CARGO_TARGET_DIR"), os.path.join(_ROOT, "target")]
    for t in filter(None, targets):
        for profile in ("release", "debug"):
            yield os.path.join(t, profile, "libdcfab_cosim.so")


def load(path=None):
    """Load the library (once) and declare the prototypes."""
    for p in [path] if path else candidates():
        if p and os.path.exists(p):
            lib = ctypes.CDLL(p)
            break
    else:
        raise FileNotFoundError(
            "libdcfab_cosim.so not found: build it with `cargo build --release -p dcfab-cosim` "
            "or set DCFAB_LIB"
        )
    h = c_void_p
    protos = {
        "dcfab_abi_version": (c_uint32, []),
        "dcfab_version": (c_char_p, []),
        "dcfab_last_error": (c_char_p, []),
        "dcfab_status_name": (c_char_p, [c_int32]),
        "dcfab_live_handles": (c_uint32, []),
        "dcfab_tb_new": (h, [POINTER(TokenBucketConfig)]),
        "dcfab_tb_new_flat": (h, [c_uint64, c_uint32, c_uint8]),
        "dcfab_tb_free": (c_int32, [h]),
        "dcfab_tb_try_take": (c_int32, [h, c_uint32, POINTER(c_uint8)]),
        "dcfab_tb_tick": (c_int32, [h]),
        "dcfab_tb_advance": (c_int32, [h, c_uint64]),
        "dcfab_tb_can_take": (c_int32, [h, c_uint32, POINTER(c_uint8)]),
        "dcfab_tb_tokens": (c_int32, [h, POINTER(c_uint32)]),
        "dcfab_tb_tokens_q32": (c_int32, [h, POINTER(c_uint64)]),
        "dcfab_tb_cycles_until": (c_int32, [h, c_uint32, POINTER(c_uint64)]),
    }
    for name, (res, args) in protos.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    if lib.dcfab_abi_version() != DCFAB_ABI_VERSION:
        raise DcfabError(
            DCFAB_ERR_ARG,
            f"library ABI {lib.dcfab_abi_version()} != wrapper ABI {DCFAB_ABI_VERSION}",
        )
    return lib


class TokenBucketConfig(ctypes.Structure):
    """DcfabTokenBucketConfig."""

    _fields_ = [("rate_q32", c_uint64), ("depth", c_uint32), ("start_full", c_uint8)]


_lib = None


def lib():
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is None:
        _lib = load()
    return _lib


def last_error():
    """The calling thread's last error message."""
    return lib().dcfab_last_error().decode()


def check(status):
    """Raise DcfabError unless `status` is DCFAB_OK."""
    if status != DCFAB_OK:
        raise DcfabError(status, last_error())


class TokenBucket:
    """rtl_models::TokenBucket: rate in tokens/cycle (Q32.32), depth in whole tokens."""

    def __init__(self, rate_q32, depth, start_full=True):
        cfg = TokenBucketConfig(rate_q32, depth, 1 if start_full else 0)
        self._h = lib().dcfab_tb_new(byref(cfg))
        if not self._h:
            raise DcfabError(DCFAB_ERR_CONFIG, last_error())
        self._owned = True

    def free(self):
        """Free the block now (later calls raise DcfabError with DCFAB_ERR_BAD_HANDLE)."""
        self._owned = False
        check(lib().dcfab_tb_free(self._h))

    def __del__(self):
        if getattr(self, "_owned", False) and _lib is not None:
            _lib.dcfab_tb_free(self._h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._owned:
            self.free()

    def try_take(self, n):
        """Per-cycle input: take n tokens if available; returns whether they were taken."""
        g = c_uint8()
        check(lib().dcfab_tb_try_take(self._h, n, byref(g)))
        return bool(g.value)

    def tick(self):
        """Clock edge."""
        check(lib().dcfab_tb_tick(self._h))

    def advance(self, cycles):
        """Jump over idle cycles."""
        check(lib().dcfab_tb_advance(self._h, cycles))

    def can_take(self, n):
        out = c_uint8()
        check(lib().dcfab_tb_can_take(self._h, n, byref(out)))
        return bool(out.value)

    @property
    def tokens(self):
        out = c_uint32()
        check(lib().dcfab_tb_tokens(self._h, byref(out)))
        return out.value

    @property
    def tokens_q32(self):
        out = c_uint64()
        check(lib().dcfab_tb_tokens_q32(self._h, byref(out)))
        return out.value

    def cycles_until(self, n):
        """Idle cycles until n tokens are available; None if never."""
        out = c_uint64()
        check(lib().dcfab_tb_cycles_until(self._h, n, byref(out)))
        return None if out.value == 2**64 - 1 else out.value


class Lfsr32:
    """rtl_models::Lfsr32 (Galois, mask 0x80200003), for reproducing the Rust stimulus."""

    def __init__(self, seed=0xACE1):
        self.state = seed & 0xFFFFFFFF or 1

    def next_u32(self):
        s = self.state
        for _ in range(32):
            s = (s >> 1) ^ 0x80200003 if s & 1 else s >> 1
        self.state = s
        return s
