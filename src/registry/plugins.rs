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

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::scopes::{classify_bytes, Budget, Load, Scope, ScopeFile, Spent};
use crate::hookcmd::HookKind;

/// How much the plugins may cost one reading. The bytes, files, handlers,
/// hooks paths and expanded lengths are spent from the reading's one
/// [`Spent`] (the settings files spent theirs first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PluginBudget {
    /// Enabled plugins read; the rest are reported as not checked.
    pub plugins: usize,
    /// The budget of a reading of the plugins alone ([`load_plugins`]).
    pub reading: Budget,
    /// Parse only the hooks files that may hold a hook of gk's (see
    /// [`may_hold_gk`]); the others count as holding no hook. The session
    /// check looks at gk's hooks only, and parsing every plugin's file
    /// cost it 2.5 times a no-op process with 50 plugins.
    pub gk_only: bool,
}

impl PluginBudget {
    /// The session check's: a hundred plugins, within [`Budget::SESSION`].
    pub const SESSION: PluginBudget = PluginBudget {
        plugins: 100,
        reading: Budget::SESSION,
        gk_only: true,
    };
    /// Doctor's: every file whole (up to the text limit), a thousand plugins.
    pub const DOCTOR: PluginBudget = PluginBudget {
        plugins: 1_000,
        reading: Budget::DOCTOR,
        gk_only: false,
    };
}

/// The longest a command or an argument may grow to with the plugin's
/// folder put in for `${CLAUDE_PLUGIN_ROOT}`: 128 KiB, the longest single
/// argument Linux passes to a program (a shell-form command is one
/// argument of the shell), so a longer one cannot start anywhere.
pub const MAX_EXPANDED: usize = 128 << 10;

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
    /// Each hooks file, as a settings-shaped file (`hooks` at its top),
    /// `${CLAUDE_PLUGIN_ROOT}` already put in as the client (exec form) or
    /// the shell (shell form) puts it in.
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

/// A source the client reads that this reading did not (past its budget,
/// or grown past [`MAX_EXPANDED`]): what it registers is not known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub path: PathBuf,
    /// Follows the path in a message (`is too large to check at session start`).
    pub why: String,
    /// The scope of the settings file that led to it (the one enabling the
    /// plugin, or declaring the marketplace).
    pub scope: Scope,
}

/// Every enabled plugin, and what keeps any of them from running.
#[derive(Debug, Clone, Default)]
pub struct Plugins {
    pub enabled: Vec<Plugin>,
    pub trouble: Vec<Trouble>,
    /// The sources not read (hooks files among them, which are also in
    /// their plugin's `hooks` as [`Load::Unchecked`]).
    pub unread: Vec<Unread>,
}

impl Plugins {
    pub fn none() -> Plugins {
        Plugins::default()
    }

    /// Did this reading leave out something that may register a hook?
    pub fn incomplete(&self) -> bool {
        !self.unread.is_empty()
            || self
                .trouble
                .iter()
                .any(|t| matches!(t, Trouble::NotChecked { .. }))
    }
}

/// The `enabledPlugins` verdicts of `files` (in load order, so a later
/// scope's value replaces an earlier one's), as `(id, value, scope, file)`
/// in the order the ids first appear. One hash look-up an id.
fn enabled_plugins(files: &[ScopeFile]) -> Vec<(String, bool, Scope, PathBuf)> {
    let mut out: Vec<(String, bool, Scope, PathBuf)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
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
            match at.get(id.as_str()) {
                Some(&i) => out[i] = (id.clone(), on, f.scope, f.path.clone()),
                None => {
                    at.insert(id, out.len());
                    out.push((id.clone(), on, f.scope, f.path.clone()));
                }
            }
        }
    }
    out
}

/// One reading of the plugins: what it spends, and what it left unread.
struct Reader<'s> {
    budget: PluginBudget,
    spent: &'s mut Spent,
    unread: Vec<Unread>,
}

