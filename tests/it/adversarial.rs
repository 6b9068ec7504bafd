//! gk against hostile files and a hostile machine: a named pipe, a device,
//! a socket, a folder, links (to a device, dangling, looping), huge and
//! deeply nested files and invalid UTF-8 in the place of every file the
//! hooks, doctor, install, uninstall and enable/disable read; stdin that
//! never ends; a memory limit; and a state file swapped for a pipe while
//! the hooks read it.
//!
//! Every gk run here has a time limit ([`LIMIT`]): a hang fails its case
//! (the process is killed) instead of stalling the suite. On Unix every run
//! also has an address-space limit ([`MEMORY`], through `ulimit -v` in
//! `sh`), so a reader that runs away on /dev/zero fails its case instead of
//! taking the machine's memory. Each case is named in the failure message.
//!
//! These tests start gk (and `sh`, `mkfifo`) themselves so that they can
//! put the limits around it; that is what the lint below is about.
//!
//! The runs stay real processes built from the one environment
//! ([`TestEnv`], [`crate::common::Gk::to_command`]): only a process can be
//! killed or held under an address-space limit.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::limited::{self, Stdin};
use crate::common::{Run, TestEnv};

/// The most one gk run may take here. Most runs are milliseconds on an
/// idle machine, the longest (a 20 MiB prompt, a 64 MiB program copied,
/// in a debug build) a few seconds; the margin is for a CI box shared with
/// other builds (load 14 on 2 cores has been seen). A hang never ends, so
/// any limit catches it.
const LIMIT: Duration = Duration::from_secs(120);

/// Address space for every gk run (KiB, for `ulimit -v`): far more than any
/// run needs, far less than a runaway read would take.
const MEMORY: u64 = 1 << 20;

/// The limit the issue measured the prompt hook against (160 MiB, in KiB).
const SMALL_MEMORY: u64 = 160 << 10;

/// Files larger than every limit gk reads with (created sparse: no disk).
const HUGE: u64 = 64 << 20;

/// Both streams of a run, for a failure message.
fn all(out: &Run) -> String {
    format!(
        "--- stdout\n{}--- stderr\n{}",
        out.stdout_text(),
        out.stderr_text()
    )
}

/// A test that limits memory needs `sh -c 'ulimit -v N'` to work: it
/// fails, saying why, where it does not (never passes untested).
#[cfg(unix)]
fn require_ulimit() {
    crate::common::require_tool("sh");
    let works = Command::new("sh")
        .args(["-c", "ulimit -v 1048576"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(works, "this test needs `sh -c 'ulimit -v'` to work");
}

/// Run `cmd` with `stdin`, killing it after [`LIMIT`], under an address
/// space of `memory_kib` on Unix ([`limited::run_limited`]).
fn run_limited(cmd: Command, stdin: Stdin, memory_kib: u64, what: &str) -> Run {
    limited::run_limited(cmd, stdin, memory_kib, LIMIT, what).0
}

/// One temporary machine ([`TestEnv`]) made ready for hostile files: the
/// Claude folder, the project's `.claude` (the project is the current
/// folder of every run) and the managed drop-in folder exist.
fn machine() -> TestEnv {
    let m = TestEnv::new();
    std::fs::create_dir_all(m.hooks_dir()).unwrap();
    std::fs::create_dir_all(m.project().join(".claude")).unwrap();
    std::fs::create_dir_all(managed_dropins(&m)).unwrap();
    m
}

fn managed_dropins(m: &TestEnv) -> PathBuf {
    m.managed_settings()
        .parent()
        .unwrap()
        .join("managed-settings.d")
}

/// Where these tests point `XDG_STATE_HOME` (gk's state folder on Unix).
fn xdg_state(m: &TestEnv) -> PathBuf {
    m.root().join("xdg-state")
}

/// gk's state folder in these tests (`XDG_STATE_HOME`'s `gk` on Unix; a
/// test that runs on Windows too points `GK_STATE_DIR` at it), holding
/// `n` copies of `record` named `s0000.json`, `s0001.json`, ….
fn state_folder_of(m: &TestEnv, record: &str, n: usize) -> PathBuf {
    let dir = xdg_state(m).join("gk");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..n {
        std::fs::write(dir.join(format!("s{i:04}.json")), record).unwrap();
    }
    dir
}

/// A clean task record of 4,000,000 bytes, just under the 4 MiB a command
/// reads a record to.
fn huge_clean_record() -> String {
    let head = r#"{"status": "clean", "task": "", "detail": ""#;
    let record = format!("{head}{}\"}}", "x".repeat(4_000_000 - head.len() - 2));
    assert_eq!(record.len(), 4_000_000);
    record
}

/// A new machine with the files of `template` (installed once per test,
/// as copying a debug build for every case costs more than the case):
/// texts copied with the template's home path replaced, the program
/// hard-linked (a write replaces it by rename, so the template's copy is
/// never changed).
fn like(template: &TestEnv) -> TestEnv {
    fn copy(from: &Path, to: &Path, old_home: &str, new_home: &str) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let (src, dst) = (e.path(), to.join(e.file_name()));
            if e.file_type().unwrap().is_dir() {
                copy(&src, &dst, old_home, new_home);
            } else if let Ok(text) = std::fs::read_to_string(&src) {
                // As written, and as JSON spells it (`C:\\…` on Windows).
                let json = |p: &str| {
                    serde_json::to_string(p)
                        .unwrap()
                        .trim_matches('"')
                        .to_string()
                };
                let text = text
                    .replace(old_home, new_home)
                    .replace(&json(old_home), &json(new_home));
                std::fs::write(&dst, text).unwrap();
            } else {
                std::fs::hard_link(&src, &dst).unwrap();
            }
        }
    }
    let m = machine();
    copy(
        &template.claude(),
        &m.claude(),
        &template.home().display().to_string(),
        &m.home().display().to_string(),
    );
    m
}

/// What these tests do in a [`TestEnv`].
trait HostileMachine {
    fn path(&self, place: Place) -> PathBuf;
    fn gk_limited(&self, args: &[&str]) -> Command;
    fn run(&self, args: &[&str], stdin: &[u8], what: &str) -> Run;
    fn install(&self);
    fn tree(&self) -> Vec<(PathBuf, String)>;
}

