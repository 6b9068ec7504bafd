//! `gk hook session` (SessionStart): the check nobody has to remember.
//!
//! At the start of every session (any `source`: startup, resume, clear,
//! compact) the hook reads the settings files the client loads for the
//! event's `cwd` — user, project, local, managed and its drop-ins — through
//! the shared registry model (`crate::registry`: the same reading and the
//! same rules `gk doctor` uses, none of doctor's rendering), and prints one
//! `systemMessage` only when something is wrong: one line per problem,
//! each ending with the `gk doctor` command that explains or fixes it. A
//! healthy setup prints nothing at all. (`super::session_answer` adds the
//! task an earlier session in the folder left in flight: `super::follow`.)
//!
//! What counts as wrong here is what breaks a session without a word: a
//! settings file the client skips whole (not JSON, not UTF-8, a known
//! setting of the wrong type, a malformed PreToolUse hook, unreadable —
//! `env` goes with it), a hook entry it drops from a file it loads (an
//! unknown event, a group or handler it cannot use), one of gk's
//! hooks registered under two spellings (it runs twice), a gk command
//! registered under another hook's event, a hook of gk's not registered at
//! all, a registered gk (or Python hook) program that is not there, a state
//! folder no task record can be written in (a file or a link to nothing in
//! its place or on its path, per-session scope). Things
//! doctor warns about that do not change what runs (a string registered
//! twice, gk in shared project settings, the Python hooks alone, a command
//! doctor cannot read) are left to doctor.
//!
//! The hot-path rules hold as for the other hooks: no process, no
//! connection, no write, nothing on stderr, exit 0; stdin and every file
//! are read through bounded readers; the rules are linear in the number of
//! registrations. The only look-ups beyond the settings files are one file
//! test per program of gk's (and of the Python hooks') and a look at the
//! state folder (one `metadata`, more only while it is not there). Settings *values*
//! never reach the message: it names files, places (`path:line:col`), the
//! parser's reason, event names and gk's own command words.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::config::{Config, ConfigError, StateScope};
use super::input::{self, Input};
use crate::hookcmd::HookKind;
use crate::platform::Os;
use crate::registry::plugins::{Plugins, Trouble};
use crate::registry::rules::{self, Skipped};
use crate::registry::scopes::{self, ScopeFile};
use crate::registry::table::{Registration, Table};

/// The most of stdin the session hook keeps: a SessionStart event is a few
/// hundred bytes (measured: `session_id`, `transcript_path`, `cwd`,
/// `hook_event_name`, `source`, and on resume four more short fields).
pub const MAX_EVENT_BYTES: usize = 1 << 20;

/// At most this many lines in the message; past it, the last line counts
/// the rest. The client cuts hook output at 10,000 characters; a few lines
/// are what a person reads at the top of a session.
pub const MAX_LINES: usize = 6;

/// A path, a reason or a command longer than this is shortened in the
/// message (its start and end kept), so no line grows with the input.
const MAX_SHOWN: usize = 160;

/// At most this many places are named for one problem.
const MAX_PLACES: usize = 3;

use crate::machine::Machine;

/// The warnings for this event (the `systemMessage` text), or `None` for
/// a healthy setup, and whether a copy of gk's session hook from a
/// settings file (not a plugin's) runs too ([`settings_copy_runs`]).
/// `config_error`: why gk.json was ignored, if it was.
pub fn answer(
    input: &Input,
    machine: &Machine,
    config: &Config,
    config_error: Option<&ConfigError>,
) -> (Option<String>, bool) {
    let project = project_dir(event_of(input).as_ref(), machine.current_dir.as_deref());
    // One budget for everything read: settings files, drop-ins, then what
    // the plugins they enable bring.
    let mut spent = scopes::Spent::new(scopes::Budget::SESSION);
    let paths = scopes::ScopePaths::of(machine, project.as_deref());
    let files = scopes::load(&paths, Some(&mut spent));
    let plugins = crate::registry::plugins::load_plugins_spending(
        &files,
        &machine.plugins_dir,
        crate::registry::plugins::PluginBudget::SESSION,
        &mut spent,
    );
    let table = Table::with_plugins(&files, &plugins, &machine.ctx);
    let os = machine.ctx.os;
    let exists = |p: &Path| p.is_file();
    let locate = |program: &str| {
        crate::registry::locate::locate(os, program, machine.path_var.as_deref(), &exists)
    };
    let mut found = problems(&files, &plugins, &table, &locate, config, config_error);
    if config.state.scope == StateScope::Session {
        found.extend(machine.state_dir.as_deref().and_then(state_folder_unusable));
    }
    (
        message(&found, project.as_deref(), os),
        settings_copy_runs(&table),
    )
}

/// Whether a settings file (user, project, local or managed), not a
/// plugin, registers gk's session hook where it runs. When gk's session
/// hook runs from both settings and gk's plugin, the client starts two
/// processes that read the same files; the plugin's copy then stays
/// silent about the setup and the earlier task, and the settings copy
/// speaks (it runs gk by its full path, so it runs even when `gk` is not
/// on PATH). The plugin's copy still hands Claude the convention when
/// CLAUDE.md lacks it: the settings copy never does.
pub fn settings_copy_runs(t: &Table) -> bool {
    t.running(HookKind::Session).any(|r| r.plugin.is_none())
}

