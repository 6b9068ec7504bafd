//! The plugin reader (`registry::plugins`) on any plugin files.
//!
//! Input: a selector byte, then up to three texts separated by `\0`: the
//! plugin's manifest (`.claude-plugin/plugin.json`), its
//! `hooks/hooks.json`, and the marketplace listing
//! (`.claude-plugin/marketplace.json`; when absent, one that lists the
//! plugin). The selector picks the plugin folder's name (plain, or holding
//! `$CLAUDE_PLUGIN_ROOT` and `${CLAUDE_PLUGIN_ROOT}`). The files are
//! written under a folder of this process, the plugin enabled, and read
//! with the session check's budget and with doctor's. Whatever they hold,
//! the reading ends, nothing panics, and no command or argument of a row
//! is longer than `MAX_EXPANDED`; `${CLAUDE_PLUGIN_ROOT}` is put in once
//! (a root holding the name is never expanded again). Also, on the input
//! as text: `expand_root` never returns more than it is allowed, and
//! leaves a text without the name as it is.
#![no_main]

use std::path::{Path, PathBuf};

use gk::testing::hookcmd::CommandContext;
use gk::testing::platform::Os;
use gk::testing::registry::{
    classify_text, expand_root, load_plugins, PluginBudget, Scope, ScopeFile, Table, MAX_EXPANDED,
};
use libfuzzer_sys::fuzz_target;

fn base() -> PathBuf {
    std::env::temp_dir().join(format!("gk-fuzz-plugin-reader-{}", std::process::id()))
}

fn write(path: &Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    // expand_root on the input itself.
    let text = String::from_utf8_lossy(rest);
    let most = usize::from(sel) * 64;
    match expand_root(&text, "/r$CLAUDE_PLUGIN_ROOT", sel & 1 == 0, most) {
        Some(out) => {
            assert!(out.len() <= most, "{} > {most}", out.len());
            if !text.contains("CLAUDE_PLUGIN_ROOT") {
                assert_eq!(out, text);
            }
        }
        None => assert!(text.len() > 0),
    }

    let mut parts = rest.splitn(3, |&b| b == 0);
    let manifest = parts.next().unwrap_or_default();
    let hooks = parts.next();
    let listing = parts.next();
    let dir = base();
    let _ = std::fs::remove_dir_all(&dir);
    let folder = if sel & 2 == 0 {
        "p".to_string()
    } else {
        "p$CLAUDE_PLUGIN_ROOT${CLAUDE_PLUGIN_ROOT}".to_string()
    };
    let mkt = dir.join("mkt");
    let root = mkt.join(&folder);
    write(&root.join(".claude-plugin/plugin.json"), manifest);
    if let Some(h) = hooks {
        write(&root.join("hooks/hooks.json"), h);
    }
    let listed = format!(
        r#"{{"name": "m", "plugins": [{{"name": "p", "source": {}}}]}}"#,
        serde_json::to_string(&format!("./{folder}")).unwrap()
    );
    write(
        &mkt.join(".claude-plugin/marketplace.json"),
        listing.unwrap_or(listed.as_bytes()),
    );
    let settings = serde_json::json!({
        "extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": mkt}}},
        "enabledPlugins": {"p@m": true},
    })
    .to_string();
    let files = vec![ScopeFile {
        scope: Scope::Project,
        path: dir.join("settings.json"),
        load: classify_text(&dir.join("settings.json"), &settings),
    }];
    let ctx = CommandContext::with_home(Os::Linux, "/home/u");
    for budget in [PluginBudget::SESSION, PluginBudget::DOCTOR] {
        let plugins = load_plugins(&files, &dir.join("plugins"), budget);
        let t = Table::with_plugins(&files, &plugins, &ctx);
        for r in &t.rows {
            match &r.exec {
                // The exec form: the program and each argument, bounded.
                Some(argv) => {
                    for a in argv {
                        assert!(a.len() <= MAX_EXPANDED, "{}", a.len());
                    }
                }
                None => assert!(r.command.len() <= MAX_EXPANDED, "{}", r.command.len()),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});