impl HostileMachine for TestEnv {
    /// Where gk reads the file, spelled with the platform's separator (as
    /// gk names it in what it prints).
    fn path(&self, place: Place) -> PathBuf {
        let under = |base: PathBuf, rel: &str| rel.split('/').fold(base, |p, c| p.join(c));
        match place {
            Place::UserSettings => self.claude().join("settings.json"),
            Place::ProjectSettings => under(self.project(), ".claude/settings.json"),
            Place::LocalSettings => under(self.project(), ".claude/settings.local.json"),
            Place::Managed => self.managed_settings(),
            Place::ManagedDropIn => managed_dropins(self).join("50-extra.json"),
            Place::ClaudeMd => self.claude().join("CLAUDE.md"),
            Place::Config => under(self.claude(), "hooks/gk.json"),
            Place::State => under(self.claude(), "hooks/task_state.json"),
            Place::Binary => under(
                self.claude(),
                if cfg!(windows) {
                    "hooks/gk.exe"
                } else {
                    "hooks/gk"
                },
            ),
        }
    }

    /// gk in the project folder, as a process to put limits around.
    fn gk_limited(&self, args: &[&str]) -> Command {
        self.gk(args)
            .env("XDG_STATE_HOME", xdg_state(self))
            .current_dir(self.project())
            .process()
            .to_command()
    }

    fn run(&self, args: &[&str], stdin: &[u8], what: &str) -> Run {
        run_limited(
            self.gk_limited(args),
            Stdin::Bytes(stdin.to_vec()),
            MEMORY,
            what,
        )
    }

    /// A normal install, as a user makes it.
    fn install(&self) {
        let out = self.run(&["install", "--yes", "--no-smoke"], b"", "setup install");
        assert_eq!(out.code, Some(0), "setup install failed\n{}", all(&out));
    }

    /// Every entry under the temporary folder: path, kind, and for a
    /// regular file its bytes (huge ones by size), for a link its target.
    /// Never opens anything but a regular file.
    fn tree(&self) -> Vec<(PathBuf, String)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            entries.sort();
            for p in entries {
                let meta = std::fs::symlink_metadata(&p).unwrap();
                let t = meta.file_type();
                let what = if t.is_symlink() {
                    format!("link -> {}", std::fs::read_link(&p).unwrap().display())
                } else if t.is_dir() {
                    walk(&p, out);
                    "folder".to_string()
                } else if t.is_file() && meta.len() > 1 << 20 {
                    format!("file of {} bytes", meta.len())
                } else if t.is_file() {
                    format!("file {:?}", std::fs::read(&p).unwrap())
                } else {
                    "special".to_string()
                };
                out.push((p, what));
            }
        }
        let mut out = Vec::new();
        walk(self.root(), &mut out);
        out
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    UserSettings,
    ProjectSettings,
    LocalSettings,
    Managed,
    ManagedDropIn,
    ClaudeMd,
    Config,
    State,
    Binary,
}

const ALL_PLACES: [Place; 9] = [
    Place::UserSettings,
    Place::ProjectSettings,
    Place::LocalSettings,
    Place::Managed,
    Place::ManagedDropIn,
    Place::ClaudeMd,
    Place::Config,
    Place::State,
    Place::Binary,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hostile {
    /// A named pipe nobody writes to: a blocking open waits for ever.
    Fifo,
    /// A link to /dev/zero: never ends.
    DevZero,
    /// A link to /dev/null: a device that reads as empty.
    DevNull,
    /// A Unix socket.
    Socket,
    /// A folder.
    Folder,
    /// A link to a link to itself.
    LinkLoop,
    /// A link to nothing.
    Dangling,
    /// A link to a regular file (what was there, moved to `<name>.real`):
    /// read and edited through the link; never deleted through it.
    LinkToFile,
    /// A sparse file larger than every limit.
    Huge,
    /// 100,000 nested arrays.
    DeepArrays,
    /// 100,000 nested objects.
    DeepObjects,
    /// JSON with a byte that is not UTF-8.
    InvalidUtf8,
}

const ALL_HOSTILE: [Hostile; 12] = [
    Hostile::Fifo,
    Hostile::DevZero,
    Hostile::DevNull,
    Hostile::Socket,
    Hostile::Folder,
    Hostile::LinkLoop,
    Hostile::Dangling,
    Hostile::LinkToFile,
    Hostile::Huge,
    Hostile::DeepArrays,
    Hostile::DeepObjects,
    Hostile::InvalidUtf8,
];

impl Hostile {
    /// Not something gk can read: it must say so, naming the file.
    fn unreadable(self) -> bool {
        !matches!(
            self,
            Hostile::Dangling
                | Hostile::LinkToFile
                | Hostile::DeepArrays
                | Hostile::DeepObjects
                | Hostile::InvalidUtf8
        )
    }

    /// The words doctor uses for this kind of file at `place`. The state
    /// file is reported in the Stop hook's own words, which keep the Python
    /// hook's exception names.
    fn reason_at(self, place: Place) -> &'static str {
        match (place, self) {
            (
                Place::State,
                Hostile::Fifo | Hostile::DevZero | Hostile::DevNull | Hostile::Socket,
            ) => "not a regular file",
            (Place::State, Hostile::Folder) => "IsADirectoryError",
            (Place::State, Hostile::LinkLoop) => "OSError",
            // What a registered program is instead of a program.
            (Place::Binary, Hostile::Fifo) => "is a named pipe, not a program",
            (Place::Binary, Hostile::DevZero | Hostile::DevNull) => {
                "is a character device, not a program"
            }
            (Place::Binary, Hostile::Socket) => "is a socket",
            (Place::Binary, Hostile::Folder) => "is a folder, not a program",
            (Place::Binary, Hostile::LinkLoop) => "cannot be opened",
            _ => self.reason(),
        }
    }

    /// The words gk's one-line reason uses for this kind of file.
    fn reason(self) -> &'static str {
        match self {
            Hostile::Fifo => "not a regular file (a named pipe)",
            Hostile::DevZero | Hostile::DevNull => "not a regular file (a character device)",
            Hostile::Socket => "not a regular file (a socket",
            Hostile::Folder => "is a folder",
            Hostile::LinkLoop => "links",
            Hostile::Huge => "larger than",
            Hostile::Dangling
            | Hostile::LinkToFile
            | Hostile::DeepArrays
            | Hostile::DeepObjects => "",
            Hostile::InvalidUtf8 => "UTF-8",
        }
    }
}

