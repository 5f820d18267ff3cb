//! A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
//!
//! It reads the position ("update game field", "update game macroboard") and, on
//! "action move", answers "place_move X Y" with the first legal square. Squares are
//! numbered 9 * y + x; a small board may be played where the macroboard says -1.
//! Put your strategy in `choose`. Only the standard library is available.
use std::io::{self, BufRead, Write};

/// The square (0-80) to play: here the first legal one.
fn choose(field: &[String], macroboard: &[String]) -> usize {
    // Riddles.io's empty square, or AI Games' (where "." never appears)
    let empty = if field.iter().any(|f| f == ".") { "." } else { "0" };
    (0..81)
        .find(|&i| {
            let board = 3 * (i / 27) + (i % 9) / 3;
            field[i] == empty && macroboard[board] == "-1"
        })
        .expect("no legal move")
}

fn main() {
    let (mut field, mut macroboard) = (Vec::new(), Vec::new());
    let mut out = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let parts: Vec<&str> = line.split_whitespace().collect();
        let split = |text: &str| text.split(',').map(String::from).collect::<Vec<String>>();
        match parts.as_slice() {
            ["update", "game", "field", text] => field = split(text),
            ["update", "game", "macroboard", text] => macroboard = split(text),
            ["action", "move", ..] => {
                let i = choose(&field, &macroboard);
                writeln!(out, "place_move {} {}", i % 9, i / 9).expect("stdout");
                out.flush().expect("stdout");
            }
            _ => {}
        }
    }
}
