//! The settings files Claude Code loads, read the way it reads them: user,
//! project, local and managed (policy, plus its `managed-settings.d/`
//! drop-ins). A file that does not parse contributes nothing — Claude Code
//! skips it whole — and the project file *is* the user file when Claude
//! Code is started in the home folder; both facts decide what "registered"
//! means, so they are settled here, once, before any check runs.

use std::path::{Path, PathBuf};

use crate::machine::{Machine, PolicyValue, RegistryPolicy, POLICY_MACHINE_NAME, POLICY_USER_NAME};
#[cfg(test)]
use crate::platform::Os;
use crate::settings::{self, HookEntry, ParseError, SchemaIssue, Settings};

/// Which settings scope a file is loaded as: the tier the client merges it
/// in. Several sources may load as one scope (the managed file, its
/// drop-ins and the registry values are all managed). What a scope is to
/// the client and to gk is one row of `Scope::about`; code outside this
/// module asks those properties, not the variant, so a new source of an
/// existing scope is one row of [`SOURCES`] and touches nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    User,
    Project,
    Local,
    Managed,
    /// A plugin's hooks file ([`super::plugins`]): never edited by gk.
    Plugin,
}

/// What a scope is, to the client and to gk.
struct About {
    /// As messages name it (`user settings …`).
    name: &'static str,
    /// Of two settings files that set one thing, the client keeps the
    /// higher one's; 0: not a settings file (a plugin's hooks file).
    precedence: u8,
    /// The administrator's: gk never edits it; a person asks whoever
    /// manages the machine.
    policy: bool,
    /// A file of the project folder (shared, or local to this checkout).
    in_project: bool,
    /// A settings file gk may edit: add its entries, take copies out.
    gk_edits: bool,
    /// The user's own settings: where gk registers its hooks, its
    /// permission rules and its status line.
    user: bool,
}

impl Scope {
    const fn about(self) -> About {
        let none = About {
            name: "",
            precedence: 0,
            policy: false,
            in_project: false,
            gk_edits: false,
            user: false,
        };
        match self {
            Scope::User => About {
                name: "user",
                precedence: 1,
                gk_edits: true,
                user: true,
                ..none
            },
            Scope::Project => About {
                name: "project",
                precedence: 2,
                in_project: true,
                gk_edits: true,
                ..none
            },
            Scope::Local => About {
                name: "local",
                precedence: 3,
                in_project: true,
                gk_edits: true,
                ..none
            },
            Scope::Managed => About {
                name: "managed",
                precedence: 4,
                policy: true,
                ..none
            },
            Scope::Plugin => About {
                name: "plugin",
                ..none
            },
        }
    }

    pub fn name(self) -> &'static str {
        self.about().name
    }

    /// See `About::precedence`.
    pub fn precedence(self) -> u8 {
        self.about().precedence
    }

    /// Managed policy: gk never edits it.
    pub fn is_policy(self) -> bool {
        self.about().policy
    }

    /// The project's settings or the local ones.
    pub fn in_project(self) -> bool {
        self.about().in_project
    }

    /// A settings file gk may edit (user, project, local).
    pub fn gk_edits(self) -> bool {
        self.about().gk_edits
    }

    /// The user's settings, where gk puts what it wants.
    pub fn is_user(self) -> bool {
        self.about().user
    }
}

/// What reading one settings file gave.
#[derive(Debug, Clone)]
pub enum Load {
    /// No such file: nothing to load, nothing wrong.
    Absent,
    /// The project file is the user file (Claude Code started in the home
    /// folder): counted once, as user.
    SameAsUser,
    /// Empty or whitespace only.
    Empty,
    /// The same file as an earlier scope's (a link, `..`, a hard link):
    /// read and counted there, once, and never edited as this scope —
    /// through a project's `settings.local.json` linked to the user's
    /// file, doctor would otherwise take gk's user entries for the
    /// project's and remove them.
    SameAs { scope: Scope, path: PathBuf },
    /// Exists but could not be read (permissions, not a file).
    Unreadable(String),
    /// Not strict JSON, or not UTF-8: Claude Code skips the whole file.
    Unparseable(ParseError),
    /// Past the [`Budget`] of a bounded read (the session check): not read,
    /// or read and set aside, so nothing is known of it. The reason follows
    /// the path in a message (`is too large to check at session start`).
    /// Doctor reads without a budget and never gets this.
    Unchecked(String),
    Parsed {
        settings: Box<Settings>,
        entries: Vec<HookEntry>,
        issues: Vec<SchemaIssue>,
    },
    /// There, but not read by the client: another managed source takes the
    /// managed tier's place (`by`, a registry value's name or the managed
    /// file). Windows only; see [`load`].
    Hidden { by: PathBuf },
}

/// One settings file and what it gave.
#[derive(Debug, Clone)]
pub struct ScopeFile {
    pub scope: Scope,
    pub path: PathBuf,
    pub load: Load,
}

