//! The one test environment of the suite: a temporary machine (home,
//! Claude folder, project, data folder, managed settings, managed program)
//! and gk run in it through one builder, [`Gk`], whose [`Gk::output`] is
//! the single place that decides how gk runs.
//!
//! Every variable that could point gk at a real folder or change what it
//! decides is removed ([`REMOVED`]); the ones that cannot be removed
//! without gk falling back to a place outside the test point into the
//! temporary machine (see [`TestEnv::base_vars`]). `NO_COLOR=1`. A test
//! that needs a variable otherwise sets it on the builder: the last
//! setting wins.
#![allow(dead_code)]
// Starting gk (and the odd shell or python3) is this module's whole job;
// clippy.toml forbids process spawning in gk's own code.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use serde_json::Value;

pub mod doctor;
pub mod hooks;
pub mod limited;

/// Removed from every run: each names a folder gk reads or writes (the
/// Claude config folder, the project, the state folder) or changes a
/// decision (on Windows `CLAUDE_CODE_GIT_BASH_PATH` decides the shell a
/// status line is spelled for).
pub const REMOVED: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_PROJECT_DIR",
    "GK_STATE_DIR",
    "XDG_STATE_HOME",
    "CLAUDE_CODE_GIT_BASH_PATH",
];

/// This process's `PATH` without the folders that hold a Claude Code
/// client: install asks `claude --version` which hook events to register,
/// so a test machine's own client would change what install plans. A test
/// that wants a client puts a stand-in first on `PATH`.
pub fn path_without_a_client() -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let kept: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|dir| !dir.join(exe("claude")).is_file())
        .collect();
    std::env::join_paths(kept).unwrap_or(path)
}

/// The program's file name on this platform.
pub fn exe(name: &str) -> String {
    if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_string()
    }
}

/// The path of the gk binary cargo built for these tests, found beside
/// the test program (so also under Wine, where the build's Linux path
/// means nothing).
pub fn gk_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("gk")
}

/// A temporary machine. Folders are made when first asked for, except the
/// home folder, which always exists.
pub struct TestEnv {
    tmp: tempfile::TempDir,
    home: PathBuf,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        TestEnv { tmp, home }
    }

    /// The temporary root everything else sits in.
    pub fn root(&self) -> &Path {
        self.tmp.path()
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// `<home>/.claude`, the Claude folder when `CLAUDE_CONFIG_DIR` is not set.
    pub fn claude(&self) -> PathBuf {
        self.home.join(".claude")
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.claude().join("hooks")
    }

    /// The user's settings file.
    pub fn settings(&self) -> PathBuf {
        self.claude().join("settings.json")
    }

    /// The program a per-user install copies.
    pub fn binary(&self) -> PathBuf {
        self.hooks_dir().join(exe("gk"))
    }

    /// The shared (global-scope) task record.
    pub fn state_path(&self) -> PathBuf {
        self.hooks_dir().join("task_state.json")
    }

    /// gk's config file.
    pub fn config_path(&self) -> PathBuf {
        self.hooks_dir().join("gk.json")
    }

    /// A project folder, `<root>/work/project` (made on first call).
    pub fn project(&self) -> PathBuf {
        let p = self.root().join("work").join("project");
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// Where gk keeps its data (the backups): `XDG_DATA_HOME` and
    /// `LOCALAPPDATA` point here.
    pub fn data_dir(&self) -> PathBuf {
        self.root().join("data")
    }

    /// Where gk looks for managed settings (absent unless a test writes it).
    pub fn managed_settings(&self) -> PathBuf {
        self.root().join("managed").join("managed-settings.json")
    }

    /// Where `gk install --managed` puts the machine-wide program.
    pub fn managed_program(&self) -> PathBuf {
        self.root().join("managed-bin").join(exe("gk"))
    }

    /// The variables every run starts from: `None` removes one.
    pub fn base_vars(&self) -> Vec<(OsString, Option<OsString>)> {
        let mut vars: Vec<(OsString, Option<OsString>)> =
            REMOVED.iter().map(|n| (n.into(), None)).collect();
        for (name, value) in [
            ("HOME", self.home.clone().into_os_string()),
            ("USERPROFILE", self.home.clone().into_os_string()),
            ("XDG_DATA_HOME", self.data_dir().into_os_string()),
            ("LOCALAPPDATA", self.data_dir().into_os_string()),
            (
                "GK_MANAGED_SETTINGS",
                self.managed_settings().into_os_string(),
            ),
            (
                "GK_MANAGED_PROGRAM",
                self.managed_program().into_os_string(),
            ),
            ("NO_COLOR", "1".into()),
            ("PATH", path_without_a_client()),
        ] {
            vars.push((name.into(), Some(value)));
        }
        vars
    }

    /// gk with `args`, in this machine.
    pub fn gk<I, S>(&self, args: I) -> Gk
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut g = Gk {
            program: gk_bin(),
            args: Vec::new(),
            vars: self.base_vars(),
            cwd: None,
            stdin: Vec::new(),
            timeout: None,
            process: false,
            terminal: false,
        };
        g.args(args);
        g
    }

    /// Another program (a shell, python3) with this machine's variables,
    /// as a plain process.
    pub fn command(&self, program: impl AsRef<OsStr>) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        apply_vars(&mut cmd, &self.base_vars());
        cmd
    }

    pub fn write(&self, path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) {
        let path = path.as_ref();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    pub fn read(&self, path: impl AsRef<Path>) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    /// Write the shared task record and set its mtime `age_secs` before now.
    pub fn write_state(&self, bytes: impl AsRef<[u8]>, age_secs: u64) {
        let path = self.state_path();
        self.write(&path, bytes);
        set_age(&path, age_secs);
    }

    pub fn write_config(&self, text: &str) {
        self.write(self.config_path(), text);
    }

    /// `gk hook prompt` on a UserPromptSubmit event for `prompt`.
    pub fn prompt(&self, prompt: &str) -> Run {
        let event = serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt});
        self.gk(["hook", "prompt"]).stdin(event.to_string()).run()
    }

    /// `gk hook stop` on a bare Stop event.
    pub fn stop(&self) -> Run {
        self.gk(["hook", "stop"])
            .stdin(r#"{"hook_event_name":"Stop"}"#)
            .run()
    }

    /// Every file under the temporary root with its bytes: to show a run
    /// changed nothing.
    pub fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        files_under(self.root())
    }
}

