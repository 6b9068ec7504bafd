//! A run under limits: killed after a time limit (a hang fails its case
//! instead of stalling the suite) and, on Unix, held to an address space
//! through `sh -c 'ulimit -v <KiB>; exec …'` (a reader that runs away fails
//! its case instead of taking the machine's memory). Only a process can be
//! killed or limited, so these runs are processes: build the command with
//! [`super::Gk::to_command`].

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Run;

/// What the run reads on stdin.
pub enum Stdin {
    Bytes(Vec<u8>),
    /// Opened from this file (a device such as /dev/zero).
    #[cfg_attr(not(unix), allow(dead_code))] // no such device on Windows
    File(PathBuf),
}

/// Exit code of the wrapper when `ulimit -v` itself fails.
const ULIMIT_FAILED: i32 = 97;

/// Run `cmd` with `stdin` under `ulimit -v memory_kib` (Unix), killing it
/// after `limit`: a run that had to be killed, was killed by a signal (an
/// allocation that failed) or whose limit could not be set fails the case
/// `what`. Gives the run and the time it took.
pub fn run_limited(
    cmd: Command,
    stdin: Stdin,
    memory_kib: u64,
    limit: Duration,
    what: &str,
) -> (Run, Duration) {
    let mut cmd = wrap_memory(cmd, memory_kib);
    match &stdin {
        Stdin::Bytes(_) => cmd.stdin(Stdio::piped()),
        Stdin::File(f) => cmd.stdin(Stdio::from(std::fs::File::open(f).unwrap())),
    };
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{what}: start: {e}"));
    let feeder = match stdin {
        Stdin::Bytes(bytes) => {
            let mut pipe = child.stdin.take().unwrap();
            // A hook may stop reading early; a closed pipe is not an error here.
            Some(std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            }))
        }
        Stdin::File(_) => None,
    };
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}: it hangs (killed)");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let took = start.elapsed();
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let run = Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert!(
        run.code.is_some(),
        "{what}: killed by a signal ({status:?}), e.g. an allocation that failed\n{}{}",
        run.stdout_text(),
        run.stderr_text()
    );
    assert_ne!(run.code, Some(ULIMIT_FAILED), "{what}: ulimit -v failed");
    (run, took)
}

#[cfg(unix)]
fn wrap_memory(cmd: Command, kib: u64) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!(
            "ulimit -v {kib} || exit {ULIMIT_FAILED}; exec \"$0\" \"$@\""
        ))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        sh.current_dir(dir);
    }
    sh
}

#[cfg(not(unix))]
fn wrap_memory(cmd: Command, _kib: u64) -> Command {
    cmd
}
