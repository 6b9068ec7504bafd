//! The programs gk's registrations run: are they there, are they this
//! gk, and do they answer as the client needs (the smoke tests).

use std::path::Path;
use std::time::Duration;

use super::binary;
use super::finding::{Code, Finding, Group, FIX_COMMAND};
use super::registrations;
use super::render::Report;
use super::{Inputs, SLOW_THRESHOLD};
use crate::hookcmd::{self, ClientVersion, HookKind, Owner, ShellForm};
use crate::registry::locate::locate;
use crate::registry::scopes;
use crate::registry::table::Registration;
use crate::setup::parts::Part;
use crate::smoke;

/// `hook-binary-missing` / `hook-binary-outdated`, one finding per program
/// ([`crate::registry::rules::programs`]).
pub(super) fn check_binaries(
    inputs: &Inputs,
    table: &crate::registry::table::Table,
    how: &registrations::RegistrationFix,
    report: &mut Report,
) {
    let os = inputs.machine.ctx.os;
    let exists = |p: &Path| p.is_file();
    let locate = |program: &str| locate(os, program, inputs.machine.path_var.as_deref(), &exists);
    let canonical = inputs.machine.paths.binary(os);
    for p in crate::registry::rules::programs(table, &locate) {
        let (program, owner, places) = (p.program, p.owner, &p.places);
        let first = places[0];
        let in_managed = places.iter().all(|r| r.scope.is_policy());
        let at_canonical = program == hookcmd::normalize_path(&canonical.to_string_lossy(), os);
        match &p.located {
            None => {
                let f = Finding::new(
                    Code::HookBinaryMissing,
                    format!(
                        "{} {}; {} fails on every {}",
                        p.spelled(),
                        p.absence(),
                        first.place(),
                        crate::text::and_list(&p.events())
                    ),
                )
                .at(&first.path, Some(first.line));
                // Every place in one plugin's hooks files: gk never edits those.
                let only_plugin = places[0].plugin.as_ref().filter(|t| {
                    places
                        .iter()
                        .all(|r| r.plugin.as_ref().is_some_and(|o| o.id == t.id))
                });
                let mut f = match (owner, plugin_hooks_off_path(program, places)) {
                    (Owner::Gk(_), Some(ids)) => plugin_program_missing(&p, &ids),
                    _ if only_plugin.is_some() => {
                        registrations::in_a_plugin(f, &only_plugin.unwrap().id)
                    }
                    (owner, _) => match owner {
                        // The program managed settings run is where gk puts itself.
                        Owner::Gk(_) if in_managed && at_canonical => f
                            .fix(format!(
                                "{FIX_COMMAND} (puts this gk at {})",
                                canonical.display()
                            ))
                            .fixed_by(Part::Program),
                        Owner::Gk(_) => how.fix(
                            f,
                            format!(
                                "{FIX_COMMAND} (puts this gk at {} and registers it there)",
                                canonical.display()
                            ),
                            &format!(
                                "point the entry at an existing gk, or put gk at {}",
                                p.spelled()
                            ),
                            in_managed,
                        ),
                        Owner::Legacy(_) => how.fix(
                            f,
                            format!("{FIX_COMMAND} (replaces the Python hook with gk)"),
                            "replace the Python hook with `gk hook …`",
                            in_managed,
                        ),
                        Owner::Foreign => f.fix(format!(
                            "install {}, or delete that entry from {}",
                            p.spelled(),
                            first.path.display()
                        )),
                    },
                };
                for r in places {
                    f = f.detail(format!("{}  `{}`", r.place(), r.command));
                }
                report.findings.push(f);
            }
            Some(path) => {
                report.notes.push((
                    Group::Binaries,
                    format!("{}: found at {}", p.spelled(), path.display()),
                ));
                if let Owner::Gk(_) = owner {
                    if let Some(f) = outdated(path, places, &canonical, how) {
                        report.findings.push(f);
                    }
                }
            }
        }
    }
    let project = &inputs.project_dir;
    for p in crate::registry::rules::tool_programs(table, project, &inputs.machine.ctx, &locate) {
        if p.located.is_none() {
            report.findings.push(tool_program_missing(&p, project));
        }
    }
}

