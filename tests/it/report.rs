//! `gk report` on transcripts recorded from the pinned client
//! (tests/fixtures/report/, made by scripts/record-report-fixtures.py; the
//! script's notes list the turns). The expected counts are worked out by
//! hand from those turns, below; the report must print no prompt, tool
//! input or file content; hostile files (a FIFO, a link, an overlong or
//! broken line) are counted or refused, never fatal; and, under strace,
//! the command writes nothing but its report, starts nothing, connects
//! nowhere.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{Gk, TestEnv};

const FIXTURES: &str = "tests/fixtures/report/projects";
/// The fixtures' state folder (the recording's temp root is `/home/u/t`).
const STATE_DIR: &str = "/home/u/t/home/.local/state/gk";
const PROJ: &str = "-home-u-t-home-work-proj";
const OTHER: &str = "-home-u-t-home-work-other";
const TUI: &str = "-home-u-t-home-work-tui";
const BROKEN: &str = "-home-u-t-home-work-broken";

/// A temporary machine whose Claude folder holds a copy of the fixtures.
fn with_fixtures() -> TestEnv {
    let env = TestEnv::new();
    copy_tree(Path::new(FIXTURES), &env.root().join("claude/projects"));
    env
}

/// `gk report` on the copied fixtures.
trait Report {
    fn projects(&self) -> PathBuf;
    /// gk with the copy as its Claude folder and the fixtures' state
    /// folder, started in the temporary root.
    fn cmd(&self, args: &[&str]) -> Gk;
    /// stdout and stderr of a run that must exit 0.
    fn run(&self, args: &[&str]) -> (String, String);
    /// `gk report --json <args>`.
    fn json(&self, args: &[&str]) -> Value;
}

impl Report for TestEnv {
    fn projects(&self) -> PathBuf {
        self.root().join("claude/projects")
    }

    fn cmd(&self, args: &[&str]) -> Gk {
        let mut gk = self.gk(args);
        gk.env("CLAUDE_CONFIG_DIR", self.root().join("claude"))
            .env("GK_STATE_DIR", STATE_DIR)
            .current_dir(self.root());
        gk
    }

    fn run(&self, args: &[&str]) -> (String, String) {
        let out = self.cmd(args).run();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.code, Some(0), "{stdout}\n{stderr}");
        (stdout, stderr)
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["report", "--json"];
        all.extend_from_slice(args);
        let (stdout, stderr) = self.run(&all);
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn project<'a>(report: &'a Value, folder: &str) -> &'a Value {
    report["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["folder"] == folder)
        .unwrap_or_else(|| panic!("no project {folder}: {report:#}"))
}

/// The counts of `folder` (or the totals), for the keys of `want`.
fn assert_counts(got: &Value, want: Value) {
    for (key, value) in want.as_object().unwrap() {
        assert_eq!(&got[key], value, "{key} in {got:#}");
    }
}

/// The turns in `proj` (scripts/record-report-fixtures.py):
/// 1. session A, `--model claude-opus-5-5`, "implement the parser
///    refactor": gk advises `/model claude-opus-5-5` (keyword
///    'implement'); the answers (two Writes, then "Done.") are Opus:
///    followed. The Writes are A's record (in progress) and the folder's
///    pointer: A kept a record, one record write. Stop says DIRTY.
/// 2. `/model claude-haiku-4-5-20251001` (--resume A): one /model, made
///    while the last Stop line said DIRTY: one switch mid-task. The
///    resume adds a `<synthetic>` answer: not an answer.
/// 3. "explain the build" (--resume A, `--model claude-opus-5-5`): advised
///    `/model claude-sonnet-5` (keyword 'explain'), answered by Opus: not
///    followed.
/// 4. session B, a fork of A (`--fork-session`, haiku), "ok thanks": B's
///    file repeats every line of A with the same uuid (counted once);
///    advised `/model claude-haiku-4-5-20251001` (keyword 'ok'), answered
///    by Haiku: followed. B writes no record.
///
/// So: 2 sessions, 3 prompts, 3 advised, 2 followed, 1 not; 1 /model, 1
/// mid-task; 1 session with a record; answers: Opus 3 + 1, Haiku 1;
/// Stop ran after turns 1, 3 and 4.
fn proj_counts() -> Value {
    json!({
        "sessions": 2, "prompts": 3, "advised": 3, "followed": 2, "not_followed": 1,
        "advised_unanswered": 0, "model_switches": 1, "switches_while_dirty": 1,
        "effort_commands": 0, "sessions_with_record": 1, "sessions_edited_without_record": 0,
        "record_writes": 1, "record_writes_failed": 0, "stop_runs": 3, "stop_errors": 0,
        "stop_slow": 0, "answers": 5,
        "answers_by_model": {"claude-opus-5-5": 4, "claude-haiku-4-5-20251001": 1},
    })
}

