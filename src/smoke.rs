//! Runs a registered hook command the way Claude Code would (through
//! `sh -c`, Git Bash or PowerShell, or with no shell for the exec form)
//! with a realistic payload on stdin, and
//! judges the result. This is the only place in gk that starts a process;
//! it carries the crate's single `#[allow]` of the disallowed
//! `std::process::Command` (see clippy.toml). Install uses it for its
//! post-write check, doctor for `hook-smoke-failed` / `hook-slow`; it sits
//! below both (it knows neither findings nor plans), so neither command
//! depends on the other to start a hook.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::env::Env;
use crate::error::{Error, Result};
use crate::hookcmd::{HookCommand, HookKind, ShellForm, SmokeCheck};
// The command line a person types: each word for sh as it is or in single
// quotes; for PowerShell always a single-quoted string.
use crate::hookcmd::{ps_single_quoted as ps_quote, sh_word as sh_quote};
use crate::platform::Os;

/// How a command string is handed to a shell: program and its arguments
/// (the command string itself is the last argument).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellInvocation {
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// What one run produced.
#[derive(Debug, Clone)]
pub struct SmokeRun {
    /// `None` when the process was killed (timeout) or ended by a signal.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
    pub timed_out: bool,
}

/// Pure: how Claude Code would start `command` on `os` with `shell`.
/// `git_bash` is the bash.exe found on Windows (see `platform::find_git_bash`);
/// a Bash-form command on Windows without Git Bash falls back to PowerShell,
/// as Claude Code does.
pub fn shell_invocation(
    os: Os,
    shell: ShellForm,
    git_bash: Option<&Path>,
    command: &str,
) -> ShellInvocation {
    match (os, shell, git_bash) {
        (Os::Windows, ShellForm::Bash, Some(bash)) => ShellInvocation {
            program: bash.to_path_buf(),
            args: vec!["-c".into(), command.into()],
        },
        // The start flags the 2.1.332 client keeps for PowerShell (read from
        // its code, not run on Windows here). It prefers PowerShell 7
        // (`pwsh.exe`) when installed; Windows PowerShell is always there and
        // runs `& "…\gk.exe" …` the same way.
        (Os::Windows, _, _) => ShellInvocation {
            program: PathBuf::from("powershell.exe"),
            args: vec![
                "-NoProfile".into(),
                "-NonInteractive".into(),
                "-ExecutionPolicy".into(),
                "Bypass".into(),
                "-Command".into(),
                command.into(),
            ],
        },
        _ => ShellInvocation {
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), command.into()],
        },
    }
}

/// Pure: how Claude Code starts a hook to register: the exec form with no
/// shell (the program and its arguments, as they are), any other form
/// through [`shell_invocation`].
pub fn invocation(os: Os, git_bash: Option<&Path>, hook: &HookCommand) -> ShellInvocation {
    match &hook.args {
        Some(args) => exec_invocation(&hook.command, args),
        None => {
            let shell = match hook.shell {
                Some(s) if s.eq_ignore_ascii_case("powershell") => ShellForm::PowerShell,
                _ => ShellForm::Bash,
            };
            shell_invocation(os, shell, git_bash, &hook.command)
        }
    }
}

/// Pure: an exec-form handler as the client starts it: `command` is the
/// program (nothing expands, no shell), `args` its arguments.
pub fn exec_invocation(program: &str, args: &[String]) -> ShellInvocation {
    ShellInvocation {
        program: PathBuf::from(program),
        args: args.to_vec(),
    }
}

/// Pure: the client's program on `path` (the `PATH` value): the first
/// absolute folder holding `claude` (on Windows `claude.exe`: a `claude.cmd` from
/// npm needs a shell, and is not looked for), as `exists` says.
pub fn find_client(os: Os, path: Option<&str>, exists: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let (sep, name) = if os.is_windows() {
        (';', "claude.exe")
    } else {
        (':', "claude")
    };
    path?
        .split(sep)
        .map(|d| d.trim().trim_matches('"'))
        // A relative folder (`.`, `bin`) names wherever install happens to
        // run, a cloned repository, say: never a program to start.
        .filter(|d| crate::paths::is_absolute_on(os, d))
        .map(|d| Path::new(d).join(name))
        .find(|p| exists(p))
}