/// Put `hostile` at `path` (replacing what is there). `false`, with the
/// reason printed, only where the platform has no such file (Windows: no
/// named pipes, devices, sockets or links made here); on Unix every kind is
/// made or the test fails saying why.
fn make(path: &Path, hostile: Hostile) -> bool {
    if hostile == Hostile::LinkToFile {
        let real = real_of(path);
        if std::fs::rename(path, &real).is_err() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&real, "{}\n").unwrap();
        }
        return make_special(path, hostile);
    }
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_dir() {
            std::fs::remove_dir_all(path).unwrap();
        } else {
            std::fs::remove_file(path).unwrap();
        }
    }
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    match hostile {
        Hostile::Folder => std::fs::create_dir(path).unwrap(),
        Hostile::Huge => std::fs::File::create(path).unwrap().set_len(HUGE).unwrap(),
        Hostile::DeepArrays => std::fs::write(path, "[".repeat(100_000)).unwrap(),
        Hostile::DeepObjects => std::fs::write(path, "{\"a\":".repeat(100_000)).unwrap(),
        Hostile::InvalidUtf8 => std::fs::write(path, b"{\"a\": \"\xff\xfe\"}").unwrap(),
        _ => return make_special(path, hostile),
    }
    true
}

#[cfg(unix)]
fn make_special(path: &Path, hostile: Hostile) -> bool {
    use std::os::unix::fs::symlink;
    match hostile {
        Hostile::Fifo => {
            crate::common::require_tool("mkfifo");
            let status = Command::new("mkfifo").arg(path).status();
            assert!(
                status.as_ref().is_ok_and(|s| s.success()),
                "mkfifo {}: {status:?}",
                path.display()
            );
        }
        Hostile::DevZero => symlink("/dev/zero", path).unwrap(),
        Hostile::DevNull => symlink("/dev/null", path).unwrap(),
        Hostile::Socket => {
            // The socket file stays after the listener is dropped.
            if let Err(e) = std::os::unix::net::UnixListener::bind(path) {
                panic!("a socket at {}: {e}", path.display());
            }
        }
        Hostile::LinkLoop => {
            let other = path.with_extension("loop");
            symlink(&other, path).unwrap();
            symlink(path, &other).unwrap();
        }
        Hostile::Dangling => symlink(path.with_extension("nowhere"), path).unwrap(),
        Hostile::LinkToFile => symlink(real_of(path), path).unwrap(),
        _ => unreachable!(),
    }
    true
}

#[cfg(not(unix))]
fn make_special(path: &Path, hostile: Hostile) -> bool {
    eprintln!(
        "{hostile:?} at {}: no such file on this platform",
        path.display()
    );
    false
}

/// Where [`Hostile::LinkToFile`] keeps the file its link points to.
fn real_of(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap().to_os_string();
    name.push(".real");
    path.with_file_name(name)
}

fn assert_no_crash(out: &Run, what: &str) {
    for bad in [
        "panicked",
        "overflow",
        "memory allocation",
        "RUST_BACKTRACE",
    ] {
        assert!(
            !out.stderr_text().contains(bad),
            "{what}: {bad}\n{}",
            all(out)
        );
    }
}

// ------------------------------------------------------------------ doctor

#[test]
fn doctor_reads_every_hostile_file_without_hanging_and_names_it() {
    let mut cases = 0;
    let template = machine();
    template.install();
    for place in ALL_PLACES {
        for hostile in ALL_HOSTILE {
            let m = like(&template);
            let path = m.path(place);
            if !make(&path, hostile) {
                continue;
            }
            let what = format!("doctor, {hostile:?} at {place:?}");
            let out = m.run(&["doctor", "--no-smoke"], b"", &what);
            cases += 1;
            assert_no_crash(&out, &what);
            assert!(
                matches!(out.code, Some(0..=2)),
                "{what}: exit {:?}\n{}",
                out.code,
                all(&out)
            );
            assert!(out.stderr_text().is_empty(), "{what}\n{}", all(&out));
            // A program that is not a file is named with what is there
            // instead (a huge one is a file: gk's version is looked for in
            // it), and a folder among the managed drop-ins is not a
            // drop-in; every other file that cannot be read is named with
            // the reason.
            let named = match (place, hostile) {
                (Place::Binary, Hostile::Huge) => false,
                (Place::ManagedDropIn, Hostile::Folder) => false,
                (_, h) => h.unreadable(),
            };
            if named {
                let shown = path.display().to_string();
                let stdout = out.stdout_text();
                let line = stdout
                    .lines()
                    .find(|l| l.contains(&shown) && l.contains(hostile.reason_at(place)))
                    .unwrap_or_else(|| {
                        panic!(
                            "{what}: no line names {shown} with {:?}\n{}",
                            hostile.reason_at(place),
                            all(&out)
                        )
                    });
                assert!(out.code >= Some(1), "{what}: exit 0 with {line}");
            }
        }
    }
    eprintln!("{cases} doctor cases");
}

// ---------------------------------------------------- commands that write

/// The places a command reads before it writes, for each command.
const INSTALL_READS: [Place; 4] = [
    Place::UserSettings,
    Place::ClaudeMd,
    Place::State,
    Place::Binary,
];

#[test]
fn install_and_uninstall_refuse_hostile_files_and_write_nothing() {
    let mut cases = 0;
    let template = machine();
    template.install();
    for command in [
        &["install", "--yes", "--no-smoke"][..],
        &["uninstall", "--yes"][..],
        &["uninstall", "--yes", "--purge"][..],
    ] {
        let places: Vec<Place> = if command.contains(&"--purge") {
            vec![Place::Config, Place::State]
        } else if command[0] == "uninstall" {
            // Without --purge the state and config are only named, not read.
            vec![Place::UserSettings, Place::ClaudeMd, Place::Binary]
        } else {
            INSTALL_READS.to_vec()
        };
        for &place in &places {
            for hostile in ALL_HOSTILE {
                let m = like(&template);
                std::fs::write(m.path(Place::Config), "{}\n").unwrap();
                let path = m.path(place);
                if !make(&path, hostile) {
                    continue;
                }
                let what = format!("{}, {hostile:?} at {place:?}", command.join(" "));
                let before = m.tree();
                let out = m.run(command, b"", &what);
                cases += 1;
                assert_no_crash(&out, &what);
                if hostile == Hostile::LinkToFile {
                    assert_eq!(out.code, Some(0), "{what}\n{}", all(&out));
                    assert!(real_of(&path).is_file(), "{what}: deleted through the link");
                }
                let refused = match (place, hostile) {
                    // Nothing there: a file to create (through the link);
                    // or a file, reached through a link.
                    (_, Hostile::Dangling | Hostile::LinkToFile) => false,
                    // Read whole and replaced, like any other program.
                    (Place::Binary, Hostile::Huge) => false,
                    // Not JSON: only settings.json and the state are parsed
                    // by install, and the state is kept as it is.
                    (Place::UserSettings, _) => true,
                    (_, h) => h.unreadable(),
                };
                if !refused {
                    continue;
                }
                assert_eq!(out.code, Some(1), "{what}: not refused\n{}", all(&out));
                let shown = path.display().to_string();
                let stderr = out.stderr_text();
                let line = stderr.trim_end();
                assert!(
                    !line.contains('\n') && line.contains(&shown),
                    "{what}: not one line naming {shown}\n{}",
                    all(&out)
                );
                if hostile.unreadable() {
                    assert!(line.contains(hostile.reason()), "{what}: {line}");
                }
                assert_eq!(m.tree(), before, "{what}: wrote something\n{}", all(&out));
            }
        }
    }
    eprintln!("{cases} install/uninstall cases");
}

