//! gk as a Claude Code plugin: the repository is a plugin marketplace
//! (`.claude-plugin/marketplace.json` at its root) holding two plugins:
//! `plugin/`, whose `hooks/hooks.json` registers gk's three hooks every
//! client knows, and `plugin-switch-guard/`, the opt-in one registering
//! the switch guard (PreModelSwitch, PostModelSwitch). A client older than
//! [`SWITCH_EVENTS_SINCE`] fails to load a plugin whose hooks file names an
//! event it does not know, the whole plugin (measured), so the switch
//! guard's events are a plugin of their own: such a client loses only
//! that one. Those files are rendered here from the same description install writes into
//! settings.json ([`WantedHooks`], the groups of
//! [`settings_edit::hooks_file`]); a test fails when the committed files
//! differ, so there is one description, not two.
//!
//! The plugin's commands are the exec form with the bare program name
//! `gk`: no shell, and the client looks the name up on PATH (measured on
//! 2.1.332: Linux finds `gk`, the Windows client finds `gk.exe`; without
//! one on PATH every hook reports "Executable not found in $PATH" and the
//! turn goes on). So the plugin needs gk installed on PATH; it carries no
//! program of its own.

use crate::edit::settings_edit::{self, WantedHooks};
use crate::hookcmd::{HookCommand, HookKind, SWITCH_EVENTS_SINCE};

/// The marketplace's name (`claude plugin install gk@gk`).
pub const MARKETPLACE: &str = "gk";
/// The plugin's name.
pub const PLUGIN: &str = "gk";
/// The plugin's folder, relative to the repository root.
pub const PLUGIN_DIR: &str = "plugin";

/// The switch guard's plugin (`claude plugin install gk-switch-guard@gk`).
pub const SWITCH_PLUGIN: &str = "gk-switch-guard";
/// Its folder, relative to the repository root.
pub const SWITCH_PLUGIN_DIR: &str = "plugin-switch-guard";

const DESCRIPTION: &str =
    "gk's hooks: the prompt gatekeeper, the task-state monitor and the session check. The plugin carries no program: install gk on PATH first (the release installer, scoop, winget or cargo install: see README.md in the plugin folder), then run `gk install` for the permission rules a plugin cannot carry";

fn switch_description() -> String {
    format!(
        "gk's switch guard: asks before a /model switch in the middle of a task, and tells Claude about the switch after it. Needs Claude Code {SWITCH_EVENTS_SINCE} or newer (an older client fails to load this plugin, and only this one), gk on PATH, and gk's main plugin (gk@gk) or `gk install` for the other hooks"
    )
}

/// `gk hook <kind>` in the exec form, the program found by name on PATH.
fn exec_form(kind: HookKind) -> HookCommand {
    HookCommand {
        command: "gk".into(),
        args: Some(vec!["hook".into(), kind.arg().into()]),
        shell: None,
    }
}

/// What the main plugin registers: each hook every client knows as
/// `gk hook <kind>` in the exec form.
pub fn plugin_hooks() -> WantedHooks {
    WantedHooks::of(exec_form)
}

/// What the switch guard's plugin registers: the hooks a client of
/// [`SWITCH_EVENTS_SINCE`] knows, minus the main plugin's.
pub fn switch_plugin_hooks() -> WantedHooks {
    WantedHooks::for_client(Some(SWITCH_EVENTS_SINCE), exec_form).leaving(&HookKind::ALWAYS)
}

fn json(v: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    text.push('\n');
    text
}

