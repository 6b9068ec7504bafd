//! Windows programs under Wine for tests/e2e_windows.rs: the release gk.exe
//! (scripts/windows-cross-test.sh build), the pinned client's Windows build
//! (scripts/install-claude-client.sh --windows) and the Wine prefix with the
//! bcryptprimitives.dll stand-in (scripts/windows-cross-test.sh prefix).
//!
//! Every Windows program is started through a batch file run by
//! `wine cmd /c`: Wine replaces USERPROFILE when a Windows program starts
//! from Linux, so the batch file sets it (to the scenario's profile) before
//! anything runs, as a user's own environment would be. The sandbox lives
//! inside the prefix's C: drive, so every path the programs see is a plain
//! `C:\…` path. The rest of the environment (the mock's address, the dummy
//! key) reaches the Windows programs from Linux as Wine passes it on.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::harness::{Mock, Turn};

/// Longest one Windows program run may take (a turn under Wine takes ~10 s).
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// What the Windows scenarios need; `None` (after printing why) when a piece
/// is missing outside CI. Under CI a missing piece fails the test.
pub struct WinTools {
    pub prefix: PathBuf,
    pub gk_exe: PathBuf,
    pub claude: Option<PathBuf>,
}

fn var_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The Wine prefix: `WINEPREFIX`, else `target/windows/wineprefix`.
fn prefix() -> PathBuf {
    var_path("WINEPREFIX")
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/windows/wineprefix"))
}

/// The stand-in Wine 8 lacks, which every Windows program here needs.
fn stand_in(prefix: &Path) -> PathBuf {
    prefix.join("drive_c/windows/system32/bcryptprimitives.dll")
}

/// Why the Windows end-to-end tests cannot run here, outside CI: the Wine
/// prefix with the `bcryptprimitives.dll` stand-in, `GK_E2E_GK_EXE`,
/// `GK_E2E_CLAUDE_WIN` or `GK_E2E_WINDOWS_ARCHIVE` is missing. `None` when
/// all are there, and always under CI, where a missing one fails them.
pub fn tools_missing() -> Option<String> {
    if crate::harness::in_ci() {
        return None;
    }
    let mut missing = Vec::new();
    if !stand_in(&prefix()).is_file() {
        missing.push("the Wine prefix".to_string());
    }
    for name in [
        "GK_E2E_GK_EXE",
        "GK_E2E_CLAUDE_WIN",
        "GK_E2E_WINDOWS_ARCHIVE",
    ] {
        if !var_path(name).is_some_and(|p| p.is_file()) {
            missing.push(name.to_string());
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "missing: {} (docs/maintainers/testing.md, Windows under Wine)",
        missing.join(", ")
    ))
}

/// What a Windows end-to-end test needs. [`tools_missing`] already has the
/// tests reported ignored when any of it is missing (outside CI), so a
/// test that gets here was meant to run: it fails, saying why.
pub fn tools(test: &str, need_client: bool) -> WinTools {
    let unavailable = |reason: String| -> WinTools {
        panic!(
            "{test}: the Windows end-to-end tests cannot run: {reason} \
             (see docs/maintainers/testing.md, \"Windows under Wine\")"
        )
    };
    let prefix = prefix();
    if !stand_in(&prefix).is_file() {
        return unavailable(format!(
            "no Wine prefix with the bcryptprimitives.dll stand-in at {} \
             (scripts/windows-cross-test.sh prefix)",
            prefix.display()
        ));
    }
    let Some(gk_exe) = var_path("GK_E2E_GK_EXE").filter(|p| p.is_file()) else {
        return unavailable(
            "GK_E2E_GK_EXE does not name a gk.exe (scripts/windows-cross-test.sh build)".into(),
        );
    };
    let claude = var_path("GK_E2E_CLAUDE_WIN").filter(|p| p.is_file());
    if need_client && claude.is_none() {
        return unavailable(
            "GK_E2E_CLAUDE_WIN does not name claude.exe \
             (scripts/install-claude-client.sh --windows)"
                .into(),
        );
    }
    WinTools {
        prefix,
        gk_exe,
        claude,
    }
}

