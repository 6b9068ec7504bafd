//! The machine facts every command and the session check read from the
//! process environment, read once, in one place: the platform, the home
//! folder, `<claude dir>` (made absolute, as the client takes it), how a
//! hook command's paths are spelt there, Git Bash, `PATH`, the managed
//! settings file and the task records' folder. Everything below this takes
//! them as values, so tests give any platform's facts without touching the
//! process environment.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::hookcmd::CommandContext;
use crate::paths::ClaudePaths;
use crate::platform::{find_git_bash, Os};

/// Points gk at another managed settings file than the platform's (tests,
/// and administrators checking a file before they ship it); doctor's
/// `--managed-settings` says the same.
pub const MANAGED_VAR: &str = "GK_MANAGED_SETTINGS";

/// Points `gk install --managed` at another path for the machine-wide
/// program than the platform's (tests only: they must not write
/// `/usr/local/bin`); not documented for users.
pub const MANAGED_PROGRAM_VAR: &str = "GK_MANAGED_PROGRAM";

/// Everything about this machine that plans, doctor and the session check
/// depend on.
#[derive(Debug, Clone)]
pub struct Machine {
    pub os: Os,
    pub paths: ClaudePaths,
    pub ctx: CommandContext,
    pub git_bash: Option<PathBuf>,
    /// Windows only: the `HOME` variable, which Git Bash uses for `$HOME`
    /// when it is set (see [`crate::setup::spelling_context`]).
    pub bash_home: Option<PathBuf>,
    /// `PATH`, to find a gk registered by bare name.
    pub path_var: Option<OsString>,
    /// The managed settings file: [`MANAGED_VAR`], else the platform's.
    pub managed: PathBuf,
    /// The machine-wide program a managed install registers:
    /// [`MANAGED_PROGRAM_VAR`], else the platform's.
    pub managed_program: PathBuf,
    /// The task records' folder (`None` when no home folder is known).
    pub state_dir: Option<PathBuf>,
    /// The folder gk was started in (the client starts hooks in the
    /// session's folder).
    pub current_dir: Option<PathBuf>,
    /// Where the client keeps its plugins (`installed_plugins.json`,
    /// `known_marketplaces.json`, the copies): [`PLUGIN_DIR_VAR`] when set
    /// (a leading `~` is the home folder, as the client reads it), else
    /// `<claude dir>/plugins` (measured, 2.1.332).
    pub plugins_dir: PathBuf,
}

/// The client's variable that moves `<claude dir>/plugins` wholesale.
pub const PLUGIN_DIR_VAR: &str = "CLAUDE_CODE_PLUGIN_CACHE_DIR";

impl Machine {
    /// Read from the process environment; an error when neither a home
    /// folder nor `CLAUDE_CONFIG_DIR` is known.
    pub fn from_env() -> Result<Machine> {
        let paths = ClaudePaths::from_env().ok_or_else(|| {
            Error::new("could not find the home folder (set HOME or CLAUDE_CONFIG_DIR)")
        })?;
        Ok(Machine::with_paths(
            crate::paths::home_dir(),
            &paths,
            &|name| std::env::var_os(name),
        ))
    }

    /// The facts for a known home folder and `<claude dir>`, the other
    /// variables read through `env`. A relative `CLAUDE_CONFIG_DIR` would
    /// give a hook command that only works from this folder: it is pinned
    /// here, as the client started here would take it.
    pub fn with_paths(
        home: Option<PathBuf>,
        paths: &ClaudePaths,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Machine {
        let os = Os::current();
        let claude_dir = absolute(paths.dir());
        let home = home.unwrap_or_else(|| claude_dir.clone());
        let state_dir = crate::paths::state_dir(
            os,
            env(crate::paths::STATE_DIR_VAR),
            env("XDG_STATE_HOME"),
            Some(&home),
        );
        let claude_config_dir = env("CLAUDE_CONFIG_DIR")
            .filter(|v| !v.is_empty())
            .map(|v| absolute(Path::new(&v)));
        let git_bash = find_git_bash(os, env, &|p| p.is_file());
        let bash_home = if os.is_windows() {
            env("HOME").filter(|v| !v.is_empty()).map(PathBuf::from)
        } else {
            None
        };
        let managed = env(MANAGED_VAR)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| crate::paths::default_managed_path(os));
        let plugins_dir = match env(PLUGIN_DIR_VAR).filter(|v| !v.is_empty()) {
            Some(v) => {
                let v = PathBuf::from(v);
                match v.strip_prefix("~") {
                    Ok(rest) => home.join(rest),
                    Err(_) => absolute(&v),
                }
            }
            None => claude_dir.join("plugins"),
        };
        let managed_program = env(MANAGED_PROGRAM_VAR)
            .filter(|v| !v.is_empty())
            .map(|v| absolute(Path::new(&v)))
            .unwrap_or_else(|| crate::paths::default_managed_program(os));
        Machine {
            os,
            paths: ClaudePaths::at(claude_dir.clone()),
            ctx: CommandContext {
                os,
                home,
                claude_dir,
                claude_config_dir,
            },
            git_bash,
            bash_home,
            path_var: env("PATH"),
            managed,
            managed_program,
            state_dir,
            current_dir: std::env::current_dir().ok(),
            plugins_dir,
        }
    }
}

/// `path` made absolute against the current folder (unchanged if that fails).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
