//! Where Claude Code keeps the files gk reads and writes, and where gk keeps
//! its own.
//!
//! `<claude dir>` is `$CLAUDE_CONFIG_DIR` when it is set and not empty, else
//! `~/.claude` (Claude Code replaces the whole folder when the variable is
//! set: settings, CLAUDE.md and hooks). Resolution is a pure function of the
//! two inputs so tests can drive it without touching the environment.
//!
//! gk's backups live in a per-user data folder outside `<claude dir>` and
//! outside every project ([`backup_dir`]): a project's `.claude/` is
//! committed, `<claude dir>` is read by Claude, and a backup of
//! settings.json holds the credentials in its `env`.
//!
//! The state folder holds one task record per session (see
//! [`state_dir`] and [`record_file_name`]). It lies outside `<claude dir>`
//! because Claude Code treats every file under `<claude dir>` as sensitive
//! and asks (or, in `-p` mode, refuses) before each write there, whatever
//! the allow rules say; outside it, the narrow rules of [`state_rules`] let
//! Claude write its record without a prompt (measured on 2.1.332, see
//! docs/maintainers/claude-code-facts.md). Claude may read and write that folder, so
//! nothing but task records may ever be put there.
//!
//! The home folder is the one Claude Code itself uses (Node's home folder):
//! `USERPROFILE` on Windows, `HOME` elsewhere, and only when that variable is
//! missing or empty the folder the system reports for the user. Asking the
//! system first would send gk to another profile than the client's whenever
//! the variable is set — and would make every test that points the variable
//! at a temp folder edit the real profile instead.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::platform::Os;

/// gk's own config file name, inside `<claude dir>/hooks/`.
pub const CONFIG_FILE_NAME: &str = "gk.json";
/// The task state file name, inside `<claude dir>/hooks/`.
pub const STATE_FILE_NAME: &str = "task_state.json";
/// Install's note of what uninstall must give back, inside `<claude dir>/hooks/`.
pub const INSTALL_RECORD_NAME: &str = "gk-install.json";

/// The home folder, as Claude Code resolves it on this machine (see the
/// module notes); `None` when there is none at all.
pub fn home_dir(env: &Env) -> Option<PathBuf> {
    resolve_home(Os::current(), &|name| env.var_os(name), &|| {
        env.system_home()
    })
}

/// Pure resolution of the home folder: the variable the client reads on
/// `os` (`USERPROFILE` on Windows, `HOME` elsewhere) when it is set and not
/// empty, else what `system` reports (the profile folder on Windows, the
/// password database elsewhere). On Windows `HOME` is not read: Git Bash
/// sets it, often to another spelling or folder, and the client ignores it.
pub fn resolve_home(
    os: Os,
    env: &dyn Fn(&str) -> Option<OsString>,
    system: &dyn Fn() -> Option<PathBuf>,
) -> Option<PathBuf> {
    let variable = if os.is_windows() {
        "USERPROFILE"
    } else {
        "HOME"
    };
    match env(variable) {
        Some(value) if !value.is_empty() => Some(PathBuf::from(value)),
        _ => system().filter(|p| !p.as_os_str().is_empty()),
    }
}

/// The environment variable that replaces the state folder (an absolute
/// path; tests use it).
pub const STATE_DIR_VAR: &str = "GK_STATE_DIR";

/// `base` joined with `parts`, with the platform's separator.
fn join_on(os: Os, base: &str, parts: &[&str]) -> PathBuf {
    let sep = if os.is_windows() { '\\' } else { '/' };
    let mut out = base.trim_end_matches(['/', '\\']).to_string();
    for part in parts {
        out.push(sep);
        out.push_str(part);
    }
    PathBuf::from(out)
}

