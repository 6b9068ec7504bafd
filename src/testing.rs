//! What the integration tests (`tests/`) and the fuzz targets (`fuzz/`)
//! call directly, and nothing else: every module of gk is crate-private, so
//! the compiler reports code nothing uses; this list is the one way in from
//! outside. Not an interface for anyone else (hidden from the docs).

pub mod change {
    pub use crate::change::plan::{FileChange, Plan};
    pub use crate::change::render::{mask_secrets, render, Style};
}

pub mod doctor {
    pub use crate::doctor::render::secrets_in;
}

pub mod edit {
    pub use crate::edit::claude_md::{insert_section, remove_section};
    pub use crate::edit::settings_edit::{
        add_hooks, add_hooks_noting, remove_hooks, remove_hooks_keeping, EmptyContainer,
        WantedHooks,
    };
    pub use crate::edit::settings_keys::{add_statusline, remove_statusline, StatusLine};
    /// The block's text is the hooks' (the convention they point Claude to).
    pub use crate::hooks::convention::section_for;
}

pub mod hookcmd {
    pub use crate::hookcmd::{
        canonical, classify, classify_under, exec_spelling, normalize, normalize_path,
        CommandContext, HookKind, Owner, ShellForm,
    };
}

pub mod hooks {
    pub use crate::hooks::config::Config;
    pub use crate::hooks::input::Input;
    pub use crate::hooks::jsonout::{prompt_output, push_json_str};
    pub use crate::hooks::keywords::{find_all, KeywordSet};
    pub use crate::hooks::session::{message, problems, MAX_LINES};
    pub use crate::hooks::state::{
        read_state, Located, StateFile, StateRead, DETAIL_CHARS, PROJECT_CHARS, STATUS_CHARS,
        TASK_CHARS,
    };
    pub use crate::hooks::transcript::Current;
    pub use crate::hooks::{respond_prompt, respond_stop, respond_switch};
}

/// gk as a plugin: the marketplace and plugin files and their names (the
/// end-to-end test installs the plugin from them).
pub mod plugin {
    pub use crate::setup::plugin::{
        files, plugin_hooks, MARKETPLACE, PLUGIN, PLUGIN_DIR, SWITCH_PLUGIN,
    };
}

pub mod paths {
    pub use crate::paths::{
        folder_key, folder_pointer_name, is_record_file_name, record_file_name,
    };
}

pub mod platform {
    pub use crate::platform::Os;
}

pub mod registry {
    pub use crate::registry::plugins::{
        expand_root, load_plugins, PluginBudget, Plugins, Trouble, MAX_EXPANDED,
    };
    pub use crate::registry::scopes::{classify_text, Scope, ScopeFile};
    pub use crate::registry::table::Table;
}

/// `gk report`'s line reader and line reader's parse (the fuzz target).
pub mod report {
    pub use crate::report::line::{read as read_line, Outcome};
    pub use crate::report::lines::{for_each_line, Line};
}

pub mod settings {
    pub use crate::settings::{hook_entries, parse};
}

pub mod setup {
    pub use crate::setup::verified_wanted_hooks;
}

pub mod text {
    pub use crate::text::{
        escaped, escaped_line, is_clean, is_unsafe, json_escaped, one_line, one_line_ends,
    };
}

/// gk's verdict on one settings file, in the client's terms, for the shape
/// fixtures (tests/fixtures/settings-shapes/) and their recorded verdicts.
pub mod verdict {
    use crate::registry::scopes::{classify_text, Load};
    use crate::settings::{verdict, Verdict};

    /// `loads`, `drops` or `skips`, with the places of what is dropped or
    /// of what skips the file, spelt as the client spells them
    /// (`hooks.Stop.0.hooks.1`; none for a file that is not JSON).
    pub fn of(text: &str) -> (&'static str, Vec<String>) {
        let dotted = |at: &str| at.replace('[', ".").replace(']', "");
        match classify_text(std::path::Path::new("settings.json"), text) {
            Load::Parsed { issues, .. } => match verdict(&issues) {
                Verdict::Loads => ("loads", Vec::new()),
                Verdict::DropsParts(parts) => {
                    ("drops", parts.iter().map(|i| dotted(&i.at)).collect())
                }
                Verdict::Skipped(i) => ("skips", vec![dotted(&i.at)]),
            },
            Load::Unparseable(_) => ("skips", Vec::new()),
            _ => ("loads", Vec::new()),
        }
    }
}

/// The environment one run sees (variables, current folder, program path,
/// terminals); see [`run`].
pub use crate::env::Env;

/// gk run in-process, as `main` runs it: `args` without the program's
/// name, `env` for everything gk would read of its process, `stdin` for
/// its input. Returns the exit code, stdout and stderr. The same dispatch
/// as the process, hooks included; what only a process shows is the panic
/// hook of the hot path (a panic here is caught by the hooks and unwinds
/// in the commands), the exit code as the OS reports it, a pipe's or a
/// terminal's own behaviour on stdin (here it is these bytes, and a
/// terminal only if `env` says so), and signals.
pub fn run(args: &[std::ffi::OsString], env: &Env, stdin: &[u8]) -> (u8, Vec<u8>, Vec<u8>) {
    let (mut out, mut err, mut input) = (Vec::new(), Vec::new(), stdin);
    let mut console = crate::console::Console {
        out: &mut out,
        err: &mut err,
        input: &mut input,
        out_file: &|| None,
    };
    let code = crate::commands::run(args, env, &mut console, &|| {});
    (code, out, err)
}