/// The version of the client on `PATH`, read from `claude --version`
/// (given at most 10 s); `None` when none is found, it fails, or it prints
/// no version. Install's question, never a hook's: it starts a process.
pub fn client_version(os: Os, env: &Env) -> Option<crate::hookcmd::ClientVersion> {
    let path = env.var_os("PATH")?;
    let program = find_client(os, path.to_str(), &|p| p.is_file())?;
    let invocation = ShellInvocation {
        program,
        args: vec!["--version".into()],
    };
    let run = run(&invocation, "", Duration::from_secs(10), env, &[]).ok()?;
    if run.exit_code != Some(0) {
        return None;
    }
    crate::hookcmd::ClientVersion::parse(&run.stdout)
}

/// A payload shaped like the one Claude Code sends for this hook's event
/// (fields as measured on the real client).
pub fn sample_payload(kind: HookKind, cwd: &Path) -> String {
    let cwd = cwd.to_string_lossy();
    let mut v = json!({
        "session_id": "00000000-0000-4000-8000-00000000gk00",
        "transcript_path": "",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": kind.event(),
    });
    let obj = v.as_object_mut().expect("json! object literal");
    // The row's fields are checked to be an object by hookcmd's tests.
    if let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(kind.spec().smoke_fields) {
        obj.extend(fields);
    }
    v.to_string()
}

/// Start the invocation, feed `stdin`, wait at most `timeout`, collect output.
/// The child gets `base`'s variables and current folder (not this
/// process's: a run in-process with its own HOME smoke-runs with that
/// HOME), with the `env` entries added.
#[allow(clippy::disallowed_types, clippy::disallowed_methods)]
pub fn run(
    invocation: &ShellInvocation,
    stdin: &str,
    timeout: Duration,
    base: &Env,
    env: &[(String, String)],
) -> Result<SmokeRun> {
    use std::process::{Command, Stdio};
    let started = Instant::now();
    let mut command = Command::new(&invocation.program);
    if let Ok(dir) = base.current_dir() {
        command.current_dir(dir);
    }
    command
        .args(&invocation.args)
        .env_clear()
        .envs(base.vars())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A program written a moment ago can be "busy" (ETXTBSY on Linux) while
    // some process still holds a write handle to it: another thread's child
    // between its fork and its exec inherits every open file for an
    // instant. It passes; a few tries a few milliseconds apart see it go.
    let mut tries = 0;
    let mut child = loop {
        match command.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            other => {
                break other.map_err(|e| {
                    Error::new(format!(
                        "could not start {}: {e}",
                        invocation.program.display()
                    ))
                })?
            }
        }
    };

    let mut child_stdin = child.stdin.take();
    let input = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(mut s) = child_stdin.take() {
            // A hook that exits without reading stdin closes the pipe: not an error.
            let _ = s.write_all(&input);
        }
    });
    let out = child.stdout.take().map(read_all);
    let err = child.stderr.take().map(read_all);

    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() >= timeout => {
                timed_out = true;
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_micros(200)),
            Err(e) => {
                return Err(Error::new(format!(
                    "could not wait for {}: {e}",
                    invocation.program.display()
                )))
            }
        }
    };
    let duration = started.elapsed();
    // After a timeout a grandchild may still hold the pipes open: do not
    // wait for the readers then (they end when the pipes close).
    let (stdout, stderr) = if timed_out {
        (String::new(), String::new())
    } else {
        let _ = writer.join();
        (
            out.and_then(|h| h.join().ok()).unwrap_or_default(),
            err.and_then(|h| h.join().ok()).unwrap_or_default(),
        )
    };
    Ok(SmokeRun {
        exit_code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        duration,
        timed_out,
    })
}

/// The most of a run's stdout or stderr kept: a hook's answer or a
/// version is a few hundred bytes; the rest is read and dropped, so a
/// program that prints without end neither fills memory nor blocks.
const OUTPUT_LIMIT: usize = 1 << 20;