#[test]
fn enable_and_disable_refuse_a_hostile_gk_json_and_write_nothing() {
    for command in [
        &["disable", "prompt", "--yes"],
        &["enable", "stop", "--yes"],
    ] {
        for hostile in ALL_HOSTILE {
            let m = machine();
            let path = m.path(Place::Config);
            if !make(&path, hostile) {
                continue;
            }
            let what = format!("{}, {hostile:?} as gk.json", command.join(" "));
            let before = m.tree();
            let out = m.run(command, b"", &what);
            assert_no_crash(&out, &what);
            if hostile == Hostile::Dangling || hostile == Hostile::LinkToFile {
                assert_eq!(out.code, Some(0), "{what}\n{}", all(&out));
                continue;
            }
            assert_eq!(out.code, Some(1), "{what}: not refused\n{}", all(&out));
            assert!(
                out.stderr_text().trim_end().lines().count() == 1
                    && out.stderr_text().contains(&path.display().to_string()),
                "{what}\n{}",
                all(&out)
            );
            assert_eq!(m.tree(), before, "{what}: wrote something");
        }
    }
}

// ------------------------------------------------------------------- hooks

const EVENT: &[u8] = br#"{"hook_event_name":"UserPromptSubmit","prompt":"write the sparql"}"#;

#[test]
fn hooks_keep_their_contract_with_every_hostile_file() {
    for place in [Place::Config, Place::State] {
        for hostile in ALL_HOSTILE {
            let m = machine();
            let path = m.path(place);
            if !make(&path, hostile) {
                continue;
            }
            for hook in ["prompt", "stop"] {
                let what = format!("hook {hook}, {hostile:?} at {place:?}");
                let out = m.run(&["hook", hook], EVENT, &what);
                out.assert_hook_contract(&what);
                assert!(!out.stdout_text().is_empty(), "{what}: no answer");
            }
        }
    }
}

/// A prompt event for this session, with `transcript` as its
/// `transcript_path`; the prompt is one the recommender gives Opus.
fn prompt_with_transcript(transcript: &Path) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f",
        "transcript_path": transcript,
        "prompt": "there is a deadlock in the scheduler, find the race and fix it",
    })
    .to_string()
    .into_bytes()
}

/// One transcript line: a reply that ran on `model`.
fn reply_on(model: &str) -> String {
    format!(
        "{}\n",
        serde_json::json!({"type": "assistant", "message": {"model": model, "content": []}})
    )
}

/// The prompt hook reads the model of the last reply from the
/// transcript's tail: every hostile file there (a pipe nobody writes to, a
/// device, a link, a loop, a folder, a huge sparse file, deep nesting,
/// invalid UTF-8) is "unknown", so the advice is the usual one, and the
/// hook keeps its contract within the run's time and memory limits.
#[test]
fn the_prompt_hook_takes_a_hostile_transcript_as_unknown() {
    for hostile in ALL_HOSTILE {
        let m = machine();
        let path = m.home().join(".claude/projects/-work/session.jsonl");
        if !make(&path, hostile) {
            continue;
        }
        let what = format!("hook prompt, {hostile:?} as the transcript");
        let out = m.run(&["hook", "prompt"], &prompt_with_transcript(&path), &what);
        out.assert_hook_contract(&what);
        assert!(
            out.system_message().contains("/model claude-opus-5-5"),
            "{what}: {}",
            out.system_message()
        );
    }
}

/// A 50 MB transcript: only its tail is read. A reply on Opus at its start
/// is not seen (the usual advice); the same file with one more reply on
/// Opus at its end is (the current model fits).
#[test]
fn only_the_tail_of_a_fifty_megabyte_transcript_is_read() {
    let m = machine();
    let path = m.home().join(".claude/projects/-work/session.jsonl");
    let filler = format!(
        "{}\n",
        serde_json::json!({"type": "user", "message": {"content": "x".repeat(1000)}})
    );
    let mut text = reply_on("claude-opus-5-5");
    while text.len() < 50 << 20 {
        text.push_str(&filler);
    }
    m.write(&path, &text);
    let what = "a reply on Opus 50 MB before the end";
    let out = m.run(&["hook", "prompt"], &prompt_with_transcript(&path), what);
    out.assert_hook_contract(what);
    assert!(
        out.system_message().contains("/model claude-opus-5-5"),
        "{what}: {}",
        out.system_message()
    );
    text.push_str(&reply_on("claude-opus-5-5"));
    m.write(&path, &text);
    let what = "a reply on Opus at the end of 50 MB";
    let out = m.run(&["hook", "prompt"], &prompt_with_transcript(&path), what);
    out.assert_hook_contract(what);
    assert!(
        out.system_message()
            .contains(" Model : the current model fits"),
        "{what}: {}",
        out.system_message()
    );
}

/// The settings files the session check reads, and gk.json.
const SESSION_READS: [Place; 6] = [
    Place::UserSettings,
    Place::ProjectSettings,
    Place::LocalSettings,
    Place::Managed,
    Place::ManagedDropIn,
    Place::Config,
];

