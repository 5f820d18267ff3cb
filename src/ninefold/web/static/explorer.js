// The opening explorer (/explorer): the moves played from a position in the indexed games.
// The address holds the query (rules, source, a start position, the moves from it), so a
// link shows the same position; a move (in the table or on the board) goes one deeper,
// Back one up.

import { buildBoard, drawBoard, square } from "./board.js";

const $ = (id) => document.getElementById(id);

const query = new URLSearchParams(location.search);
let moves = (query.get("moves") || "").split(/\s+/).filter(Boolean);
const start = query.get("position") || "";   // the position the moves start from ("": empty)
let view = null;                              // the server's ExplorerView of the position shown

function params() {
  const p = new URLSearchParams();
  if ($("rules").value) p.set("rules", $("rules").value);
  if ($("source").value) p.set("source", $("source").value);
  if (start) p.set("position", start);
  if (moves.length) p.set("moves", moves.join(" "));
  return p;
}

async function answer(res) {
  const data = await res.json().catch(() => ({ detail: res.statusText }));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  return data;
}

// Ask the server for the position of `moves` and draw it; `push`: a new address in the history.
async function show(push) {
  const p = params();
  if (push) history.pushState(null, "", `/explorer?${p}`);
  try {
    view = await answer(await fetch(`/api/explorer?${p}`));
    $("error").textContent = "";
  } catch (err) {
    $("error").textContent = err.message;
    $("status").textContent = "";
    return;
  }
  fillSelects();
  draw();
}

function fillSelects() {
  for (const [id, names] of [["source", view.sources], ["rules", view.presets]]) {
    const select = $(id);
    for (const name of names) {
      if (![...select.options].some((o) => o.value === name)) select.add(new Option(name, name));
    }
  }
  if (!$("rules").value || view.rules !== $("rules").value) {
    if (![...$("rules").options].some((o) => o.value === view.rules)) $("rules").add(new Option(view.rules, view.rules));
    $("rules").value = view.rules;
  }
}

const pct = (n, games) => Math.round((100 * n) / games);

function evalText(m) {
  if (m.proven) return m.proven === "draw" ? "draw (proven)" : `${m.proven.toUpperCase()} wins (proven)`;
  return m.eval_x === null ? "—" : `${Math.round(100 * m.eval_x)}%`;
}

function draw() {
  const b = view.board;
  const played = new Set(view.moves.map((m) => m.move));
  drawBoard($("board"), b, { last: moves[moves.length - 1] ?? null, legal: new Set(b.legal),
    marked: played, note: ", played in the games" });
  $("line").textContent = moves.length ? `Moves: ${moves.join(" ")}` : "The first position.";
  const source = view.source ? ` from ${view.source}` : "";
  $("status").textContent = b.result ? `The game is over: ${b.status}.`
    : view.moves.length ? `${view.games.toLocaleString()} games${source} reached this position; ${b.status}.`
      : `No game${source} in the index reached this position; ${b.status}.`;
  const body = $("moves").querySelector("tbody");
  body.replaceChildren();
  for (const m of view.moves) {
    const row = body.insertRow();
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move";
    button.dataset.control = "explorer-move";
    button.textContent = m.move;
    button.addEventListener("click", () => go(m.move));
    row.insertCell().appendChild(button);
    row.insertCell().textContent = m.games.toLocaleString();
    const bar = document.createElement("div");
    bar.className = "results";
    bar.setAttribute("role", "img");
    const shares = [["rx", "X", m.x], ["rd", "draw", m.draw], ["ro", "O", m.o]];
    bar.setAttribute("aria-label", shares.map(([, who, n]) => `${who} ${pct(n, m.games)}%`).join(", "));
    for (const [cls, , n] of shares) {
      const part = document.createElement("span");
      part.className = cls;
      part.style.width = `${(100 * n) / m.games}%`;
      part.textContent = pct(n, m.games) >= 20 ? `${pct(n, m.games)}%` : "";
      part.setAttribute("aria-hidden", "true");
      bar.appendChild(part);
    }
    row.insertCell().appendChild(bar);
    row.insertCell().textContent = evalText(m);
  }
  $("moves").hidden = view.moves.length === 0;
  $("evaluate").hidden = view.evaluated || view.moves.length === 0 || Boolean(b.result);
  $("analysis").href = `/analysis?position=${encodeURIComponent(b.position)}`;
  $("back").disabled = moves.length === 0;
  $("first").disabled = moves.length === 0;
}

function go(move) {
  moves = moves.concat([move]);
  show(true);
}

async function evaluate() {
  $("evaluate").disabled = true;
  $("status").textContent = "The engine is looking at the moves…";
  try {
    const body = Object.fromEntries(params());
    view = await answer(await fetch("/api/explorer/evaluate", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    }));
    $("error").textContent = "";
  } catch (err) {
    $("error").textContent = err.message;
  } finally {
    $("evaluate").disabled = false;
  }
  draw();
}

const control = (name) => document.querySelector(`[data-control=${name}]`);
control("explorer-back").id = "back";
control("explorer-start").id = "first";
control("explorer-back").addEventListener("click", () => { moves = moves.slice(0, -1); show(true); });
control("explorer-start").addEventListener("click", () => { moves = []; show(true); });
control("explorer-eval").addEventListener("click", evaluate);
$("source").addEventListener("change", () => show(true));
$("rules").addEventListener("change", () => { moves = []; show(true); });
window.addEventListener("popstate", () => {
  const now = new URLSearchParams(location.search);
  moves = (now.get("moves") || "").split(/\s+/).filter(Boolean);
  $("source").value = now.get("source") || "";
  show(false);
});

buildBoard($("board"), "explorer-cell", (b, c) => {
  if (view && view.board.legal.includes(square(b, c))) go(square(b, c));
});
for (const cell of $("board").querySelectorAll(".cell")) {  // named before the first answer
  cell.setAttribute("aria-label", `${cell.dataset.square}, board ${Number(cell.dataset.board) + 1}: empty`);
}
if (query.get("rules")) $("rules").add(new Option(query.get("rules"), query.get("rules"), true, true));
if (query.get("source")) $("source").add(new Option(query.get("source"), query.get("source"), true, true));
show(false);
