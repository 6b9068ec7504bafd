//! The normalised registration table: one row per command handler of the
//! files Claude Code uses, and the policy that says which scopes run.
//!
//! Claude Code adds the hooks of every settings file it loads together and
//! deduplicates them by the raw command string only (measured): the same
//! string twice runs once, two spellings of the same program run twice. So
//! a row keeps the string exactly as the client compares it, and beside it
//! what the string runs (`hookcmd`), which decides whose it is.
//! `disableAllHooks` and managed `allowManagedHooksOnly` then decide which
//! scopes run at all.

use std::path::PathBuf;

use super::scopes::{Load, Scope, ScopeFile};
use crate::hookcmd::{CommandContext, HookKind, Invocation, Owner};
use crate::settings;

/// One command handler from a loaded settings file, with what it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Registration {
    pub scope: Scope,
    pub path: PathBuf,
    pub line: usize,
    pub event: String,
    pub command: String,
    /// Exec form: the program and its arguments as the client starts them
    /// (no shell); `None` for a command string run through a shell.
    pub exec: Option<Vec<String>>,
    pub shell: Option<String>,
    pub timeout: Option<f64>,
    pub owner: Owner,
    /// `None` when the command could not be decided (pipes, `&&`, unknown variables).
    pub invocation: Option<Invocation>,
    /// The plugin this row comes from (`scope` is then [`Scope::Plugin`]).
    pub plugin: Option<PluginTag>,
}

/// Which plugin a row comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginTag {
    /// `<name>@<marketplace>`.
    pub id: String,
    /// Enabled by managed settings (see [`super::plugins::Plugin::forced`]).
    pub forced: bool,
    /// Enabled for every project: by user or managed settings, not only by
    /// a project's own (its copy of a hook does not run elsewhere).
    pub everywhere: bool,
}

/// Where the client counts a handler from when it drops identical ones:
/// it deduplicates within one source only (measured, 2.1.332). User,
/// project and local settings are one source; managed settings another;
/// each plugin its own (two of one name count once: the second is skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source<'r> {
    Settings,
    Managed,
    Plugin(&'r str),
}

/// A row for unit tests: `command` under `event` at line 3 of
/// `/<scope>/settings.json`, shell form, running `/h/.claude/hooks/gk`.
#[cfg(test)]
pub(crate) fn test_row(scope: Scope, event: &str, command: &str, owner: Owner) -> Registration {
    Registration {
        scope,
        path: PathBuf::from(format!("/{}/settings.json", scope.name())),
        line: 3,
        event: event.to_string(),
        command: command.to_string(),
        exec: None,
        shell: None,
        timeout: None,
        owner,
        invocation: Some(crate::hookcmd::Invocation {
            program: "/h/.claude/hooks/gk".to_string(),
            args: vec![],
            shown: "/h/.claude/hooks/gk".to_string(),
        }),
        plugin: None,
    }
}

impl Registration {
    /// `scope path:line`, for messages (`plugin <id> path:line` for a plugin's).
    pub fn place(&self) -> String {
        match &self.plugin {
            Some(p) => format!("plugin {} {}:{}", p.id, self.path.display(), self.line),
            None => format!(
                "{} settings {}:{}",
                self.scope.name(),
                self.path.display(),
                self.line
            ),
        }
    }

    /// The source the client deduplicates this row within.
    pub fn source(&self) -> Source<'_> {
        match (&self.plugin, self.scope) {
            (Some(p), _) => Source::Plugin(p.id.split('@').next().unwrap_or(&p.id)),
            (None, scope) if scope.is_policy() => Source::Managed,
            (None, _) => Source::Settings,
        }
    }

    /// This registration does the job of `kind` (gk or its Python forerunner)
    /// under the event that job belongs to.
    pub fn does(&self, kind: HookKind) -> bool {
        self.event == kind.event()
            && matches!(self.owner, Owner::Gk(k) | Owner::Legacy(k) if k == kind)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchKey {
    DisableAllHooks,
    AllowManagedHooksOnly,
}

impl SwitchKey {
    pub fn key(self) -> &'static str {
        match self {
            SwitchKey::DisableAllHooks => "disableAllHooks",
            SwitchKey::AllowManagedHooksOnly => "allowManagedHooksOnly",
        }
    }
}

