// The platform's part of the viewer (/platform-game/ID, beside app.js's board and moves):
// links to the game's contest and bots, and the turn on the board: who played it, how long
// it took and, for the bot's author, what it wrote to stderr then (its last KB), as
// GET /api/platform/games/ID/turns tells. app.js says which frame it shows with the
// document event "ninefold:frame" (its detail: the plies played).

const gameId = location.pathname.split("/")[2];
let info = null;   // the game's turns
let frame = null;  // the frame on the board

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
}
function link(control, href, text) {
  const node = el("a", { href }, text);
  node.dataset.control = control;
  return node;
}

const box = el("section", { id: "turns", className: "turns", hidden: true });
box.setAttribute("aria-labelledby", "turn-title");
const said = el("p", { id: "turn" });
said.dataset.testid = "turn";
const stderr = el("pre", { id: "turn-stderr", hidden: true });
stderr.dataset.testid = "turn-stderr";
const links = el("p", { className: "game-links" });
box.append(links, el("h2", { id: "turn-title", textContent: "This turn" }), said, stderr);
document.getElementById("viewer").after(box);

document.addEventListener("ninefold:frame", (event) => { frame = event.detail; show(); });

async function load() {
  const response = await fetch(`/api/platform/games/${gameId}/turns`, { credentials: "same-origin" });
  if (!response.ok) return;  // app.js says what is wrong
  info = await response.json();
  links.replaceChildren(`${info.ranked ? "Ranked game" : "Test game"} of `,
    link("viewer-contest", `/platform/c/${encodeURIComponent(info.contest)}`, info.contest),
    ": X ", link("viewer-bot-x", `/platform/bot/${info.x_bot}`, info.x),
    ", O ", link("viewer-bot-o", `/platform/bot/${info.o_bot}`, info.o));
  box.hidden = false;
  show();
}

// The turn that led to `frame`, its time, and its stderr where the viewer may read it.
function show() {
  if (!info || frame === null) return;
  const turn = info.turns.find((t) => t.ply === frame);
  const last = !info.turns.length || frame >= info.turns[info.turns.length - 1].ply;
  const ends = [["X", info.x_end], ["O", info.o_end]].filter(([, text]) => last && text);
  let text;
  let log = null;
  if (frame === 0) text = "The start: no move yet.";
  else if (!turn) text = `Move ${frame} was the opening's: no bot played it.`;
  else {
    const name = turn.side === "X" ? info.x : info.o;
    text = `Move ${frame}: ${turn.side} (${name}) took ${Math.round(turn.ms)} ms.`;
    if (turn.stderr === null) text += " Only its author sees what it wrote to stderr.";
    else log = turn.stderr ? `${turn.side}'s stderr this turn:\n${turn.stderr}` : `${turn.side} wrote nothing to stderr this turn.`;
  }
  for (const [side, end] of ends) log = `${log ? log + "\n\n" : ""}${side}'s stderr after its last move:\n${end}`;
  said.textContent = text;
  stderr.hidden = log === null;
  stderr.textContent = log ?? "";
}

load();
