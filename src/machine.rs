//! The machine facts every command and the session check read from the
//! process environment, read once, in one place: the platform, the home
//! folder, `<claude dir>` (made absolute, as the client takes it), how a
//! hook command's paths are spelt there, Git Bash, `PATH`, the managed
//! settings file and the task records' folder. Everything below this takes
//! them as values, so tests give any platform's facts without touching the
//! process environment.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::env::Env;
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
    /// The managed settings Windows keeps in the registry (nothing on
    /// other platforms, nor when [`MANAGED_VAR`] names the managed file).
    pub registry_policy: RegistryPolicy,
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

/// The Windows client's managed settings in the registry: the value
/// `Settings` (a JSON text) under `SOFTWARE\Policies\ClaudeCode`, in
/// `HKEY_LOCAL_MACHINE` and in `HKEY_CURRENT_USER`. Which of them and the
/// managed files the client uses is decided in
/// [`crate::registry::scopes`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistryPolicy {
    pub machine: Option<PolicyValue>,
    pub user: Option<PolicyValue>,
}

/// One registry value as read (absent values are `None` above).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(not(windows), allow(dead_code))] // made by the Windows read and tests
pub enum PolicyValue {
    Text(String),
    /// Present but not read: why, in a few words.
    Unreadable(String),
}

/// The most of a registry value gk reads: the client's own bound (2 MiB).
#[cfg_attr(not(windows), allow(dead_code))]
pub const POLICY_LIMIT: usize = 2 << 20;

/// The names the client gives the two values in its messages.
pub const POLICY_MACHINE_NAME: &str = r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings";
pub const POLICY_USER_NAME: &str = r"HKCU\SOFTWARE\Policies\ClaudeCode\Settings";

impl RegistryPolicy {
    /// Read both values (Windows; elsewhere there are none).
    pub fn read() -> RegistryPolicy {
        RegistryPolicy {
            machine: policy_value(true),
            user: policy_value(false),
        }
    }
}

/// One value, by the registry's own call (`RegGetValueW` from windows-sys,
/// read only; no process): `None` when the key or the value is absent.
#[cfg(windows)]
fn policy_value(machine: bool) -> Option<PolicyValue> {
    use std::ffi::c_void;
    use windows_sys::Win32::Foundation::{
        ERROR_FILE_NOT_FOUND, ERROR_MORE_DATA, ERROR_PATH_NOT_FOUND, ERROR_SUCCESS,
        ERROR_UNSUPPORTED_TYPE, WIN32_ERROR,
    };
    use windows_sys::Win32::System::Registry::{
        RegGetValueW, HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE, RRF_NOEXPAND, RRF_RT_REG_EXPAND_SZ,
        RRF_RT_REG_SZ,
    };
    // REG_SZ or REG_EXPAND_SZ (the kinds the client takes), unexpanded.
    const FLAGS: u32 = RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ | RRF_NOEXPAND;
    let wide = |s: &str| s.encode_utf16().chain([0]).collect::<Vec<u16>>();
    let key = if machine {
        HKEY_LOCAL_MACHINE
    } else {
        HKEY_CURRENT_USER
    };
    let sub_key = wide(r"SOFTWARE\Policies\ClaudeCode");
    let value = wide("Settings");
    let ask = |data: *mut c_void, len: &mut u32| {
        // SAFETY: both names are NUL-terminated UTF-16; `data` is null or
        // points to `*len` writable bytes; the call writes only there.
        unsafe {
            RegGetValueW(
                key,
                sub_key.as_ptr(),
                value.as_ptr(),
                FLAGS,
                std::ptr::null_mut(),
                data,
                len,
            )
        }
    };
    let mut len = 0u32;
    let failed = |rc: WIN32_ERROR| match rc {
        ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND => None,
        ERROR_UNSUPPORTED_TYPE => Some(PolicyValue::Unreadable(
            "not a text value (REG_SZ)".to_string(),
        )),
        // Grown between the call that gave its size and the read.
        ERROR_MORE_DATA => Some(PolicyValue::Unreadable(
            "changed while it was read; run again".to_string(),
        )),
        rc => Some(PolicyValue::Unreadable(format!(
            "the registry refused it (error {rc})"
        ))),
    };
    match ask(std::ptr::null_mut(), &mut len) {
        ERROR_SUCCESS => {}
        rc => return failed(rc),
    }
    if len as usize > POLICY_LIMIT * 2 {
        return Some(PolicyValue::Unreadable(format!(
            "larger than {}",
            crate::bounded::size_text(POLICY_LIMIT as u64)
        )));
    }
    let mut buf = vec![0u16; len as usize / 2 + 1];
    let mut got = (buf.len() * 2) as u32;
    match ask(buf.as_mut_ptr().cast(), &mut got) {
        ERROR_SUCCESS => {}
        rc => return failed(rc),
    }
    buf.resize(got as usize / 2, 0);
    while buf.last() == Some(&0) {
        buf.pop();
    }
    Some(PolicyValue::Text(String::from_utf16_lossy(&buf)))
}

#[cfg(not(windows))]
fn policy_value(_machine: bool) -> Option<PolicyValue> {
    None
}

/// The client's variable that moves `<claude dir>/plugins` wholesale.
pub const PLUGIN_DIR_VAR: &str = "CLAUDE_CODE_PLUGIN_CACHE_DIR";

impl Machine {
    /// A machine of `ctx`'s platform and home with `<claude dir>` at
    /// `paths`, and nothing else found (tests).
    #[cfg(test)]
    pub fn of(ctx: CommandContext, paths: ClaudePaths) -> Machine {
        Machine {
            plugins_dir: paths.dir().join("plugins"),
            paths,
            managed: crate::paths::default_managed_path(ctx.os),
            managed_program: crate::paths::default_managed_program(ctx.os),
            ctx,
            git_bash: None,
            bash_home: None,
            path_var: None,
            registry_policy: RegistryPolicy::default(),
            state_dir: None,
            current_dir: None,
        }
    }

    /// The platform (the one its commands are spelt for).
    pub fn os(&self) -> Os {
        self.ctx.os
    }

    /// Read from `env`; an error when neither a home folder nor
    /// `CLAUDE_CONFIG_DIR` is known.
    pub fn from_env(env: &Env) -> Result<Machine> {
        let paths = ClaudePaths::from_env(env).ok_or_else(|| {
            Error::new("could not find the home folder (set HOME or CLAUDE_CONFIG_DIR)")
        })?;
        Ok(Machine::with_paths(
            crate::paths::home_dir(env),
            &paths,
            env,
        ))
    }

    /// The facts for a known home folder and `<claude dir>`, the other
    /// variables read from `process` (and its current folder). A relative
    /// `CLAUDE_CONFIG_DIR` would give a hook command that only works from
    /// this folder: it is pinned here, as the client started here would
    /// take it.
    pub fn with_paths(home: Option<PathBuf>, paths: &ClaudePaths, process: &Env) -> Machine {
        let env = &|name: &str| process.var_os(name);
        let os = Os::current();
        let absolute = |p: &Path| process.absolute(p);
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
        let managed_var = env(MANAGED_VAR).filter(|v| !v.is_empty());
        // A managed file named by hand is the managed tier: the registry
        // is not asked (tests, and an administrator checking a file).
        let registry_policy = match managed_var {
            Some(_) => RegistryPolicy::default(),
            None => RegistryPolicy::read(),
        };
        let managed = managed_var
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
            registry_policy,
            managed_program,
            state_dir,
            current_dir: process.current_dir().ok().map(Path::to_path_buf),
            plugins_dir,
        }
    }
}
