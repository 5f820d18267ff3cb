// The game review beside a replay: asks the server for the review (made once, in its
// worker processes, then kept: a second visit is answered at once), shows how far it
// has come, then the eval graph (X's expected score over the plies, proven results
// marked; a click goes to that ply), each move's label in the move list, the better
// move and its line for the move shown, and each side's accuracy.

const SVG = "http://www.w3.org/2000/svg";
const W = 600;  // the graph's drawing box; the page scales it to its width
const H = 140;
const PAD = 8;
const GLYPH = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const WORDS = { best: "the best move", good: "a good move", inaccuracy: "an inaccuracy",
  mistake: "a mistake", blunder: "a blunder", opening: "an opening move (not judged)" };
const POLL_MS = 500;

const fixed = (v) => v.toFixed(2);

function svg(name, attrs = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export class ReviewPanel {
  // `root` holds the review's elements (data-review="..."); `api(path, body)` asks the
  // server (a GET without a body); `onPly(i)` shows the position after ply i.
  constructor(root, api, onPly) {
    this.root = root;
    this.api = api;
    this.onPly = onPly;
    this.review = null;
    this.part = (name) => root.querySelector(`[data-review="${name}"]`);
  }

  // Ask for the review at `path` (POST with `body`, or GET without), then follow it to
  // its end.
  async start(path, body) {
    this.root.hidden = false;
    this.progress(0, 0, "Asking for the review…");
    let status;
    try {
      status = await this.api(path, body);
      this.part("share").value = location.origin + status.link;
      while (status.state === "running") {
        this.progress(status.done, status.total);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        status = await this.api(`/api/reviews/${status.key}`);
      }
    } catch (err) {
      this.progress(0, 0, err.message);
      return;
    }
    if (status.state === "failed") {
      this.progress(0, 0, status.detail);
      return;
    }
    this.review = status.review;
    this.part("progress").hidden = true;
    this.part("bar").hidden = true;
    this.part("done").hidden = false;
    const acc = this.review.accuracy;
    const fig = (v) => (v === null ? "-" : v.toFixed(1));
    this.part("accuracy").textContent = `Accuracy: X ${fig(acc.x)} · O ${fig(acc.o)}`;
    this.part("made").textContent = `Each position searched ${this.review.ms} ms by ` +
      `${this.review.player}.`;
  }

  progress(done, total, text = null) {
    const bar = this.part("bar");
    bar.hidden = text !== null;
    bar.max = Math.max(total, 1);
    bar.value = done;
    const line = this.part("progress");
    line.hidden = false;
    line.textContent = text ?? `Reviewing: ${done} of ${total} positions analysed ` +
      `(${Math.round((100 * done) / Math.max(total, 1))}%).`;
  }

  // Show the review at frame `i` (the position after ply i): the graph's marker, the
  // note on the move that led here, and the labels in the move list `list`.
  frame(i, list) {
    if (!this.review) return;
    this.draw(i);
    const plies = this.review.plies;
    for (const [j, button] of [...list.querySelectorAll("button.move")].entries()) {
      const ply = plies[j];
      if (!ply) continue;
      button.classList.add(`label-${ply.label}`);
      if (GLYPH[ply.label]) {
        const glyph = document.createElement("span");
        glyph.className = "glyph";
        glyph.textContent = GLYPH[ply.label];
        glyph.setAttribute("aria-hidden", "true");
        button.append(glyph);
      }
      button.setAttribute("aria-label", `${ply.move}, ${ply.label}`);
    }
    this.part("note").textContent = this.note(i);
  }

  note(i) {
    const at = this.review.positions[i];
    const proven = at.proven ? ` (proven: ${at.proven === "draw" ? "a draw" :
      `${at.proven.toUpperCase()} wins`})` : "";
    const score = `X's expected score ${fixed(at.x)}${proven}.`;
    if (i === 0) return `The start: ${score}`;
    const ply = this.review.plies[i - 1];
    const side = ply.mover.toUpperCase();
    let text = `${ply.move} by ${side} was ${WORDS[ply.label]}`;
    if (ply.label !== "opening") text += `: it lost ${fixed(ply.loss)} for ${side}`;
    text += `. ${score}`;
    if (["inaccuracy", "mistake", "blunder"].includes(ply.label) && ply.best) {
      text += ` Better: ${ply.best}, the line ${ply.pv.join(" ")}.`;
    }
    return text;
  }

  // The eval graph, with the frame `now` marked.
  draw(now) {
    const { positions, plies } = this.review;
    const n = Math.max(positions.length - 1, 1);
    const px = (i) => PAD + (i * (W - 2 * PAD)) / n;
    const py = (v) => PAD + (1 - v) * (H - 2 * PAD);
    const graph = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "review-graph",
      "aria-label": `Eval graph: X's expected score over the ${positions.length - 1} ` +
        "plies; click to go to a ply" });
    graph.dataset.control = "review-graph";
    graph.dataset.testid = "review-graph";
    graph.append(svg("rect", { x: 0, y: 0, width: W, height: H, class: "graph-bg" }));
    const points = positions.map((p, i) => `${px(i)},${py(p.x)}`).join(" ");
    graph.append(svg("polygon", { points: `${px(0)},${py(0)} ${points} ${px(n)},${py(0)}`,
      class: "graph-x" }));
    graph.append(svg("line", { x1: 0, x2: W, y1: py(0.5), y2: py(0.5), class: "graph-mid" }));
    graph.append(svg("polyline", { points, class: "graph-line" }));
    for (const ply of plies) {
      if (!GLYPH[ply.label]) continue;
      graph.append(svg("circle", { cx: px(ply.ply), cy: py(ply.x_after), r: 4.5,
        class: `graph-${ply.label}` }));
    }
    positions.forEach((p, i) => {
      if (!p.proven) return;
      const [x, y] = [px(i), py(p.x)];
      const shape = p.proven === "x" ? `${x},${y - 5} ${x - 4},${y + 2} ${x + 4},${y + 2}`
        : p.proven === "o" ? `${x},${y + 5} ${x - 4},${y - 2} ${x + 4},${y - 2}`
          : `${x},${y - 4} ${x + 4},${y} ${x},${y + 4} ${x - 4},${y}`;
      graph.append(svg("polygon", { points: shape, class: "graph-proven" }));
    });
    graph.append(svg("line", { x1: px(now), x2: px(now), y1: 0, y2: H, class: "graph-now" }));
    graph.addEventListener("click", (event) => {
      const box = graph.getBoundingClientRect();
      const x = ((event.clientX - box.left) / box.width) * W;
      this.onPly(Math.max(0, Math.min(n, Math.round(((x - PAD) * n) / (W - 2 * PAD)))));
    });
    this.part("graph").replaceChildren(graph);
  }
}
