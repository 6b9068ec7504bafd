//! One rule per finding code, over the [`Table`] (or the loaded files).
//! Each returns what it found as data — rows, hooks, spellings — and no
//! words: `doctor::registrations` renders these as findings with fixes, a
//! SessionStart check can render the same data as one line. Per-row rules
//! give row indices into [`Table::rows`], so a caller can merge them back
//! into file order. Every rule is linear in the rows.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::scopes::{Load, Scope, ScopeFile};
use super::table::{Registration, Switch, Table};
use crate::hookcmd::{HookKind, Owner};
use crate::settings::{ParseError, SchemaIssue};

/// `hooks-disabled`: a switch keeps gk's hooks from running.
#[derive(Debug, Clone, PartialEq)]
pub struct Disabled<'t> {
    pub switch: &'t Switch,
    /// Managed `disableAllHooks`: no hook runs at all, managed ones included.
    pub everything: bool,
}

/// `hooks-disabled`. A switch that turns off only user, project and local
/// hooks (and plugins that managed settings do not enable) leaves gk
/// running when what still runs does every one of its hooks' jobs:
/// nothing to report then.
pub fn hooks_disabled(t: &Table) -> Option<Disabled<'_>> {
    if let Some(s) = &t.policy.managed_off {
        return Some(Disabled {
            switch: s,
            everything: true,
        });
    }
    let still_done = HookKind::ALWAYS
        .into_iter()
        .all(|k| t.running(k).next().is_some());
    if still_done {
        return None;
    }
    t.policy.nonmanaged_off.as_ref().map(|s| Disabled {
        switch: s,
        everything: false,
    })
}

/// `hook-missing`: the hooks no loaded file registers, in any scope and
/// whether or not it runs (switched off is `hooks-disabled`). A command
/// that cannot be decided but names gk may be the hook: then "missing"
/// would be a guess, and `hook-unrecognised` says so instead.
pub fn missing(t: &Table) -> Vec<HookKind> {
    // The switch hooks are wanted only where the client knows their events.
    HookKind::ALWAYS
        .into_iter()
        .filter(|&k| !t.registers(k) && !t.rows.iter().any(|r| maybe_gk(r, k)))
        .collect()
}

/// One command string and every place that registers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Spelling<'t> {
    pub command: &'t str,
    pub places: Vec<&'t Registration>,
}

/// The distinct command strings that run `kind`'s job in scopes whose
/// hooks run, in first-seen order, each with its places: what the client
/// will start. Measured: it starts each string once per source (user,
/// project and local settings together; managed settings; each plugin),
/// so one string in two sources is two spellings here.
pub fn spellings(t: &Table, kind: HookKind) -> Vec<Spelling<'_>> {
    let mut out: Vec<Spelling<'_>> = Vec::new();
    let mut at: HashMap<(crate::registry::table::Source<'_>, &str), usize> = HashMap::new();
    for r in t.running(kind) {
        let i = *at
            .entry((r.source(), r.command.as_str()))
            .or_insert_with(|| {
                out.push(Spelling {
                    command: &r.command,
                    places: Vec::new(),
                });
                out.len() - 1
            });
        out[i].places.push(r);
    }
    out
}

/// `hook-fires-twice`: a hook whose job runs under two or more strings.
#[derive(Debug, Clone, PartialEq)]
pub struct FiresTwice<'t> {
    pub kind: HookKind,
    pub spellings: Vec<Spelling<'t>>,
}

/// `hook-fires-twice`, for each hook that has it.
pub fn fires_twice(t: &Table) -> Vec<FiresTwice<'_>> {
    HookKind::ALL
        .into_iter()
        .map(|kind| FiresTwice {
            kind,
            spellings: spellings(t, kind),
        })
        .filter(|f| f.spellings.len() >= 2)
        .collect()
}

/// `hook-redundant` (one string, several places): runs once, the rest is
/// clutter.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeated<'t> {
    pub kind: HookKind,
    pub spelling: Spelling<'t>,
}