/// The turns in `other`, all CLEAN:
/// 5. session C, `--model sonnet`, "what is a monad": advised
///    `/model claude-sonnet-5` (keyword 'what is'); the client resolves
///    the alias `sonnet` to claude-sonnet-5-5, another model: not followed.
/// 6. `/effort high` (--resume C): one /effort.
/// 7. session D, "update the notes file" (client default model, Opus):
///    advised Sonnet 5 (keyword 'update'), answered by Opus: not
///    followed. Its Write of notes.md succeeds: edited files, no record.
/// 8. session E, "implement the cache": advised Opus, answered by Opus:
///    followed. Its Edit of its record fails (no such file): one record
///    write, failed; no record kept, and no other file edited.
fn other_counts() -> Value {
    json!({
        "sessions": 3, "prompts": 3, "advised": 3, "followed": 1, "not_followed": 2,
        "advised_unanswered": 0, "model_switches": 0, "switches_while_dirty": 0,
        "effort_commands": 1, "sessions_with_record": 0, "sessions_edited_without_record": 1,
        "record_writes": 1, "record_writes_failed": 1, "stop_runs": 3, "stop_errors": 0,
        "stop_slow": 0, "answers": 5,
        "answers_by_model": {"claude-opus-5-5": 4, "claude-sonnet-5-5": 1},
    })
}

/// The interactive client, in `tui` (session F, typed prompts):
/// 9. "implement the lexer": advised Opus, answered by Opus (two Writes:
///    the record in progress and the pointer, then "Done."): followed,
///    a record kept. Stop says DIRTY.
/// 10. `/model claude-haiku-4-5-20251001` (confirmed in the client's
///    "Switch model?" dialog): a switch, mid-task.
/// 11. "ok go ahead": advised Haiku (keyword 'ok'), answered by Haiku:
///    followed.
fn tui_counts() -> Value {
    json!({
        "sessions": 1, "prompts": 2, "advised": 2, "followed": 2, "not_followed": 0,
        "advised_unanswered": 0, "model_switches": 1, "switches_while_dirty": 1,
        "effort_commands": 0, "sessions_with_record": 1, "sessions_edited_without_record": 0,
        "record_writes": 1, "record_writes_failed": 0, "stop_runs": 2, "stop_errors": 0,
        "stop_slow": 0, "answers": 4,
        "answers_by_model": {"claude-opus-5-5": 3, "claude-haiku-4-5-20251001": 1},
    })
}

