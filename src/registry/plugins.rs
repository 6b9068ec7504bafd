//! The plugins the client loads hooks from, read the way it reads them
//! (measured on client 2.1.332; docs/maintainers/claude-code-facts.md,
//! "Plugins"):
//!
//! - A plugin runs when the highest scope that names it in
//!   `enabledPlugins` says `true`: user < project < local < managed (a
//!   later `false` switches it off, a later `true` on).
//! - Its folder: for a marketplace of the `directory` kind (a folder or a
//!   repository on disk), the plugin's own folder in that marketplace, read
//!   live (the copy under `plugins/cache/` is not used); otherwise the
//!   `installPath` that `installed_plugins.json` records.
//! - Its hooks: `hooks/hooks.json`, and the `hooks` of
//!   `.claude-plugin/plugin.json` (a path relative to the plugin folder, an
//!   inline event map, or a list of those); all of them together.
//! - `${CLAUDE_PLUGIN_ROOT}` (also `${CLAUDE_PLUGIN_DATA}`,
//!   `${CLAUDE_PROJECT_DIR}`) is replaced in an exec-form `command` and its
//!   `args`; a shell-form command gets the same values as variables.
//! - Two plugins of one name (from two marketplaces): the second is
//!   skipped.
//! - A hooks file that a link leads out of the plugin folder is refused.
//!
//! `<plugins dir>` is `CLAUDE_CODE_PLUGIN_CACHE_DIR` when set, else
//! `<claude dir>/plugins` ([`crate::machine::Machine::plugins_dir`]).
//! Every read is bounded (a named pipe or a device is reported, never
//! opened for reading), and the number of plugins read is bounded too.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::scopes::{classify_bytes, Load, Scope, ScopeFile};
use crate::hookcmd::HookKind;

/// How much the plugins may cost one reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PluginBudget {
    /// Enabled plugins read; the rest are reported as not checked.
    pub plugins: usize,
    /// Bytes of one file (a hooks file, a manifest, the client's records).
    pub file_bytes: u64,
    /// Parse only the hooks files that may hold a hook of gk's (see
    /// [`may_hold_gk`]); the others count as holding no hook. The session
    /// check looks at gk's hooks only, and parsing every plugin's file
    /// cost it 2.5 times a no-op process with 50 plugins.
    pub gk_only: bool,
}

impl PluginBudget {
    /// The session check's: a hundred plugins, 256 KiB a file.
    pub const SESSION: PluginBudget = PluginBudget {
        plugins: 100,
        file_bytes: 256 << 10,
        gk_only: true,
    };
    /// Doctor's: every file whole (up to the text limit), a thousand plugins.
    pub const DOCTOR: PluginBudget = PluginBudget {
        plugins: 1_000,
        file_bytes: crate::bounded::TEXT_LIMIT,
        gk_only: false,
    };
}

/// One enabled plugin and the hooks files it brings.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// `<name>@<marketplace>`, as `enabledPlugins` names it.
    pub id: String,
    pub name: String,
    /// The settings file whose `true` enables it (the highest scope naming it).
    pub enabled_in: (Scope, PathBuf),
    /// Managed settings enable it: its hooks still run under
    /// `allowManagedHooksOnly` and a non-managed `disableAllHooks`.
    pub forced: bool,
    /// The folder the client reads it from (`None`: not found).
    pub root: Option<PathBuf>,
    /// Each hooks file, as a settings-shaped file (`hooks` at its top).
    pub hooks: Vec<ScopeFile>,
    /// Hooks files that are a named pipe, socket or device. Measured: the
    /// client reads a pipe there and waits for ever, at every start (gk
    /// never opens one for reading).
    pub hangs: Vec<PathBuf>,
}

/// Something about an enabled plugin that keeps its hooks from running.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// Enabled, but the client's records name no folder for it, or the
    /// folder is gone: the client runs none of its hooks, and says so only
    /// in its debug log.
    Missing {
        id: String,
        enabled_in: (Scope, PathBuf),
        /// Where the folder should be, when the records say.
        expected: Option<PathBuf>,
        /// This machine installed it once, or added its marketplace: the
        /// client's records name the plugin, or `known_marketplaces.json`
        /// its marketplace. Otherwise settings enable a plugin this machine
        /// never had (a project's team plugin): nothing that was set up
        /// here has gone.
        installed: bool,
    },
    /// More plugins are enabled than this reading's budget: the rest were
    /// not read.
    NotChecked { count: usize },
}

/// Every enabled plugin, and what keeps any of them from running.
#[derive(Debug, Clone, Default)]
pub struct Plugins {
    pub enabled: Vec<Plugin>,
    pub trouble: Vec<Trouble>,
}