#[test]
fn the_session_check_names_every_hostile_settings_file_and_keeps_its_contract() {
    let template = machine();
    template.install();
    let mut cases = 0;
    for place in SESSION_READS {
        for hostile in ALL_HOSTILE {
            let m = like(&template);
            let path = m.path(place);
            if !make(&path, hostile) {
                continue;
            }
            let what = format!("hook session, {hostile:?} at {place:?}");
            let event = serde_json::json!({"hook_event_name": "SessionStart", "cwd": m.project()});
            let out = m.run(&["hook", "session"], event.to_string().as_bytes(), &what);
            cases += 1;
            out.assert_hook_contract(&what);
            let message = if out.stdout_text().is_empty() {
                String::new()
            } else {
                let v: serde_json::Value = serde_json::from_str(&out.stdout_text()).unwrap();
                v["systemMessage"].as_str().unwrap().to_string()
            };
            // What the client would skip is named with why; a link to a
            // real file is read through; a folder among the drop-ins is
            // not a drop-in.
            let reason = match (place, hostile) {
                (Place::Config, _) => None,
                (Place::ManagedDropIn, Hostile::Folder) => None,
                (_, Hostile::DeepArrays) => Some("not valid JSON"),
                // Past the check's budget (256 KiB; the nested objects are
                // 500 KB): set aside, for doctor to read whole.
                (_, Hostile::Huge | Hostile::DeepObjects) => {
                    Some("is too large to check at session start")
                }
                (_, h) if h.unreadable() || h == Hostile::InvalidUtf8 => Some(h.reason()),
                _ => None,
            };
            match reason {
                Some(reason) => {
                    let shown = path.display().to_string();
                    assert!(
                        message
                            .lines()
                            .any(|l| l.contains(&shown) && l.contains(reason)),
                        "{what}: no line names {shown} with {reason:?}\n{}",
                        all(&out)
                    );
                }
                None if hostile == Hostile::LinkToFile && place != Place::Config => {
                    assert_eq!(message, "", "{what}: a healthy setup through a link");
                }
                None => {}
            }
            assert!(message.lines().count() <= 6, "{what}\n{message}");
        }
    }
    eprintln!("{cases} session check cases");
}

#[cfg(unix)]
#[test]
fn hooks_finish_when_stdin_never_ends() {
    let m = machine();
    for hook in ["prompt", "stop", "session"] {
        let what = format!("hook {hook}, stdin /dev/zero");
        let out = run_limited(
            m.gk_limited(&["hook", hook]),
            Stdin::File(PathBuf::from("/dev/zero")),
            MEMORY,
            &what,
        );
        out.assert_hook_contract(&what);
    }
}

#[test]
fn hooks_keep_their_contract_on_hostile_stdin() {
    let m = machine();
    let deep = |open: &str| open.repeat(1_000_000).into_bytes();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a million nested arrays", deep("[")),
        ("a million nested objects", deep("{\"a\":")),
        (
            "invalid UTF-8",
            b"{\"prompt\": \"sparql \xff\xfe\"}".to_vec(),
        ),
        ("NUL bytes", vec![0u8; 1 << 20]),
        ("an unterminated prompt string", {
            let mut v = b"{\"prompt\": \"sparql ".to_vec();
            v.extend(std::iter::repeat_n(b'a', 1 << 20));
            v
        }),
    ];
    for (name, stdin) in cases {
        for hook in ["prompt", "stop", "session"] {
            let what = format!("hook {hook}, stdin {name}");
            let out = m.run(&["hook", hook], &stdin, &what);
            out.assert_hook_contract(&what);
        }
    }
}

// ------------------------------------------------------------ memory limit

/// A prompt event of about `mib` MiB: `head`, then filler words.
#[cfg(unix)]
fn big_event(head: &str, mib: usize) -> Vec<u8> {
    let filler = "lorem ipsum dolor ".repeat(mib * (1 << 20) / 18);
    serde_json::to_vec(&serde_json::json!({
        "session_id": "s",
        "hook_event_name": "UserPromptSubmit",
        "prompt": format!("{head} {filler}"),
        "cwd": "/tmp",
    }))
    .unwrap()
}

#[cfg(unix)]
#[test]
fn prompt_hook_answers_a_fifty_megabyte_prompt_under_a_160_mib_limit() {
    require_ulimit();
    let m = machine();
    let event = big_event("please write the sparql", 50);
    // The default per session, the recommender (it reads the first 2 KiB),
    // then the keyword rules, which read the whole prompt.
    let mut out = None;
    for config in ["{}", r#"{"advice": "keywords"}"#] {
        std::fs::write(m.claude().join("hooks/gk.json"), config).unwrap();
        let what = format!("hook prompt, 50 MB prompt, 160 MiB address space, {config}");
        let run = run_limited(
            m.gk_limited(&["hook", "prompt"]),
            Stdin::Bytes(event.clone()),
            SMALL_MEMORY,
            &what,
        );
        run.assert_hook_contract(&what);
        out = Some(run);
    }
    let out = out.unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.stdout_text()).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    // The keyword is near the start, well inside what the hook reads.
    assert!(msg.contains("keyword 'sparql'"), "{msg}");

    let what = "hook stop, 50 MB event, 160 MiB address space";
    let out = run_limited(
        m.gk_limited(&["hook", "stop"]),
        Stdin::Bytes(event),
        SMALL_MEMORY,
        what,
    );
    out.assert_hook_contract(what);
    assert!(out.stdout_text().contains("STATE ["), "{}", all(&out));
}