fn read_all<R: Read + Send + 'static>(r: R) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || String::from_utf8_lossy(&read_bounded(r, OUTPUT_LIMIT)).into_owned())
}

/// Everything `r` gives until its end or an error, of which the first
/// `limit` bytes are kept.
fn read_bounded(mut r: impl Read, limit: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let _ = (&mut r).take(limit as u64).read_to_end(&mut kept);
    let _ = std::io::copy(&mut r, &mut std::io::sink());
    kept
}

/// Did the run do what a working gk hook does? `Err` carries a one-line
/// reason (timeout, exit code with the first stderr line, or what was wrong
/// with stdout). A prompt or Stop hook switched off in gk.json prints
/// nothing: that is reported as a failure here with that hint; callers that
/// know the hook is disabled should not judge it. The session check prints
/// nothing when the setup is healthy, and one `systemMessage` of `gk: `
/// lines when it is not: both are a working hook (what the lines say is
/// the setup's business, see [`session_report`]).
pub fn judge(kind: HookKind, run: &SmokeRun) -> std::result::Result<(), String> {
    if run.timed_out {
        return Err(format!(
            "did not finish within {:.1} s",
            run.duration.as_secs_f64()
        ));
    }
    let first_err = run
        .stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    match run.exit_code {
        Some(0) => {}
        Some(code) if first_err.is_empty() => return Err(format!("exited with code {code}")),
        Some(code) => return Err(format!("exited with code {code}: {first_err}")),
        None => return Err("was ended by a signal".to_string()),
    }
    let out = run.stdout.trim();
    let check = kind.spec().smoke_check;
    if out.is_empty() && matches!(check, SmokeCheck::SessionReport | SmokeCheck::SilentOrEvent) {
        return Ok(());
    }
    if out.is_empty() {
        return Err("exited 0 but printed nothing (is it switched off in gk.json?)".to_string());
    }
    if !out.starts_with('{') {
        return Err(
            "printed something before the JSON (a shell profile?), so Claude Code ignores it"
                .to_string(),
        );
    }
    let value: Value =
        serde_json::from_str(out).map_err(|e| format!("printed invalid JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or("printed JSON that is not an object")?;
    match check {
        SmokeCheck::PromptContext => {
            let hso = obj.get("hookSpecificOutput").and_then(Value::as_object);
            let event = hso
                .and_then(|h| h.get("hookEventName"))
                .and_then(Value::as_str);
            let context = hso
                .and_then(|h| h.get("additionalContext"))
                .and_then(Value::as_str);
            if event != Some("UserPromptSubmit")
                // In per-session scope the record's sentence comes first.
                || !context.is_some_and(|c| {
                    c.starts_with("[Gatekeeper]")
                        || (c.starts_with("[Task state]") && c.contains(" [Gatekeeper] State: "))
                })
            {
                return Err(
                    "output lacks the UserPromptSubmit additionalContext gk prints".to_string(),
                );
            }
        }
        SmokeCheck::StopMessage => {
            let msg = obj.get("systemMessage").and_then(Value::as_str);
            if obj.len() != 1 || !msg.is_some_and(|m| m.starts_with("STATE [")) {
                return Err("output is not the single STATE systemMessage gk prints".to_string());
            }
        }
        SmokeCheck::SilentOrEvent => {
            let event = obj
                .get("hookSpecificOutput")
                .and_then(|h| h.get("hookEventName"))
                .and_then(Value::as_str);
            if event.is_some_and(|e| e != kind.event())
                || (event.is_none() && !obj.contains_key("systemMessage"))
            {
                return Err(format!("output is not an answer to {}", kind.event()));
            }
        }
        SmokeCheck::SessionReport => {
            if session_report(&value).is_none() {
                return Err(
                    "output is not what the session check prints (a systemMessage of `gk: ` lines, \
                     SessionStart context for Claude, or both)"
                        .to_string(),
                );
            }
        }
    }
    Ok(())
}

/// The lines a session check's output shows the user, or `None` when the
/// output is not what the session check prints: a `systemMessage` whose
/// every line starts `gk: ` (setup warnings, an earlier session's task in
/// this folder), a `hookSpecificOutput` giving Claude `SessionStart`
/// context (that task's story; the convention when gk's plugin starts it),
/// or both, and nothing else. Context alone gives no lines.
pub fn session_report(output: &Value) -> Option<Vec<&str>> {
    let obj = output.as_object()?;
    let lines: Vec<&str> = match obj.get("systemMessage") {
        None => Vec::new(),
        Some(m) => {
            let lines: Vec<&str> = m.as_str()?.lines().collect();
            if lines.is_empty() || !lines.iter().all(|l| l.starts_with("gk: ")) {
                return None;
            }
            lines
        }
    };
    let context_ok = match obj.get("hookSpecificOutput") {
        None => true,
        Some(h) => {
            let h = h.as_object()?;
            h.len() == 2
                && h.get("hookEventName").and_then(Value::as_str) == Some("SessionStart")
                && h.get("additionalContext").is_some_and(Value::is_string)
        }
    };
    let known = obj
        .keys()
        .all(|k| k == "systemMessage" || k == "hookSpecificOutput");
    (context_ok && known && !obj.is_empty()).then_some(lines)
}

/// The line a person types to run `invocation` by hand exactly as the
/// smoke test ran it: the same program and words, the same `env`
/// additions, the same payload on stdin. For `sh` on Linux and macOS
/// (`printf` rather than `echo`, which some shells read backslashes in);
/// for PowerShell on Windows (the variables set with `$env:` first, so
/// they stay set in that window).
pub fn by_hand(
    os: Os,
    invocation: &ShellInvocation,
    stdin: &str,
    env: &[(String, String)],
) -> String {
    let program = invocation.program.to_string_lossy();
    if os.is_windows() {
        let mut out = String::new();
        for (k, v) in env {
            out.push_str(&format!("$env:{k} = {}; ", ps_quote(v)));
        }
        out.push_str(&format!("{} | & {}", ps_quote(stdin), ps_quote(&program)));
        for a in &invocation.args {
            out.push(' ');
            out.push_str(&ps_quote(a));
        }
        out
    } else {
        let mut out = format!("printf %s {} |", sh_quote(stdin));
        for (k, v) in env {
            out.push_str(&format!(" {k}={}", sh_quote(v)));
        }
        out.push(' ');
        out.push_str(&sh_quote(&program));
        for a in &invocation.args {
            out.push(' ');
            out.push_str(&sh_quote(a));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    #[allow(clippy::disallowed_methods)] // a thread that lets go of the file
    fn a_program_busy_for_a_moment_after_its_write_still_starts() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("hook");
        std::fs::write(&program, "#!/bin/sh\necho ok\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A write handle held for 50 ms: starting it now is ETXTBSY.
        let held = std::fs::OpenOptions::new()
            .write(true)
            .open(&program)
            .unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        let invocation = ShellInvocation {
            program: program.clone(),
            args: Vec::new(),
        };
        let base = crate::env::Env::new(dir.path(), dir.path().join("gk"));
        let run = run(&invocation, "", Duration::from_secs(10), &base, &[]).unwrap();
        release.join().unwrap();
        assert_eq!(run.exit_code, Some(0));
        assert_eq!(run.stdout.trim(), "ok");
    }

    fn ran(code: Option<i32>, stdout: &str, stderr: &str) -> SmokeRun {
        SmokeRun {
            exit_code: code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            duration: Duration::from_millis(3),
            timed_out: false,
        }
    }

    #[test]
    fn a_run_keeps_at_most_the_output_limit_and_reads_the_rest_away() {
        let mut endless = std::io::repeat(b'x').take(5 << 20);
        let kept = read_bounded(&mut endless, 1 << 20);
        assert_eq!(kept.len(), 1 << 20);
        // Read to the end: a writer is never left blocked on a full pipe.
        assert_eq!(std::io::Read::read(&mut endless, &mut [0u8; 1]).unwrap(), 0);
        assert_eq!(
            read_bounded(&b"2.1.332 (Claude Code)\n"[..], 1 << 20).len(),
            22
        );
    }

    #[test]
    fn the_client_is_the_first_claude_on_path() {
        let files = ["/opt/b/claude", "/opt/c/claude"];
        let exists = |p: &Path| files.iter().any(|f| Path::new(f) == p);
        assert_eq!(
            find_client(Os::Linux, Some("/opt/a::/opt/b:/opt/c"), &exists),
            Some(PathBuf::from("/opt/b/claude"))
        );
        assert_eq!(find_client(Os::Linux, Some("/opt/a"), &exists), None);
        // A relative folder is never searched, even when it holds one.
        let here = |p: &Path| p.starts_with(".") || p.starts_with("bin");
        assert_eq!(find_client(Os::Linux, Some(".:bin:/opt/a"), &here), None);
        let here_win = |p: &Path| !p.to_string_lossy().starts_with("C:");
        assert_eq!(
            find_client(Os::Windows, Some(r".;tools;C:\x"), &here_win),
            None
        );
        assert_eq!(find_client(Os::Linux, None, &exists), None);
        let win = |p: &Path| p.to_string_lossy().ends_with("claude.exe");
        assert!(find_client(Os::Windows, Some(r"C:\x;C:\y"), &win).is_some());
    }

    #[test]
    fn invocation_per_platform() {
        let c = "\"$HOME/.claude/hooks/gk\" hook stop";
        assert_eq!(
            shell_invocation(Os::Linux, ShellForm::Bash, None, c),
            ShellInvocation {
                program: "/bin/sh".into(),
                args: vec!["-c".into(), c.into()]
            }
        );
        let bash = Path::new(r"C:\Program Files\Git\bin\bash.exe");
        assert_eq!(
            shell_invocation(Os::Windows, ShellForm::Bash, Some(bash), c).program,
            bash
        );
        let ps = shell_invocation(Os::Windows, ShellForm::Bash, None, c);
        assert_eq!(
            ps.args[..5],
            [
                "-NoProfile",
                "-NonInteractive",
                "-ExecutionPolicy",
                "Bypass",
                "-Command"
            ]
        );
        assert_eq!(ps.program, Path::new("powershell.exe"));
        assert_eq!(ps.args.last().map(String::as_str), Some(c));
        let ps = shell_invocation(Os::Windows, ShellForm::PowerShell, Some(bash), c);
        assert_eq!(ps.program, Path::new("powershell.exe"));
    }

    #[test]
    fn payloads_carry_the_event_fields() {
        let p: Value =
            serde_json::from_str(&sample_payload(HookKind::Prompt, Path::new("/w"))).unwrap();
        assert_eq!(p["hook_event_name"], "UserPromptSubmit");
        assert!(p["prompt"].is_string());
        assert_eq!(p["cwd"], "/w");
        let s: Value =
            serde_json::from_str(&sample_payload(HookKind::Stop, Path::new("/w"))).unwrap();
        assert_eq!(s["hook_event_name"], "Stop");
        assert_eq!(s["stop_hook_active"], false);
    }

    #[test]
    fn judge_accepts_real_shapes_and_names_failures() {
        let prompt = r#"{"systemMessage": "GATEKEEPER", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "[Gatekeeper] State: clean"}}"#;
        assert_eq!(judge(HookKind::Prompt, &ran(Some(0), prompt, "")), Ok(()));
        assert_eq!(
            judge(
                HookKind::Stop,
                &ran(Some(0), "{\"systemMessage\": \"STATE [CLEAN] x\"}\n", "")
            ),
            Ok(())
        );
        assert!(judge(
            HookKind::Stop,
            &ran(
                Some(0),
                "{\"systemMessage\": \"STATE [CLEAN]\", \"decision\": \"block\"}",
                ""
            )
        )
        .is_err());
        let e = judge(
            HookKind::Prompt,
            &ran(Some(127), "", "sh: 1: /x/gk: not found\n"),
        )
        .unwrap_err();
        assert_eq!(e, "exited with code 127: sh: 1: /x/gk: not found");
        assert!(judge(HookKind::Prompt, &ran(Some(0), "", ""))
            .unwrap_err()
            .contains("printed nothing"));
        assert!(judge(HookKind::Prompt, &ran(Some(0), "hello\n{}", ""))
            .unwrap_err()
            .contains("before the JSON"));
        let mut slow = ran(None, "", "");
        slow.timed_out = true;
        assert!(judge(HookKind::Stop, &slow)
            .unwrap_err()
            .starts_with("did not finish"));
    }

    #[test]
    fn the_session_check_may_give_claude_context_with_or_without_a_message() {
        // An earlier session's task in this folder: a `gk: ` line and the
        // story for Claude.
        let both = r#"{"systemMessage": "gk: an earlier session in this folder left 'x' in progress", "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "[Task state] ..."}}"#;
        assert_eq!(judge(HookKind::Session, &ran(Some(0), both, "")), Ok(()));
        // gk's plugin on a machine without the convention: context alone.
        let context = r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "c"}}"#;
        assert_eq!(judge(HookKind::Session, &ran(Some(0), context, "")), Ok(()));
        let v: Value = serde_json::from_str(both).unwrap();
        assert_eq!(
            session_report(&v),
            Some(vec![
                "gk: an earlier session in this folder left 'x' in progress"
            ])
        );
        for bad in [
            r#"{"systemMessage": "hello"}"#,
            r#"{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "c"}}"#,
            r#"{"systemMessage": "gk: x", "decision": "block"}"#,
            r#"{"hookSpecificOutput": {"hookEventName": "SessionStart"}}"#,
            "{}",
        ] {
            assert!(
                judge(HookKind::Session, &ran(Some(0), bad, "")).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn by_hand_is_quoted_for_the_shell_a_person_types_in() {
        let inv = shell_invocation(
            Os::Linux,
            ShellForm::Bash,
            None,
            "\"$HOME/.claude/hooks/gk\" hook session",
        );
        let env = [("CLAUDE_PROJECT_DIR".to_string(), "/w/it's".to_string())];
        assert_eq!(
            by_hand(Os::Linux, &inv, r#"{"cwd": "/w/it's"}"#, &env),
            r#"printf %s '{"cwd": "/w/it'\''s"}' | CLAUDE_PROJECT_DIR='/w/it'\''s' /bin/sh -c '"$HOME/.claude/hooks/gk" hook session'"#
        );
        let exe = exec_invocation(
            "C:\\Users\\Ann O'Lee\u{2019}s\\.claude\\hooks\\gk.exe",
            &["hook".into(), "prompt".into()],
        );
        assert_eq!(
            by_hand(Os::Windows, &exe, r#"{"a": 1}"#, &env),
            "$env:CLAUDE_PROJECT_DIR = '/w/it''s'; '{\"a\": 1}' | & 'C:\\Users\\Ann O''Lee\u{2019}\u{2019}s\\.claude\\hooks\\gk.exe' 'hook' 'prompt'"
        );
    }

    /// The line doctor suggests, run through `sh`, gives what the smoke
    /// run gave: the same program, words, variables and payload.
    #[cfg(unix)]
    #[test]
    fn by_hand_reproduces_the_run() {
        let inv = shell_invocation(
            Os::Linux,
            ShellForm::Bash,
            None,
            "printf '%s|' \"$GK_T\"; cat",
        );
        let payload = sample_payload(HookKind::Prompt, Path::new("/w/a b\\c'd"));
        let env = [("GK_T".to_string(), "v'1 $x".to_string())];
        let smoke = run(&inv, &payload, Duration::from_secs(10), &host(), &env).unwrap();
        let line = by_hand(Os::Linux, &inv, &payload, &env);
        let typed = run(
            &shell_invocation(Os::Linux, ShellForm::Bash, None, &line),
            "",
            Duration::from_secs(10),
            &host(),
            &[],
        )
        .unwrap();
        assert_eq!(typed.stdout, smoke.stdout);
        assert!(smoke.stdout.starts_with("v'1 $x|{"), "{}", smoke.stdout);
    }

    /// A small script for this platform's own command shell: cmd.exe on
    /// Windows (started as an exec-form program), sh elsewhere.
    fn script(windows: &str, unix: &str) -> ShellInvocation {
        if cfg!(windows) {
            exec_invocation("cmd.exe", &["/d".into(), "/c".into(), windows.into()])
        } else {
            shell_invocation(Os::Linux, ShellForm::Bash, None, unix)
        }
    }

    #[test]
    fn run_feeds_stdin_and_collects_output() {
        // cmd.exe echoes everything up to the `&`, a space before it too.
        let inv = script("more & echo err>&2& exit 3", "cat; echo err >&2; exit 3");
        let r = run(&inv, "payload", Duration::from_secs(10), &host(), &[]).unwrap();
        let newline = if cfg!(windows) { "\r\n" } else { "\n" };
        assert_eq!(
            (r.exit_code, r.stdout.trim_end(), r.stderr.as_str()),
            (Some(3), "payload", format!("err{newline}").as_str())
        );
        assert!(!r.timed_out);
    }

    #[test]
    fn run_kills_at_timeout() {
        let inv = script("ping -n 6 127.0.0.1 >nul", "exec sleep 5");
        let r = run(&inv, "", Duration::from_millis(200), &host(), &[]).unwrap();
        assert!(r.timed_out);
        assert!(r.duration < Duration::from_secs(4));
    }

    #[test]
    fn run_passes_extra_environment() {
        let inv = script("echo %GK_SMOKE_T%", "printf %s \"$GK_SMOKE_T\"");
        let r = run(
            &inv,
            "",
            Duration::from_secs(10),
            &host(),
            &[("GK_SMOKE_T".into(), "v1".into())],
        )
        .unwrap();
        assert_eq!(r.stdout.trim_end(), "v1");
    }

    /// This test process's environment.
    fn host() -> Env {
        Env::from_process()
    }

    #[test]
    fn run_gives_the_child_its_environment_not_the_hosts() {
        // A variable of the host only, and one of the environment only:
        // the child sees the second and not the first.
        let inv = script(
            "echo [%GK_SMOKE_MINE%][%CARGO_MANIFEST_DIR%]",
            "printf '[%s][%s]' \"$GK_SMOKE_MINE\" \"${CARGO_MANIFEST_DIR-}\"",
        );
        let host = host();
        let dir = std::env::temp_dir();
        let mut env = Env::new(&dir, dir.join("gk"));
        for name in ["PATH", "SystemRoot", "ComSpec"] {
            if let Some(v) = host.var_os(name) {
                env.set(name, v);
            }
        }
        env.set("GK_SMOKE_MINE", "v2");
        assert!(host.var_os("CARGO_MANIFEST_DIR").is_some());
        let r = run(&inv, "", Duration::from_secs(10), &env, &[]).unwrap();
        // cmd.exe leaves an unset %NAME% as it is.
        let unset = if cfg!(windows) {
            "%CARGO_MANIFEST_DIR%"
        } else {
            ""
        };
        assert_eq!(r.stdout.trim_end(), format!("[v2][{unset}]"));
    }

    #[test]
    fn exec_form_runs_the_program_with_its_words_and_no_shell() {
        let hook = HookCommand {
            command: r"C:\Users\Ann Lee\.claude\hooks\gk.exe".into(),
            args: Some(vec!["hook".into(), "prompt".into()]),
            shell: None,
        };
        let bash = Path::new(r"C:\Program Files\Git\bin\bash.exe");
        for git_bash in [None, Some(bash)] {
            assert_eq!(
                invocation(Os::Windows, git_bash, &hook),
                ShellInvocation {
                    program: PathBuf::from(r"C:\Users\Ann Lee\.claude\hooks\gk.exe"),
                    args: vec!["hook".into(), "prompt".into()],
                }
            );
        }
        let ps = HookCommand {
            command: "& \"x\" hook prompt".into(),
            args: None,
            shell: Some("powershell"),
        };
        assert_eq!(
            invocation(Os::Windows, Some(bash), &ps).program,
            Path::new("powershell.exe")
        );
    }
}
