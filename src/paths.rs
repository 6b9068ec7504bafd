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

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::platform::Os;

/// gk's own config file name, inside `<claude dir>/hooks/`.
pub const CONFIG_FILE_NAME: &str = "gk.json";
/// The task state file name, inside `<claude dir>/hooks/`.
pub const STATE_FILE_NAME: &str = "task_state.json";

/// The user's home folder (the one place gk asks for it).
pub fn home_dir() -> Option<PathBuf> {
    dirs::home_dir()
}

/// Whether `value` is an absolute path on `os` (`C:\…`, `C:/…` or `\\server\…`
/// on Windows, `/…` elsewhere), whatever platform this runs on.
fn is_absolute_on(os: Os, value: &str) -> bool {
    if os.is_windows() {
        let b = value.as_bytes();
        (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/'))
            || value.starts_with("\\\\")
    } else {
        value.starts_with('/')
    }
}

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

    /// Where install puts the gk binary.
    pub fn binary(&self, os: Os) -> PathBuf {
        self.hooks_dir().join(os.binary_name())
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

    #[test]
    fn binary_name_follows_platform() {
        let p = ClaudePaths::at("/c");
        assert_eq!(p.binary(Os::Windows), Path::new("/c/hooks/gk.exe"));
        assert_eq!(p.binary(Os::Linux), Path::new("/c/hooks/gk"));
    }
}