/// Last, in `broken` (session G), gk's Stop hook replaced by one that
/// sleeps 1.2 s and exits 1: "hello there" matches no keyword, so (per
/// session, on match) no advice; one answer, from Haiku: the `/model` of
/// turn 10 was saved as the default for new sessions ("Set model to
/// `Haiku 4.5` and saved as your default"), and this turn names none;
/// one Stop run, with an error, slower than 1000 ms.
fn broken_counts() -> Value {
    json!({
        "sessions": 1, "prompts": 1, "advised": 0, "followed": 0, "not_followed": 0,
        "advised_unanswered": 0, "model_switches": 0, "switches_while_dirty": 0,
        "effort_commands": 0, "sessions_with_record": 0, "sessions_edited_without_record": 0,
        "record_writes": 0, "record_writes_failed": 0, "stop_runs": 1, "stop_errors": 1,
        "stop_slow": 1, "answers": 1, "answers_by_model": {"claude-haiku-4-5-20251001": 1},
    })
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Wine gap: the fixtures were recorded on Linux, so their record paths name a Linux state folder, which a Windows gk does not take for its own (the Windows paths: report::tests)"
)]
fn the_recorded_turns_give_the_counts_worked_out_by_hand() {
    let env = with_fixtures();
    let report = env.json(&[]);
    assert_counts(project(&report, PROJ), proj_counts());
    assert_counts(project(&report, OTHER), other_counts());
    assert_counts(project(&report, TUI), tui_counts());
    assert_counts(project(&report, BROKEN), broken_counts());
    assert_counts(
        &report["totals"],
        json!({
            "sessions": 7, "prompts": 9, "advised": 8, "followed": 5, "not_followed": 3,
            "model_switches": 2, "switches_while_dirty": 2, "effort_commands": 1,
            "sessions_with_record": 2, "sessions_edited_without_record": 1,
            "record_writes": 3, "record_writes_failed": 1, "stop_runs": 9, "stop_errors": 1,
            "stop_slow": 1, "answers": 15,
            "answers_by_model": {"claude-opus-5-5": 11, "claude-haiku-4-5-20251001": 3, "claude-sonnet-5-5": 1},
        }),
    );
    let footer = &report["footer"];
    assert_eq!(footer["client_versions"], json!(["2.1.332"]));
    assert_eq!(footer["untested_versions"], json!([]));
    assert_eq!(footer["files_read"], 7);
    assert_eq!(footer["lines_unreadable"], 0);
    assert!(
        footer["oldest"]
            .as_str()
            .unwrap()
            .starts_with("2026-12-04T"),
        "{footer}"
    );
    assert_eq!(
        report["not_followed_by_model"][0],
        json!({"advised": "claude-sonnet-5", "answered": "claude-opus-5-5", "times": 2})
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Wine gap: the fixtures were recorded on Linux, so their record paths name a Linux state folder, which a Windows gk does not take for its own (the Windows paths: report::tests)"
)]
fn the_text_report_is_a_short_table_and_a_line_of_meaning() {
    let env = with_fixtures();
    let (text, stderr) = env.run(&["report"]);
    assert_eq!(stderr, "");
    let want = "\
gk report: 7 sessions in 4 projects (all transcripts the client keeps)

project                    sessions prompts advised followed  not /model mid-task record no-record failed
-home-u-t-home-work-other         3       3       3        1    2      0        0      0         1      1
-home-u-t-home-work-proj          2       3       3        2    1      1        1      1         0      0
-home-u-t-home-work-tui           1       2       2        2    0      1        1      1         0      0
-home-u-t-home-work-broken        1       1       0        0    0      0        0      0         0      0
total                             7       9       8        5    3      2        2      2         1      1

Advice followed 5 of 8 times; 2 model switches mid-task.
Records: 2 of 7 sessions kept a task record; 1 edited files without one; 1 record write failed or denied.
Answers by model: claude-opus-5-5 11, claude-haiku-4-5-20251001 3, claude-sonnet-5-5 1.
Commands: 2 /model, 1 /effort. Stop hook: 9 runs, 1 with errors, 1 slower than 1000 ms.

Client versions: 2.1.332. Files read: 7 (0 skipped by date, 0 refused). Lines skipped as unreadable: 0. Oldest line: 2026-12-04 (the client deletes older transcripts after cleanupPeriodDays, 30 by default).
";
    assert_eq!(text, want);
}

