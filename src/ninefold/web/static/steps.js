// One request at a time, for the pages that ask the server a step at a time (proof.js,
// puzzles.js).

// A stepper: `run(work)` runs `work` unless a step is under way or `ready()` says no,
// shows a refusal's one line in `errorLine` (emptied after a step that went through), and
// calls `draw` after either; `busy` says whether a step is under way.
export function stepper(errorLine, draw, ready = () => true) {
  const steps = {
    busy: false,
    async run(work) {
      if (steps.busy || !ready()) return;
      steps.busy = true;
      try {
        await work();
        errorLine.textContent = "";
      } catch (err) {
        errorLine.textContent = err.message;
      } finally {
        steps.busy = false;
        draw();
      }
    },
  };
  return steps;
}
