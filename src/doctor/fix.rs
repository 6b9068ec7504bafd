//! `gk doctor --fix`: turn the fixable findings into ONE plan and hand it to
//! the change engine (plan → diff → confirm → atomic write, `--yes`,
//! `--dry-run`), then diagnose again and print the result. What cannot be
//! fixed (managed policy, a file that does not parse, `disableAllHooks`) is
//! explained with the file and what to change; doctor never edits those.

use std::path::{Path, PathBuf};

use super::claude_md::SectionSpec;
use super::finding::{Code, Finding, Severity};
use super::registrations::RegistrationFix;
use super::render;
use super::{Diagnosis, Inputs};
use crate::change::apply::{self, ChangeOptions, Outcome};
use crate::change::plan::{FileChange, Plan};
use crate::change::render::Style;
use crate::cli::{ColorChoice, DoctorArgs, ShellChoice};
use crate::console::{out, outln, Console};
use crate::edit::claude_md;
use crate::error::{Error, Result};
use crate::registry::scopes::{Load, ScopeFile};
use crate::setup;
use crate::setup::parts::{Part, Parts};
use crate::setup::planner::{self, By, Desired, Direction, Program, Request, TakeOut};

/// How the CLAUDE.md block is recognised, and the block this gk writes.
pub fn section_spec(inputs: &Inputs) -> SectionSpec {
    SectionSpec {
        begin: "<!-- gk:begin",
        end: claude_md::END_MARKER,
        legacy_heading: crate::hooks::convention::LEGACY_HEADING,
        expected: Some(section_text(inputs)),
    }
}

/// The Task State Convention text for this machine (install's template).
fn section_text(inputs: &Inputs) -> String {
    crate::hooks::convention::section_for(&inputs.machine.paths.state_file().display().to_string())
}

/// What the plan must do, decided from the findings alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixNeeds {
    /// The parts the findings' remedies name, as install plans them
    /// ([`Part::Registrations`]: one canonical entry per hook in user
    /// settings, legacy and variant entries removed).
    pub parts: Parts,
    /// Files whose gk/legacy entries must go: project and local settings;
    /// user settings too when managed settings register all of gk's hooks.
    pub remove_from: Vec<PathBuf>,
    /// When not empty, only the entries of these hooks go from
    /// `remove_from` (plugins register them), each with the plugin that
    /// carries it; gk's other entries stay.
    pub carried: Vec<(crate::hookcmd::HookKind, String)>,
    /// Who registers every one of gk's hooks when settings copies go
    /// because of it, with the verb that agrees: "managed settings
    /// register" or "plugin <id> registers".
    pub registered_by: Option<String>,
    /// Findings that need a person, each with why doctor leaves it alone.
    pub manual: Vec<String>,
}

impl FixNeeds {
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty() && self.remove_from.is_empty()
    }
}

/// Can the editor touch this file? Missing and empty files can be created;
/// a file that does not parse or breaks the schema is left to the user.
pub fn editable(file: &ScopeFile) -> std::result::Result<(), String> {
    match &file.load {
        Load::Absent | Load::Empty => Ok(()),
        Load::Parsed { issues, .. } => match issues.iter().find(|i| i.blocks_edit()) {
            None => Ok(()),
            Some(i) => Err(format!(
                "{} breaks the settings schema at line {} ({}: {}); correct it by hand first",
                file.path.display(),
                i.line,
                i.at,
                i.reason
            )),
        },
        Load::Unparseable(e) => Err(format!(
            "{} is not strict JSON (line {} column {}: {}); correct it by hand first, gk never rewrites a file it cannot parse",
            file.path.display(),
            e.line,
            e.column,
            e.reason
        )),
        Load::Unreadable(why) => Err(format!("{} cannot be read ({why})", file.path.display())),
        Load::Unchecked(why) => Err(format!("{} {why}", file.path.display())),
        Load::SameAs { scope, path } => Err(format!(
            "{} is the same file as {} settings {}; gk edits it as that file only",
            file.path.display(),
            scope.name(),
            path.display()
        )),
        Load::SameAsUser => Ok(()),
        Load::Hidden { by } => Err(format!(
            "{} is not read by Claude Code while {} holds the managed settings",
            file.path.display(),
            by.display()
        )),
    }
}

