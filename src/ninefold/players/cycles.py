"""A cycle counter for timing the parts of numba code, free when it is not asked for.

`lap(parts, part, since)` in a numba function reads the processor's cycle counter,
adds the cycles since `since` to ``parts[part]`` (none when `part` is negative) and
returns the reading, to be the next part's `since`. With `parts` None (a function's
argument left out or given as None) it compiles to nothing: the search keeps its
speed, and one compiled with an array times its parts
(``benchmarks/sim_profile.py``). A reading costs some twenty cycles, so a part
timed a thousand times a simulation is overstated by that much.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def timed(parts=None):
...     t = lap(parts, -1, 0)
...     total = 0
...     for i in range(1000):
...         total += i
...     lap(parts, 0, t)
...     return total
>>> parts = np.zeros(1, np.int64)
>>> timed(parts), timed(), bool(parts[0] > 0)
(499500, 499500, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.base import BaseContext
from numba.core.typing.templates import Signature
from numba.extending import intrinsic

from ninefold.players.atomics import Typed


def _counter(builder: ir.IRBuilder) -> ir.Value:
    """The processor's cycle counter (``llvm.readcyclecounter``: rdtsc on x86)."""
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                        "llvm.readcyclecounter")
    return builder.call(fn, [])


def _lap(typingctx: object, parts: types.Type, part: types.Type, since: types.Type) -> Typed:
    """Add the cycles since `since` to ``parts[part]`` (none when `part` < 0); the
    counter now. With `parts` None: 0, and no code."""
    if not isinstance(part, types.Integer) or not isinstance(since, types.Integer):
        return None
    if isinstance(parts, (types.NoneType, types.Omitted)):
        def nothing(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
                    args: Sequence[ir.Value]) -> ir.Value:
            return ir.Constant(ir.IntType(64), 0)

        return types.int64(parts, part, since), nothing
    if not (isinstance(parts, types.Array) and parts.dtype == types.int64 and parts.ndim == 1):
        return None

    def timed(context: BaseContext, builder: ir.IRBuilder, signature: Signature,
              args: Sequence[ir.Value]) -> ir.Value:
        now = _counter(builder)
        index = context.cast(builder, args[1], signature.args[1], types.int64)
        start = context.cast(builder, args[2], signature.args[2], types.int64)
        with builder.if_then(builder.icmp_signed(">=", index, index.type(0))):
            ary = context.make_array(parts)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, parts, ary, [index],
                                           wraparound=False)
            builder.store(builder.add(builder.load(ptr), builder.sub(now, start)), ptr)
        return now

    return types.int64(parts, part, since), timed


lap = cast("Callable[[np.ndarray | None, int, int], int]", intrinsic(_lap))
