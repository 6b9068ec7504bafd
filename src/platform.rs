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

/// Find Git Bash the way Claude Code does on Windows (its 2.1.332 code):
/// `CLAUDE_CODE_GIT_BASH_PATH` when it names an existing `bash.exe`,
/// `sh.exe`, `bash` or `sh`; then `C:\Program Files\Git\bin\bash.exe` and
/// `C:\Program Files (x86)\Git\bin\bash.exe`; then the `bash.exe` two
/// folders up from a `git.exe` on `PATH` (`…\Git\cmd\git.exe` →
/// `…\Git\bin\bash.exe`). Found: the client runs shell-form hooks and the
/// status line through it; not found: through PowerShell. `env` looks up a
/// variable and `exists` tests a path, both injected so the search is a
/// pure function that Linux tests can drive with Windows paths. Always
/// `None` off Windows.
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
    if let Some(p) = var("CLAUDE_CODE_GIT_BASH_PATH") {
        let name = p
            .rsplit(['\\', '/'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let path = PathBuf::from(&p);
        if ["bash.exe", "sh.exe", "bash", "sh"].contains(&name.as_str()) && exists(&path) {
            return Some(path);
        }
    }
    let mut candidates: Vec<String> = vec![
        r"C:\Program Files\Git\bin\bash.exe".to_string(),
        r"C:\Program Files (x86)\Git\bin\bash.exe".to_string(),
    ];
    if let Some(path) = var("PATH") {
        // The first git.exe on PATH, as `which` finds it.
        let git_dir = path
            .split(';')
            .map(|d| d.trim().trim_matches('"').trim_end_matches(['\\', '/']))
            .filter(|d| !d.is_empty())
            .find(|d| exists(&PathBuf::from(format!("{d}\\git.exe"))));
        // git.exe lives in Git\cmd or Git\bin; bash.exe in Git\bin.
        if let Some(cut) = git_dir.and_then(|d| d.rfind(['\\', '/']).map(|c| &d[..c])) {
            candidates.push(format!("{cut}\\bin\\bash.exe"));
        }
    }
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
    fn only_where_the_client_looks() {
        // A per-user Git (LOCALAPPDATA) not on PATH, a Program Files folder
        // on another drive: the client looks at neither, so neither is found.
        assert_eq!(
            search(
                &[
                    ("LOCALAPPDATA", r"C:\Users\a\AppData\Local"),
                    ("ProgramFiles", r"D:\Program Files")
                ],
                &[
                    r"C:\Users\a\AppData\Local\Programs\Git\bin\bash.exe",
                    r"D:\Program Files\Git\bin\bash.exe"
                ],
            ),
            None
        );
        // An override that names no bash or sh is passed over.
        assert_eq!(
            search(
                &[("CLAUDE_CODE_GIT_BASH_PATH", r"D:\tools\zsh.exe")],
                &[r"D:\tools\zsh.exe"],
            ),
            None
        );
        assert_eq!(
            search(
                &[("CLAUDE_CODE_GIT_BASH_PATH", r"D:\msys\usr\bin\SH.EXE")],
                &[r"D:\msys\usr\bin\SH.EXE"],
            ),
            Some(PathBuf::from(r"D:\msys\usr\bin\SH.EXE"))
        );
        // Program Files comes before a git.exe on PATH.
        assert_eq!(
            search(
                &[("PATH", r"E:\PortableGit\cmd")],
                &[
                    r"E:\PortableGit\cmd\git.exe",
                    r"E:\PortableGit\bin\bash.exe",
                    r"C:\Program Files\Git\bin\bash.exe"
                ],
            ),
            Some(PathBuf::from(r"C:\Program Files\Git\bin\bash.exe"))
        );
    }

    #[test]
    fn no_git_bash_anywhere_or_not_windows() {
        assert_eq!(search(&[("ProgramFiles", r"C:\Program Files")], &[]), None);
        let any = |_: &Path| true;
        assert_eq!(find_git_bash(Os::Linux, &|_| None, &any), None);
    }
}
