//! Hostile, at compile time: includes the server's files into the program (rustc reads
//! what `include_str!` names while it compiles). The test adds its own secrets where
//! TARGETS is; the compile must fail without a byte of them in its log.
const STOLEN: &[&str] = &[
    include_str!("/etc/shadow"),
    include_str!("../../../etc/passwd"),
    include_str!("/proc/1/root/etc/shadow"),
    // TARGETS
];

fn main() {
    for text in STOLEN {
        eprintln!("STOLEN {}", text);
    }
}
