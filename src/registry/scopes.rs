//! The settings files Claude Code loads, read the way it reads them: user,
//! project, local and managed (policy, plus its `managed-settings.d/`
//! drop-ins). A file that does not parse contributes nothing — Claude Code
//! skips it whole — and the project file *is* the user file when Claude
//! Code is started in the home folder; both facts decide what "registered"
//! means, so they are settled here, once, before any check runs.

use std::path::{Path, PathBuf};

use crate::platform::Os;
use crate::settings::{self, HookEntry, ParseError, SchemaIssue, Settings};

/// Which settings scope a file is loaded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    User,
    Project,
    Local,
    Managed,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::Managed => "managed",
        }
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
    /// Exists but could not be read (permissions, not a file).
    Unreadable(String),
    /// Not strict JSON, or not UTF-8: Claude Code skips the whole file.
    Unparseable(ParseError),
    Parsed {
        settings: Box<Settings>,
        entries: Vec<HookEntry>,
        issues: Vec<SchemaIssue>,
    },
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
        matches!(&self.load, Load::Parsed { issues, .. } if !issues.iter().any(|i| i.rejects_file))
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

/// The platform's managed (policy) settings file.
pub fn default_managed_path(os: Os) -> PathBuf {
    match os {
        Os::Linux => PathBuf::from("/etc/claude-code/managed-settings.json"),
        Os::MacOs => PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json"),
        Os::Windows => PathBuf::from(r"C:\Program Files\ClaudeCode\managed-settings.json"),
    }
}

/// Where every scope's file is, for one run.
#[derive(Debug, Clone)]
pub struct ScopePaths {
    pub user: PathBuf,
    pub project_dir: PathBuf,
    pub managed: PathBuf,
}

impl ScopePaths {
    pub fn project(&self) -> PathBuf {
        self.project_dir.join(".claude").join("settings.json")
    }

    pub fn local(&self) -> PathBuf {
        self.project_dir.join(".claude").join("settings.local.json")
    }

    pub fn managed_dropin_dir(&self) -> PathBuf {
        dropin_dir(&self.managed)
    }
}

/// The `managed-settings.d/` folder beside the managed file.
pub fn dropin_dir(managed: &Path) -> PathBuf {
    managed
        .parent()
        .map(|p| p.join("managed-settings.d"))
        .unwrap_or_else(|| PathBuf::from("managed-settings.d"))
}

/// Read every scope: user, project, local, managed, then managed drop-ins
/// in name order (later ones override earlier ones, as Claude Code merges them).
pub fn load_all(paths: &ScopePaths) -> Vec<ScopeFile> {
    load_scopes(&paths.user, Some(&paths.project_dir), &paths.managed)
}

/// [`load_all`] for a run that may have no project folder (`None`: a
/// session hook whose event names a folder that is not there): then only
/// user and managed settings are read, and no project or local entry is
/// listed at all.
pub fn load_scopes(user: &Path, project_dir: Option<&Path>, managed: &Path) -> Vec<ScopeFile> {
    let mut files = vec![ScopeFile {
        scope: Scope::User,
        path: user.to_path_buf(),
        load: load_file(user),
    }];
    if let Some(dir) = project_dir {
        let project = dir.join(".claude").join("settings.json");
        let project_load = if same_file(&project, user) {
            Load::SameAsUser
        } else {
            load_file(&project)
        };
        files.push(ScopeFile {
            scope: Scope::Project,
            path: project,
            load: project_load,
        });
        let local = dir.join(".claude").join("settings.local.json");
        files.push(ScopeFile {
            scope: Scope::Local,
            load: load_file(&local),
            path: local,
        });
    }
    files.push(ScopeFile {
        scope: Scope::Managed,
        path: managed.to_path_buf(),
        load: load_file(managed),
    });
    for path in dropins(&dropin_dir(managed)) {
        files.push(ScopeFile {
            scope: Scope::Managed,
            load: load_file(&path),
            path,
        });
    }
    files
}

/// Every `*.json` in the drop-in folder that is not a folder: a named pipe
/// or a device there is listed too, so that it is reported (as unreadable)
/// rather than passed over in silence.
fn dropins(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = read
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && !p.is_dir())
        .collect();
    found.sort();
    found
}

/// Both paths name one existing file (after links and `..`). On Unix by
/// device and inode (two `stat`s; resolving both paths costs a `readlink`
/// per folder on the way, and the session check asks this at every start).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => (x.dev(), x.ino()) == (y.dev(), y.ino()),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
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
        let p = ScopePaths {
            user: "/h/.claude/settings.json".into(),
            project_dir: "/p".into(),
            managed: "/etc/claude-code/managed-settings.json".into(),
        };
        assert_eq!(
            p.managed_dropin_dir(),
            Path::new("/etc/claude-code/managed-settings.d")
        );
        assert_eq!(p.local(), Path::new("/p/.claude/settings.local.json"));
    }

    #[test]
    fn same_file_sees_through_links_and_dots_but_not_copies() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/s.json"), "{}").unwrap();
        std::fs::write(d.join("copy.json"), "{}").unwrap();
        assert!(same_file(&d.join("a/s.json"), &d.join("a/../a/./s.json")));
        assert!(!same_file(&d.join("a/s.json"), &d.join("copy.json")));
        assert!(!same_file(&d.join("a/s.json"), &d.join("gone.json")));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("a"), d.join("link")).unwrap();
            assert!(same_file(&d.join("a/s.json"), &d.join("link/s.json")));
        }
    }

    #[test]
    fn home_folder_project_file_is_the_user_file() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        let user = home.path().join(".claude/settings.json");
        std::fs::write(&user, "").unwrap();
        let paths = ScopePaths {
            user: user.clone(),
            project_dir: home.path().to_path_buf(),
            managed: home.path().join("none/managed-settings.json"),
        };
        let files = load_all(&paths);
        assert!(matches!(files[0].load, Load::Empty));
        assert!(matches!(files[1].load, Load::SameAsUser));
        assert!(matches!(files[3].load, Load::Absent));
    }
}
