//! `gk doctor`: reads every settings scope and gk's files, reports findings
//! with stable codes, and with `--fix` hands a plan to the change engine (`crate::change`).
//!
//! A run is: gather the machine's facts into [`Inputs`] (paths, platform,
//! environment), [`diagnose`] them into a [`render::Report`] (reading a few
//! small files; the smoke tests are the only processes started), print it,
//! and exit 0 / 1 / 2 by the worst severity. Every check is a pure function
//! in its own module; this file only wires them together. What the client
//! loads and the rules over it are in `crate::registry` (shared with the
//! hooks that will check a session's setup); doctor renders them.

pub mod advice;
pub mod binary;
pub mod claude_md;
pub mod files;
pub mod finding;
pub mod fix;
pub mod permissions;
pub mod plugins;
pub mod programs;
pub mod registrations;
pub mod render;
pub mod state;
pub mod statusline;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::change::render::Style;
use crate::cli::{ColorChoice, DoctorArgs};
use crate::console::{out, outln, Console};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::hookcmd::{HookKind, Owner};
use crate::machine::Machine;
use crate::registry::scopes;
use crate::registry::table::Registration;

use finding::{Code, Finding, Group};
use render::{Redactor, Report};
use scopes::{ScopeFile, ScopePaths};

/// A smoke run slower than this is reported as `hook-slow` (reasoning in
/// docs/doctor.md, "Why 500 ms").
pub const SLOW_THRESHOLD: Duration = Duration::from_millis(500);

/// Everything a doctor run needs to know, as values: the machine's facts
/// (the same [`Machine`] install plans from, so `--fix` edits what doctor
/// read), the project folder, the environment and the time.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The machine, its managed tier as `--managed-settings` names it.
    pub machine: Machine,
    /// The folder whose project and local settings are read.
    pub project_dir: PathBuf,
    /// The environment doctor runs in: its smoke runs get these variables.
    pub env: Env,
    pub smoke: bool,
    pub now: SystemTime,
}

impl Inputs {
    /// The machine's facts gk's parts are spelt from, as install reads
    /// them (doctor does not ask the client its version: the switch hooks'
    /// entries are left as they are).
    pub fn site(&self) -> crate::setup::parts::Site<'_> {
        crate::setup::parts::Site::of(&self.machine)
    }

    /// Where every settings source is.
    pub fn scope_paths(&self) -> ScopePaths<'_> {
        ScopePaths::of(&self.machine, Some(&self.project_dir))
    }

    /// Read the process environment and the flags.
    pub fn from_env(args: &DoctorArgs, env: &Env) -> Result<Inputs> {
        let mut machine = Machine::from_env(env)?;
        let project_dir = match &args.project {
            // From the run's own folder (the `Env`'s), as a process
            // started there reads it.
            Some(p) => project_folder(p, &env.absolute(p))?,
            None => env
                .current_dir()
                .map_err(|e| Error::new(format!("could not read the current folder: {e}")))?
                .to_path_buf(),
        };
        // `--managed-settings` names the managed tier: the registry is not
        // asked then (as with GK_MANAGED_SETTINGS).
        if let Some(file) = &args.managed_settings {
            machine.managed = env.absolute(file);
            machine.registry_policy = Default::default();
        }
        Ok(Inputs {
            machine,
            project_dir,
            env: env.clone(),
            smoke: !args.no_smoke,
            now: SystemTime::now(),
        })
    }
}

/// `--project DIR` must name a folder: reading the settings of one that is
/// not there would report a clean bill for a project that does not exist.
/// `--project` as typed (`given`, named in errors) and as a path from the
/// run's folder (`dir`, the one read).
fn project_folder(given: &Path, dir: &Path) -> Result<PathBuf> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(dir.to_path_buf()),
        Ok(_) => Err(Error::new(format!(
            "--project {} is not a folder",
            given.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::new(format!(
            "the project folder {} does not exist (--project)",
            given.display()
        ))),
        Err(e) => Err(Error::io("read the project folder", given, &e)),
    }
}

