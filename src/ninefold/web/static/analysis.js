// The analysis panel: an eval bar (each side's expected score, a draw counting half)
// and the best moves with their score and principal variation, updated while the
// server's search goes on (WS /api/analysis; the server bounds each search).

const pct = (p) => `${Math.round(p * 100)}%`;

export class AnalysisPanel {
  // `root` holds the panel; `onMove(moves)` is called when a move of a line is clicked,
  // with the line's moves up to it (from the position shown).
  constructor(root, onMove) {
    this.root = root;
    this.onMove = onMove;
    this.position = null;
    this.socket = null;
    this.root.replaceChildren();
    this.bar = el("div", "evalbar");
    this.bar.setAttribute("role", "meter");
    this.bar.setAttribute("aria-valuemin", "0");
    this.bar.setAttribute("aria-valuemax", "100");
    this.fill = el("div", "evalbar-x");
    this.barText = el("span", "evalbar-text");
    this.bar.append(this.fill, this.barText);
    this.info = el("p", "hint");
    this.info.dataset.testid = "analysis-info";
    this.caption = el("p", "hint");
    this.lines = el("ol", "lines");
    this.lines.dataset.testid = "analysis-lines";
    // one listener for every move of every line: a move's button holds its line up to it
    this.lines.addEventListener("click", (event) => {
      const button = event.target.closest('[data-control="line-move"]');
      if (button) this.onMove(button.dataset.line.split(" "));
    });
    this.root.append(this.bar, this.info, this.caption, this.lines);
  }

  // Analyse `position` (a position string), dropping the one before; null stops. A
  // finished position (`result`, like "1-0") shows its result: there is nothing to search.
  show(position, result = null) {
    if (position === this.position) return;
    this.position = position;
    this.lines.replaceChildren();
    this.caption.textContent = "";
    if (result) {
      this.stop();
      const x = { "1-0": 1, "0-1": 0 }[result] ?? 0.5;
      this.draw(x, x === 1 ? "X won" : x === 0 ? "O won" : "Draw");
      this.info.textContent = `The game is over (${result}): nothing to analyse.`;
      return;
    }
    this.info.textContent = position ? "Analysing…" : "";
    this.draw(0.5, "…");
    if (!position) return this.stop();
    const send = () => this.socket.send(JSON.stringify({ position }));
    if (this.socket && this.socket.readyState === WebSocket.OPEN) send();
    else this.connect(send);
  }

  connect(then) {
    this.stop();
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/api/analysis`);
    this.socket = ws;
    ws.onopen = then;
    ws.onmessage = (event) => this.receive(JSON.parse(event.data));
    ws.onclose = () => { if (this.socket === ws) this.socket = null; };
  }

  stop() {
    if (this.socket) {
      const ws = this.socket;
      this.socket = null;
      ws.close();
    }
  }

  receive(msg) {
    if (msg.type === "waiting") {
      this.info.textContent = `Waiting for a free search (${msg.ahead} ahead)…`;
      return;
    }
    if (msg.type === "error") {
      this.info.textContent = msg.detail;
      return;
    }
    if (msg.type !== "analysis" || msg.position !== this.position) return;
    this.draw(msg.x);
    const proven = msg.proven ? `, proven ${msg.proven} for ${msg.turn.toUpperCase()}` : "";
    const sims = `${msg.sims.toLocaleString("en")} simulation${msg.sims === 1 ? "" : "s"}`;
    this.info.textContent = `${sims} in ${(msg.ms / 1000).toFixed(1)} s by ` +
      `${msg.player}${proven}${msg.done ? "" : " (searching…)"}`;
    const who = msg.turn.toUpperCase();
    // the server lists only moves with a score (proven, or searched enough)
    this.caption.textContent = msg.moves.length
      ? `Best moves for ${who}, with ${who}'s expected score and the line the search ` +
        "expects (click a move to see the position after it):"
      : "No move has been searched enough to score yet…";
    // The lines are updated in place, not rebuilt: a click pressed before a snapshot and
    // released after it would otherwise fall on a button that is gone, and be lost.
    const items = this.lines.children;
    msg.moves.forEach((line, n) => {
      const li = items[n] ?? this.lines.appendChild(el("li", "line"));
      const score = li.firstElementChild ?? li.appendChild(el("span", "score"));
      score.textContent = line.proven ? line.proven : pct(line.score);
      score.title = `${msg.turn.toUpperCase()}'s expected score after this move`;
      line.pv.forEach((move, i) => {  // each move shows the line up to it
        const b = li.children[i + 1] ?? li.appendChild(lineButton(i));
        b.textContent = move;
        b.dataset.line = line.pv.slice(0, i + 1).join(" ");
      });
      while (li.children.length > line.pv.length + 1) li.lastElementChild.remove();
    });
    while (items.length > msg.moves.length) this.lines.lastElementChild.remove();
  }

  // The bar at X's share `x`, saying `text` (by default each side's expected score).
  draw(x, text = `X ${pct(x)} · O ${pct(1 - x)}`) {
    this.fill.style.width = pct(x);
    this.barText.textContent = text;
    this.bar.setAttribute("aria-valuenow", String(Math.round(x * 100)));
    this.bar.setAttribute("aria-valuetext", text);
    this.bar.setAttribute("aria-label", "The evaluation: X's expected score");
  }
}

// The button of a line's move `i` (0: the first; the keyboard reaches only that one).
function lineButton(i) {
  const b = el("button", i === 0 ? "pv first" : "pv");
  b.type = "button";
  b.dataset.control = "line-move";
  if (i > 0) b.tabIndex = -1;
  return b;
}

function el(tag, className) {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}
