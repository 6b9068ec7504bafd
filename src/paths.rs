//! Where Claude Code keeps the files gk reads and writes.
//!
//! `<claude dir>` is `$CLAUDE_CONFIG_DIR` when it is set and not empty, else
//! `~/.claude` (Claude Code replaces the whole folder when the variable is
//! set: settings, CLAUDE.md and hooks). Resolution is a pure function of the
//! two inputs so tests can drive it without touching the environment.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::platform::Os;

/// gk's own config file name, inside `<claude dir>/hooks/`.
pub const CONFIG_FILE_NAME: &str = "gk.json";
/// The task state file name, inside `<claude dir>/hooks/`.
pub const STATE_FILE_NAME: &str = "task_state.json";
/// Install's note of what uninstall must give back, inside `<claude dir>/hooks/`.
pub const INSTALL_RECORD_NAME: &str = "gk-install.json";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudePaths {
    dir: PathBuf,
}

impl ClaudePaths {
    /// Resolve from the process environment. `None` when neither
    /// `CLAUDE_CONFIG_DIR` nor a home folder can be found.
    pub fn from_env() -> Option<ClaudePaths> {
        Self::resolve(std::env::var_os("CLAUDE_CONFIG_DIR"), dirs::home_dir())
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

    #[test]
    fn binary_name_follows_platform() {
        let p = ClaudePaths::at("/c");
        assert_eq!(p.binary(Os::Windows), Path::new("/c/hooks/gk.exe"));
        assert_eq!(p.binary(Os::Linux), Path::new("/c/hooks/gk"));
    }
}
