//! gk run in-process (`gk::testing::run`) is gk run as a process: for the
//! same arguments, stdin and files, the same exit code, stdout and stderr,
//! and the same files afterwards. Two twin sandboxes (a temporary HOME
//! and a project folder each, set up the same way) take the same steps,
//! one through the built program, one in-process; outputs and files are
//! compared with each sandbox's own folder written as `<ROOT>` and smoke
//! timings as `N ms`. Then two in-process runs in parallel threads, with
//! different HOMEs, each see only their own.

use std::path::{Path, PathBuf};

use crate::common::{Gk, TestEnv};

/// A sandbox: the test environment, with `<root>/work` the current folder.
struct Sandbox {
    env: TestEnv,
    root: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let env = TestEnv::new();
        let root = env.root().to_path_buf();
        std::fs::create_dir_all(root.join("home/.claude")).unwrap();
        std::fs::create_dir_all(root.join("work")).unwrap();
        Sandbox { env, root }
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    fn write(&self, rel: &str, text: &str) {
        self.env.write(self.root.join(rel), text);
    }

    fn gk(&self, args: &[&str], stdin: &[u8]) -> Gk {
        let mut gk = self.env.gk(args);
        gk.current_dir(self.work()).stdin(stdin);
        gk
    }

    /// gk as a process in this sandbox.
    fn process(&self, args: &[&str], stdin: &[u8]) -> Ran {
        let out = self.gk(args, stdin).run_process();
        let code = out.status.code().expect("gk ended by a signal") as u8;
        self.ran(code, &out.stdout, &out.stderr)
    }

    /// gk in-process in this sandbox.
    fn in_process(&self, args: &[&str], stdin: &[u8]) -> Ran {
        let out = self.gk(args, stdin).run_in_process();
        let code = out.status.code().expect("an exit code") as u8;
        self.ran(code, &out.stdout, &out.stderr)
    }

    fn ran(&self, code: u8, out: &[u8], err: &[u8]) -> Ran {
        Ran {
            code,
            stdout: self.norm(out),
            stderr: self.norm(err),
        }
    }

    /// `bytes` as text with this sandbox's folder as `<ROOT>` (also as
    /// JSON spells it) and smoke timings as `N ms`.
    fn norm(&self, bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        let root = self.root.to_string_lossy();
        let json = serde_json::to_string(&root).unwrap();
        let text = text
            .replace(json.trim_matches('"'), "<ROOT>")
            .replace(&*root, "<ROOT>");
        let ms = regex::Regex::new(r"\b\d+ ms\b").unwrap();
        let text = ms.replace_all(&text, "N ms");
        let age = regex::Regex::new(r#""age_seconds": \d+"#).unwrap();
        let text = age.replace_all(&text, r#""age_seconds": N"#);
        // A folder's pointer is named by a hash of the folder's path.
        let key = regex::Regex::new(r"folder\.[0-9a-f]{32}").unwrap();
        let text = key.replace_all(&text, "folder.<KEY>");
        // A backup's name: the file's whole path, separators as `%`, and
        // the second it was made.
        let backup =
            regex::Regex::new(r"[^\s/\\]*?(%(?:home|work)%\S*)\.gk-backup-\d{8}-\d{6}").unwrap();
        backup
            .replace_all(&text, "<ROOT>$1.gk-backup-<STAMP>")
            .into_owned()
    }

    /// Every file under the sandbox: its path from the root, and its
    /// bytes with the root as `<ROOT>` (the copied program as it is).
    fn files(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut todo = vec![self.root.clone()];
        while let Some(dir) = todo.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(&self.root).unwrap();
                let rel = self.norm(rel.to_string_lossy().replace('\\', "/").as_bytes());
                if path.is_dir() {
                    out.push((format!("{rel}/"), Vec::new()));
                    todo.push(path);
                    continue;
                }
                let bytes = std::fs::read(&path).unwrap();
                let bytes = match std::str::from_utf8(&bytes) {
                    Ok(_) => self.norm(&bytes).into_bytes(),
                    Err(_) => bytes,
                };
                out.push((rel, bytes));
            }
        }
        out.sort();
        out
    }
}

