//! A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY.
use std::io::{self, BufRead, Write};

const STRATEGY: &str = "random"; // random | first | center | win-if-possible
const SEED: u64 = 0;
const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6],
                                [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

/// The fixtures' LCG, the same in every language.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn cell(board: usize, k: usize) -> usize {
    9 * (3 * (board / 3) + k / 3) + 3 * (board % 3) + k % 3
}

fn wins(field: &[String], i: usize, me: &str) -> bool {
    let board = 3 * (i / 27) + (i % 9) / 3;
    LINES.iter().any(|line| line.iter().all(|&k| {
        let c = cell(board, k);
        c == i || field[c] == me
    }))
}

fn choose(field: &[String], macro_: &[String], me: &str, rng: &mut Rng) -> usize {
    let legal: Vec<usize> = (0..81)
        .filter(|&i| field[i] == "." && macro_[3 * (i / 27) + (i % 9) / 3] == "-1")
        .collect();
    if STRATEGY == "first" {
        return legal[0];
    }
    let mut best: Vec<usize> = Vec::new();
    if STRATEGY == "center" {
        best = legal.iter().copied().filter(|i| i % 3 == 1 && (i / 9) % 3 == 1).collect();
        if best.is_empty() {
            best = legal.iter().copied().filter(|i| i % 3 != 1 && (i / 9) % 3 != 1).collect();
        }
    }
    if STRATEGY == "win-if-possible" {
        best = legal.iter().copied().filter(|&i| wins(field, i, me)).collect();
    }
    if best.is_empty() {
        best = legal;
    }
    best[rng.below(best.len())]
}

fn main() {
    let mut rng = Rng(SEED.wrapping_mul(2654435761).wrapping_add(12345));
    let (mut me, mut field, mut macro_) = (String::from("0"), Vec::new(), Vec::new());
    let mut out = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let parts: Vec<&str> = line.split_whitespace().collect();
        let split = |text: &str| text.split(',').map(String::from).collect::<Vec<String>>();
        match parts.as_slice() {
            ["settings", "your_botid", id] => me = id.to_string(),
            ["update", "game", "field", text] => field = split(text),
            ["update", "game", "macroboard", text] => macro_ = split(text),
            ["action", "move", ..] => {
                let i = choose(&field, &macro_, &me, &mut rng);
                writeln!(out, "place_disc {} {}", i % 9, i / 9).expect("stdout");
                out.flush().expect("stdout");
            }
            _ => {}
        }
    }
}
