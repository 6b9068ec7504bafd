//! A small process-start timer for scripts/bench-hooks.sh, used when the
//! installed hyperfine cannot feed a file to stdin without a shell.
//! Not part of the gk crate: compiled on its own with rustc.
//!
//! Usage: bench-spawn RUNS WARMUP SPEC
//! SPEC has one command per line: `name<TAB>stdin-file<TAB>program<TAB>arg…`.
//! The first line is the baseline. Runs are interleaved so drift in
//! machine load hits every command alike, and the baseline runs before
//! each other command (baseline, first, baseline, second, …): a program
//! started right after the same program starts 4–9 % faster than one
//! started after another (docs/maintainers/benchmarks.md), so every
//! command timed follows the baseline and the baseline always follows
//! another program. For each command it prints the median, mean and 10th
//! percentile wall time of spawn + wait, and the median's ratio to the
//! baseline (whose figures come from all its runs). Before each run it
//! writes over a buffer of BENCH_EVICT_MB MiB (16 unless set; 0: none),
//! so that run finds none of its lines in the core's L2 cache; pin it to
//! one core (`taskset -c 0`) for that to hold for the children as well.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::Instant;

struct Cmd {
    name: String,
    stdin: String,
    argv: Vec<String>,
    times: Vec<f64>,
}

/// Writes over a buffer larger than the core's L2 cache, so the program
/// started next finds none of its lines there, as a hook started by the
/// client after seconds of other work does.
fn evict(buf: &mut [u8]) {
    for i in (0..buf.len()).step_by(64) {
        buf[i] = buf[i].wrapping_add(1);
    }
    std::hint::black_box(&buf);
}

fn run_once(c: &Cmd, buf: &mut [u8]) -> f64 {
    evict(buf);
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
    let evict_mb: usize = std::env::var("BENCH_EVICT_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let mut buf = vec![1u8; evict_mb << 20];
    let (base, rest) = cmds.split_first_mut().expect("a baseline");
    for _ in 0..warmup {
        for c in rest.iter() {
            run_once(base, &mut buf);
            run_once(c, &mut buf);
        }
    }
    for _ in 0..runs {
        for c in rest.iter_mut() {
            let t = run_once(base, &mut buf);
            base.times.push(t);
            let t = run_once(c, &mut buf);
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
