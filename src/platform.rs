//! The platform as a value. Windows is gk's main target but cannot run here,
//! so every decision that differs by platform (paths, command strings, line
//! endings, the binary's name) takes an `Os` argument instead of asking
//! `cfg!` inside the logic; tests on Linux then exercise the Windows branches.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The platform this binary was built for.
    pub fn current() -> Os {
        if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::MacOs
        } else {
            Os::Linux
        }
    }

    /// File name of the gk binary on this platform.
    pub fn binary_name(self) -> &'static str {
        match self {
            Os::Windows => "gk.exe",
            _ => "gk",
        }
    }

    pub fn is_windows(self) -> bool {
        self == Os::Windows
    }
}

/// Find Git Bash the way Claude Code does on Windows: `CLAUDE_CODE_GIT_BASH_PATH`
/// first (when it names an existing file), then the usual Git install
/// folders. `env` looks up a variable, `exists` tests a path: both injected
/// so the search is a pure function. Always `None` off Windows.
///
/// INTERFACE FIRST: body is being filled in on main; signature is stable.
pub fn find_git_bash(
    os: Os,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Option<std::path::PathBuf> {
    let _ = (os, env, exists);
    todo!("platform::find_git_bash")
}