/// Pure: decide the plan's parts from the findings and the loaded files.
pub fn needs(
    findings: &[Finding],
    files: &[ScopeFile],
    registrations: &[crate::registry::table::Registration],
    how: &RegistrationFix,
) -> FixNeeds {
    let mut n = FixNeeds::default();
    let user = files.iter().find(|f| f.scope.is_user());
    // Managed settings or a plugin already do every job: only removals of
    // settings entries are needed, and the program they run is theirs.
    let outside_managed = matches!(
        how,
        RegistrationFix::RemoveOutsideManaged { .. } | RegistrationFix::RemoveOutsidePlugin { .. }
    );
    let carried = match how {
        RegistrationFix::RemovePluginCopies { carried } => Some(carried),
        _ => None,
    };
    n.registered_by = match how {
        RegistrationFix::RemoveOutsideManaged { .. } => {
            Some("managed settings register".to_string())
        }
        RegistrationFix::RemoveOutsidePlugin { plugin } => {
            Some(format!("plugin {plugin} registers"))
        }
        _ => None,
    };
    for f in findings.iter().filter(|f| f.severity > Severity::Info) {
        match f.remedy {
            // Plugins register some of gk's hooks: the settings copies of
            // those go; a finding about another hook (missing, misspelt)
            // has it registered in user settings, and never the carried
            // ones (the plan is told they are a plugin's).
            Some(Part::Registrations) if carried.is_some() => {
                n.carried = carried.cloned().unwrap_or_default();
                if f.code != Code::HookInPluginAndSettings {
                    n.parts.insert(Part::Registrations);
                    n.parts.insert(Part::Program);
                }
            }
            None => n.manual.push(match &f.fix {
                Some(fix) => format!("[{}] {fix}", f.code),
                None => format!("[{}] {}", f.code, f.message),
            }),
            // Managed settings already do every job: only removals are
            // needed, and the program they run is theirs.
            Some(Part::Registrations) if outside_managed => n.parts.insert(Part::Registrations),
            Some(Part::Registrations) => {
                n.parts.insert(Part::Registrations);
                n.parts.insert(Part::Program);
            }
            Some(part) => n.parts.insert(part),
        }
    }
    if n.parts.has(Part::PermissionRules) {
        if let Some(Err(why)) = user.map(editable) {
            n.manual
                .push(format!("cannot add the permission rules: {why}"));
            n.parts.remove(Part::PermissionRules);
        }
    }
    if !n.carried.is_empty() {
        take_out_carried(&mut n, files, registrations);
    }
    if n.parts.has(Part::Registrations) {
        take_out_copies(&mut n, files, registrations, how, user);
    }
    n
}

/// Plugins carry some of gk's hooks: the settings copies of those go
/// from every settings file, or (one of them not editable) from none.
fn take_out_carried(
    n: &mut FixNeeds,
    files: &[ScopeFile],
    registrations: &[crate::registry::table::Registration],
) {
    let kinds: Vec<_> = n.carried.iter().map(|(k, _)| *k).collect();
    for r in registrations {
        let of = matches!(r.owner, crate::hookcmd::Owner::Gk(k) | crate::hookcmd::Owner::Legacy(k) if kinds.contains(&k));
        let settings = r.scope.gk_edits();
        if of && settings && !n.remove_from.contains(&r.path) {
            n.remove_from.push(r.path.clone());
        }
    }
    // All or nothing: a copy left behind still runs twice, one taken
    // out of one file only is as confusing.
    if !not_editable(n, files).is_empty() {
        n.remove_from.clear();
        n.carried.clear();
    }
}

/// gk's registrations go to user settings: its entries outside them
/// (project, local; every one but managed settings' when those register
/// all of gk's hooks) go. Managed ones cannot be touched, a plugin's
/// files are never edited (its rows name no settings file).
fn take_out_copies(
    n: &mut FixNeeds,
    files: &[ScopeFile],
    registrations: &[crate::registry::table::Registration],
    how: &RegistrationFix,
    user: Option<&ScopeFile>,
) {
    let outside_managed = matches!(
        how,
        RegistrationFix::RemoveOutsideManaged { .. } | RegistrationFix::RemoveOutsidePlugin { .. }
    );
    let managed_provides = matches!(how, RegistrationFix::RemoveOutsideManaged { .. });
    for r in registrations.iter().filter(|r| r.plugin.is_none()) {
        let ours = !matches!(r.owner, crate::hookcmd::Owner::Foreign);
        let outside = if outside_managed {
            !r.scope.is_policy()
        } else {
            r.scope.in_project()
        };
        if ours && outside && !n.remove_from.contains(&r.path) {
            n.remove_from.push(r.path.clone());
        }
        if ours && r.scope.is_policy() && !managed_provides {
            n.manual.push(format!(
                "gk is registered in managed settings {}:{}; doctor cannot change managed policy — ask whoever manages this machine",
                r.path.display(),
                r.line
            ));
        }
    }
    let blocked = not_editable(n, files);
    n.remove_from.retain(|p| !blocked.contains(p));
    if outside_managed {
        // Nothing is added to user settings: its entries go like the others.
        n.parts.remove(Part::Registrations);
    } else if let Some(user) = user {
        if let Err(why) = editable(user) {
            n.manual
                .push(format!("cannot edit hook registrations: {why}"));
            n.parts.remove(Part::Registrations);
            n.remove_from.clear();
        }
    }
}