/// The event as far as the hook kept it (the members of a cut one), or
/// `None` when stdin held no JSON object.
fn event_of(input: &Input) -> Option<Value> {
    // Invalid bytes made text (three bytes each) count against the bound
    // the prompt hook keeps: past it the event is read as one cut off.
    let (text, cut) = input::lossy_within(&input.bytes, input::MAX_EVENT_BYTES);
    if input.complete && !cut {
        input::parse_lenient(&text).ok()
    } else {
        input::members_of_prefix(&text).map(|(members, _)| Value::Object(members))
    }
}

/// The project folder whose settings the client loads: the event's `cwd`
/// when it is a string naming a folder that is there (a relative path, a
/// file or a missing folder: no project settings can load, so none are
/// read); when the event has no string `cwd` (or an empty one), the folder
/// the hook was started in.
pub fn project_dir(event: Option<&Value>, current_dir: Option<&Path>) -> Option<PathBuf> {
    let is_dir = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_dir());
    match event.and_then(|e| e.get("cwd")) {
        Some(Value::String(s)) if !s.is_empty() => {
            let p = PathBuf::from(s);
            (p.is_absolute() && is_dir(&p)).then_some(p)
        }
        _ => current_dir.filter(|p| is_dir(p)).map(Path::to_path_buf),
    }
}

/// One problem, as the message will say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong, in a sentence without the leading `gk: `.
    pub text: String,
    /// `gk doctor --fix` repairs it (else `gk doctor` explains what to do).
    pub fix: bool,
    /// It involves the project's or the local settings: the command names
    /// the project folder, so it looks at the same files from anywhere.
    pub project: bool,
}

/// Every problem with the setup, in the order the message gives them: gk's
/// config, files the client skips, hooks that fire twice, misplaced,
/// missing, and programs that are not there.
pub fn problems(
    files: &[ScopeFile],
    plugins: &Plugins,
    t: &Table,
    locate: &dyn Fn(&str) -> Option<PathBuf>,
    config: &Config,
    config_error: Option<&ConfigError>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    out.extend(config_error.map(ignored_config));
    skipped_files(files, &mut out);
    dropped_hooks(files, &mut out);
    let any_unchecked = unchecked_files(files, plugins, &mut out);
    hooks_that_fire_twice(t, &mut out);
    hooks_under_another_event(t, &mut out);
    // A file that was not read may register a hook that looks missing.
    if !any_unchecked {
        hooks_not_registered(t, config, &mut out);
    }
    programs_not_there(t, locate, &mut out);
    // `--fix` writes the user's settings: while the client skips that file
    // it does nothing, and doctor says to correct the file first.
    if rules::skipped_files(files)
        .iter()
        .any(|(f, _)| f.scope.is_user())
    {
        for p in &mut out {
            p.fix = false;
        }
    }
    out
}

/// gk.json could not be used, so the hooks run on the built-in rules.
fn ignored_config(e: &ConfigError) -> Problem {
    let at = match e.position {
        Some((line, column)) => format!("{}:{line}:{column}", shown_path(&e.path)),
        None => shown_path(&e.path),
    };
    Problem {
        text: format!(
            "{at}: {}; gk's hooks ignore this gk.json and run on the built-in rules",
            shown(&e.reason)
        ),
        fix: false,
        project: false,
    }
}

/// A state folder no record can be written in: a file or a link to
/// nothing in its place or on its way (looked at, nothing written:
/// [`super::state::cannot_be_made`], install's and doctor's own words).
/// Every record write of Claude's would fail, and the task state with it.
fn state_folder_unusable(dir: &Path) -> Option<Problem> {
    let why = super::state::cannot_be_made(dir)?;
    Some(Problem {
        text: format!(
            "{}; Claude cannot keep its task record",
            crate::text::one_line_ends(&why, 2 * MAX_SHOWN)
        ),
        fix: false,
        project: false,
    })
}

/// What the client's skipping a file costs, in the words of a line.
const NONE_IN_EFFECT: &str = "none of its hooks, permissions or env are in effect";

/// Hook entries the client ignores in files it loads (an unknown event, a
/// group or handler it cannot use): those hooks never run.
fn dropped_hooks(files: &[ScopeFile], out: &mut Vec<Problem>) {
    for f in files.iter().filter(|f| f.effective()) {
        let scopes::Load::Parsed { issues, .. } = &f.load else {
            continue;
        };
        for i in issues.iter().filter(|i| i.drops_part() && i.is_hooks()) {
            out.push(Problem {
                text: format!(
                    "{}:{}:{}: {}: {}; Claude Code ignores this entry ({} settings), so its hooks never run",
                    shown_path(&f.path),
                    i.line,
                    i.column,
                    shown(&i.at),
                    shown(&i.reason),
                    f.scope.name()
                ),
                fix: false,
                project: f.scope.in_project(),
            });
        }
    }
}