/// Another tool's program that is not there, as the client's shell would
/// look for it in this project: `hook-binary-missing` (an error) for a
/// path through `$CLAUDE_PROJECT_DIR`; `hook-program-not-found` (a
/// warning: the PATH the client gives hooks may hold more) for a bare name
/// not on PATH here.
fn tool_program_missing(p: &crate::registry::rules::ToolProgram<'_>, project: &Path) -> Finding {
    let first = p.places[0];
    let events = crate::text::and_list(&p.events());
    let program = crate::text::one_line(&p.program, 200);
    let mut f = if p.on_path {
        Finding::new(
            Code::HookProgramNotFound,
            format!(
                "`{program}` is not found on PATH here; {} fails on every {events} unless the PATH Claude Code runs hooks with has it",
                first.place()
            ),
        )
        .fix(format!(
            "install {program} (or put its folder on PATH), or delete that entry from {}",
            first.path.display()
        ))
    } else {
        Finding::new(
            Code::HookBinaryMissing,
            format!(
                "{program} does not exist ($CLAUDE_PROJECT_DIR is {} here); {} fails on every {events}",
                project.display(),
                first.place()
            ),
        )
        .fix(format!(
            "create {program}, or delete that entry from {}",
            first.path.display()
        ))
    };
    f = f.at(&first.path, Some(first.line));
    for r in &p.places {
        f = f.detail(format!(
            "{}  `{}`",
            r.place(),
            crate::text::one_line(&r.command, 200)
        ));
    }
    f
}

pub(super) fn outdated(
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
        Code::HookBinaryOutdated,
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
        return Some(finding.fix(fix).fixed_by(Part::Program));
    }
    let in_managed = places.iter().all(|r| r.scope.is_policy());
    Some(how.fix(
        finding,
        fix,
        &format!("replace {} with this gk", path.display()),
        in_managed,
    ))
}