/// A scenario's folder on the prefix's C: drive: a profile (`home`), a
/// project folder, and a download folder holding the gk.exe under test.
pub struct WinSandbox {
    root: TempDir,
    pub tools: WinTools,
    turns: usize,
    /// Folders put before PATH in every batch file (Windows paths).
    path_first: Vec<String>,
}

impl WinSandbox {
    pub fn new(tools: WinTools) -> WinSandbox {
        let base = tools.prefix.join("drive_c/gk-e2e");
        fs::create_dir_all(&base).expect("create the sandbox base on C:");
        let root = tempfile::Builder::new()
            .prefix("s")
            .tempdir_in(&base)
            .expect("temp dir on C:");
        for dir in ["home", "project", "download"] {
            fs::create_dir_all(root.path().join(dir)).expect("create sandbox folder");
        }
        fs::copy(&tools.gk_exe, root.path().join("download/gk.exe")).expect("copy gk.exe");
        WinSandbox {
            root,
            tools,
            turns: 0,
            path_first: Vec::new(),
        }
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// Put `dir` (inside the prefix) first on PATH for every program run
    /// from now on, as an installer (winget, scoop) puts its folder there.
    pub fn put_on_path(&mut self, dir: &Path) {
        let dir = self.win(dir);
        self.path_first.push(dir);
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.home().join(".claude")
    }

    pub fn user_settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    /// The gk.exe a user downloaded (not the installed copy).
    pub fn downloaded_gk(&self) -> PathBuf {
        self.root().join("download/gk.exe")
    }

    /// `path` (inside the prefix's C: drive) as Windows programs see it.
    pub fn win(&self, path: &Path) -> String {
        let drive_c = self.tools.prefix.join("drive_c");
        let rel = path
            .strip_prefix(&drive_c)
            .unwrap_or_else(|_| panic!("{} is not on the prefix's C: drive", path.display()));
        let mut out = String::from("C:");
        for part in rel.components() {
            out.push('\\');
            out.push_str(&part.as_os_str().to_string_lossy());
        }
        out
    }

    /// Run `lines` in a batch file with USERPROFILE set to the sandbox
    /// profile and the project as the current folder; `stdin` is fed to it.
    /// Every batch file runs one program. Run it once more, saying so on
    /// stderr, when Wine could not start or keep that program: "wine client
    /// error:" (the wineserver connection was lost) or cmd's "ShellExecuteEx
    /// failed: Internal error" (the new process died in its start-up), Wine
    /// faults no Windows program prints, each seen once here
    /// (docs/maintainers/testing.md, "Wine's own faults"). A second such
    /// failure stands.
    pub fn batch(
        &self,
        name: &str,
        lines: &[String],
        stdin: &[u8],
        env: &[(&str, String)],
    ) -> Output {
        let out = self.batch_once(name, lines, stdin, env);
        let said = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        // Wine's cmd prints "Can't recognize '…'" both when the program is
        // missing and when starting it fails; a program that is really
        // missing fails the second run the same way.
        let wine_fault = [
            "wine client error:",
            "ShellExecuteEx failed: Internal error",
            "Can't recognize '",
        ]
        .iter()
        .any(|sign| said.contains(sign));
        if out.status.success() || !wine_fault {
            return out;
        }
        eprintln!(
            "{name}.bat: Wine could not start or keep its program ({}); running it once more",
            out.status
        );
        self.batch_once(name, lines, stdin, env)
    }

    fn batch_once(
        &self,
        name: &str,
        lines: &[String],
        stdin: &[u8],
        env: &[(&str, String)],
    ) -> Output {
        let bat = self.root().join(format!("{name}.bat"));
        let mut text = String::from("@echo off\r\n");
        text += &format!("set USERPROFILE={}\r\n", self.win(&self.home()));
        text += &format!("cd /d {}\r\n", self.win(&self.project()));
        for dir in &self.path_first {
            text += &format!("set PATH={dir};%PATH%\r\n");
        }
        for line in lines {
            text += line;
            text += "\r\n";
        }
        text += "exit /b %ERRORLEVEL%\r\n";
        fs::write(&bat, text).expect("write batch file");
        let out_path = self.root().join(format!("{name}.stdout"));
        let err_path = self.root().join(format!("{name}.stderr"));
        let mut cmd = Command::new("wine");
        cmd.arg("cmd").arg("/c").arg(self.win(&bat));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root())
            .env("WINEPREFIX", &self.tools.prefix)
            .env("WINEDEBUG", "-all")
            .env("WINEDLLOVERRIDES", "mscoree,mshtml=")
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            // Files, not pipes: a client's stream-json can outgrow a pipe
            // buffer while nothing reads it before the program ends.
            .stdout(fs::File::create(&out_path).expect("stdout file"))
            .stderr(fs::File::create(&err_path).expect("stderr file"));
        if let Some(tmp) = std::env::var_os("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start wine");
        {
            use std::io::Write;
            let mut input = child.stdin.take().expect("piped stdin");
            let _ = input.write_all(stdin);
        }
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for wine") {
                break status;
            }
            if started.elapsed() > RUN_TIMEOUT {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{name}.bat did not finish within {RUN_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: fs::read(&out_path).unwrap_or_default(),
            stderr: fs::read(&err_path).unwrap_or_default(),
        }
    }