pub fn run(args: &DoctorArgs, color: ColorChoice, env: &Env, c: &mut Console<'_>) -> Result<u8> {
    if args.json && args.fix {
        return Err(Error::new(
            "--json cannot be combined with --fix (the plan is shown for review); run `gk doctor --fix`, then `gk doctor --json`",
        ));
    }
    if (args.yes || args.dry_run) && !args.fix {
        return Err(Error::new("--yes and --dry-run only apply with --fix"));
    }
    let inputs = Inputs::from_env(args, env)?;
    let diagnosis = diagnose(&inputs);
    let style = Style::for_stdout(color.forced(), env);
    if args.json {
        let doc = render::json(&diagnosis.report);
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::new(format!("could not format the findings: {e}")))?;
        // Secrets masked first (the redactor knows their serde_json
        // spelling), then what serde_json leaves raw escaped.
        outln!(
            c,
            "{}",
            crate::text::json_escaped(&diagnosis.redactor.redact(&text))
        );
        return Ok(diagnosis.report.exit_code());
    }
    out!(
        c,
        "{}",
        render::human(&diagnosis.report, args.verbose, style, &diagnosis.redactor)
    );
    if !args.fix {
        return Ok(diagnosis.report.exit_code());
    }
    fix::run(&inputs, &diagnosis, args, color, c)
}

/// What one doctor run found, plus what `--fix` needs to plan from it.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    pub report: Report,
    pub files: Vec<ScopeFile>,
    pub registrations: Vec<Registration>,
    /// What `--fix` may do about the registrations, as the report decided it.
    pub how: registrations::RegistrationFix,
    pub redactor: Redactor,
}

/// Run every check (smoke tests included unless switched off), in the
/// order the report shows them.
pub fn diagnose(inputs: &Inputs) -> Diagnosis {
    let mut report = Report::default();
    let scope_paths = inputs.scope_paths();
    let files = scopes::load_all(&scope_paths);
    files::check_settings_files(&files, &scope_paths, &mut report);
    let plugins = crate::registry::plugins::load_plugins(
        &files,
        &inputs.machine.plugins_dir,
        crate::registry::plugins::PluginBudget::DOCTOR,
    );
    plugins::check(&plugins, &mut report);
    let table = crate::registry::table::Table::with_plugins(&files, &plugins, &inputs.machine.ctx);
    let how = check_registrations(inputs, &files, &table, &plugins, &mut report);
    programs::check_binaries(inputs, &table, &how, &mut report);
    files::check_backups_beside_files(inputs, &mut report);
    // gk.json, read once: the hooks' own reading of it.
    let loaded = crate::hooks::config::load_for_hooks(&inputs.machine.paths.config_file());
    let switched_off = check_config(inputs, &loaded, &files, &mut report);
    if inputs.smoke {
        programs::check_smoke(inputs, &table, &switched_off, &mut report);
        programs::check_client_events(inputs, &table, &mut report);
    } else {
        report
            .skipped
            .push((Group::Smoke, "--no-smoke".to_string()));
    }
    check_state(inputs, &loaded, &files, &mut report);
    report.findings.extend(statusline::check(&files, inputs));
    report
        .findings
        .extend(statusline::check_policy(&files, &table, inputs));
    check_claude_md(inputs, &table, &switched_off, &mut report);
    files::fold_into_skipped(&files, &mut report.findings);
    let redactor = files::redactor_for(&files);
    Diagnosis {
        report,
        files,
        registrations: table.rows,
        how,
        redactor,
    }
}

