"""Runs an `npu` program's kernels in an order its streams and events allow.

**Order.** The tasks run in a start order the streams and events allow (`sim.order`).

**Memory.** Every buffer that is not a view owns a byte array (zero-filled, so that a run is
deterministic even when a broken program reads what nothing wrote); a view is a typed window
on its root's bytes at its offset, so aliasing is real.  Weights are copied in once.  A
buffer the host cannot allocate is a located `GeError` (`sim.run` refuses a program larger
than the device's HBM before this).

**Numbers.** A launch runs its kernel (`ge_dialect.sim.kernels`) on the typed views of its
input buffers and writes each result into its output buffer (an in-place kernel writes
into the output buffer itself: `scatter_update` moves only its update); a copy copies
bytes.  Inputs are
given as logical arrays and converted to the physical layout of their argument (the format
maths of `ge_dialect.utils.layout`); outputs are read back as logical arrays.

**Ranks.** `execute_ranks` runs rank programs together: each rank runs up to its next
collective, and a collective runs once all its members reached it, computing what the real
one would on the members' buffers (an all-reduce reduces them, an all-gather concatenates
them in rank order, a reduce-scatter leaves block i of the reduction on member i, an
all-to-all exchanges pieces, a broadcast copies the root's, a send and its receive are a
pair that copies the sender's buffer to the receiver: both wait for each other), so all
ranks see their collectives in one consistent order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ge_dialect.sim.kernels import Operand, UnknownKernel, run_kernel
from ge_dialect.sim.kernels.base import compute_dtype, store
from ge_dialect.sim.order import Finding, SimulationError, start_order
from ge_dialect.sim.program import WEIGHT, Buffer, Program, Task
from ge_dialect.utils import layout
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import COPY, LAUNCH


def kernel_error(task: Task, e: Exception) -> GeError:
    """A launch the simulator cannot run (a device program written by hand can name an
    unknown kernel or give a kernel operands it does not take): one located error."""
    if isinstance(e, UnknownKernel):
        return GeError(
            f"{task.location}: error: unknown kernel '{task.kernel}' (the simulator has no "
            "kernel of that name)"
        )
    reason = e.args[0] if type(e) is KeyError and e.args else e
    return GeError(
        f"{task.location}: error: '{task.kernel}' on stream {task.stream} cannot run on the "
        f"operands this launch gives it: {reason}"
    )


class Memory:
    """The buffers of a program as byte arrays, views included."""

    def __init__(self, program: Program):
        self.program = program
        self.roots: dict[int, np.ndarray] = {}
        weights: dict[int, np.ndarray] = {}
        for buffer in program.buffers:
            if buffer.root != buffer.index:
                continue
            if buffer.kind == WEIGHT:
                weights[buffer.index] = program.weight(buffer.index)
                self.roots[buffer.index] = weights[buffer.index].reshape(-1).view(np.uint8)
            else:
                self.roots[buffer.index] = _zeros(buffer)
        self.arrays: list[np.ndarray] = [
            weights[b.index] if b.index in weights else self._typed(b) for b in program.buffers
        ]

    def _typed(self, buffer: Buffer) -> np.ndarray:
        root = self.roots[buffer.root]
        raw = root[buffer.offset : buffer.offset + buffer.nbytes]
        return raw.view(buffer.dtype).reshape(buffer.shape)


def _zeros(buffer: Buffer) -> np.ndarray:
    """The zero-filled bytes of a root buffer; a buffer the host cannot allocate is a
    GeError (`sim.run.check_capacity` refuses what the device's HBM cannot hold first)."""
    try:
        return np.zeros(buffer.nbytes, dtype=np.uint8)
    except (MemoryError, ValueError):
        where = f"{buffer.location}: " if buffer.location else ""
        raise GeError(
            f"{where}error: cannot allocate the {buffer.nbytes} bytes of {buffer.kind} buffer "
            f"{buffer.index}{f' {buffer.name!r}' if buffer.name else ''} on the host running "
            "the simulator"
        ) from None


def physical_input(value: np.ndarray, buffer: Buffer) -> np.ndarray:
    """A logical input array in the physical layout of its argument."""
    t = buffer.logical
    assert t is not None
    return layout.to_physical(value.astype(t.dtype, copy=False), t.fmt, t.c0, t.groups)


def logical_output(value: np.ndarray, buffer: Buffer) -> np.ndarray:
    """An output buffer's logical array."""
    t = buffer.logical
    assert t is not None
    return layout.to_logical(value, t.fmt, t.shape, t.c0, t.groups)


def execute(
    program: Program, inputs: Mapping[str, np.ndarray], order: list[int] | None = None
) -> dict[str, np.ndarray]:
    """Runs `program` on logical `inputs` (by input name) with its tasks started in `order`
    (`start_order`'s when None); returns logical outputs by name.

    Raises `SimulationError` when the program deadlocks (nothing is computed then).
    """
    if order is None:
        schedule = start_order(program)
        if schedule.findings:
            raise SimulationError(schedule.findings)
        order = schedule.order
    arrays = _prepared(program, inputs)
    tasks = program.tasks
    for index in order:
        _execute_task(tasks[index], arrays)
    return _outputs(program, arrays)


def _execute_task(task: Task, arrays: list[np.ndarray]) -> None:
    """Runs one task of a program on its buffers."""
    if task.kind == LAUNCH:
        try:
            results = run_kernel(
                task.kernel,
                [arrays[i] for i in task.inputs],
                list(task.in_types),
                list(task.out_types),
                task.attrs,
                [arrays[i] for i in task.outputs],
            )
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise kernel_error(task, e) from None
        for i, result in zip(task.outputs, results, strict=True):
            if result is not arrays[i]:  # an in-place kernel wrote it already
                arrays[i][...] = result
    elif task.kind == COPY:
        arrays[task.outputs[0]][...] = arrays[task.inputs[0]]


def _outputs(program: Program, arrays: list[np.ndarray]) -> dict[str, np.ndarray]:
    return {
        program.buffers[i].output_name: logical_output(arrays[i].copy(), program.buffers[i])
        for i in program.outputs
    }


def _prepared(program: Program, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    arrays = Memory(program).arrays
    for i in program.inputs:
        buffer = program.buffers[i]
        arrays[i][...] = physical_input(np.asarray(inputs[buffer.name]), buffer)
    return arrays


def collective_result(
    kernel: str, values: list[np.ndarray], attrs: Mapping[str, object], out: Operand
) -> np.ndarray:
    """What a real collective leaves on every member, from the members' stored inputs in
    rank order: an all-reduce reduces them elementwise (sum, prod, max, min; in the
    compute dtype, rounded once), an all-gather concatenates them along dim 0."""
    if kernel == "hcom_all_gather":
        return store(np.concatenate(values, axis=0), out)
    reduction = str(attrs.get("reduction", "sum"))
    wide = [v.astype(compute_dtype(v.dtype), copy=False) for v in values]
    if reduction == "sum":
        result = np.sum(wide, axis=0, dtype=wide[0].dtype)
    elif reduction == "prod":
        with np.errstate(over="ignore"):
            result = np.prod(wide, axis=0, dtype=wide[0].dtype)
    elif reduction == "max":
        result = np.max(wide, axis=0)
    elif reduction == "min":
        result = np.min(wide, axis=0)
    else:
        raise ValueError(f"hcom_all_reduce: unknown reduction {reduction!r}")
    return store(np.array(result), out)


def collective_results(tasks: list[Task], values: list[np.ndarray]) -> list[np.ndarray | None]:
    """What each member of one collective holds after it, from its members' tasks (group
    rank order) and their stored inputs (a receive has none): reduce-scatter's member i
    keeps block i of the reduction, all-to-all's member i joins piece i of every member's
    input (cut at its `send_counts`), broadcast copies the root's, a send/receive pair
    moves the sender's buffer to the receiver (None: nothing written, the send)."""
    lead = tasks[0]
    kernel = lead.kernel
    if kernel in ("hcom_send", "hcom_receive"):
        (sent,) = values
        return [
            None if t.kernel == "hcom_send" else store(np.array(sent), t.out_types[0])
            for t in tasks
        ]
    if kernel == "hcom_broadcast":
        root = values[int(lead.attrs.get("root", 0))]
        return [store(np.array(root), t.out_types[0]) for t in tasks]
    if kernel == "hcom_reduce_scatter":
        whole = collective_result("hcom_all_reduce", values, lead.attrs, _whole(lead))
        blocks = np.array_split(whole, len(tasks), axis=0)
        return [store(b, t.out_types[0]) for b, t in zip(blocks, tasks, strict=True)]
    if kernel == "hcom_all_to_all":
        return [_all_to_all(i, tasks, values) for i in range(len(tasks))]
    return [collective_result(kernel, values, lead.attrs, t.out_types[0]) for t in tasks]


def _whole(task: Task) -> Operand:
    """The operand a reduce-scatter's whole reduction is stored as (its input's type)."""
    return task.in_types[0]


def _cuts(task: Task, value: np.ndarray, ranks: int) -> list[np.ndarray]:
    split = int(task.attrs.get("split_dim", 0))
    counts = task.attrs.get("send_counts")
    if counts is None:
        return np.split(value, ranks, axis=split)
    bounds = np.cumsum([int(c) for c in counts])[:-1]
    return np.split(value, bounds, axis=split)


def _all_to_all(i: int, tasks: list[Task], values: list[np.ndarray]) -> np.ndarray:
    """Member i's result: piece i of every member's input, joined in group-rank order."""
    me = tasks[i]
    pieces = [_cuts(t, v, len(tasks))[i] for t, v in zip(tasks, values, strict=True)]
    recv = me.attrs.get("recv_counts")
    concat = int(me.attrs.get("concat_dim", 0))
    if recv is not None:
        for j, (piece, want) in enumerate(zip(pieces, recv, strict=True)):
            if piece.shape[concat] != int(want):
                raise ValueError(
                    f"group rank {i} expects {int(want)} from group rank {j}, which sends "
                    f"{piece.shape[concat]} (send_counts and recv_counts disagree)"
                )
    return store(np.concatenate(pieces, axis=concat), me.out_types[0])


def execute_ranks(
    programs: Sequence[Program],
    inputs: Sequence[Mapping[str, np.ndarray]],
    orders: Sequence[Sequence[int]],
    collectives: Sequence[Mapping[int, int]],
) -> list[dict[str, np.ndarray]]:
    """Runs rank programs together: `programs[r]` on `inputs[r]` in `orders[r]`; each of
    `collectives` maps its member ranks to their task.  Each rank runs its tasks up to its
    next collective; a collective runs once every member has reached it (`collective_results`
    on their buffers, written to each member's output), so every rank sees the collectives
    in one order.  Returns each rank's logical outputs; a collective no ordering lets every
    member reach is a `SimulationError`."""
    arrays = [_prepared(p, x) for p, x in zip(programs, inputs, strict=True)]
    meets = {(r, index): c for c in collectives for r, index in c.items()}
    position = [0] * len(programs)
    while True:
        moved = False
        for r, program in enumerate(programs):
            order = orders[r]
            while position[r] < len(order):
                index = order[position[r]]
                c = meets.get((r, index))
                if c is None:
                    _execute_task(program.tasks[index], arrays[r])
                    position[r] += 1
                    moved = True
                    continue
                if not all(
                    position[q] < len(orders[q]) and orders[q][position[q]] == t
                    for q, t in c.items()
                ):
                    break
                members = sorted(c.items())
                tasks = [programs[q].tasks[t] for q, t in members]
                values = [
                    arrays[q][task.inputs[0]]
                    for (q, _), task in zip(members, tasks, strict=True)
                    if task.inputs
                ]
                try:
                    results = collective_results(tasks, values)
                except (ValueError, TypeError) as e:
                    raise kernel_error(programs[r].tasks[index], e) from None
                for (q, _), task, result in zip(members, tasks, results, strict=True):
                    if result is not None:
                        arrays[q][task.outputs[0]][...] = result
                    position[q] += 1
                moved = True
        if all(position[r] == len(orders[r]) for r in range(len(programs))):
            break
        if not moved:
            stuck = [
                f"rank {r} at the {programs[r].tasks[orders[r][position[r]]].describe()}"
                for r in range(len(programs))
                if position[r] < len(orders[r])
            ]
            raise SimulationError(
                [
                    Finding(
                        "deadlock", "deadlock: collectives no order completes: " + "; ".join(stuck)
                    )
                ]
            )
    return [_outputs(p, a) for p, a in zip(programs, arrays, strict=True)]
