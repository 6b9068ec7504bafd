//! Shared helpers for the hook tests: a temporary HOME with a `.claude/hooks`
//! folder, gk run in it through the one test sandbox (`tests/support`), and
//! what a run gave back. A test crate that includes this module includes
//! `mod support;` too.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use assert_cmd::Command;
use serde_json::Value;

pub struct Home {
    pub dir: tempfile::TempDir,
}

pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The single JSON object printed (panics with context when there is
    /// anything else).
    pub fn json(&self) -> Value {
        let text = self.stdout_text();
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "not one line: {text:?}"
        );
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text:?}"))
    }

    pub fn system_message(&self) -> String {
        self.json()["systemMessage"].as_str().unwrap().to_string()
    }

    /// The message shown to the user; `None` when the hook shows none.
    pub fn shown(&self) -> Option<String> {
        self.json()["systemMessage"].as_str().map(str::to_string)
    }

    pub fn context(&self) -> String {
        self.json()["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The hook-path contract: exit 0, nothing on stderr, and stdout either
    /// empty or exactly one line holding one JSON object.
    pub fn assert_hook_contract(&self, what: &str) {
        assert_eq!(self.code, Some(0), "{what}: exit code");
        assert!(
            self.stderr.is_empty(),
            "{what}: stderr {:?}",
            String::from_utf8_lossy(&self.stderr)
        );
        if self.stdout.is_empty() {
            return;
        }
        let text = std::str::from_utf8(&self.stdout)
            .unwrap_or_else(|_| panic!("{what}: stdout not UTF-8"));
        assert!(text.is_ascii(), "{what}: stdout not ASCII");
        assert!(
            text.ends_with('\n') && text.matches('\n').count() == 1,
            "{what}: stdout is not one line: {text:?}"
        );
        let v: Value = serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("{what}: stdout not JSON ({e}): {text:?}"));
        assert!(v.is_object(), "{what}: stdout not an object");
    }
}

impl Home {
    pub fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude").join("hooks")).unwrap();
        Home { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.path().join(".claude").join("hooks")
    }

    pub fn state_path(&self) -> PathBuf {
        self.hooks_dir().join("task_state.json")
    }

    pub fn config_path(&self) -> PathBuf {
        self.hooks_dir().join("gk.json")
    }

    /// Write task_state.json and set its mtime `age_secs` before now.
    pub fn write_state(&self, bytes: impl AsRef<[u8]>, age_secs: u64) {
        let path = self.state_path();
        std::fs::write(&path, bytes).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
            .unwrap();
    }

    pub fn write_config(&self, text: &str) {
        std::fs::write(self.config_path(), text).unwrap();
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = crate::support::gk(self.path());
        cmd.args(args);
        cmd
    }

    pub fn run(&self, args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
        let out = self.command(args).write_stdin(stdin).output().unwrap();
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }

    pub fn prompt(&self, prompt: &str) -> Run {
        let event = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt});
        self.run(&["hook", "prompt"], event.to_string())
    }

    pub fn stop(&self) -> Run {
        self.run(&["hook", "stop"], r#"{"hook_event_name":"Stop"}"#)
    }
}

/// Every file under `dir` (links and special files read as they read, or
/// as empty), with its bytes, sorted: to show a run changed nothing.
pub fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}