impl Reader<'_> {
    fn not_read(&mut self, path: &Path, scope: Scope) {
        let why = self.spent.past();
        self.unread.push(Unread {
            path: path.to_path_buf(),
            why,
            scope,
        });
    }

    /// A JSON file of the client's (or a marketplace's manifest), within
    /// the budget; `None` when it is absent, unreadable or not JSON (the
    /// client then has nothing from it either) or past the budget (then
    /// named unread).
    fn json(&mut self, path: &Path, scope: Scope) -> Option<Value> {
        match self.spent.read(path, crate::bounded::read) {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            Err(None) => {
                self.not_read(path, scope);
                None
            }
            Err(Some(_)) => None,
        }
    }
}

/// The folders of the `directory` marketplaces: the client's own record
/// (`known_marketplaces.json`), then any declared in settings
/// (`extraKnownMarketplaces`, which load in place before the client has
/// recorded them), each with the scope that declared it; only those
/// `wanted` names.
fn directory_marketplaces(
    known: Option<Value>,
    files: &[ScopeFile],
    wanted: &HashSet<&str>,
) -> Vec<(String, PathBuf, Scope)> {
    let mut out = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut add = |name: &str, source: &Value, scope: Scope| {
        if !wanted.contains(name)
            || source.get("source").and_then(Value::as_str) != Some("directory")
        {
            return;
        }
        if let Some(path) = source.get("path").and_then(Value::as_str) {
            if seen.insert(name.to_string()) {
                out.push((name.to_string(), PathBuf::from(path), scope));
            }
        }
    };
    if let Some(Value::Object(known)) = known {
        for (name, entry) in &known {
            if let Some(source) = entry.get("source") {
                add(name, source, Scope::User);
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
                add(name, source, f.scope);
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

/// A directory marketplace: its folder and what its manifest
/// (`.claude-plugin/marketplace.json`, read once however many of its
/// plugins are enabled) gives each plugin name as its source (the first
/// entry of a name decides; `None`: not a folder path).
struct Marketplace {
    folder: PathBuf,
    sources: HashMap<String, Option<String>>,
    /// The manifest was past the budget: where its plugins are is unknown.
    unread: bool,
}

impl Marketplace {
    fn new(folder: PathBuf, manifest: Option<Value>, unread: bool) -> Marketplace {
        let mut sources = HashMap::new();
        let list = manifest
            .as_ref()
            .and_then(|m| m.get("plugins"))
            .and_then(Value::as_array);
        for p in list.into_iter().flatten() {
            if let Some(name) = p.get("name").and_then(Value::as_str) {
                sources
                    .entry(name.to_string())
                    .or_insert_with(|| p.get("source").and_then(Value::as_str).map(str::to_string));
            }
        }
        Marketplace {
            folder,
            sources,
            unread,
        }
    }
}

/// Where the client reads plugin `name` of marketplace `mkt` from.
enum Root {
    At(PathBuf),
    /// Nowhere the records say.
    Nowhere,
    /// Its marketplace's manifest was past the budget.
    Unread,
}

fn root_of(
    name: &str,
    mkt: &str,
    id: &str,
    dirs: &HashMap<String, Marketplace>,
    installed: Option<&Value>,
) -> Root {
    if let Some(m) = dirs.get(mkt) {
        if m.unread {
            return Root::Unread;
        }
        if let Some(Some(source)) = m.sources.get(name) {
            return inside(&m.folder, source).map_or(Root::Nowhere, Root::At);
        }
    }
    let recorded = || {
        installed?
            .get("plugins")?
            .get(id)?
            .as_array()?
            .iter()
            .find_map(|i| i.get("installPath").and_then(Value::as_str))
            .map(PathBuf::from)
    };
    recorded().map_or(Root::Nowhere, Root::At)
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

const ROOT_BRACED: &str = "${CLAUDE_PLUGIN_ROOT}";
const ROOT_BARE: &str = "$CLAUDE_PLUGIN_ROOT";

/// `text` with the plugin's folder `root` put in for `${CLAUDE_PLUGIN_ROOT}`
/// as the client runs it (measured, 2.1.332): in the exec form (`shell`
/// false) the client replaces the braced name, in one pass; a shell-form
/// command reaches the shell as written and the shell puts the variable's
/// value in for `${CLAUDE_PLUGIN_ROOT}` and `$CLAUDE_PLUGIN_ROOT`, also in
/// one pass. Either way the folder's own name is never expanded again,
/// even when it holds `$CLAUDE_PLUGIN_ROOT`. Quoting is not looked at (a
/// single-quoted name is put in too). `None` when the result would be
/// longer than `most` bytes: linear in `text` and `most`, whatever they hold.
pub fn expand_root(text: &str, root: &str, shell: bool, most: usize) -> Option<String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = memchr::memchr(b'$', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        let at = &rest[i..];
        let name = if at.starts_with(ROOT_BRACED) {
            Some(ROOT_BRACED.len())
        } else if shell
            && at.starts_with(ROOT_BARE)
            && !at[ROOT_BARE.len()..]
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            Some(ROOT_BARE.len())
        } else {
            None
        };
        match name {
            Some(n) => {
                if out.len() + root.len() > most {
                    return None;
                }
                out.push_str(root);
                rest = &at[n..];
            }
            None => {
                out.push('$');
                rest = &at[1..];
            }
        }
        if out.len() > most {
            return None;
        }
    }
    out.push_str(rest);
    (out.len() <= most).then_some(out)
}

impl Reader<'_> {
    /// One hooks file of a plugin, within the budget; `true` when it is not
    /// a regular file (see [`Plugin::hangs`]). A file past the budget is
    /// [`Load::Unchecked`] and named unread.
    fn hooks_file(&mut self, root: &Path, path: PathBuf, scope: Scope) -> (ScopeFile, bool) {
        use crate::bounded::ReadError;
        let mut not_regular = false;
        let mut out_link = false;
        // A file that is not a link is read at once (on Unix the open itself
        // refuses a link); only a link costs the look at where it leads.
        let read = self.spent.read(&path, |p, limit| {
            match crate::bounded::read_no_link(p, limit) {
                Err(ReadError::NotRegular("a symbolic link")) if leads_out(root, p) => {
                    out_link = true;
                    Err(ReadError::NotFound)
                }
                Err(ReadError::NotRegular("a symbolic link")) => crate::bounded::read(p, limit),
                other => other,
            }
        });
        let load = match read {
            _ if out_link => Load::Unreadable(
                "a link out of the plugin's folder, which Claude Code refuses".into(),
            ),
            Ok(bytes) if self.budget.gk_only && !may_hold_gk(&bytes) => Load::Empty,
            Ok(bytes) => self.parsed(&path, bytes, root),
            Err(None) => Load::Unchecked(self.spent.past()),
            Err(Some(ReadError::NotFound)) => Load::Absent,
            Err(Some(e)) => {
                not_regular = matches!(e, ReadError::NotRegular(_));
                Load::Unreadable(e.reason())
            }
        };
        if let Load::Unchecked(why) = &load {
            self.unread.push(Unread {
                path: path.clone(),
                why: why.clone(),
                scope,
            });
        }
        let file = ScopeFile {
            scope: Scope::Plugin,
            path,
            load,
        };
        (file, not_regular)
    }

    /// A hooks file's bytes parsed, its handlers counted and
    /// `${CLAUDE_PLUGIN_ROOT}` put in, within the budget.
    fn parsed(&mut self, path: &Path, bytes: Vec<u8>, root: &Path) -> Load {
        // No handler is left to spend: not worth parsing.
        if self.spent.entries_left() == 0 {
            return Load::Unchecked(self.spent.past());
        }
        let mut load = classify_bytes(path, bytes);
        let Load::Parsed { entries, .. } = &mut load else {
            return load;
        };
        if !self.spent.entries(entries.len()) {
            return Load::Unchecked(self.spent.past());
        }
        let root = root.to_string_lossy();
        for e in entries.iter_mut() {
            // The exec form's `command` and `args`, or a shell's command.
            let shell = e.args.is_none();
            let texts = e.command.iter_mut().chain(e.args.iter_mut().flatten());
            for t in texts {
                if !t.contains("CLAUDE_PLUGIN_ROOT") {
                    continue;
                }
                let grown = expand_root(t, &root, shell, MAX_EXPANDED);
                match grown {
                    Some(g) if self.spent.grow(g.len().saturating_sub(t.len())) => *t = g,
                    _ => return Load::Unchecked(self.spent.past()),
                }
            }
        }
        load
    }

    /// A plugin's manifest, read before anything else of the plugin.
    fn manifest(&mut self, root: &Path, scope: Scope) -> Manifest {
        use crate::bounded::ReadError;
        let path = manifest_path(root);
        match self.spent.read(&path, crate::bounded::read) {
            Ok(b) if self.budget.gk_only && !may_name_hooks(&b) => Manifest::Read(None),
            Ok(b) => Manifest::Read(serde_json::from_slice(&b).ok()),
            Err(None) => {
                self.not_read(&path, scope);
                Manifest::Unread
            }
            Err(Some(ReadError::NotFound)) => Manifest::Absent,
            Err(Some(ReadError::Io(e))) if e.kind() == std::io::ErrorKind::NotADirectory => {
                Manifest::Absent
            }
            Err(Some(_)) => Manifest::Read(None),
        }
    }

    /// The hooks files of the plugin in `root`: `hooks/hooks.json` and what
    /// the manifest's `hooks` names (each file once, however often it is
    /// named: one hash look-up a name). An inline event map is the
    /// manifest itself, read as a settings-shaped file (its `hooks` key
    /// holds the map). A `hooks` list longer than the budget is not
    /// followed: the manifest is named unread, and none of its files read.
    fn hooks_files(
        &mut self,
        root: &Path,
        manifest: Option<Value>,
        scope: Scope,
    ) -> (Vec<ScopeFile>, Vec<PathBuf>) {
        let standard = root.join("hooks").join("hooks.json");
        let named: &[Value] = match manifest.as_ref().and_then(|m| m.get("hooks")) {
            Some(Value::Array(list)) => list,
            Some(v) => std::slice::from_ref(v),
            None => &[],
        };
        if !self.spent.hooks_paths(named.len()) {
            self.not_read(&manifest_path(root), scope);
            return (Vec::new(), Vec::new());
        }
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let mut paths = vec![standard.clone()];
        seen.insert(standard);
        let mut inline = false;
        for v in named {
            match v {
                Value::String(rel) => {
                    if let Some(p) = inside(root, rel) {
                        if seen.insert(p.clone()) {
                            paths.push(p);
                        }
                    }
                }
                Value::Object(_) => inline = true,
                _ => {}
            }
        }
        if inline {
            paths.push(manifest_path(root));
        }
        let mut out = Vec::new();
        let mut hangs = Vec::new();
        for p in paths {
            let (file, not_regular) = self.hooks_file(root, p, scope);
            if not_regular {
                hangs.push(file.path.clone());
            }
            if !matches!(file.load, Load::Absent) {
                out.push(file);
            }
        }
        (out, hangs)
    }
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
    /// Past the budget (named unread).
    Unread,
}

/// Can these bytes hold a `hooks` key? Not without the word or a `\u`
/// escape that could spell it (JSON keys are compared exactly).
fn may_name_hooks(bytes: &[u8]) -> bool {
    bytes
        .windows(5)
        .any(|w| w == b"hooks" || w.starts_with(b"\\u"))
}

/// Every plugin that `files` enable, with its hooks files, within
/// `budget` (a reading of the plugins alone).
pub fn load_plugins(files: &[ScopeFile], plugins_dir: &Path, budget: PluginBudget) -> Plugins {
    let mut spent = Spent::new(budget.reading);
    load_plugins_spending(files, plugins_dir, budget, &mut spent)
}

/// [`load_plugins`], spending what is left of `spent` (the session check
/// reads the settings files and the plugins within one budget).
pub fn load_plugins_spending(
    files: &[ScopeFile],
    plugins_dir: &Path,
    budget: PluginBudget,
    spent: &mut Spent,
) -> Plugins {
    let mut plugins = Plugins::default();
    let on: Vec<_> = enabled_plugins(files)
        .into_iter()
        .filter(|(_, on, ..)| *on)
        .collect();
    if on.is_empty() {
        return plugins;
    }
    let mut reader = Reader {
        budget,
        spent,
        unread: Vec::new(),
    };
    let read = &on[..on.len().min(budget.plugins)];
    // Only the marketplaces an enabled plugin names are read, each once.
    let wanted: HashSet<&str> = read
        .iter()
        .filter_map(|(id, ..)| id.split_once('@').map(|(_, m)| m))
        .collect();
    let known = reader.json(&plugins_dir.join("known_marketplaces.json"), Scope::User);
    // The marketplaces this machine added: a plugin enabled from one of them
    // was installed here once (see `Trouble::Missing::installed`).
    let known_names: HashSet<String> = known
        .as_ref()
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    let mut dirs: HashMap<String, Marketplace> = HashMap::new();
    for (name, folder, scope) in directory_marketplaces(known, files, &wanted) {
        let path = folder.join(".claude-plugin").join("marketplace.json");
        let before = reader.unread.len();
        let manifest = reader.json(&path, scope);
        let unread = reader.unread.len() > before;
        dirs.insert(name, Marketplace::new(folder, manifest, unread));
    }
    let installed = reader.json(&plugins_dir.join("installed_plugins.json"), Scope::User);
    let mut names: HashSet<&str> = HashSet::new();
    for (id, _, scope, path) in read {
        let (name, mkt) = id.split_once('@').unwrap_or((id.as_str(), ""));
        if !names.insert(name) {
            continue;
        }
        let enabled_in = (*scope, path.clone());
        let root = match root_of(name, mkt, id, &dirs, installed.as_ref()) {
            Root::At(root) => Some(root),
            Root::Nowhere => None,
            Root::Unread => continue,
        };
        let manifest = match root.as_deref().map(|r| (r, reader.manifest(r, *scope))) {
            Some((_, Manifest::Read(m))) => Some(m),
            Some((r, Manifest::Absent)) if r.is_dir() => Some(None),
            Some((_, Manifest::Unread)) => continue,
            _ => None,
        };
        match (root, manifest) {
            (Some(root), Some(manifest)) => {
                let (hooks, hangs) = reader.hooks_files(&root, manifest, *scope);
                plugins.enabled.push(Plugin {
                    id: id.clone(),
                    name: name.to_string(),
                    enabled_in,
                    forced: scope.is_policy(),
                    hooks,
                    hangs,
                    root: Some(root),
                })
            }
            (root, _) => {
                let was_installed = installed
                    .as_ref()
                    .and_then(|i| i.get("plugins"))
                    .is_some_and(|p| p.get(id).is_some())
                    || known_names.contains(mkt);
                plugins.trouble.push(Trouble::Missing {
                    id: id.clone(),
                    enabled_in,
                    expected: root,
                    installed: was_installed,
                })
            }
        }
    }
    if on.len() > read.len() {
        plugins.trouble.push(Trouble::NotChecked {
            count: on.len() - read.len(),
        });
    }
    plugins.unread = reader.unread;
    plugins
}

#[cfg(test)]
pub(crate) mod tests;