/// Every prompt typed in the fixtures, and the text of every file-writing
/// tool call (what the record said, what notes.md held).
fn private_texts() -> Vec<String> {
    let mut out = Vec::new();
    for file in fixture_files() {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["promptSource"].is_string() {
                out.push(v["message"]["content"].as_str().unwrap().to_string());
            }
            for block in v["message"]["content"].as_array().into_iter().flatten() {
                for key in ["content", "new_string", "old_string"] {
                    if let Some(s) = block["input"][key].as_str() {
                        out.push(s.trim().to_string());
                    }
                }
            }
        }
    }
    out.push("Refactor parser".into());
    out.push("written by the model".into());
    out.sort();
    out.dedup();
    // Long enough not to be a word the report says itself ("clean").
    out.retain(|s| s.len() >= 8);
    out
}

fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in std::fs::read_dir(FIXTURES).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            files.push(f.unwrap().path());
        }
    }
    files.sort();
    files
}

#[test]
fn no_prompt_tool_input_or_file_content_is_ever_printed() {
    let env = with_fixtures();
    let secrets = private_texts();
    assert!(
        secrets.iter().any(|s| s == "implement the parser refactor")
            && secrets.iter().any(|s| s == "in_progress"),
        "{secrets:?}"
    );
    for args in [
        vec!["report"],
        vec!["report", "--json"],
        vec!["report", "--since", "30d"],
        vec!["report", "--json", "--project", "/home/u/t/home/work/proj"],
    ] {
        let (stdout, stderr) = env.run(&args);
        for s in &secrets {
            assert!(
                !stdout.contains(s.as_str()) && !stderr.contains(s.as_str()),
                "{args:?} printed {s:?}:\n{stdout}\n{stderr}"
            );
        }
    }
}

/// A fork's file repeats its parent's lines: whichever file is read
/// first, each line counts once, and the per-session answers stay with
/// the session that wrote them.
#[test]
#[cfg_attr(
    windows,
    ignore = "Wine gap: the fixtures were recorded on Linux, so their record paths name a Linux state folder, which a Windows gk does not take for its own (the Windows paths: report::tests)"
)]
fn a_fork_read_before_its_parent_changes_no_count() {
    let env = with_fixtures();
    let before = env.json(&[]);
    let dir = env.projects().join(PROJ);
    let fork = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("requestSessionId")
        })
        .unwrap();
    // Files are read in name order: this name comes first.
    std::fs::rename(&fork, dir.join("00000000-fork.jsonl")).unwrap();
    let after = env.json(&[]);
    assert_eq!(before["totals"], after["totals"]);
    assert_counts(project(&after, PROJ), proj_counts());
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Wine gap: the fixtures were recorded on Linux, so their record paths name a Linux state folder, which a Windows gk does not take for its own (the Windows paths: report::tests)"
)]
fn project_and_since_narrow_what_is_read() {
    let env = with_fixtures();
    let only = env.json(&["--project", "/home/u/t/home/work/proj"]);
    assert_eq!(only["projects"].as_array().unwrap().len(), 1);
    assert_counts(&only["totals"], proj_counts());
    // The folder's own name works too.
    let named = env.json(&[&format!("--project={OTHER}")]);
    assert_counts(&named["totals"], other_counts());

    // The fixtures' lines are of 2026-12-04: a later start counts none
    // of them; files changed before it are skipped unread.
    let later = env.json(&["--since", "2099-01-01"]);
    assert_eq!(later["totals"]["prompts"], 0);
    assert_eq!(later["footer"]["files_skipped_by_date"], 7);
    assert_eq!(later["footer"]["files_read"], 0);
    let earlier = env.json(&["--since", "2026-11-01"]);
    assert_eq!(earlier["totals"]["prompts"], 9);
    // Spaces and controls around a date, or inside it (the date parser
    // passes over them), are never shown as they are.
    let (text, _) = env.run(&["report", "--since", "\r2026-11-01\x0b"]);
    assert!(
        text.starts_with("gk report: 7 sessions in 4 projects (since 2026-11-01)\n"),
        "{text:?}"
    );
    let (text, _) = env.run(&["report", "--since", "2026-\n\r11-01"]);
    let header = text.lines().next().unwrap();
    assert!(
        header.starts_with("gk report: 7 sessions in 4 projects (since 2026-")
            && header.ends_with("11-01)")
            && !header.chars().any(char::is_control),
        "{text:?}"
    );

    let out = env.cmd(&["report", "--since", "last week"]).run();
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr_text().contains("--since last week: expected"),
        "{out:?}"
    );
}

