// Classic tic-tac-toe in the chapter's three views (TicTacToe, Pick15, Magic15): one
// page, no build step. The game lives here and in the link's fragment
// (#m=4,0,8&o=perfect&s=x&v=pick15), so a reload or a shared link restores it. Every
// change asks POST /api/classic, which checks the moves, plays the computer's reply and
// answers the game in every view: this page holds no rules, it draws what it is told
// (server text always through textContent).

const $ = (id) => document.getElementById(id);
const OPPONENTS = ["random", "naive", "centre", "perfect", "friend"];
const VIEWS = ["tictactoe", "pick15", "magic15"];

let game = null;          // the ClassicView shown
let viewName = "tictactoe";
let cursorCell = 4;       // the keyboard's cell (a cell, so it stays put across views)
let sending = false;      // a request is on its way
let asked = 0;            // requests sent: only the newest one's answer is shown
const cells = [];         // the nine buttons, by cell

// --- the API ---------------------------------------------------------------------
function showError(text) {
  for (const el of document.querySelectorAll(".error")) el.textContent = text || "";
}

// Send the game so far; show the answer. True if it was shown.
async function send(moves, opponent, side) {
  const n = ++asked;
  sending = true;
  $("board").setAttribute("aria-busy", "true");
  try {
    const res = await fetch("/api/classic", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ moves, opponent, side }),
    });
    const data = await res.json().catch(() => ({ detail: res.statusText }));
    if (!res.ok) throw new Error(data.detail || res.statusText);
    if (n !== asked) return false;  // a newer request was sent meanwhile
    done();
    showError("");
    game = data;
    writeLink();
    render();
    return true;
  } catch (err) {
    if (n === asked) {
      done();
      showError(err.message);
      render();
    }
    return false;
  }
}

function done() {
  sending = false;
  $("board").removeAttribute("aria-busy");
}

const canMove = () => game !== null && !sending && game.turn !== null &&
  game.you.includes(game.turn);

function play(cell) {
  if (!canMove() || !game.legal.includes(cell)) return;
  send([...game.moves, cell], game.opponent, game.side);
}

// --- the link --------------------------------------------------------------------
let written = "";

function writeLink() {
  if (!game) return;
  written = `#m=${game.moves.join(",")}&o=${game.opponent}&s=${game.side}&v=${viewName}`;
  history.replaceState(null, "", written);
}

async function start() {
  const f = new URLSearchParams(location.hash.slice(1));
  const opponent = OPPONENTS.includes(f.get("o")) ? f.get("o") : "perfect";
  const side = f.get("s") === "o" ? "o" : "x";
  viewName = VIEWS.includes(f.get("v")) ? f.get("v") : "tictactoe";
  const parts = (f.get("m") || "").split(",").filter((s) => s !== "");
  $("opponent").value = opponent;
  document.querySelector(`input[name=side][value=${side}]`).checked = true;
  document.querySelector(`input[name=view][value=${viewName}]`).checked = true;
  let why = "its moves must be cells 0-8 (0 is a1, 4 the centre, 8 is c3)";
  if (parts.every((p) => /^[0-8]$/.test(p))) {
    const moves = parts.map(Number);
    if (await send(moves, opponent, side) || !moves.length) return;
    why = document.querySelector(".error").textContent;
  }
  if (await send([], opponent, side)) {
    showError(`The link's game cannot be restored (${why}): here is a new game.`);
  }
}

// --- drawing ---------------------------------------------------------------------
function buildBoard() {
  const board = $("board");
  for (let c = 0; c < 9; c++) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cell";
    button.dataset.cell = c;
    button.dataset.control = "cell";
    button.tabIndex = c === cursorCell ? 0 : -1;
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    label.className = "label";
    label.setAttribute("aria-hidden", "true");
    button.append(label, " ", mark);  // read as its name, then its mark (as its label says)
    button.addEventListener("click", () => {
      cursorCell = c;
      play(c);
    });
    cells.push(button);
    board.appendChild(button);
  }
}

// How a cell is read out in the view shown: its name, and what is on it.
function cellLabel(view, c) {
  const text = view.cells[c];
  const name = viewName === "pick15" ? `number ${text}` : text;
  const mark = game.cells[c];
  const what = mark ? mark.toUpperCase() : "empty";
  const extra = viewName === "magic15" ? [`at ${game.views.tictactoe.cells[c]}`] : [];
  if (game.last === c) extra.push("last move");
  if (game.line && game.line.includes(c)) extra.push("winning line");
  if (canMove() && game.legal.includes(c)) extra.push("playable");
  return `${name}: ${what}${extra.length ? ", " + extra.join(", ") : ""}`;
}