#[derive(Debug, PartialEq, Eq)]
struct Ran {
    code: u8,
    stdout: String,
    stderr: String,
}

/// Twin sandboxes: one for the process, one for the in-process runs.
struct Twins {
    process: Sandbox,
    in_process: Sandbox,
}

impl Twins {
    fn new() -> Twins {
        Twins {
            process: Sandbox::new(),
            in_process: Sandbox::new(),
        }
    }

    fn write(&self, rel: &str, text: &str) {
        self.process.write(rel, text);
        self.in_process.write(rel, text);
    }

    /// Run `args` both ways; assert the same result and the same files.
    /// Returns the result.
    fn same(&self, args: &[&str], stdin: &[u8]) -> Ran {
        self.same_with(args, &|_| stdin.to_vec())
    }

    /// [`Twins::same`] with each sandbox's own stdin (an event naming
    /// its folder).
    fn same_with(&self, args: &[&str], stdin: &dyn Fn(&Sandbox) -> Vec<u8>) -> Ran {
        let by_process = self.process.process(args, &stdin(&self.process));
        let in_process = self.in_process.in_process(args, &stdin(&self.in_process));
        assert_eq!(in_process, by_process, "gk {args:?}: in-process differs");
        let (a, b) = (self.process.files(), self.in_process.files());
        let names = |f: &[(String, Vec<u8>)]| f.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        assert_eq!(names(&b), names(&a), "gk {args:?}: other files");
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "gk {args:?}: {name} differs");
        }
        by_process
    }
}

const SESSION: &str = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";

