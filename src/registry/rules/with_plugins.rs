//! The rules over a table that holds a plugin's rows beside the
//! settings' (the plugins read by [`crate::registry::plugins`], in the
//! world its tests build).

use crate::hookcmd::{CommandContext, HookKind, Owner};
use crate::platform::Os;
use crate::registry::plugins::tests::{World, GK_EXEC};
use crate::registry::plugins::{load_plugins, PluginBudget};
use crate::registry::rules;
use crate::registry::scopes::{test_files, Scope};
use crate::registry::table::Table;

fn table(w: &World, files: &[(Scope, &str)]) -> Table {
    let files = test_files(files);
    let plugins = load_plugins(&files, &w.plugins_dir(), PluginBudget::DOCTOR);
    Table::with_plugins(
        &files,
        &plugins,
        &CommandContext::with_home(Os::Linux, "/h"),
    )
}

#[test]
fn the_plugin_root_is_put_in_and_gks_hook_is_recognised() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let t = table(
        &w,
        &[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)],
    );
    let r = t
        .doing(HookKind::Prompt)
        .next()
        .expect("gk's prompt hook from the plugin");
    assert_eq!(r.owner, Owner::Gk(HookKind::Prompt));
    assert_eq!(r.scope, Scope::Plugin);
    // Put in as text, the rest of the command as written (`…\a/bin/gk` on
    // Windows).
    let gk = format!("{}/bin/gk", w.plugin_root("a").display());
    assert_eq!(r.exec.as_deref().unwrap()[0], gk);
}

#[test]
fn one_string_in_a_plugin_and_in_settings_is_started_twice() {
    let w = World::new();
    let same = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/h/.claude/hooks/gk hook prompt"}]}]}}"#;
    w.marketplace(&["a", "b"]);
    w.plugin("a", same);
    w.plugin("b", same);
    let user = r#"{"enabledPlugins": {"a@mkt": true},
        "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/h/.claude/hooks/gk hook prompt"}]}]}}"#;
    let project = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "/h/.claude/hooks/gk hook prompt"}]}]}}"#;
    // Measured: plugin + user = 2; user + project merge into one.
    let t = table(&w, &[(Scope::User, user), (Scope::Project, project)]);
    assert_eq!(rules::spellings(&t, HookKind::Prompt).len(), 2);
    // Two plugins, no settings copy: 2.
    let both = r#"{"enabledPlugins": {"a@mkt": true, "b@mkt": true}}"#;
    let t = table(&w, &[(Scope::User, both)]);
    assert_eq!(rules::spellings(&t, HookKind::Prompt).len(), 2);
    // Managed and user: 2 (measured), where user and project merged.
    let t = table(&w, &[(Scope::User, project), (Scope::Managed, project)]);
    assert_eq!(rules::spellings(&t, HookKind::Prompt).len(), 2);
}

#[test]
fn only_plugins_managed_settings_enable_run_under_allow_managed_hooks_only() {
    let w = World::new();
    w.marketplace(&["a", "b"]);
    w.plugin("a", GK_EXEC);
    w.plugin(
        "b",
        &GK_EXEC
            .replace("prompt", "stop")
            .replace("UserPromptSubmit", "Stop"),
    );
    let user = r#"{"enabledPlugins": {"a@mkt": true}}"#;
    let managed = r#"{"allowManagedHooksOnly": true, "enabledPlugins": {"b@mkt": true}}"#;
    let t = table(&w, &[(Scope::User, user), (Scope::Managed, managed)]);
    assert_eq!(t.running(HookKind::Prompt).count(), 0);
    assert_eq!(t.running(HookKind::Stop).count(), 1);
    // A managed disableAllHooks stops even those.
    let managed = r#"{"disableAllHooks": true, "enabledPlugins": {"b@mkt": true}}"#;
    let t = table(&w, &[(Scope::User, user), (Scope::Managed, managed)]);
    assert_eq!(t.running(HookKind::Stop).count(), 0);
}
