//! A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
//!
//! Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
//! turn), the number of valid actions and that many "row col" lines, and answers
//! "row col": here the first valid action. Put your strategy in `choose`.
//! Only the standard library is available.
use std::io::{self, BufRead, Write};

type Action = (i32, i32);

/// The action to play: here the first valid one.
fn choose(_last: Action, actions: &[Action]) -> Action {
    actions[0]
}

fn pair(line: &str) -> Action {
    let mut numbers = line.split_whitespace().map(|v| v.parse().expect("a number"));
    (numbers.next().expect("row"), numbers.next().expect("col"))
}

fn main() {
    let mut lines = io::stdin().lock().lines().map(|line| line.expect("stdin"));
    let mut out = io::stdout();
    while let Some(line) = lines.next() {
        let last = pair(&line);
        let n: usize = lines.next().expect("a count").trim().parse().expect("a count");
        let actions: Vec<Action> = (0..n).map(|_| pair(&lines.next().expect("an action"))).collect();
        let (row, col) = choose(last, &actions);
        writeln!(out, "{} {}", row, col).expect("stdout");
        out.flush().expect("stdout");
    }
}
