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
/// first (when it names an existing file), then the `bash.exe` beside a
/// `git.exe` found on `PATH` (`…\Git\cmd\git.exe` → `…\Git\bin\bash.exe`),
/// then the usual install folders. `env` looks up a variable and `exists`
/// tests a path, both injected so the search is a pure function that Linux
/// tests can drive with Windows paths. Always `None` off Windows.
pub fn find_git_bash(
    os: Os,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    exists: &dyn Fn(&std::path::Path) -> bool,
) -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    if !os.is_windows() {
        return None;
    }
    let var = |name: &str| {
        env(name)
            .map(|v| v.to_string_lossy().into_owned())
            .filter(|v| !v.is_empty())
    };
    let mut candidates: Vec<String> = Vec::new();
    if let Some(p) = var("CLAUDE_CODE_GIT_BASH_PATH") {
        candidates.push(p);
    }
    if let Some(path) = var("PATH") {
        for dir in path
            .split(';')
            .map(|d| d.trim().trim_matches('"'))
            .filter(|d| !d.is_empty())
        {
            let dir = dir.trim_end_matches(['\\', '/']);
            if exists(&PathBuf::from(format!("{dir}\\git.exe"))) {
                // git.exe lives in Git\cmd or Git\bin; bash.exe in Git\bin.
                if let Some(cut) = dir.rfind(['\\', '/']) {
                    candidates.push(format!("{}\\bin\\bash.exe", &dir[..cut]));
                }
            }
        }
    }
    for base in ["ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"] {
        if let Some(b) = var(base) {
            candidates.push(format!("{}\\Git\\bin\\bash.exe", b.trim_end_matches('\\')));
        }
    }
    if let Some(local) = var("LOCALAPPDATA") {
        candidates.push(format!(
            "{}\\Programs\\Git\\bin\\bash.exe",
            local.trim_end_matches('\\')
        ));
    }
    candidates.push(r"C:\Program Files\Git\bin\bash.exe".to_string());
    candidates
        .into_iter()
        .map(PathBuf::from)
        .find(|p| exists(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    fn search(vars: &[(&str, &str)], files: &[&str]) -> Option<PathBuf> {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
        find_git_bash(Os::Windows, &|k| vars.get(k).cloned(), &|p: &Path| {
            files.iter().any(|f| f == p)
        })
    }

    #[test]
    fn git_bash_env_override_wins_when_it_exists() {
        let found = search(
            &[
                ("CLAUDE_CODE_GIT_BASH_PATH", r"D:\tools\bash.exe"),
                ("ProgramFiles", r"C:\Program Files"),
            ],
            &[r"D:\tools\bash.exe", r"C:\Program Files\Git\bin\bash.exe"],
        );
        assert_eq!(found, Some(PathBuf::from(r"D:\tools\bash.exe")));
    }

    #[test]
    fn git_bash_override_that_does_not_exist_falls_through() {
        let found = search(
            &[
                ("CLAUDE_CODE_GIT_BASH_PATH", r"D:\nope\bash.exe"),
                ("ProgramFiles", r"C:\Program Files"),
            ],
            &[r"C:\Program Files\Git\bin\bash.exe"],
        );
        assert_eq!(
            found,
            Some(PathBuf::from(r"C:\Program Files\Git\bin\bash.exe"))
        );
    }

    #[test]
    fn git_bash_found_from_git_on_path() {
        let found = search(
            &[("PATH", r"C:\Windows;E:\PortableGit\cmd;")],
            &[
                r"E:\PortableGit\cmd\git.exe",
                r"E:\PortableGit\bin\bash.exe",
            ],
        );
        assert_eq!(found, Some(PathBuf::from(r"E:\PortableGit\bin\bash.exe")));
    }

    #[test]
    fn no_git_bash_anywhere_or_not_windows() {
        assert_eq!(search(&[("ProgramFiles", r"C:\Program Files")], &[]), None);
        let any = |_: &Path| true;
        assert_eq!(find_git_bash(Os::Linux, &|_| None, &any), None);
    }
}