/// Run each distinct registered gk command once, as Claude Code would.
pub(super) fn check_smoke(
    inputs: &Inputs,
    table: &crate::registry::table::Table,
    switched_off: &[HookKind],
    report: &mut Report,
) {
    let os = inputs.machine.ctx.os;
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
                locate(os, &inv.program, inputs.machine.path_var.as_deref(), &|p| {
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
                if r.scope.is_policy() {
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

/// The plugins whose hooks all run `program` from PATH (none is absolute),
/// named in the order met (gk's main plugin and its switch-guard plugin
/// both run a bare `gk`); `None` when some run it from settings, or it is
/// a path.
fn plugin_hooks_off_path<'t>(program: &str, places: &[&'t Registration]) -> Option<Vec<&'t str>> {
    let mut ids: Vec<&str> = Vec::new();
    for r in places {
        if let Some(p) = &r.plugin {
            if !ids.contains(&p.id.as_str()) {
                ids.push(&p.id);
            }
        }
    }
    (places.iter().all(|r| r.plugin.is_some()) && !crate::registry::locate::is_absolute(program))
        .then_some(ids)
        .filter(|ids| !ids.is_empty())
}

/// `hook-binary-missing` for gk's plugins: a plugin carries no program,
/// its bare `gk` is looked up on PATH, and only the user can put one there.
fn plugin_program_missing(p: &crate::registry::rules::Program<'_>, ids: &[&str]) -> Finding {
    let (program, first) = (p.program, p.places[0]);
    let (whose, carry) = match ids {
        [id] => (
            format!("plugin {id}'s hooks"),
            format!("plugin {id} carries"),
        ),
        ids => {
            let named = crate::text::and_list(ids);
            (
                format!("the hooks of plugins {named}"),
                format!("plugins {named} carry"),
            )
        }
    };
    Finding::new(
        Code::HookBinaryMissing,
        format!(
            "{program} is not on PATH; {whose} fail on every {} (Claude Code shows `Executable not found in $PATH: \"{program}\"`)",
            crate::text::and_list(&p.events())
        ),
    )
    .at(&first.path, Some(first.line))
    .fix(format!(
        "put gk on PATH (the release installer, scoop, winget or `cargo install`), then start a new session: {carry} no program"
    ))
}

/// `switch-event-unknown`: a file registers one of gk's hooks whose event
/// the client on `PATH` (its `claude --version`) is too old to know; such
/// a client opens a warning dialog about it at every start. Run with the
/// smoke tests (it starts the client); nothing when no hook of that kind
/// is registered or no client is found.
pub(super) fn check_client_events(
    inputs: &Inputs,
    table: &crate::registry::table::Table,
    report: &mut Report,
) {
    let gated: Vec<(HookKind, &Registration)> = HookKind::ALL
        .into_iter()
        .filter(|k| k.spec().since.is_some())
        .flat_map(|k| table.doing(k).map(move |r| (k, r)))
        .collect();
    if gated.is_empty() {
        return;
    }
    let Some(version) = smoke::client_version(inputs.machine.ctx.os, &inputs.env) else {
        report.notes.push((
            Group::Smoke,
            "gk's switch hooks are registered; no `claude` on PATH told its version, so whether it knows their events was not checked".to_string(),
        ));
        return;
    };
    // A plugin naming an event the client does not know is not loaded at
    // all (`claude plugin list`: "failed to load", measured on 2.1.250):
    // one finding per plugin, with the events it names.
    let mut plugins: Vec<(&str, &Registration, Vec<&str>, ClientVersion)> = Vec::new();
    for (kind, r) in gated {
        let Some(since) = kind.spec().since.filter(|s| version < *s) else {
            continue;
        };
        if let Some(p) = &r.plugin {
            match plugins.iter_mut().find(|(id, ..)| *id == p.id) {
                Some((_, _, events, _)) => events.push(kind.event()),
                None => plugins.push((&p.id, r, vec![kind.event()], since)),
            }
            continue;
        }
        report.findings.push(
            Finding::new(
                Code::SwitchEventUnknown,
                format!(
                    "{} registers gk's {} hook, but Claude Code {version} does not know {} (it came in {since}): the client shows an \"Unknown hook event\" warning at every start",
                    r.path.display(),
                    kind.arg(),
                    kind.event()
                ),
            )
            .at(&r.path, None)
            .fix(match r.scope.is_policy() {
                // A drop-in serves every user: the user install does not
                // edit it, the managed one leaves the switch hooks out
                // unless asked.
                true => format!(
                    "update Claude Code to {since} or later, or install the drop-in again without --with-switch-guard (`gk install --managed`, as administrator), which leaves the switch hooks out"
                ),
                false => format!(
                    "update Claude Code to {since} or later, or run `gk install` again, which takes the switch hooks out for this client"
                ),
            }),
        );
    }
    for (id, r, events, since) in plugins {
        report.findings.push(
            Finding::new(
                Code::SwitchEventUnknown,
                format!(
                    "plugin {id} registers {}, which Claude Code {version} does not know (they came in {since}): the client does not load the plugin at all (`claude plugin list` shows it as failed to load), so none of its hooks run",
                    crate::text::and_list(&events)
                ),
            )
            .at(&r.path, None)
            .fix(format!(
                "update Claude Code to {since} or later, or switch the plugin off (`claude plugin disable {id}`)"
            ))
            .by_hand(),
        );
    }
}

pub(super) fn smoke_one(inputs: &Inputs, kind: HookKind, r: &Registration, report: &mut Report) {
    let os = inputs.machine.ctx.os;
    let shell = match r.shell.as_deref() {
        Some(s) if s.eq_ignore_ascii_case("powershell") => ShellForm::PowerShell,
        _ => ShellForm::Bash,
    };
    let inv = match r.exec.as_deref() {
        Some([program, args @ ..]) => smoke::exec_invocation(program, args),
        _ => smoke::shell_invocation(os, shell, inputs.machine.git_bash.as_deref(), &r.command),
    };
    let payload = smoke::sample_payload(kind, &inputs.project_dir);
    // The hook must see the home doctor looked at. On Windows the inherited
    // USERPROFILE already is that (gk::paths::home_dir reads it), and a
    // native path forced into HOME would reach Git Bash unconverted.
    let mut env = Vec::new();
    if !os.is_windows() {
        env.push((
            "HOME".to_string(),
            inputs.machine.ctx.home.to_string_lossy().into_owned(),
        ));
    }
    env.push((
        "CLAUDE_PROJECT_DIR".to_string(),
        inputs.project_dir.to_string_lossy().into_owned(),
    ));
    let timeout = Duration::from_secs_f64(r.timeout.unwrap_or(30.0).clamp(1.0, 60.0));
    let failed = |why: String| {
        Finding::new(
            Code::HookSmokeFailed,
            format!("`{}` ({}) {why}", r.command, r.place()),
        )
        .at(&r.path, Some(r.line))
        .fix(format!(
            "run it by hand to see why: {}",
            smoke::by_hand(os, &inv, &payload, &env)
        ))
    };
    let first = match smoke::run(&inv, &payload, timeout, &inputs.env, &env) {
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
        if let Ok(again) = smoke::run(&inv, &payload, timeout, &inputs.env, &env) {
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
                Code::HookSlow,
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
