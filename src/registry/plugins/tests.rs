//! Each rule of the plugin reader, with the client behaviour it follows
//! (measured on client 2.1.332; docs/maintainers/claude-code-facts.md,
//! "Plugins").

use super::*;
use crate::registry::scopes::test_files;

/// A home with a `<claude dir>/plugins` and a `directory` marketplace
/// `mkt` in `<tmp>/mkt`, holding each named plugin with `hooks_json`.
pub(crate) struct World {
    tmp: tempfile::TempDir,
}

impl World {
    pub(crate) fn new() -> World {
        let w = World {
            tmp: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(w.plugins_dir()).unwrap();
        std::fs::create_dir_all(w.mkt().join(".claude-plugin")).unwrap();
        w
    }

    pub(crate) fn plugins_dir(&self) -> PathBuf {
        self.tmp.path().join("home/.claude/plugins")
    }

    fn mkt(&self) -> PathBuf {
        self.tmp.path().join("mkt")
    }

    /// Record `mkt` as a directory marketplace holding `names`.
    pub(crate) fn marketplace(&self, names: &[&str]) {
        let plugins: Vec<Value> = names
            .iter()
            .map(|n| serde_json::json!({"name": n, "source": format!("./plugins/{n}")}))
            .collect();
        std::fs::write(
            self.mkt().join(".claude-plugin/marketplace.json"),
            serde_json::json!({"name": "mkt", "plugins": plugins}).to_string(),
        )
        .unwrap();
        std::fs::write(
            self.plugins_dir().join("known_marketplaces.json"),
            serde_json::json!({"mkt": {"source": {"source": "directory", "path": self.mkt()}}})
                .to_string(),
        )
        .unwrap();
    }

    pub(crate) fn plugin_root(&self, name: &str) -> PathBuf {
        self.mkt().join("plugins").join(name)
    }

    pub(crate) fn plugin(&self, name: &str, hooks_json: &str) {
        let root = self.plugin_root(name);
        std::fs::create_dir_all(root.join("hooks")).unwrap();
        std::fs::create_dir_all(root.join(".claude-plugin")).unwrap();
        std::fs::write(
            root.join(".claude-plugin/plugin.json"),
            format!(r#"{{"name": "{name}"}}"#),
        )
        .unwrap();
        std::fs::write(root.join("hooks/hooks.json"), hooks_json).unwrap();
    }

    fn load(&self, files: &[(Scope, &str)]) -> Plugins {
        load_plugins(
            &test_files(files),
            &self.plugins_dir(),
            PluginBudget::DOCTOR,
        )
    }
}

pub(crate) const GK_EXEC: &str = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/gk", "args": ["hook", "prompt"]}]}]}}"#;

fn ids(p: &Plugins) -> Vec<(&str, bool)> {
    p.enabled
        .iter()
        .map(|p| (p.id.as_str(), p.forced))
        .collect()
}

#[test]
fn the_highest_scope_naming_a_plugin_decides_true_or_false() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let on = r#"{"enabledPlugins": {"a@mkt": true}}"#;
    let off = r#"{"enabledPlugins": {"a@mkt": false}}"#;
    // Measured: project false over user true -> off; user false, project
    // true -> on; local beats project; managed beats all and forces.
    assert!(ids(&w.load(&[(Scope::User, on), (Scope::Project, off)])).is_empty());
    assert_eq!(
        ids(&w.load(&[(Scope::User, off), (Scope::Project, on)])),
        [("a@mkt", false)]
    );
    assert!(ids(&w.load(&[(Scope::Project, on), (Scope::Local, off)])).is_empty());
    assert_eq!(
        ids(&w.load(&[(Scope::User, off), (Scope::Managed, on)])),
        [("a@mkt", true)]
    );
    assert!(ids(&w.load(&[(Scope::User, on), (Scope::Managed, off)])).is_empty());
}

#[test]
fn a_directory_marketplace_is_read_from_its_folder_not_the_cache_copy() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let cache = w.plugins_dir().join("cache/mkt/a/1.0.0");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(
        w.plugins_dir().join("installed_plugins.json"),
        serde_json::json!({"version": 2, "plugins": {"a@mkt": [{"scope": "user", "installPath": cache}]}})
            .to_string(),
    )
    .unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    assert_eq!(
        p.enabled[0].root.as_deref(),
        Some(w.plugin_root("a").as_path())
    );
    assert_eq!(p.enabled[0].hooks.len(), 1);
}