impl Plugins {
    pub fn none() -> Plugins {
        Plugins::default()
    }
}

/// The `enabledPlugins` verdicts of `files` (in load order, so a later
/// scope's value replaces an earlier one's), as `(id, value, scope, file)`
/// in the order the ids first appear.
fn enabled_plugins(files: &[ScopeFile]) -> Vec<(String, bool, Scope, PathBuf)> {
    let mut out: Vec<(String, bool, Scope, PathBuf)> = Vec::new();
    for f in files.iter().filter(|f| f.effective()) {
        let Some(map) = f
            .settings()
            .and_then(|s| s.value.get("enabledPlugins"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (id, v) in map {
            let Some(on) = v.as_bool() else { continue };
            match out.iter_mut().find(|(i, ..)| i == id) {
                Some(slot) => *slot = (id.clone(), on, f.scope, f.path.clone()),
                None => out.push((id.clone(), on, f.scope, f.path.clone())),
            }
        }
    }
    out
}

/// A JSON file of the client's (or a plugin's manifest), bounded; `None`
/// when it is absent, unreadable or not JSON (the client then has nothing
/// from it either).
fn read_json(path: &Path, limit: u64) -> Option<Value> {
    let c = crate::bounded::read(path, limit).ok()?;
    serde_json::from_slice(&c.bytes).ok()
}

/// The folders of the `directory` marketplaces: the client's own record
/// (`known_marketplaces.json`), then any declared in settings
/// (`extraKnownMarketplaces`, which load in place before the client has
/// recorded them).
fn directory_marketplaces(
    plugins_dir: &Path,
    files: &[ScopeFile],
    limit: u64,
) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut add = |name: &str, source: &Value| {
        if source.get("source").and_then(Value::as_str) != Some("directory") {
            return;
        }
        if let Some(path) = source.get("path").and_then(Value::as_str) {
            if !out.iter().any(|(n, _): &(String, PathBuf)| n == name) {
                out.push((name.to_string(), PathBuf::from(path)));
            }
        }
    };
    if let Some(Value::Object(known)) =
        read_json(&plugins_dir.join("known_marketplaces.json"), limit)
    {
        for (name, entry) in &known {
            if let Some(source) = entry.get("source") {
                add(name, source);
            }
        }
    }
    for f in files.iter().filter(|f| f.effective()) {
        let Some(map) = f
            .settings()
            .and_then(|s| s.value.get("extraKnownMarketplaces"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (name, entry) in map {
            if let Some(source) = entry.get("source") {
                add(name, source);
            }
        }
    }
    out
}

/// `path` relative to `base` as the client takes a plugin's relative path
/// (`./x`, `.`, `./`): `None` for anything that leaves `base`.
fn inside(base: &Path, rel: &str) -> Option<PathBuf> {
    let rel = rel.trim_start_matches("./");
    let rel = if rel == "." { "" } else { rel };
    let p = Path::new(rel);
    if p.is_absolute()
        || p.components().any(|c| {
            matches!(
                c,
                std::path::Component::ParentDir | std::path::Component::Prefix(_)
            )
        })
    {
        return None;
    }
    // One component at a time, so a `./plugins/a` of a manifest gives a
    // path of one separator (`…\plugins\a` on Windows, not `…\plugins/a`).
    let mut out = base.to_path_buf();
    for c in p.components() {
        if let std::path::Component::Normal(part) = c {
            out.push(part);
        }
    }
    Some(out)
}

/// A directory marketplace: its name, its folder and its manifest
/// (`.claude-plugin/marketplace.json`, read once however many of its
/// plugins are enabled).
struct Marketplace {
    name: String,
    folder: PathBuf,
    manifest: Option<Value>,
}

/// Where the client reads plugin `name` of marketplace `mkt` from.
fn root_of(
    name: &str,
    mkt: &str,
    id: &str,
    dirs: &[Marketplace],
    installed: Option<&Value>,
) -> Option<PathBuf> {
    if let Some(Marketplace {
        folder, manifest, ..
    }) = dirs.iter().find(|m| m.name == mkt)
    {
        let source = manifest
            .as_ref()
            .and_then(|m| m.get("plugins"))
            .and_then(Value::as_array)
            .and_then(|list| {
                list.iter()
                    .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
            })
            .and_then(|p| p.get("source"))
            .and_then(Value::as_str);
        if let Some(source) = source {
            return inside(folder, source);
        }
    }
    installed?
        .get("plugins")?
        .get(id)?
        .as_array()?
        .iter()
        .find_map(|i| i.get("installPath").and_then(Value::as_str))
        .map(PathBuf::from)
}

/// Does the link `file` lead out of `root`? (The client refuses such a file.)
fn leads_out(root: &Path, file: &Path) -> bool {
    match (std::fs::canonicalize(root), std::fs::canonicalize(file)) {
        (Ok(r), Ok(f)) => !f.starts_with(r),
        // A dangling link: the client treats it as absent; so does the reader.
        _ => false,
    }
}

/// Can these bytes register a hook of gk's? Not when, ASCII case aside,
/// they hold neither `gk` (the program's name) nor the name of a Python v5
/// script, nor a `\u` escape that could spell one.
pub fn may_hold_gk(bytes: &[u8]) -> bool {
    let mut needles: Vec<&[u8]> = vec![b"gk", b"\\u"];
    needles.extend(
        HookKind::ALL
            .iter()
            .filter_map(|k| k.legacy_script())
            .map(str::as_bytes),
    );
    // One vectorised pass a needle over the places its first byte (in
    // either case) occurs, the needle compared only there.
    needles.iter().any(|n| {
        memchr::memchr2_iter(n[0].to_ascii_lowercase(), n[0].to_ascii_uppercase(), bytes).any(|i| {
            bytes
                .get(i..i + n.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(n))
        })
    })
}

/// One hooks file of a plugin, bounded; `true` when it is not a regular
/// file (see [`Plugin::hangs`]).
fn hooks_file(root: &Path, path: PathBuf, budget: PluginBudget) -> (ScopeFile, bool) {
    use crate::bounded::ReadError;
    let limit = budget.file_bytes;
    let mut not_regular = false;
    // A file that is not a link is read at once (on Unix the open itself
    // refuses a link); only a link costs the look at where it leads.
    let read = match crate::bounded::read_no_link(&path, limit) {
        Err(ReadError::NotRegular("a symbolic link")) if leads_out(root, &path) => None,
        Err(ReadError::NotRegular("a symbolic link")) => Some(crate::bounded::read(&path, limit)),
        other => Some(other),
    };
    let load = match read {
        None => {
            Load::Unreadable("a link out of the plugin's folder, which Claude Code refuses".into())
        }
        Some(Ok(c)) if budget.gk_only && !may_hold_gk(&c.bytes) => Load::Empty,
        Some(Ok(c)) => classify_bytes(&path, c.bytes),
        Some(Err(ReadError::NotFound)) => Load::Absent,
        Some(Err(ReadError::TooLarge { .. })) => {
            Load::Unchecked(super::scopes::TOO_LARGE.to_string())
        }
        Some(Err(e)) => {
            not_regular = matches!(e, ReadError::NotRegular(_));
            Load::Unreadable(e.reason())
        }
    };
    let file = ScopeFile {
        scope: Scope::Plugin,
        path,
        load,
    };
    (file, not_regular)
}

fn manifest_path(root: &Path) -> PathBuf {
    root.join(".claude-plugin").join("plugin.json")
}

/// A plugin's manifest, read before anything else of the plugin.
enum Manifest {
    /// There is a file (`None`: unreadable, not JSON, or, when the budget
    /// is gk's only, a file that cannot name a `hooks` key).
    Read(Option<Value>),
    /// No manifest, or no folder to hold one: whether the plugin's folder
    /// is there at all is asked only then (one more system call, on this
    /// rare path alone).
    Absent,
}

fn read_manifest(root: &Path, budget: PluginBudget) -> Manifest {
    use crate::bounded::ReadError;
    match crate::bounded::read(&manifest_path(root), budget.file_bytes) {
        Ok(c) if budget.gk_only && !may_name_hooks(&c.bytes) => Manifest::Read(None),
        Ok(c) => Manifest::Read(serde_json::from_slice(&c.bytes).ok()),
        Err(ReadError::NotFound) => Manifest::Absent,
        Err(ReadError::Io(e)) if e.kind() == std::io::ErrorKind::NotADirectory => Manifest::Absent,
        Err(_) => Manifest::Read(None),
    }
}

/// Can these bytes hold a `hooks` key? Not without the word or a `\u`
/// escape that could spell it (JSON keys are compared exactly).
fn may_name_hooks(bytes: &[u8]) -> bool {
    bytes
        .windows(5)
        .any(|w| w == b"hooks" || w.starts_with(b"\\u"))
}

/// The hooks files of the plugin in `root`: `hooks/hooks.json` and what
/// the manifest's `hooks` names (the standard file once, however often it
/// is named). An inline event map is the manifest itself, read as a
/// settings-shaped file (its `hooks` key holds the map).
fn hooks_files(
    root: &Path,
    manifest: Option<Value>,
    budget: PluginBudget,
) -> (Vec<ScopeFile>, Vec<PathBuf>) {
    let standard = root.join("hooks").join("hooks.json");
    let mut paths = vec![standard.clone()];
    let mut inline = false;
    let mut name = |v: &Value, paths: &mut Vec<PathBuf>| match v {
        Value::String(rel) => {
            if let Some(p) = inside(root, rel) {
                if !paths.contains(&p) {
                    paths.push(p);
                }
            }
        }
        Value::Object(_) => inline = true,
        _ => {}
    };
    match manifest.as_ref().and_then(|m| m.get("hooks")) {
        Some(Value::Array(list)) => {
            for v in list {
                name(v, &mut paths);
            }
        }
        Some(v) => name(v, &mut paths),
        None => {}
    }
    if inline {
        paths.push(manifest_path(root));
    }
    let mut out = Vec::new();
    let mut hangs = Vec::new();
    for p in paths {
        let (file, not_regular) = hooks_file(root, p, budget);
        if not_regular {
            hangs.push(file.path.clone());
        }
        if !matches!(file.load, Load::Absent) {
            out.push(file);
        }
    }
    (out, hangs)
}

/// Every plugin that `files` enable, with its hooks files, within `budget`.
pub fn load_plugins(files: &[ScopeFile], plugins_dir: &Path, budget: PluginBudget) -> Plugins {
    let mut plugins = Plugins::default();
    let on: Vec<_> = enabled_plugins(files)
        .into_iter()
        .filter(|(_, on, ..)| *on)
        .collect();
    if on.is_empty() {
        return plugins;
    }
    let limit = budget.file_bytes;
    // Only the marketplaces an enabled plugin names are read, each once.
    let dirs: Vec<Marketplace> = directory_marketplaces(plugins_dir, files, limit)
        .into_iter()
        .filter(|(name, _)| {
            on.iter()
                .take(budget.plugins)
                .any(|(id, ..)| id.split_once('@').is_some_and(|(_, m)| m == name))
        })
        .map(|(name, folder)| Marketplace {
            manifest: read_json(&folder.join(".claude-plugin/marketplace.json"), limit),
            name,
            folder,
        })
        .collect();
    let installed = read_json(&plugins_dir.join("installed_plugins.json"), limit);
    // Read only when a plugin is missing (see `Trouble::Missing::installed`).
    let mut known: Option<Option<Value>> = None;
    for (n, (id, _, scope, path)) in on.iter().enumerate() {
        if n >= budget.plugins {
            plugins.trouble.push(Trouble::NotChecked {
                count: on.len() - n,
            });
            break;
        }
        let (name, mkt) = id.split_once('@').unwrap_or((id.as_str(), ""));
        if plugins.enabled.iter().any(|p| p.name == name) {
            continue;
        }
        let root = root_of(name, mkt, id, &dirs, installed.as_ref());
        let enabled_in = (*scope, path.clone());
        let manifest = root
            .as_deref()
            .and_then(|r| match read_manifest(r, budget) {
                Manifest::Read(m) => Some(m),
                Manifest::Absent if r.is_dir() => Some(None),
                Manifest::Absent => None,
            });
        match (root, manifest) {
            (Some(root), Some(manifest)) => {
                let (hooks, hangs) = hooks_files(&root, manifest, budget);
                plugins.enabled.push(Plugin {
                    id: id.clone(),
                    name: name.to_string(),
                    enabled_in,
                    forced: *scope == Scope::Managed,
                    hooks,
                    hangs,
                    root: Some(root),
                })
            }
            _ => {
                let known = known.get_or_insert_with(|| {
                    read_json(&plugins_dir.join("known_marketplaces.json"), limit)
                });
                let was_installed = installed
                    .as_ref()
                    .and_then(|i| i.get("plugins"))
                    .is_some_and(|p| p.get(id).is_some())
                    || known.as_ref().is_some_and(|k| k.get(mkt).is_some());
                plugins.trouble.push(Trouble::Missing {
                    id: id.clone(),
                    enabled_in,
                    expected: root_of(name, mkt, id, &dirs, installed.as_ref()),
                    installed: was_installed,
                })
            }
        }
    }
    plugins
}

/// `text` with the plugin's folder put in for `${CLAUDE_PLUGIN_ROOT}`
/// (what the client does to an exec-form command and its arguments; a
/// shell does the same with the variable, braced or not).
pub fn expand_root(text: &str, root: &Path, shell: bool) -> String {
    let root = root.to_string_lossy();
    let mut out = text.replace("${CLAUDE_PLUGIN_ROOT}", &root);
    if shell {
        out = out.replace("$CLAUDE_PLUGIN_ROOT", &root);
    }
    out
}

#[cfg(test)]
mod tests;