/// A boolean hook switch found at the top level of a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switch {
    pub scope: Scope,
    pub path: PathBuf,
    pub line: Option<usize>,
    pub key: SwitchKey,
    pub value: bool,
}

/// The hook switches of the files Claude Code uses, in load order.
pub fn switches(files: &[ScopeFile]) -> Vec<Switch> {
    let mut out = Vec::new();
    for file in files.iter().filter(|f| f.effective()) {
        let Some(s) = file.settings() else { continue };
        for key in [SwitchKey::DisableAllHooks, SwitchKey::AllowManagedHooksOnly] {
            if let Some(value) = s.value.get(key.key()).and_then(|v| v.as_bool()) {
                let needle = format!("\"{}\"", key.key());
                let line = s
                    .text
                    .find(&needle)
                    .map(|off| settings::line_col(&s.text, off).0);
                out.push(Switch {
                    scope: file.scope,
                    path: file.path.clone(),
                    line,
                    key,
                    value,
                });
            }
        }
    }
    out
}

/// Which scopes' hooks run, and which switch turned them off.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Policy {
    /// User, project and local hooks are off because of this switch.
    pub nonmanaged_off: Option<Switch>,
    /// Managed hooks are off too (managed `disableAllHooks`).
    pub managed_off: Option<Switch>,
}

impl Policy {
    /// Does a row of `scope` run? (A plugin's: see [`Policy::runs_row`].)
    pub fn runs(&self, scope: Scope) -> bool {
        if scope.is_policy() {
            self.managed_off.is_none()
        } else {
            self.nonmanaged_off.is_none()
        }
    }

    /// Does this row run? Measured: a plugin that managed settings enable
    /// runs under `allowManagedHooksOnly` and under a non-managed
    /// `disableAllHooks`; every other plugin runs when user hooks do.
    pub fn runs_row(&self, r: &Registration) -> bool {
        match &r.plugin {
            Some(p) if p.forced => self.managed_off.is_none(),
            _ => self.runs(r.scope),
        }
    }
}

/// Settle the switches the way Claude Code merges settings: managed beats
/// local beats project beats user for `disableAllHooks` (the last managed
/// file read wins among managed ones); a managed `true` turns off every
/// hook, a non-managed one only the non-managed hooks. `allowManagedHooksOnly`
/// counts only in managed settings.
pub fn policy(switches: &[Switch]) -> Policy {
    // The last one read of the highest precedence (`max_by_key` keeps the
    // last of equals), among managed settings or among the others.
    let last = |policy: bool, key: SwitchKey| {
        switches
            .iter()
            .filter(|s| s.key == key && s.scope.is_policy() == policy)
            .filter(|s| s.scope.precedence() > 0)
            .max_by_key(|s| s.scope.precedence())
    };
    let managed_disable = last(true, SwitchKey::DisableAllHooks);
    let nonmanaged_disable = last(false, SwitchKey::DisableAllHooks);
    let only_managed = last(true, SwitchKey::AllowManagedHooksOnly).filter(|s| s.value);

    let mut policy = Policy::default();
    match managed_disable.or(nonmanaged_disable) {
        Some(s) if s.value && s.scope.is_policy() => {
            policy.managed_off = Some(s.clone());
            policy.nonmanaged_off = Some(s.clone());
        }
        Some(s) if s.value => policy.nonmanaged_off = Some(s.clone()),
        _ => {}
    }
    if policy.nonmanaged_off.is_none() {
        policy.nonmanaged_off = only_managed.cloned();
    }
    policy
}

/// The command handlers of one loaded file as rows. A plugin's file comes
/// with `${CLAUDE_PLUGIN_ROOT}` already put in (`super::plugins`, within
/// the reading's budget), so the row is identified by what it runs; the
/// row keeps the exec form's arguments as the client passes them.
fn file_rows(
    file: &ScopeFile,
    plugin: Option<&PluginTag>,
    identify: &dyn Fn(&str) -> (Owner, Option<Invocation>),
) -> Vec<Registration> {
    let Load::Parsed { entries, .. } = &file.load else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for e in entries {
        // A handler the client ignores registers nothing.
        if e.dropped || e.hook_type.as_deref() != Some("command") {
            continue;
        }
        let Some(command) = e.run_command() else {
            continue;
        };
        let (owner, invocation) = identify(&command);
        // Install's rule: the Python scripts only count under their own event.
        let owner = crate::hookcmd::owner_under(owner, &e.event);
        rows.push(Registration {
            scope: file.scope,
            path: file.path.clone(),
            line: e.line,
            event: e.event.clone(),
            command,
            exec: e.args.as_ref().map(|args| {
                let mut argv = vec![e.command.clone().unwrap_or_default()];
                argv.extend(args.iter().cloned());
                argv
            }),
            shell: e.shell.clone(),
            timeout: e.timeout,
            owner,
            invocation,
            plugin: plugin.cloned(),
        });
    }
    rows
}

