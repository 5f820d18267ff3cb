// The big board's squares and buttons, for the pages that draw it (app.js, proof.js).

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