/// Set `path`'s modification time `age_secs` before now.
pub fn set_age(path: &Path, age_secs: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age_secs))
        .unwrap();
}

fn apply_vars(cmd: &mut std::process::Command, vars: &[(OsString, Option<OsString>)]) {
    for (name, value) in vars {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
}

/// One run of gk being put together. The names follow
/// `std::process::Command`, so a test reads the same either way.
pub struct Gk {
    program: PathBuf,
    args: Vec<OsString>,
    vars: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
    stdin: Vec<u8>,
    timeout: Option<Duration>,
    process: bool,
    terminal: bool,
}

impl Gk {
    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Gk {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Gk
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    pub fn env(&mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Gk {
        self.vars
            .push((name.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    pub fn env_remove(&mut self, name: impl AsRef<OsStr>) -> &mut Gk {
        self.vars.push((name.as_ref().to_owned(), None));
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Gk {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    /// In-process only: stdin is a terminal (the bytes of [`Gk::stdin`]
    /// are what the user types), as for a person at a prompt.
    pub fn terminal(&mut self) -> &mut Gk {
        self.terminal = true;
        self
    }

    pub fn stdin(&mut self, bytes: impl Into<Vec<u8>>) -> &mut Gk {
        self.stdin = bytes.into();
        self
    }

    /// Run another program (a copy of gk, a wrapper) instead of the one
    /// cargo built; always as a process.
    pub fn program(&mut self, program: impl AsRef<Path>) -> &mut Gk {
        self.program = program.as_ref().to_owned();
        self.process = true;
        self
    }

    /// Kill the run after `limit` (a process: only a process can be killed).
    pub fn timeout(&mut self, limit: Duration) -> &mut Gk {
        self.timeout = Some(limit);
        self.process = true;
        self
    }

    /// Run as a real process even where an in-process run would do: for
    /// what only a process shows (exit codes of `main`, the panic hook,
    /// the real binary's bytes).
    pub fn process(&mut self) -> &mut Gk {
        self.process = true;
        self
    }

    /// The variables of this run as one map (`None`: removed).
    pub fn vars(&self) -> BTreeMap<OsString, Option<OsString>> {
        self.vars.iter().cloned().collect()
    }

    /// Run gk: the one place that decides how.
    pub fn output(&mut self) -> Output {
        assert!(
            !(self.process && self.terminal),
            "a terminal stdin exists only in-process"
        );
        if self.process {
            self.run_process()
        } else {
            self.run_in_process()
        }
    }

    /// gk in this test process (`gk::testing::run`): the same dispatch as
    /// the binary, with this run's variables, folder and stdin, and the
    /// built gk as the program's own path (install copies it, smoke runs
    /// start it). On a thread of its own with the stack the program's main
    /// thread gets (8 MiB on Linux; on Windows the 2 MiB the cross-built
    /// gk.exe reserves), so depth limits hold as they do in the process.
    pub fn run_in_process(&self) -> Output {
        let cwd = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().unwrap(),
        };
        // The program as the system names it (under Wine a build path
        // like `/root/…` is `Z:\root\…`), as the process's own path reads.
        let program = std::path::absolute(&self.program).unwrap_or_else(|_| self.program.clone());
        let mut env = gk::testing::Env::new(cwd, program);
        for (name, value) in std::env::vars_os() {
            env.set(name, value);
        }
        for (name, value) in &self.vars {
            match value {
                Some(v) => env.set(name, v),
                None => env.remove(name),
            };
        }
        if self.terminal {
            env.set_terminals(true, false, false);
        }
        let (args, stdin) = (self.args.clone(), self.stdin.clone());
        let stack = if cfg!(windows) { 2 << 20 } else { 8 << 20 };
        let ran = std::thread::Builder::new()
            .stack_size(stack)
            .spawn(move || gk::testing::run(&args, &env, &stdin))
            .unwrap()
            .join();
        let (code, stdout, stderr) = ran.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Output {
            status: exit_status(code),
            stdout,
            stderr,
        }
    }

    /// [`Gk::output`] as a [`Run`].
    pub fn run(&mut self) -> Run {
        Run::from(self.output())
    }

    /// The same as a `std::process::Command`, for tests that put limits
    /// around it, signal it or kill it themselves.
    pub fn to_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args);
        apply_vars(&mut cmd, &self.vars);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        cmd
    }

    /// Start gk and wait for it. Under Wine, starting a program now and
    /// then fails in one of two ways that say gk never ran
    /// (docs/maintainers/testing.md, "Wine's own faults"): the start
    /// itself fails with ERROR_INTERNAL_ERROR (1359), or the process ends
    /// with STATUS_DLL_INIT_FAILED (0xC0000142) before printing anything.
    /// Such a start is tried again, up to twice; any other error or exit,
    /// or a third such fault, stands.
    pub fn run_process(&self) -> Output {
        const DLL_INIT_FAILED: i32 = 0xC000_0142_u32 as i32;
        let mut tries = 0;
        loop {
            let mut cmd = assert_cmd::Command::from_std(self.to_command());
            cmd.write_stdin(self.stdin.clone());
            if let Some(limit) = self.timeout {
                cmd.timeout(limit);
            }
            match cmd.output() {
                Err(e) if cfg!(windows) && e.raw_os_error() == Some(1359) && tries < 2 => {
                    tries += 1;
                    eprintln!("starting gk failed ({e}); starting it again");
                }
                Ok(out)
                    if cfg!(windows)
                        && out.status.code() == Some(DLL_INIT_FAILED)
                        && out.stdout.is_empty()
                        && tries < 2 =>
                {
                    tries += 1;
                    eprintln!("gk died in its start-up (0xC0000142); starting it again");
                }
                other => return other.unwrap_or_else(|e| panic!("cannot run gk: {e}")),
            }
        }
    }
}

/// The status a process exiting with `code` has.
fn exit_status(code: u8) -> std::process::ExitStatus {
    #[cfg(unix)]
    {
        std::os::unix::process::ExitStatusExt::from_raw(i32::from(code) << 8)
    }
    #[cfg(windows)]
    {
        std::os::windows::process::ExitStatusExt::from_raw(u32::from(code))
    }
}

/// What a run gave back.
#[derive(Debug, Clone)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        }
    }
}

impl Run {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Panics with both streams unless the run exited 0; gives stdout.
    pub fn ok(&self) -> String {
        assert!(
            self.success(),
            "exit {:?}\n{}{}",
            self.code,
            self.stdout_text(),
            self.stderr_text()
        );
        self.stdout_text()
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

/// Every file under `dir` (links and special files read as they read, or
/// as empty), with its bytes, sorted: to show a run changed nothing.
pub fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
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

/// A test that needs `tool` (python3, sh, tmux, strace) on PATH: true when
/// it is there. When it is not, the run fails under `CI=true` (CI installs
/// what the tests need) and otherwise panics with the reason, so a missing
/// tool is never a pass. Tests that need a tool are `#[ignore]`d with the
/// reason when the tool is optional for a developer's run.
pub fn require_tool(tool: &str) {
    let found = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(exe(tool)).is_file()));
    assert!(
        found,
        "this test needs `{tool}` on PATH (CI installs it; run `cargo test -- --skip <name>` to leave it out knowingly)"
    );
}

/// insta settings for what gk prints in `env`: the temporary root and
/// home (as the platform writes them, and with `/` separators) become
/// `[ROOT]` and `[HOME]`, `gk.exe` becomes `gk`, backup stamps, times and
/// gk's version become placeholders.
pub fn snapshot_settings(env: &TestEnv) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    for (path, name) in [(env.home(), "[HOME]"), (env.root(), "[ROOT]")] {
        let shown = path.display().to_string();
        let slashed = shown.replace('\\', "/");
        for form in [shown.clone(), slashed] {
            s.add_filter(&regex_escape(&form), name);
        }
        // The JSON-escaped spelling (doubled backslashes) on Windows.
        if shown.contains('\\') {
            s.add_filter(&regex_escape(&shown.replace('\\', "\\\\")), name);
        }
    }
    s.add_filter(r"gk\.exe\b", "gk");
    s.add_filter(r"\b\d{8}T\d{6}(\.\d+)?Z?\b", "[STAMP]");
    s.add_filter(r"\b\d+(\.\d+)? ?ms\b", "[N] ms");
    s.add_filter(&regex_escape(env!("CARGO_PKG_VERSION")), "[VERSION]");
    s
}

fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
