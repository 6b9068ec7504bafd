//! `gk doctor`: reads every settings scope and gk's files, reports findings
//! with stable codes, and with `--fix` hands a plan to the install engine.
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
pub mod finding;
pub mod fix;
pub mod permissions;
pub mod registrations;
pub mod render;
pub mod state;
pub mod statusline;

pub use crate::registry::scopes;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::change::render::Style;
use crate::cli::{ColorChoice, DoctorArgs};
use crate::error::{Error, Result};
use crate::hookcmd::{self, CommandContext, HookKind, Owner, ShellForm};
use crate::paths::ClaudePaths;
use crate::smoke;

use finding::{Finding, Group, Remedy, Severity, FIX_COMMAND};
pub use registrations::Registration;
use render::{Redactor, Report};
use scopes::{Load, ScopeFile, ScopePaths};

/// A smoke run slower than this is reported as `hook-slow` (reasoning in
/// docs/doctor.md, "Why 500 ms").
pub const SLOW_THRESHOLD: Duration = Duration::from_millis(500);

/// Everything a doctor run needs to know about the machine, as values.
#[derive(Debug, Clone)]
pub struct Inputs {
    pub ctx: CommandContext,
    pub paths: ClaudePaths,
    pub scope_paths: ScopePaths,
    pub path_var: Option<OsString>,
    pub git_bash: Option<PathBuf>,
    /// Windows: the `HOME` Git Bash will see (see `install::spelling_context`).
    pub bash_home: Option<PathBuf>,
    pub smoke: bool,
    pub now: SystemTime,
    /// The task records' folder (`None` when no home folder is known).
    pub state_dir: Option<PathBuf>,
}

impl Inputs {
    /// Read the process environment and the flags.
    pub fn from_process(args: &DoctorArgs) -> Result<Inputs> {
        // The same machine facts install plans from (paths, platform, home,
        // CLAUDE_CONFIG_DIR, Git Bash), so --fix edits what doctor read.
        let machine = crate::machine::Machine::from_env()?;
        let project_dir = match &args.project {
            Some(p) => project_folder(p)?,
            None => std::env::current_dir()
                .map_err(|e| Error::new(format!("could not read the current folder: {e}")))?,
        };
        let managed = args.managed_settings.clone().unwrap_or(machine.managed);
        Ok(Inputs {
            scope_paths: ScopePaths {
                user: machine.paths.settings(),
                project_dir,
                managed,
            },
            ctx: machine.ctx,
            paths: machine.paths,
            path_var: machine.path_var,
            git_bash: machine.git_bash,
            bash_home: machine.bash_home,
            smoke: !args.no_smoke,
            now: SystemTime::now(),
            state_dir: machine.state_dir,
        })
    }
}

/// `--project DIR` must name a folder: reading the settings of one that is
/// not there would report a clean bill for a project that does not exist.
fn project_folder(dir: &Path) -> Result<PathBuf> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(dir.to_path_buf()),
        Ok(_) => Err(Error::new(format!(
            "--project {} is not a folder",
            dir.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::new(format!(
            "the project folder {} does not exist (--project)",
            dir.display()
        ))),
        Err(e) => Err(Error::io("read the project folder", dir, &e)),
    }
}

pub fn run(args: &DoctorArgs, color: ColorChoice) -> Result<u8> {
    if args.json && args.fix {
        return Err(Error::new(
            "--json cannot be combined with --fix (the plan is shown for review); run `gk doctor --fix`, then `gk doctor --json`",
        ));
    }
    if (args.yes || args.dry_run) && !args.fix {
        return Err(Error::new("--yes and --dry-run only apply with --fix"));
    }
    let inputs = Inputs::from_process(args)?;
    let diagnosis = diagnose(&inputs);
    let style = Style::for_stdout(color.forced());
    if args.json {
        let doc = render::json(&diagnosis.report);
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::new(format!("could not format the findings: {e}")))?;
        // Secrets masked first (the redactor knows their serde_json
        // spelling), then what serde_json leaves raw escaped.
        println!(
            "{}",
            crate::text::json_escaped(&diagnosis.redactor.redact(&text))
        );
        return Ok(diagnosis.report.exit_code());
    }
    print!(
        "{}",
        render::human(&diagnosis.report, args.verbose, style, &diagnosis.redactor)
    );
    if !args.fix {
        return Ok(diagnosis.report.exit_code());
    }
    fix::run(&inputs, &diagnosis, args, color)
}