/// The files of `n.remove_from` gk cannot edit, each with a line in
/// `n.manual` saying why.
fn not_editable(n: &mut FixNeeds, files: &[ScopeFile]) -> Vec<PathBuf> {
    let mut blocked = Vec::new();
    for path in &n.remove_from {
        if let Some(Err(why)) = files.iter().find(|f| &f.path == path).map(editable) {
            blocked.push(path.clone());
            n.manual.push(format!("cannot remove gk's entries: {why}"));
        }
    }
    blocked
}

/// Build the one plan for every fixable finding: the parts the findings
/// name, planned in by the planner install uses ([`planner::plan`]), with
/// gk's copies taken out of the files `needs` names. Pure apart from
/// reading the files it edits (and the running gk, when the binary is
/// replaced).
pub fn plan(
    inputs: &Inputs,
    needs: &FixNeeds,
    program: &dyn Fn() -> Result<Vec<u8>>,
) -> Result<Plan> {
    // The hooks plugins carry are not registered in user settings.
    let carried: Vec<_> = needs.carried.iter().map(|(k, _)| *k).collect();
    let site = setup::parts::Site {
        by_plugin: &carried,
        ..inputs.site()
    };
    let desired = Desired {
        site,
        shell: setup::shell_form(ShellChoice::Auto, inputs.machine.ctx.os),
        rules: site.rules(),
        channel: planner::Channel::User,
    };
    // Never downgrade: a gk in place that is newer than this one stays
    // (its own hook-binary-outdated finding says so).
    let older_or_none = |old: Option<&[u8]>| {
        !old.and_then(super::binary::embedded_version)
            .is_some_and(|v| super::binary::newer(&v, super::binary::this_version()))
    };
    let request = Request {
        direction: Direction::Add,
        by: By::Fix,
        parts: needs.parts,
        take_out: TakeOut {
            from: needs.remove_from.clone(),
            kinds: needs.carried.iter().map(|(k, _)| *k).collect(),
            reason: removal_reason(needs),
        },
        program: Some(Program {
            bytes: program,
            replace: &older_or_none,
        }),
    };
    let mut plan = Plan::new("gk doctor --fix");
    planner::plan(&desired, &request, &mut plan)?;
    Ok(plan)
}

/// Why gk's entries are taken out of a file: which plugin now carries
/// each hook, or the managed settings or plugin that register them all,
/// or (neither) that gk's hooks belong in user settings.
fn removal_reason(needs: &FixNeeds) -> String {
    if needs.carried.is_empty() {
        return match &needs.registered_by {
            Some(who_does) => format!("{who_does} gk's hooks; these would run a second time"),
            None => "gk's hooks belong in user settings only".to_string(),
        };
    }
    let each: Vec<String> = needs
        .carried
        .iter()
        .map(|(k, plugin)| format!("plugin {plugin} now carries gk's {} hook", k.arg()))
        .collect();
    format!(
        "{}; a settings copy would run it a second time",
        each.join(", ")
    )
}

/// Install's diff masks `env` values and secret-named keys where they are
/// defined, but not the same value quoted elsewhere in the file (a hook
/// command holding a webhook URL from `env`, next to an entry --fix
/// removes). Doctor promises never to print a secret, so a change whose
/// diff would show one is withheld (and with it every settings change: a
/// half-done registration fix could leave a hook missing), and explained.
pub fn withhold_secret_diffs(
    plan: Plan,
    redactor: &render::Redactor,
    is_settings: &dyn Fn(&Path) -> bool,
) -> (Plan, Vec<String>) {
    let leaks = |c: &FileChange| {
        if c.binary || !c.changes_something() {
            return false;
        }
        let mut one = Plan::new(&plan.title);
        one.push(c.clone());
        let shown = crate::change::render::render(&one, Style { color: false });
        // Only the diff's lines: the action list and headers hold paths.
        shown
            .lines()
            .skip_while(|l| !l.starts_with("--- "))
            .filter(|l| !l.starts_with("--- ") && !l.starts_with("+++ "))
            .any(|l| redactor.redact(l) != l)
    };
    let leaking: Vec<PathBuf> = plan
        .changes
        .iter()
        .filter(|c| leaks(c))
        .map(|c| c.path.clone())
        .collect();
    if leaking.is_empty() {
        return (plan, Vec::new());
    }
    let settings_too = leaking.iter().any(|p| is_settings(p));
    let mut kept = Plan::new(&plan.title);
    let mut notes = Vec::new();
    for c in plan.changes {
        if leaking.contains(&c.path) {
            notes.push(format!(
                "the change to {} is not shown or made: its diff would show a secret value (a value from `env` or a secret-named key that also appears elsewhere in the file); make it by hand: {}",
                c.path.display(),
                c.reason
            ));
        } else if settings_too && is_settings(&c.path) && c.changes_something() {
            notes.push(format!(
                "the change to {} is held back with it ({})",
                c.path.display(),
                c.reason
            ));
        } else {
            kept.push(c);
        }
    }
    (kept, notes)
}