/// Every string registered more than once for one of gk's hooks.
pub fn repeated(t: &Table) -> Vec<Repeated<'_>> {
    HookKind::ALL
        .into_iter()
        .flat_map(|kind| {
            spellings(t, kind)
                .into_iter()
                .filter(|s| s.places.len() >= 2)
                .map(move |spelling| Repeated { kind, spelling })
        })
        .collect()
}

/// `hook-legacy`: rows running a Python v5 script (under its own event).
pub fn legacy(t: &Table) -> Vec<(usize, HookKind)> {
    rows_where(t, |r| match r.owner {
        Owner::Legacy(kind) => Some(kind),
        _ => None,
    })
}

/// `hook-wrong-event`: rows running `gk hook <kind>` under another event.
pub fn wrong_event(t: &Table) -> Vec<(usize, HookKind)> {
    rows_where(t, |r| match r.owner {
        Owner::Gk(kind) if r.event != kind.event() => Some(kind),
        _ => None,
    })
}

/// `hook-redundant` (shared project settings): gk registered in a file
/// meant to be committed, pointing at one machine's binary.
pub fn in_project(t: &Table) -> Vec<(usize, HookKind)> {
    rows_where(t, |r| match r.owner {
        Owner::Gk(kind) if r.event == kind.event() && r.scope == Scope::Project => Some(kind),
        _ => None,
    })
}

/// `hook-unrecognised`: a command under one of gk's events that doctor
/// cannot identify but that names gk or the Python hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecognised {
    pub row: usize,
    /// The command could not be parsed at all (pipes, `&&`, variables);
    /// otherwise it parsed but is not a plain `gk hook prompt|stop|session` call.
    pub undecidable: bool,
    /// Something identifiable already does the job of that event's hook:
    /// if this command runs gk too, the hook fires twice.
    pub job_registered: bool,
}

pub fn unrecognised(t: &Table) -> Vec<Unrecognised> {
    let registered: Vec<(HookKind, bool)> = HookKind::ALL
        .into_iter()
        .map(|k| (k, t.registers(k)))
        .collect();
    t.rows
        .iter()
        .enumerate()
        .filter(|(_, r)| HookKind::ALL.into_iter().any(|k| maybe_gk(r, k)))
        .map(|(row, r)| Unrecognised {
            row,
            undecidable: r.invocation.is_none(),
            job_registered: registered
                .iter()
                .any(|(k, done)| *done && k.event() == r.event),
        })
        .collect()
}

fn rows_where(
    t: &Table,
    pick: impl Fn(&Registration) -> Option<HookKind>,
) -> Vec<(usize, HookKind)> {
    t.rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| pick(r).map(|k| (i, k)))
        .collect()
}

/// A command doctor cannot identify, under `kind`'s event, that names gk
/// or the Python hooks.
pub fn maybe_gk(r: &Registration, kind: HookKind) -> bool {
    r.owner == Owner::Foreign && r.event == kind.event() && mentions_gk(&r.command)
}

/// Does an undecidable command look like it could run gk or the Python
/// hooks? A word `gk` or `gk.exe` (after the start, a space, a slash or a
/// quote; before the end, a space or a quote), or `gatekeeper` or
/// `state_monitor` anywhere, ignoring case. Hand-written rather than a
/// regex so no caller pays for compiling one.
pub fn mentions_gk(command: &str) -> bool {
    let lower = command.to_lowercase();
    if lower.contains("gatekeeper") || lower.contains("state_monitor") {
        return true;
    }
    let before_ok = |c: Option<char>| {
        c.is_none_or(|c| c.is_whitespace() || matches!(c, '/' | '\\' | '\'' | '"' | '`'))
    };
    let after_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '\'' | '"' | '`'));
    lower.match_indices("gk").any(|(i, _)| {
        let rest = &lower[i + 2..];
        before_ok(lower[..i].chars().next_back())
            && (after_ok(rest.chars().next())
                || rest
                    .strip_prefix(".exe")
                    .is_some_and(|r| after_ok(r.chars().next())))
    })
}

