//! What gk reads of its process, read once: the variables, the current
//! folder, the path of the gk program itself, and whether stdin, stdout
//! and stderr are terminals. [`Env::from_process`] is called where the
//! program starts (`commands::main`) and nowhere else; everything below
//! takes an `&Env`, so a test runs any command in-process, in a thread of
//! its own, with an environment of its own (see `testing::run`). Children
//! gk starts (the smoke runs) get these variables, not the host's.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::platform::Os;

/// The environment one gk run sees.
#[derive(Debug, Clone)]
pub struct Env {
    os: Os,
    /// Every variable, in the order the process had them; `None`: the
    /// process's own, looked up one by one when asked (the process never
    /// changes them, and a hook asks for a handful of the hundred or so
    /// Claude Code passes: copying them all cost more than the rest of the
    /// hook's set-up).
    vars: Option<Vec<(OsString, OsString)>>,
    /// The current folder, or why it could not be read.
    cwd: Result<PathBuf, String>,
    /// The running gk program, or why it could not be found.
    exe: Result<PathBuf, String>,
    stdin_terminal: bool,
    stdout_terminal: bool,
    stderr_terminal: bool,
    /// When the home folder's variable is unset, ask the system (the
    /// password database, the Windows profile folder). Only for the real
    /// process: a made-up environment has only its variables.
    system_home: bool,
}

impl Env {
    /// This process's environment: the one place gk reads it.
    pub fn from_process() -> Env {
        use std::io::IsTerminal;
        Env {
            os: Os::current(),
            vars: None,
            cwd: std::env::current_dir().map_err(|e| e.to_string()),
            exe: std::env::current_exe().map_err(|e| e.to_string()),
            stdin_terminal: std::io::stdin().is_terminal(),
            stdout_terminal: std::io::stdout().is_terminal(),
            stderr_terminal: std::io::stderr().is_terminal(),
            system_home: true,
        }
    }

    /// An environment with no variables, started in `cwd`, as the program
    /// `exe`, with no terminal attached (tests add variables with
    /// [`Env::set`]).
    pub fn new(cwd: impl Into<PathBuf>, exe: impl Into<PathBuf>) -> Env {
        Env {
            os: Os::current(),
            vars: Some(Vec::new()),
            cwd: Ok(cwd.into()),
            exe: Ok(exe.into()),
            stdin_terminal: false,
            stdout_terminal: false,
            stderr_terminal: false,
            system_home: false,
        }
    }

    /// Set (or replace) the variable `name`.
    pub fn set(&mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut Env {
        let (name, value) = (name.as_ref(), value.as_ref());
        let os = self.os;
        let vars = self.own_vars();
        match vars.iter_mut().find(|(k, _)| same_name(os, k, name)) {
            Some((_, v)) => *v = value.to_os_string(),
            None => vars.push((name.to_os_string(), value.to_os_string())),
        }
        self
    }

    /// The variables as a list of this environment's own, copied from the
    /// process when they were its.
    fn own_vars(&mut self) -> &mut Vec<(OsString, OsString)> {
        self.vars
            .get_or_insert_with(|| std::env::vars_os().collect())
    }

    /// Remove the variable `name`, if set.
    pub fn remove(&mut self, name: impl AsRef<OsStr>) -> &mut Env {
        let os = self.os;
        self.own_vars()
            .retain(|(k, _)| !same_name(os, k, name.as_ref()));
        self
    }

    /// Say which of stdin, stdout, stderr are terminals.
    pub fn set_terminals(&mut self, stdin: bool, stdout: bool, stderr: bool) -> &mut Env {
        (
            self.stdin_terminal,
            self.stdout_terminal,
            self.stderr_terminal,
        ) = (stdin, stdout, stderr);
        self
    }

    /// The variable `name` (names are compared without case on Windows,
    /// as the system does).
    pub fn var_os(&self, name: &str) -> Option<OsString> {
        let Some(vars) = &self.vars else {
            return std::env::var_os(name);
        };
        vars.iter()
            .find(|(k, _)| same_name(self.os, k, OsStr::new(name)))
            .map(|(_, v)| v.clone())
    }

    /// Every variable, for a child process.
    pub fn vars(&self) -> Vec<(OsString, OsString)> {
        match &self.vars {
            Some(vars) => vars.clone(),
            None => std::env::vars_os().collect(),
        }
    }

    /// The current folder; the error says why it could not be read.
    pub fn current_dir(&self) -> Result<&Path, &str> {
        self.cwd.as_deref().map_err(String::as_str)
    }

    /// The running gk program; the error says why it could not be found.
    pub fn current_exe(&self) -> Result<&Path, &str> {
        self.exe.as_deref().map_err(String::as_str)
    }

    pub fn stdin_is_terminal(&self) -> bool {
        self.stdin_terminal
    }

    pub fn stdout_is_terminal(&self) -> bool {
        self.stdout_terminal
    }

    pub fn stderr_is_terminal(&self) -> bool {
        self.stderr_terminal
    }

    /// The system's idea of the home folder, asked only when the home
    /// variable is unset (see `paths::home_dir`): the standard library's
    /// `home_dir`, which asks what the client's own runtime asks (Windows:
    /// `GetUserProfileDirectoryW`; elsewhere the user database). On Windows
    /// that costs no library a hook would load at every start: the `dirs`
    /// crate, used here before, asked the shell (`SHGetKnownFolderPath`),
    /// which put shell32.dll and combase.dll in gk.exe's imports.
    #[allow(clippy::disallowed_methods)] // the one use of std::env::home_dir (clippy.toml)
    pub fn system_home(&self) -> Option<PathBuf> {
        if self.system_home {
            std::env::home_dir()
        } else {
            None
        }
    }

    /// `path` made absolute against this environment's current folder
    /// (as it is when that fails).
    pub fn absolute(&self, path: &Path) -> PathBuf {
        let joined = match (path.is_absolute(), &self.cwd) {
            (false, Ok(cwd)) => cwd.join(path),
            _ => path.to_path_buf(),
        };
        if joined.is_absolute() {
            std::path::absolute(&joined).unwrap_or(joined)
        } else {
            joined
        }
    }
}

/// Whether two variable names are the same on `os`: case-blind on Windows.
fn same_name(os: Os, a: &OsStr, b: &OsStr) -> bool {
    if os.is_windows() {
        a.eq_ignore_ascii_case(b)
    } else {
        a == b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_case_blind_on_windows_only() {
        assert!(same_name(
            Os::Windows,
            OsStr::new("Path"),
            OsStr::new("PATH")
        ));
        assert!(!same_name(
            Os::Linux,
            OsStr::new("Path"),
            OsStr::new("PATH")
        ));
    }

    #[test]
    fn set_replaces_and_remove_removes() {
        let mut env = Env::new("/w", "/w/gk");
        env.set("HOME", "/a").set("HOME", "/b").set("X", "1");
        assert_eq!(env.var_os("HOME"), Some("/b".into()));
        assert_eq!(env.vars().len(), 2);
        env.remove("X");
        assert_eq!(env.var_os("X"), None);
        assert_eq!(env.system_home(), None);
    }

    #[test]
    fn relative_paths_are_made_absolute_against_its_own_folder() {
        let here = std::env::temp_dir();
        let env = Env::new(&here, here.join("gk"));
        assert_eq!(env.absolute(Path::new("a")), here.join("a"));
    }
}