/// Settings files the client skips whole: unreadable, not JSON, or voided
/// by a schema issue.
fn skipped_files(files: &[ScopeFile], out: &mut Vec<Problem>) {
    for (f, why) in rules::skipped_files(files) {
        let text = match why {
            Skipped::Unreadable(reason) => format!(
                "{} ({} settings) cannot be read ({}); Claude Code skips it: {NONE_IN_EFFECT}",
                shown_path(&f.path),
                f.scope.name(),
                shown(reason)
            ),
            Skipped::NotJson(e) => format!(
                "{}:{}:{}: {}; Claude Code skips this whole file ({} settings): {NONE_IN_EFFECT}",
                shown_path(&f.path),
                e.line,
                e.column,
                shown(&e.reason),
                f.scope.name()
            ),
            Skipped::Voided(i) => format!(
                "{}:{}:{}: {}: {}; Claude Code skips this whole file ({} settings): {NONE_IN_EFFECT}",
                shown_path(&f.path),
                i.line,
                i.column,
                shown(&i.at),
                shown(&i.reason),
                f.scope.name()
            ),
        };
        out.push(Problem {
            text,
            fix: false,
            project: f.scope.in_project(),
        });
    }
}

/// Sources past the check's one budget (a repository can bring settings
/// files, marketplaces, manifests and plugin hooks files of any size):
/// each named, none parsed; doctor reads them. Whether there was any.
fn unchecked_files(files: &[ScopeFile], plugins: &Plugins, out: &mut Vec<Problem>) -> bool {
    let mut any = false;
    for f in files {
        if let scopes::Load::Unchecked(why) = &f.load {
            any = true;
            out.push(Problem {
                text: format!("{} {why}", shown_path(&f.path)),
                fix: false,
                project: f.scope.in_project(),
            });
        }
    }
    for u in &plugins.unread {
        any = true;
        out.push(Problem {
            text: format!("{} {}", shown_path(&u.path), u.why),
            fix: false,
            project: u.scope.in_project(),
        });
    }
    for t in &plugins.trouble {
        if let Trouble::NotChecked { count } = t {
            any = true;
            out.push(Problem {
                text: format!(
                    "{count} more enabled plugins are too many to check at session start"
                ),
                fix: false,
                project: false,
            });
        }
    }
    any
}

/// A hook of gk's registered under more than one command: it runs once per
/// spelling.
fn hooks_that_fire_twice(t: &Table, out: &mut Vec<Problem>) {
    for twice in rules::fires_twice(t) {
        let n = twice.spellings.len();
        let firsts: Vec<&Registration> = twice.spellings.iter().map(|s| s.places[0]).collect();
        out.push(Problem {
            text: format!(
                "gk's {} hook runs {} on every {}: it is registered under {n} different commands ({})",
                twice.kind.arg(),
                times(n),
                twice.kind.event(),
                places(&firsts)
            ),
            fix: !firsts.iter().all(|r| r.scope.is_policy()),
            project: twice
                .spellings
                .iter()
                .flat_map(|s| &s.places)
                .any(|r| r.scope.in_project()),
        });
    }
}

/// A gk command that runs under another hook's event.
fn hooks_under_another_event(t: &Table, out: &mut Vec<Problem>) {
    for (row, kind) in rules::wrong_event(t) {
        let r = &t.rows[row];
        if !t.runs(r) {
            continue;
        }
        out.push(Problem {
            text: format!(
                "`gk hook {}` is registered under {} in {}; it belongs under {}",
                kind.arg(),
                shown(&r.event),
                place(r),
                kind.event()
            ),
            fix: !r.scope.is_policy(),
            project: r.scope.in_project(),
        });
    }
}

/// A hook of gk's that gk.json wants and no settings file registers.
fn hooks_not_registered(t: &Table, config: &Config, out: &mut Vec<Problem>) {
    for kind in rules::missing(t) {
        // This hook is running, so something registers it; a hook switched
        // off in gk.json is not wanted.
        if kind == HookKind::Session || !config.enabled(kind) {
            continue;
        }
        out.push(Problem {
            text: format!(
                "gk's {} hook ({}) is not registered in any settings file Claude Code loads",
                kind.arg(),
                kind.event()
            ),
            fix: true,
            project: false,
        });
    }
}

/// A registered program of gk's (or of the Python hooks') that is not
/// there, so every event it is registered under fails.
fn programs_not_there(t: &Table, locate: &dyn Fn(&str) -> Option<PathBuf>, out: &mut Vec<Problem>) {
    for p in rules::gk_programs(t, locate) {
        let running: Vec<&Registration> = p.places.iter().copied().filter(|r| t.runs(r)).collect();
        if p.located.is_some() || running.is_empty() {
            continue;
        }
        let fix = !running.iter().all(|r| r.scope.is_policy());
        let project = running.iter().any(|r| r.scope.in_project());
        // Past the lines the message can show, a problem is only counted:
        // its words (and the open `absence` makes to choose them) would be
        // thrown away.
        if out.len() >= MAX_LINES {
            out.push(Problem {
                text: String::new(),
                fix,
                project,
            });
            continue;
        }
        let events: Vec<String> = p.events().into_iter().map(shown).collect();
        let events: Vec<&str> = events.iter().map(String::as_str).collect();
        out.push(Problem {
            text: format!(
                "{} {}, so every {} fails (registered in {})",
                shown(p.spelled()),
                p.absence(),
                crate::text::and_list(&events),
                places(&running)
            ),
            fix,
            project,
        });
    }
}