/// The same limit with prompts of what costs the most per byte: non-word
/// bytes (every one a place a keyword may start), characters of two to
/// four bytes, and bytes that are not UTF-8 (each read as three bytes of
/// text). Every hook that reads the event answers, exit 0, nothing on
/// stderr; before, the dashes took a 128 MiB list of places and the
/// invalid bytes a 96 MiB copy, and the hooks aborted.
#[cfg(unix)]
#[test]
fn hooks_answer_fifty_megabytes_of_costly_bytes_under_a_160_mib_limit() {
    require_ulimit();
    let m = machine();
    let event = |body: &[u8]| {
        let mut e = br#"{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"write the sparql "#.to_vec();
        e.extend_from_slice(body);
        e.extend_from_slice(br#""}"#);
        e
    };
    let n = 50_000_000;
    let cases: [(&str, Vec<u8>); 3] = [
        ("dashes", event(&vec![b'-'; n])),
        (
            "multi-byte characters",
            event("é中😀".repeat(n / 9).as_bytes()),
        ),
        ("bytes that are not UTF-8", event(&vec![0xff; n])),
    ];
    for config in ["{}", r#"{"advice": "keywords"}"#] {
        std::fs::write(m.claude().join("hooks/gk.json"), config).unwrap();
        for (name, stdin) in &cases {
            for args in [
                &["hook", "prompt"][..],
                &["hook", "stop"],
                &["statusline"],
                &["hook", "pre-model-switch"],
                &["hook", "session"],
            ] {
                let what = format!("{args:?}, 50 MB of {name}, 160 MiB address space, {config}");
                let run = run_limited(
                    m.gk_limited(args),
                    Stdin::Bytes(stdin.clone()),
                    SMALL_MEMORY,
                    &what,
                );
                if args == ["statusline"] {
                    // A line of text, not JSON.
                    assert_eq!(run.code, Some(0), "{what}\n{}", all(&run));
                    assert!(run.stderr.is_empty(), "{what}\n{}", all(&run));
                    assert!(
                        run.stdout_text().starts_with("gk "),
                        "{what}\n{}",
                        all(&run)
                    );
                    continue;
                }
                run.assert_hook_contract(&what);
                if args == ["hook", "prompt"] {
                    let v: serde_json::Value = serde_json::from_str(&run.stdout_text())
                        .unwrap_or_else(|e| panic!("{what}: {e}\n{}", all(&run)));
                    assert!(v["systemMessage"].is_string(), "{what}\n{}", all(&run));
                }
            }
        }
    }
}

/// A state folder of 300 records, each under the 64 KiB a record is read
/// to but made of 30,000 small numbers (about 1 MB once parsed): `gk
/// state` lists them, and `prune --dry-run` plans over them, under 160
/// MiB of address space. Before, every record was held whole until the
/// listing was done (300 MB here; 3 GB for 3,000).
#[cfg(unix)]
#[test]
fn thousands_of_parsed_numbers_in_records_are_listed_under_a_160_mib_limit() {
    require_ulimit();
    let m = machine();
    let numbers = vec!["0"; 30_000].join(",");
    let record = format!("{{\"status\":\"in_progress\",\"task\":[{numbers}]}}");
    assert!(record.len() < 64 << 10);
    state_folder_of(&m, &record, 300);
    for args in [&["state"][..], &["state", "prune", "--dry-run"]] {
        let what = format!("{args:?}, 300 records of 30,000 numbers, 160 MiB address space");
        let run = run_limited(
            m.gk_limited(args),
            Stdin::Bytes(Vec::new()),
            SMALL_MEMORY,
            &what,
        );
        assert_eq!(run.code, Some(0), "{what}\n{}", all(&run));
        if args == ["state"] {
            assert_eq!(
                run.stdout_text().matches("in_progress").count(),
                300,
                "{what}\n{}",
                all(&run)
            );
        }
    }
}

/// A state folder of 48 clean records of 4,000,000 bytes each, just under
/// the 4 MiB a command reads a record to: `prune` plans over them under
/// 160 MiB of address space, holding 32 MiB of them at most; the rest are
/// named in a note, and each run prunes what its plan holds, so six runs
/// prune them all. Before, the plan held every record (192 MB here; 1.3
/// GB resident for 300) and the run died for memory.
#[cfg(unix)]
#[test]
fn a_plan_over_huge_records_holds_a_bounded_part_and_the_rest_waits_for_the_next_run() {
    require_ulimit();
    let m = machine();
    let dir = state_folder_of(&m, &huge_clean_record(), 48);
    let left = || std::fs::read_dir(&dir).unwrap().count();
    let prune = |args: &[&str], what: &str| {
        let run = run_limited(
            m.gk_limited(args),
            Stdin::Bytes(Vec::new()),
            SMALL_MEMORY,
            what,
        );
        assert_eq!(run.code, Some(0), "{what}\n{}", all(&run));
        run
    };
    let what = "prune --dry-run, 48 records of 4,000,000 bytes, 160 MiB address space";
    let run = prune(&["state", "prune", "--dry-run"], what);
    let text = format!("{}{}", run.stdout_text(), run.stderr_text());
    // 32 MiB hold 8 records of 4,000,000 bytes; the other 40 wait.
    assert_eq!(
        text.matches("  remove ").count(),
        8,
        "{what}\n{}",
        all(&run)
    );
    assert_eq!(
        text.matches(
            "(this run holds 32 MiB of records already; run the command again for the rest)"
        )
        .count(),
        40,
        "{what}\n{}",
        all(&run)
    );
    assert_eq!(left(), 48, "{what}: --dry-run removed a record");
    for (run_no, after) in [(1, 40), (2, 32), (3, 24), (4, 16), (5, 8), (6, 0)] {
        let what = format!("prune --yes, run {run_no}, 160 MiB address space");
        prune(&["state", "prune", "--yes"], &what);
        assert_eq!(left(), after, "{what}");
    }
}

/// `uninstall --purge` over 12 such records (under 160 MiB on Unix; on
/// Windows as well, where the folder is named by `GK_STATE_DIR`): it
/// removes what 32 MiB hold (8) and names the other 4 to delete by hand,
/// since running it again may not be possible (it removes gk's program).
#[test]
fn purge_over_huge_records_removes_a_bounded_part_and_names_the_rest() {
    #[cfg(unix)]
    require_ulimit();
    let m = machine();
    m.install();
    let dir = state_folder_of(&m, &huge_clean_record(), 12);
    let what = "uninstall --purge, 12 records of 4,000,000 bytes, 160 MiB address space";
    let mut cmd = m.gk_limited(&["uninstall", "--purge", "--yes"]);
    cmd.env("GK_STATE_DIR", &dir);
    let run = run_limited(cmd, Stdin::Bytes(Vec::new()), SMALL_MEMORY, what);
    assert_eq!(run.code, Some(0), "{what}\n{}", all(&run));
    let text = format!("{}{}", run.stdout_text(), run.stderr_text());
    assert_eq!(
        text.matches("a task record passed over (this run holds 32 MiB of records already); delete it by hand if it is not wanted")
            .count(),
        4,
        "{what}\n{}",
        all(&run)
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        4,
        "{what}\n{}",
        all(&run)
    );
}

/// An event longer than the part the prompt hook keeps (16 MiB): what a
/// user sees. A prompt read whole is answered as ever; a prompt cut off is
/// judged on its first part, and the answer says so; an event whose prompt
/// comes after the part read gets the answer for an empty prompt, saying so.
#[test]
fn an_event_longer_than_the_hook_reads_is_answered_from_its_first_part() {
    let m = machine();
    // The keyword rules, which read the whole prompt: where a keyword is
    // seen shows what the hook read.
    std::fs::write(
        m.claude().join("hooks/gk.json"),
        r#"{"advice": "keywords"}"#,
    )
    .unwrap();
    let filler = |mib: usize| "lorem ipsum dolor ".repeat(mib * (1 << 20) / 18);
    let answer = |event: serde_json::Value, what: &str| {
        let out = m.run(
            &["hook", "prompt"],
            &serde_json::to_vec(&event).unwrap(),
            what,
        );
        out.assert_hook_contract(what);
        let v: serde_json::Value = serde_json::from_str(&out.stdout_text()).unwrap();
        v["systemMessage"].as_str().unwrap().to_string()
    };

    // The prompt itself is longer: `[check]` at its start is seen, the
    // keyword at its end is not, and the user is told.
    let msg = answer(
        serde_json::json!({"prompt": format!("[check] {} write the sparql", filler(20))}),
        "20 MiB prompt",
    );
    assert!(msg.contains("CHECK MODE"), "{msg}");
    // No keyword seen: the default model, not shown to the user.
    assert!(!msg.contains("Model :"), "{msg}");
    assert!(
        msg.ends_with(
            "\n ! prompt longer than 16 MiB: only its first 16 MiB were read for keywords"
        ),
        "{msg}"
    );

    // The prompt whole, a long field after it: answered exactly, no note.
    let msg = answer(
        serde_json::json!({"prompt": "write the sparql", "zz_extra": filler(20)}),
        "short prompt, long field after it",
    );
    assert!(
        msg.contains("keyword 'sparql'") && !msg.contains(" ! "),
        "{msg}"
    );

    // A long field before the prompt: no prompt read.
    let msg = answer(
        serde_json::json!({"a_extra": filler(20), "prompt": "write the sparql"}),
        "long field before the prompt",
    );
    assert!(!msg.contains("Model :"), "{msg}");
    assert!(
        msg.contains("no prompt in its first 16 MiB: no keywords read"),
        "{msg}"
    );
}

// -------------------------------------------------------------------- race

/// task_state.json is a link that another thread keeps pointing at a
/// regular file, then at a named pipe nobody writes to. The hooks' reader
/// must never block on the pipe, however the swap falls between its steps.
#[cfg(unix)]
#[test]
fn a_state_file_swapped_for_a_pipe_never_blocks_the_reader() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let regular = dir.path().join("regular.json");
    let fifo = dir.path().join("fifo");
    let state = dir.path().join("task_state.json");
    std::fs::write(&regular, r#"{"status":"clean"}"#).unwrap();
    assert!(make(&fifo, Hostile::Fifo));
    std::os::unix::fs::symlink(&regular, &state).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, regular, fifo, state) =
            (stop.clone(), regular.clone(), fifo.clone(), state.clone());
        let tmp = dir.path().join("next");
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for target in [&fifo, &regular] {
                    let _ = std::fs::remove_file(&tmp);
                    std::os::unix::fs::symlink(target, &tmp).unwrap();
                    std::fs::rename(&tmp, &state).unwrap();
                    swaps += 1;
                }
            }
            swaps
        })
    };
    const READS: u32 = 20_000;
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let reader = {
        let state = state.clone();
        std::thread::spawn(move || {
            let mut regular_reads = 0u32;
            for _ in 0..READS {
                let read = gk::testing::hooks::read_state(&state);
                if matches!(read.read, gk::testing::hooks::StateRead::Object(_)) {
                    regular_reads += 1;
                }
            }
            let _ = done_tx.send(regular_reads);
        })
    };
    let result = done_rx.recv_timeout(LIMIT);
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    match result {
        Ok(regular_reads) => {
            reader.join().unwrap();
            eprintln!("{READS} reads ({regular_reads} of the regular file) during {swaps} swaps");
        }
        Err(_) => {
            // The blocked reader is left where it is: the test program's
            // exit ends its thread.
            panic!("the reader blocked on the pipe (no answer after {LIMIT:?}, {swaps} swaps)");
        }
    }
}

