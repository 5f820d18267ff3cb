"""``python -m ninefold.learn.distill``: a smaller, faster network taught by a bigger one.

    python -m ninefold.learn.distill --out runs/small --hidden 128,64 --games 10000 \
        --cheap-games 40000 --teacher-share 0.5

The teacher (the shipped network unless ``--teacher``) plays itself with its
search at ``--sims`` simulations a move, as `ninefold.learn` plays self-play
(`ninefold.learn.selfplay.generate`: rules presets, random-four openings,
the first moves drawn by visits). Its games are saved in chunks of
``--chunk`` games, ``data_K.npz``, so a run that stops goes on where it
stopped and a later run with more ``--games`` adds chunks. ``--cheap-games``
more games at ``--cheap-sims`` (``cheap_K.npz``, chunks of four times as
many games) add positions at a tenth of the cost: what they need is the
teacher's own opinion of them, not a deep search's.

The targets are those of `ninefold.learn.train` (the visit shares; half the
game's result, half the search's value), blended with the teacher network's
own outputs in the share ``--teacher-share`` (its policy over the legal moves,
its value). The student, of the hidden sizes ``--hidden``, is trained on
every chunk but a held-out tenth of the last ``data_K.npz`` (scored against
the search's targets alone), and saved as ``student.npz`` with its
``meta``: the command, the teacher's checksum, the data files and the
held-out losses of both networks.
``--data FILE`` (any number) adds positions that were played already, such
as a ``python -m ninefold.learn`` run's ``data_K.npz``, to the training set,
before the run's own (so with ``--games 0`` the held-out tenth comes from the
last of them). A student as large as the teacher, trained longer on more of
its games, is a stronger network: that is how the shipped one was made
(docs/research/network-rounds.md, "A longer training on more of the network's games").
``--rules PRESET`` plays every self-play game under that rules preset and
``--empty-share`` sets the share started from the empty board (by default the
mix of presets `ninefold.learn.selfplay` uses, one game in ten from the empty
board): ``--rules codingame --empty-share 0.75`` aims a round at CodinGame's
games, where the second player's first moves decide most.
``--device cuda`` trains on a GPU, as ``python -m ninefold.learn`` does.
``--data-only`` stops after the self-play files: positions for another
learner, such as the fast network's (`ninefold.learn.fastnet`), without
PyTorch.
``--start FILE`` trains on from that network's weights instead of random ones
(its shape is the student's; ``--lr`` sets the peak learning rate, lower
for a network that only needs to move a little): a new round of the shipped
network, trained on its own newer games.
Last, a match at equal simulations against the teacher (``--gate-pairs``
paired games from random-four openings, each with its playout share
``--student-mix`` and ``--teacher-mix``) says what the smaller network costs
in strength per simulation; the student plays faster per simulation.
docs/research/speed.md has two runs: a 128-64 student runs 1.3x the shipped
network's simulations a second and loses 58 ± 34 Elo to it at equal
simulations, so it is not shipped.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import numpy as np
import typer

from ninefold.jitcache import njit
from ninefold.learn.commands import (
    DEVICE,
    DEVICE_HELP,
    TrainingError,
    given_command,
    module_app,
    need_torch,
)
from ninefold.learn.selfplay import EMPTY_SHARE, Openings
from ninefold.players.net import Net, NetError, evaluate, load_net, new_scratch
from ninefold.protocols.botmain import choices
from ninefold.variants import PRESETS

if TYPE_CHECKING:
    from ninefold.learn.selfplay import Positions
    from ninefold.learn.train import Dataset


@dataclass(frozen=True)
class Course:
    """What a distillation run does (recorded with the student)."""

    teacher: str = "default"
    hidden: tuple[int, int] = (128, 64)
    games: int = 10000
    chunk: int = 500
    sims: int = 800
    cheap_games: int = 0
    cheap_sims: int = 100
    teacher_share: float = 0.0
    c: float = 1.0
    teacher_mix: float = 0.5
    student_mix: float = 0.5
    epochs: int = 20
    lr: float = 2e-3
    gate_pairs: int = 200
    gate_sims: int = 400
    seed: int = 7001
    workers: int = 2
    data: tuple[str, ...] = ()  # more positions' files, trained on before the run's own
    start: str = ""  # a network whose weights the student starts from ("": random weights)
    device: str = "cpu"  # where PyTorch trains
    rules: str = ""  # the self-play games' rules preset ("": selfplay's mix)
    empty_share: float = EMPTY_SHARE  # self-play games from the empty board
    data_only: bool = False  # stop after the self-play files: no student, no match

    def openings(self) -> Openings:
        """Where the self-play games start."""
        if self.rules:
            return Openings.only(self.rules, self.empty_share)
        return Openings(empty=self.empty_share)


@njit(cache=True)
def teacher_outputs(net: Net, states: np.ndarray, flags: np.ndarray, logits: np.ndarray,
                    values: np.ndarray) -> None:
    """`evaluate` of each row of `states`: its 81 logits into `logits`, its value into
    `values`."""
    scratch = new_scratch(net)
    s = np.empty(states.shape[1], np.int64)
    for i in range(states.shape[0]):
        for k in range(s.shape[0]):
            s[k] = states[i, k]
        values[i] = evaluate(net, s, flags[i], scratch, logits[i])


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def distill(course: Course, out: Path, command: str) -> Path:
    """Run `course` into `out`; returns the student's file (`out` itself with
    `course.data_only`: the self-play files alone)."""
    from ninefold.arena.ratings import match_elo
    from ninefold.learn import selfplay
    from ninefold.learn.rounds import training_device
    from ninefold.learn.selfplay import Positions, Searcher
    from ninefold.learn.tasks import Processes
    from ninefold.learn.train import Dataset, PolicyValue, evaluate_losses, fit, from_net, to_net
    from ninefold.players.net import load_net, save_net, sha256
    from ninefold.players.net_inputs import net_path

    teacher_path = net_path(course.teacher)
    start_path = net_path(course.start)
    teacher = Searcher(str(teacher_path), course.c, course.teacher_mix)
    out.mkdir(parents=True, exist_ok=True)
    tasks = Processes(course.workers)
    try:
        chunks = (course.games + course.chunk - 1) // course.chunk
        files = [out / f"data_{k}.npz" for k in range(chunks)]
        for k, path in enumerate(files):
            if path.exists():
                continue
            games = min(course.chunk, course.games - k * course.chunk)
            say(f"teacher self-play, chunk {k + 1}/{chunks}: {games} games at {course.sims} "
                f"simulations a move")
            selfplay.generate(games, course.sims, teacher, course.seed + 1000 * k, tasks,
                              selfplay.print_progress, openings=course.openings()).save(path)
        cheap_chunk = 4 * course.chunk
        cheap_files = [out / f"cheap_{k}.npz"
                       for k in range((course.cheap_games + cheap_chunk - 1) // cheap_chunk)]
        for k, path in enumerate(cheap_files):
            if not path.exists():
                games = min(cheap_chunk, course.cheap_games - k * cheap_chunk)
                say(f"teacher self-play for positions, chunk {k + 1}/{len(cheap_files)}: "
                    f"{games} games at {course.cheap_sims} simulations a move")
                selfplay.generate(games, course.cheap_sims, teacher, course.seed + 2000 + 1000 * k,
                                  tasks, selfplay.print_progress,
                                  openings=course.openings()).save(path)
        if course.data_only:
            say(f"self-play positions in {out}; --data-only: no student, no match")
            return out
        import torch

        parts = [*(Positions.load(Path(p)) for p in course.data),
                 *(Positions.load(p) for p in [*cheap_files, *files])]
        last = parts[-1]
        held = max(1, len(last) // 10)
        device = training_device(course.device)
        valid = Dataset(last.rows(slice(-held, None)), device)
        parts[-1] = last.rows(slice(None, -held))
        positions = Positions.concat(parts)
        train = Dataset(positions, device)
        teacher_net = load_net(teacher_path)
        teacher_losses = evaluate_losses(from_net(teacher_net).to(device), valid)
        if course.teacher_share > 0:
            blend_with_teacher(train, positions, teacher_net, course.teacher_share)
        say(f"teacher on the held-out positions: {teacher_losses}")
        torch.manual_seed(course.seed)
        model = (from_net(load_net(course.start)) if course.start
                 else PolicyValue(*course.hidden)).to(device)
        if course.start:
            say(f"starting from {course.start}: held-out {evaluate_losses(model, valid)}")
        say(f"training a {course.hidden[0]}-{course.hidden[1]} student on {len(train)} "
            f"positions (x8 symmetries), {course.epochs} epochs, on {device}")
        t0 = time.perf_counter()

        def report(e: int, n: int) -> None:
            say(f"  epoch {e}/{n}: held-out {evaluate_losses(model, valid)} "
                f"({time.perf_counter() - t0:.0f} s)")

        fit(model, train, course.epochs, course.seed, lr=course.lr, report=report)
        losses = evaluate_losses(model, valid)
        student = out / "student.npz"
        meta = {"command": command, "course": {**course.__dict__, "hidden": list(course.hidden)},
                "teacher": {"file": teacher_path.name, "sha256": sha256(teacher_path)},
                "data": [p.name for p in [*cheap_files, *files]], "positions": len(train),
                "more_data": [{"file": Path(p).name, "sha256": sha256(p)} for p in course.data],
                "start": ({"file": start_path.name, "sha256": sha256(start_path)}
                          if course.start else None),
                "held_out": {"student": losses.__dict__, "teacher": teacher_losses.__dict__},
                "torch": torch.__version__}
        save_net(to_net(model.cpu()), student, meta)
        say(f"student saved in {student}: held-out {losses}")
        say(f"match at {course.gate_sims} simulations a move, {2 * course.gate_pairs} games "
            f"from random-four openings, against the teacher")
        points = selfplay.match(Searcher(str(student), course.c, course.student_mix), teacher,
                                course.gate_sims, course.gate_pairs, course.seed, tasks)
        say(f"student against teacher at equal simulations: {float(np.mean(points)) / 2:.1%}, "
            f"{match_elo(points, paired=True)}")
        return student
    finally:
        tasks.close()


def blend_with_teacher(data: Dataset, positions: Positions, teacher: Net, share: float) -> None:
    """Move `data`'s targets toward `teacher`'s outputs on `positions` (the same rows) by
    `share`: its softmax over the legal moves, and its value."""
    import numpy as np
    import torch

    n = len(positions)
    logits = np.zeros((n, 81), np.float32)
    values = np.empty(n, np.float32)
    teacher_outputs(teacher, positions.states.astype(np.int64), positions.flags.astype(np.int64),
                    logits, values)
    device = data.legal.device
    policy = torch.softmax(torch.from_numpy(logits).to(device).masked_fill(~data.legal, -1e9), 1)
    data.policy = (1 - share) * data.policy + share * policy
    data.value = (1 - share) * data.value + share * torch.from_numpy(values).to(device)


def positions_problem(path: Path) -> str:
    """Why `path` is not a file of self-play positions (``""``: it is one)."""
    from ninefold.learn.selfplay import FIELDS

    try:
        with np.load(path, allow_pickle=False) as stored:
            missing = [f for f in FIELDS if f not in stored.files]
    except FileNotFoundError:
        return "no such file"
    except Exception:  # numpy raises several kinds for what is not a .npz
        return "not a .npz file of positions"
    return f"not a file of positions (no {', '.join(missing)})" if missing else ""


def _hidden(text: str) -> tuple[int, int]:
    try:
        h1, h2 = (int(x) for x in text.split(","))
    except ValueError:
        raise typer.BadParameter(f"--hidden {text!r} is not two sizes like 128,32") from None
    if h1 < 1 or h2 < 1:
        raise typer.BadParameter(f"--hidden {text!r}: sizes must be at least 1")
    return h1, h2


def main(
    ctx: typer.Context,
    out: Annotated[Path, typer.Option(help="Directory for the data and the student.")] = Path(
        "runs/distill"),
    teacher: str = typer.Option("default", help="The teacher's weights file."),
    hidden: str = typer.Option("128,64", metavar="<H1,H2>",
                               help="The student's two hidden layers."),
    games: int = typer.Option(Course.games, min=0, help="Teacher self-play games."),
    chunk: int = typer.Option(Course.chunk, min=1, help="Games a data file."),
    sims: int = typer.Option(Course.sims, min=2, help="Teacher simulations a move."),
    cheap_games: int = typer.Option(Course.cheap_games, min=0,
                                    help="More teacher games, for their positions."),
    cheap_sims: int = typer.Option(Course.cheap_sims, min=2,
                                   help="Teacher simulations a move in those games."),
    teacher_share: float = typer.Option(Course.teacher_share, min=0.0, max=1.0,
                                        help="The teacher network's share of the targets."),
    teacher_mix: float = typer.Option(Course.teacher_mix, min=0.0, max=1.0,
                                      help="The teacher's playout share of a leaf's value."),
    student_mix: float = typer.Option(Course.student_mix, min=0.0, max=1.0,
                                      help="The student's playout share in the match."),
    epochs: int = typer.Option(Course.epochs, min=1, help="Training passes over the data."),
    lr: float = typer.Option(Course.lr, min=1e-6, max=1.0, help="Peak learning rate."),
    gate_pairs: int = typer.Option(Course.gate_pairs, min=1, help="Pairs of match games."),
    gate_sims: int = typer.Option(Course.gate_sims, min=2, help="Simulations a match move."),
    seed: int = typer.Option(Course.seed, help="Seed of everything random."),
    workers: int = typer.Option(Course.workers, min=1, help="Self-play and match processes."),
    data: Annotated[list[Path] | None, typer.Option(
        help="More positions to train on (a self-play data_K.npz; repeat for more).")] = None,
    device: str = typer.Option("cpu", metavar=DEVICE, help=DEVICE_HELP),
    start: str = typer.Option("", help="A network file to train on from ('default': the "
                              "shipped one; its shape is --hidden's); none: random weights."),
    rules: str = typer.Option("", metavar=choices(list(PRESETS)), help="Every self-play game under "
                              "this rules preset (default: self-play's mix of presets)."),
    empty_share: float = typer.Option(Course.empty_share, min=0.0, max=1.0,
                                      help="The share of self-play games from the empty board."),
    data_only: bool = typer.Option(False, "--data-only", help=(
        "Stop after the teacher's self-play: its positions for another learner (the fast "
        "network's `python -m ninefold.learn.fastnet`), no student, no match; no PyTorch.")),
) -> None:
    """Teach a smaller network with the teacher's self-play.

    The teacher (the shipped network unless --teacher) plays itself; the student
    learns its moves and values, then plays it a match at equal simulations.
    Data is kept in --out: a run that stops goes on where it stopped.
    """
    course = Course(teacher=teacher, hidden=_hidden(hidden), games=games, chunk=chunk, sims=sims,
                    cheap_games=cheap_games, cheap_sims=cheap_sims, teacher_share=teacher_share,
                    teacher_mix=teacher_mix, student_mix=student_mix, epochs=epochs, lr=lr,
                    gate_pairs=gate_pairs, gate_sims=gate_sims, seed=seed, workers=workers,
                    data=tuple(str(p) for p in data or ()), device=device, start=start,
                    rules=rules, empty_share=empty_share, data_only=data_only)
    try:
        course.openings()  # Openings.only says what is wrong with --rules
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rules") from None
    if games < 2 and not data:
        raise typer.BadParameter(f"{games}: at least 2 games, or positions from --data",
                                 param_hint="--games")
    for path in data or ():
        problem = positions_problem(path)
        if problem:
            raise typer.BadParameter(f"{str(path)!r}: {problem}", param_hint="--data")
    if not data_only:
        need_torch(ctx)
        from ninefold.learn.rounds import device_option

        device_option(device)
    try:
        load_net(teacher)  # a missing or damaged teacher is said in one line, before any work
    except NetError as exc:
        raise TrainingError(f"--teacher: {exc}") from None
    if start:
        try:
            first = load_net(start)
        except NetError as exc:
            raise TrainingError(f"--start: {exc}") from None
        shape = (first.b1.shape[0], first.b2.shape[0])
        if shape != course.hidden:
            raise TrainingError(f"--start: {start!r} is a {shape[0]}-{shape[1]} network, not "
                                f"--hidden's {course.hidden[0]}-{course.hidden[1]}")
    print(distill(course, out, given_command(ctx)))


if __name__ == "__main__":
    module_app(main, "ninefold.learn.distill")()