impl ScopeFile {
    /// Parsed and free of file-voiding schema errors: Claude Code uses this
    /// file (an issue that only makes it ignore one part still counts as used).
    pub fn effective(&self) -> bool {
        matches!(&self.load, Load::Parsed { issues, .. } if !issues.iter().any(|i| i.rejects_file()))
    }

    pub fn settings(&self) -> Option<&Settings> {
        match &self.load {
            Load::Parsed { settings, .. } => Some(settings),
            _ => None,
        }
    }

    /// `scope path`, as used in messages.
    pub fn label(&self) -> String {
        format!("{} settings {}", self.scope.name(), self.path.display())
    }
}

/// Settings files for unit tests: each text loaded as `/<scope>.json`.
#[cfg(test)]
pub(crate) fn test_files(files: &[(Scope, &str)]) -> Vec<ScopeFile> {
    files
        .iter()
        .map(|(scope, text)| ScopeFile {
            scope: *scope,
            path: PathBuf::from(format!("/{}.json", scope.name())),
            load: classify_text(Path::new("/x.json"), text),
        })
        .collect()
}

#[cfg(test)]
use crate::paths::default_managed_path;

/// Where every source is, for one run: what [`SOURCES`] locate them from.
/// Doctor and the session check make it one way, [`ScopePaths::of`].
#[derive(Debug, Clone)]
pub struct ScopePaths<'m> {
    pub user: PathBuf,
    /// `None`: no project folder (a session hook whose event names a
    /// folder that is not there): no project or local file is listed.
    pub project_dir: Option<PathBuf>,
    pub managed: PathBuf,
    pub registry: &'m RegistryPolicy,
}

impl ScopePaths<'_> {
    /// The sources of `machine` for the project folder `project_dir`.
    pub fn of<'m>(machine: &'m Machine, project_dir: Option<&Path>) -> ScopePaths<'m> {
        ScopePaths {
            user: machine.paths.settings(),
            project_dir: project_dir.map(Path::to_path_buf),
            managed: machine.managed.clone(),
            registry: &machine.registry_policy,
        }
    }
}

/// How the client reads a source.
#[derive(Clone, Copy)]
enum Read {
    /// One settings file.
    File,
    /// Every `*.json` in a folder, in name order, later ones over earlier
    /// ones ([`Budget::dropins`] bounds the listing).
    Folder,
    /// A registry value, as the machine's facts hold it
    /// ([`RegistryPolicy`], read on Windows only); its path is the name
    /// the client gives it.
    Value(fn(&RegistryPolicy) -> Option<&PolicyValue>),
}

/// The part a source plays in the managed tier, which the client takes
/// from one source ([`one_managed_source`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tier {
    /// Not of the managed tier.
    Own,
    /// The managed file and its drop-ins.
    Files,
    /// `HKEY_LOCAL_MACHINE`'s value: takes the tier when it holds any
    /// setting.
    MachineValue,
    /// `HKEY_CURRENT_USER`'s value: counts only where neither the machine
    /// value nor a managed file or drop-in does.
    UserValue,
}

/// One place the client loads settings from.
struct Source {
    scope: Scope,
    read: Read,
    /// Where it lives this run (`None`: not this run).
    at: fn(&ScopePaths<'_>) -> Option<PathBuf>,
    /// Where its files stand among the loaded ones: the order the client
    /// merges them in (later over earlier). [`SOURCES`]' own order is the
    /// order they are read in, and charged to the budget.
    place: u8,
    tier: Tier,
}

/// Every settings source, in the order they are read and charged to one
/// budget: the registry values first (they depend on no file), then the
/// files. A new source is one row here (and its [`Read`], if it is read
/// another way).
const SOURCES: &[Source] = &[
    Source {
        scope: Scope::Managed,
        read: Read::Value(|r| r.machine.as_ref()),
        at: |_| Some(PathBuf::from(POLICY_MACHINE_NAME)),
        place: 3,
        tier: Tier::MachineValue,
    },
    Source {
        scope: Scope::Managed,
        read: Read::Value(|r| r.user.as_ref()),
        at: |_| Some(PathBuf::from(POLICY_USER_NAME)),
        place: 5,
        tier: Tier::UserValue,
    },
    Source {
        scope: Scope::User,
        read: Read::File,
        at: |p| Some(p.user.clone()),
        place: 0,
        tier: Tier::Own,
    },
    Source {
        scope: Scope::Project,
        read: Read::File,
        at: |p| {
            let dir = p.project_dir.as_ref()?;
            Some(dir.join(".claude").join("settings.json"))
        },
        place: 1,
        tier: Tier::Own,
    },
    Source {
        scope: Scope::Local,
        read: Read::File,
        at: |p| {
            let dir = p.project_dir.as_ref()?;
            Some(dir.join(".claude").join("settings.local.json"))
        },
        place: 2,
        tier: Tier::Own,
    },
    Source {
        scope: Scope::Managed,
        read: Read::File,
        at: |p| Some(p.managed.clone()),
        place: 4,
        tier: Tier::Files,
    },
    Source {
        scope: Scope::Managed,
        read: Read::Folder,
        at: |p| Some(dropin_dir(&p.managed)),
        place: 4,
        tier: Tier::Files,
    },
];

/// The `managed-settings.d/` folder beside the managed file.
pub fn dropin_dir(managed: &Path) -> PathBuf {
    managed
        .parent()
        .map(|p| p.join("managed-settings.d"))
        .unwrap_or_else(|| PathBuf::from("managed-settings.d"))
}

/// How much one reading may take: the settings files and everything the
/// plugins they enable bring (marketplaces, manifests, hooks files) spend
/// one [`Spent`]. The session check runs at every session start, in
/// whatever repository the session opens, so it reads within
/// [`Budget::SESSION`]: a source past it is [`Load::Unchecked`] (or, for a
/// plugin's manifest or the client's records, named in
/// [`super::plugins::Plugins::unread`]), and the check says so in one line
/// instead of reading it. Doctor reads the settings files whole (up to
/// [`crate::bounded::TEXT_LIMIT`]) and the plugins within
/// [`Budget::DOCTOR`], and names what it could not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Bytes of one file.
    pub file_bytes: u64,
    /// Bytes of every file read, together, and what putting in
    /// `${CLAUDE_PLUGIN_ROOT}` adds to the commands.
    pub total_bytes: u64,
    /// Hook handlers in every file read, together.
    pub entries: usize,
    /// Files in `managed-settings.d/` (any kind; past it the folder is
    /// not listed further and none of its files is read).
    pub dropins: usize,
    /// Files opened (or looked for), together.
    pub files: usize,
    /// Hooks paths the plugins' manifests name, together.
    pub hooks_paths: usize,
    /// What a source past the budget is said to be (after its path).
    pub past: &'static str,
}

