//! Where Claude Code keeps the files gk reads and writes.
//!
//! `<claude dir>` is `$CLAUDE_CONFIG_DIR` when it is set and not empty, else
//! `~/.claude` (Claude Code replaces the whole folder when the variable is
//! set: settings, CLAUDE.md and hooks). Resolution is a pure function of the
//! two inputs so tests can drive it without touching the environment.
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
}
