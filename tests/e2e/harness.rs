//! Runs whole Claude Code turns offline for the end-to-end tests: the pinned
//! real client, a temp HOME, a project folder, and `mock_messages.py` on a
//! loopback port standing in for the Messages API. A turn gives back what
//! the client printed (stream-json with hook events), every request body it
//! sent (where the prompt hook's additionalContext arrives) and its debug
//! log (where it reports how long each hook command took).
//!
//! The end-to-end test programs have no libtest of their own (`harness =
//! false` in Cargo.toml): [`run`] hands their list of tests to
//! `libtest-mimic`, which takes `cargo test`'s arguments and prints its
//! report, so whether the client is there is decided when the tests run,
//! not when they are built, and a missing one is reported as `ignored`
//! with the reason, never as `ok`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Output, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

/// The client version the tests are written against (also read by
/// scripts/install-claude-client.sh).
pub fn client_version() -> &'static str {
    include_str!("claude-version").trim()
}

/// The older client version some tests run beside the pinned one: one
/// that does not know every hook event gk can register (also read by
/// `scripts/install-claude-client.sh --old`).
#[allow(dead_code)] // not every test program runs it
pub fn old_client_version() -> &'static str {
    include_str!("claude-version-old").trim()
}

/// Longest a single client run may take before it is killed and the test fails.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// What the prompt hook's context starts with (seed: "[Gatekeeper] State: …").
pub const CONTEXT_MARKER: &str = "[Gatekeeper] State:";
/// What opens the prompt hook's context in the per-session scope, right
/// before [`CONTEXT_MARKER`]: the sentence naming this session's record.
pub const RECORD_MARKER: &str = "[Task state] ";

/// The gatekeeper text of a context: after the per-session record
/// sentence that opens it, when there is one.
pub fn gatekeeper_part(context: &str) -> &str {
    match context.find(CONTEXT_MARKER) {
        Some(at) => &context[at..],
        None => context,
    }
}

/// The list of tests an end-to-end test program runs, each a `fn()` that
/// panics on failure: `trials![a, b]` is `vec![("a", a as fn()), ("b", b as fn())]`.
macro_rules! trials {
    ($($test:ident),+ $(,)?) => {
        vec![$((stringify!($test), $test as fn())),+]
    };
}

/// Run `tests` as `cargo test` asked (filters, `--list`, `--exact`, …):
/// every one reported `ignored` with `skip` as the reason when it is
/// given, else run.
#[allow(dead_code)] // tests/e2e_claude.rs runs groups
pub fn run(tests: Trials, skip: Option<String>) -> ExitCode {
    run_groups(vec![(tests, skip)])
}