/// The reason of a [`Load::Unchecked`] file.
pub const TOO_LARGE: &str = "is too large to check at session start";

impl Budget {
    /// The session check's budget. Real settings files are a few KiB with
    /// a few dozen handlers (the largest seen in real setups: ~40 KiB), a
    /// plugin's hooks file a few KiB; the budget is ten times that per
    /// file, and bounds the whole check, plugins included, to a few MiB of
    /// memory and a few milliseconds (scripts/bench-session.sh,
    /// scripts/bench-hooks.sh).
    pub const SESSION: Budget = Budget {
        file_bytes: 256 << 10,
        total_bytes: 1 << 20,
        entries: 2_000,
        dropins: 64,
        files: 1_000,
        hooks_paths: 1_000,
        past: TOO_LARGE,
    };
    /// Doctor's, for what the plugins bring: every file whole up to the
    /// text limit, and totals no real setup comes near, so that a hostile
    /// repository cannot make it read for minutes or fill the memory.
    pub const DOCTOR: Budget = Budget {
        file_bytes: crate::bounded::TEXT_LIMIT,
        total_bytes: 64 << 20,
        entries: 1_000_000,
        dropins: usize::MAX,
        files: 100_000,
        hooks_paths: 100_000,
        past: "is past what gk doctor reads (16 MiB a file, 64 MiB in all, 128 KiB a command with ${CLAUDE_PLUGIN_ROOT} put in)",
    };
}

/// What a bounded reading has spent of its [`Budget`]: one for the
/// settings files and the plugins together.
#[derive(Debug, Clone)]
pub struct Spent {
    budget: Budget,
    bytes: u64,
    entries: usize,
    files: usize,
    paths: usize,
}

impl Spent {
    pub fn new(budget: Budget) -> Spent {
        Spent {
            budget,
            bytes: 0,
            entries: 0,
            files: 0,
            paths: 0,
        }
    }

    /// Why a source past the budget was not read.
    pub fn past(&self) -> String {
        self.budget.past.to_string()
    }

    /// The most one more file may hold.
    fn limit(&self) -> u64 {
        let left = self.budget.total_bytes.saturating_sub(self.bytes);
        self.budget.file_bytes.min(left)
    }

    /// Read `path` within what is left (a file counts when it is looked
    /// for, there or not): `Err(None)` past the budget, `Err(Some(e))`
    /// when the file could not be read.
    pub fn read(
        &mut self,
        path: &Path,
        read: impl FnOnce(&Path, u64) -> Result<crate::bounded::Contents, crate::bounded::ReadError>,
    ) -> Result<Vec<u8>, Option<crate::bounded::ReadError>> {
        if self.files >= self.budget.files {
            return Err(None);
        }
        self.files += 1;
        match read(path, self.limit()) {
            Ok(c) => {
                self.bytes += c.bytes.len() as u64;
                Ok(c.bytes)
            }
            Err(crate::bounded::ReadError::TooLarge { .. }) => Err(None),
            Err(e) => Err(Some(e)),
        }
    }

    /// Count `n` more hook handlers: `false` past the budget.
    pub fn entries(&mut self, n: usize) -> bool {
        self.entries = self.entries.saturating_add(n);
        self.entries <= self.budget.entries
    }

    /// How many more hook handlers the budget allows.
    pub fn entries_left(&self) -> usize {
        self.budget.entries.saturating_sub(self.entries)
    }