/// gk's registrations across every scope: the policy that switches them
/// off, what is missing or runs twice, and one note per registration.
/// Returns what `--fix` can do about them: managed entries and an
/// undecidable command decide it, and a file gk cannot edit blocks it.
fn check_registrations(
    inputs: &Inputs,
    files: &[ScopeFile],
    table: &crate::registry::table::Table,
    plugins: &crate::registry::plugins::Plugins,
    report: &mut Report,
) -> registrations::RegistrationFix {
    report.findings.extend(registrations::check_policy(table));
    let os = inputs.machine.ctx.os;
    let exists = |p: &Path| p.is_file();
    let runs = |r: &Registration| {
        r.invocation.as_ref().is_some_and(|i| {
            crate::registry::locate::locate(
                os,
                &i.program,
                inputs.machine.path_var.as_deref(),
                &exists,
            )
            .is_some()
        })
    };
    let mut how = registrations::registration_fix(&table.rows, &runs);
    if let Some(why) = blocked_edit(&how, files, &table.rows) {
        how = registrations::RegistrationFix::Blocked { why };
    }
    // A source doctor did not read may register any of gk's hooks: a fix
    // planned without it could register one a second time.
    if let Some(source) = plugins::unread_source(plugins) {
        how = registrations::RegistrationFix::Unread { source };
    }
    report
        .findings
        .extend(registrations::check_registrations_with(
            table,
            &inputs.machine.paths.settings(),
            &how,
        ));
    let policy = &table.policy;
    for r in &table.rows {
        report.notes.push((
            Group::Registrations,
            format!(
                "{}: {} `{}` ({}){}",
                r.place(),
                r.event,
                r.command,
                owner_name(&r.owner),
                if policy.runs(r.scope) {
                    ""
                } else {
                    ", switched off"
                }
            ),
        ));
    }
    how
}

/// gk.json: usable or not, the hooks it switches off (returned: their smoke
/// tests expect no output), and advice on its rules.
fn check_config(
    inputs: &Inputs,
    loaded: &crate::hooks::config::LoadedConfig,
    files: &[ScopeFile],
    report: &mut Report,
) -> Vec<HookKind> {
    let config_path = inputs.machine.paths.config_file();
    if let Some(e) = &loaded.error {
        report.findings.push(state::config_finding(e));
        return Vec::new();
    }
    let config = &loaded.config;
    report.notes.push((
        Group::Config,
        if std::fs::symlink_metadata(&config_path).is_ok() {
            format!("{}: usable", config_path.display())
        } else {
            format!(
                "{}: absent; the hooks use the built-in rules",
                config_path.display()
            )
        },
    ));
    let mut switched_off = Vec::new();
    for kind in HookKind::ALWAYS.into_iter().filter(|k| !config.enabled(*k)) {
        switched_off.push(kind);
        report.findings.push(
            Finding::new(
                Code::HookSwitchedOff,
                format!(
                    "the {} hook is switched off in {} (it runs but prints nothing)",
                    kind.arg(),
                    config_path.display()
                ),
            )
            .at(&config_path, None)
            .fix(format!("gk enable {}", kind.arg())),
        );
    }
    report
        .findings
        .extend(advice::check(config, files, &config_path));
    switched_off
}

/// The shared task state, and in session scope the records' folder: the
/// rules that let Claude write there, the folder itself, its privacy.
fn check_state(
    inputs: &Inputs,
    loaded: &crate::hooks::config::LoadedConfig,
    files: &[ScopeFile],
    report: &mut Report,
) {
    // A gk.json that cannot be used: the hooks keep its scope where they can
    // read it (`load_for_hooks`), and age the record by the default hours.
    let stale_hours = match loaded.error {
        None => loaded.config.stale_hours,
        Some(_) => crate::hooks::config::Config::default().stale_hours,
    };
    let state_path = inputs.machine.paths.state_file();
    let verdict = crate::hooks::state::read_state(&state_path).verdict(inputs.now, stale_hours);
    report.notes.push((
        Group::State,
        format!(
            "{}: {}",
            state_path.display(),
            state::describe(&verdict, stale_hours)
        ),
    ));
    report
        .findings
        .extend(state::finding(&verdict, &state_path, stale_hours));
    let (crate::hooks::config::StateScope::Session, Some(dir)) =
        (loaded.config.state.scope, &inputs.machine.state_dir)
    else {
        return;
    };
    report.notes.push((
        Group::State,
        format!("per-session task records in {}", dir.display()),
    ));
    // What install refuses to grant, `--fix` does not grant either: a
    // folder that cannot be made where it is, or one holding JSON that is
    // no task record (the rules would let Claude edit it).
    let on_disk = crate::hooks::state::cannot_be_made(dir)
        .or_else(|| crate::records::scan(dir).err().map(|e| e.to_string()));
    let user_editable = match on_disk {
        Some(why) => Err(why),
        None => files
            .iter()
            .find(|f| f.scope.is_user())
            .map_or(Ok(()), fix::editable),
    };
    report.findings.extend(permissions::check_rules(
        files,
        dir,
        &inputs.machine.ctx.home,
        inputs.machine.ctx.os,
        inputs.machine.paths.dir(),
        &inputs.machine.paths.settings(),
        user_editable,
    ));
    report.findings.extend(permissions::check_folder(dir));
    report.findings.extend(permissions::check_private(dir));
}