/// A program registered commands run, with every place that runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Program<'t> {
    /// As `hookcmd::Invocation::program` spells it (normalised).
    pub program: &'t str,
    /// The owner of the first registration that runs it.
    pub owner: &'t Owner,
    pub places: Vec<&'t Registration>,
    /// Where it was found; `None`: it does not exist (`hook-binary-missing`).
    pub located: Option<PathBuf>,
}

impl Program<'_> {
    /// The program as the first registration that runs it spells it: an
    /// exec form's program as written (`C:\Users\ann\.claude\hooks\gk.exe`),
    /// else the program as resolved, in the case it was written
    /// (`/home/ann/.claude/hooks/gk`, `C:/Users/ann/.claude/hooks/gk.exe`),
    /// for messages.
    pub fn spelled(&self) -> &str {
        let first = self.places.first();
        first
            .and_then(|r| r.exec.as_ref())
            .and_then(|e| e.first())
            .or_else(|| first.and_then(|r| r.invocation.as_ref()).map(|i| &i.shown))
            .map_or(self.program, String::as_str)
    }

    /// Why a program with `located: None` cannot run, in the words that
    /// follow its name: `does not exist`, or what is there instead (`is a
    /// folder, not a program`, `is a named pipe, not a program`). Asked only
    /// for a missing program, through the bounded reader's open, which
    /// never waits on a pipe and reads nothing.
    pub fn absence(&self) -> String {
        use crate::bounded::ReadError;
        if !super::locate::is_absolute(self.program) {
            return "does not exist".to_string();
        }
        // The names `locate` tried: on Windows `<program>.exe` first (the
        // normalised program has no `.exe`), then the program as spelled.
        let mut names = Vec::new();
        if cfg!(windows) && !self.program.to_ascii_lowercase().ends_with(".exe") {
            names.push(format!("{}.exe", self.program));
        }
        names.push(self.program.to_string());
        for name in names {
            match crate::bounded::open(std::path::Path::new(&name)) {
                Ok(_) | Err(ReadError::NotFound | ReadError::TooLarge { .. }) => continue,
                Err(ReadError::Folder) => return "is a folder, not a program".to_string(),
                Err(ReadError::NotRegular(what)) => return format!("is {what}, not a program"),
                Err(ReadError::Io(e)) => return format!("cannot be opened ({e})"),
            }
        }
        "does not exist".to_string()
    }

    /// The events whose every firing fails when the program is missing,
    /// each once, in first-seen order.
    pub fn events(&self) -> Vec<&str> {
        events_of(&self.places)
    }
}

/// The events of `places`, each once, in first-seen order.
fn events_of<'r>(places: &[&'r Registration]) -> Vec<&'r str> {
    let mut out: Vec<&str> = Vec::new();
    for r in places {
        if !out.contains(&r.event.as_str()) {
            out.push(&r.event);
        }
    }
    out
}

/// Every program gk's and the Python hooks' registrations run, and any
/// absolute program another tool's registration runs (a bare name of
/// someone else's is their PATH's business), in program order, each looked
/// up once with `locate`. The ones with `located: None` are
/// `hook-binary-missing`.
pub fn programs<'t>(t: &'t Table, locate: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Program<'t>> {
    programs_where(t, true, locate)
}

/// [`programs`] for gk's and the Python hooks' registrations only: what
/// the session check looks up (another tool's programs are doctor's
/// business, and not looking them up keeps the hook's cost to one file
/// test per program of gk's).
pub fn gk_programs<'t>(t: &'t Table, locate: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Program<'t>> {
    programs_where(t, false, locate)
}