    /// Count `n` more hooks paths named in manifests: `false` past it.
    pub fn hooks_paths(&mut self, n: usize) -> bool {
        self.paths = self.paths.saturating_add(n);
        self.paths <= self.budget.hooks_paths
    }

    /// Count `n` bytes that a reading makes (an expanded command) beside
    /// those it read: `false` past the budget.
    pub fn grow(&mut self, n: usize) -> bool {
        self.bytes = self.bytes.saturating_add(n as u64);
        self.bytes <= self.budget.total_bytes
    }

    /// Read `path` within what is left: past it, [`Load::Unchecked`].
    fn load(&mut self, path: &Path) -> Load {
        match self.read(path, crate::bounded::read) {
            Ok(bytes) => self.classify(path, bytes),
            Err(None) => Load::Unchecked(self.past()),
            Err(Some(crate::bounded::ReadError::NotFound)) => Load::Absent,
            Err(Some(e)) => Load::Unreadable(e.reason()),
        }
    }

    /// Classify bytes already read (a registry value) within what is left.
    fn take(&mut self, path: &Path, bytes: Vec<u8>) -> Load {
        if bytes.len() as u64 > self.limit() {
            return Load::Unchecked(self.past());
        }
        self.bytes += bytes.len() as u64;
        self.classify(path, bytes)
    }

    /// Bytes within the byte budget, classified; their handlers counted.
    fn classify(&mut self, path: &Path, bytes: Vec<u8>) -> Load {
        let load = classify_bytes(path, bytes);
        if let Load::Parsed { entries, .. } = &load {
            if !self.entries(entries.len()) {
                return Load::Unchecked(self.past());
            }
        }
        load
    }
}

/// Read every source: user, project, local, managed, then managed drop-ins
/// in name order (later ones override earlier ones, as Claude Code merges them).
pub fn load_all(paths: &ScopePaths<'_>) -> Vec<ScopeFile> {
    load(paths, None)
}

/// [`load_all`] from the paths themselves (`project_dir`: `None`, no
/// project or local file is listed).
pub fn load_scopes(
    user: &Path,
    project_dir: Option<&Path>,
    managed: &Path,
    registry: &RegistryPolicy,
) -> Vec<ScopeFile> {
    let paths = ScopePaths {
        user: user.to_path_buf(),
        project_dir: project_dir.map(Path::to_path_buf),
        managed: managed.to_path_buf(),
        registry,
    };
    load(&paths, None)
}

/// Every source of [`SOURCES`] there is this run, read in that order,
/// spending `spent` (`None`: every file whole) so that what is read next
/// (the plugins) spends what is left of it; the files come in the order
/// the client merges them.
///
/// The managed tier is one source, never a merge (measured on the Windows
/// client 2.1.332 under Wine; docs/maintainers/claude-code-facts.md,
/// "Managed settings in the registry"): the registry value under
/// `HKEY_LOCAL_MACHINE` when it holds any setting (then the managed file,
/// its drop-ins and the `HKEY_CURRENT_USER` value are [`Load::Hidden`]);
/// else the managed file and its drop-ins; and the `HKEY_CURRENT_USER`
/// value only where neither the file nor a drop-in exists.
pub fn load(paths: &ScopePaths<'_>, spent: Option<&mut Spent>) -> Vec<ScopeFile> {
    let mut r = Reader {
        budget: spent.as_ref().map(|s| s.budget),
        spent,
        seen: Vec::new(),
        files: Vec::new(),
    };
    for source in SOURCES {
        if let Some(path) = (source.at)(paths) {
            r.source(source, path, paths.registry);
        }
    }
    let mut files = r.files;
    // Stable: the files of one place keep the order they were read in.
    files.sort_by_key(|f| f.place);
    one_managed_source(&mut files);
    files.into_iter().map(|f| f.file).collect()
}

/// One file read, with where its source stands.
struct Placed {
    place: u8,
    tier: Tier,
    file: ScopeFile,
}

/// One reading of the settings sources: what it has spent, the files read
/// so far, and what each is on disk.
struct Reader<'s> {
    budget: Option<Budget>,
    spent: Option<&'s mut Spent>,
    /// Every file is told apart from the ones before it by what it is on
    /// disk (device and inode), not by its name: one file is read once.
    seen: Vec<(FileKey, Scope, PathBuf)>,
    files: Vec<Placed>,
}