/// Every file of the marketplace and its plugin: (path relative to the
/// repository root, text).
pub fn files() -> Vec<(String, String)> {
    let version = env!("CARGO_PKG_VERSION");
    let switch_description = switch_description();
    let plugins = [
        (PLUGIN, PLUGIN_DIR, DESCRIPTION, plugin_hooks()),
        (
            SWITCH_PLUGIN,
            SWITCH_PLUGIN_DIR,
            switch_description.as_str(),
            switch_plugin_hooks(),
        ),
    ];
    let marketplace = serde_json::json!({
        "name": MARKETPLACE,
        "owner": {"name": "gk"},
        "plugins": plugins.iter().map(|(name, dir, description, _)| serde_json::json!({
            "name": name,
            "source": format!("./{dir}"),
            "description": description,
            "version": version,
        })).collect::<Vec<_>>(),
    });
    let mut out = vec![(".claude-plugin/marketplace.json".into(), json(&marketplace))];
    for (name, dir, description, hooks) in &plugins {
        let manifest = serde_json::json!({
            "name": name,
            "version": version,
            "description": description,
        });
        out.push((format!("{dir}/.claude-plugin/plugin.json"), json(&manifest)));
        out.push((
            format!("{dir}/hooks/hooks.json"),
            settings_edit::hooks_file(description, hooks),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hookcmd::{CommandContext, HookKind};
    use crate::hooks::convention;
    use crate::hooks::plugin::{convention_context, MAX_CLAUDE_MD};
    use crate::paths::ClaudePaths;
    use crate::platform::Os;
    use std::path::Path;

    /// The committed marketplace and plugin files are what [`files`]
    /// renders. After a change to what gk registers (or a version bump):
    /// `GK_WRITE_PLUGIN_FILES=1 cargo test --lib plugin_files` writes them.
    #[test]
    fn the_committed_plugin_files_are_the_rendered_ones() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let write = std::env::var_os("GK_WRITE_PLUGIN_FILES").is_some();
        let mut stale = Vec::new();
        for (rel, text) in files() {
            let path = root.join(&rel);
            if write {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &text).unwrap();
            }
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(rel);
            }
        }
        assert!(
            stale.is_empty(),
            "{stale:?} differ from what gk registers; GK_WRITE_PLUGIN_FILES=1 cargo test --lib plugin_files writes them"
        );
    }

    #[test]
    fn the_plugin_registers_each_hook_as_install_does_in_the_exec_form() {
        let v = file("plugin/hooks/hooks.json");
        let events = v["hooks"].as_object().unwrap();
        assert_eq!(events.len(), 3);
        for kind in HookKind::ALWAYS {
            let groups = v["hooks"][kind.event()].as_array().unwrap();
            assert_eq!(groups.len(), 1, "{kind:?}");
            assert_eq!(groups[0].get("matcher"), None);
            let handler = &groups[0]["hooks"][0];
            assert_eq!(handler["type"], "command");
            assert_eq!(handler["command"], "gk");
            assert_eq!(handler["args"], serde_json::json!(["hook", kind.arg()]));
            assert_eq!(handler.get("shell"), None);
            let spec = kind.spec();
            assert_eq!(
                handler.get("statusMessage").and_then(|m| m.as_str()),
                spec.status_message
            );
            assert_eq!(
                handler.get("timeout").and_then(|t| t.as_i64()),
                spec.timeout
            );
        }
        // Every command is gk's own, as doctor and install recognise it.
        let ctx = crate::hookcmd::CommandContext::with_home(crate::platform::Os::Linux, "/h");
        for kind in HookKind::ALWAYS {
            let cmd = plugin_hooks().get(kind).unwrap().run_command();
            assert_eq!(
                crate::hookcmd::classify_under(kind.event(), &cmd, &ctx),
                crate::hookcmd::Owner::Gk(kind)
            );
        }
        // The marketplace points at the plugin folder the way the client
        // accepts (`./…`; a bare name is refused, measured).
        let (_, market) = &files()[0];
        let m: serde_json::Value = serde_json::from_str(market).unwrap();
        assert_eq!(m["plugins"][0]["source"], "./plugin");
        assert_eq!(m["name"], MARKETPLACE);
    }

    /// The rendered file at `rel`, parsed.
    fn file(rel: &str) -> serde_json::Value {
        let (_, text) = files().into_iter().find(|(p, _)| p == rel).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_switch_guard_plugin_registers_only_the_switch_events_as_install_does() {
        let v = file("plugin-switch-guard/hooks/hooks.json");
        let mut events: Vec<&String> = v["hooks"].as_object().unwrap().keys().collect();
        events.sort();
        assert_eq!(events, ["PostModelSwitch", "PreModelSwitch"]);
        let ctx = CommandContext::with_home(Os::Linux, "/h");
        for kind in [HookKind::PreSwitch, HookKind::PostSwitch] {
            let groups = v["hooks"][kind.event()].as_array().unwrap();
            assert_eq!(groups.len(), 1, "{kind:?}");
            let handler = &groups[0]["hooks"][0];
            assert_eq!(handler["command"], "gk");
            assert_eq!(handler["args"], serde_json::json!(["hook", kind.arg()]));
            assert_eq!(handler.get("shell"), None);
            assert_eq!(
                handler.get("timeout").and_then(|t| t.as_i64()),
                kind.spec().timeout
            );
            let cmd = switch_plugin_hooks().get(kind).unwrap().run_command();
            assert_eq!(
                crate::hookcmd::classify_under(kind.event(), &cmd, &ctx),
                crate::hookcmd::Owner::Gk(kind)
            );
        }
        // The main plugin names none of them: an older client keeps it.
        let main = file("plugin/hooks/hooks.json");
        assert!(main["hooks"].get("PreModelSwitch").is_none());
        // Both listed in the one marketplace, the opt-in second.
        let m = file(".claude-plugin/marketplace.json");
        assert_eq!(m["plugins"][1]["name"], SWITCH_PLUGIN);
        assert_eq!(m["plugins"][1]["source"], "./plugin-switch-guard");
        let says = m["plugins"][1]["description"].as_str().unwrap();
        assert!(says.contains("Claude Code 2.1.251 or newer"), "{says}");
        assert_eq!(
            file("plugin-switch-guard/.claude-plugin/plugin.json")["name"],
            SWITCH_PLUGIN
        );
    }

    // The session check from a plugin (`crate::hooks::plugin`).

    #[test]
    fn gks_own_plugin_registers_all_three_hooks() {
        // The repository as the client records a directory marketplace,
        // and the plugin enabled in user settings: the registry's table
        // holds each of gk's hooks from the plugin (bare `gk`, exec form).
        let dir = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        std::fs::write(
            dir.path().join("known_marketplaces.json"),
            serde_json::json!({"gk": {"source": {"source": "directory", "path": repo}}})
                .to_string(),
        )
        .unwrap();
        let files = crate::registry::scopes::test_files(&[(
            crate::registry::scopes::Scope::User,
            r#"{"enabledPlugins": {"gk@gk": true}}"#,
        )]);
        let plugins = crate::registry::plugins::load_plugins(
            &files,
            dir.path(),
            crate::registry::plugins::PluginBudget::SESSION,
        );
        let ctx = CommandContext::with_home(Os::Linux, "/h");
        let t = crate::registry::table::Table::with_plugins(&files, &plugins, &ctx);
        for kind in HookKind::ALWAYS {
            let rows: Vec<_> = t.doing(kind).collect();
            assert_eq!(rows.len(), 1, "{kind:?}: {rows:?}");
            assert_eq!(rows[0].plugin.as_ref().unwrap().id, "gk@gk");
        }
    }

    #[test]
    fn the_convention_is_given_only_where_claude_md_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ClaudePaths::at(dir.path());
        let given = convention_context(&paths).unwrap();
        let state = paths.state_file().display().to_string();
        assert_eq!(given, convention::section_for(&state));
        assert!(given.contains(&state));
        std::fs::write(paths.claude_md(), "# Mine\n\nno convention here\n").unwrap();
        assert!(convention_context(&paths).is_some());
        for held in [
            "# Mine\n<!-- gk:begin (added by gk install) -->\nx\n<!-- gk:end -->\n",
            "## Task State Convention (Gatekeeper Hooks)\nold\n",
        ] {
            std::fs::write(paths.claude_md(), held).unwrap();
            assert_eq!(convention_context(&paths), None, "{held}");
        }
        // Too large to look through: nothing added.
        std::fs::write(paths.claude_md(), "x".repeat(MAX_CLAUDE_MD as usize + 1)).unwrap();
        assert_eq!(convention_context(&paths), None);
    }
}
