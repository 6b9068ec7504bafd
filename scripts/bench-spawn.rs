//! A small process-start timer for scripts/bench-hooks.sh, used when the
//! installed hyperfine cannot feed a file to stdin without a shell.
//! Not part of the gk crate: compiled on its own with rustc.
//!
//! Usage: bench-spawn RUNS WARMUP SPEC
//! SPEC has one command per line: `name<TAB>stdin-file<TAB>program<TAB>arg…`.
//! The first line is the baseline. Runs are interleaved (one of each in
//! turn) so drift in machine load hits every command alike. For each
//! command it prints the median, mean and 10th percentile wall time of
//! spawn + wait, and the median's ratio to the baseline.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::Instant;

struct Cmd {
    name: String,
    stdin: String,
    argv: Vec<String>,
    times: Vec<f64>,
}

fn run_once(c: &Cmd) -> f64 {
    let input = File::open(&c.stdin).expect("stdin file");
    let start = Instant::now();
    let status = Command::new(&c.argv[0])
        .args(&c.argv[1..])
        .stdin(Stdio::from(input))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    let t = start.elapsed().as_secs_f64() * 1000.0;
    assert!(status.success(), "{} failed: {status}", c.name);
    t
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args[1].parse().unwrap();
    let warmup: usize = args[2].parse().unwrap();
    let spec = std::fs::read_to_string(&args[3]).unwrap();
    let mut cmds: Vec<Cmd> = spec
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split('\t').map(String::from);
            Cmd {
                name: f.next().unwrap(),
                stdin: f.next().unwrap(),
                argv: f.collect(),
                times: Vec::new(),
            }
        })
        .collect();
    for _ in 0..warmup {
        for c in &cmds {
            run_once(c);
        }
    }
    for _ in 0..runs {
        for c in cmds.iter_mut() {
            let t = run_once(c);
            c.times.push(t);
        }
    }
    let stats = |t: &mut Vec<f64>| {
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let median = t[t.len() / 2];
        let p10 = t[t.len() / 10];
        let mean = t.iter().sum::<f64>() / t.len() as f64;
        (median, mean, p10)
    };
    let mut base = None;
    println!(
        "{:<28} {:>10} {:>10} {:>10} {:>12}",
        "command", "median ms", "mean ms", "p10 ms", "vs baseline"
    );
    for c in cmds.iter_mut() {
        let (median, mean, p10) = stats(&mut c.times);
        let b = *base.get_or_insert(median);
        println!(
            "{:<28} {:>10.3} {:>10.3} {:>10.3} {:>11.2}x",
            c.name,
            median,
            mean,
            p10,
            median / b
        );
    }
}
