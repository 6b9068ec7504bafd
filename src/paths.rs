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

use crate::platform::Os;

/// gk's own config file name, inside `<claude dir>/hooks/`.
pub const CONFIG_FILE_NAME: &str = "gk.json";
/// The task state file name, inside `<claude dir>/hooks/`.
pub const STATE_FILE_NAME: &str = "task_state.json";
/// Install's note of what uninstall must give back, inside `<claude dir>/hooks/`.
pub const INSTALL_RECORD_NAME: &str = "gk-install.json";

/// The home folder, as Claude Code resolves it on this machine (see the
/// module notes); `None` when there is none at all.
#[allow(clippy::disallowed_methods)] // the one use of dirs::home_dir (clippy.toml)
pub fn home_dir() -> Option<PathBuf> {
    resolve_home(
        Os::current(),
        &|name| std::env::var_os(name),
        &dirs::home_dir,
    )
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

/// [`backup_dir`] for this process.
pub fn backup_dir_from_env() -> Option<PathBuf> {
    backup_dir(
        Os::current(),
        &|name| std::env::var_os(name),
        home_dir().as_deref(),
    )
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePaths {
    dir: PathBuf,
}

impl ClaudePaths {
    /// Resolve from the process environment. `None` when neither
    /// `CLAUDE_CONFIG_DIR` nor a home folder can be found.
    pub fn from_env() -> Option<ClaudePaths> {
        Self::resolve(std::env::var_os("CLAUDE_CONFIG_DIR"), home_dir())
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
    /// (`install::record`), read and removed by uninstall.
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
/// from the process environment.
pub fn state_dir_for(os: Os, home: Option<&Path>) -> Option<PathBuf> {
    state_dir(
        os,
        std::env::var_os(STATE_DIR_VAR),
        std::env::var_os("XDG_STATE_HOME"),
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
    let plain = session_id.len() <= MAX_PLAIN_SESSION_NAME
        && session_id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && session_id
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && !is_windows_device_name(session_id)
        && !RESERVED_RECORD_NAMES.contains(&session_id);
    if plain {
        return Some(format!("{session_id}.json"));
    }
    Some(format!("_{:032x}.json", fnv1a_128(session_id.as_bytes())))
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
    if let Some(home) = home.and_then(named) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_config_dir_wins_over_home() {
        let p = ClaudePaths::resolve(Some("/cfg".into()), Some("/home/u".into())).unwrap();
        assert_eq!(p.dir(), Path::new("/cfg"));
        assert_eq!(p.state_file(), Path::new("/cfg/hooks/task_state.json"));
    }

    #[test]
    fn empty_claude_config_dir_is_ignored() {
        let p = ClaudePaths::resolve(Some("".into()), Some("/home/u".into())).unwrap();
        assert_eq!(p.settings(), Path::new("/home/u/.claude/settings.json"));
    }

    #[test]
    fn no_home_and_no_config_dir_gives_none() {
        assert_eq!(ClaudePaths::resolve(None, None), None);
    }

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn backups_go_to_the_data_folder_of_each_platform() {
        let home = Some(Path::new("/home/ann"));
        let at = |os, v: &[(&str, &str)], home: Option<&Path>| {
            backup_dir(os, &vars(v), home).map(|p| p.to_string_lossy().into_owned())
        };
        for os in [Os::Linux, Os::MacOs] {
            assert_eq!(
                at(os, &[], home).as_deref(),
                Some("/home/ann/.local/share/gk/backups")
            );
            assert_eq!(
                at(os, &[("XDG_DATA_HOME", "/data/ann/")], home).as_deref(),
                Some("/data/ann/gk/backups")
            );
            // Relative or empty: ignored, as the XDG spec says.
            for bad in ["", "rel/data"] {
                assert_eq!(
                    at(os, &[("XDG_DATA_HOME", bad)], home).as_deref(),
                    Some("/home/ann/.local/share/gk/backups")
                );
            }
            // LOCALAPPDATA means nothing here.
            assert_eq!(
                at(os, &[("LOCALAPPDATA", "/x")], home).as_deref(),
                Some("/home/ann/.local/share/gk/backups")
            );
            assert_eq!(at(os, &[], None), None);
        }
        let win_home = Some(Path::new(r"C:\Users\Ann"));
        assert_eq!(
            at(Os::Windows, &[("LOCALAPPDATA", r"D:\Local")], win_home).as_deref(),
            Some(r"D:\Local\gk\backups")
        );
        assert_eq!(
            at(Os::Windows, &[], win_home).as_deref(),
            Some(r"C:\Users\Ann\AppData\Local\gk\backups")
        );
        // XDG variables mean nothing on Windows; a relative value is ignored.
        assert_eq!(
            at(
                Os::Windows,
                &[("XDG_DATA_HOME", r"D:\x"), ("LOCALAPPDATA", "Local")],
                win_home
            )
            .as_deref(),
            Some(r"C:\Users\Ann\AppData\Local\gk\backups")
        );
    }

    #[test]
    fn backups_are_never_inside_the_task_state_folder() {
        let home = Some(Path::new("/home/ann"));
        let dir = |v: &[(&str, &str)]| backup_dir(Os::Linux, &vars(v), home).unwrap();
        // The usual layout: state in ~/.local/state/gk, backups apart.
        let usual = dir(&[]);
        assert!(!usual.starts_with("/home/ann/.local/state/gk"));
        // One folder for both: the backups step out of <it>/gk.
        let same = dir(&[("XDG_STATE_HOME", "/x/"), ("XDG_DATA_HOME", "/x")]);
        assert_eq!(same, Path::new("/x/gk-backups"));
        assert!(!same.starts_with("/x/gk"));
        let implied = dir(&[("XDG_STATE_HOME", "/home/ann/.local/share")]);
        assert_eq!(implied, Path::new("/home/ann/.local/share/gk-backups"));
    }

    fn home_with(os: Os, vars: &[(&str, &str)], system: Option<&str>) -> Option<PathBuf> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let env = move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        resolve_home(os, &env, &|| system.map(PathBuf::from))
    }

    #[test]
    fn windows_home_is_userprofile_not_the_system_profile_nor_home() {
        let found = home_with(
            Os::Windows,
            &[
                ("USERPROFILE", r"C:\gkhome"),
                ("HOME", "/c/Users/git-bash-home"),
            ],
            Some(r"C:\Users\real"),
        );
        assert_eq!(found, Some(PathBuf::from(r"C:\gkhome")));
    }

    #[test]
    fn windows_without_userprofile_asks_the_system_never_home() {
        let system = Some(r"C:\Users\real");
        for vars in [
            &[("HOME", r"H:\")][..],
            &[("USERPROFILE", ""), ("HOME", r"H:\")][..],
        ] {
            assert_eq!(
                home_with(Os::Windows, vars, system),
                Some(PathBuf::from(r"C:\Users\real")),
                "{vars:?}"
            );
        }
        assert_eq!(home_with(Os::Windows, &[("HOME", r"H:\")], None), None);
    }

    #[test]
    fn unix_home_is_home_then_the_system() {
        for os in [Os::Linux, Os::MacOs] {
            let vars = [("HOME", "/home/u"), ("USERPROFILE", "/elsewhere")];
            assert_eq!(
                home_with(os, &vars, Some("/home/passwd")),
                Some(PathBuf::from("/home/u"))
            );
            assert_eq!(
                home_with(
                    os,
                    &[("HOME", ""), ("USERPROFILE", "/x")],
                    Some("/home/passwd")
                ),
                Some(PathBuf::from("/home/passwd"))
            );
            assert_eq!(home_with(os, &[], Some("")), None);
        }
    }

    #[test]
    fn home_dir_reads_the_variable_of_this_platform() {
        // The test binary's own environment: USERPROFILE on Windows (also
        // under Wine), HOME elsewhere, when set.
        let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            assert_eq!(home_dir(), Some(PathBuf::from(v)));
        }
    }

    #[test]
    fn binary_name_follows_platform() {
        let p = ClaudePaths::at("/c");
        assert_eq!(p.binary(Os::Windows), Path::new("/c/hooks/gk.exe"));
        assert_eq!(p.binary(Os::Linux), Path::new("/c/hooks/gk"));
    }

    #[test]
    fn state_dir_override_then_xdg_then_home() {
        let home = Path::new("/home/u");
        let dir = |os, gk: Option<&str>, xdg: Option<&str>| {
            state_dir(os, gk.map(Into::into), xdg.map(Into::into), Some(home))
        };
        assert_eq!(
            dir(Os::Linux, None, None).unwrap(),
            Path::new("/home/u/.local/state/gk")
        );
        assert_eq!(
            dir(Os::Linux, None, Some("/var/st")).unwrap(),
            Path::new("/var/st/gk")
        );
        assert_eq!(
            dir(Os::MacOs, None, Some("/var/st")).unwrap(),
            Path::new("/var/st/gk")
        );
        // Relative or empty values are ignored, as the XDG rules say.
        assert_eq!(
            dir(Os::Linux, Some("rel"), Some("st")).unwrap(),
            Path::new("/home/u/.local/state/gk")
        );
        assert_eq!(
            dir(Os::Linux, Some(""), Some("")).unwrap(),
            Path::new("/home/u/.local/state/gk")
        );
        assert_eq!(
            dir(Os::Linux, Some("/t/state"), Some("/var/st")).unwrap(),
            Path::new("/t/state")
        );
        // Windows: XDG_STATE_HOME is not a Windows convention.
        let win = state_dir(
            Os::Windows,
            None,
            Some("C:\\xdg".into()),
            Some(Path::new(r"C:\Users\Ann")),
        )
        .unwrap();
        assert_eq!(win, Path::new(r"C:\Users\Ann").join(".local/state/gk"));
        assert_eq!(
            state_dir(Os::Windows, Some(r"D:\st".into()), None, None).unwrap(),
            Path::new(r"D:\st")
        );
        assert_eq!(state_dir(Os::Linux, None, None, None), None);
    }

    #[test]
    fn plain_session_ids_are_file_names_as_they_are() {
        let uuid = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";
        assert_eq!(record_file_name(uuid).unwrap(), format!("{uuid}.json"));
        assert_eq!(record_file_name("a_b-1").unwrap(), "a_b-1.json");
        let long = "a".repeat(128);
        assert_eq!(record_file_name(&long).unwrap(), format!("{long}.json"));
        assert_eq!(record_file_name(""), None);
    }

    #[test]
    fn hostile_session_ids_become_hashed_names_inside_the_folder() {
        let hostile = [
            "../outside",
            "..",
            ".",
            "a/b",
            "a\\b",
            "/etc/passwd",
            "C:\\Windows\\x",
            "a\0b",
            "ABC",
            "con",
            "nul",
            "com1",
            "lpt9",
            "-starts-with-dash",
            "_0123456789abcdef0123456789abcdef",
            "caf\u{e9}",
            " ",
            "x.json",
        ];
        let long = "a".repeat(129);
        let mut seen = std::collections::HashSet::new();
        for id in hostile.iter().copied().chain([long.as_str()]) {
            let name = record_file_name(id).unwrap();
            assert!(
                name.starts_with('_') && name.len() == 1 + 32 + 5,
                "{id:?}: {name}"
            );
            assert!(is_record_file_name(&name), "{name}");
            assert!(
                !name.contains(['/', '\\', '\0']) && !name.contains(".."),
                "{name}"
            );
            assert!(seen.insert(name), "two ids share a name");
        }
        // Stable: the same id always gives the same record.
        assert_eq!(record_file_name("../x"), record_file_name("../x"));
        assert_ne!(record_file_name("ABC"), record_file_name("abc"));
    }

    #[test]
    fn folder_keys_and_pointer_names() {
        assert_eq!(folder_key(Os::Linux, "/w/p/").as_deref(), Some("/w/p"));
        assert_eq!(folder_key(Os::Linux, "/").as_deref(), Some("/"));
        assert_eq!(folder_key(Os::Linux, "/W/P").as_deref(), Some("/W/P"));
        assert_eq!(folder_key(Os::Linux, "w/p"), None);
        assert_eq!(folder_key(Os::Linux, ""), None);
        // Windows: one key for every spelling of one folder.
        for spelling in [r"C:\Work\P", "c:/work/p", r"C:\WORK\p\", "C:/Work/P//"] {
            assert_eq!(
                folder_key(Os::Windows, spelling).as_deref(),
                Some("c:/work/p"),
                "{spelling}"
            );
        }
        assert_eq!(folder_key(Os::Windows, r"C:\").as_deref(), Some("c:/"));
        assert_eq!(
            folder_key(Os::Windows, r"\\srv\share\p").as_deref(),
            Some("//srv/share/p")
        );
        assert_eq!(folder_key(Os::Windows, "C:relative"), None);
        assert_eq!(folder_key(Os::Windows, r"Work\P"), None);
        // The pointer's name: never a record's, always recognised.
        let name = folder_pointer_name("/w/p").unwrap();
        assert_eq!(name.len(), "folder.".len() + 32 + ".json".len());
        assert!(is_folder_pointer_name(&name), "{name}");
        assert!(!is_record_file_name(&name), "{name}");
        assert_ne!(folder_pointer_name("/w/q"), Some(name));
        assert_eq!(folder_pointer_name(""), None);
        assert!(!is_folder_pointer_name("folder.abc.json"));
        assert!(!is_folder_pointer_name(&format!(
            "folder.{}.json",
            "G".repeat(32)
        )));
    }

    #[test]
    fn ids_named_like_files_gk_or_the_client_keep_are_hashed() {
        for id in RESERVED_RECORD_NAMES {
            let name = record_file_name(id).unwrap();
            assert!(name.starts_with('_') && name.len() == 38, "{id}: {name}");
            assert!(!is_record_file_name(&format!("{id}.json")), "{id}");
        }
        assert_eq!(record_file_name("settings2").unwrap(), "settings2.json");
    }

    #[test]
    fn roots_home_and_the_claude_folder_are_no_state_folders() {
        let problem = |os, dir: &str, home: &str, claude: &str| {
            state_dir_problem(
                os,
                Path::new(dir),
                Some(Path::new(home)),
                Some(Path::new(claude)),
            )
        };
        let (h, c) = ("/home/u", "/home/u/.claude");
        for dir in [
            "/",
            "//",
            "/home",
            "/home/u",
            "/home/u/",
            "/home/u/.claude",
            "/home/u/.claude/hooks",
            "/home/u/x/../.claude/hooks",
            "/home/u/st/..",
        ] {
            assert!(problem(Os::Linux, dir, h, c).is_some(), "{dir}");
        }
        for dir in ["/home/u/.local/state/gk", "/var/st", "/home/u/.claude2"] {
            assert_eq!(problem(Os::Linux, dir, h, c), None, "{dir}");
        }
        // A Claude folder elsewhere (CLAUDE_CONFIG_DIR).
        assert!(problem(Os::Linux, "/cfg/hooks", h, "/cfg").is_some());
        assert!(problem(Os::Linux, "/cfg", h, "/cfg/claude").is_some());
        let (wh, wc) = (r"C:\Users\Ann", r"C:\Users\Ann\.claude");
        for dir in [
            r"C:\",
            "C:/",
            r"D:\",
            r"\\srv\share",
            r"\\srv\share\",
            r"c:\users\ann",
            r"C:\USERS\ANN\.Claude\hooks",
        ] {
            assert!(problem(Os::Windows, dir, wh, wc).is_some(), "{dir}");
        }
        for dir in [r"C:\Users\Ann\.local\state\gk", r"D:\st", r"\\srv\share\gk"] {
            assert_eq!(problem(Os::Windows, dir, wh, wc), None, "{dir}");
        }
    }

    #[test]
    fn no_rule_is_written_for_a_root_or_the_home_folder() {
        let rules =
            |os, dir: &str, home: &str| state_rules(os, Path::new(dir), Some(Path::new(home)));
        // `Edit(/*.json)` would be `<folder of settings.json>/*.json`.
        for dir in ["/", "/home", "/home/u", "/home/u/"] {
            assert_eq!(rules(Os::Linux, dir, "/home/u"), None, "{dir}");
        }
        assert_eq!(rules(Os::Windows, r"C:\", r"C:\Users\Ann"), None);
        assert_eq!(rules(Os::Windows, r"C:\Users\Ann", r"C:\Users\Ann"), None);
        // Names the client could read another way.
        for dir in ["/var/a\nb", "/var/ a", "/var/a /gk", "/var/a\tb"] {
            assert_eq!(rules(Os::Linux, dir, "/home/u"), None, "{dir:?}");
        }
        assert_eq!(
            rules(Os::Linux, "/var/st", "/home/u").unwrap()[1],
            "Edit(//var/st/*.json)"
        );
    }

    #[test]
    fn record_names_are_recognised() {
        assert!(is_record_file_name("3f2a9c1e-5b7d.json"));
        assert!(!is_record_file_name("3f2a9c1e-5b7d.json.gk-tmp-12"));
        assert!(!is_record_file_name("notes.txt"));
        assert!(!is_record_file_name("Upper.json"));
        assert!(!is_record_file_name("_short.json"));
        assert!(!is_record_file_name(".json"));
    }

    #[test]
    fn rules_name_the_folder_from_home_or_absolutely() {
        let rules = |os, dir: &str, home: Option<&str>| {
            state_rules(os, Path::new(dir), home.map(Path::new))
        };
        assert_eq!(
            rules(Os::Linux, "/home/u/.local/state/gk", Some("/home/u")).unwrap(),
            [
                "Read(~/.local/state/gk/*.json)".to_string(),
                "Edit(~/.local/state/gk/*.json)".to_string()
            ]
        );
        assert_eq!(
            rules(Os::Linux, "/home/u/.local/state/gk", Some("/home/u/")).unwrap()[1],
            "Edit(~/.local/state/gk/*.json)"
        );
        assert_eq!(
            rules(Os::Linux, "/var/st/gk/", Some("/home/u")).unwrap()[1],
            "Edit(//var/st/gk/*.json)"
        );
        // A sibling of home that shares its prefix is not under it.
        assert_eq!(
            rules(Os::Linux, "/home/u2/gk", Some("/home/u")).unwrap()[0],
            "Read(//home/u2/gk/*.json)"
        );
        assert_eq!(
            rules(
                Os::Windows,
                r"C:\Users\Ann\.local\state\gk",
                Some(r"c:\users\ann")
            )
            .unwrap()[1],
            "Edit(~/.local/state/gk/*.json)"
        );
        assert_eq!(
            rules(Os::Windows, r"D:\State\gk", Some(r"C:\Users\Ann")).unwrap()[1],
            "Edit(//d/State/gk/*.json)"
        );
        for bad in [
            "/home/u/st*te",
            "/home/u/(x)",
            "/home/u/a/../b",
            "/home/u/a\\b",
            "rel/gk",
        ] {
            assert_eq!(rules(Os::Linux, bad, Some("/home/u")), None, "{bad}");
        }
        assert_eq!(
            rules(Os::Windows, r"\\srv\share\gk", Some(r"C:\Users\Ann")),
            None
        );
    }
}