impl Reader<'_> {
    /// What `source`, at `path`, gives.
    fn source(&mut self, source: &Source, path: PathBuf, registry: &RegistryPolicy) {
        let file = match source.read {
            Read::File => self.add(source.scope, path),
            Read::Value(value) => match value(registry) {
                Some(v) => self.policy(source.scope, path, v),
                None => return,
            },
            Read::Folder => match dropins(&path, self.budget.map(|b| b.dropins)) {
                Some(paths) => {
                    for p in paths {
                        let file = self.add(source.scope, p);
                        self.push(source, file);
                    }
                    return;
                }
                None => ScopeFile {
                    scope: source.scope,
                    path,
                    load: Load::Unchecked(format!(
                        "holds more than {} files, too many to check at session start",
                        self.budget.map_or(0, |b| b.dropins)
                    )),
                },
            },
        };
        self.push(source, file);
    }

    fn push(&mut self, source: &Source, file: ScopeFile) {
        self.files.push(Placed {
            place: source.place,
            tier: source.tier,
            file,
        });
    }

    /// The file at `path` (or `text`, a registry value's), within the budget.
    fn load(&mut self, path: &Path, text: Option<&str>) -> Load {
        match (self.spent.as_deref_mut(), text) {
            (Some(spent), None) => spent.load(path),
            (None, None) => load_file(path),
            (Some(spent), Some(text)) => spent.take(path, text.as_bytes().to_vec()),
            (None, Some(text)) => classify_text(path, text),
        }
    }

    /// A registry value, named (`path`) as the client names it.
    fn policy(&mut self, scope: Scope, path: PathBuf, value: &PolicyValue) -> ScopeFile {
        let load = match value {
            PolicyValue::Unreadable(why) => Load::Unreadable(why.clone()),
            PolicyValue::Text(text) => match self.load(&path, Some(text)) {
                // Measured: a blank value stops the client as one that is
                // not JSON does; a blank file is nothing.
                Load::Empty => Load::Unparseable(ParseError {
                    path: path.clone(),
                    line: 1,
                    column: 1,
                    reason: "empty, where Claude Code needs a JSON object".to_string(),
                    not_utf8: false,
                }),
                load => load,
            },
        };
        ScopeFile { scope, path, load }
    }

    /// The file at `path` as `scope`: read, unless it is a file read
    /// before under another name.
    fn add(&mut self, scope: Scope, path: PathBuf) -> ScopeFile {
        let key = file_key(&path);
        let earlier = key
            .as_ref()
            .and_then(|k| self.seen.iter().find(|(s, _, _)| s == k))
            .map(|(_, scope, path)| (*scope, path.clone()));
        let first = earlier.is_none();
        let load = match earlier {
            Some((Scope::User, _)) if scope == Scope::Project => Load::SameAsUser,
            Some((scope, path)) => Load::SameAs { scope, path },
            None => self.load(&path, None),
        };
        if let (Some(k), true) = (key, first) {
            self.seen.push((k, scope, path.clone()));
        }
        ScopeFile { scope, path, load }
    }
}

/// The managed tier as the client takes it, one source ([`load`]): the
/// managed file and its drop-ins hidden by a machine value that holds any
/// setting; the user value hidden by that value or by any managed file or
/// drop-in there (then by the managed file's name).
fn one_managed_source(files: &mut [Placed]) {
    let tier = |t: Tier| move |f: &&Placed| f.tier == t;
    let machine = files
        .iter()
        .filter(tier(Tier::MachineValue))
        .find(|f| holds_policy(&f.file))
        .map(|f| f.file.path.clone());
    let on_disk = files
        .iter()
        .filter(tier(Tier::Files))
        .any(|f| !matches!(f.file.load, Load::Absent));
    let managed = files
        .iter()
        .find(tier(Tier::Files))
        .map(|f| f.file.path.clone());
    for f in files.iter_mut() {
        let by = match (f.tier, &machine) {
            (Tier::Files | Tier::UserValue, Some(machine)) => machine,
            (Tier::UserValue, None) if on_disk => match &managed {
                Some(managed) => managed,
                None => continue,
            },
            _ => continue,
        };
        if !matches!(f.file.load, Load::Absent) {
            f.file.load = Load::Hidden { by: by.clone() };
        }
    }
}

/// Is this "path" one of the registry values (the name the client gives it)?
pub fn is_registry_value(path: &Path) -> bool {
    path == Path::new(POLICY_MACHINE_NAME) || path == Path::new(POLICY_USER_NAME)
}

/// Does a registry value at `HKEY_LOCAL_MACHINE` take the managed tier?
/// Measured: `{}` does not (the managed file's hooks run); any setting
/// does, and so does a value that is not a JSON object (the client then
/// stops with an error and runs nothing). A value the registry would not
/// give (another type) leaves the tier to the files, as the client does.
fn holds_policy(f: &ScopeFile) -> bool {
    match &f.load {
        Load::Parsed { settings, .. } => settings
            .value
            .as_object()
            .is_some_and(|map| !map.is_empty()),
        Load::Unparseable(_) | Load::Unchecked(_) => true,
        _ => false,
    }
}

/// Every `*.json` in the drop-in folder that is not a folder: a named pipe
/// or a device there is listed too, so that it is reported (as unreadable)
/// rather than passed over in silence. `None` when the folder holds more
/// than `most` entries of any kind (then it is not listed further).
fn dropins(dir: &Path, most: Option<usize>) -> Option<Vec<PathBuf>> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Some(Vec::new());
    };
    let mut found = Vec::new();
    for (n, entry) in read.filter_map(|e| e.ok()).enumerate() {
        if most.is_some_and(|most| n >= most) {
            return None;
        }
        let p = entry.path();
        // Measured: `*.json` (case-sensitive), not hidden, not a folder.
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if p.extension().is_some_and(|x| x == "json") && !hidden && !p.is_dir() {
            found.push(p);
        }
    }
    found.sort();
    Some(found)
}