fn programs_where<'t>(
    t: &'t Table,
    foreign: bool,
    locate: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<Program<'t>> {
    let mut by_program: BTreeMap<&str, (&Owner, Vec<&Registration>)> = BTreeMap::new();
    for r in &t.rows {
        let Some(inv) = &r.invocation else { continue };
        let checkable = match r.owner {
            Owner::Gk(_) | Owner::Legacy(_) => true,
            Owner::Foreign => foreign && super::locate::is_absolute(&inv.program),
        };
        if checkable {
            by_program
                .entry(inv.program.as_str())
                .or_insert_with(|| (&r.owner, Vec::new()))
                .1
                .push(r);
        }
    }
    by_program
        .into_iter()
        .map(|(program, (owner, places))| {
            // Looked up as first written, so a path found is shown in the
            // user's case (the key is lower case on Windows).
            let spelled = places[0].invocation.as_ref().map_or(program, |i| &i.shown);
            Program {
                program,
                owner,
                located: locate(spelled),
                places,
            }
        })
        .collect()
}

/// A program another tool's registration runs, found as the client's
/// shell would find it for one project: `$CLAUDE_PROJECT_DIR` (also
/// `${CLAUDE_PROJECT_DIR}`, quoted or not) is that project's folder, `~`
/// and `$HOME` the home folder, and a bare name is searched on `PATH`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolProgram<'t> {
    /// The program, normalised (`hookcmd::Invocation::program`).
    pub program: String,
    /// A bare name, searched on `PATH` (the hook's `PATH` may differ from
    /// the one gk sees).
    pub on_path: bool,
    pub places: Vec<&'t Registration>,
    pub located: Option<PathBuf>,
}

impl ToolProgram<'_> {
    /// The events whose every firing fails when it is missing, each once.
    pub fn events(&self) -> Vec<&str> {
        events_of(&self.places)
    }
}

/// `command` with `$CLAUDE_PROJECT_DIR` and `${CLAUDE_PROJECT_DIR}` put in
/// as `project`, decided as `hookcmd::normalize` decides any command;
/// `None` when it names no such variable, or when the folder's name holds
/// a character that would change how the line reads where it is put in
/// (a quote, `$`, a backquote, on Linux a backslash): then gk leaves it
/// alone rather than guess.
pub fn with_project_dir(
    command: &str,
    project: &std::path::Path,
    ctx: &crate::hookcmd::CommandContext,
) -> Option<crate::hookcmd::Invocation> {
    if !command.contains("CLAUDE_PROJECT_DIR") {
        return None;
    }
    let dir = project.to_str()?;
    let special =
        |c: char| matches!(c, '"' | '\'' | '$' | '`') || (c == '\\' && !ctx.os.is_windows());
    if dir.contains(special) {
        return None;
    }
    let text = command
        .replace("${CLAUDE_PROJECT_DIR}", dir)
        .replace("$CLAUDE_PROJECT_DIR", dir);
    crate::hookcmd::normalize(&text, ctx)
}

/// The programs other tools' registrations run that [`programs`] does not
/// look up: those a command names through `$CLAUDE_PROJECT_DIR` (the
/// commonest project hook), and bare names (on `PATH`). Each looked up once
/// with `locate`, in program order. Shell syntax gk cannot resolve (pipes,
/// `&&`, other variables) is left alone.
pub fn tool_programs<'t>(
    t: &'t Table,
    project: &std::path::Path,
    ctx: &crate::hookcmd::CommandContext,
    locate: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<ToolProgram<'t>> {
    let mut by_program: BTreeMap<String, (bool, Vec<&Registration>)> = BTreeMap::new();
    for r in t.rows.iter().filter(|r| r.owner == Owner::Foreign) {
        let (program, on_path) = match &r.invocation {
            // A word the shell runs itself (`echo`, `exit`, `Write-Host`):
            // no program to find. Without a shell (the exec form) it is one.
            Some(inv)
                if r.exec.is_none()
                    && is_shell_builtin(&inv.program, r.shell.as_deref(), ctx.os) =>
            {
                continue
            }
            // A bare name (no folder at all): looked up on PATH.
            Some(inv) if !inv.program.contains(['/', '\\']) => (inv.program.clone(), true),
            // Absolute ones are `programs`'s; relative ones depend on a
            // folder gk cannot know.
            Some(_) => continue,
            None => match with_project_dir(&r.command, project, ctx) {
                Some(inv) if super::locate::is_absolute(&inv.program) => (inv.program, false),
                _ => continue,
            },
        };
        by_program
            .entry(program)
            .or_insert_with(|| (on_path, Vec::new()))
            .1
            .push(r);
    }
    by_program
        .into_iter()
        .map(|(program, (on_path, places))| ToolProgram {
            located: locate(&program),
            program,
            on_path,
            places,
        })
        .collect()
}