/// gk's backup folder, a pure function of the platform, a variable lookup
/// and the home folder (`None` when none of them gives one):
///
/// - Linux, macOS: `$XDG_DATA_HOME/gk/backups`, else
///   `~/.local/share/gk/backups` (a relative `XDG_DATA_HOME` is ignored, as
///   the XDG spec says).
/// - Windows: `%LOCALAPPDATA%\gk\backups`, else
///   `%USERPROFILE%\AppData\Local\gk\backups` (local, not roaming: the
///   backups hold credentials and belong to this machine).
///
/// Never inside gk's task-state folder (`$XDG_STATE_HOME/gk`, which Claude
/// may read and write): should `XDG_STATE_HOME` be the data folder itself,
/// the backups go to `<data folder>/gk-backups` instead.
pub fn backup_dir(
    os: Os,
    var: &dyn Fn(&str) -> Option<OsString>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    let set = |name: &str| {
        var(name)
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| is_absolute_on(os, v))
    };
    let under_home = |parts: &[&str]| {
        home.map(|h| {
            join_on(os, &h.to_string_lossy(), parts)
                .to_string_lossy()
                .into_owned()
        })
    };
    if os.is_windows() {
        let base = set("LOCALAPPDATA").or_else(|| under_home(&["AppData", "Local"]))?;
        return Some(join_on(os, &base, &["gk", "backups"]));
    }
    let data = set("XDG_DATA_HOME").or_else(|| under_home(&[".local", "share"]))?;
    let trimmed = |s: &str| s.trim_end_matches('/').to_string();
    if set("XDG_STATE_HOME").is_some_and(|state| trimmed(&state) == trimmed(&data)) {
        return Some(join_on(os, &data, &["gk-backups"]));
    }
    Some(join_on(os, &data, &["gk", "backups"]))
}