/// The bytes of the running gk (what install copies too).
fn running_program(env: &crate::env::Env) -> Result<Vec<u8>> {
    let exe = env
        .current_exe()
        .map_err(|e| Error::new(format!("could not find the running gk: {e}")))?;
    crate::bounded::read(exe, crate::bounded::PROGRAM_LIMIT)
        .map(|c| c.bytes)
        .map_err(|e| Error::io("read", exe, &e.into_io()))
}

/// Where `path` really is, when that is outside `project_dir`: a project
/// or local settings file that is a link out of the project (to the user's
/// own settings, another project's, anywhere) is not the project's to edit.
/// `None` when it is inside, or cannot be resolved (then it is not there,
/// and nothing is edited through it either).
pub fn outside_project(path: &Path, project_dir: &Path) -> Option<PathBuf> {
    let target = std::fs::canonicalize(path).ok()?;
    let root = std::fs::canonicalize(project_dir).ok()?;
    (!target.starts_with(&root)).then_some(target)
}

/// Take out of `needs` every project or local settings file that resolves
/// outside the project folder, each with one line saying so.
pub fn confine_to_project(
    needs: &mut FixNeeds,
    files: &[ScopeFile],
    project_dir: &Path,
    outside: &dyn Fn(&Path) -> Option<PathBuf>,
) {
    let in_project = |p: &PathBuf| files.iter().any(|f| &f.path == p && f.scope.in_project());
    let mut kept = Vec::new();
    for path in std::mem::take(&mut needs.remove_from) {
        match outside(&path).filter(|_| in_project(&path)) {
            Some(target) => needs.manual.push(format!(
                "{} leads to {}, outside the project folder {}; doctor does not edit a file there through the project's link: remove gk's entries from it by hand if they should go",
                crate::text::one_line(&path.display().to_string(), 300),
                crate::text::one_line(&target.display().to_string(), 300),
                crate::text::one_line(&project_dir.display().to_string(), 300)
            )),
            None => kept.push(path),
        }
    }
    needs.remove_from = kept;
}

pub fn run(
    inputs: &Inputs,
    diagnosis: &Diagnosis,
    args: &DoctorArgs,
    color: ColorChoice,
    c: &mut Console<'_>,
) -> Result<u8> {
    let mut needs = needs(
        &diagnosis.report.findings,
        &diagnosis.files,
        &diagnosis.registrations,
        &diagnosis.how,
    );
    let project_dir = &inputs.project_dir;
    confine_to_project(&mut needs, &diagnosis.files, project_dir, &|p| {
        outside_project(p, project_dir)
    });
    outln!(c);
    for m in &needs.manual {
        outln!(
            c,
            "{}",
            diagnosis.redactor.line(&format!("cannot fix: {m}"))
        );
    }
    if needs.is_empty() {
        outln!(c, "Nothing for --fix to do.");
        return Ok(diagnosis.report.exit_code());
    }
    let plan = plan(inputs, &needs, &|| running_program(&inputs.env))?;
    let user = inputs.machine.paths.settings();
    let is_settings = |p: &Path| *p == user || needs.remove_from.iter().any(|r| r == p);
    let (plan, withheld) = withhold_secret_diffs(plan, &diagnosis.redactor, &is_settings);
    for w in &withheld {
        outln!(
            c,
            "{}",
            diagnosis.redactor.line(&format!("cannot fix: {w}"))
        );
    }
    outln!(c);
    let opts = ChangeOptions {
        yes: args.yes,
        dry_run: args.dry_run,
        check: false,
    };
    let env = &inputs.env;
    match apply::execute(&plan, &opts, Style::for_stdout(color.forced(), env), env, c)? {
        Outcome::Written { .. } | Outcome::NothingToDo => {}
        Outcome::DryRun | Outcome::Declined | Outcome::Check { .. } => {
            return Ok(diagnosis.report.exit_code())
        }
    }
    outln!(c, "\nAfter the fix:\n");
    let again = super::diagnose(inputs);
    let style = Style::for_stdout(color.forced(), env);
    out!(
        c,
        "{}",
        render::human(&again.report, args.verbose, style, &again.redactor)
    );
    Ok(again.report.exit_code())
}