/// Words a hook's shell runs itself, never a program on PATH: POSIX
/// shell and bash built-ins everywhere (the client runs a command string
/// with `sh`/`bash`, on Windows with Git Bash when it finds one); on
/// Windows, or with `"shell": "powershell"`, also PowerShell's own
/// aliases and its common cmdlets ([`cmdlet`]; Windows has no `echo.exe`:
/// the client without Git Bash runs PowerShell, where `echo` is an alias).
pub fn is_shell_builtin(word: &str, shell: Option<&str>, os: crate::platform::Os) -> bool {
    const SH: &[&str] = &[
        ".", ":", "[", "alias", "bg", "break", "builtin", "cd", "command", "continue", "declare",
        "echo", "eval", "exec", "exit", "export", "false", "fg", "getopts", "hash", "jobs", "kill",
        "let", "local", "printf", "pwd", "read", "readonly", "return", "set", "shift", "source",
        "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset",
        "wait",
    ];
    const POWERSHELL: &[&str] = &[
        "cat", "cd", "chdir", "clear", "cls", "copy", "cp", "del", "dir", "echo", "erase", "exit",
        "foreach", "gc", "gci", "gi", "gl", "gp", "iex", "ls", "md", "mkdir", "move", "mv", "popd",
        "pushd", "pwd", "rd", "ren", "rm", "rmdir", "set", "sleep", "type", "write",
    ];
    let powershell = shell.is_some_and(|s| s.eq_ignore_ascii_case("powershell"));
    let lower = word.to_ascii_lowercase();
    if !powershell && SH.contains(&lower.as_str()) {
        return true;
    }
    if !(powershell || os.is_windows()) {
        return false;
    }
    cmdlet(word) || POWERSHELL.contains(&lower.as_str())
}

/// A PowerShell cmdlet as hooks write one: one of the common verbs, a
/// dash, a noun, spelt as PowerShell does (`Write-Output`), or in lower
/// case with a common noun (`write-host`). A program named with a dash
/// (`bash-guard`, `lint-staged`, `pre-commit`) is none: its verb is not
/// PowerShell's, or its words are not capitalised.
fn cmdlet(word: &str) -> bool {
    const VERBS: &[&str] = &[
        "add",
        "clear",
        "convertfrom",
        "convertto",
        "copy",
        "foreach",
        "format",
        "get",
        "import",
        "invoke",
        "join",
        "measure",
        "move",
        "new",
        "out",
        "read",
        "remove",
        "resolve",
        "select",
        "set",
        "sort",
        "split",
        "start",
        "stop",
        "tee",
        "test",
        "wait",
        "where",
        "write",
    ];
    const NOUNS: &[&str] = &[
        "childitem",
        "content",
        "date",
        "error",
        "host",
        "item",
        "location",
        "null",
        "object",
        "output",
        "path",
        "process",
        "sleep",
        "string",
        "warning",
    ];
    let Some((verb, noun)) = word.split_once('-') else {
        return false;
    };
    let capital = |w: &str| w.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    VERBS.contains(&verb.to_ascii_lowercase().as_str())
        && !noun.is_empty()
        && noun.chars().all(|c| c.is_ascii_alphanumeric())
        && ((capital(verb) && capital(noun)) || NOUNS.contains(&noun.to_ascii_lowercase().as_str()))
}

