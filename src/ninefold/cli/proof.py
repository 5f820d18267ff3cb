"""`ninefold prove`: find X's forced win and write it as a certificate, or check one."""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ninefold.cli import _board, _fail, app, console, err
from ninefold.proof.search import GUIDES
from ninefold.protocols.botmain import RULES_HELP, choices


@app.command(rich_help_panel="Research")
def prove(
    rules: str = typer.Option("open-boards", help=RULES_HELP),
    moves: str = typer.Option("", help="Moves played first, e.g. 'e5 e4'."),
    position: str | None = typer.Option(None, help="Prove from this position (X to move)."),
    out: str | None = typer.Option(None, help="Write the certificate to this file."),
    check: str | None = typer.Option(
        None, "--check", help="Check this certificate with the reference rules alone, and stop."
    ),
    guide: str = typer.Option(
        "refill", metavar=choices(list(GUIDES)), help="X's moves the search tries: refill (the "
        "paper's strategy), paper (centres, then corners), diagonal (corners on one "
        "diagonal), safe (paper's, and squares sending O where it cannot gain) or none."
    ),
    max_expansions: int | None = typer.Option(
        None, min=1, help="Give up after this many search expansions."
    ),
    max_plies: int = typer.Option(
        81, min=1, max=81, help="X must win by this ply of the game (the marks on the board "
        "count as plies)."
    ),
    shortest: bool = typer.Option(
        False, "--shortest", help="Then search again for wins two plies sooner while one is "
        "found, and keep the soonest (the paper: 43 plies from the empty board)."
    ),
) -> None:
    """Find a winning strategy for X, or --check one.

    By proof-number search; the strategy is checked, and its positions, its
    longest forced line (plies) and the CPU time are printed."""
    from ninefold.proof.certificate import CertificateError, write
    from ninefold.proof.certificate import check as check_lines

    if check is not None:
        try:
            with Path(check).open(encoding="utf-8") as lines:
                report = check_lines(lines)
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"cannot read {check}: {exc}")
        except CertificateError as exc:
            _fail(f"{check} is refused: {exc}")
        console.print(f"{check}: a win for X from {report.root}", highlight=False, soft_wrap=True)
        console.print(f"positions {report.positions:,}, longest forced line "
                      f"{report.longest} plies, unused lines {report.unused:,}",
                      highlight=False, soft_wrap=True)
        return
    from ninefold.proof.search import NotProved, soonest
    from ninefold.proof.search import prove as find

    board = _board(rules, moves, position)

    def progress(expansions: int, table: int, seconds: float) -> None:
        err.print(f"  {expansions:,} expansions, {table:,} positions in the table, "
                  f"{seconds:.0f} s CPU", highlight=False, soft_wrap=True)

    try:
        strategy = find(board, guide, progress=progress, max_expansions=max_expansions,
                        max_plies=max_plies)
    except (NotProved, ValueError) as exc:
        _fail(str(exc))
    if shortest:
        first = check_lines(write(strategy.moves, strategy.root).splitlines()).longest
        marks = sum(c is not None for c in board.cells)
        strategy, plies = soonest(board, guide, within=marks + first, progress=progress,
                                  max_expansions=max_expansions)
        console.print(f"the first strategy wins within {first} plies, the soonest found "
                      f"within {plies}", highlight=False)
    t0 = time.process_time()
    text = write(strategy.moves, strategy.root, [
        f"ninefold proof certificate: X wins from the first position, rules {board.rules.name}",
        f"found by df-pn (guide {guide}) in {strategy.expansions:,} expansions, "
        f"{strategy.seconds:.1f} s CPU",
        "each line: a position (Board.position) and X's move there",
    ])
    try:
        report = check_lines(text.splitlines())
    except CertificateError as exc:  # a bug of the search: say so in one line
        _fail(f"the search's certificate fails its check: {exc}")
    if out is not None:
        try:
            Path(out).write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {out}: {exc}")
    checked = time.process_time() - t0
    console.print(f"X wins from {strategy.root}", highlight=False, soft_wrap=True)
    console.print(
        f"positions {report.positions:,}, longest forced line {report.longest} plies, "
        f"search {strategy.seconds:.1f} s CPU ({strategy.expansions:,} expansions), "
        f"check {checked:.1f} s CPU" + (f", certificate {out}" if out else ""),
        highlight=False, soft_wrap=True,
    )
