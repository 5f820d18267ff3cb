// The big board's squares and buttons, for the pages that draw it (app.js, proof.js,
// puzzles.js, explorer.js).

const COLUMNS = "abcdefghi";

// Board b, cell c -> its square's name ("e5").
export const square = (b, c) => {
  const x = 3 * (b % 3) + (c % 3);
  const y = 3 * Math.floor(b / 3) + Math.floor(c / 3);
  return COLUMNS[x] + String(y + 1);
};

// Fill `container` with the nine small boards ("Board 1".."Board 9"), each of nine cell
// buttons named `control` (data-control) and a large mark for its owner; a click on
// cell c of board b calls `onPress(b, c)`.
export function buildBoard(container, control, onPress) {
  for (let b = 0; b < 9; b++) {
    const small = document.createElement("div");
    small.className = "small";
    small.dataset.board = b;
    small.setAttribute("role", "group");
    small.setAttribute("aria-label", `Board ${b + 1}`);
    for (let c = 0; c < 9; c++) {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "cell";
      cell.dataset.board = b;
      cell.dataset.cell = c;
      cell.dataset.square = square(b, c);
      cell.dataset.control = control;
      cell.tabIndex = -1;
      cell.addEventListener("click", () => onPress(b, c));
      small.appendChild(cell);
    }
    const big = document.createElement("div");
    big.className = "big";
    big.setAttribute("aria-hidden", "true");
    small.appendChild(big);
    container.appendChild(small);
  }
}

// Show `board` (the server's PositionView, or any object with its `boards`) in a `container`
// built by `buildBoard`: each small board's owner and whether it may be played, each cell's
// mark. Options: `last`, the square (or list of squares) shown as the last move; `legal`, the
// squares a click plays (focusable, named `playable`: ", playable" by default); `marked`
// squares get the class "played" and `note` in their names; `allowed: false` marks no board
// as the one to play in; `onSmall(small, b)` and `onCell(cell, sq, b, c)` add a page's own
// classes and names after these.
export function drawBoard(container, board, {
  last = null, legal = new Set(), marked = new Set(), note = "", playable = ", playable",
  allowed = true, onSmall = null, onCell = null,
} = {}) {
  const lastOnes = new Set((Array.isArray(last) ? last : [last]).filter((sq) => sq));
  container.querySelectorAll(".small").forEach((small, b) => {
    const info = board.boards[b];
    small.classList.toggle("allowed", allowed && info.allowed && !board.result);
    small.classList.toggle("won-x", info.owner === "x");
    small.classList.toggle("won-o", info.owner === "o");
    small.classList.toggle("drawn", info.owner === "draw");
    small.querySelector(".big").textContent = info.owner === "x" ? "X" : info.owner === "o" ? "O" : "";
    small.querySelectorAll(".cell").forEach((cell, c) => {
      const mark = info.cells[c];
      const sq = cell.dataset.square;
      cell.textContent = mark.toUpperCase();
      cell.classList.toggle("x", mark === "x");
      cell.classList.toggle("o", mark === "o");
      cell.classList.toggle("last", lastOnes.has(sq));
      cell.classList.toggle("legal", legal.has(sq));
      cell.classList.toggle("played", marked.has(sq));
      cell.setAttribute("aria-disabled", String(!legal.has(sq)));
      cell.tabIndex = legal.has(sq) ? 0 : -1;
      cell.setAttribute("aria-label", `${sq}, board ${b + 1}: ${mark ? mark.toUpperCase() : "empty"}` +
        (marked.has(sq) ? note : legal.has(sq) ? playable : ""));
      if (onCell) onCell(cell, sq, b, c);
    });
    if (onSmall) onSmall(small, b);
  });
}
