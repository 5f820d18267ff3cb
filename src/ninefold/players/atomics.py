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

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.base import BaseContext
from numba.core.typing.templates import Signature
from numba.extending import intrinsic

# An intrinsic's typing function: the typing context and the arguments' numba types in,
# None (unsupported types) or the signature and the function that emits its LLVM code out.
Codegen = Callable[[BaseContext, ir.IRBuilder, Signature, Sequence[ir.Value]], ir.Value]
Typed = tuple[Signature, Codegen] | None


def _pointer(context: BaseContext, builder: ir.IRBuilder, arr_t: types.Array, arr: ir.Value,
             idx: ir.Value) -> ir.Value:
    ary = context.make_array(arr_t)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arr_t, ary, [idx], wraparound=False)


def _atomic_add(typingctx: object, arr: types.Type, idx: types.Type, val: types.Type) -> Typed:
    """arr[idx] += val in one step; returns the old value (ints and floats)."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    dtype = arr.dtype
    sig = dtype(arr, idx, dtype)

    def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                args: Sequence[ir.Value]) -> ir.Value:
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        op = "fadd" if isinstance(dtype, types.Float) else "add"
        return builder.atomic_rmw(op, ptr, args[2], "monotonic")

    return sig, codegen


def _atomic_cas(typingctx: object, arr: types.Type, idx: types.Type, expected: types.Type,
                new: types.Type) -> Typed:
    """Set arr[idx] = new if it equals expected; True if it did (integers)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    dtype = arr.dtype
    sig = types.boolean(arr, idx, dtype, dtype)

    def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                args: Sequence[ir.Value]) -> ir.Value:
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        pair = builder.cmpxchg(ptr, args[2], args[3], "acq_rel", "monotonic")
        return builder.extract_value(pair, 1)

    return sig, codegen


def _atomic_load(typingctx: object, arr: types.Type, idx: types.Type) -> Typed:
    """arr[idx], read so that writes made before a matching `atomic_store` are seen."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    sig = arr.dtype(arr, idx)

    def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                args: Sequence[ir.Value]) -> ir.Value:
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        align = context.get_abi_alignment(context.get_data_type(arr_t.dtype))
        return builder.load_atomic(ptr, "acquire", align)

    return sig, codegen


def _atomic_store(typingctx: object, arr: types.Type, idx: types.Type,
                  val: types.Type) -> Typed:
    """arr[idx] = val, published after every write made before it (integers)."""
    if not isinstance(arr, types.Array) or not isinstance(arr.dtype, types.Integer):
        return None
    sig = types.void(arr, idx, arr.dtype)

    def codegen(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                args: Sequence[ir.Value]) -> ir.Value:
        arr_t = signature.args[0]
        ptr = _pointer(context, builder, arr_t, args[0], args[1])
        align = context.get_abi_alignment(context.get_data_type(arr_t.dtype))
        builder.store_atomic(args[2], ptr, "release", align)
        return context.get_dummy_value()

    return sig, codegen


# The intrinsics as numba code calls them (Python code cannot: numba's stubs type each as
# its typing function, context first, which is not how it is called).
atomic_add = cast("Callable[[np.ndarray, int, Any], Any]", intrinsic(_atomic_add))
atomic_cas = cast("Callable[[np.ndarray, int, int, int], bool]", intrinsic(_atomic_cas))
atomic_load = cast("Callable[[np.ndarray, int], int]", intrinsic(_atomic_load))
atomic_store = cast("Callable[[np.ndarray, int, int], None]", intrinsic(_atomic_store))