/// What tells one existing file from another, so two names of one file
/// (a symbolic or a hard link, `..`) are one file to gk. Unix: device and
/// inode, from one `stat` through links (no open: opening a named pipe in
/// a file's place would wait for a writer; the session check asks this at
/// every start). Windows: the volume serial number and file index of an
/// open handle, by `same-file` (the path with its links resolved would
/// tell two hard links apart; the handle is opened without waiting and
/// with every sharing mode, so no writer is held up).
#[cfg(unix)]
type FileKey = (u64, u64);
#[cfg(windows)]
type FileKey = same_file::Handle;
#[cfg(not(any(unix, windows)))]
type FileKey = PathBuf;

fn file_key(path: &Path) -> Option<FileKey> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(windows)]
    {
        same_file::Handle::from_path(path).ok()
    }
    #[cfg(not(any(unix, windows)))]
    {
        std::fs::canonicalize(path).ok()
    }
}

/// Both paths name one existing file (after links, hard links and `..`).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (file_key(a), file_key(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The reason of a [`Load::Unparseable`] file that is not UTF-8 (its fix
/// is about the encoding, not the JSON).
pub const NOT_UTF8: &str = "not valid UTF-8";

/// Read and classify one settings file, through the bounded reader: a named
/// pipe, a device or a file over [`crate::bounded::TEXT_LIMIT`] is
/// unreadable, never waited on or read to the end.
pub fn load_file(path: &Path) -> Load {
    let bytes = match crate::bounded::read(path, crate::bounded::TEXT_LIMIT) {
        Ok(c) => c.bytes,
        Err(crate::bounded::ReadError::NotFound) => return Load::Absent,
        Err(e) => return Load::Unreadable(e.reason()),
    };
    classify_bytes(path, bytes)
}

/// The bytes of one settings file, classified.
pub(crate) fn classify_bytes(path: &Path, bytes: Vec<u8>) -> Load {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let (line, column) = settings::line_col(
                &String::from_utf8_lossy(e.as_bytes()),
                e.utf8_error().valid_up_to(),
            );
            return Load::Unparseable(ParseError {
                path: path.to_path_buf(),
                line,
                column,
                reason: NOT_UTF8.to_string(),
                not_utf8: true,
            });
        }
    };
    classify_text(path, &text)
}