#[test]
fn another_marketplace_is_read_from_the_recorded_install_path() {
    let w = World::new();
    let copy = w.plugins_dir().join("cache/gh/a/2.0.0");
    std::fs::create_dir_all(copy.join("hooks")).unwrap();
    std::fs::write(copy.join("hooks/hooks.json"), GK_EXEC).unwrap();
    std::fs::write(
        w.plugins_dir().join("installed_plugins.json"),
        serde_json::json!({"version": 2, "plugins": {"a@gh": [{"scope": "user", "installPath": copy}]}})
            .to_string(),
    )
    .unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@gh": true}}"#)]);
    assert_eq!(p.enabled[0].root.as_deref(), Some(copy.as_path()));
    // The copy gone: enabled, but nothing runs; said, not passed over.
    std::fs::remove_dir_all(&copy).unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@gh": true}}"#)]);
    assert!(p.enabled.is_empty());
    assert!(matches!(
        &p.trouble[..],
        [Trouble::Missing { id, expected: Some(e), .. }] if id == "a@gh" && *e == copy
    ));
}

#[test]
fn the_manifest_names_more_hooks_files_and_the_standard_one_loads_once() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let root = w.plugin_root("a");
    std::fs::write(root.join("extra.json"), GK_EXEC).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "a", "hooks": ["./hooks/hooks.json", "./extra.json", "../outside.json"]}"#,
    )
    .unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    let paths: Vec<&Path> = p.enabled[0]
        .hooks
        .iter()
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(
        paths,
        [root.join("hooks/hooks.json"), root.join("extra.json")]
    );
    // An inline event map is the manifest's own `hooks`.
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "a", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
    )
    .unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    assert_eq!(p.enabled[0].hooks.len(), 2);
    assert!(p.enabled[0].hooks[1].path.ends_with("plugin.json"));
}

#[test]
fn two_plugins_of_one_name_count_once() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let p = w.load(&[(
        Scope::User,
        r#"{"enabledPlugins": {"a@mkt": true, "a@other": true}}"#,
    )]);
    assert_eq!(ids(&p), [("a@mkt", false)]);
}

#[test]
fn past_the_budget_the_rest_is_said_not_read() {
    let w = World::new();
    let many: Vec<String> = (0..150).map(|i| format!("\"p{i}@x\": true")).collect();
    let text = format!("{{\"enabledPlugins\": {{{}}}}}", many.join(", "));
    let files = test_files(&[(Scope::User, &text)]);
    let p = load_plugins(&files, &w.plugins_dir(), PluginBudget::SESSION);
    assert!(p.trouble.contains(&Trouble::NotChecked { count: 50 }));
    let missing = p
        .trouble
        .iter()
        .filter(|t| matches!(t, Trouble::Missing { .. }))
        .count();
    assert_eq!(missing, 100);
}

#[cfg(unix)]
#[test]
fn a_pipe_for_a_hooks_file_is_reported_and_never_read() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let hooks = w.plugin_root("a").join("hooks/hooks.json");
    std::fs::remove_file(&hooks).unwrap();
    let c = std::ffi::CString::new(hooks.to_string_lossy().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // No writer ever opens it: a blocking read would hang this test.
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    assert_eq!(p.enabled[0].hangs, [hooks]);
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_plugin_folder_is_refused() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let outside = w.tmp.path().join("outside.json");
    std::fs::write(&outside, GK_EXEC).unwrap();
    let hooks = w.plugin_root("a").join("hooks/hooks.json");
    std::fs::remove_file(&hooks).unwrap();
    std::os::unix::fs::symlink(&outside, &hooks).unwrap();
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    assert!(matches!(p.enabled[0].hooks[0].load, Load::Unreadable(_)));
}