fn prompt_event(prompt: &str, cwd: &Path) -> Vec<u8> {
    serde_json::json!({
        "session_id": SESSION,
        "cwd": cwd,
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
    .to_string()
    .into_bytes()
}

#[test]
fn commands_in_process_equal_the_process() {
    let t = Twins::new();
    // Another tool's hook and a secret in the user's settings, and in the
    // project a second spelling of the prompt hook: the session check (and
    // so the smoke run of `install`) reports it only when it reads this
    // HOME's settings.
    t.write(
        "home/.claude/settings.json",
        r#"{"env": {"API_TOKEN": "sk-SECRET-1"}, "hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]}}"#,
    );
    t.write(
        "work/.claude/settings.local.json",
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/.claude/hooks/gk hook prompt"}]}]}}"#,
    );
    let installed = t.same(&["install", "--yes", "--no-smoke"], b"");
    assert_eq!(installed.code, 0, "{installed:?}");
    t.same(&["doctor", "--no-smoke"], b"");
    let json = t.same(&["doctor", "--json", "--no-smoke"], b"");
    assert!(json.stdout.contains("\"findings\""), "{}", json.stdout);
    t.same(&["state"], b"");
    t.same(&["state", "--json"], b"");
    t.same(&["rules"], b"");
    t.same(
        &["explain", "review the whole repository, then fix every bug"],
        b"",
    );
    let completions = t.same(&["completions", "bash"], b"");
    assert!(
        completions.stdout.contains("_gk()"),
        "{}",
        completions.stdout
    );

    // The hooks, global scope (the default) then per session with a task
    // record in progress.
    for prompt in ["hi", "please refactor the whole codebase carefully", ""] {
        t.same_with(&["hook", "prompt"], &|s| prompt_event(prompt, &s.work()));
    }
    t.same(&["hook", "prompt"], b"not json");
    t.same(&["hook", "stop"], b"{}");
    t.write(
        "home/.claude/hooks/gk.json",
        r#"{"state": {"scope": "session"}}"#,
    );
    t.write(
        &format!("home/.local/state/gk/{SESSION}.json"),
        r#"{"status": "in_progress", "task": "Writing the parser", "detail": "", "project": "p", "cwd": "", "updated": "2026-01-01T10:00:00"}"#,
    );
    for prompt in ["hi", "design the architecture of a distributed lock"] {
        t.same_with(&["hook", "prompt"], &|s| prompt_event(prompt, &s.work()));
    }
    let stop = serde_json::json!({"session_id": SESSION, "hook_event_name": "Stop"});
    let stopped = t.same(&["hook", "stop"], stop.to_string().as_bytes());
    assert!(stopped.stdout.contains("Writing the parser"), "{stopped:?}");
    let session = |s: &Sandbox| {
        serde_json::json!({
            "session_id": SESSION, "cwd": s.work(), "hook_event_name": "SessionStart", "source": "startup",
        })
        .to_string()
        .into_bytes()
    };
    let checked = t.same_with(&["hook", "session"], &session);
    assert!(checked.stdout.contains("runs twice"), "{checked:?}");
    t.same_with(&["statusline"], &session);
    t.same(&["hook", "nonsense"], b"");

    // The smoke runs start the installed program: it must see the sandbox's
    // HOME (the session check then reports the project's second spelling).
    let smoked = t.same(&["install", "--yes"], b"");
    assert!(smoked.stdout.contains("it reports:"), "{smoked:?}");

    // Something for --fix to do: the installed program gone.
    for s in [&t.process, &t.in_process] {
        let name = if cfg!(windows) { "gk.exe" } else { "gk" };
        std::fs::remove_file(s.home().join(".claude/hooks").join(name)).unwrap();
    }
    let fixed = t.same(&["doctor", "--fix", "--yes", "--no-smoke"], b"");
    assert!(fixed.stdout.contains("After the fix"), "{fixed:?}");
    t.same(&["doctor", "--no-smoke"], b"");

    // Asked without --yes, stdin not a terminal: refused, nothing written.
    let refused = t.same(&["uninstall"], b"y\n");
    assert_eq!(refused.code, 1, "{refused:?}");
    t.same(&["uninstall", "--yes"], b"");

    // Usage errors: clap's (exit 2), a mistyped hook (exit 1), none at all.
    assert_eq!(t.same(&["doctr"], b"").code, 2);
    assert_eq!(t.same(&["hok", "prompt"], b"").code, 1);
    assert_eq!(t.same(&[], b"").code, 1);
    assert_eq!(t.same(&["--version"], b"").code, 0);
    t.same(&["doctor", "--help"], b"");
}

#[test]
fn parallel_in_process_runs_each_see_their_own_home() {
    let boxes = [Sandbox::new(), Sandbox::new()];
    // Each home says a different task is in progress (global scope).
    for (i, s) in boxes.iter().enumerate() {
        s.write(
            "home/.claude/hooks/task_state.json",
            &format!(r#"{{"status": "in_progress", "task": "task of home {i}", "updated": "2026-01-01T10:00:00"}}"#),
        );
    }
    let boxes = &boxes;
    std::thread::scope(|scope| {
        for (i, s) in boxes.iter().enumerate() {
            scope.spawn(move || {
                let ran = s.in_process(&["install", "--yes", "--no-smoke"], b"");
                assert_eq!(ran.code, 0, "{ran:?}");
                let claude = s.home().join(".claude");
                let claude = s.norm(claude.to_string_lossy().as_bytes());
                assert!(ran.stdout.contains(&claude), "{ran:?}");
                for _ in 0..5 {
                    let stop = s.in_process(&["hook", "stop"], b"{}");
                    assert!(
                        stop.stdout.contains(&format!("task of home {i}")),
                        "{stop:?}"
                    );
                    assert!(!stop.stdout.contains(&format!("task of home {}", 1 - i)));
                    let doctor = s.in_process(&["doctor", "--json", "--no-smoke"], b"");
                    let other = boxes[1 - i].root.to_string_lossy().into_owned();
                    assert!(!doctor.stdout.contains(&other), "{doctor:?}");
                }
            });
        }
    });
    for s in boxes {
        assert!(s.home().join(".claude/settings.json").is_file());
    }
}