/// The Task State Convention block in CLAUDE.md.
/// When a plugin runs gk's session hook (and gk.json leaves it on), a
/// missing block is handed to Claude by that hook: said so, as info.
fn check_claude_md(
    inputs: &Inputs,
    table: &crate::registry::table::Table,
    switched_off: &[HookKind],
    report: &mut Report,
) {
    let md_path = inputs.machine.paths.claude_md();
    let section = match read_claude_md(&md_path) {
        Ok(text) => claude_md::assess(text.as_deref(), &fix::section_spec(inputs)),
        Err(why) => claude_md::SectionState::Unreadable(why),
    };
    let plugin = table
        .running(HookKind::Session)
        .filter(|_| !switched_off.contains(&HookKind::Session))
        .filter(|r| r.owner == Owner::Gk(HookKind::Session))
        .find_map(|r| r.plugin.as_ref());
    let finding = match (&section, plugin) {
        (claude_md::SectionState::Missing, Some(p)) => {
            Some(claude_md::missing_handed_by_plugin(&md_path, &p.id))
        }
        _ => claude_md::finding(&section, &md_path),
    };
    report.findings.extend(finding);
}

/// CLAUDE.md's text (`None` when there is none), or why it cannot be read.
fn read_claude_md(path: &Path) -> std::result::Result<Option<String>, String> {
    match crate::bounded::read(path, crate::bounded::TEXT_LIMIT) {
        Ok(c) => String::from_utf8(c.bytes)
            .map(Some)
            .map_err(|_| "not UTF-8 text".to_string()),
        Err(crate::bounded::ReadError::NotFound) => Ok(None),
        Err(e) => Err(e.reason()),
    }
}

/// Why `--fix` could not make its registration edits, if it could not: a
/// file it would edit (user settings when it adds entries, beside a plugin
/// that carries some of gk's hooks too; every project,
/// local — and, when managed settings do every job, user — file holding
/// gk's or the Python hooks' entries) does not parse or breaks the schema
/// where gk edits. A half-done fix could leave a hook missing, so it is
/// all or nothing.
fn blocked_edit(
    how: &registrations::RegistrationFix,
    files: &[ScopeFile],
    regs: &[Registration],
) -> Option<String> {
    use registrations::RegistrationFix;
    let adds = match how {
        // Beside a plugin carrying some hooks, the others are added.
        RegistrationFix::UserEntry | RegistrationFix::RemovePluginCopies { .. } => true,
        RegistrationFix::RemoveOutsideManaged { .. }
        | RegistrationFix::RemoveOutsidePlugin { .. } => false,
        _ => return None,
    };
    let edited = |f: &ScopeFile| {
        (adds && f.scope.is_user())
            || (!f.scope.is_policy()
                && regs
                    .iter()
                    .any(|r| r.path == f.path && !matches!(r.owner, Owner::Foreign)))
    };
    files
        .iter()
        .filter(|f| edited(f))
        .find_map(|f| fix::editable(f).err())
}

fn owner_name(owner: &Owner) -> String {
    match owner {
        Owner::Gk(k) => format!("gk {}", k.arg()),
        Owner::Legacy(k) => format!("Python {}", k.legacy_script().unwrap_or_default()),
        Owner::Foreign => "not gk".to_string(),
    }
}