/// Every registration of the files Claude Code uses, the policy over them,
/// and for each of gk's hooks the rows that do its job.
#[derive(Debug, Clone)]
pub struct Table {
    pub rows: Vec<Registration>,
    pub policy: Policy,
    /// Per [`HookKind`] (in `HookKind::ALL` order): indices of the rows that
    /// do that hook's job, in any scope.
    doing: [Vec<usize>; HookKind::ALL.len()],
}

fn slot(kind: HookKind) -> usize {
    kind.index()
}

impl Table {
    /// The table of `files` (parsed, schema-clean ones only: a file the
    /// client skips contributes nothing), commands identified on the
    /// machine `ctx` describes.
    pub fn new(files: &[ScopeFile], ctx: &CommandContext) -> Table {
        Table::with_plugins(files, &super::plugins::Plugins::none(), ctx)
    }

    /// [`Table::new`], with the hooks of the enabled `plugins` as rows too.
    pub fn with_plugins(
        files: &[ScopeFile],
        plugins: &super::plugins::Plugins,
        ctx: &CommandContext,
    ) -> Table {
        let identify = |cmd: &str| {
            let invocation = crate::hookcmd::normalize(cmd, ctx);
            (crate::hookcmd::owner_of(invocation.as_ref()), invocation)
        };
        let mut table = Table::with(files, &identify);
        let mut rows = std::mem::take(&mut table.rows);
        for p in &plugins.enabled {
            let tag = PluginTag {
                id: p.id.clone(),
                forced: p.forced,
                everywhere: p.forced || !p.enabled_in.0.in_project(),
            };
            for file in p.hooks.iter().filter(|f| f.effective()) {
                rows.extend(file_rows(file, Some(&tag), &identify));
            }
        }
        Table::of_rows(rows, table.policy)
    }

    /// [`Table::new`] with the command identity injected (tests).
    pub fn with(
        files: &[ScopeFile],
        identify: &dyn Fn(&str) -> (Owner, Option<Invocation>),
    ) -> Table {
        let mut rows = Vec::new();
        for file in files.iter().filter(|f| f.effective()) {
            rows.extend(file_rows(file, None, identify));
        }
        Table::of_rows(rows, policy(&switches(files)))
    }

    /// A table of rows made elsewhere (tests, or a caller with its own reader).
    pub fn of_rows(rows: Vec<Registration>, policy: Policy) -> Table {
        let mut doing: [Vec<usize>; HookKind::ALL.len()] = Default::default();
        for (i, r) in rows.iter().enumerate() {
            for kind in HookKind::ALL {
                if r.does(kind) {
                    doing[slot(kind)].push(i);
                }
            }
        }
        Table {
            rows,
            policy,
            doing,
        }
    }

    /// The rows doing `kind`'s job, in any scope, whether it runs or not.
    pub fn doing(&self, kind: HookKind) -> impl Iterator<Item = &Registration> + '_ {
        self.doing[slot(kind)].iter().map(|&i| &self.rows[i])
    }

    /// The rows doing `kind`'s job in scopes whose hooks run.
    pub fn running(&self, kind: HookKind) -> impl Iterator<Item = &Registration> + '_ {
        self.doing(kind).filter(|r| self.policy.runs_row(r))
    }

    /// Does any loaded file register `kind`'s job (gk or the Python hook)?
    pub fn registers(&self, kind: HookKind) -> bool {
        !self.doing[slot(kind)].is_empty()
    }

    /// Does this row's scope run its hooks?
    pub fn runs(&self, r: &Registration) -> bool {
        self.policy.runs_row(r)
    }
}