/// The message for `problems` (`None` when there are none): one line per
/// problem, `gk: <what> -- <gk doctor command>`, at most [`MAX_LINES`].
pub fn message(problems: &[Problem], project: Option<&Path>, os: Os) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let shown_count = if problems.len() > MAX_LINES {
        MAX_LINES - 1
    } else {
        problems.len()
    };
    let mut lines: Vec<String> = problems[..shown_count]
        .iter()
        .map(|p| {
            format!(
                "gk: {} -- {}",
                p.text,
                doctor_command(p.fix, p.project, project, os)
            )
        })
        .collect();
    let rest = &problems[shown_count..];
    if !rest.is_empty() {
        lines.push(format!(
            "gk: {} more problems -- {}",
            rest.len(),
            doctor_command(false, rest.iter().any(|p| p.project), project, os)
        ));
    }
    Some(lines.join("\n"))
}

/// `gk doctor`, with `--fix` when it repairs the problem and `--project
/// <folder>` when the problem is in that folder's settings (so it reads
/// the same files wherever it is typed).
pub fn doctor_command(fix: bool, in_project: bool, project: Option<&Path>, os: Os) -> String {
    let mut out = String::from("gk doctor");
    if fix {
        out.push_str(" --fix");
    }
    if let (true, Some(dir)) = (in_project, project) {
        out.push_str(" --project ");
        out.push_str(&quoted_folder(dir, os));
    }
    out
}

/// A folder as a shell argument: as it is when it needs no quoting, else
/// in single quotes (sh and PowerShell both read those literally; a quote
/// inside is `'\''` for sh, `''` for PowerShell; `hookcmd::sh_word` and
/// `ps_word`). A folder with a control character, or too long to be worth
/// typing, is named in words instead.
fn quoted_folder(dir: &Path, os: Os) -> String {
    let Some(text) = dir
        .to_str()
        .filter(|t| t.chars().count() <= 2 * MAX_SHOWN && crate::text::is_clean(t))
    else {
        return "<this session's folder>".to_string();
    };
    if os.is_windows() {
        crate::hookcmd::ps_word(text)
    } else {
        crate::hookcmd::sh_word(text)
    }
}

/// `text` fit for one line of the message: nothing a terminal acts on, no
/// longer than [`MAX_SHOWN`] characters (the start and the end kept).
fn shown(text: &str) -> String {
    crate::text::one_line_ends(text, MAX_SHOWN).into_owned()
}

fn shown_path(path: &Path) -> String {
    shown(&path.to_string_lossy())
}

/// `user settings /h/.claude/settings.json:12`, or
/// `plugin gk@gk (/h/…/hooks/hooks.json:7)` for a plugin's hook.
fn place(r: &Registration) -> String {
    match &r.plugin {
        Some(p) => format!(
            "plugin {} ({}:{})",
            shown(&p.id),
            shown_path(&r.path),
            r.line
        ),
        None => format!(
            "{} settings {}:{}",
            r.scope.name(),
            shown_path(&r.path),
            r.line
        ),
    }
}

/// The first [`MAX_PLACES`] places, then how many more; a place in the
/// same file as the one before it is only its line (`…settings.json:5 and :8`).
fn places(regs: &[&Registration]) -> String {
    let mut named: Vec<String> = Vec::new();
    for (i, r) in regs.iter().take(MAX_PLACES).enumerate() {
        match i.checked_sub(1).map(|j| regs[j]) {
            Some(before) if before.scope == r.scope && before.path == r.path => {
                named.push(format!(":{}", r.line))
            }
            _ => named.push(place(r)),
        }
    }
    if regs.len() > MAX_PLACES {
        named.push(format!("{} more", regs.len() - MAX_PLACES));
    }
    crate::text::and_list(&named.iter().map(String::as_str).collect::<Vec<_>>())
}