/// Broken and hostile lines are counted as unreadable and the rest of
/// the file still counts; a FIFO, a device and links are refused unread.
#[cfg(unix)]
#[test]
fn hostile_files_and_lines_are_counted_or_refused_never_fatal() {
    let env = with_fixtures();
    let dir = env.projects().join(OTHER);
    let mut extra = Vec::new();
    // A line with a marker that is not JSON, invalid UTF-8, a deep nest,
    // a line of 17 MiB (past the bound), then a prompt that counts.
    extra.extend_from_slice(b"{\"type\":\"assistant\",\"message\":\n");
    extra.extend_from_slice(
        b"{\"type\":\"user\",\"promptSource\":\"typed\",\"message\":{\"content\":\"\xff\xfe\"}}\n",
    );
    extra.extend_from_slice(b"{\"type\":\"assistant\",\"x\":");
    extra.extend(std::iter::repeat_n(b'[', 100_000));
    extra.push(b'\n');
    extra.extend_from_slice(b"{\"type\":\"assistant\",\"pad\":\"");
    extra.extend(std::iter::repeat_n(b'a', 17 << 20));
    extra.extend_from_slice(b"\"}\n");
    extra.extend_from_slice(
        b"{\"type\":\"user\",\"promptSource\":\"typed\",\"uuid\":\"x-1\",\"sessionId\":\"s-9\",\"timestamp\":\"2026-12-04T08:00:00Z\",\"version\":\"9.9.9\",\"message\":{\"content\":\"hello\\u2028there\"}}",
    );
    std::fs::write(dir.join("hostile.jsonl"), &extra).unwrap();
    let fifo = dir.join("pipe.jsonl");
    crate::common::hooks::mkfifo(&fifo);
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.jsonl")).unwrap();
    std::os::unix::fs::symlink(env.projects().join(PROJ), env.projects().join("-linked")).unwrap();
    // A session's `subagents` folder that is a link to a folder holding a
    // transcript with one more prompt: refused, as a linked project is.
    let elsewhere = env.home().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("agent-1.jsonl"),
        "{\"type\":\"user\",\"promptSource\":\"typed\",\"uuid\":\"x-2\",\"sessionId\":\"s-8\",\"timestamp\":\"2026-12-04T08:00:00Z\",\"message\":{\"content\":\"hi\"}}\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("s-8")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, dir.join("s-8").join("subagents")).unwrap();

    // A process: a FIFO read by mistake would hang it until killed.
    let out = env
        .cmd(&["report", "--json"])
        .timeout(std::time::Duration::from_secs(60))
        .run();
    assert_eq!(out.code, Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let footer = &report["footer"];
    // Not JSON, invalid UTF-8 in a string, nested past the parser's limit.
    assert_eq!(footer["lines_unreadable"], 3, "{footer}");
    assert_eq!(footer["lines_too_long"], 1, "{footer}");
    assert_eq!(footer["files_refused"], 4, "{footer}\n{stderr}");
    assert_eq!(footer["untested_versions"], json!(["9.9.9"]));
    // The good line after them still counts: one more prompt and session.
    assert_eq!(report["totals"]["prompts"], 10);
    assert_eq!(report["totals"]["sessions"], 8);
    assert!(
        stderr.contains("pipe.jsonl: not a regular file (a named pipe)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("zero.jsonl: a symbolic link, not followed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("-linked: a symbolic link, not followed"),
        "{stderr}"
    );
    assert!(
        stderr.contains("s-8/subagents: a symbolic link, not followed"),
        "{stderr}"
    );

    let (text, _) = env.run(&["report"]);
    assert!(
        text.contains(
            "! Transcripts from client 9.9.9 were counted; the report was measured on 2.1.332"
        ),
        "{text}"
    );
}

#[test]
fn an_empty_or_missing_claude_folder_reports_nothing_to_count() {
    let env = with_fixtures();
    std::fs::remove_dir_all(env.projects()).unwrap();
    let (text, _) = env.run(&["report"]);
    assert!(
        text.starts_with("gk report: 0 sessions in 0 projects (all transcripts the client keeps)\nNo transcript lines to count.\n"),
        "{text}"
    );
    let report = env.json(&[]);
    assert_eq!(report["totals"]["sessions"], 0);
}

/// Under strace: the report starts no process and no thread, opens no
/// socket, opens nothing for writing, creates, renames or removes
/// nothing, and writes only to stdout and stderr. Needs strace (Linux).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs strace: cargo test --test it report::under_strace -- --ignored"]
#[allow(clippy::disallowed_methods)]
fn under_strace_the_report_writes_spawns_and_connects_nothing() {
    crate::common::require_tool("strace");
    let env = with_fixtures();
    let log = env.root().join("strace.log");
    // The real binary as a process, under strace, with the run's variables.
    let gk = env.cmd(&["report", "--json"]).to_command();
    let mut strace = env.command("strace");
    strace
        .args(["-f", "-qq", "-o"])
        .arg(&log)
        .args(["-e", "trace=%file,%network,%process,%desc"])
        .arg(gk.get_program())
        .args(gk.get_args());
    for (name, value) in gk.get_envs() {
        match value {
            Some(v) => strace.env(name, v),
            None => strace.env_remove(name),
        };
    }
    if let Some(dir) = gk.get_current_dir() {
        strace.current_dir(dir);
    }
    let out = strace.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["totals"]["prompts"], 9);
    let trace = std::fs::read_to_string(&log).unwrap();
    let mut bad = Vec::new();
    let mut execs = 0;
    for line in trace.lines() {
        let call = line
            .split_once(' ')
            .map_or(line, |(_, rest)| rest)
            .trim_start();
        let name = call.split('(').next().unwrap_or("");
        match name {
            "execve" => execs += 1,
            "clone" | "clone3" | "fork" | "vfork" | "socket" | "connect" | "bind" | "sendto"
            | "sendmsg" | "unlink" | "unlinkat" | "rename" | "renameat" | "renameat2" | "mkdir"
            | "mkdirat" | "rmdir" | "symlink" | "symlinkat" | "link" | "linkat" | "chmod"
            | "fchmod" | "fchmodat" | "truncate" | "ftruncate" | "creat" | "utimensat" => {
                bad.push(line.to_string())
            }
            "openat" | "open" => {
                let flags = call.split(", ").nth(2).unwrap_or("");
                if ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                    .iter()
                    .any(|f| flags.contains(f))
                {
                    bad.push(line.to_string());
                }
            }
            "write" | "writev" | "pwrite64" | "pwritev" | "pwritev2" => {
                let fd = call[name.len() + 1..].split(',').next().unwrap_or("");
                if fd != "1" && fd != "2" {
                    bad.push(line.to_string());
                }
            }
            _ => {}
        }
    }
    assert_eq!(execs, 1, "{trace}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        trace.contains("O_NONBLOCK"),
        "transcripts opened without O_NONBLOCK?"
    );
}