// ------------------------------------------- the session check's budget

/// The session check runs at every session start in whatever repository
/// the session opens; a repository may bring settings files of any size.
/// The issue-17 reproducers (each measured at 4-7 s and 0.8-1.8 GB before):
/// two 16 MB project files with 400,000 trivial handlers each; 230,000
/// distinct spellings of gk's prompt hook and 125,000 copies of one; three
/// 15 MiB managed drop-ins. Each must finish inside the hook's own timeout
/// (5 s, here in a debug build on a shared machine) and under a 160 MiB
/// address space, naming every file it set aside and the doctor command
/// that reads it whole. The figures (under 50 ms and 64 MiB, release) are
/// scripts/bench-session.sh's.
#[cfg(unix)]
#[test]
fn the_session_check_stays_small_in_a_hostile_repository() {
    require_ulimit();
    let handlers = |command: &str, n: usize| {
        let one = format!("{{\"type\":\"command\",\"command\":{command:?}}}");
        let list = vec![one; n].join(",");
        format!("{{\"hooks\":{{\"PreToolUse\":[{{\"hooks\":[{list}]}}]}}}}")
    };
    let spellings = {
        let list: Vec<String> = (0..230_000)
            .map(|i| format!("{{\"type\":\"command\",\"command\":\"/opt/{i}/gk hook prompt\"}}"))
            .collect();
        format!(
            "{{\"hooks\":{{\"UserPromptSubmit\":[{{\"hooks\":[{}]}}]}}}}",
            list.join(",")
        )
    };
    let template = machine();
    template.install();
    let copies = handlers("\"$HOME/.claude/hooks/gk\" hook prompt", 125_000);
    let trivial = handlers("true", 400_000);
    let dropin = handlers("true", (15 << 20) / 34);
    type Files<'a> = Vec<(Place, &'a str)>;
    let cases: [(&str, Files); 3] = [
        (
            "400,000 handlers in each project file",
            vec![
                (Place::ProjectSettings, &trivial),
                (Place::LocalSettings, &trivial),
            ],
        ),
        (
            "230,000 spellings and 125,000 copies",
            vec![
                (Place::ProjectSettings, &spellings),
                (Place::LocalSettings, &copies),
            ],
        ),
        (
            "three 15 MiB managed drop-ins",
            vec![(Place::ManagedDropIn, &dropin)],
        ),
    ];
    for (what, files) in cases {
        let m = like(&template);
        let mut named = Vec::new();
        for (place, text) in files {
            let path = m.path(place);
            if place == Place::ManagedDropIn {
                for n in ["10", "20", "30"] {
                    let p = path.with_file_name(format!("{n}-big.json"));
                    std::fs::write(&p, text).unwrap();
                    named.push(p);
                }
            } else {
                std::fs::write(&path, text).unwrap();
                named.push(path);
            }
        }
        let event = serde_json::json!({"hook_event_name": "SessionStart", "cwd": m.project()});
        let start = std::time::Instant::now();
        let out = run_limited(
            m.gk_limited(&["hook", "session"]),
            Stdin::Bytes(event.to_string().into_bytes()),
            SMALL_MEMORY,
            what,
        );
        let took = start.elapsed();
        out.assert_hook_contract(what);
        assert!(took < Duration::from_secs(5), "{what}: {took:?}");
        let v: serde_json::Value = serde_json::from_str(&out.stdout_text())
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", all(&out)));
        let message = v["systemMessage"].as_str().unwrap();
        // The first file past the budget is named (the rest may be counted
        // in the last line), with the command that reads it whole.
        let first = named[0].display().to_string();
        assert!(
            message.lines().any(|l| l.starts_with(&format!(
                "gk: {first} is too large to check at session start -- gk doctor"
            ))),
            "{what}\n{message}"
        );
        // Nothing is called missing: a file not read may register it.
        assert!(!message.contains("not registered"), "{what}\n{message}");
        eprintln!("{what}: {took:?}");
    }
}