#[test]
fn only_a_file_that_may_name_gk_is_parsed_for_the_session_check() {
    assert!(!may_hold_gk(
        br#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}"#
    ));
    assert!(may_hold_gk(br#"{"command": "GK.EXE hook prompt"}"#));
    assert!(may_hold_gk(br#"{"command": "\u0067k hook prompt"}"#));
    assert!(may_hold_gk(br#"{"command": "python3 Gatekeeper.py"}"#));
    assert!(may_hold_gk(
        br#"{"command": "python3 hooks/STATE_MONITOR.PY"}"#
    ));
    assert!(may_hold_gk(b"g\nk gk"));
    assert!(!may_hold_gk(b"g"));
    assert!(!may_hold_gk(b"state_monitor.p"));
}

#[cfg(unix)]
#[test]
fn a_link_inside_the_plugin_folder_is_read() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", "{}");
    let root = w.plugin_root("a");
    std::fs::write(root.join("real.json"), GK_EXEC).unwrap();
    std::fs::remove_file(root.join("hooks/hooks.json")).unwrap();
    std::os::unix::fs::symlink(root.join("real.json"), root.join("hooks/hooks.json")).unwrap();
    for budget in [PluginBudget::DOCTOR, PluginBudget::SESSION] {
        let files = test_files(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
        let p = load_plugins(&files, &w.plugins_dir(), budget);
        assert!(
            matches!(p.enabled[0].hooks[0].load, Load::Parsed { .. }),
            "{:?}",
            p.enabled[0].hooks[0].load
        );
    }
}

#[test]
fn the_session_check_reads_a_manifest_whose_hooks_key_is_escaped() {
    // `\u0068ooks` is `hooks` to a JSON reader, and so to the client.
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", "{}");
    let root = w.plugin_root("a");
    std::fs::write(root.join("more.json"), GK_EXEC).unwrap();
    std::fs::write(
        root.join(".claude-plugin/plugin.json"),
        r#"{"name": "a", "\u0068ooks": "./more.json"}"#,
    )
    .unwrap();
    let files = test_files(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    let p = load_plugins(&files, &w.plugins_dir(), PluginBudget::SESSION);
    let paths: Vec<_> = p.enabled[0].hooks.iter().map(|f| f.path.clone()).collect();
    assert_eq!(
        paths,
        [root.join("hooks/hooks.json"), root.join("more.json")]
    );
}

#[test]
fn a_plugin_folder_without_a_manifest_loads_and_a_file_in_its_place_is_missing() {
    let w = World::new();
    w.marketplace(&["a", "b"]);
    w.plugin("a", GK_EXEC);
    std::fs::remove_file(w.plugin_root("a").join(".claude-plugin/plugin.json")).unwrap();
    std::fs::create_dir_all(w.mkt().join("plugins")).unwrap();
    std::fs::write(w.plugin_root("b"), "not a folder").unwrap();
    for budget in [PluginBudget::DOCTOR, PluginBudget::SESSION] {
        let files = test_files(&[(
            Scope::User,
            r#"{"enabledPlugins": {"a@mkt": true, "b@mkt": true}}"#,
        )]);
        let p = load_plugins(&files, &w.plugins_dir(), budget);
        assert_eq!(ids(&p), [("a@mkt", false)]);
        assert!(matches!(p.enabled[0].hooks[0].load, Load::Parsed { .. }));
        assert!(matches!(
            &p.trouble[..],
            [Trouble::Missing { id, .. }] if id == "b@mkt"
        ));
    }
}

#[test]
fn the_root_is_put_in_once_as_the_client_and_the_shell_do() {
    // Measured on 2.1.332 with the plugin in a folder named after the
    // variable (docs/maintainers/claude-code-facts.md, "Plugins").
    let root = "/m/a${CLAUDE_PLUGIN_ROOT}b$CLAUDE_PLUGIN_ROOT";
    let shell = expand_root(
        "${CLAUDE_PLUGIN_ROOT}|$CLAUDE_PLUGIN_ROOT",
        root,
        true,
        1 << 20,
    );
    assert_eq!(shell.unwrap(), format!("{root}|{root}"));
    // The exec form replaces the braced name only.
    let exec = expand_root(
        "${CLAUDE_PLUGIN_ROOT}|$CLAUDE_PLUGIN_ROOT",
        root,
        false,
        1 << 20,
    );
    assert_eq!(exec.unwrap(), format!("{root}|$CLAUDE_PLUGIN_ROOT"));
    // Another variable whose name starts the same is left to the shell.
    let other = expand_root(
        "$CLAUDE_PLUGIN_ROOTS $CLAUDE_PLUGIN_ROOT_X $",
        "/r",
        true,
        100,
    );
    assert_eq!(
        other.unwrap(),
        "$CLAUDE_PLUGIN_ROOTS $CLAUDE_PLUGIN_ROOT_X $"
    );
    // Past the bound: nothing, however far past it the text would grow.
    let many = "${CLAUDE_PLUGIN_ROOT}".repeat(11_000);
    assert_eq!(
        expand_root(&many, &"r".repeat(4_000), true, MAX_EXPANDED),
        None
    );
    assert_eq!(
        expand_root("${CLAUDE_PLUGIN_ROOT}", "/r", true, 1).as_deref(),
        None
    );
}

#[test]
fn a_later_scope_replaces_an_earlier_ones_verdict_in_first_seen_order() {
    let on = enabled_plugins(&test_files(&[
        (
            Scope::User,
            r#"{"enabledPlugins": {"a@m": true, "b@m": true}}"#,
        ),
        (
            Scope::Project,
            r#"{"enabledPlugins": {"c@m": true, "a@m": false}}"#,
        ),
        (Scope::Local, r#"{"enabledPlugins": {"b@m": "yes"}}"#),
    ]));
    let got: Vec<(&str, bool, Scope)> =
        on.iter().map(|(i, v, s, _)| (i.as_str(), *v, *s)).collect();
    assert_eq!(
        got,
        [
            ("a@m", false, Scope::Project),
            ("b@m", true, Scope::User),
            ("c@m", true, Scope::Project)
        ]
    );
}

#[test]
fn the_plugins_spend_what_the_settings_left_of_one_budget() {
    let w = World::new();
    w.marketplace(&["a"]);
    w.plugin("a", GK_EXEC);
    let files = test_files(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    let hooks_file = w.plugin_root("a").join("hooks").join("hooks.json");
    // `spent`: bytes and handlers the settings files already took.
    let read = |budget: Budget, bytes: usize, handlers: usize| {
        let mut spent = Spent::new(budget);
        spent.grow(bytes);
        spent.entries(handlers);
        load_plugins_spending(&files, &w.plugins_dir(), PluginBudget::SESSION, &mut spent)
    };
    let named = |p: &Plugins| -> Vec<PathBuf> { p.unread.iter().map(|u| u.path.clone()).collect() };
    let whole = read(Budget::SESSION, 0, 0);
    assert!(whole.unread.is_empty(), "{:?}", whole.unread);
    assert!(whole.enabled[0].hooks[0].effective());
    // Bytes: the settings took all but 100 of the 1 MiB: the marketplace
    // listing is past it, so where the plugin is stays unknown (named, not
    // called missing).
    let bytes = read(Budget::SESSION, (1 << 20) - 100, 0);
    let listing = w.mkt().join(".claude-plugin").join("marketplace.json");
    assert_eq!(named(&bytes), [listing], "{:?}", bytes.unread);
    assert_eq!(bytes.unread[0].why, super::super::scopes::TOO_LARGE);
    assert!(bytes.trouble.is_empty() && bytes.enabled.is_empty());
    // Handlers: the settings took every one of the 2,000.
    let handlers = read(Budget::SESSION, 0, 2_000);
    assert_eq!(named(&handlers), std::slice::from_ref(&hooks_file));
    // Files: the client's records and the marketplace listing take three,
    // the plugin's manifest the last one; its hooks file is not looked for.
    let few = Budget {
        files: 4,
        ..Budget::SESSION
    };
    assert_eq!(named(&read(few, 0, 0)), [hooks_file]);
    // Hooks paths: a manifest naming more than the budget is named itself.
    let list: Vec<String> = (0..1_001).map(|i| format!("h{i}.json")).collect();
    std::fs::write(
        w.plugin_root("a").join(".claude-plugin/plugin.json"),
        serde_json::json!({"name": "a", "hooks": list}).to_string(),
    )
    .unwrap();
    let paths = read(Budget::SESSION, 0, 0);
    assert_eq!(
        named(&paths),
        [w.plugin_root("a")
            .join(".claude-plugin")
            .join("plugin.json")]
    );
    // Doctor's budget follows them all (the absent ones are absent).
    let p = w.load(&[(Scope::User, r#"{"enabledPlugins": {"a@mkt": true}}"#)]);
    assert!(p.unread.is_empty(), "{:?}", p.unread);
}