/// Why the client skips a whole settings file, `env` included.
#[derive(Debug, Clone, PartialEq)]
pub enum Skipped<'f> {
    /// It exists but cannot be read (permissions, not a regular file).
    Unreadable(&'f str),
    /// Not strict JSON, or not UTF-8 (`path:line:col`).
    NotJson(&'f ParseError),
    /// Parses, but holds something that voids the file (a known setting of
    /// the wrong type, a malformed `PreToolUse` hook: `settings::effect_of`).
    Voided(&'f SchemaIssue),
}

/// The settings files the client skips whole, with why (`settings-unparseable`,
/// and `settings-schema` for an issue that voids the file).
pub fn skipped_files(files: &[ScopeFile]) -> Vec<(&ScopeFile, Skipped<'_>)> {
    files
        .iter()
        .filter_map(|f| {
            let why = match &f.load {
                Load::Unreadable(why) => Skipped::Unreadable(why),
                Load::Unparseable(e) => Skipped::NotJson(e),
                Load::Parsed { issues, .. } => match crate::settings::verdict(issues) {
                    crate::settings::Verdict::Skipped(i) => Skipped::Voided(i),
                    _ => return None,
                },
                _ => return None,
            };
            Some((f, why))
        })
        .collect()
}

#[cfg(test)]
mod with_plugins;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use crate::registry::table::test_row as reg;

    #[test]
    fn mentions_gk_agrees_with_the_pattern_it_replaces() {
        let re = regex::Regex::new(
            r#"(?i)(^|[\s/\\'"`])gk(\.exe)?([\s'"`]|$)|gatekeeper|state_monitor"#,
        )
        .unwrap();
        for c in [
            "cd x && gk hook prompt",
            "foo | /opt/bin/gk.exe hook stop",
            "$PY $D/gatekeeper.py",
            "echo gkx | grep hooks",
            "GK",
            "x\\GK.EXE\"",
            "gk.exex",
            "'gk'",
            "agk b",
            "a gk",
            "State_Monitor",
            "gk.exe",
            "gkgk gk",
            "é gk\u{a0}x",
            "",
        ] {
            assert_eq!(mentions_gk(c), re.is_match(c), "{c:?}");
        }
    }

    #[test]
    fn the_rules_answer_for_twenty_thousand_rows() {
        // The shapes that were quadratic: thousands of undecidable commands
        // naming gk, and thousands of entries of one hook (the time limit is
        // in tests/it/linear_budgets.rs).
        let mut rows = Vec::new();
        for i in 0..10_000 {
            let mut r = reg(
                Scope::User,
                "UserPromptSubmit",
                &format!("cd /tmp/{i} && gk hook prompt | cat"),
                Owner::Foreign,
            );
            r.invocation = None;
            rows.push(r);
            rows.push(reg(
                Scope::User,
                "Stop",
                &format!("/h/.claude/hooks/gk hook stop{}", " ".repeat(i % 50)),
                Owner::Gk(HookKind::Stop),
            ));
        }
        let t = Table::of_rows(rows, Default::default());
        assert_eq!(unrecognised(&t).len(), 10_000);
        assert_eq!(fires_twice(&t)[0].spellings.len(), 50);
        assert_eq!(repeated(&t).len(), 50);
        assert_eq!(programs(&t, &|_| None).len(), 1);
        assert_eq!(gk_programs(&t, &|_| None).len(), 1);
        // No SessionStart row at all.
        assert_eq!(missing(&t), [HookKind::Session]);
    }

    #[test]
    fn a_missing_program_names_every_event_it_fails() {
        let mut wrong = reg(
            Scope::User,
            "Stop",
            "/h/.claude/hooks/gk hook prompt",
            Owner::Gk(HookKind::Prompt),
        );
        wrong.line = 9;
        let rows = vec![
            reg(
                Scope::User,
                "UserPromptSubmit",
                "/h/.claude/hooks/gk hook prompt",
                Owner::Gk(HookKind::Prompt),
            ),
            reg(
                Scope::User,
                "Stop",
                "/h/.claude/hooks/gk hook stop",
                Owner::Gk(HookKind::Stop),
            ),
            wrong,
        ];
        let t = Table::of_rows(rows, Default::default());
        let p = programs(&t, &|_| None);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].events(), ["UserPromptSubmit", "Stop"]);
        assert_eq!(p[0].places.len(), 3);
        let found = programs(&t, &|p| Some(Path::new(p).to_path_buf()));
        assert!(found[0].located.is_some());
    }

    /// A project's hooks as real projects write them, found (or not) for
    /// that project on Linux and on Windows (platform as a value, the file
    /// test injected).
    #[test]
    fn project_hooks_are_found_as_the_clients_shell_finds_them() {
        use crate::hookcmd::CommandContext;
        use crate::platform::Os;
        let cases = [
            (
                CommandContext::with_home(Os::Linux, "/home/ann"),
                "/home/ann/work/app",
                "/home/ann/work/app/.claude/hooks/notify.sh",
                "/usr/bin:/usr/local/bin",
                "/usr/local/bin/prettier",
            ),
            (
                CommandContext::with_home(Os::Windows, r"C:\Users\ann"),
                r"C:\Users\ann\work\app",
                "c:/users/ann/work/app/.claude/hooks/notify.sh",
                r"C:\Windows;C:\tools",
                r"C:\tools\prettier.exe",
            ),
        ];
        for (ctx, project, script, path_var, prettier) in cases {
            let os = ctx.os;
            let commands = [
                "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/notify.sh",
                "$CLAUDE_PROJECT_DIR/.claude/hooks/notify.sh",
                "${CLAUDE_PROJECT_DIR}/.claude/hooks/notify.sh --quiet",
                "prettier --write .",
                "rtk hook",
                // Left alone: shell syntax gk cannot resolve.
                "cd \"$CLAUDE_PROJECT_DIR\" && make lint",
                "$OTHER_DIR/x.sh",
                // The shell's own words: no program to find (on Windows
                // there is no echo.exe; they were reported missing).
                "echo done",
                "exit 0",
                "Write-Output hi",
            ];
            let rows: Vec<Registration> = commands
                .iter()
                .map(|c| {
                    let mut r = reg(Scope::Project, "PostToolUse", c, Owner::Foreign);
                    r.invocation = crate::hookcmd::normalize(c, &ctx);
                    r
                })
                .collect();
            let t = Table::of_rows(rows, Default::default());
            let project = std::path::Path::new(project);
            let look = |present: &[&str]| {
                // Windows file names: any case, either slash.
                let norm = move |p: &str| match os.is_windows() {
                    true => p.to_lowercase().replace('\\', "/"),
                    false => p.to_string(),
                };
                let present: Vec<String> = present.iter().map(|p| norm(p)).collect();
                let exists =
                    move |p: &std::path::Path| present.contains(&norm(&p.to_string_lossy()));
                tool_programs(&t, project, &ctx, &|p| {
                    super::super::locate::locate(
                        os,
                        p,
                        Some(std::ffi::OsStr::new(path_var)),
                        &exists,
                    )
                })
                .into_iter()
                .map(|p| (p.program, p.on_path, p.places.len(), p.located.is_some()))
                .collect::<Vec<_>>()
            };
            let script_on_disk = if os.is_windows() {
                r"C:\Users\ann\work\app\.claude\hooks\notify.sh"
            } else {
                script
            };
            // Present: the script and prettier are found.
            let found = look(&[script_on_disk, prettier]);
            assert!(
                found.contains(&(script.to_string(), false, 3, true)),
                "{os:?}: {found:?}"
            );
            assert!(
                found.contains(&("prettier".to_string(), true, 1, true)),
                "{os:?}: {found:?}"
            );
            assert!(
                found.contains(&("rtk".to_string(), true, 1, false)),
                "{os:?}: {found:?}"
            );
            // `Write-Output` is PowerShell's: under sh, a program to find.
            let cmdlet = ("Write-Output".to_string(), true, 1, false);
            assert_eq!(
                found.contains(&cmdlet),
                !os.is_windows(),
                "{os:?}: {found:?}"
            );
            assert_eq!(
                found.len(),
                3 + usize::from(!os.is_windows()),
                "{os:?}: {found:?}"
            );
            // Absent: each is reported missing.
            let missing = look(&[]);
            assert!(missing.iter().all(|p| !p.3), "{os:?}: {missing:?}");
        }
    }

    #[test]
    fn the_shells_own_words_are_no_programs_to_find() {
        use crate::platform::Os;
        for os in [Os::Linux, Os::Windows] {
            for word in ["echo", "exit", "cd", "true", ":", "source", "ECHO"] {
                assert!(is_shell_builtin(word, None, os), "{os:?} {word}");
            }
            assert!(is_shell_builtin("Write-Host", Some("powershell"), os));
            for word in ["prettier", "rtk", "npx", "git", "-x", "a-"] {
                assert!(!is_shell_builtin(word, None, os), "{os:?} {word}");
            }
            // Programs named with a dash are programs (a first version took
            // any `word-word` for a cmdlet, and hid a missing `bash-guard`).
            for word in [
                "bash-guard",
                "lint-staged",
                "pre-commit",
                "git-lfs",
                "test-runner",
            ] {
                assert!(!is_shell_builtin(word, None, os), "{os:?} {word}");
                assert!(
                    !is_shell_builtin(word, Some("powershell"), os),
                    "{os:?} {word}"
                );
            }
        }
        // A cmdlet means something only where PowerShell may run it.
        assert!(is_shell_builtin("Write-Output", None, Os::Windows));
        assert!(is_shell_builtin("write-host", None, Os::Windows));
        assert!(is_shell_builtin("Start-Sleep", None, Os::Windows));
        assert!(is_shell_builtin("dir", None, Os::Windows));
        assert!(!is_shell_builtin("Write-Output", None, Os::Linux));
        assert!(!is_shell_builtin("dir", None, Os::Linux));
    }

    #[test]
    fn a_project_folder_that_would_change_the_line_is_left_alone() {
        let ctx = crate::hookcmd::CommandContext::with_home(crate::platform::Os::Linux, "/h");
        let cmd = "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.sh";
        assert!(with_project_dir(cmd, std::path::Path::new("/w/a\"b"), &ctx).is_none());
        assert!(with_project_dir(cmd, std::path::Path::new("/w/$HOME"), &ctx).is_none());
        assert_eq!(
            with_project_dir(cmd, std::path::Path::new("/w/my app"), &ctx).map(|i| i.program),
            Some("/w/my app/.claude/hooks/x.sh".to_string())
        );
        assert!(with_project_dir("x.sh", std::path::Path::new("/w"), &ctx).is_none());
    }

    #[test]
    fn skipped_files_are_the_ones_the_client_skips_whole() {
        use super::super::scopes::classify_text;
        let file = |text: &str| ScopeFile {
            scope: Scope::User,
            path: PathBuf::from("/u.json"),
            load: classify_text(Path::new("/u.json"), text),
        };
        let files = vec![
            file("{\"a\": 1,}"),
            file(r#"{"hooks": {"PreToolUse": [{"matcher": 5, "hooks": []}]}}"#),
            // Measured on 2.1.332: under another event, only that part goes.
            file(r#"{"hooks": {"Stop": [{"matcher": 5, "hooks": []}]}}"#),
            file(r#"{"hooks": {"Stop": {}}}"#),
            file(r#"{"model": 5}"#),
            file("{}"),
            file(""),
        ];
        let skipped = skipped_files(&files);
        assert_eq!(skipped.len(), 3);
        assert!(matches!(skipped[0].1, Skipped::NotJson(e) if e.line == 1));
        assert!(
            matches!(skipped[1].1, Skipped::Voided(i) if i.at == "hooks.PreToolUse[0].matcher")
        );
        assert!(matches!(skipped[2].1, Skipped::Voided(i) if i.at == "model"));
    }
}