/// A list of tests, as `trials![…]` makes it.
pub type Trials = Vec<(&'static str, fn())>;

/// [`run`] for groups of tests, each with its own `skip` (tests that need
/// a second client, say).
pub fn run_groups(groups: Vec<(Trials, Option<String>)>) -> ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    let trials = groups
        .into_iter()
        .flat_map(|(tests, skip)| tests.into_iter().map(move |t| (t, skip.clone())))
        .map(|((name, test), skip)| {
            let skip = skip.clone();
            libtest_mimic::Trial::ignorable_test(name, move || match skip {
                Some(reason) => Ok(libtest_mimic::Completion::ignored_with(reason)),
                None => {
                    test();
                    Ok(libtest_mimic::Completion::Completed)
                }
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// CI runs every end-to-end test: `CI` is set and not `false` or `0`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Why the tests that drive the Linux client cannot run here, outside CI:
/// `GK_E2E_CLAUDE` unset, empty, or not an executable file. `None` when it
/// names one (a client that then fails to start or reports another
/// version fails the tests, see [`client`]) and always under CI, where a
/// missing client fails them.
pub fn client_missing() -> Option<String> {
    missing("GK_E2E_CLAUDE")
}

/// As [`client_missing`], for the older client (`GK_E2E_CLAUDE_OLD`,
/// installed by `scripts/install-claude-client.sh --old`).
#[allow(dead_code)] // not every test program runs it
pub fn old_client_missing() -> Option<String> {
    missing("GK_E2E_CLAUDE_OLD")
}

fn missing(var: &str) -> Option<String> {
    if in_ci() {
        return None;
    }
    let problem = match std::env::var_os(var).filter(|v| !v.is_empty()) {
        None => format!("{var} is not set"),
        Some(path) if !is_executable(Path::new(&path)) => format!(
            "{var} names no executable file ({})",
            Path::new(&path).display()
        ),
        Some(_) => return None,
    };
    Some(format!("{problem}; docs/maintainers/testing.md"))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// One client at a time: the machine has two cores, and a turn starts a
/// large native executable; parallel turns only make timings noisy.
static SERIAL: Mutex<()> = Mutex::new(());

/// `out`, once it is known to have exited 0; else fail, showing what
/// `what` (a program and its arguments) printed.
pub fn succeeded(what: &str, out: Output) -> Output {
    assert!(
        out.status.success(),
        "{what} exited {}:\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The client cannot be used. [`client_missing`] already has the tests
/// reported ignored when `GK_E2E_CLAUDE` names no executable (outside CI),
/// so a test that gets here was meant to run: it fails, saying why.
fn unavailable(test: &str, var: &str, flag: &str, reason: &str) -> ! {
    panic!(
        "{test}: the end-to-end tests cannot run: {reason} (export \
         {var}=\"$(scripts/install-claude-client.sh{flag})\", then cargo test)"
    );
}

/// The pinned `claude` executable.
#[derive(Debug, Clone)]
pub struct Client {
    bin: PathBuf,
}

/// The pinned client named by `GK_E2E_CLAUDE`, checked to start and to
/// report the pinned version (and python3, for the mock, to start).
pub fn client(test: &str) -> Client {
    client_from(test, "GK_E2E_CLAUDE", "", client_version())
}

/// The older client named by `GK_E2E_CLAUDE_OLD`, checked as [`client`]
/// checks the pinned one, against [`old_client_version`].
#[allow(dead_code)] // not every test program runs it
pub fn old_client(test: &str) -> Client {
    client_from(test, "GK_E2E_CLAUDE_OLD", " --old", old_client_version())
}

/// The client `var` names, which must report `version`; `flag`: the
/// install script's option that installs it.
fn client_from(test: &str, var: &str, flag: &str, version: &str) -> Client {
    let bin = match std::env::var_os(var) {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => unavailable(test, var, flag, &format!("{var} is not set")),
    };
    if !bin.is_file() {
        unavailable(
            test,
            var,
            flag,
            &format!("no Claude Code client at {}", bin.display()),
        );
    }
    let scratch = TempDir::new().expect("temp dir");
    let out = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", scratch.path())
        .stdin(Stdio::null())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => unavailable(
            test,
            var,
            flag,
            &format!("cannot start {}: {e}", bin.display()),
        ),
    };
    let reported = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if reported.split_whitespace().next() != Some(version) {
        unavailable(
            test,
            var,
            flag,
            &format!(
                "{} reports version {reported:?}, the tests are pinned to {version}",
                bin.display(),
            ),
        );
    }
    let python = Command::new("python3")
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    if !matches!(python, Ok(ref out) if out.status.success()) {
        unavailable(
            test,
            var,
            flag,
            "python3 (which runs the mock Messages API) does not start",
        );
    }
    Client { bin }
}

/// Start the client as `cmd` says and wait for it, at most [`TURN_TIMEOUT`]
/// (then kill it and fail, naming `what` it was asked).
fn run_within_timeout(mut cmd: Command, what: &str) -> std::process::ExitStatus {
    let started = Instant::now();
    let mut child = cmd.spawn().expect("start claude");
    loop {
        if let Some(status) = child.try_wait().expect("wait for claude") {
            return status;
        }
        if started.elapsed() > TURN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("claude {what} did not finish within {TURN_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The loopback Messages API stand-in, one per turn; killed on drop.
pub struct Mock {
    child: Child,
    pub port: u16,
}

impl Mock {
    /// `tools`: a file of scripted tool calls for the mock to play (see
    /// mock_messages.py), or none for a plain "Done." reply.
    pub fn start(log: &Path, tools: Option<&Path>) -> Mock {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mock_messages.py");
        let mut child = match Command::new("python3")
            .arg(&script)
            .arg(log)
            .args(tools)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => panic!("cannot start python3 {}: {e}", script.display()),
        };
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().expect("piped stdout"))
            .read_line(&mut first)
            .expect("read the mock's port line");
        let port = first
            .strip_prefix("PORT ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the mock did not announce its port: {first:?}"));
        Mock { child, port }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temp HOME (with `.claude/`) and a project folder for one scenario.
pub struct Sandbox {
    root: TempDir,
    client: Client,
    turns: usize,
    /// Where turns and gk run: the project folder unless set otherwise.
    cwd: Option<PathBuf>,
    /// Variables added to every run's isolated environment.
    env: Vec<(String, String)>,
    /// What the client sees at the managed-policy folder, when not the
    /// machine's own.
    managed: Option<ManagedView>,
}

/// A managed-policy folder of the test's own, shown to the client at
/// [`MANAGED_DIR`] in a private mount namespace (root only; nothing in
/// /etc is written).
enum ManagedView {
    /// An empty folder bound over the machine's /etc/claude-code.
    Empty(PathBuf),
    /// `<upper>/claude-code`, the test's policy: bound over the machine's
    /// folder where there is one, else /etc is shown through an overlay
    /// whose upper layer (`upper`, with `work` for the overlay's own use)
    /// adds that folder.
    Policy { upper: PathBuf, work: PathBuf },
}

/// The managed-policy folder the Linux client reads.
const MANAGED_DIR: &str = "/etc/claude-code";

impl Sandbox {
    pub fn new(client: Client) -> Sandbox {
        let root = TempDir::new().expect("temp dir");
        fs::create_dir_all(root.path().join("home/.claude")).expect("create home");
        fs::create_dir_all(root.path().join("project")).expect("create project");
        Sandbox {
            root,
            client,
            turns: 0,
            cwd: None,
            env: Vec::new(),
            managed: None,
        }
    }

    /// Run the client as if this machine had no managed policy: where
    /// /etc/claude-code exists (an administrator's, or another test's),
    /// every client run starts in a private mount namespace that shows an
    /// empty folder there (root only; nothing in /etc is written). Where
    /// it does not exist the client reads none, and runs as it is.
    pub fn without_managed_policy(&mut self) {
        if Path::new(MANAGED_DIR).is_dir() {
            let empty = self.root.path().join("no-managed-policy");
            fs::create_dir_all(&empty).expect("create the empty policy folder");
            self.managed = Some(ManagedView::Empty(empty));
        }
    }

    /// Run the client as if this machine's managed-policy folder
    /// (/etc/claude-code) were the folder returned, which the test fills
    /// (`managed-settings.json`, `managed-settings.d/`): every client run
    /// starts in a private mount namespace that shows it there (root only;
    /// nothing in /etc is written, with or without a folder there).
    pub fn with_managed_policy(&mut self) -> PathBuf {
        let upper = self.root.path().join("managed-upper");
        let work = self.root.path().join("managed-work");
        let policy = upper.join("claude-code");
        fs::create_dir_all(&policy).expect("create the policy folder");
        fs::create_dir_all(&work).expect("create the overlay's work folder");
        self.managed = Some(ManagedView::Policy { upper, work });
        policy
    }

    /// A command starting the client (see [`Sandbox::without_managed_policy`]
    /// and [`Sandbox::with_managed_policy`]).
    fn client_command(&self) -> Command {
        let (script, folders) = match &self.managed {
            None => return Command::new(&self.client.bin),
            Some(ManagedView::Empty(empty)) => (
                format!("mount --bind \"$1\" {MANAGED_DIR}"),
                vec![empty.clone(), empty.clone()],
            ),
            Some(ManagedView::Policy { upper, work }) => (
                format!(
                    "if [ -d {MANAGED_DIR} ]; then mount --bind \"$1/claude-code\" {MANAGED_DIR}; \
                     else mount -t overlay overlay -o \"lowerdir=/etc,upperdir=$1,workdir=$2\" /etc; fi"
                ),
                vec![upper.clone(), work.clone()],
            ),
        };
        let mut cmd = Command::new("unshare");
        cmd.args(["--mount", "--propagation", "private", "--", "sh", "-c"])
            .arg(format!(
                "{{ {script}; }} || {{ echo 'cannot show a test policy at {MANAGED_DIR} (needs root)' >&2; exit 97; }}; shift 2; exec \"$@\""
            ))
            .arg("sh")
            .args(folders)
            .arg(&self.client.bin);
        cmd
    }

    /// Run the client with `args` (no mock, no turn: `plugin install …`,
    /// say) in the isolated environment; fails unless it exits 0.
    pub fn claude_ok(&self, args: &[&str]) -> Output {
        let out_path = self.root.path().join("claude.stdout");
        let err_path = self.root.path().join("claude.stderr");
        let mut cmd = self.client_command();
        cmd.args(args);
        self.isolate(&mut cmd);
        cmd.env("ANTHROPIC_API_KEY", "sk-e2e-not-a-real-key")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdout(fs::File::create(&out_path).expect("stdout file"))
            .stderr(fs::File::create(&err_path).expect("stderr file"));
        let status = run_within_timeout(cmd, &args.join(" "));
        let out = Output {
            status,
            stdout: fs::read(&out_path).unwrap_or_default(),
            stderr: fs::read(&err_path).unwrap_or_default(),
        };
        succeeded(&format!("claude {}", args.join(" ")), out)
    }

    /// Give the following turns and gk commands `key=value`.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.push((key.into(), value.into()));
    }

    /// Put the client on the `PATH` of the following gk commands and turns,
    /// as `claude` (a link to it), as a user's shell has it: what `gk
    /// install` asks for its version.
    pub fn client_on_path(&mut self) {
        let client = self.client.clone();
        self.put_on_path(&client);
    }

    /// Put `client` first on the `PATH` of the following gk commands and
    /// turns, in place of any put there before (as
    /// [`Sandbox::client_on_path`]).
    pub fn put_on_path(&mut self, client: &Client) {
        let dir = self
            .root
            .path()
            .join(format!("client-bin-{}", self.env.len()));
        fs::create_dir_all(&dir).expect("client-bin");
        let link = dir.join(if cfg!(windows) {
            "claude.exe"
        } else {
            "claude"
        });
        if !link.exists() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(&client.bin, &link).expect("link the client");
            #[cfg(not(unix))]
            fs::copy(&client.bin, &link).expect("copy the client");
        }
        let sep = if cfg!(windows) { ';' } else { ':' };
        let path = format!(
            "{}{sep}{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        self.set_env("PATH", &path);
    }

    /// Run the following turns and gk commands in `dir` (the home folder,
    /// say) instead of the project folder.
    pub fn work_in(&mut self, dir: PathBuf) {
        self.cwd = Some(dir);
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.home().join(".claude")
    }

    pub fn project(&self) -> PathBuf {
        self.root.path().join("project")
    }

    pub fn user_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn project_settings(&self) -> PathBuf {
        self.project().join(".claude/settings.json")
    }

    pub fn state_file(&self) -> PathBuf {
        self.claude_dir().join("hooks/task_state.json")
    }

    /// An isolated environment: nothing from the caller's environment but
    /// PATH (and TMPDIR), so no real credentials, CLAUDE_CONFIG_DIR or
    /// proxy settings leak into a scenario.
    fn isolate(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("USERPROFILE", self.home())
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .current_dir(self.cwd.clone().unwrap_or_else(|| self.project()))
            .stdin(Stdio::null());
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    /// Run the gk binary cargo built, as the user would in the project folder.
    pub fn gk(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gk"));
        cmd.args(args);
        self.isolate(&mut cmd);
        cmd.output().expect("run gk")
    }

    /// Run gk and require exit 0, showing its output otherwise.
    pub fn gk_ok(&self, args: &[&str]) -> Output {
        succeeded(&format!("gk {}", args.join(" ")), self.gk(args))
    }

    /// `gk doctor --json --project <project>`: the exit code and the finding codes.
    pub fn doctor_codes(&self) -> (Option<i32>, Vec<String>) {
        let project = self.project();
        let out = self.gk(&[
            "doctor",
            "--json",
            "--project",
            project.to_str().expect("utf-8 temp path"),
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!(
                "gk doctor --json did not print JSON ({e}; exit {}):\nstdout:\n{stdout}\nstderr:\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
        let findings = report["findings"]
            .as_array()
            .unwrap_or_else(|| panic!("gk doctor --json has no findings array: {report}"));
        let codes = findings
            .iter()
            .map(|f| {
                f["code"]
                    .as_str()
                    .unwrap_or_else(|| panic!("finding without a code: {f}"))
                    .to_string()
            })
            .collect();
        (out.status.code(), codes)
    }

    pub fn write(&self, path: &Path, text: &str) {
        fs::create_dir_all(path.parent().expect("a file inside a folder")).expect("mkdir");
        fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    pub fn read(&self, path: &Path) -> String {
        fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// One `claude -p` turn in the project folder, against a fresh mock.
    pub fn turn(&mut self, prompt: &str) -> Turn {
        let project = self.project();
        self.turn_with(prompt, &project, None)
    }

    /// One `claude -p` turn in the project folder with the client's plain
    /// text output, for what it prints on stderr: which settings files "did
    /// not load" and which entries "were skipped" (the stream-json output
    /// prints neither). Returns that stderr; fails unless the client exits 0.
    pub fn text_turn_stderr(&mut self, prompt: &str) -> String {
        self.turns += 1;
        let dir = self.root.path().join(format!("turn-{}", self.turns));
        fs::create_dir_all(&dir).expect("turn dir");
        let requests_log = dir.join("requests.jsonl");
        let stderr_path = dir.join("stderr.txt");
        fs::write(&requests_log, "").expect("create request log");
        let mock = Mock::start(&requests_log, None);
        let mut cmd = self.client_command();
        cmd.args(["-p", prompt, "--output-format", "text"]);
        self.isolate(&mut cmd);
        cmd.env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", mock.port),
        )
        .env("ANTHROPIC_API_KEY", "sk-e2e-not-a-real-key")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdout(Stdio::null())
        .stderr(fs::File::create(&stderr_path).expect("stderr file"));
        let status = run_within_timeout(cmd, &format!("-p {prompt:?}"));
        drop(mock);
        let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
        assert!(
            status.success(),
            "claude -p {prompt:?} exited {status}; stderr:\n{stderr}"
        );
        stderr
    }

    /// One `claude -p` turn started in `project`, whose model plays the
    /// tool calls in `tools` (a JSON list, see mock_messages.py) when given.
    pub fn turn_with(&mut self, prompt: &str, project: &Path, tools: Option<&Value>) -> Turn {
        self.turn_with_args(prompt, project, tools, &[])
    }

    /// As [`Sandbox::turn_with`], with more arguments for the client
    /// (`--resume <id> --fork-session`, say).
    pub fn turn_with_args(
        &mut self,
        prompt: &str,
        project: &Path,
        tools: Option<&Value>,
        args: &[&str],
    ) -> Turn {
        self.turns += 1;
        let dir = self.root.path().join(format!("turn-{}", self.turns));
        fs::create_dir_all(&dir).expect("turn dir");
        let requests_log = dir.join("requests.jsonl");
        let debug_log = dir.join("debug.log");
        let stdout_path = dir.join("stdout.jsonl");
        let stderr_path = dir.join("stderr.txt");
        fs::write(&requests_log, "").expect("create request log");
        let tools_file = tools.map(|t| {
            let path = dir.join("tools.json");
            fs::write(&path, t.to_string()).expect("write the mock's tool script");
            path
        });

        let mock = Mock::start(&requests_log, tools_file.as_deref());
        let mut cmd = self.client_command();
        cmd.args(args)
            .args(["-p", prompt])
            .args(["--output-format", "stream-json", "--verbose"])
            .arg("--include-hook-events")
            .arg("--debug-file")
            .arg(&debug_log);
        self.isolate(&mut cmd);
        fs::create_dir_all(project).expect("create the project folder");
        cmd.current_dir(project);
        cmd.env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", mock.port),
        )
        .env("ANTHROPIC_API_KEY", "sk-e2e-not-a-real-key")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .stdout(fs::File::create(&stdout_path).expect("stdout file"))
        .stderr(fs::File::create(&stderr_path).expect("stderr file"));

        let started = Instant::now();
        let mut child = cmd.spawn().expect("start claude");
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for claude") {
                break status;
            }
            if started.elapsed() > TURN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "claude -p {prompt:?} did not finish within {TURN_TIMEOUT:?}; stderr:\n{}",
                    fs::read_to_string(&stderr_path).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let wall = started.elapsed();
        drop(mock);

        let stdout = fs::read_to_string(&stdout_path).expect("read client stdout");
        let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
        assert!(
            status.success(),
            "claude -p {prompt:?} exited {status}; stderr:\n{stderr}\nstdout:\n{stdout}"
        );
        Turn::read(prompt, &stdout, &requests_log, &debug_log, wall)
    }
}

impl Turn {
    /// A finished turn from what the client printed (`stdout`), the mock's
    /// request log and the client's debug log.
    pub fn read(
        prompt: &str,
        stdout: &str,
        requests_log: &Path,
        debug_log: &Path,
        wall: Duration,
    ) -> Turn {
        let events = stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("client printed a non-JSON line ({e}): {l}"))
            })
            .collect();
        let requests = fs::read_to_string(requests_log)
            .expect("read request log")
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).expect("request log line is JSON"))
            .filter(|r| {
                let path = r["path"].as_str().unwrap_or("");
                path.contains("/messages") && !path.contains("count_tokens")
            })
            .map(|r| r["body"].clone())
            .collect();
        Turn {
            prompt: prompt.to_string(),
            events,
            requests,
            debug: fs::read_to_string(debug_log).unwrap_or_default(),
            wall,
        }
    }
}

/// What one turn left behind.
pub struct Turn {
    pub prompt: String,
    /// Every stream-json line the client printed.
    pub events: Vec<Value>,
    /// The body of every Messages API request the client sent.
    pub requests: Vec<Value>,
    /// The client's `--debug-file` log.
    pub debug: String,
    pub wall: Duration,
}

/// One hook run as the client's debug log reports it.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub event: String,
    #[allow(dead_code)] // read by scripts/bench-in-situ.rs
    pub command: String,
    pub status: i32,
    pub millis: u64,
}

fn collect_strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

impl Turn {
    /// Every gatekeeper context that reached the model, in request order:
    /// from the marker (or the record sentence right before it) to the end
    /// of its paragraph.
    pub fn contexts(&self) -> Vec<String> {
        let mut found = Vec::new();
        for body in &self.requests {
            let mut strings = Vec::new();
            collect_strings(body, &mut strings);
            for s in strings {
                for (at, _) in s.match_indices(CONTEXT_MARKER) {
                    let start = s[..at]
                        .rfind(RECORD_MARKER)
                        .filter(|&b| !s[b..at].contains('\n'))
                        .unwrap_or(at);
                    let rest = &s[start..];
                    let end = rest.find("\n\n").unwrap_or(rest.len());
                    found.push(rest[..end].to_string());
                }
            }
        }
        found
    }

    /// The gatekeeper context of a turn in which the model called tools:
    /// every later request repeats the conversation, so only the first
    /// request is looked at; fails unless it holds exactly one.
    pub fn first_request_context(&self) -> String {
        let first = Turn {
            prompt: self.prompt.clone(),
            events: Vec::new(),
            requests: self.requests.iter().take(1).cloned().collect(),
            debug: String::new(),
            wall: self.wall,
        };
        assert!(
            self.requests.len() > 1,
            "turn {:?}: the model called no tool (one request)",
            self.prompt
        );
        first.single_context()
    }

    /// The one gatekeeper context of this turn; fails unless there is exactly one.
    pub fn single_context(&self) -> String {
        let contexts = self.contexts();
        assert_eq!(
            contexts.len(),
            1,
            "turn {:?}: expected the gatekeeper context once in the model's input, got {}:\n{contexts:#?}\n{}",
            self.prompt,
            contexts.len(),
            self.describe_hooks()
        );
        contexts.into_iter().next().expect("one context")
    }

    /// The session check printed nothing and gave Claude the Task State
    /// Convention as its one SessionStart context (what gk's plugin does
    /// where CLAUDE.md has no convention): that context.
    pub fn convention_given_silently(&self) -> String {
        assert_eq!(
            self.system_messages("SessionStart"),
            Vec::<String>::new(),
            "{}",
            self.describe_hooks()
        );
        let contexts = self.hook_contexts("SessionStart");
        assert_eq!(contexts.len(), 1, "{}", self.describe_hooks());
        assert!(
            contexts[0].starts_with("## Task State Convention (gk hooks)"),
            "{}",
            contexts[0]
        );
        contexts[0].clone()
    }

    /// Every run of the session check warned, naming plugin `id` and
    /// pointing at `gk doctor`.
    pub fn assert_session_warned_of_plugin(&self, id: &str) {
        let warned = self.system_messages("SessionStart");
        assert!(
            !warned.is_empty()
                && warned
                    .iter()
                    .all(|m| m.contains(id) && m.contains("gk doctor")),
            "{warned:?}"
        );
    }

    /// Each of gk's three hook events ran `times` times in this turn, every
    /// run with exit code 0.
    pub fn assert_gk_hooks_ran(&self, times: usize) {
        for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
            let runs = self.hook_responses(event);
            assert_eq!(runs.len(), times, "{event}: {}", self.describe_hooks());
            for run in runs {
                assert_eq!(run["exit_code"], 0, "{event}: {run}");
            }
        }
    }

    /// How many of this turn's hook runs the client's debug log tags as
    /// coming from plugin `id` and ending with status 0.
    pub fn plugin_runs(&self, id: &str) -> usize {
        self.debug
            .matches(&format!("(plugin {id}) finished with status 0"))
            .count()
    }

    /// `hook_response` events for one hook event name (e.g. "Stop").
    pub fn hook_responses(&self, event: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["type"] == "system" && e["subtype"] == "hook_response")
            .filter(|e| e["hook_event"] == event)
            .collect()
    }

    /// The `systemMessage` of every run of one hook event, from its stdout.
    /// (In `-p` mode the client shows a Stop hook's message as a notice, a
    /// SessionStart hook's only here, in its `hook_response`: measured.)
    pub fn system_messages(&self, event: &str) -> Vec<String> {
        self.hook_responses(event)
            .into_iter()
            .filter_map(|e| {
                let stdout = e["stdout"].as_str()?;
                let parsed: Value = serde_json::from_str(stdout.trim()).ok()?;
                parsed["systemMessage"].as_str().map(str::to_string)
            })
            .collect()
    }

    /// The `additionalContext` of every run of one hook event, from its stdout.
    pub fn hook_contexts(&self, event: &str) -> Vec<String> {
        self.hook_responses(event)
            .into_iter()
            .filter_map(|e| {
                let stdout = e["stdout"].as_str()?;
                let parsed: Value = serde_json::from_str(stdout.trim()).ok()?;
                parsed["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .map(str::to_string)
            })
            .collect()
    }

    /// Whether `text` reached the model: some request body holds it.
    pub fn model_saw(&self, text: &str) -> bool {
        self.requests.iter().any(|body| {
            let mut strings = Vec::new();
            collect_strings(body, &mut strings);
            strings.iter().any(|s| s.contains(text))
        })
    }

    /// What the client shows the user from hooks (`informational` events).
    pub fn notices(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["type"] == "system" && e["subtype"] == "informational")
            .filter_map(|e| e["content"].as_str().map(str::to_string))
            .collect()
    }

    /// The closing `result` event.
    pub fn result(&self) -> &Value {
        self.events
            .iter()
            .rev()
            .find(|e| e["type"] == "result")
            .unwrap_or_else(|| panic!("turn {:?} has no result event", self.prompt))
    }

    /// Require that the turn completed normally with the mock's reply.
    pub fn assert_completed(&self) {
        let result = self.result();
        assert_eq!(result["subtype"], "success", "result: {result}");
        assert_eq!(result["is_error"], false, "result: {result}");
        assert_eq!(result["result"], "Done.", "result: {result}");
    }

    /// The session id the client gave this turn (its `init` event).
    pub fn session_id(&self) -> String {
        self.events
            .iter()
            .find(|e| e["type"] == "system" && e["subtype"] == "init")
            .and_then(|e| e["session_id"].as_str())
            .unwrap_or_else(|| panic!("turn {:?} has no init event with a session id", self.prompt))
            .to_string()
    }

    /// `(tool, file_path)` of every tool call the client refused (the
    /// result event's `permission_denials`).
    pub fn permission_denials(&self) -> Vec<(String, String)> {
        let result = self.result();
        let denials = result["permission_denials"]
            .as_array()
            .unwrap_or_else(|| panic!("no permission_denials in the result: {result}"));
        denials
            .iter()
            .map(|d| {
                (
                    d["tool_name"].as_str().unwrap_or("").to_string(),
                    d["tool_input"]["file_path"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                )
            })
            .collect()
    }

    /// What each tool call's result said, in order (from the `user` events).
    pub fn tool_results(&self) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["type"] == "user")
            .flat_map(|e| {
                e["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|c| c["type"] == "tool_result")
            .map(|c| match &c["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }

    /// Milliseconds from start to the first API request, as the client reports it.
    #[allow(dead_code)] // read by scripts/bench-in-situ.rs
    pub fn time_to_request_ms(&self) -> Option<u64> {
        self.result()["time_to_request_ms"].as_u64()
    }

    /// Hook runs from the debug log: `Hooks: <Event> [<command>] finished
    /// with status <n> (<ms>ms)`; SessionStart is logged with its source
    /// (`SessionStart:startup`), which is dropped here.
    pub fn hook_runs(&self) -> Vec<HookRun> {
        let line = regex::Regex::new(
            r"Hooks: (\w+)(?::\w+)? \[(.*)\] finished with status (-?\d+) \((\d+)ms\)",
        )
        .expect("valid regex");
        line.captures_iter(&self.debug)
            .map(|c| HookRun {
                event: c[1].to_string(),
                command: c[2].to_string(),
                status: c[3].parse().expect("status"),
                millis: c[4].parse().expect("millis"),
            })
            .collect()
    }

    /// A short account of the hooks in this turn, for assertion messages.
    pub fn describe_hooks(&self) -> String {
        let mut text = String::from("hook runs (debug log):\n");
        for run in self.hook_runs() {
            text += &format!("  {run:?}\n");
        }
        text += "hook responses (stream-json):\n";
        for e in self
            .events
            .iter()
            .filter(|e| e["subtype"] == "hook_response")
        {
            text += &format!(
                "  {} exit {} stdout {} stderr {}\n",
                e["hook_event"], e["exit_code"], e["stdout"], e["stderr"]
            );
        }
        text
    }
}

/// The client's interactive TUI in a tmux session of its own (its own
/// server, its socket in the sandbox; 160×45), against a mock that lives as long as it does:
/// onboarding and the project's trust dialog pre-accepted in
/// `<HOME>/.claude.json`, the "custom API key" question answered. What a
/// user would see is read with `capture-pane` (wrapped lines joined, the
/// scrollback included). The server is killed on drop.
pub struct Tui {
    socket: String,
    _mock: Mock,
    /// The mock's log of the requests it got (one JSON line each).
    requests: PathBuf,
}

/// Longest wait for the screen to show something.
const SCREEN_TIMEOUT: Duration = Duration::from_secs(90);

impl Tui {
    /// Start `claude` in `project`; `tools`: the mock's script (a dict of
    /// call lists keyed by prompt text, see mock_messages.py).
    pub fn start(sb: &mut Sandbox, project: &Path, tools: &Value) -> Tui {
        Tui::start_until(sb, project, tools, |screen| {
            screen.contains('\u{276f}') && screen.lines().any(|l| l.trim_start().starts_with("gk "))
        })
    }

    /// As [`Tui::start`], ready when `ready` holds for the screen (where
    /// no gk status line can show).
    pub fn start_until(
        sb: &mut Sandbox,
        project: &Path,
        tools: &Value,
        ready: impl Fn(&str) -> bool,
    ) -> Tui {
        sb.turns += 1;
        let dir = sb.root.path().join(format!("tui-{}", sb.turns));
        fs::create_dir_all(&dir).expect("tui dir");
        fs::create_dir_all(project).expect("create the project folder");
        let key = "sk-e2e-not-a-real-key";
        let state = serde_json::json!({
            "hasCompletedOnboarding": true,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [key, &key[key.len() - 20..]], "rejected": []},
            "projects": {project.to_string_lossy(): {"hasTrustDialogAccepted": true}},
        });
        fs::write(sb.home().join(".claude.json"), state.to_string()).expect("write .claude.json");
        let tools_file = dir.join("tools.json");
        fs::write(&tools_file, tools.to_string()).expect("write the mock's tool script");
        let mock = Mock::start(&dir.join("requests.jsonl"), Some(&tools_file));
        // The server's socket lives in the sandbox, and goes with it.
        let socket = dir.join("tmux.sock").to_string_lossy().into_owned();
        let mut env: Vec<String> = vec![
            format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
            format!("HOME={}", sb.home().display()),
            format!("USERPROFILE={}", sb.home().display()),
            "TERM=xterm-256color".into(),
            "LANG=C.UTF-8".into(),
            format!("ANTHROPIC_BASE_URL=http://127.0.0.1:{}", mock.port),
            format!("ANTHROPIC_API_KEY={key}"),
            "DISABLE_AUTOUPDATER=1".into(),
            "DISABLE_TELEMETRY=1".into(),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1".into(),
        ];
        env.extend(sb.env.iter().map(|(k, v)| format!("{k}={v}")));
        // The client as every run starts it: in its own mount namespace
        // when the test shows it a managed policy folder.
        let client = sb.client_command();
        let status = Command::new("tmux")
            .args(["-S", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", "160", "-y", "45", "-c"])
            .arg(project)
            .arg("env")
            .arg("-i")
            .args(&env)
            .arg(client.get_program())
            .args(client.get_args())
            .stdin(Stdio::null())
            .status()
            .expect("start tmux (apt-get install tmux)");
        assert!(status.success(), "tmux new-session failed: {status}");
        let tui = Tui {
            socket,
            _mock: mock,
            requests: dir.join("requests.jsonl"),
        };
        // The API key question (unless the answer above was taken), then
        // the prompt with the status line under it.
        let started = Instant::now();
        loop {
            let screen = tui.screen();
            if screen.contains("Detected a custom API key") {
                tui.keys(&["Up"]);
                std::thread::sleep(Duration::from_millis(300));
                tui.keys(&["Enter"]);
            } else if ready(&screen) {
                break;
            }
            assert!(
                started.elapsed() < SCREEN_TIMEOUT,
                "the client did not get to its prompt; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        tui
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run tmux")
    }

    /// Press keys (tmux names: `Enter`, `Escape`, `Down`, …).
    pub fn press(&self, keys: &[&str]) {
        self.keys(keys);
    }

    /// Every request the mock got so far, as its log holds them.
    pub fn requests(&self) -> String {
        fs::read_to_string(&self.requests).unwrap_or_default()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// What the terminal shows, scrollback included, wrapped lines joined.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(
            &self
                .tmux(&["capture-pane", "-p", "-J", "-S", "-400", "-t", "0"])
                .stdout,
        )
        .into_owned()
    }

    /// Type `text` at the prompt and press Enter, once the prompt (the
    /// last line that starts with `❯`) shows it.
    pub fn send(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "0", "-l", text]);
        self.wait_until(&format!("{text:?} at the prompt"), |screen| {
            screen
                .lines()
                .rev()
                .find(|l| l.trim_start().starts_with('\u{276f}'))
                .is_some_and(|l| l.contains(text))
        });
        self.keys(&["Enter"]);
    }

    /// Paste `text` at the prompt as a terminal pastes it (bracketed), and
    /// wait until the prompt shows `shown`.
    pub fn paste(&self, text: &str, shown: &str) {
        let mut load = Command::new("tmux")
            .args(["-S", &self.socket, "load-buffer", "-b", "gk", "-"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("run tmux");
        load.stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        assert!(load.wait().unwrap().success(), "tmux load-buffer failed");
        self.tmux(&["paste-buffer", "-p", "-b", "gk", "-t", "0"]);
        self.wait_until(&format!("{shown:?} at the prompt"), |s| s.contains(shown));
    }

    /// Wait until `ready` holds for the screen; the screen then.
    pub fn wait_until(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            assert!(
                started.elapsed() < SCREEN_TIMEOUT,
                "the screen never showed {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}
