"""Atomic operations on numpy array elements, for numba code shared by threads.

Numba has no atomics for CPU code, so these are three LLVM instructions
exposed as intrinsics. Tree-parallel MCTS needs them: several threads
search one tree, and a node's visit count, its reward total and the
counter of nodes in use must not lose updates, and a node must be
expanded by one thread only.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def bump(a):
...     old = atomic_add(a, 0, 5)
...     won = atomic_cas(a, 1, 0, 7)
...     return old, won, atomic_load(a, 1)
>>> bump(np.zeros(2, np.int64))
(0, True, 7)
"""

from __future__ import annotations

from numba.core import cgutils, types
from numba.extending import intrinsic


def _pointer(context, builder, arr_t, arr, idx):
    ary = context.make_array(arr_t)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arr_t, ary, [idx], wraparound=False)


@intrinsic
def atomic_add(typingctx, arr, idx, val):
    """arr[idx] += val in one step; returns the old value (ints and floats)."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    dtype = arr.dtype
    sig = dtype(arr, idx, dtype)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        op = "fadd" if isinstance(dtype, types.Float) else "add"
        return builder.atomic_rmw(op, ptr, args[2], "monotonic")

    return sig, codegen


@intrinsic
def atomic_cas(typingctx, arr, idx, expected, new):
    """Set arr[idx] = new if it equals expected; True if it did (integers)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    dtype = arr.dtype
    sig = types.boolean(arr, idx, dtype, dtype)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        pair = builder.cmpxchg(ptr, args[2], args[3], "acq_rel", "monotonic")
        return builder.extract_value(pair, 1)

    return sig, codegen


@intrinsic
def atomic_load(typingctx, arr, idx):
    """arr[idx], read so that writes made before a matching `atomic_store` are seen."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    sig = arr.dtype(arr, idx)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        align = context.get_abi_alignment(context.get_data_type(arr_t.dtype))
        return builder.load_atomic(ptr, "acquire", align)

    return sig, codegen


@intrinsic
def atomic_store(typingctx, arr, idx, val):
    """arr[idx] = val, published after every write made before it (integers)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    sig = types.void(arr, idx, arr.dtype)

    def codegen(context, builder, signature, args):
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        align = context.get_abi_alignment(context.get_data_type(arr_t.dtype))
        builder.store_atomic(args[2], ptr, "release", align)
        return context.get_dummy_value()

    return sig, codegen