fn times(n: usize) -> String {
    match n {
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hookcmd::CommandContext;
    use crate::registry::scopes::{classify_text, Scope};

    fn ctx() -> CommandContext {
        CommandContext::with_home(Os::Linux, "/home/u")
    }

    const USER: &str = "/home/u/.claude/settings.json";
    const LOCAL: &str = "/w/p/.claude/settings.local.json";

    fn file(scope: Scope, path: &str, text: &str) -> ScopeFile {
        ScopeFile {
            scope,
            path: PathBuf::from(path),
            load: classify_text(Path::new(path), text),
        }
    }

    /// A settings file with an `env` secret and one group per entry, each
    /// on its own line: events in first-seen order, so the first entry's
    /// handler is on line 5 and each further one of the same event a line
    /// below; a new event adds two lines.
    fn hooks_json(entries: &[(&str, &str)]) -> String {
        let mut events: Vec<(&str, Vec<String>)> = Vec::new();
        for (event, command) in entries {
            let group = format!(
                "      {{\"hooks\": [{{\"type\": \"command\", \"command\": {}}}]}}",
                serde_json::to_string(command).unwrap()
            );
            match events.iter_mut().find(|(e, _)| e == event) {
                Some((_, groups)) => groups.push(group),
                None => events.push((event, vec![group])),
            }
        }
        let body: Vec<String> = events
            .iter()
            .map(|(event, groups)| format!("    \"{event}\": [\n{}\n    ]", groups.join(",\n")))
            .collect();
        format!(
            "{{\n  \"env\": {{\"API_TOKEN\": \"sk-secret-value-1234\"}},\n  \"hooks\": {{\n{}\n  }}\n}}\n",
            body.join(",\n")
        )
    }

    fn healthy_user() -> String {
        hooks_json(&[
            ("UserPromptSubmit", "\"$HOME/.claude/hooks/gk\" hook prompt"),
            ("Stop", "\"$HOME/.claude/hooks/gk\" hook stop"),
            ("SessionStart", "\"$HOME/.claude/hooks/gk\" hook session"),
            ("PreToolUse", "/usr/local/bin/bash-guard --strict"),
        ])
    }

    /// The message for these files, every program present unless listed in `gone`.
    fn check_with(files: &[ScopeFile], gone: &[&str], config: &Config) -> Option<String> {
        let t = Table::new(files, &ctx());
        let locate = |p: &str| (!gone.contains(&p)).then(|| PathBuf::from(p));
        let found = problems(files, &Plugins::none(), &t, &locate, config, None);
        message(&found, Some(Path::new("/w/p")), Os::Linux)
    }

    fn check(files: &[ScopeFile]) -> Option<String> {
        check_with(files, &[], &Config::default())
    }

    #[test]
    fn a_healthy_setup_says_nothing() {
        let files = vec![
            file(Scope::User, USER, &healthy_user()),
            file(Scope::Project, "/w/p/.claude/settings.json", "{}"),
            file(Scope::Local, LOCAL, ""),
        ];
        assert_eq!(check(&files), None);
        // A string registered twice runs once: doctor's business, not a warning.
        let twice = file(
            Scope::Local,
            LOCAL,
            &hooks_json(&[("UserPromptSubmit", "\"$HOME/.claude/hooks/gk\" hook prompt")]),
        );
        assert_eq!(check(&[files[0].clone(), twice]), None);
    }

    #[test]
    fn a_plugins_hook_is_named_by_its_plugin_with_no_control_characters() {
        let mut r = crate::registry::table::test_row(
            Scope::User,
            "UserPromptSubmit",
            "gk",
            crate::hookcmd::Owner::Gk(HookKind::Prompt),
        );
        r.path = PathBuf::from("/m/plugin/hooks/hooks.json");
        r.line = 7;
        r.plugin = Some(crate::registry::table::PluginTag {
            id: "gk\u{1b}[31m@mkt".to_string(),
            forced: false,
            everywhere: true,
        });
        let shown = place(&r);
        assert!(shown.starts_with("plugin gk"), "{shown}");
        assert!(
            shown.ends_with("@mkt (/m/plugin/hooks/hooks.json:7)"),
            "{shown}"
        );
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
    }

    #[test]
    fn two_spellings_of_one_hook_are_named_with_their_places() {
        let local = file(
            Scope::Local,
            LOCAL,
            &hooks_json(&[("UserPromptSubmit", "~/.claude/hooks/gk hook prompt")]),
        );
        let msg = check(&[file(Scope::User, USER, &healthy_user()), local]).unwrap();
        assert_eq!(
            msg,
            "gk: gk's prompt hook runs twice on every UserPromptSubmit: it is registered under 2 different commands (user settings /home/u/.claude/settings.json:5 and local settings /w/p/.claude/settings.local.json:5) -- gk doctor --fix --project /w/p"
        );
        assert!(!msg.contains("sk-secret"));
    }

    #[test]
    fn the_python_hook_beside_gk_fires_twice_too() {
        let mut user: Value = serde_json::from_str(&healthy_user()).unwrap();
        user["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"hooks": [{"type": "command", "command": "python3 ~/.claude/hooks/state_monitor.py"}]}));
        let msg = check(&[file(Scope::User, USER, &user.to_string())]).unwrap();
        assert!(
            msg.starts_with("gk: gk's stop hook runs twice on every Stop"),
            "{msg}"
        );
        assert!(msg.ends_with("-- gk doctor --fix"), "{msg}");
    }

    #[test]
    fn a_file_the_client_skips_is_named_at_its_place() {
        let broken = file(
            Scope::Local,
            LOCAL,
            "{\n  \"env\": {\"TOKEN\": \"sk-secret-value-1234\"},\n}\n",
        );
        let msg = check(&[file(Scope::User, USER, &healthy_user()), broken]).unwrap();
        assert_eq!(
            msg,
            "gk: /w/p/.claude/settings.local.json:2:43: not valid JSON: trailing comma; Claude Code skips this whole file (local settings): none of its hooks, permissions or env are in effect -- gk doctor --project /w/p"
        );
        let voided = file(
            Scope::User,
            USER,
            r#"{"hooks": {"PreToolUse": [{"matcher": ["x"], "hooks": []}]}}"#,
        );
        let msg = check(&[voided]).unwrap();
        assert!(
            msg.starts_with("gk: /home/u/.claude/settings.json:1:39: hooks.PreToolUse[0].matcher: `matcher` must be a string; Claude Code skips this whole file (user settings): none of its hooks, permissions or env are in effect -- gk doctor\n"),
            "{msg}"
        );
        // The hooks that file held do not load: reported as missing, and
        // sent to doctor, not to `--fix`, which cannot write the file the
        // client skips (doctor says to correct it first).
        assert!(
            msg.contains("gk: gk's prompt hook (UserPromptSubmit) is not registered in any settings file Claude Code loads -- gk doctor\n"),
            "{msg}"
        );
        assert!(!msg.contains("--fix"), "{msg}");
    }

    #[test]
    fn a_part_the_client_drops_is_named_and_the_rest_counts() {
        // Measured on 2.1.332: a matcher that is not a string under Stop
        // drops that group alone; the file's other hooks run.
        let mut user: Value = serde_json::from_str(&healthy_user()).unwrap();
        user["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"matcher": 5, "hooks": [{"type": "command", "command": "notify.sh"}]}));
        let text = serde_json::to_string_pretty(&user).unwrap();
        let msg = check(&[file(Scope::User, USER, &text)]).unwrap();
        assert!(
            msg.starts_with("gk: /home/u/.claude/settings.json:"),
            "{msg}"
        );
        assert!(
            msg.contains(": hooks.Stop[1].matcher: `matcher` must be a string; Claude Code ignores this entry (user settings), so its hooks never run -- gk doctor"),
            "{msg}"
        );
        assert_eq!(msg.lines().count(), 1, "{msg}");
        // A setting other than hooks the client drops is doctor's to say.
        let other = healthy_user().replacen('{', "{\"teammateMode\": \"split\",", 1);
        assert_eq!(check(&[file(Scope::User, USER, &other)]), None);
    }

    #[test]
    fn json_the_client_loads_is_not_called_skipped() {
        // Measured on client 2.1.332: each of these loads, hooks and env too.
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        for x in ["1e400", r#""\ud83d""#, deep.as_str()] {
            let text = healthy_user().replacen('{', &format!("{{\"x\": {x},"), 1);
            assert_eq!(check(&[file(Scope::User, USER, &text)]), None, "{x:.20}");
        }
    }

    #[test]
    fn a_file_past_the_budget_is_named_and_nothing_is_called_missing() {
        let f = ScopeFile {
            scope: Scope::Project,
            path: PathBuf::from("/w/p/.claude/settings.json"),
            load: scopes::Load::Unchecked(scopes::TOO_LARGE.into()),
        };
        // The user file registers no prompt or Stop hook; the big file may.
        let user = hooks_json(&[("SessionStart", "\"$HOME/.claude/hooks/gk\" hook session")]);
        let msg = check(&[file(Scope::User, USER, &user), f]).unwrap();
        assert_eq!(
            msg,
            "gk: /w/p/.claude/settings.json is too large to check at session start -- gk doctor --project /w/p"
        );
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let f = ScopeFile {
            scope: Scope::Project,
            path: PathBuf::from("/w/p/.claude/settings.json"),
            load: scopes::Load::Unreadable("not a regular file (a named pipe)".into()),
        };
        let msg = check(&[file(Scope::User, USER, &healthy_user()), f]).unwrap();
        assert_eq!(
            msg,
            "gk: /w/p/.claude/settings.json (project settings) cannot be read (not a regular file (a named pipe)); Claude Code skips it: none of its hooks, permissions or env are in effect -- gk doctor --project /w/p"
        );
    }

    #[test]
    fn a_missing_program_names_the_events_that_fail() {
        let msg = check_with(
            &[file(Scope::User, USER, &healthy_user())],
            &["/home/u/.claude/hooks/gk"],
            &Config::default(),
        )
        .unwrap();
        assert_eq!(
            msg,
            "gk: /home/u/.claude/hooks/gk does not exist, so every UserPromptSubmit, Stop and SessionStart fails (registered in user settings /home/u/.claude/settings.json:5, :8 and :11) -- gk doctor --fix"
        );
        // Another tool's program is not looked up (doctor reports it).
        let msg = check_with(
            &[file(Scope::User, USER, &healthy_user())],
            &["/usr/local/bin/bash-guard"],
            &Config::default(),
        );
        assert_eq!(msg, None);
    }

    #[test]
    fn a_hook_under_the_wrong_event_and_a_missing_hook() {
        let user = hooks_json(&[
            ("UserPromptSubmit", "\"$HOME/.claude/hooks/gk\" hook prompt"),
            ("Stop", "\"$HOME/.claude/hooks/gk\" hook prompt"),
            ("SessionStart", "\"$HOME/.claude/hooks/gk\" hook session"),
        ]);
        let msg = check(&[file(Scope::User, USER, &user)]).unwrap();
        assert_eq!(
            msg,
            "gk: `gk hook prompt` is registered under Stop in user settings /home/u/.claude/settings.json:8; it belongs under UserPromptSubmit -- gk doctor --fix\n\
             gk: gk's stop hook (Stop) is not registered in any settings file Claude Code loads -- gk doctor --fix"
        );
        // Switched off in gk.json: not wanted, so not missing.
        let mut config = Config::default();
        config.stop.enabled = false;
        let msg = check_with(&[file(Scope::User, USER, &user)], &[], &config).unwrap();
        assert!(!msg.contains("not registered"), "{msg}");
    }

    #[test]
    fn managed_problems_point_at_doctor_not_fix() {
        let managed = file(
            Scope::Managed,
            "/etc/claude-code/managed-settings.json",
            &hooks_json(&[("UserPromptSubmit", "/opt/gk/gk hook prompt")]),
        );
        let mut also = managed.clone();
        also.path = PathBuf::from("/etc/claude-code/managed-settings.d/10-gk.json");
        also.load = classify_text(
            &also.path,
            &hooks_json(&[("UserPromptSubmit", "'/opt/gk/gk' hook prompt")]),
        );
        let user = hooks_json(&[
            ("Stop", "\"$HOME/.claude/hooks/gk\" hook stop"),
            ("SessionStart", "\"$HOME/.claude/hooks/gk\" hook session"),
        ]);
        let msg = check(&[file(Scope::User, USER, &user), managed, also]).unwrap();
        assert_eq!(
            msg,
            "gk: gk's prompt hook runs twice on every UserPromptSubmit: it is registered under 2 different commands (managed settings /etc/claude-code/managed-settings.json:5 and managed settings /etc/claude-code/managed-settings.d/10-gk.json:5) -- gk doctor"
        );
    }

    #[test]
    fn a_broken_gk_json_is_one_line() {
        let t = Table::new(&[], &ctx());
        let e = ConfigError {
            path: PathBuf::from("/home/u/.claude/hooks/gk.json"),
            position: Some((2, 7)),
            reason: "unknown field `promt`".into(),
        };
        let found = problems(
            &[],
            &Plugins::none(),
            &t,
            &|_| None,
            &Config::default(),
            Some(&e),
        );
        assert_eq!(
            found[0].text,
            "/home/u/.claude/hooks/gk.json:2:7: unknown field `promt`; gk's hooks ignore this gk.json and run on the built-in rules"
        );
    }

    #[test]
    fn the_message_stays_a_few_short_lines() {
        let long = format!("/w/{}/p", "x".repeat(5000));
        let problem = |i: usize| Problem {
            text: format!("{} thing {i}", shown(&long)),
            fix: i.is_multiple_of(2),
            project: true,
        };
        let many: Vec<Problem> = (0..40).map(problem).collect();
        let msg = message(&many, Some(Path::new(&long)), Os::Linux).unwrap();
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(lines.len(), MAX_LINES);
        assert_eq!(
            lines[5],
            "gk: 35 more problems -- gk doctor --project <this session's folder>"
        );
        assert!(msg.len() < 2_000, "{}", msg.len());
        assert!(lines.iter().all(|l| l.starts_with("gk: ")));
        // Exactly MAX_LINES problems: every one is shown.
        let msg = message(&many[..MAX_LINES], None, Os::Linux).unwrap();
        assert_eq!(msg.lines().count(), MAX_LINES);
        assert!(!msg.contains("more problems"));
    }

    #[test]
    fn the_longest_message_stays_under_what_the_client_keeps() {
        // Every field as long as it gets: paths of 4,000 characters, a
        // 300-character project folder (still written out), event names of
        // 1,000, more spellings and problems than are shown.
        let dir = format!("/{}", "d".repeat(4_000));
        let project = format!("/{}", "p".repeat(299));
        let event = "E".repeat(1_000);
        let mut files = Vec::new();
        for (i, scope) in [Scope::User, Scope::Local, Scope::Project, Scope::Managed]
            .into_iter()
            .enumerate()
        {
            let mut entries: Vec<(&str, String)> = Vec::new();
            for n in 0..5 {
                entries.push((
                    "UserPromptSubmit",
                    format!("'{dir}/{n}/{i}/gk' hook prompt"),
                ));
                entries.push(("Stop", format!("'{dir}/{n}/{i}/gk' hook stop")));
                entries.push((&event, format!("'{dir}/{n}/{i}/gk' hook session")));
            }
            let refs: Vec<(&str, &str)> = entries.iter().map(|(e, c)| (*e, c.as_str())).collect();
            files.push(file(scope, &format!("{dir}/{i}.json"), &hooks_json(&refs)));
        }
        files.push(file(
            Scope::Local,
            &format!("{dir}/broken.json"),
            &format!("{{\"hooks\": {{\"{event}\": [{{\"matcher\": 1, \"hooks\": []}}]}}}}"),
        ));
        let t = Table::new(&files, &ctx());
        let found = problems(
            &files,
            &Plugins::none(),
            &t,
            &|_| None,
            &Config::default(),
            None,
        );
        assert!(found.len() > MAX_LINES, "{}", found.len());
        let msg = message(&found, Some(Path::new(&project)), Os::Linux).unwrap();
        assert_eq!(msg.lines().count(), MAX_LINES);
        assert!(msg.contains(&project), "the folder is written out");
        let n = msg.chars().count();
        #[allow(clippy::print_stderr)] // the test's own note
        {
            eprintln!("the longest message: {n} characters");
        }
        assert!(n < 7_000, "{n} characters:\n{msg}");
        // Escaped as the hook prints it (ASCII JSON), still under 10,000.
        assert!(super::super::jsonout::stop_output(&msg).len() < 10_000);
    }

    #[test]
    fn control_and_direction_characters_cannot_forge_lines() {
        // Line breaks and tabs as spaces, the rest as `?` (text::one_line).
        assert_eq!(shown("a\nb\u{202e}c\td"), "a b?c d");
        assert_eq!(shown(&"é".repeat(1000)).chars().count(), MAX_SHOWN);
        assert_eq!(
            quoted_folder(Path::new("/w/a\nb"), Os::Linux),
            "<this session's folder>"
        );
    }

    #[test]
    fn the_project_folder_is_quoted_for_the_shell() {
        let q = |p: &str, os| quoted_folder(Path::new(p), os);
        assert_eq!(q("/home/u/work/p-1", Os::Linux), "/home/u/work/p-1");
        assert_eq!(q("/home/u/my work", Os::Linux), "'/home/u/my work'");
        assert_eq!(q("/home/u/it's", Os::Linux), "'/home/u/it'\\''s'");
        // sh reads a backslash as an escape, PowerShell a comma as two
        // arguments: quoted there, and only there.
        assert_eq!(q(r"/home/u/a\b", Os::Linux), r"'/home/u/a\b'");
        assert_eq!(q("/home/u/a,b", Os::Linux), "/home/u/a,b");
        assert_eq!(q(r"C:\w\a,b", Os::Windows), r"'C:\w\a,b'");
        assert_eq!(q(r"C:\w\@b", Os::Windows), r"'C:\w\@b'");
        assert_eq!(q(r"C:\Users\Ann\proj", Os::Windows), r"C:\Users\Ann\proj");
        assert_eq!(
            q(r"C:\Users\Ann Lee\O'Brien", Os::Windows),
            r"'C:\Users\Ann Lee\O''Brien'"
        );
        // PowerShell ends a single-quoted string at ’ too (found under Wine).
        assert_eq!(
            q("C:\\t\\Ann\u{2019}s proj", Os::Windows),
            "'C:\\t\\Ann\u{2019}\u{2019}s proj'"
        );
        assert_eq!(
            doctor_command(true, true, Some(Path::new("/w/p q")), Os::Linux),
            "gk doctor --fix --project '/w/p q'"
        );
        assert_eq!(
            doctor_command(true, true, None, Os::Linux),
            "gk doctor --fix"
        );
        assert_eq!(
            doctor_command(false, false, Some(Path::new("/w")), Os::Linux),
            "gk doctor"
        );
    }

    #[test]
    fn the_project_folder_comes_from_the_event_or_the_current_folder() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // A file that is there (nothing under src/hooks/ writes one, tests included).
        let file_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let ev = |cwd: Value| serde_json::json!({"cwd": cwd});
        let here = Some(d);
        assert_eq!(
            project_dir(Some(&ev(Value::from(d.to_str().unwrap()))), None),
            Some(d.to_path_buf())
        );
        // Named but not a folder that is there: no project settings.
        for bad in [
            file_path.to_str().unwrap().to_string(),
            d.join("gone").to_string_lossy().into_owned(),
            "relative/dir".to_string(),
            "/w/a\u{0}b".to_string(),
        ] {
            assert_eq!(
                project_dir(Some(&ev(Value::from(bad.clone()))), here),
                None,
                "{bad:?}"
            );
        }
        // No usable field: the folder the hook runs in.
        for missing in [
            Value::Null,
            Value::from(42),
            Value::from(""),
            serde_json::json!({"a": 1}),
        ] {
            assert_eq!(project_dir(Some(&ev(missing)), here), Some(d.to_path_buf()));
        }
        assert_eq!(project_dir(None, here), Some(d.to_path_buf()));
        assert_eq!(
            project_dir(Some(&serde_json::json!([1])), here),
            Some(d.to_path_buf())
        );
        assert_eq!(project_dir(None, Some(&file_path)), None);
    }
}