/// [`backup_dir`] for this environment.
pub fn backup_dir_from_env(env: &Env) -> Option<PathBuf> {
    backup_dir(
        Os::current(),
        &|name| env.var_os(name),
        home_dir(env).as_deref(),
    )
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePaths {
    dir: PathBuf,
}

impl ClaudePaths {
    /// Resolve from the environment. `None` when neither
    /// `CLAUDE_CONFIG_DIR` nor a home folder can be found.
    pub fn from_env(env: &Env) -> Option<ClaudePaths> {
        Self::resolve(env.var_os("CLAUDE_CONFIG_DIR"), home_dir(env))
    }

    /// Pure resolution: `CLAUDE_CONFIG_DIR` (when non-empty) wins over `home/.claude`.
    pub fn resolve(
        claude_config_dir: Option<OsString>,
        home: Option<PathBuf>,
    ) -> Option<ClaudePaths> {
        match claude_config_dir {
            Some(dir) if !dir.is_empty() => Some(ClaudePaths {
                dir: PathBuf::from(dir),
            }),
            _ => home.map(|h| ClaudePaths {
                dir: h.join(".claude"),
            }),
        }
    }

    pub fn at(dir: impl Into<PathBuf>) -> ClaudePaths {
        ClaudePaths { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn settings(&self) -> PathBuf {
        self.dir.join("settings.json")
    }

    pub fn claude_md(&self) -> PathBuf {
        self.dir.join("CLAUDE.md")
    }

    pub fn hooks_dir(&self) -> PathBuf {
        self.dir.join("hooks")
    }

    pub fn state_file(&self) -> PathBuf {
        self.hooks_dir().join(STATE_FILE_NAME)
    }

    pub fn config_file(&self) -> PathBuf {
        self.hooks_dir().join(CONFIG_FILE_NAME)
    }

    /// Install's note of the settings containers it found empty and filled
    /// (`setup::record`), read and removed by uninstall.
    pub fn install_record(&self) -> PathBuf {
        self.hooks_dir().join(INSTALL_RECORD_NAME)
    }

    /// Where install puts the gk binary.
    pub fn binary(&self, os: Os) -> PathBuf {
        self.hooks_dir().join(os.binary_name())
    }
}

/// Whether `path` is absolute on `os` (`/x` on Unix; `C:\x`, `C:/x` or a
/// `\\server\share` path on Windows), whatever platform gk runs on.
pub fn is_absolute_on(os: Os, path: &str) -> bool {
    if os.is_windows() {
        let b = path.as_bytes();
        (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
            || path.starts_with("\\\\")
            || path.starts_with("//")
    } else {
        path.starts_with('/')
    }
}

/// gk's state folder, where the task records live (pure; see
/// [`state_dir_from_env`]):
///
/// 1. `GK_STATE_DIR`, when set to an absolute path (a relative or empty
///    value is ignored: a hook's working folder is whatever Claude Code's is);
/// 2. Linux and macOS: `$XDG_STATE_HOME/gk` when `XDG_STATE_HOME` is an
///    absolute path (the XDG rule: relative values are ignored);
/// 3. `<home>/.local/state/gk`, on Windows too (`%USERPROFILE%\.local\state\gk`):
///    a folder under the home folder is named by a `~/` permission rule,
///    which the client resolves from the same home folder gk uses, on every
///    machine and drive (measured: docs/maintainers/design.md).
///
/// `None` when none of these can be found.
pub fn state_dir(
    os: Os,
    gk_state_dir: Option<OsString>,
    xdg_state_home: Option<OsString>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    let usable = |v: Option<OsString>| {
        v.filter(|v| !v.is_empty() && is_absolute_on(os, &v.to_string_lossy()))
            .map(PathBuf::from)
    };
    if let Some(dir) = usable(gk_state_dir) {
        return Some(dir);
    }
    if !os.is_windows() {
        if let Some(xdg) = usable(xdg_state_home) {
            return Some(xdg.join("gk"));
        }
    }
    home.map(|h| h.join(".local").join("state").join("gk"))
}

/// [`state_dir`] for a known platform and home folder, the variables read
/// from `env`.
pub fn state_dir_for(os: Os, home: Option<&Path>, env: &Env) -> Option<PathBuf> {
    state_dir(
        os,
        env.var_os(STATE_DIR_VAR),
        env.var_os("XDG_STATE_HOME"),
        home,
    )
}

/// The longest session id used as a file name as it is.
pub const MAX_PLAIN_SESSION_NAME: usize = 128;

/// Names a session id is never given as it is: the files gk and Claude
/// Code keep in their own folders (`settings.json`, `gk.json`,
/// `task_state.json`, …). A session whose id is one of these gets a hashed
/// record name, so the prompt hook never tells Claude that its record is a
/// file named like another program's.
pub const RESERVED_RECORD_NAMES: [&str; 7] = [
    "settings",
    "managed-settings",
    "keybindings",
    "config",
    "gk",
    "gk-install",
    "task_state",
];

/// The record file name (`<name>.json`) for a session id, which is
/// untrusted input. An id of 1 to 128 characters from `a-z`, `0-9`, `-`
/// and `_`, starting with a letter or digit, not a Windows device name
/// (`con`, `nul`, `com1`, …) and not one of [`RESERVED_RECORD_NAMES`], is
/// used as it is (Claude Code's ids are lower-case UUIDs); any other
/// non-empty id becomes `_` and 32 hex digits of a 128-bit FNV-1a hash of
/// its bytes. So a name never holds a separator, `..`, a NUL, a capital
/// (two ids differing in case cannot share a file on Windows) or anything
/// a file system could treat specially, is never the name of a file gk or
/// the client keeps elsewhere, and the two kinds of name cannot collide
/// (only hashed names start with `_`). `None` for the empty id. The hooks
/// and `gk state` both name records through this function alone.
pub fn record_file_name(session_id: &str) -> Option<String> {
    if session_id.is_empty() {
        return None;
    }
    if is_plain_session_id(session_id) {
        return Some(format!("{session_id}.json"));
    }
    Some(format!("_{:032x}.json", fnv1a_128(session_id.as_bytes())))
}

/// Whether a session id is used as it is for its record's name (see
/// [`record_file_name`]): 1 to 128 characters from `a-z`, `0-9`, `-` and
/// `_`, starting with a letter or digit, no device or reserved name. Such
/// an id holds nothing that could end a quoted string or start a line, so
/// it may be shown, and passed to Claude, as it is.
pub fn is_plain_session_id(session_id: &str) -> bool {
    !session_id.is_empty()
        && session_id.len() <= MAX_PLAIN_SESSION_NAME
        && session_id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && session_id
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && !is_windows_device_name(session_id)
        && !RESERVED_RECORD_NAMES.contains(&session_id)
}

/// `con`, `prn`, `aux`, `nul`, `com0`–`com9`, `lpt0`–`lpt9`: Windows opens
/// a device for these names, whatever the extension.
fn is_windows_device_name(name: &str) -> bool {
    matches!(name, "con" | "prn" | "aux" | "nul")
        || (name.len() == 4
            && (name.starts_with("com") || name.starts_with("lpt"))
            && name.as_bytes()[3].is_ascii_digit())
}

fn fnv1a_128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    bytes
        .iter()
        .fold(OFFSET, |h, b| (h ^ u128::from(*b)).wrapping_mul(PRIME))
}

/// The file in the state folder that names the last session to start work
/// in `folder` (see [`folder_key`]): `folder.<32 hex digits>.json`, the
/// digits a 128-bit FNV-1a hash of the key. Claude writes it (`{"session":
/// "<id>"}`) beside its record when it sets the record in progress, as the
/// prompt hook's context asks; a later session in the same folder (after
/// `/clear`, a fork, a new `claude`) reads it to find the task left in
/// flight there, with one read by name, whatever else the folder holds. The
/// `.` in its stem means it is never a record name ([`is_record_file_name`]).
pub fn folder_pointer_name(key: &str) -> Option<String> {
    if key.is_empty() {
        return None;
    }
    Some(format!("folder.{:032x}.json", fnv1a_128(key.as_bytes())))
}

/// Whether `name` is a name [`folder_pointer_name`] gives.
pub fn is_folder_pointer_name(name: &str) -> bool {
    name.strip_prefix("folder.")
        .and_then(|rest| rest.strip_suffix(".json"))
        .is_some_and(|hex| {
            hex.len() == 32
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// The key a project folder is known by in the state folder: the path with
/// its trailing separators dropped, and on Windows with `\` written as `/`
/// and lower-cased (the same folder may be spelled `C:\Work\P` by one
/// event and `c:/work/p` by another). `None` for a relative or empty path:
/// no folder can be told from it.
pub fn folder_key(os: Os, folder: &str) -> Option<String> {
    let key = if os.is_windows() {
        folder.replace('\\', "/").to_lowercase()
    } else {
        folder.to_string()
    };
    let absolute = key.starts_with('/')
        || (os.is_windows() && key.as_bytes().get(1) == Some(&b':') && key.get(2..3) == Some("/"));
    if !absolute {
        return None;
    }
    let trimmed = key.trim_end_matches('/');
    Some(if trimmed.is_empty() || trimmed.ends_with(':') {
        format!("{trimmed}/")
    } else {
        trimmed.to_string()
    })
}

/// Whether `name` is a file name [`record_file_name`] can give (used to
/// tell task records from anything else in the state folder).
pub fn is_record_file_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".json") else {
        return false;
    };
    match stem.strip_prefix('_') {
        Some(hex) => {
            hex.len() == 32
                && hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }
        None => record_file_name(stem).as_deref() == Some(name),
    }
}

/// The names of `path`'s folders, split at the platform's separators
/// (`\\` and `/` on Windows), empty names and `.` left out; on Windows the
/// first is the drive (`C:`) or, for a `\\\\server\\share` path, the server.
fn path_parts(os: Os, path: &str) -> Vec<String> {
    let split: Vec<&str> = if os.is_windows() {
        path.split(['\\', '/']).collect()
    } else {
        path.split('/').collect()
    };
    split
        .into_iter()
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_string)
        .collect()
}

/// `parts` with its `..` steps taken (lexically: a step above the root
/// stays at the root).
fn resolved_parts(parts: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in parts {
        if part == ".." {
            out.pop();
        } else {
            out.push(part);
        }
    }
    out
}

/// Whether `inner` lies in `outer` (or is it), name by name (ignoring case
/// on Windows).
fn starts_with_parts(os: Os, inner: &[String], outer: &[String]) -> bool {
    inner.len() >= outer.len()
        && outer.iter().zip(inner).all(|(a, b)| {
            if os.is_windows() {
                a.eq_ignore_ascii_case(b)
            } else {
                a == b
            }
        })
}

/// Why `dir` cannot be gk's state folder, judged from its path alone
/// (pure; `gk state` and install also look at what the folder holds, see
/// `records::check_folder`): a root (`/`, a Windows drive or network
/// share), the home folder or a folder holding it, or the Claude config
/// folder, a folder holding it or anything inside it. Claude may edit
/// every `*.json` in the state folder and `gk state prune` deletes
/// records there, so it must be a folder of gk's own. `None`: fine.
pub fn state_dir_problem(
    os: Os,
    dir: &Path,
    home: Option<&Path>,
    claude_dir: Option<&Path>,
) -> Option<String> {
    let text = dir.to_string_lossy();
    let unc = os.is_windows() && (text.starts_with("\\\\") || text.starts_with("//"));
    let parts = resolved_parts(path_parts(os, &text));
    let root_len = match (os.is_windows(), unc) {
        (true, true) => 2,
        (true, false) => 1,
        (false, _) => 0,
    };
    if parts.len() <= root_len {
        return Some("it is a root folder".into());
    }
    let named = |p: &Path| {
        let t = p.to_string_lossy();
        is_absolute_on(os, &t)
            .then(|| resolved_parts(path_parts(os, &t)))
            .filter(|ps| !ps.is_empty())
    };
    let home = home.and_then(named);
    // The system's own folders (the records' permission rules would let
    // Claude write `*.json` there), unless the folder is in the home
    // folder: a service account's profile lies under `C:\Windows`
    // (`ServiceProfiles\NetworkService`, a self-hosted CI runner's).
    const UNIX_SYSTEM: &[&str] = &[
        "bin", "boot", "dev", "etc", "lib", "lib64", "proc", "sbin", "sys", "usr",
    ];
    const WINDOWS_SYSTEM: &[&str] = &["windows", "program files", "program files (x86)"];
    let first = parts[root_len].to_lowercase();
    let system = match os.is_windows() {
        true => !unc && WINDOWS_SYSTEM.contains(&first.as_str()),
        false => UNIX_SYSTEM.contains(&first.as_str()),
    };
    let in_home = home
        .as_ref()
        .is_some_and(|h| parts.len() > h.len() && starts_with_parts(os, &parts, h));
    if system && !in_home {
        return Some("it is a system folder or inside one".into());
    }
    if let Some(home) = home {
        if starts_with_parts(os, &home, &parts) {
            return Some(if home.len() == parts.len() {
                "it is the home folder".into()
            } else {
                "it holds the home folder".into()
            });
        }
    }
    if let Some(claude) = claude_dir.and_then(named) {
        if starts_with_parts(os, &parts, &claude) {
            return Some("it is the Claude config folder or inside it".into());
        }
        if starts_with_parts(os, &claude, &parts) {
            return Some("it holds the Claude config folder".into());
        }
    }
    None
}

/// The `permissions.allow` rules that let Claude read and write the task
/// records in `state_dir` and nothing else: `Read(<dir>/*.json)` and
/// `Edit(<dir>/*.json)` (the client's Write tool obeys `Edit` rules;
/// `Write(...)` rules do not let it write — measured). The folder is
/// spelled `~/…` when it is under `home` (the client expands `~` from the
/// same home folder), else as an absolute rule path: `//abs/dir` on Unix,
/// `//c/Users/…` on Windows (the client matches Windows paths in that
/// POSIX form; `C:/…` matched too, `//C:/…` and `%LOCALAPPDATA%` did not).
/// `None` when the folder cannot be named safely: a path holding a glob or
/// rule character (`* ? [ ] { } ( )`), a quote, or (Windows) a network path.
pub fn state_rules(os: Os, state_dir: &Path, home: Option<&Path>) -> Option<[String; 2]> {
    let dir = state_dir.to_string_lossy();
    let dir_parts = path_parts(os, &dir);
    // A name the client could read another way: a glob or rule character,
    // a quote, a parent step, a control character, or blanks at either end
    // of a name (which a rule parser may trim).
    let bad = |c: &String| {
        c == ".."
            || c.contains(['*', '?', '[', ']', '{', '}', '(', ')', '"', '\0'])
            || c.chars().any(char::is_control)
            || c.trim() != c
            || (!os.is_windows() && c.contains('\\'))
    };
    if !is_absolute_on(os, &dir) || dir_parts.iter().any(bad) {
        return None;
    }
    // Never a rule for a root, the home folder or a folder holding it
    // (`Edit(/*.json)` is not even the root: one slash is relative to the
    // settings file).
    if state_dir_problem(os, state_dir, home, None).is_some() {
        return None;
    }
    let under_home = home.and_then(|h| {
        let h = h.to_string_lossy();
        let home_parts = path_parts(os, &h);
        (!home_parts.is_empty()
            && is_absolute_on(os, &h)
            && dir_parts.len() > home_parts.len()
            && starts_with_parts(os, &dir_parts, &home_parts))
        .then(|| dir_parts[home_parts.len()..].join("/"))
    });
    let spelled = match under_home {
        Some(rel) => format!("~/{rel}"),
        None if os.is_windows() => {
            if dir.starts_with("\\\\") || dir.starts_with("//") {
                return None;
            }
            let drive = dir_parts[0].trim_end_matches(':').to_ascii_lowercase();
            format!("//{drive}/{}", dir_parts[1..].join("/"))
        }
        None => format!("//{}", dir_parts.join("/")),
    };
    let spelled = spelled.trim_end_matches('/');
    Some([
        format!("Read({spelled}/*.json)"),
        format!("Edit({spelled}/*.json)"),
    ])
}

/// The platform's managed (policy) settings file.
pub fn default_managed_path(os: Os) -> PathBuf {
    match os {
        Os::Linux => PathBuf::from("/etc/claude-code/managed-settings.json"),
        Os::MacOs => PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
        Os::Windows => PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json"),
    }
}

/// Where `gk install --managed` puts the program every user's hooks run:
/// a folder on every user's PATH that only an administrator writes
/// (`/usr/local/bin`), and on Windows a folder of gk's own under Program
/// Files (the fixed `C:\` spelling, as the client's managed folder is).
pub fn default_managed_program(os: Os) -> PathBuf {
    match os {
        Os::Linux | Os::MacOs => PathBuf::from("/usr/local/bin/gk"),
        Os::Windows => PathBuf::from(r"C:\Program Files\gk\gk.exe"),
    }
}

#[cfg(test)]
mod tests;