/// Pure part of [`load_file`].
pub fn classify_text(path: &Path, text: &str) -> Load {
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        return Load::Empty;
    }
    match settings::parse(path, text) {
        Ok(s) => {
            let (entries, issues) = settings::hook_entries(&s);
            Load::Parsed {
                settings: Box::new(s),
                entries,
                issues,
            }
        }
        Err(e) => Load::Unparseable(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managed_path_per_platform() {
        assert_eq!(
            default_managed_path(Os::Linux),
            Path::new("/etc/claude-code/managed-settings.json")
        );
        assert!(default_managed_path(Os::MacOs)
            .to_string_lossy()
            .starts_with("/Library/Application Support/ClaudeCode/"));
        assert!(default_managed_path(Os::Windows)
            .to_string_lossy()
            .starts_with(r"C:\Program Files\ClaudeCode\"));
    }

    #[test]
    fn dropin_dir_sits_beside_the_managed_file() {
        assert_eq!(
            dropin_dir(Path::new("/etc/claude-code/managed-settings.json")),
            Path::new("/etc/claude-code/managed-settings.d")
        );
    }

    #[test]
    fn same_file_sees_through_links_hard_links_and_dots_but_not_copies() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/s.json"), "{}").unwrap();
        std::fs::write(d.join("copy.json"), "{}").unwrap();
        assert!(same_file(&d.join("a/s.json"), &d.join("a/../a/./s.json")));
        assert!(!same_file(&d.join("a/s.json"), &d.join("copy.json")));
        assert!(!same_file(&d.join("a/s.json"), &d.join("gone.json")));
        std::fs::hard_link(d.join("a/s.json"), d.join("hard.json")).unwrap();
        assert!(same_file(&d.join("a/s.json"), &d.join("hard.json")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("a"), d.join("link")).unwrap();
            assert!(same_file(&d.join("a/s.json"), &d.join("link/s.json")));
        }
    }

    #[test]
    fn a_bounded_reading_sets_aside_what_is_past_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let handlers = |n: usize| {
            let one = r#"{"type": "command", "command": "true"}"#;
            format!(
                r#"{{"hooks": {{"Stop": [{{"hooks": [{}]}}]}}}}"#,
                vec![one; n].join(",")
            )
        };
        std::fs::create_dir_all(d.join("p/.claude")).unwrap();
        std::fs::create_dir_all(d.join("etc/managed-settings.d")).unwrap();
        let user = d.join("settings.json");
        std::fs::write(&user, handlers(3)).unwrap();
        std::fs::write(d.join("p/.claude/settings.json"), handlers(10)).unwrap();
        std::fs::write(d.join("p/.claude/settings.local.json"), handlers(10)).unwrap();
        let managed = d.join("etc/managed-settings.json");
        let budget = Budget {
            file_bytes: 1_000,
            total_bytes: 100_000,
            entries: 20,
            dropins: 3,
            ..Budget::SESSION
        };
        let none = RegistryPolicy::default();
        let paths = ScopePaths {
            user: user.clone(),
            project_dir: Some(d.join("p")),
            managed,
            registry: &none,
        };
        let read = |b: Option<Budget>| load(&paths, b.map(Spent::new).as_mut());
        let unchecked = |files: &[ScopeFile]| -> Vec<String> {
            files
                .iter()
                .filter(|f| matches!(f.load, Load::Unchecked(_)))
                .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        // Entries: 3 + 10 fit, the local file's 10 more do not.
        assert_eq!(unchecked(&read(Some(budget))), ["settings.local.json"]);
        // Bytes of one file.
        let small = Budget {
            file_bytes: 200,
            ..budget
        };
        assert_eq!(
            unchecked(&read(Some(small))),
            ["settings.json", "settings.local.json"]
        );
        // Bytes of all files together: the user file is read, then none fits.
        let total = Budget {
            total_bytes: 450,
            ..budget
        };
        assert_eq!(
            unchecked(&read(Some(total))),
            ["settings.json", "settings.local.json"]
        );
        // A drop-in folder of more files than the budget: the folder is named.
        for n in 0..4 {
            std::fs::write(d.join(format!("etc/managed-settings.d/{n}.json")), "{}").unwrap();
        }
        assert_eq!(
            unchecked(&read(Some(budget))),
            ["settings.local.json", "managed-settings.d"]
        );
        // Without a budget everything is read.
        assert!(unchecked(&read(None)).is_empty());
        assert_eq!(read(None).len(), 8);
    }

    #[test]
    fn home_folder_project_file_is_the_user_file() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        let user = home.path().join(".claude/settings.json");
        std::fs::write(&user, "").unwrap();
        let paths = ScopePaths {
            user: user.clone(),
            project_dir: Some(home.path().to_path_buf()),
            managed: home.path().join("none/managed-settings.json"),
            registry: &RegistryPolicy::default(),
        };
        let files = load_all(&paths);
        assert!(matches!(files[0].load, Load::Empty));
        assert!(matches!(files[1].load, Load::SameAsUser));
        assert!(matches!(files[3].load, Load::Absent));
    }

    /// The managed tier with the registry values `machine` and `user`
    /// (`None`: absent) beside a drop-in registering a Stop hook when
    /// `dropin`: each managed source's path and load, in order.
    fn managed_tier(
        machine: Option<&str>,
        user: Option<&str>,
        dropin: bool,
    ) -> (tempfile::TempDir, Vec<ScopeFile>) {
        let d = tempfile::tempdir().unwrap();
        let managed = d.path().join("ClaudeCode/managed-settings.json");
        if dropin {
            std::fs::create_dir_all(d.path().join("ClaudeCode/managed-settings.d")).unwrap();
            std::fs::write(
                d.path().join("ClaudeCode/managed-settings.d/gk.json"),
                r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "gk"}]}]}}"#,
            )
            .unwrap();
        }
        let text = |v: Option<&str>| v.map(|t| PolicyValue::Text(t.to_string()));
        let registry = RegistryPolicy {
            machine: text(machine),
            user: text(user),
        };
        let user_file = d.path().join("settings.json");
        let files = load_scopes(&user_file, None, &managed, &registry)
            .into_iter()
            .filter(|f| f.scope == Scope::Managed && !matches!(f.load, Load::Absent))
            .collect();
        (d, files)
    }

    fn kinds(files: &[ScopeFile]) -> Vec<(String, &'static str)> {
        files
            .iter()
            .map(|f| {
                let name = if is_registry_value(&f.path) {
                    f.path.display().to_string()
                } else {
                    f.path.file_name().unwrap().to_string_lossy().into_owned()
                };
                let kind = match &f.load {
                    Load::Hidden { by } if by == Path::new(POLICY_MACHINE_NAME) => "hidden by HKLM",
                    Load::Hidden { .. } => "hidden by the managed file",
                    Load::Unparseable(_) => "unparseable",
                    Load::Unreadable(_) => "unreadable",
                    _ if f.effective() => "read",
                    _ => "other",
                };
                (name, kind)
            })
            .collect()
    }

    const HKLM: &str = r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings";
    const HKCU: &str = r"HKCU\SOFTWARE\Policies\ClaudeCode\Settings";
    const PROMPT_HOOK: &str =
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "gk"}]}]}}"#;

    fn own(list: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
        list.iter().map(|(n, k)| (n.to_string(), *k)).collect()
    }

    // Measured on the Windows client 2.1.332 under Wine, one hook in each
    // source (docs/maintainers/claude-code-facts.md, "Managed settings in
    // the registry").
    #[test]
    fn a_machine_registry_value_with_a_setting_hides_every_other_managed_source() {
        // Measured: HKLM's prompt hook ran; the drop-in's Stop hook and
        // HKCU's did not.
        let (_d, files) = managed_tier(Some(PROMPT_HOOK), Some(PROMPT_HOOK), true);
        assert_eq!(
            kinds(&files),
            own(&[
                (HKLM, "read"),
                ("gk.json", "hidden by HKLM"),
                (HKCU, "hidden by HKLM"),
            ])
        );
    }

    #[test]
    fn an_empty_machine_value_leaves_the_tier_to_the_files() {
        // Measured: with `{}` at HKLM the drop-in's hook ran.
        let (_d, files) = managed_tier(Some("{}"), None, true);
        assert_eq!(kinds(&files), own(&[(HKLM, "read"), ("gk.json", "read")]));
    }

    #[test]
    fn a_machine_value_that_is_not_json_or_blank_is_unparseable_and_holds_the_tier() {
        // Measured: both stop the client ("could not be parsed as a JSON
        // object"), so nothing of the files applies either.
        for bad in ["{\"hooks\": ,}", "  "] {
            let (_d, files) = managed_tier(Some(bad), None, true);
            assert_eq!(
                kinds(&files),
                own(&[(HKLM, "unparseable"), ("gk.json", "hidden by HKLM")]),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_user_value_counts_only_where_no_managed_file_or_drop_in_exists() {
        // Measured: HKCU's prompt hook ran alone; beside a drop-in (no
        // managed-settings.json) only the drop-in's ran.
        let (_d, files) = managed_tier(None, Some(PROMPT_HOOK), false);
        assert_eq!(kinds(&files), own(&[(HKCU, "read")]));
        let (_d, files) = managed_tier(None, Some(PROMPT_HOOK), true);
        assert_eq!(
            kinds(&files),
            own(&[("gk.json", "read"), (HKCU, "hidden by the managed file")])
        );
    }

    #[test]
    fn a_value_the_registry_would_not_give_leaves_the_tier_to_the_files() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("ClaudeCode/managed-settings.d");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("gk.json"), PROMPT_HOOK).unwrap();
        let registry = RegistryPolicy {
            machine: Some(PolicyValue::Unreadable("not a text value (REG_SZ)".into())),
            user: None,
        };
        let files: Vec<ScopeFile> = load_scopes(
            &d.path().join("settings.json"),
            None,
            &d.path().join("ClaudeCode/managed-settings.json"),
            &registry,
        )
        .into_iter()
        .filter(|f| f.scope == Scope::Managed && !matches!(f.load, Load::Absent))
        .collect();
        assert_eq!(
            kinds(&files),
            own(&[(HKLM, "unreadable"), ("gk.json", "read")])
        );
    }

    /// The order sources are read in is the order they spend the budget:
    /// both registry values before any file (they depend on none), so a
    /// large machine value leaves less for the files; the files still come
    /// in the order the client merges them, the values in the managed tier.
    #[test]
    fn registry_values_spend_the_budget_before_the_files_and_stand_in_the_managed_tier() {
        let d = tempfile::tempdir().unwrap();
        let user = d.path().join("settings.json");
        std::fs::write(&user, format!("{{}}{}", " ".repeat(298))).unwrap();
        let dir = d.path().join("ClaudeCode/managed-settings.d");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("gk.json"), PROMPT_HOOK).unwrap();
        // `{}`: no setting, so the managed files keep the tier.
        let machine = format!("{{}}{}", " ".repeat(348));
        let registry = RegistryPolicy {
            machine: Some(PolicyValue::Text(machine)),
            user: Some(PolicyValue::Text("{}".into())),
        };
        let paths = ScopePaths {
            user,
            project_dir: Some(d.path().join("p")),
            managed: d.path().join("ClaudeCode/managed-settings.json"),
            registry: &registry,
        };
        let budget = Budget {
            file_bytes: 1_000,
            total_bytes: 500,
            ..Budget::SESSION
        };
        let files = load(&paths, Some(&mut Spent::new(budget)));
        let listed: Vec<(String, &str)> = files
            .iter()
            .map(|f| {
                let name = match is_registry_value(&f.path) {
                    true => f.path.display().to_string(),
                    false => f.path.file_name().unwrap().to_string_lossy().into_owned(),
                };
                let kind = match &f.load {
                    Load::Absent => "absent",
                    Load::Unchecked(_) => "unchecked",
                    Load::Hidden { .. } => "hidden",
                    _ if f.effective() => "read",
                    _ => "other",
                };
                (name, kind)
            })
            .collect();
        // 350 + 2 bytes of values read first: the user file's 300 do not fit.
        assert_eq!(
            listed,
            own(&[
                ("settings.json", "unchecked"),
                ("settings.json", "absent"),
                ("settings.local.json", "absent"),
                (HKLM, "read"),
                ("managed-settings.json", "absent"),
                ("gk.json", "read"),
                (HKCU, "hidden"),
            ])
        );
    }
}