/// A folder pointer (Claude writes them; anyone may) larger than gk reads
/// made `gk uninstall --purge` refuse everything, gk's hooks left
/// registered. Now each such file, pointer or record, is passed over with
/// a note naming it, and the rest of the uninstall is done.
#[test]
fn purge_passes_over_a_huge_pointer_or_record_and_uninstalls_the_rest() {
    let m = machine();
    m.install();
    let state = if cfg!(windows) {
        m.home().join(".local").join("state").join("gk")
    } else {
        xdg_state(&m).join("gk")
    };
    std::fs::create_dir_all(&state).unwrap();
    let huge_pointer = state.join(format!("folder.{}.json", "ab".repeat(16)));
    let huge_record = state.join("bbbb-2.json");
    for huge in [&huge_pointer, &huge_record] {
        std::fs::File::create(huge).unwrap().set_len(HUGE).unwrap();
    }
    let pointer = state.join(format!("folder.{}.json", "cd".repeat(16)));
    let record = state.join("aaaa-1.json");
    std::fs::write(&pointer, r#"{"session": "aaaa-1"}"#).unwrap();
    std::fs::write(&record, r#"{"status": "in_progress", "task": "t"}"#).unwrap();
    // Links named like a record and a pointer: never followed, and named
    // (they were passed over without a word).
    #[cfg(unix)]
    let links = {
        let outside = m.root().join("outside.json");
        std::fs::write(&outside, "{}").unwrap();
        let linked = [
            state.join("cccc-3.json"),
            state.join(format!("folder.{}.json", "ef".repeat(16))),
        ];
        for link in &linked {
            std::os::unix::fs::symlink(&outside, link).unwrap();
        }
        (outside, linked)
    };
    let what = "uninstall --purge with a huge pointer and record";
    let out = m.run(&["uninstall", "--purge", "--yes"], b"", what);
    assert_no_crash(&out, what);
    assert_eq!(out.code, Some(0), "{}", all(&out));
    #[cfg(unix)]
    {
        let (outside, linked) = links;
        for (link, kind) in linked.iter().zip(["task record", "folder pointer"]) {
            let note = format!(
                "left {} in place: a link named like a {kind}, which gk does not remove; delete it by hand if it is not wanted",
                link.display()
            );
            assert!(out.stdout_text().contains(&note), "{note}\n{}", all(&out));
            assert!(std::fs::symlink_metadata(link).is_ok());
        }
        assert_eq!(std::fs::read_to_string(outside).unwrap(), "{}");
    }
    for (huge, kind) in [
        (&huge_pointer, "a folder pointer"),
        (&huge_record, "a task record"),
    ] {
        let note = format!(
            "left {} in place: {kind} that gk does not read to remove (larger than 4 MiB)",
            huge.display()
        );
        assert!(out.stdout_text().contains(&note), "{note}\n{}", all(&out));
        assert!(huge.is_file());
    }
    assert!(!pointer.exists() && !record.exists(), "{}", all(&out));
    let settings = std::fs::read_to_string(m.claude().join("settings.json")).unwrap_or_default();
    assert!(!settings.contains("hook prompt"), "{settings}");
}

/// 16 MiB of an event made of millions of small values (`0,0,0,…` in a
/// field the hooks never read): built as values it took 268 MB, and under
/// the 160 MiB limit the hooks aborted with a backtrace on stderr. Every
/// hook that reads the event keeps its contract; the Stop hook and the
/// status line still answer.
#[cfg(unix)]
#[test]
fn hooks_keep_their_contract_on_an_event_of_millions_of_values_under_a_160_mib_limit() {
    require_ulimit();
    let m = machine();
    let event = format!(
        r#"{{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"hi","x":[{}0]}}"#,
        "0,".repeat(8_000_000)
    )
    .into_bytes();
    for args in [
        &["hook", "prompt"][..],
        &["hook", "stop"],
        &["hook", "session"],
        &["hook", "pre-model-switch"],
        &["statusline"],
    ] {
        let what = format!("{args:?}, 8,000,001 values, 160 MiB address space");
        let run = run_limited(
            m.gk_limited(args),
            Stdin::Bytes(event.clone()),
            SMALL_MEMORY,
            &what,
        );
        assert_eq!(run.code, Some(0), "{what}: {}", all(&run));
        assert!(run.stderr.is_empty(), "{what}: {}", all(&run));
        if args == ["hook", "stop"] {
            assert!(run.stdout_text().contains("STATE ["), "{}", all(&run));
        }
        if args == ["statusline"] {
            assert!(run.stdout_text().starts_with("gk "), "{}", all(&run));
        }
    }
}
