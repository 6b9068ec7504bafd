//! What the gk program does before any command runs, checked on the built
//! binary: a closed pipe on stdout is a write error, not a kill, so a hook
//! still exits 0; closed standard descriptors are held on `/dev/null`, so
//! no file gk opens becomes its stdout. (On Linux with glibc the program
//! starts at a C-level `main` and does these itself; see `src/main.rs`.)
//! The tests start gk as a process: that start is what they check.

#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{gk_bin, TestEnv};

#[test]
fn a_hook_whose_reader_went_away_still_exits_0() {
    let env = TestEnv::new();
    let mut child = Command::new(gk_bin())
        .args(["hook", "prompt"])
        .env_clear()
        .env("HOME", env.home())
        .env("USERPROFILE", env.home())
        .env("GK_STATE_DIR", env.root().join("state"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader closes its end before the hook has read its input, so
    // the hook's one write meets a pipe with no reader.
    drop(child.stdout.take());
    let payload = r#"{"session_id":"s1","prompt":"review all the sparql queries","hook_event_name":"UserPromptSubmit"}"#;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(unix)]
#[test]
fn with_stdout_and_stderr_closed_install_leaves_the_files_it_leaves_with_them_open() {
    let closed = install_in_shell(">&- 2>&-");
    let open = install_in_shell(">/dev/null 2>&1");
    assert!(!open.is_empty());
    assert_eq!(closed, open);
}

/// Run `gk install --yes` in a fresh home through `sh`, its stdout and
/// stderr redirected by `redirect` (`>&-` closes one, as a careless
/// launcher can); every file then under the temporary root but the copied
/// program, with the root's path taken out of its text.
#[cfg(unix)]
fn install_in_shell(redirect: &str) -> Vec<(String, String)> {
    let env = TestEnv::new();
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!(r#"exec "$0" install --yes {redirect}"#))
        .arg(gk_bin())
        .env_clear()
        .env("HOME", env.home())
        .env("PATH", "/usr/bin:/bin")
        .env("GK_STATE_DIR", env.root().join("state"))
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "{redirect}: {status:?}");
    let mut seen = Vec::new();
    walk(env.root(), &mut seen);
    let root = env.root().to_string_lossy().into_owned();
    let mut files: Vec<(String, String)> = seen
        .into_iter()
        .map(|path| {
            let text =
                String::from_utf8_lossy(&std::fs::read(&path).unwrap()).replace(&root, "<root>");
            (path.to_string_lossy().replace(&root, "<root>"), text)
        })
        .collect();
    files.sort();
    files
}

#[cfg(unix)]
fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            walk(&path, out);
        } else if kind.is_file() && path.file_name() != Some(std::ffi::OsStr::new("gk")) {
            out.push(path);
        }
    }
}