    /// Run a gk.exe with arguments (no argument may need quoting).
    pub fn gk_at(&self, exe: &Path, args: &[&str], stdin: &[u8]) -> Output {
        let line = format!("\"{}\" {}", self.win(exe), args.join(" "));
        self.batch("gk", &[line], stdin, &[])
    }

    /// Run the downloaded gk.exe, as the user does.
    pub fn gk(&self, args: &[&str]) -> Output {
        self.gk_at(&self.downloaded_gk(), args, b"")
    }

    /// Run the downloaded gk.exe and require exit 0.
    pub fn gk_ok(&self, args: &[&str]) -> Output {
        crate::harness::succeeded(&format!("gk.exe {}", args.join(" ")), self.gk(args))
    }

    /// claude.exe with arguments (a command of its own, such as `plugin
    /// install`; no argument may need quoting), required to exit 0.
    pub fn claude_ok(&self, args: &[&str]) -> Output {
        let claude = self.tools.claude.clone().expect("a client");
        let client = format!("Z:{}", claude.to_string_lossy().replace('/', "\\"));
        let line = format!("\"{client}\" {}", args.join(" "));
        let out = self.batch(
            "claude",
            &[line],
            b"",
            &[
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ],
        );
        crate::harness::succeeded(&format!("claude.exe {}", args.join(" ")), out)
    }

    /// One `claude.exe -p` turn in the project folder, against a fresh mock.
    pub fn turn(&mut self, prompt: &str) -> Turn {
        assert!(!prompt.contains(['"', '%', '&', '|', '<', '>', '^']));
        let claude = self.tools.claude.clone().expect("a client for turns");
        self.turns += 1;
        let dir = self.root().join(format!("turn-{}", self.turns));
        fs::create_dir_all(&dir).expect("turn dir");
        let requests_log = dir.join("requests.jsonl");
        let debug_log = dir.join("debug.log");
        fs::write(&requests_log, "").expect("create request log");
        // claude.exe is started from its own folder: the batch file names it
        // by its Linux path's Z: form, which Wine maps to the root folder.
        let client = format!("Z:{}", claude.to_string_lossy().replace('/', "\\"));
        let mock = Mock::start(&requests_log, None);
        let line = format!(
            "\"{client}\" -p \"{prompt}\" --output-format stream-json --verbose \
             --include-hook-events --debug-file {}",
            self.win(&debug_log)
        );
        let started = Instant::now();
        let out = self.batch(
            &format!("turn-{}", self.turns),
            &[line],
            b"",
            &[
                (
                    "ANTHROPIC_BASE_URL",
                    format!("http://127.0.0.1:{}", mock.port),
                ),
                ("ANTHROPIC_API_KEY", "sk-e2e-not-a-real-key".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
                ("DISABLE_TELEMETRY", "1".into()),
                ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ],
        );
        let wall = started.elapsed();
        drop(mock);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "claude.exe -p {prompt:?} exited {}; stderr:\n{}\nstdout:\n{stdout}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        Turn::read(prompt, &stdout, &requests_log, &debug_log, wall)
    }
}