function render() {
  if (!game) return;
  const view = game.views[viewName];
  const board = $("board");
  board.className = `cboard ${view.layout} view-${viewName}`;
  board.setAttribute("aria-label", `${view.title} board (moves ${view.hint})`);
  const legal = new Set(canMove() ? game.legal : []);
  const line = new Set(game.line || []);
  view.order.forEach((c, i) => { cells[c].style.order = String(i); });
  for (const button of cells) {
    const c = Number(button.dataset.cell);
    const mark = game.cells[c];
    button.querySelector(".mark").textContent = mark.toUpperCase();
    button.querySelector(".label").textContent = view.cells[c];
    button.classList.toggle("x", mark === "x");
    button.classList.toggle("o", mark === "o");
    button.classList.toggle("last", game.last === c);
    button.classList.toggle("win", line.has(c));
    button.classList.toggle("legal", legal.has(c));
    button.classList.toggle("cursor", c === cursorCell);
    button.tabIndex = c === cursorCell ? 0 : -1;  // Tab reaches the board at the cursor
    button.setAttribute("aria-disabled", String(!legal.has(c)));
    button.setAttribute("aria-label", cellLabel(view, c));
  }
  $("status").textContent = view.status;
  $("who").textContent = game.computer === null ? "Two players on this device."
    : `You play ${game.side.toUpperCase()} against the ${game.opponent} player.`;
  $("picked").hidden = viewName !== "pick15";
  for (const side of ["x", "o"]) {
    $(`picked-${side}`).textContent = game.picked[side].length
      ? game.picked[side].join(" ") : "nothing yet";
  }
  for (const p of document.querySelectorAll("[data-about]")) {
    p.hidden = p.dataset.about !== viewName;
  }
  const list = $("moves");
  list.replaceChildren();
  for (let i = 0; i < game.moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = game.moves.slice(i, i + 2).map((c) => view.cells[c]).join(" ");
    list.appendChild(li);
  }
  $("undo").disabled = game.undo === null;
}

// --- controls --------------------------------------------------------------------
for (const radio of document.querySelectorAll("input[name=view]")) {
  radio.addEventListener("change", () => {  // the same game, drawn another way
    viewName = radio.value;
    writeLink();
    render();
  });
}

$("undo").addEventListener("click", () => {
  if (game && game.undo !== null) send(game.undo, game.opponent, game.side);
});

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  if (await send([], form.get("opponent"), form.get("side"))) focusCursor();
});

function focusCursor() {  // the keyboard plays at once
  cells[cursorCell].focus();
}

window.addEventListener("hashchange", () => {  // a link pasted or edited by hand
  if (location.hash !== written) start();
});

// --- keyboard: arrows move the cursor, Enter or Space plays ---------------------
// The key table is also listed on the board (data-keys), for the tests' check that every
// key binding has a test.
function moveCursor(dx, dy) {
  const order = game.views[viewName].order;
  const cols = game.views[viewName].layout === "cards" ? 9 : 3;
  const rows = 9 / cols;
  const at = order.indexOf(cursorCell);
  const x = (at % cols + dx + cols) % cols;
  const y = (Math.floor(at / cols) + dy + rows) % rows;
  cursorCell = order[y * cols + x];
  render();
  focusCursor();
}

const KEYS = {
  ArrowLeft: () => moveCursor(-1, 0), ArrowRight: () => moveCursor(1, 0),
  ArrowUp: () => moveCursor(0, -1), ArrowDown: () => moveCursor(0, 1),
  Enter: () => play(cursorCell), " ": () => play(cursorCell),
};

document.addEventListener("keydown", (event) => {
  // keys typed into a field, or Enter on another button, keep their own meaning
  const target = event.target;
  if (!game || target.closest("input, select, textarea, a") ||
      (target.closest("button") && !target.classList.contains("cell"))) return;
  if (KEYS[event.key]) {
    KEYS[event.key]();
    event.preventDefault();
  }
});

// --- start -----------------------------------------------------------------------
buildBoard();
$("board").dataset.keys = Object.keys(KEYS).map((k) => (k === " " ? "Space" : k)).join(" ");
start();  // arrows reach the board from anywhere but a field: no focus taken