/// What one doctor run found, plus what `--fix` needs to plan from it.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    pub report: Report,
    pub files: Vec<ScopeFile>,
    pub registrations: Vec<Registration>,
    pub redactor: Redactor,
}

/// Run every check (smoke tests included unless switched off).
pub fn diagnose(inputs: &Inputs) -> Diagnosis {
    let mut report = Report::default();
    let files = scopes::load_all(&inputs.scope_paths);
    check_settings_files(&files, &inputs.scope_paths, &mut report);

    let table = crate::registry::Table::new(&files, &inputs.ctx);
    report.findings.extend(registrations::check_policy(&table));
    // What --fix can do about registrations: managed entries and an
    // undecidable command decide it, and a user file gk cannot edit blocks it.
    let mut how = registrations::registration_fix(&table.rows);
    if let Some(why) = blocked_edit(&how, &files, &table.rows) {
        how = registrations::RegistrationFix::Blocked { why };
    }
    report
        .findings
        .extend(registrations::check_registrations_with(
            &table,
            &inputs.paths.settings(),
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

    check_binaries(inputs, &table, &how, &mut report);
    check_backups_beside_files(inputs, &mut report);

    let config_path = inputs.paths.config_file();
    let mut switched_off: Vec<HookKind> = Vec::new();
    let scope = crate::hooks::load_for_hooks(&config_path)
        .config
        .state
        .scope;
    let stale_hours = match crate::hooks::load_config(&config_path) {
        Ok(config) => {
            report.notes.push((
                Group::Config,
                format!(
                    "{}: usable (or absent: built-in rules)",
                    config_path.display()
                ),
            ));
            for kind in HookKind::ALL {
                if !config.enabled(kind) {
                    switched_off.push(kind);
                    report.findings.push(
                        Finding::new(
                            "hook-switched-off",
                            Severity::Info,
                            Group::Config,
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
            }
            report
                .findings
                .extend(advice::check(&config, &files, &config_path));
            config.stale_hours
        }
        Err(e) => {
            report.findings.push(state::config_finding(&e));
            crate::hooks::Config::default().stale_hours
        }
    };

    if inputs.smoke {
        check_smoke(inputs, &table, &switched_off, &mut report);
    } else {
        report
            .skipped
            .push((Group::Smoke, "--no-smoke".to_string()));
    }

    let state_path = inputs.paths.state_file();
    let verdict = crate::hooks::read_state(&state_path).verdict(inputs.now, stale_hours);
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
    if let (crate::hooks::StateScope::Session, Some(dir)) = (scope, &inputs.state_dir) {
        report.notes.push((
            Group::State,
            format!("per-session task records in {}", dir.display()),
        ));
        let user_editable = files
            .iter()
            .find(|f| f.scope == scopes::Scope::User)
            .map_or(Ok(()), fix::editable);
        report.findings.extend(permissions::check_rules(
            &files,
            dir,
            &inputs.ctx.home,
            inputs.ctx.os,
            inputs.paths.dir(),
            &inputs.paths.settings(),
            user_editable,
        ));
        report.findings.extend(permissions::check_folder(dir));
        report.findings.extend(permissions::check_private(dir));
    }

    report.findings.extend(statusline::check(&files, inputs));

    let md_path = inputs.paths.claude_md();
    let section = match read_claude_md(&md_path) {
        Ok(text) => claude_md::assess(text.as_deref(), &fix::section_spec(inputs)),
        Err(why) => claude_md::SectionState::Unreadable(why),
    };
    report
        .findings
        .extend(claude_md::finding(&section, &md_path));

    fold_into_unparseable(&files, &mut report.findings);
    let redactor = redactor_for(&files);
    Diagnosis {
        report,
        files,
        registrations: table.rows,
        redactor,
    }
}

/// A settings file that does not parse is skipped by the client, so the
/// hooks and rules it holds count as missing; but every such finding's fix
/// starts with "correct that file by hand". One thing to do is one
/// finding: those findings go, and their messages are listed under the
/// file's `settings-unparseable` one, whose fix says what comes after.
fn fold_into_unparseable(files: &[ScopeFile], findings: &mut Vec<Finding>) {
    for f in files {
        let (Load::Unparseable(_), Err(why)) = (&f.load, fix::editable(f)) else {
            continue;
        };
        let Some(at) = findings
            .iter()
            .position(|x| x.code == "settings-unparseable" && x.path.as_deref() == Some(&f.path))
        else {
            continue;
        };
        let blocked = |x: &Finding| x.fix.as_deref().is_some_and(|fix| fix.starts_with(&why));
        let folded: Vec<String> = findings
            .iter()
            .filter(|x| blocked(x))
            .map(|x| format!("while it is skipped: {}", x.message))
            .collect();
        if folded.is_empty() {
            continue;
        }
        findings[at].details.extend(folded);
        if let Some(fix) = &mut findings[at].fix {
            fix.push_str(
                "; then run `gk doctor` again (`gk doctor --fix` adds what is still missing)",
            );
        }
        findings.retain(|x| !blocked(x));
    }
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
/// file it would edit (user settings when it adds entries; every project,
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
    use scopes::Scope;
    let adds = match how {
        RegistrationFix::UserEntry => true,
        RegistrationFix::RemoveOutsideManaged { .. } => false,
        _ => return None,
    };
    let edited = |f: &ScopeFile| {
        (adds && f.scope == Scope::User)
            || (f.scope != Scope::Managed
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

/// Every secret of every settings file, whether it parsed or not.
fn redactor_for(files: &[ScopeFile]) -> Redactor {
    let mut secrets = Vec::new();
    for f in files {
        match &f.load {
            Load::Parsed { settings, .. } => render::secrets_in(&settings.value, &mut secrets),
            Load::Unparseable(_) => {
                if let Ok(c) = crate::bounded::read(&f.path, crate::bounded::TEXT_LIMIT) {
                    render::secrets_in_lenient(&String::from_utf8_lossy(&c.bytes), &mut secrets);
                }
            }
            _ => {}
        }
    }
    Redactor::new(secrets)
}

fn check_settings_files(files: &[ScopeFile], paths: &ScopePaths, report: &mut Report) {
    for f in files {
        let shown = f.path.display();
        // Managed files are policy: only their administrator changes them.
        let who = if f.scope == scopes::Scope::Managed {
            "managed policy: ask whoever manages this machine to correct"
        } else {
            "correct by hand:"
        };
        match &f.load {
            Load::Absent => report
                .notes
                .push((Group::Settings, format!("{}: not present", f.label()))),
            Load::Empty => report
                .notes
                .push((Group::Settings, format!("{}: empty, nothing loaded", f.label()))),
            // Measured (2.1.332): started in the home folder, the client runs
            // every hook of that file once, command, prompt and http hooks
            // alike, so nothing runs twice because of it. Said, not warned.
            Load::SameAsUser => report.findings.push(
                Finding::new(
                    "home-is-project",
                    Severity::Info,
                    Group::Settings,
                    format!(
                        "Claude Code started in {} (the home folder) reads {} as user and as project settings; each of its hooks still runs once, so nothing runs twice because of it (doctor counts the file once)",
                        paths.project_dir.display(),
                        paths.user.display()
                    ),
                )
                .at(&f.path, None),
            ),
            Load::Unreadable(why) => report.findings.push(
                Finding::new(
                    "settings-unparseable",
                    Severity::Error,
                    Group::Settings,
                    format!("{} cannot be read ({why}); Claude Code skips it", f.label()),
                )
                .at(&f.path, None)
                .fix(format!("make {shown} a readable file")),
            ),
            // Measured: identical command strings run once however many
            // files register them, so one file under two names changes
            // nothing that runs; but an edit made for one scope (a
            // project's local file) would land in the other.
            Load::SameAs { scope, path } => report.findings.push(
                Finding::new(
                    "settings-same-file",
                    Severity::Info,
                    Group::Settings,
                    format!(
                        "{} is the same file as {} settings {} (a link); read once, as {} settings, and --fix edits it only as that file",
                        f.label(),
                        scope.name(),
                        path.display(),
                        scope.name()
                    ),
                )
                .at(&f.path, None),
            ),
            // Doctor reads every file whole; only the session check's
            // bounded reading sets a file aside.
            Load::Unchecked(why) => report
                .notes
                .push((Group::Settings, format!("{}: {why}", f.label()))),
            Load::Unparseable(e) => report.findings.push(
                Finding::new(
                    "settings-unparseable",
                    Severity::Error,
                    Group::Settings,
                    format!(
                        "{}:{}:{}: {}; Claude Code skips the whole file, env included",
                        f.label(),
                        e.line,
                        e.column,
                        e.reason
                    ),
                )
                .at(&f.path, Some(e.line))
                .fix(if e.not_utf8 {
                    format!(
                        "{who} {shown}: save it as UTF-8 (the text at line {} column {} is in another encoding, such as a Windows code page or the UTF-16 of Windows PowerShell's `>`); gk never rewrites a file it cannot parse",
                        e.line, e.column
                    )
                } else {
                    format!(
                        "{who} {shown} at line {} column {} (comments and trailing commas are not allowed); gk never rewrites a file it cannot parse",
                        e.line, e.column
                    )
                }),
            ),
            Load::Parsed {
                settings,
                entries,
                issues,
            } => {
                if settings.bom {
                    report.findings.push(
                        Finding::new(
                            "settings-bom",
                            Severity::Warning,
                            Group::Settings,
                            format!("{} starts with a UTF-8 BOM; some Claude Code versions reject the file", f.label()),
                        )
                        .at(&f.path, Some(1))
                        .fix(format!("save {shown} as UTF-8 without BOM (PowerShell 5.1: use Set-Content -Encoding utf8NoBOM in PowerShell 7, or an editor)")),
                    );
                }
                for i in issues {
                    let severity = if i.is_unknown_event() {
                        Severity::Warning
                    } else {
                        Severity::Error
                    };
                    report.findings.push(
                        Finding::new(
                            "settings-schema",
                            severity,
                            Group::Settings,
                            format!(
                                "{}:{}:{}: {}: {}; {}",
                                f.label(),
                                i.line,
                                i.column,
                                i.at,
                                i.reason,
                                if i.rejects_file() {
                                    "Claude Code skips the whole file, env included"
                                } else {
                                    "Claude Code ignores that part"
                                }
                            ),
                        )
                        .at(&f.path, Some(i.line))
                        .fix(if i.is_unknown_event() {
                            format!("check the event name {} in {shown}: if it is misspelt, its hooks never run (Claude Code after 2.1.332 may know it)", i.at)
                        } else {
                            format!("{who} {} in {shown}", i.at)
                        }),
                    );
                }
                report.notes.push((
                    Group::Settings,
                    format!(
                        "{}: {} hook handler(s){}",
                        f.label(),
                        entries.len(),
                        if f.effective() { "" } else { ", skipped by Claude Code" }
                    ),
                ));
            }
        }
    }
}

/// `hook-binary-missing` / `hook-binary-outdated`, one finding per program
/// ([`crate::registry::rules::programs`]).
fn check_binaries(
    inputs: &Inputs,
    table: &crate::registry::Table,
    how: &registrations::RegistrationFix,
    report: &mut Report,
) {
    let os = inputs.ctx.os;
    let exists = |p: &Path| p.is_file();
    let locate = |program: &str| binary::locate(os, program, inputs.path_var.as_deref(), &exists);
    let canonical = inputs.paths.binary(os);
    for p in crate::registry::rules::programs(table, &locate) {
        let (program, owner, places) = (p.program, p.owner, &p.places);
        let first = places[0];
        let in_managed = places.iter().all(|r| r.scope == scopes::Scope::Managed);
        let at_canonical = program == hookcmd::normalize_path(&canonical.to_string_lossy(), os);
        match &p.located {
            None => {
                let f = Finding::new(
                    "hook-binary-missing",
                    Severity::Error,
                    Group::Binaries,
                    format!(
                        "{} {}; {} fails on every {}",
                        p.spelled(),
                        p.absence(),
                        first.place(),
                        and_list(&p.events())
                    ),
                )
                .at(&first.path, Some(first.line));
                let mut f = match owner {
                    // The program managed settings run is where gk puts itself.
                    Owner::Gk(_) if in_managed && at_canonical => f
                        .fix(format!(
                            "{FIX_COMMAND} (puts this gk at {})",
                            canonical.display()
                        ))
                        .remedy(Remedy::Binary),
                    Owner::Gk(_) => how.fix(
                        f,
                        format!(
                            "{FIX_COMMAND} (puts this gk at {} and registers it there)",
                            canonical.display()
                        ),
                        &format!("point the entry at an existing gk, or put gk at {program}"),
                        in_managed,
                    ),
                    Owner::Legacy(_) => how.fix(
                        f,
                        format!("{FIX_COMMAND} (replaces the Python hook with gk)"),
                        "replace the Python hook with `gk hook …`",
                        in_managed,
                    ),
                    Owner::Foreign => f.fix(format!(
                        "install {program}, or delete that entry from {}",
                        first.path.display()
                    )),
                };
                for r in places {
                    f = f.detail(format!("{}  `{}`", r.place(), r.command));
                }
                report.findings.push(f);
            }
            Some(path) => {
                report.notes.push((
                    Group::Binaries,
                    format!("{program}: found at {}", path.display()),
                ));
                if let Owner::Gk(_) = owner {
                    if let Some(f) = outdated(path, places, &canonical, how) {
                        report.findings.push(f);
                    }
                }
            }
        }
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn outdated(
    path: &Path,
    places: &[&Registration],
    canonical: &Path,
    how: &registrations::RegistrationFix,
) -> Option<Finding> {
    let first = places[0];
    let theirs = binary::version_of_file(path).ok()?;
    let ours = binary::this_version();
    if theirs.as_deref() == Some(ours) {
        return None;
    }
    let what = match &theirs {
        Some(v) => format!("is gk {v}, this gk is {ours}"),
        None => format!("carries no gk version (not a gk build); this gk is {ours}"),
    };
    let finding = Finding::new(
        "hook-binary-outdated",
        Severity::Warning,
        Group::Binaries,
        format!(
            "{} (registered in {}) {what}",
            path.display(),
            first.place()
        ),
    )
    .at(path, None);
    if theirs.as_deref().is_some_and(|v| binary::newer(v, ours)) {
        // Never downgrade: it is this gk that is old.
        return Some(finding.fix(format!(
            "this gk is the older one: run the registered gk's own doctor ({} doctor --fix)",
            path.display()
        )));
    }
    let fix = format!("{FIX_COMMAND} (puts this gk at {})", canonical.display());
    if scopes::same_file(path, canonical) {
        return Some(finding.fix(fix).remedy(Remedy::Binary));
    }
    let in_managed = places.iter().all(|r| r.scope == scopes::Scope::Managed);
    Some(how.fix(
        finding,
        fix,
        &format!("replace {} with this gk", path.display()),
        in_managed,
    ))
}

/// Run each distinct registered gk command once, as Claude Code would.
fn check_smoke(
    inputs: &Inputs,
    table: &crate::registry::Table,
    switched_off: &[HookKind],
    report: &mut Report,
) {
    let os = inputs.ctx.os;
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut ran = 0;
    for kind in HookKind::ALL {
        if switched_off.contains(&kind) {
            report.notes.push((
                Group::Smoke,
                format!(
                    "the {} hook is switched off in gk.json: not run",
                    kind.arg()
                ),
            ));
            continue;
        }
        for r in table
            .running(kind)
            .filter(|r| matches!(r.owner, Owner::Gk(_)))
        {
            if !seen.insert(r.command.as_str()) {
                continue;
            }
            let located = r.invocation.as_ref().and_then(|inv| {
                binary::locate(os, &inv.program, inputs.path_var.as_deref(), &|p| {
                    p.is_file()
                })
            });
            if located.is_none() {
                report.notes.push((
                    Group::Smoke,
                    format!("`{}`: not run, its program is missing", r.command),
                ));
                continue;
            }
            ran += 1;
            smoke_one(inputs, kind, r, report);
        }
    }
    if ran == 0 {
        // Registered, but a switch keeps every one of them from running.
        let off = table
            .rows
            .iter()
            .find(|r| matches!(r.owner, Owner::Gk(_)) && !table.runs(r))
            .and_then(|r| {
                let p = &table.policy;
                if r.scope == scopes::Scope::Managed {
                    p.managed_off.as_ref()
                } else {
                    p.nonmanaged_off.as_ref()
                }
            });
        let why = match off {
            Some(switch) => format!(
                "gk's hooks are registered but switched off by `{}` in {}",
                switch.key.key(),
                switch.path.display()
            ),
            None => "no runnable gk hook registered".to_string(),
        };
        report.skipped.push((Group::Smoke, why));
    }
}

fn smoke_one(inputs: &Inputs, kind: HookKind, r: &Registration, report: &mut Report) {
    let os = inputs.ctx.os;
    let shell = match r.shell.as_deref() {
        Some(s) if s.eq_ignore_ascii_case("powershell") => ShellForm::PowerShell,
        _ => ShellForm::Bash,
    };
    let inv = match r.exec.as_deref() {
        Some([program, args @ ..]) => smoke::exec_invocation(program, args),
        _ => smoke::shell_invocation(os, shell, inputs.git_bash.as_deref(), &r.command),
    };
    let payload = smoke::sample_payload(kind, &inputs.scope_paths.project_dir);
    // The hook must see the home doctor looked at. On Windows the inherited
    // USERPROFILE already is that (gk::paths::home_dir reads it), and a
    // native path forced into HOME would reach Git Bash unconverted.
    let mut env = Vec::new();
    if !os.is_windows() {
        env.push((
            "HOME".to_string(),
            inputs.ctx.home.to_string_lossy().into_owned(),
        ));
    }
    env.push((
        "CLAUDE_PROJECT_DIR".to_string(),
        inputs
            .scope_paths
            .project_dir
            .to_string_lossy()
            .into_owned(),
    ));
    let timeout = Duration::from_secs_f64(r.timeout.unwrap_or(30.0).clamp(1.0, 60.0));
    let failed = |why: String| {
        Finding::new(
            "hook-smoke-failed",
            Severity::Error,
            Group::Smoke,
            format!("`{}` ({}) {why}", r.command, r.place()),
        )
        .at(&r.path, Some(r.line))
        .fix(format!(
            "run it by hand to see why: echo '{{}}' | {}{}",
            // An exec-form entry, typed into PowerShell: a call, not a string.
            if r.exec.is_some() && os.is_windows() {
                "& "
            } else {
                ""
            },
            r.command
        ))
    };
    let first = match smoke::run(&inv, &payload, timeout, &env) {
        Ok(run) => run,
        Err(e) => {
            report
                .findings
                .push(failed(format!("could not be started: {e}")));
            return;
        }
    };
    if let Err(why) = smoke::judge(kind, &first) {
        report.findings.push(failed(format!("failed: {why}")));
        return;
    }
    let mut took = first.duration;
    if took > SLOW_THRESHOLD {
        // A cold first start (disk cache, virus scan) is not the hook's
        // steady cost: measure once more and keep the faster run.
        if let Ok(again) = smoke::run(&inv, &payload, timeout, &env) {
            took = took.min(again.duration);
        }
    }
    report.notes.push((
        Group::Smoke,
        format!("`{}`: passed in {} ms", r.command, took.as_millis()),
    ));
    if took > SLOW_THRESHOLD {
        report.findings.push(
            Finding::new(
                "hook-slow",
                Severity::Warning,
                Group::Smoke,
                format!(
                    "`{}` took {} ms (threshold {} ms); it runs on every {}",
                    r.command,
                    took.as_millis(),
                    SLOW_THRESHOLD.as_millis(),
                    kind.event()
                ),
            )
            .at(&r.path, Some(r.line))
            .fix("make the registered command start the gk binary directly (no wrapper script, interpreter or network drive); a virus scanner checking it on every start also costs this"),
        );
    }
}

/// `backup-beside-file`: copies of settings files an older gk kept beside
/// them (`settings.json.gk-backup-<stamp>`): in a project's `.claude/`,
/// which is committed, or in `<claude dir>`, which Claude reads. They may
/// hold the credentials of `env`; gk now keeps its backups in its own folder.
fn check_backups_beside_files(inputs: &Inputs, report: &mut Report) {
    let folders = [
        (
            inputs.scope_paths.project_dir.join(".claude"),
            "a project folder that is usually committed",
        ),
        (inputs.paths.dir().to_path_buf(), "the folder Claude reads"),
        (inputs.paths.hooks_dir(), "the folder Claude reads"),
    ];
    let mut seen = Vec::new();
    for (dir, what) in folders {
        for path in crate::change::backup::left_beside(&dir) {
            if seen.contains(&path) {
                continue;
            }
            report.findings.push(
                Finding::new(
                    "backup-beside-file",
                    Severity::Warning,
                    Group::Settings,
                    format!(
                        "{} is a backup an older gk left in {what}; it may hold the credentials of env",
                        path.display()
                    ),
                )
                .at(&path, None)
                .fix("delete it once you no longer need it (gk keeps its backups in its own folder now)"),
            );
            seen.push(path);
        }
    }
}
